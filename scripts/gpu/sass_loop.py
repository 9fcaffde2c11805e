"""The SASS opcodes of a kernel's largest loop (the K loop), counted.

Usage (on the GPU machine, where cuobjdump is):
  ptxas -arch=sm_90a kernel.ptx -o kernel.cubin
  cuobjdump -sass kernel.cubin > kernel.sass
  python3 sass_loop.py kernel.sass
The loop is the longest span from a backward branch's target to the branch.
"""
import collections
import re
import sys

ins = []
for line in open(sys.argv[1]).read().splitlines():
    m = re.match(r'\s*/\*([0-9a-f]{4,})\*/\s+(.*?);', line)
    if m:
        ins.append((int(m.group(1), 16), m.group(2)))
best = None
for addr, text in ins:
    m = re.search(r'BRA .*?0x([0-9a-f]+)', text)
    if m and int(m.group(1), 16) < addr:
        target = int(m.group(1), 16)
        if best is None or addr - target > best[1] - best[0]:
            best = (target, addr)
if not best:
    sys.exit("no loop found")
lo, hi = best
body = [t for a, t in ins if lo <= a <= hi]
counts = collections.Counter(re.sub(r'^@!?U?P\w+\s+', '', t).split()[0] for t in body)
print(f"loop {lo:#x}..{hi:#x}: {len(body)} instructions")
for op, n in counts.most_common(40):
    print(f"{n:5d} {op}")
