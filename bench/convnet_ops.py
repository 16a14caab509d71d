"""Per-op times of bench/_train_child.py's conv net training step, ours against upstream.

Run from the repository root: `.venv/bin/python bench/convnet_ops.py [--threads N] [--rounds R]`.
Each aten op of one step (forward, backward, its shapes) is called directly through
torch.ops.aten in a child process per side (ours, upstream; never one process); the sides
alternate R times and each round's figure for an op is the median of many calls. Printed: the
median over rounds per op and side, and ours / upstream. A tool for finding where the time goes,
not a record (bench/train_bench.py is the record).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTHONS = {"ours": ROOT / ".venv/bin/python", "upstream": ROOT / ".venv-upstream/bin/python"}

CHILD = r'''
import json, statistics, sys, time
import torch
torch.set_num_threads(int(sys.argv[1]))
reps = int(sys.argv[2])
aten = torch.ops.aten
g = torch.Generator().manual_seed(1)
def r(*s):
    return torch.randn(*s, generator=g)
N = 32
x = r(N, 3, 32, 32)
w1, b1 = r(16, 3, 3, 3) * 0.2, r(16) * 0.1
w2, b2 = r(32, 16, 3, 3) * 0.1, r(32) * 0.1
gam1, bet1, rm1, rv1 = torch.ones(16), torch.zeros(16), torch.zeros(16), torch.ones(16)
gam2, bet2, rm2, rv2 = torch.ones(32), torch.zeros(32), torch.zeros(32), torch.ones(32)
c1 = aten.convolution(x, w1, b1, [1, 1], [1, 1], [1, 1], False, [0, 0], 1)
bn1, sm1, si1 = aten.native_batch_norm(c1, gam1, bet1, rm1, rv1, True, 0.1, 1e-5)
a1 = aten.relu(bn1)
p1, i1 = aten.max_pool2d_with_indices(a1, [2, 2], [2, 2], [0, 0], [1, 1], False)
c2 = aten.convolution(p1, w2, b2, [1, 1], [1, 1], [1, 1], False, [0, 0], 1)
bn2, sm2, si2 = aten.native_batch_norm(c2, gam2, bet2, rm2, rv2, True, 0.1, 1e-5)
a2 = aten.relu(bn2)
p2, i2 = aten.max_pool2d_with_indices(a2, [2, 2], [2, 2], [0, 0], [1, 1], False)
gp2, ga2, gc2 = r(*p2.shape), r(*a2.shape), r(*c2.shape)
gp1, ga1, gc1 = r(*p1.shape), r(*a1.shape), r(*c1.shape)
flat = p2.reshape(N, -1)
mask = torch.empty_like(flat)
wl, bl = r(10, 2048) * 0.02, r(10)
logits = aten.addmm(bl, flat, wl.t())
target = torch.zeros(N, dtype=torch.long)
ops = {
  "conv1 fwd": lambda: aten.convolution(x, w1, b1, [1, 1], [1, 1], [1, 1], False, [0, 0], 1),
  "bn1 fwd": lambda: aten.native_batch_norm(c1, gam1, bet1, rm1, rv1, True, 0.1, 1e-5),
  "relu1": lambda: aten.relu(bn1),
  "pool1 fwd": lambda: aten.max_pool2d_with_indices(a1, [2, 2], [2, 2], [0, 0], [1, 1], False),
  "conv2 fwd": lambda: aten.convolution(p1, w2, b2, [1, 1], [1, 1], [1, 1], False, [0, 0], 1),
  "bn2 fwd": lambda: aten.native_batch_norm(c2, gam2, bet2, rm2, rv2, True, 0.1, 1e-5),
  "relu2": lambda: aten.relu(bn2),
  "pool2 fwd": lambda: aten.max_pool2d_with_indices(a2, [2, 2], [2, 2], [0, 0], [1, 1], False),
  "dropout": lambda: torch.nn.functional.dropout(flat, 0.25, True),
  "linear": lambda: aten.addmm(bl, flat, wl.t()),
  "cross_entropy": lambda: torch.nn.functional.cross_entropy(logits, target),
  "pool2 bwd": lambda: aten.max_pool2d_with_indices_backward(gp2, a2, [2, 2], [2, 2], [0, 0],
                                                            [1, 1], False, i2),
  "relu2 bwd": lambda: aten.threshold_backward(ga2, a2, 0),
  "bn2 bwd": lambda: aten.native_batch_norm_backward(gc2, c2, gam2, rm2, rv2, sm2, si2, True,
                                                     1e-5, [True, True, True]),
  "conv2 bwd": lambda: aten.convolution_backward(gc2, p1, w2, [32], [1, 1], [1, 1], [1, 1],
                                                 False, [0, 0], 1, [True, True, True]),
  "pool1 bwd": lambda: aten.max_pool2d_with_indices_backward(gp1, a1, [2, 2], [2, 2], [0, 0],
                                                            [1, 1], False, i1),
  "relu1 bwd": lambda: aten.threshold_backward(ga1, a1, 0),
  "bn1 bwd": lambda: aten.native_batch_norm_backward(gc1, c1, gam1, rm1, rv1, sm1, si1, True,
                                                     1e-5, [True, True, True]),
  "conv1 bwd": lambda: aten.convolution_backward(gc1, x, w1, [16], [1, 1], [1, 1], [1, 1],
                                                 False, [0, 0], 1, [False, True, True]),
}
out = {}
for name, f in ops.items():
    for _ in range(3):
        f()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t0)
    out[name] = statistics.median(ts)
print(json.dumps(out))
'''


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--reps", type=int, default=40)
    parser.add_argument("--only", choices=sorted(PYTHONS), help="time one side only")
    args = parser.parse_args()
    env = {**os.environ, "OMP_NUM_THREADS": str(args.threads),
           "MKL_NUM_THREADS": str(args.threads)}
    sides = [args.only] if args.only else list(PYTHONS)
    got: dict[str, list[dict]] = {s: [] for s in sides}
    for _ in range(args.rounds):
        for side in sides:
            text = subprocess.run([str(PYTHONS[side]), "-I", "-c", CHILD, str(args.threads),
                                   str(args.reps)], env=env, check=True, capture_output=True,
                                  text=True).stdout
            got[side].append(json.loads(text.strip().splitlines()[-1]))
    names = list(got[sides[0]][0])
    med = {s: {n: statistics.median(r[n] for r in got[s]) for n in names} for s in sides}
    print(f"threads {args.threads}, {args.rounds} rounds x {args.reps} calls; median µs")
    print(f"{'op':<16}" + "".join(f"{s:>12}" for s in sides) + ("   ours/up" if
                                                                  len(sides) == 2 else ""))
    for n in names + ["total"]:
        vals = [sum(med[s].values()) if n == "total" else med[s][n] for s in sides]
        ratio = f"{vals[0] / vals[1]:10.2f}" if len(sides) == 2 else ""
        print(f"{n:<16}" + "".join(f"{v * 1e6:12.1f}" for v in vals) + ratio)
    return 0


if __name__ == "__main__":
    sys.exit(main())
