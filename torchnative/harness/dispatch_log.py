"""The aten overloads a logging TorchDispatchMode sees during one call, in order.

Imported by draw.py (under upstream) and replay.py (under ours) only: it imports torch. Both
sides log the same recorded case, each in its own process; report.py compares the two lists.
"""

from __future__ import annotations

from torch.utils._python_dispatch import TorchDispatchMode

RAISES = "raises"  # the last entry of a call that raised


class DispatchLog(TorchDispatchMode):
    """Appends str(func) ("aten.add.Tensor") for each call that reaches the Python key."""

    def __init__(self):
        super().__init__()
        self.ops: list[str] = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops.append(str(func))
        return func(*args, **(kwargs or {}))


def dispatch_sequence(fn, args, kwargs) -> list[str]:
    """The overloads fn(*args, **kwargs) reaches below autograd, ending in RAISES if it raised."""
    with DispatchLog() as log:
        try:
            fn(*args, **kwargs)
        except Exception:  # noqa: BLE001 - where it stopped is part of the sequence
            log.ops.append(RAISES)
    return log.ops
