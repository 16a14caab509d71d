"""Calls an overload can only be made inside a context, written as functions both halves run.

Some overloads have no outcome to grade outside a state the caller enters first: upstream's
aten._make_dual raises "Invalid level given to _make_dual" unless a forward-AD dual level is
open. extra_cases.py records a case of such an overload twice, as its bare aten spelling (whose
refusal ours must match) and as the function here (spelling "wrapped"), which opens the state,
makes the call and returns what the caller would see. Both halves resolve the function by its
dotted path, torchnative.harness.wrapped.NAME (resolve, below).
"""

from __future__ import annotations

import importlib
import operator

import torch
import torch.autograd.forward_ad as fwAD


def make_dual_in_level(primal, tangent, level):
    """aten._make_dual inside a dual level (`level` counts from the one opened here): the dual
    tensor, and its tangent as unpack_dual reads it back inside the level. Past the level the
    dual tensor is a view of primal that backward goes through (upstream's ViewBackward0)."""
    with fwAD.dual_level() as opened:
        dual = torch.ops.aten._make_dual.default(primal, tangent, opened + level)
        return dual, fwAD.unpack_dual(dual).tangent


def resolve(path: str):
    """The object a dotted path names ("operator.add", "torch.ops.aten.add.Tensor", or a
    function here, "torchnative.harness.wrapped.make_dual_in_level")."""
    if path.startswith("torchnative."):
        module, _, name = path.rpartition(".")
        return getattr(importlib.import_module(module), name)
    head, *rest = path.split(".")
    obj = operator if head == "operator" else importlib.import_module(head)
    for part in rest:
        obj = getattr(obj, part)
    return obj


# overload -> the function's dotted path
WRAPPED = {"aten._make_dual.default": "torchnative.harness.wrapped.make_dual_in_level"}
