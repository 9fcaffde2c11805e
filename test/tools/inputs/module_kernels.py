#!/usr/bin/env python3
"""Checks that kitec compiles each kernel of a .kite file the same whether
the file is compiled whole or the kernel alone (--kernel, as the runtime
compiles it): a pass that counts a per-kernel resource over the whole
module would make them differ.

Usage: module_kernels.py KITEC FILE SPECIALIZE [KITEC OPTIONS...]
SPECIALIZE: NAME=FACT,... (--specialize); each kernel alone takes the
items naming its own parameters. Prints one line a kernel ("same NAME");
exits 1 on the first difference (the first differing lines), 2 on a
failed compile. Labels and the local depot are numbered per module and
are normalized."""
import re
import subprocess
import sys
import tempfile


def entries(ptx):
    out = {}
    for m in re.finditer(r"\.entry (\w+)\(.*?\n\}\n", ptx, re.S):
        text = re.sub(r"\$L__BB\d+_", "$L__BB_", m.group(0))
        out[m.group(1)] = re.sub(r"__local_depot\d+", "__local_depot", text)
    return out


def compile(kitec, args):
    with tempfile.NamedTemporaryFile(suffix=".ptx") as out:
        r = subprocess.run([kitec, *args, "-o", out.name], capture_output=True, text=True)
        if r.returncode:
            print("kitec failed:", " ".join(args), r.stderr, sep="\n")
            sys.exit(2)
        return open(out.name).read()


def main():
    kitec, path, spec, *opts = sys.argv[1:]
    src = open(path).read()
    kernels = re.findall(r"@kernel[^\n]*\n(?:@[^\n]*\n)*def\s+(\w+)\s*\((.*?)\):", src, re.S)
    whole = entries(compile(kitec, [path, *opts, "--specialize=" + spec]))
    for name, params in kernels:
        mine = [s for s in spec.split(",") if re.search(r"\b" + s.split("=")[0] + r"\s*:", params)]
        alone = entries(compile(kitec, [path, *opts, "--kernel=" + name] +
                                (["--specialize=" + ",".join(mine)] if mine else [])))
        a, b = whole.get(name), alone.get(name)
        if a is None or b is None:
            print(f"{name}: no entry in the {'whole' if a is None else 'single'} compile")
            sys.exit(1)
        if a != b:
            for x, y in zip(a.splitlines(), b.splitlines()):
                if x != y:
                    print(f"DIFF {name}\n  whole: {x}\n  alone: {y}")
                    break
            else:
                print(f"DIFF {name}: {len(a.splitlines())} against {len(b.splitlines())} lines")
            sys.exit(1)
        print("same", name)


main()
