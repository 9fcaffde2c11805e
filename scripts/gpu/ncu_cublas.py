#!/usr/bin/env python3
"""One f32 (IEEE, TF32 off) cuBLAS matmul at 4096^3, for profiling under ncu."""
import torch

torch.backends.cuda.matmul.allow_tf32 = False
a = torch.randn(4096, 4096, device="cuda")
b = torch.randn(4096, 4096, device="cuda")
torch.matmul(a, b)
torch.cuda.synchronize()
