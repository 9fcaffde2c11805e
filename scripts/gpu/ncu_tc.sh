#!/usr/bin/env bash
#===- scripts/gpu/ncu_tc.sh - ncu metrics of tensor-core variants vs Triton -===#
#
# On the GPU machine: ncu over one launch of each Kite PTX variant and of
# Triton's tutorial kernel (TRITON_CONFIG=BMxBNxBKwWsS, else its autotuned
# pick), printed as one table (metric x kernel). Clocks free-running unless
# NCU_CLOCKS=base.
#   bash .gpu/ncu_tc.sh M,N,K .gpu/tc/<variant>.ptx ...
#
#===-----------------------------------------------------------------------===#
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
shape="$1"; shift
csv="${OUT:-/tmp}/ncu_tc.$$.csv"
ncu --profile-from-start off --clock-control "${NCU_CLOCKS:-none}" --csv \
  --metrics gpu__time_duration.sum,smsp__inst_executed.sum,launch__registers_per_thread,launch__occupancy_limit_shared_mem,launch__occupancy_limit_registers,sm__warps_active.avg.pct_of_peak_sustained_active,dram__bytes_write.sum,dram__bytes_read.sum,lts__t_bytes.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__cycles_active.avg,regex:smsp__average_warps_issue_stalled_.*_per_issue_active.ratio \
  python3 "$here/profile_tc.py" "$shape" "$@" > "$csv" 2>&1 || { tail -20 "$csv"; exit 1; }
python3 - "$csv" <<'PY'
import csv, sys, collections
rows = list(csv.reader(l for l in open(sys.argv[1]) if l.startswith('"')))
h = rows[0]; ki = h.index("Kernel Name"); ii = h.index("ID"); mi = h.index("Metric Name"); vi = h.index("Metric Value")
d = collections.OrderedDict()
for r in rows[1:]:
    d.setdefault(r[mi], {})[r[ii] + ":" + r[ki][:12]] = r[vi]
cols = list(next(iter(d.values())).keys())
print("metric".ljust(44), *[c.ljust(16) for c in cols])
for m, v in d.items():
    vals = [v.get(c, "") for c in cols]
    try:
        if all(float(x.replace(",", "")) < 0.05 for x in vals): continue
    except ValueError: pass
    m = m.replace("smsp__average_warps_issue_stalled_", "stall_").replace("_per_issue_active.ratio", "")
    print(m[:44].ljust(44), *[x.ljust(16) for x in vals])
PY
