"""Fuzz cases for the Python surface torch.ops does not reach (factories, indexing, tensor
creation, seeds, storages): one expression template per entry point, each filled with every
hostile int of draw.HOSTILE_INTS. Imports no torch; child.py evaluates the expressions.
"""

from __future__ import annotations

from torchnative.fuzz.draw import HOSTILE_INTS, with_id

TEMPLATES = (
    "torch.empty({n})",
    "torch.zeros(2, {n})",
    "torch.ones(4).as_strided((2,), ({n},)).tolist()",
    "torch.ones(4).as_strided((2,), (1,), {n}).tolist()",
    "torch.ones(4)[{n}]",
    "torch.arange(6).reshape(2, 3)[:, {n}]",
    "torch.ones(5)[{n}:2].tolist()",
    "torch.tensor([{n}])",
    "torch.tensor({n}, dtype=torch.int32)",
    "torch.manual_seed({n})",
    "torch.full((2,), {n}, dtype=torch.int32).tolist()",
    "torch.ones(3).fill_({n}).tolist()",
    "torch.ones(2, dtype=torch.int64).add_({n}).tolist()",
    "torch.randperm({n})",
    "torch.linspace(0, 1, {n})",
    "torch.ones(6).unfold(0, {n}, 1).tolist()",
    "torch.ones(6).view({n}, -1)",
    "torch.ones(2, 3).narrow(1, {n}, 1)",
    "torch.ones(2, 3).select(1, {n})",
    "torch.ones(4).untyped_storage().resize_({n})",
)
FIXED = (
    "torch.ones(3).squeeze((0, 0))",
    "torch.ones(2).expand(3, 2).add_(1).tolist()",
    "torch.ones(2).expand(3, 2).copy_(torch.zeros(3, 2)).tolist()",
    "torch.ones(4).set_(torch.ones(2).untyped_storage(), 0, (8,)).tolist()",
    "torch.add(torch.ones(3), torch.ones(3), out=torch.empty(3, dtype=torch.int64))",
    "torch.tensor([[1.0], [2.0, 3.0]])",
    "torch.tensor([1, 'a'])",
)


def cases() -> list[dict]:
    """Every template with every hostile int, then the fixed expressions."""
    exprs = [t.format(n=n) for t in TEMPLATES for n in HOSTILE_INTS] + list(FIXED)
    return [with_id({"expr": e}) for e in exprs]
