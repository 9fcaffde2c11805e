"""Merges kite-bench and bench_triton.py JSON lines into one table (Kite,
Triton, cuBLAS or the device copy, and Kite's ratio to each), a JSON file
and a PNG plot of bandwidth versus size for the memory-bound kernels.
Usage: python3 bench_report.py RESULTS.jsonl OUT_DIR"""
import json
import os
import sys

rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
out_dir = sys.argv[2]


def find(**kw):
    for r in rows:
        if all(r.get(k, 0 if k == "extra" else None) == v for k, v in kw.items()):
            return r
    return None


table = []
print(f"{'kernel':24} {'size':>16} {'Kite':>10} {'Triton':>10} {'ref':>10}  {'Kite/Triton':>11} {'Kite/ref':>9}")
for kernel in ("vector_add", "dropout", "seeded_dropout"):
    # (log2 n, extra): n = 2^log2n + extra (odd sizes last)
    sizes = sorted({(r["log2n"], r.get("extra", 0)) for r in rows
                    if r.get("kernel") == kernel and "log2n" in r}, key=lambda s: (s[1], s[0]))
    for lg, extra in sizes:
        k = find(impl="kite", kernel=kernel, log2n=lg, extra=extra)
        t = find(impl="triton", kernel=kernel, log2n=lg, extra=extra)
        ref = k["copy_GBps"] if k else None
        if not k:
            continue
        tv = t["GBps"] if t else float("nan")
        label = f"2^{lg}" + (f"+{extra}" if extra else "")
        print(f"{kernel:24} {label:>16} {k['GBps']:8.0f}GB {tv:8.0f}GB {ref:8.0f}GB  "
              f"{k['GBps'] / tv:10.2f}x {k['GBps'] / ref:8.2f}x")
        table.append(dict(kernel=kernel, size=label, kite_GBps=k["GBps"], triton_GBps=tv,
                          copy_GBps=ref, kite_over_triton=k["GBps"] / tv, kite_over_copy=k["GBps"] / ref))
# Elementwise math and the histogram (256 bins of i32 values): ref = torch
# (torch.bincount for the histogram); "copy" = Kite over the device copy,
# where the row has it.
for kernel, name in (("asin", "asin (f32)"), ("sigmoid", "sigmoid (f32)"),
                     ("selu (map_elementwise)", "selu map_elementwise"),
                     ("histogram", "histogram (256 bins)")):
    for r in [r for r in rows if r.get("impl") == "kite" and r.get("kernel") == kernel]:
        key = dict(kernel=kernel, log2n=r["log2n"], extra=r.get("extra", 0))
        t = find(impl="triton", **key)
        c = find(impl="torch", **key)
        tv = t["GBps"] if t else float("nan")
        cv = c["GBps"] if c else float("nan")
        label = f"2^{r['log2n']}" + (f"+{r['extra']}" if r.get("extra") else "")
        copy = f"  copy {r['GBps'] / r['copy_GBps']:4.2f}x" if "copy_GBps" in r else ""
        print(f"{name:24} {label:>16} {r['GBps']:8.0f}GB {tv:8.0f}GB {cv:8.0f}GB  "
              f"{r['GBps'] / tv:10.2f}x {r['GBps'] / cv:8.2f}x{copy}")
        entry = dict(kernel=kernel, size=label, kite_GBps=r["GBps"], triton_GBps=tv,
                     torch_GBps=cv, kite_over_triton=r["GBps"] / tv,
                     kite_over_torch=r["GBps"] / cv)
        if "copy_GBps" in r:
            entry["kite_over_copy"] = r["GBps"] / r["copy_GBps"]
        table.append(entry)
# Rows sorted and their top k (f32): ref = torch.sort / torch.topk.
for r in [r for r in rows if r.get("impl") == "kite" and r.get("kernel") in ("sort", "topk", "softmax builtin")]:
    key = dict(kernel=r["kernel"], rows=r["rows"], cols=r["cols"], k=r["k"])
    t = find(impl="triton", **key)
    c = find(impl="torch", **key)
    tv = t["GBps"] if t else float("nan")
    cv = c["GBps"] if c else float("nan")
    name = f"{r['kernel']} (f32)" + (f" k={r['k']}" if r["kernel"] == "topk" else "")
    shape = f"{r['rows']}x{r['cols']}"
    print(f"{name:24} {shape:>16} {r['GBps']:8.0f}GB {tv:8.0f}GB {cv:8.0f}GB  "
          f"{r['GBps'] / tv:10.2f}x {r['GBps'] / cv:8.2f}x")
    table.append(dict(kernel=r["kernel"], size=shape, k=r["k"], kite_GBps=r["GBps"],
                      triton_GBps=tv, torch_GBps=cv, kite_over_triton=r["GBps"] / tv,
                      kite_over_torch=r["GBps"] / cv))
# dot_scaled on mxfp8: each Kite configuration beside Triton's best and
# torch's bf16 matmul of the dequantized operands (ref).
# The W8A16 matmul likewise (ref: torch's f16 matmul of the dequantized B).
for r in [r for r in rows if r.get("impl") == "kite" and r.get("kernel") in ("mxfp8 dot_scaled", "w8a16 matmul")]:
    key = dict(kernel=r["kernel"], M=r["M"], N=r["N"], K=r["K"])
    t = find(impl="triton", **key)
    c = find(impl="torch", **key)
    tv = t["tflops"] if t else float("nan")
    cv = c["tflops"] if c else float("nan")
    shape = f"{r['M']}x{r['N']}x{r['K']}"
    name = f"{r['kernel'].split()[0]} {r['config']}"
    print(f"{name:24} {shape:>16} {r['tflops']:7.1f}TF {tv:7.1f}TF {cv:7.1f}TF  "
          f"{r['tflops'] / tv:10.2f}x {r['tflops'] / cv:8.2f}x  triton {t['config'] if t else '-'}")
    table.append(dict(kernel=r["kernel"], size=shape, config=r["config"], kite_tflops=r["tflops"],
                      triton_tflops=tv, torch_tflops=cv, kite_over_triton=r["tflops"] / tv))
# Tutorial 04's exercises: beside Triton's same kernels.
for r in [r for r in rows if r.get("impl") == "kite" and r.get("kernel") in ("seeded_dropout_rows", "sparse_jl")]:
    unit = "GBps" if "GBps" in r else "gflops"
    t = find(impl="triton", kernel=r["kernel"], rows=r["rows"], cols=r["cols"])
    tv = t[unit] if t else float("nan")
    shape = f"{r['rows']}x{r['cols']}" + (f"->{r['k']}" if "k" in r else "")
    label = "GB" if unit == "GBps" else "GF"
    print(f"{r['kernel']:24} {shape:>16} {r[unit]:8.0f}{label} {tv:8.0f}{label} {'':>10}  "
          f"{r[unit] / tv:10.2f}x")
    table.append(dict(kernel=r["kernel"], size=shape, kite=r[unit], triton=tv, unit=unit,
                      kite_over_triton=r[unit] / tv))
# The perceptron layer: ref = torch (cuBLAS addmm, then sigmoid).
for r in [r for r in rows if r.get("impl") == "kite" and r.get("kernel") == "perceptron"]:
    key = dict(kernel="perceptron", M=r["M"], N=r["N"], K=r["K"])
    t = find(impl="triton", **key)
    c = find(impl="torch", **key)
    tv = t["tflops"] if t else float("nan")
    cv = c["tflops"] if c else float("nan")
    shape = f"{r['M']}x{r['N']}x{r['K']}"
    print(f"{'perceptron (f16)':24} {shape:>16} {r['tflops']:7.1f}TF {tv:7.1f}TF {cv:7.1f}TF  "
          f"{r['tflops'] / tv:10.2f}x {r['tflops'] / cv:8.2f}x  {r.get('config', '')}")
    table.append(dict(kernel="perceptron", size=shape, kite_tflops=r["tflops"], triton_tflops=tv,
                      torch_tflops=cv, kite_over_triton=r["tflops"] / tv,
                      kite_over_torch=r["tflops"] / cv))
# Row reductions: ref = torch; "copy" = Kite over a device copy of the
# same bytes.
for kernel, elem in (("softmax", 4), ("layer_norm", 2), ("layer_norm_bwd", 2)):
    for r in [r for r in rows if r.get("impl") == "kite" and r.get("kernel") == kernel]:
        t = find(impl="triton", kernel=kernel, rows=r["rows"], cols=r["cols"])
        c = find(impl="torch", kernel=kernel, rows=r["rows"], cols=r["cols"])
        tv = t["GBps"] if t else float("nan")
        cv = c["GBps"] if c else float("nan")
        copy = r["copy_GBps"]
        name = f"{kernel} ({'f32' if elem == 4 else 'f16'})"
        shape = f"{r['rows']}x{r['cols']}"
        # layer_norm: also Kite over Triton running Kite's one-pass form.
        t1 = find(impl="triton_1pass", kernel=kernel, rows=r["rows"], cols=r["cols"])
        print(f"{name:24} {shape:>16} {r['GBps']:8.0f}GB {tv:8.0f}GB {cv:8.0f}GB  "
              f"{r['GBps'] / tv:10.2f}x {r['GBps'] / cv:8.2f}x  copy {r['GBps'] / copy:4.2f}x"
              + (f"  1-pass Triton {r['GBps'] / t1['GBps']:4.2f}x" if t1 else ""))
        table.append(dict(kernel=name, size=shape, kite_GBps=r["GBps"], triton_GBps=tv,
                          torch_GBps=cv, kite_over_triton=r["GBps"] / tv,
                          kite_over_torch=r["GBps"] / cv, kite_over_copy=r["GBps"] / copy))
# Kernels in a Triton library's style (bench/kernels/library_style.py, one
# source for Kite and Triton): ref = torch.
for kernel in ("rms_norm (library)", "swiglu (library)", "cross_entropy (library)"):
    for r in [r for r in rows if r.get("impl") == "kite" and r.get("kernel") == kernel]:
        t = find(impl="triton", kernel=kernel, rows=r["rows"], cols=r["cols"])
        c = find(impl="torch", kernel=kernel, rows=r["rows"], cols=r["cols"])
        tv = t["GBps"] if t else float("nan")
        cv = c["GBps"] if c else float("nan")
        name = kernel.replace(" (library)", "") + " (lib, bf16)"
        shape = f"{r['rows']}x{r['cols']}"
        print(f"{name:24} {shape:>16} {r['GBps']:8.0f}GB {tv:8.0f}GB {cv:8.0f}GB  "
              f"{r['GBps'] / tv:10.2f}x {r['GBps'] / cv:8.2f}x")
        table.append(dict(kernel=name, size=shape, kite_GBps=r["GBps"], triton_GBps=tv,
                          torch_GBps=cv, kite_over_triton=r["GBps"] / tv,
                          kite_over_torch=r["GBps"] / cv))
# Attention as users write it (bench/kernels/attention_spellings.py, one
# source for Kite and Triton): ref = torch's SDPA; "best" = Kite over its
# own example form (dsl-examples/attention.kite) on the same inputs, and
# Triton's tutorial kernel.
for r in [r for r in rows if r.get("impl") == "kite" and r.get("kernel") == "attention (spelled)"]:
    key = dict(kernel="attention (spelled)", N_CTX=r["N_CTX"], HEAD_DIM=r["HEAD_DIM"])
    t = find(impl="triton", spelling=r["spelling"], **key)
    c = find(impl="torch", spelling="sdpa", **key)
    best = find(impl="kite", spelling="attention.kite", **key)
    tut = find(impl="triton", spelling="tutorial (autotuned)", **key)
    if r["spelling"] == "attention.kite":
        t = tut
    tv = t["tflops"] if t else float("nan")
    cv = c["tflops"] if c else float("nan")
    name = f"attn {r['spelling']}"
    shape = f"d{r['HEAD_DIM']} N={r['N_CTX']}"
    extra = f"  / Kite example {r['tflops'] / best['tflops']:4.2f}x" if best and r is not best else ""
    if r["spelling"] == "attention.kite":
        extra = "  (Triton column: its tutorial kernel)"
    print(f"{name:24} {shape:>16} {r['tflops']:8.1f}TF {tv:8.1f}TF {cv:8.1f}TF  "
          f"{r['tflops'] / tv:10.2f}x {r['tflops'] / cv:8.2f}x" + extra)
    table.append(dict(kernel=name, size=shape, kite_tflops=r["tflops"], triton_tflops=tv,
                      torch_tflops=cv, kite_over_triton=r["tflops"] / tv,
                      kite_over_torch=r["tflops"] / cv,
                      kite_over_kite_example=(r["tflops"] / best["tflops"]) if best else None))
for dtype in ("f32", "tf32", "f16", "bf16", "fp8"):
    for r in [r for r in rows if r.get("impl") == "kite" and r.get("kernel") == "matmul" and r["dtype"] == dtype]:
        shape = f"{r['M']}x{r['N']}x{r['K']}"
        # Kite's TMA rows beside Triton's TMA kernel, its persistent ones
        # beside Triton's tutorial 09, when the run has them.
        blocks = r.get("blocks", "")
        anchor = ("triton_persistent_tma_ws" if dtype == "fp8" and "persistent TMA+WS" in blocks else
                  "triton_persistent_tma" if "persistent TMA" in blocks else
                  "triton_persistent" if "persistent" in blocks else
                  "triton_host_desc" if "host desc" in blocks else
                  "triton_tma" if "TMA" in blocks else "triton")
        t = find(impl=anchor, kernel="matmul", dtype=dtype, M=r["M"], N=r["N"], K=r["K"])
        c = find(impl="cublas", kernel="matmul", dtype=dtype, M=r["M"], N=r["N"], K=r["K"])
        tv = t["tflops"] if t else float("nan")
        cv = c["tflops"] if c else float("nan")
        name = "matmul " + dtype + (" " + r["blocks"] if "blocks" in r else "")
        print(f"{name:24} {shape:>16} {r['tflops']:7.1f}TF {tv:7.1f}TF {cv:7.1f}TF  "
              f"{r['tflops'] / tv:10.2f}x {r['tflops'] / cv:8.2f}x")
        table.append(dict(kernel=name, size=shape, kite_tflops=r["tflops"], triton_tflops=tv,
                          cublas_tflops=cv, kite_over_triton=r["tflops"] / tv, kite_over_cublas=r["tflops"] / cv))
# Attention forward: ref = torch's scaled_dot_product_attention. Rows with
# dropout: beside Kite's same configuration without it (the cost of the
# dropout) and torch's with dropout_p.
for r in [r for r in rows if r.get("impl") == "kite" and r.get("kernel") == "attention"]:
    key = dict(kernel="attention", N_CTX=r["N_CTX"], HEAD_DIM=r["HEAD_DIM"], causal=r["causal"])
    dropout = r.get("dropout", "0") not in ("0", 0)
    if dropout:
        base = [b for b in rows if b.get("impl") == "kite" and b.get("kernel") == "attention"
                and b.get("blocks") == r.get("blocks") and b.get("dropout", "0") in ("0", 0)
                and all(b.get(k) == v for k, v in key.items())]
        t = base[0] if base else None
        c = find(impl="torch_dropout", **key)
    else:
        t = find(impl="triton", **key)
        c = find(impl="torch", **key)
    tv = t["tflops"] if t else float("nan")
    cv = c["tflops"] if c else float("nan")
    name = (f"attention d{r['HEAD_DIM']}{' causal' if r['causal'] else ''}"
            f"{' dropout' if dropout else ''} {r.get('blocks', '')}")
    shape = f"{r['Z']}x{r['H']}x{r['N_CTX']}"
    print(f"{name:24} {shape:>16} {r['tflops']:7.1f}TF {tv:7.1f}TF {cv:7.1f}TF  "
          f"{r['tflops'] / tv:10.2f}x {r['tflops'] / cv:8.2f}x"
          + ("  (Triton column: Kite without dropout)" if dropout else ""))
    table.append(dict(kernel=name, size=shape, kite_tflops=r["tflops"],
                      **({"kite_no_dropout_tflops": tv, "kite_over_no_dropout": r["tflops"] / tv}
                         if dropout else {"triton_tflops": tv, "kite_over_triton": r["tflops"] / tv}),
                      torch_tflops=cv, kite_over_torch=r["tflops"] / cv))
# Attention backward: beside Triton's tutorial-06 backward and torch's
# scaled_dot_product_attention backward (preprocess included on all sides).
for r in [r for r in rows if r.get("impl") == "kite" and r.get("kernel") == "attention_bwd"]:
    key = dict(kernel="attention_bwd", N_CTX=r["N_CTX"], HEAD_DIM=r["HEAD_DIM"],
               causal=r["causal"])
    t = find(impl="triton", **key)
    c = find(impl="torch", **key)
    tv = t["tflops"] if t else float("nan")
    cv = c["tflops"] if c else float("nan")
    name = (f"attn bwd d{r['HEAD_DIM']}{' causal' if r['causal'] else ''} "
            f"{r.get('blocks', '')}")
    shape = f"{r['Z']}x{r['H']}x{r['N_CTX']}"
    print(f"{name:24} {shape:>16} {r['tflops']:7.1f}TF {tv:7.1f}TF {cv:7.1f}TF  "
          f"{r['tflops'] / tv:10.2f}x {r['tflops'] / cv:8.2f}x")
    table.append(dict(kernel=name, size=shape, kite_tflops=r["tflops"], triton_tflops=tv,
                      kite_over_triton=r["tflops"] / tv, torch_tflops=cv,
                      kite_over_torch=r["tflops"] / cv))
launch = [r for r in rows if r.get("bench") == "launch"]
compiles = [r for r in rows if r.get("bench") == "compile"]
for r in launch:
    print(f"{'launch (6 args)':24} {'':>16} {r['kite_us']:8.2f}us {'':>10} {r['raw_us']:8.2f}us  {'':>11} {r['ratio']:8.2f}x")


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


for kernel in dict.fromkeys(r["kernel"] for r in compiles):
    for outcome, label in (("compiled", "cold compile"), ("quick", "cold, quick tier"),
                           ("disk", "warm disk hit")):
        rs = [r for r in compiles if r["kernel"] == kernel and r["outcome"] == outcome]
        if rs:
            tier = (f"; optimized code ready at {median(r['optimized_ms'] for r in rs):.1f}"
                    if outcome == "quick" else "")
            print(f"{label:24} {kernel:>16} {median(r['ms'] for r in rs):8.1f}ms   "
                  f"(median of {len(rs)} new processes: parse {median(r['parse_ms'] for r in rs):.1f}, "
                  f"to PTX {median(r['to_ptx_ms'] for r in rs):.1f}, "
                  f"then ptxas {median(r.get('machine_code_ms', 0) for r in rs):.1f}, "
                  f"load {median(r['load_ms'] for r in rs):.1f}{tier})")
json.dump(dict(rows=rows, table=table), open(os.path.join(out_dir, "bench.json"), "w"), indent=1)
print("(ref: the device copy for the 1-D kernels, torch for softmax/layer norm/attention, cuBLAS for matmul; GB = GB/s, TF = TFLOP/s)")

def plot_bandwidth():
    """bandwidth.png: the 1-D kernels against the device copy."""
    if not any("log2n" in r and "GBps" in r for r in rows):
        print("plot: bandwidth.png skipped (no 1-D rows)")
        return
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, axes = plt.subplots(1, 3, figsize=(15, 4), sharey=True)
        for ax, kernel in zip(axes, ("vector_add", "dropout", "seeded_dropout")):
            for impl, style in (("kite", "o-"), ("triton", "s--")):
                pts = sorted((r["log2n"], r["GBps"]) for r in rows
                             if r.get("impl") == impl and r.get("kernel") == kernel and not r.get("extra"))
                if pts:
                    ax.plot([2 ** p for p, _ in pts], [g for _, g in pts], style, label=impl)
            pts = sorted((r["log2n"], r["GBps"]) for r in rows
                         if r.get("kernel") == "copy" and r.get("impl") == "copy" and not r.get("extra"))
            ax.plot([2 ** p for p, _ in pts], [g for _, g in pts], "k:", label="device copy")
            ax.set_xscale("log", base=2)
            ax.set_title(kernel)
            ax.set_xlabel("elements")
            ax.grid(True, alpha=0.3)
        axes[0].set_ylabel("GB/s")
        axes[0].legend()
        fig.tight_layout()
        fig.savefig(os.path.join(out_dir, "bandwidth.png"), dpi=110)
        print("plot: bandwidth.png")
    except ImportError:
        # No matplotlib: a plain PNG written by hand (three panels, log2 x axis,
        # GB/s y axis from 0; Kite blue, Triton orange, device copy grey).
        import math
        import struct
        import zlib

        W, H, PAD = 360, 260, 30
        img = [[(255, 255, 255)] * (3 * W) for _ in range(H)]

        def line(x0, y0, x1, y1, color):
            steps = int(max(abs(x1 - x0), abs(y1 - y0))) + 1
            for i in range(steps + 1):
                x = round(x0 + (x1 - x0) * i / steps)
                y = round(y0 + (y1 - y0) * i / steps)
                for dx in (0, 1):
                    if 0 <= x + dx < 3 * W and 0 <= y < H:
                        img[y][x + dx] = color

        mem = [r for r in rows if "log2n" in r and "GBps" in r]
        ymax = max(r["GBps"] for r in mem) * 1.1
        logs = sorted({r["log2n"] for r in mem})
        for panel, kernel in enumerate(("vector_add", "dropout", "seeded_dropout")):
            ox = panel * W
            def xy(lg, g):
                x = ox + PAD + (lg - logs[0]) / max(1, logs[-1] - logs[0]) * (W - 2 * PAD)
                y = H - PAD - g / ymax * (H - 2 * PAD)
                return x, y
            line(ox + PAD, H - PAD, ox + W - PAD, H - PAD, (0, 0, 0))
            line(ox + PAD, PAD, ox + PAD, H - PAD, (0, 0, 0))
            for g in range(0, int(ymax), 500):  # grid every 500 GB/s
                _, y = xy(logs[0], g)
                line(ox + PAD, y, ox + W - PAD, y, (225, 225, 225))
            for impl, kname, color in (("copy", "copy", (150, 150, 150)), ("triton", kernel, (230, 140, 30)),
                                       ("kite", kernel, (30, 90, 200))):
                pts = sorted((r["log2n"], r["GBps"]) for r in mem if r["impl"] == impl and r["kernel"] == kname)
                for (a, ga), (b, gb) in zip(pts, pts[1:]):
                    line(*xy(a, ga), *xy(b, gb), color)
        raw = b"".join(b"\0" + bytes(c for px in row for c in px) for row in img)
        def chunk(tag, data):
            return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)
        png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 3 * W, H, 8, 2, 0, 0, 0)) +
               chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))
        open(os.path.join(out_dir, "bandwidth.png"), "wb").write(png)
        print("plot: bandwidth.png (matplotlib not installed: plain rendering; panels vector_add, dropout, "
              "seeded_dropout; x = log2 n from %d to %d; y = GB/s from 0, grid every 500; blue Kite, orange Triton, "
              "grey device copy)" % (logs[0], logs[-1]))



plot_bandwidth()

# Matmul: TFLOP/s per shape and dtype, Kite (its tuned kernel, else its
# best fixed block shape), Triton's autotuned tutorial kernel and cuBLAS,
# like Triton's perf_report. Needs matplotlib (the GPU machine has it);
# a failure here never fails the benchmark.
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    mm = [r for r in rows if r.get("kernel") == "matmul" and "tflops" in r]
    dtypes = [d for d in ("f32", "tf32", "f16", "bf16") if any(r["dtype"] == d for r in mm)]
    shapes = sorted({(r["M"], r["N"], r["K"]) for r in mm},
                    key=lambda s: (s[2] != s[0], s[0] * s[1] * s[2]))
    if dtypes and shapes:
        fig, axes = plt.subplots(1, len(dtypes), figsize=(4.5 * len(dtypes), 4), squeeze=False)
        for ax, dtype in zip(axes[0], dtypes):
            def best(impl, shape):
                rs = [r for r in mm if r["impl"] == impl and r["dtype"] == dtype and
                      (r["M"], r["N"], r["K"]) == shape]
                tuned = [r for r in rs if r.get("blocks") == "tuned"]
                rs = tuned or rs
                return max((r["tflops"] for r in rs), default=0.0)
            width = 0.27
            for i, (impl, label) in enumerate((("kite", "Kite"), ("triton", "Triton"),
                                               ("cublas", "cuBLAS"))):
                ax.bar([x + (i - 1) * width for x in range(len(shapes))],
                       [best(impl, s) for s in shapes], width, label=label)
            ax.set_xticks(range(len(shapes)))
            ax.set_xticklabels([f"{m}^3" if m == n == k else f"{m}x{n}x{k}" for m, n, k in shapes],
                               rotation=20)
            ax.set_title(f"matmul {dtype}")
            ax.grid(True, axis="y", alpha=0.3)
        axes[0][0].set_ylabel("TFLOP/s")
        axes[0][0].legend()
        fig.tight_layout()
        fig.savefig(os.path.join(out_dir, "matmul.png"), dpi=110)
        print("plot: matmul.png")
except ImportError:
    print("plot: matmul.png skipped (no matplotlib)")
except Exception as e:  # noqa: BLE001 - a plot never fails the benchmark
    print(f"plot: matmul.png failed: {e}")

# The row kernels (tutorials 02 and 05): GB/s against the row length, Kite,
# Triton and torch, one panel each, like Triton's perf_report.
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    kernels = [k for k in ("softmax", "layer_norm", "layer_norm_bwd")
               if any(r.get("kernel") == k and "cols" in r for r in rows)]
    if kernels:
        fig, axes = plt.subplots(1, len(kernels), figsize=(4.5 * len(kernels), 4), squeeze=False)
        for ax, kernel in zip(axes[0], kernels):
            for impl, style, label in (("kite", "o-", "Kite"), ("triton", "s--", "Triton"),
                                       ("torch", "^:", "torch")):
                pts = sorted((r["cols"], r["GBps"]) for r in rows
                             if r.get("impl") == impl and r.get("kernel") == kernel and "cols" in r)
                if pts:
                    ax.plot([c for c, _ in pts], [g for _, g in pts], style, label=label)
            ax.set_xscale("log", base=2)
            ax.set_xlabel("columns (4096 rows)")
            ax.set_title(kernel.replace("_", " "))
            ax.grid(True, alpha=0.3)
        axes[0][0].set_ylabel("GB/s")
        axes[0][0].legend()
        fig.tight_layout()
        fig.savefig(os.path.join(out_dir, "rows.png"), dpi=110)
        print("plot: rows.png")
except ImportError:
    print("plot: rows.png skipped (no matplotlib)")
except Exception as e:  # noqa: BLE001 - a plot never fails the benchmark
    print(f"plot: rows.png failed: {e}")
