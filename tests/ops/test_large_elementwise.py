"""Elementwise ops on tensors large enough to be split between threads (issue 10, item 3):
ours at 1 and 2 threads against upstream, each in its own process, bit for bit. A shared
scratch buffer once made float32 sigmoid and silu return garbage past 32,768 elements when two
threads ran chunks at once; the sizes here cross that."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import OURS, UPSTREAM, run_json  # noqa: E402

CODE = r"""
import hashlib, json, torch
import torch.nn.functional as F
g = torch.Generator().manual_seed(0)
xs = {n: torch.randn(n, generator=g) * 4 for n in (40000, 100003)}
ops = {
    "sigmoid": torch.sigmoid, "silu": F.silu, "tanh": torch.tanh, "exp": torch.exp,
    "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"), "relu": torch.relu,
    "hardswish": F.hardswish, "sigmoid_2d": lambda x: torch.sigmoid(x[: x.numel() // 4 * 4].view(4, -1).t()),
}
out = {}
for threads in (1, 2):
    torch.set_num_threads(threads)
    for name, f in ops.items():
        for n, x in xs.items():
            y = f(x).contiguous()
            out[f"{name}/{n}/{threads}"] = hashlib.sha256(y.numpy().tobytes()).hexdigest()
print(json.dumps(out))
"""


def test_large_elementwise_bits_match_upstream_at_any_thread_count():
    ours, upstream = run_json(OURS, CODE), run_json(UPSTREAM, CODE)
    mismatched = sorted(k for k in upstream if ours[k] != upstream[k])
    assert mismatched == []
