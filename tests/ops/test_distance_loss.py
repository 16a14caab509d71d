"""cosine_similarity, pairwise_distance, norm with a dim, and the embedding losses
(margin_ranking, hinge_embedding, cosine_embedding, triplet_margin) (issue 9, item 2), ours and
upstream each in its own process. Each is upstream's composition of elementwise ops and
linalg_vector_norm, so values, errors, the final node and the float64 gradients compare exactly.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import CASES_PRELUDE, cases_differing  # noqa: E402

EXACT = CASES_PRELUDE + r"""
F = torch.nn.functional
g = torch.Generator().manual_seed(7)
a = torch.randn(4, 5, generator=g)
b = torch.randn(4, 5, generator=g)
n = torch.randn(4, 5, generator=g)
t = torch.tensor([1., -1, 1, -1])
case("cos", lambda: F.cosine_similarity(a, b))
case("cos_dim0", lambda: F.cosine_similarity(a, b, dim=0))
case("cos_bcast", lambda: F.cosine_similarity(a, b[0]))
case("cos_mixed", lambda: F.cosine_similarity(a, b.double()))
case("cos_int", lambda: F.cosine_similarity(a.int(), b.int()))
case("cos_int_float", lambda: F.cosine_similarity(a.int(), b))
case("cos_zero", lambda: F.cosine_similarity(torch.zeros(2, 3), torch.ones(2, 3)))
case("cos_eps", lambda: F.cosine_similarity(a, b, eps=-1.0))
case("cos_bad", lambda: F.cosine_similarity(a, torch.randn(3)))
case("pd", lambda: F.pairwise_distance(a, b))
case("pd_p1", lambda: F.pairwise_distance(a, b, p=1.0, keepdim=True))
case("pd_inf", lambda: F.pairwise_distance(a, b[0], p=float("inf")))
case("pd_int", lambda: F.pairwise_distance(a.int(), b.int()))
case("norm_dim", lambda: torch.ops.aten.norm.ScalarOpt_dim(a, 3, [1]))
case("norm_none", lambda: torch.ops.aten.norm.ScalarOpt_dim(a, None, [0], True))
case("mrl", lambda: F.margin_ranking_loss(a[:, 0], b[:, 0], t))
case("mrl_none", lambda: F.margin_ranking_loss(a[:, 0], b[:, 0], t, margin=0.3, reduction="none"))
case("mrl_sum", lambda: F.margin_ranking_loss(a[:, 0], b[:, 0], t, reduction="sum"))
case("hel", lambda: F.hinge_embedding_loss(a[:, 0], t))
case("hel_none", lambda: F.hinge_embedding_loss(a, torch.sign(b), margin=0.5, reduction="none"))
case("cel", lambda: F.cosine_embedding_loss(a, b, t))
case("cel_margin", lambda: F.cosine_embedding_loss(a, b, t, margin=0.2, reduction="none"))
case("cel_1d", lambda: F.cosine_embedding_loss(a[0], b[0], torch.tensor(-1.)))
case("cel_bad_target", lambda: F.cosine_embedding_loss(a, b, t.reshape(2, 2)))
case("cel_bad_inputs", lambda: F.cosine_embedding_loss(a[0], b[0], t))
case("tml", lambda: F.triplet_margin_loss(a, b, n))
case("tml_swap", lambda: F.triplet_margin_loss(a, b, n, swap=True, p=1.0, reduction="none"))
case("tml_bad", lambda: F.triplet_margin_loss(a, b, n[0]))

def grads(fn, *xs):
    ts = [x.double().clone().requires_grad_() for x in xs]
    y = fn(*ts)
    w = torch.linspace(-1, 2, y.numel(), dtype=torch.float64).reshape(y.shape)
    return [y.grad_fn.name()] + list(torch.autograd.grad((y * w).sum(), ts))
case("g_cos", lambda: grads(F.cosine_similarity, a, b))
case("g_cos_zero", lambda: grads(F.cosine_similarity, torch.zeros(2, 3), b[:2, :3]))
case("g_pd", lambda: grads(lambda x, y: F.pairwise_distance(x, y, p=3.0), a, b))
case("g_norm_none", lambda: grads(lambda x: torch.ops.aten.norm.ScalarOpt_dim(x, None, [1]), a))
case("g_mrl", lambda: grads(lambda x, y: F.margin_ranking_loss(x, y, t), a[:, 0], b[:, 0]))
case("g_hel", lambda: grads(lambda x: F.hinge_embedding_loss(x, t), a[:, 0]))
case("g_cel", lambda: grads(lambda x, y: F.cosine_embedding_loss(x, y, t), a, b))
case("g_tml", lambda: grads(lambda x, y, z: F.triplet_margin_loss(x, y, z, swap=True), a, b, n))
print(json.dumps(out))
"""


def test_distances_and_embedding_losses_agree_exactly():
    _, upstream, differ = cases_differing(EXACT)
    assert not differ, differ
    assert upstream["cos_int"][:2] == ["raises", "RuntimeError"]
    assert upstream["g_norm_none"][0] == "NormBackward1"
