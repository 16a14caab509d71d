"""One recorded case's backward, the same code in both interpreters (imports torch).

draw_bwd.py (under upstream) and replay.py (under ours) both call `run_backward` on a recorded
case: every floating input tensor becomes a leaf that requires grad, the case's call runs under
its seed, and torch.autograd.grad takes the recorded cotangents (one per differentiable floating
output, drawn once by upstream) to a gradient per leaf (None where unused). The outcome is
codec.outcome's plain data, so judge.py compares gradients as it compares forward results.
"""

from __future__ import annotations

import zlib

import torch

from torchnative.harness import codec


def leaves_of(tensors: list, clone: bool = False, frozen=()) -> tuple[list, list]:
    """(the tensors a call is given, the leaves that require grad): each floating tensor (but
    those at the positions `frozen` names) is
    replaced by a detached leaf over the same storage, in the same geometry; where `clone`
    (a call that mutates its inputs, which autograd refuses on a leaf), the call is given each
    leaf's clone instead, a non-leaf whose gradient reaches the leaf through CloneBackward."""
    given, leaves = [], []
    for i, t in enumerate(tensors):
        if t.is_floating_point() and i not in frozen:
            t = t.detach().requires_grad_(True)
            leaves.append(t)
            if clone:
                t = t.clone()
        given.append(t)
    return given, leaves


def mutates(case: dict) -> bool:
    """Whether a recorded call writes into its inputs: an in-place spelling, or an in-place
    aten overload among those it reaches (aten.add_.Tensor); such calls run on clones."""
    s = case["spelling"]
    return (s in ("inplace", "inplace_operator") or s.endswith(":inplace")
            or any(o.split(".")[1].endswith("_") for o in case["reached"]
                   if o.startswith("aten.") and not o.split(".")[1].startswith("__")))


def tensor_outputs(result) -> list:
    """The tensors of a result tree, in codec's leaf order (tuples, lists, namedtuples)."""
    if isinstance(result, torch.Tensor):
        return [result]
    if isinstance(result, (tuple, list)):
        return [t for x in result for t in tensor_outputs(x)]
    return []


def differentiable(outputs: list) -> list[int]:
    """Positions of the outputs that carry a gradient: floating and requiring grad."""
    return [k for k, t in enumerate(outputs) if t.is_floating_point() and t.requires_grad]


def draw_cotangents(case_id: str, outputs: list, which: list[int]) -> list:
    """A seeded standard-normal cotangent per differentiable output (seeded from the case id,
    so the draw is reproducible)."""
    g = torch.Generator().manual_seed(zlib.crc32(f"{case_id}|backward".encode()))
    return [torch.randn(outputs[k].shape, dtype=outputs[k].dtype, generator=g) for k in which]


def run_backward(fn, state: dict, args_tree, kwargs_tree, seed: int, cotangents=None,
                 which: list[int] | None = None, case_id: str = "", clone: bool = False,
                 frozen=()) -> dict:
    """The outcome of the gradients of fn's call (or of its exception, forward or backward),
    with "differentiable" (which outputs required grad) and, where they were drawn here,
    "cotangents" (an encoded state and its tree). Given `which` and `cotangents`, those are
    used: a differentiable output set other than the recorded one is reported, not run. With
    `clone`, the call is given clones of the leaves (leaves_of), and where it returns no tensor
    those clones, as it left them, are its outputs. The tensors at the positions `frozen`
    names stay as they are (arguments upstream's formula does not differentiate)."""
    tensors = codec.rebuild(state)
    given, leaves = leaves_of(tensors, clone, frozen)
    args, kwargs = codec.decode(args_tree, given), codec.decode(kwargs_tree, given)
    torch.manual_seed(seed)
    try:
        outputs = tensor_outputs(fn(*args, **kwargs))
    except Exception as e:  # noqa: BLE001 - every exception type is a recorded outcome
        return codec.outcome(None, leaves, e)
    if clone and not outputs:
        # An in-place call that returns nothing (_foreach_add_): what it wrote is its result.
        outputs = [t for t in given if t.is_floating_point()]
    found = differentiable(outputs)
    drawn = None
    if which is None:
        which = found
        cotangents = draw_cotangents(case_id, outputs, which)
        enc = codec.Encoder()
        drawn = {"tree": enc.encode(tuple(cotangents)), **enc.state()}
    elif found != which:
        return {"ok": True, "differentiable": found, "tree": None, "storages": [],
                "tensors": []}
    if not which or not leaves:
        return {"ok": True, "differentiable": found, "tree": (), "storages": [], "tensors": [],
                "cotangents": drawn}
    try:
        grads = torch.autograd.grad([outputs[k] for k in which], leaves,
                                    [c.to(outputs[k].dtype) for k, c in zip(which, cotangents)],
                                    allow_unused=True)
    except Exception as e:  # noqa: BLE001 - every exception type is a recorded outcome
        out = codec.outcome(None, leaves, e)
        out["differentiable"], out["cotangents"] = found, drawn
        return out
    out = codec.outcome(tuple(grads), leaves)
    out["differentiable"], out["cotangents"] = found, drawn
    return out


def decode_cotangents(recorded: dict, widen: bool = False) -> list:
    """The recorded cotangents as tensors (in float64 where widen)."""
    ts = codec.rebuild(recorded)
    out = list(codec.decode(recorded["tree"], ts))
    return [t.to(torch.float64) if widen else t for t in out]
