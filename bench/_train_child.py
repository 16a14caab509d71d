"""The training-step cases of bench/train_bench.py, timed under this interpreter's torch.

Run by path, `python -I _train_child.py REQUEST_JSON`; stays resident and answers each `round`
command with every runnable case's seconds per training step (the median of the round's steps)
and the median of each phase (zero_grad + forward + loss, backward, optimizer step), each phase
timed with time.perf_counter in this process. Before the rounds it sends each case's first-step
loss and gradient norm for the parent's check (upstream A also in float64, for the allowance); a
case that raises is reported by name and left out of the rounds, the others still run.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parents[1]))  # for torchnative._child, stdlib only
from torchnative import _child  # noqa: E402
from torchnative._child import send, step  # noqa: E402

# (name, description) in report order; the builders are below.
CASES = (
    ("mlp", "MLP 512-1024-512 (Linear, Tanh, Linear), batch 64, MSE, SGD momentum 0.9"),
    ("convnet", "conv net (2 × conv3x3 + batch_norm + relu + max_pool2d, dropout, linear), "
                "batch 32 of 3×32×32, cross-entropy, Adam"),
    ("gpt2", "GPT2LMHeadModel (2 layers, 256 wide, 4 heads, vocab 2048), batch 4 × 128 "
             "tokens, causal-LM loss, AdamW"),
)


def mlp_case(torch, dtype):
    nn = torch.nn
    model = nn.Sequential(nn.Linear(512, 1024), nn.Tanh(), nn.Linear(1024, 512)).to(dtype)
    g = torch.Generator().manual_seed(1)
    x, y = torch.randn(64, 512, generator=g), torch.randn(64, 512, generator=g)
    x, y = x.to(dtype), y.to(dtype)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    return model, opt, lambda: ((model(x) - y) ** 2).mean()


def convnet_case(torch, dtype):
    nn = torch.nn
    model = nn.Sequential(
        nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Dropout(0.25), nn.Linear(32 * 8 * 8, 10)).to(dtype)
    g = torch.Generator().manual_seed(1)
    x = torch.randn(32, 3, 32, 32, generator=g).to(dtype)
    target = torch.randint(0, 10, (32,), generator=g)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    return model, opt, lambda: nn.functional.cross_entropy(model(x), target)


def gpt2_case(torch, dtype):
    import transformers
    from transformers import GPT2Config, GPT2LMHeadModel

    transformers.logging.set_verbosity_error()
    model = GPT2LMHeadModel(GPT2Config(vocab_size=2048, n_positions=128, n_embd=256, n_layer=2,
                                       n_head=4, bos_token_id=0, eos_token_id=0)).to(dtype)
    g = torch.Generator().manual_seed(1)
    ids = torch.randint(0, 2048, (4, 128), generator=g)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    return model, opt, lambda: model(input_ids=ids, labels=ids).loss


BUILDERS = {"mlp": mlp_case, "convnet": convnet_case, "gpt2": gpt2_case}


class Case:
    """One model, its optimizer and its loss closure, seeded the same in every process."""

    def __init__(self, torch, name: str, dtype):
        torch.manual_seed(0)
        self.torch = torch
        self.model, self.opt, self.loss = BUILDERS[name](torch, dtype)
        self.model.train()

    def step(self) -> tuple[float, float, float, object]:
        """One training step: (seconds of zero_grad + forward + loss, of backward, of the
        optimizer step, the loss tensor)."""
        t0 = time.perf_counter()
        self.opt.zero_grad()
        loss = self.loss()
        t1 = time.perf_counter()
        loss.backward()
        t2 = time.perf_counter()
        self.opt.step()
        t3 = time.perf_counter()
        return t1 - t0, t2 - t1, t3 - t2, loss

    def first_step(self) -> list[float]:
        """The check: the first step's loss and the norm of its gradients, before the update."""
        torch = self.torch
        self.opt.zero_grad()
        loss = self.loss()
        loss.backward()
        grads = [p.grad.reshape(-1) for p in self.model.parameters() if p.grad is not None]
        norm = torch.linalg.vector_norm(torch.cat(grads))
        self.opt.step()
        return [loss.item(), norm.item()]


def timed_round(case: Case, steps: int) -> dict:
    phases = [case.step()[:3] for _ in range(steps)]
    forward, backward, update = (statistics.median(p[i] for p in phases) for i in range(3))
    total = statistics.median(sum(p) for p in phases)
    return {"seconds": total, "forward": forward, "backward": backward, "step": update}


def main(request: dict) -> None:
    torch, loaded = _child.import_torch(request)
    cases, checks = {}, {}
    for name, _ in CASES:
        if name not in request.get("cases", BUILDERS):
            continue
        try:
            if request["reference64"]:
                checks.setdefault(name, {})["float64"] = Case(torch, name,
                                                              torch.float64).first_step()
            cases[name] = Case(torch, name, torch.float32)
            checks.setdefault(name, {})["float32"] = cases[name].first_step()
            checks[name]["ok"] = True
            for _ in range(request["warmup_steps"]):
                cases[name].step()
        except Exception as exc:  # reported by name; the other cases still run
            cases.pop(name, None)
            checks[name] = {"ok": False, "failure": _child.describe(exc, f"run {name}")}
    send({"ok": True, "torch": loaded, "threads": torch.get_num_threads(), "checks": checks})
    for command in _child.commands():
        with step(f"timed round ({command})", announce=False):
            rounds = {name: timed_round(case, request["steps"]) for name, case in cases.items()}
        send({"ok": True, "cases": rounds})


if __name__ == "__main__":
    main(json.loads(sys.argv[1]))
