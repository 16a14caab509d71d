"""Python spellings upstream's argument parser accepts (issue 9, item 5), ours and upstream each
in its own process: Python's own types as dtypes (torch.tensor(0, dtype=int), x.to(float)),
numpy's keyword names (axis for dim, keepdims for keepdim, x/a/x1 for input, x2 for other), and
how torch.return_types print. Each spelling's result, or the exception type it raises."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import OURS, UPSTREAM, run_json  # noqa: E402

CODE = r"""
import json, torch
x = torch.arange(12.).reshape(3, 4)
spellings = {
    "tensor dtype=int": lambda: torch.tensor(0, dtype=int),
    "tensor dtype=float": lambda: torch.tensor([1, 2], dtype=float),
    "tensor dtype=bool": lambda: torch.tensor([0, 2], dtype=bool),
    "zeros dtype=int": lambda: torch.zeros(2, dtype=int),
    "to(int)": lambda: x.to(int),
    "to(dtype=bool)": lambda: x.to(dtype=bool),
    "to(cpu, float)": lambda: x.to("cpu", float),
    "mean axis": lambda: x.mean(axis=1),
    "sum axis keepdims": lambda: x.sum(axis=0, keepdims=True),
    "all axis keepdims": lambda: torch.all(x > 2, axis=1, keepdims=True),
    "sum x=": lambda: torch.sum(x=x, axis=1),
    "sum a=": lambda: torch.sum(a=x, axis=1),
    "add x1 x2": lambda: torch.add(x1=x, x2=x),
    "method add x2": lambda: x.add(x2=x),
    "cat axis": lambda: torch.cat([x, x], axis=1),
    "argmax axis": lambda: x.argmax(axis=0),
    "softmax axis": lambda: torch.softmax(x, axis=1),
    "dim and axis": lambda: x.mean(dim=1, axis=1),
    "max axis repr": lambda: repr(x.max(axis=1)),
    "sort repr": lambda: repr(torch.sort(torch.tensor([3, 1, 2]))),
}
out = {}
for name, f in spellings.items():
    try:
        r = f()
        out[name] = r if isinstance(r, str) else [str(r.dtype), r.tolist()]
    except Exception as e:
        out[name] = ["raises", type(e).__name__]
print(json.dumps(out))
"""


def test_python_spellings_agree_with_upstream():
    ours, upstream = run_json(OURS, CODE), run_json(UPSTREAM, CODE)
    assert ours == upstream
    assert upstream["tensor dtype=int"][0] == "torch.int64"  # transformers' static cache
    assert upstream["dim and axis"] == ["raises", "TypeError"]
