"""bilinear (F.bilinear, nn.Bilinear) and _trilinear (+ .out), ours and upstream each in its own
process: values bit for bit (upstream's composition: one bmm per unrolled index, added into
zeros) in float32 and float64, batched, unbatched (1-D inputs) and many-batch-dim inputs, with
and without bias, empty batches, _trilinear called directly with other expand / sum / unroll
lists (summed unroll dim, dims present in one operand only), the checks in upstream's words and
order, Meta, out=, and gradients (TrilinearBackward0 for each operand alone and together).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import BITS_PRELUDE, CASES_PRELUDE, cases_differing  # noqa: E402

SCRIPT = CASES_PRELUDE + BITS_PRELUDE + r"""
F = torch.nn.functional
T = torch.ops.aten._trilinear
x1, x2 = torch.randn(6, 5), torch.randn(6, 4)
w, b = torch.randn(3, 5, 4), torch.randn(3)
for dt in ["float32", "float64"]:
    d = getattr(torch, dt)
    a1, a2, ww, bb = (v.to(d) for v in (x1, x2, w, b))
    case(f"bil_{dt}", lambda: bits(F.bilinear(a1, a2, ww, bb)))
    case(f"bil_nobias_{dt}", lambda: bits(F.bilinear(a1, a2, ww)))
    case(f"bil_1d_{dt}", lambda: bits(F.bilinear(a1[0], a2[0], ww, bb)))
    case(f"bil_3d_{dt}", lambda: bits(F.bilinear(a1.reshape(2, 3, 5), a2.reshape(2, 3, 4), ww,
                                                 bb)))
    case(f"bil_nc_{dt}", lambda: bits(F.bilinear(a1.t().contiguous().t(), a2[:, :], ww.transpose(
        1, 2).contiguous().transpose(1, 2), bb)))
    case(f"bil_empty_{dt}", lambda: bits(F.bilinear(a1[:0], a2[:0], ww, bb)))
    case(f"bil_big_{dt}", lambda: bits(F.bilinear(torch.randn(40, 33, dtype=d),
                                                  torch.randn(40, 17, dtype=d),
                                                  torch.randn(9, 33, 17, dtype=d))))
    case(f"tri_unroll0_{dt}", lambda: bits(T(a1, ww, a2, [1, 3], [0], [1, 2], [2, 3], 0)))
    case(f"tri_unroll2_{dt}", lambda: bits(T(a1, ww, a2, [1, 3], [0], [1, 2], [2, 3], 2)))
    case(f"tri_unroll3_{dt}", lambda: bits(T(a1, ww, a2, [1, 3], [0], [1, 2], [2, 3], 3)))
    case(f"tri_nosum_{dt}", lambda: bits(T(a1, a2[:, :1], a2[:, 1:2], [], [], [], [], 1)))
    case(f"tri_sum_all_{dt}", lambda: bits(T(a1, a1, a1, [], [], [], [0, 1], 1)))
    case(f"tri_one_sided_{dt}", lambda: bits(T(a1, a2, a1[:, :3], [2, 3], [1, 3], [1, 2], [1],
                                               0)))
    case(f"nn_bilinear_{dt}", lambda: bits(torch.nn.Bilinear(5, 4, 3).to(d)(a1, a2)))
case("bil_dtype", lambda: F.bilinear(x1, x2.double(), w, b))
case("bil_dtype_bias", lambda: F.bilinear(x1, x2, w, b.double()))
case("bil_dims", lambda: F.bilinear(x1, x2[0], w, b))
case("bil_batch", lambda: F.bilinear(x1, x2[:5], w, b))
case("bil_in1", lambda: F.bilinear(x1[:, :4], x2, w, b))
case("bil_in2", lambda: F.bilinear(x1, x2[:, :3], w, b))
case("bil_bias", lambda: F.bilinear(x1, x2, w, b[:2]))
case("bil_bias_0d", lambda: F.bilinear(x1, x2, w, b[0]))
case("bil_scalar", lambda: F.bilinear(x1[0, 0], x2[0, 0], w, b))
case("bil_w2d", lambda: F.bilinear(x1, x2, w[0], b))
case("bil_int", lambda: F.bilinear(x1.long(), x2.long(), w.long()))
case("tri_unroll_bad", lambda: T(x1, w, x2, [1, 3], [0], [1, 2], [2, 3], 4))
case("tri_unroll_neg", lambda: T(x1, w, x2, [1, 3], [0], [1, 2], [2, 3], -1))
case("tri_dup", lambda: T(x1, w, x2, [1, 1], [0], [1, 2], [2, 3], 1))
case("tri_dim_range", lambda: T(x1, w, x2, [1, 7], [0], [1, 2], [2, 3], 1))
case("tri_mismatch", lambda: T(x1, w, x2[:5], [1, 3], [0], [1, 2], [2, 3], 1))
case("meta", lambda: [list(r.shape) for r in [F.bilinear(x1.to("meta"), x2.to("meta"),
                                                         w.to("meta"), b.to("meta"))]])
def outs(o):
    r = T(x1, w, x2, [1, 3], [0], [1, 2], [2, 3], 1, out=o)
    return [bits(r), bits(o), r is o]
case("tri_out", lambda: outs(torch.empty(0)))
case("tri_out_dtype", lambda: outs(torch.empty(0, dtype=torch.float64)))
def grads(fn, *vs):
    ts = [v.double().clone().requires_grad_() for v in vs]
    r = fn(*ts)
    wt = torch.linspace(-1, 2, r.numel(), dtype=torch.float64).reshape(r.shape)
    return [r.grad_fn.name()] + [bits(g) for g in torch.autograd.grad((r * wt).sum(), ts)]
case("g_tri", lambda: grads(lambda a, c, e: T(a, c, e, [1, 3], [0], [1, 2], [2, 3], 1), x1, w,
                            x2))
case("g_bil", lambda: grads(lambda a, c, e, f: F.bilinear(a, c, e, f), x1, x2, w, b))
case("g_w_only", lambda: grads(lambda c: F.bilinear(x1.double(), x2.double(), c), w))
case("g_x2_only", lambda: grads(lambda c: F.bilinear(x1.double(), c, w.double()), x2))
case("g_chain", lambda: [n[0].name() for n in F.bilinear(x1, x2, w.requires_grad_())
                                                        .grad_fn.next_functions if n[0]])
W5 = torch.randn(5, 5, 4, dtype=torch.float64)
case("g_second", lambda: second_order(lambda t: F.bilinear(t, t[:, :4], W5).flatten(), x1))
print(json.dumps(out))
"""


def test_bilinear_agrees():
    ours, upstream, differ = cases_differing(SCRIPT)
    assert not differ, {k: (str(a)[:300], str(b)[:300]) for k, (a, b) in differ.items()}
    assert upstream["g_tri"][0] == "TrilinearBackward0"
    assert upstream["bil_dtype"][0] == "raises"
