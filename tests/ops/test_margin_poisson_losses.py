"""multi_margin_loss, multilabel_margin_loss and poisson_nll_loss (issue 9, item 2), ours and
upstream each in its own process: values, shapes, errors and messages, node names and
gradients compare exactly (the kernels sum in upstream's order and types).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import CASES_PRELUDE, cases_differing  # noqa: E402

EXACT = CASES_PRELUDE + r"""
F = torch.nn.functional
x = torch.randn(6, 5)
t = torch.tensor([0, 4, 2, 2, 1, 3])
w = torch.rand(5) + 0.5
case("mm", lambda: F.multi_margin_loss(x, t))
case("mm_p2", lambda: F.multi_margin_loss(x, t, p=2, margin=0.7))
case("mm_w", lambda: F.multi_margin_loss(x, t, weight=w, reduction="sum"))
case("mm_none", lambda: F.multi_margin_loss(x, t, reduction="none"))
case("mm_1d", lambda: F.multi_margin_loss(x[0], t[:1], reduction="none"))
case("mm_1d_0dt", lambda: F.multi_margin_loss(x[0], t[0], reduction="none"))
case("mm_0d", lambda: F.multi_margin_loss(torch.tensor(0.5), torch.tensor(0)))
case("mm_double", lambda: F.multi_margin_loss(x.double(), t, p=2, weight=w.double()))
# An empty batch: upstream returns its 0-dim output unwritten, so only its shape compares.
case("mm_empty", lambda: F.multi_margin_loss(torch.ones(0, 3), torch.zeros(0, dtype=torch.long)).shape)
case("mm_bad_p", lambda: F.multi_margin_loss(x, t, p=3))
case("mm_bad_t", lambda: F.multi_margin_loss(x, t[:3]))
case("mm_t_range", lambda: F.multi_margin_loss(x, t + 1))
case("mm_bad_w", lambda: F.multi_margin_loss(x, t, weight=w[:3]))
case("mm_w_dtype", lambda: F.multi_margin_loss(x, t, weight=w.double()))
case("mm_t_int", lambda: F.multi_margin_loss(x, t.int()))
case("mm_half", lambda: F.multi_margin_loss(x.half(), t))
case("mm_empty_cols", lambda: F.multi_margin_loss(torch.ones(2, 0), t[:2]))
case("mm_meta", lambda: F.multi_margin_loss(x.to("meta"), t.to("meta"), reduction="none").shape)
lt = torch.tensor([[3, 0, -1, 1, 2], [1, 2, 3, 4, 0], [4, -1, 2, 2, 2],
                   [-1, 0, 0, 0, 0], [0, 0, 1, -1, 3], [2, 3, -1, 0, 0]])
case("ml", lambda: F.multilabel_margin_loss(x, lt))
case("ml_none", lambda: F.multilabel_margin_loss(x, lt, reduction="none"))
case("ml_sum", lambda: F.multilabel_margin_loss(x.double(), lt, reduction="sum"))
case("ml_1d", lambda: F.multilabel_margin_loss(x[0], lt[0], reduction="none"))
case("ml_fwd", lambda: torch._C._nn.multilabel_margin_loss_forward(x, lt, 0))
case("ml_range", lambda: F.multilabel_margin_loss(x, lt + 1))
case("ml_range_neg", lambda: F.multilabel_margin_loss(x, lt - 1))
case("ml_bad_t", lambda: F.multilabel_margin_loss(x, lt[:, :3]))
case("ml_t_int", lambda: F.multilabel_margin_loss(x, lt.int()))
case("ml_empty", lambda: F.multilabel_margin_loss(torch.ones(0, 3), torch.zeros(0, 3, dtype=torch.long)).shape)
case("mm_bad_t_1d", lambda: F.multi_margin_loss(x[0], t[:2]))
case("mm_bad_t_0d", lambda: torch.ops.aten.multi_margin_loss(x, t[0]))
y = torch.rand(6, 5) * 3
case("pn", lambda: F.poisson_nll_loss(x, y))
case("pn_nolog", lambda: F.poisson_nll_loss(x.exp(), y, log_input=False))
case("pn_full", lambda: F.poisson_nll_loss(x, y, full=True, reduction="none"))
case("pn_full_nolog", lambda: F.poisson_nll_loss(x.exp(), y, log_input=False, full=True, eps=1e-3, reduction="sum"))
case("pn_double", lambda: F.poisson_nll_loss(x.double(), y.double(), full=True))
case("pn_bad", lambda: F.poisson_nll_loss(x, y[:2]))
def grads(fn, *xs):
    ts = [v.double().clone().requires_grad_() for v in xs]
    r = fn(*ts)
    wt = torch.linspace(-1, 2, r.numel(), dtype=torch.float64).reshape(r.shape)
    return [r.grad_fn.name()] + list(torch.autograd.grad((r * wt).sum(), ts))
case("g_mm", lambda: grads(lambda a: F.multi_margin_loss(a, t, p=2, weight=w.double()), x))
case("g_mm_none", lambda: grads(lambda a: F.multi_margin_loss(a, t, reduction="none"), x))
case("g_mm_1d", lambda: grads(lambda a: F.multi_margin_loss(a, t[0], reduction="none"), x[0]))
case("g_ml", lambda: grads(lambda a: F.multilabel_margin_loss(a, lt), x))
case("g_ml_none", lambda: grads(lambda a: F.multilabel_margin_loss(a, lt, reduction="none"), x))
case("g_pn", lambda: grads(lambda a, b: F.poisson_nll_loss(a, b, full=True), x, y))
case("g_pn_nolog", lambda: grads(lambda a: F.poisson_nll_loss(a.exp(), y.double(), log_input=False), x))
case("mm_w_grad", lambda: grads(lambda a, b: F.multi_margin_loss(a, t, weight=b), x, w))
print(json.dumps(out))
"""


def test_margin_and_poisson_losses_agree_exactly():
    _, upstream, differ = cases_differing(EXACT)
    assert not differ, differ
    assert upstream["g_mm"][0] == "MultiMarginLossBackward0"
    assert upstream["g_ml"][0] == "MultilabelMarginLossBackward0"
