"""Python spellings upstream's argument parser accepts (issue 9, item 5), ours and upstream each
in its own process: Python's own types as dtypes (torch.tensor(0, dtype=int), x.to(float)),
numpy's keyword names (axis for dim, keepdims for keepdim, x/a/x1 for input, x2 for other), how
torch.return_types print, the legacy torch.Tensor(...) constructor, nonzero's as_tuple, and numpy scalars taken as numbers. Each spelling's result, or the exception type it raises."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import OURS, UPSTREAM, run_json  # noqa: E402

CODE = r"""
import json, torch, warnings
import numpy as np
warnings.simplefilter("ignore")  # numpy's ComplexWarning for complex64 read as a float
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
    # the legacy constructor torch.Tensor(...)
    "Tensor()": lambda: torch.Tensor(),
    "Tensor(2, 3) shape": lambda: torch.Tensor(2, 3).zero_(),
    "Tensor(list)": lambda: torch.Tensor([2, 3]),
    "Tensor(Size)": lambda: torch.Tensor(torch.Size([2, 1])).zero_(),
    "Tensor(long tensor)": lambda: torch.Tensor(torch.tensor([1, 2])),
    "Tensor(float)": lambda: torch.Tensor(3.5),
    "Tensor(meta device)": lambda: torch.Tensor(2, device="meta"),
    "Tensor(dtype=)": lambda: torch.Tensor(2, dtype=torch.float64),
    "Tensor(-1)": lambda: torch.Tensor(-1),
    # nonzero's hand-bound spellings
    "nonzero": lambda: torch.nonzero(x > 5),
    "nonzero as_tuple": lambda: repr([t.tolist() for t in torch.nonzero(x > 5, as_tuple=True)]),
    "method nonzero as_tuple": lambda: repr([t.tolist() for t in (x > 5).nonzero(as_tuple=True)]),
    "where(cond)": lambda: repr([t.tolist() for t in torch.where(x > 9)]),
    "argwhere": lambda: torch.argwhere(x > 9),
    # new_tensor, frombuffer (sharing the buffer), equal, type() by name
    "new_tensor": lambda: x.new_tensor([1, 2]),
    "new_tensor dtype": lambda: x.new_tensor([1.5], dtype=torch.int64),
    "frombuffer": lambda: torch.frombuffer(bytearray(b"\x01\x00\x00\x00\x02\x00\x00\x00"),
                                           dtype=torch.int32),
    "frombuffer shares": lambda: (lambda b: (torch.frombuffer(b, dtype=torch.uint8).fill_(7),
                                             list(b))[1])(bytearray(3)),
    "frombuffer offset count": lambda: torch.frombuffer(bytearray(range(8)), dtype=torch.uint8,
                                                        count=3, offset=2),
    "frombuffer too long": lambda: torch.frombuffer(bytearray(8), dtype=torch.int32, count=3),
    "frombuffer empty": lambda: torch.frombuffer(bytearray(0), dtype=torch.int32),
    "frombuffer not a buffer": lambda: torch.frombuffer(3, dtype=torch.int32),
    "equal": lambda: torch.equal(x, x.clone()),
    "equal differs": lambda: torch.equal(x, x + 1),
    "equal shape": lambda: torch.equal(x, x.t()),
    "equal nan self": lambda: (lambda n: torch.equal(n, n))(torch.tensor([float("nan")])),
    "equal nan copy": lambda: (lambda n: torch.equal(n, n.clone()))(torch.tensor([float("nan")])),
    "equal dtypes": lambda: torch.equal(x, x.long()),
    # numpy scalars where a number is taken (upstream's is_numpy_scalar): vits multiplies by one
    "tensor * np.int64": lambda: x * np.int64(3),
    "int tensor * np.float32": lambda: torch.tensor([1, 2]) * np.float32(1.5),
    "tensor + np.bool_": lambda: x + np.bool_(True),
    "uint8 + np.uint8": lambda: torch.tensor([3], dtype=torch.uint8) + np.uint8(250),
    "add alpha np.float32": lambda: torch.add(x, x, alpha=np.float32(2)),
    "pow np.int32": lambda: x ** np.int32(3),
    "full np.int64": lambda: torch.full((2,), np.int64(4)),
    "tensor * np.complex64": lambda: x * np.complex64(2 + 1j),
    "type name": lambda: x.type("torch.DoubleTensor"),
    "type bad name": lambda: x.type("torch.NoSuchTensor"),
}
out = {}
for name, f in spellings.items():
    try:
        r = f()
        if isinstance(r, (str, bool, list)):
            out[name] = r
        else:
            out[name] = [str(r.dtype), r.tolist()]
    except Exception as e:
        out[name] = ["raises", type(e).__name__]
print(json.dumps(out))
"""


def test_python_spellings_agree_with_upstream():
    ours, upstream = run_json(OURS, CODE), run_json(UPSTREAM, CODE)
    assert ours == upstream
    assert upstream["tensor dtype=int"][0] == "torch.int64"  # transformers' static cache
    assert upstream["dim and axis"] == ["raises", "TypeError"]
