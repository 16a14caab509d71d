"""The optimizer-step cases of bench/optim_bench.py, timed under this interpreter's torch.

Run by path, `python -I _optim_child.py REQUEST_JSON`; stays resident and answers each `round`
command with every runnable case's seconds per optimizer.step() (the median of the round's
steps), timed with time.perf_counter in this process. The parameters are those of
bench/_train_child.py's mlp and gpt2 models; their gradients are drawn from a seeded generator
rather than computed, so that the step alone is measured and its result can be held to
upstream's bit for bit: before the rounds it sends each case's digest of every parameter after
3 steps.
"""

from __future__ import annotations

import hashlib
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parents[1]))  # for torchnative._child, stdlib only
sys.path.append(str(Path(__file__).resolve().parent))  # for _train_child's model builders
from torchnative import _child  # noqa: E402
from torchnative._child import send, step  # noqa: E402

import _train_child  # noqa: E402

# (name, model builder in _train_child, optimizer, description) in report order.
CASES = (
    ("mlp-sgd", "mlp", "sgd", "the mlp's 4 parameters (1.05 M), SGD(lr=0.01, momentum=0.9)"),
    ("gpt2-adamw", "gpt2", "adamw",
     "the gpt2's parameters, AdamW(lr=1e-3), foreach=None (the default)"),
    ("mlp-adamw", "mlp", "adamw",
     "the mlp's 4 parameters, AdamW(lr=1e-3), foreach=None (the default)"),
)


class Case:
    """One parameter set with seeded gradients and its optimizer."""

    def __init__(self, torch, model: str, optim: str):
        torch.manual_seed(0)
        net = _train_child.BUILDERS[model](torch, torch.float32)[0]
        self.params = [p for p in net.parameters() if p.requires_grad]
        g = torch.Generator().manual_seed(2)
        for p in self.params:
            p.grad = torch.randn(p.shape, generator=g) * 1e-2
        if optim == "sgd":
            self.opt = torch.optim.SGD(self.params, lr=0.01, momentum=0.9)
        else:
            self.opt = torch.optim.AdamW(self.params, lr=1e-3)
        self.torch = torch

    def digest(self) -> str:
        h = hashlib.sha256()
        for p in self.params:
            h.update(p.detach().numpy().tobytes())
        return h.hexdigest()[:16]

    def timed(self) -> float:
        t0 = time.perf_counter()
        self.opt.step()
        return time.perf_counter() - t0


def main(request: dict) -> None:
    torch, loaded = _child.import_torch(request)
    cases, checks = {}, {}
    for name, model, optim, _ in CASES:
        try:
            case = Case(torch, model, optim)
            for _ in range(3):
                case.opt.step()
            checks[name] = {"ok": True, "digest": case.digest()}
            for _ in range(request["warmup_steps"]):
                case.opt.step()
            cases[name] = case
        except Exception as exc:  # reported by name; the other cases still run
            checks[name] = {"ok": False, "failure": _child.describe(exc, f"run {name}")}
    send({"ok": True, "torch": loaded, "threads": torch.get_num_threads(), "checks": checks})
    for command in _child.commands():
        with step(f"timed round ({command})", announce=False):
            rounds = {name: {"seconds": statistics.median(case.timed()
                                                          for _ in range(request["steps"]))}
                      for name, case in cases.items()}
        send({"ok": True, "cases": rounds})


if __name__ == "__main__":
    main(json.loads(sys.argv[1]))
