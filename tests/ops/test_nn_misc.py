"""prelu (_prelu_kernel, _prelu_kernel_backward), native_dropout_backward, nonzero_static and the
batch-norm spellings (_native_batch_norm_legit and its forms, _batch_norm_with_update), ours and
upstream each in its own process, bit for bit: values, strides, errors, meta shapes, running
statistics, gradients and the grad_fn names.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import BITS_PRELUDE, CASES_PRELUDE, cases_differing  # noqa: E402

SCRIPT = CASES_PRELUDE + BITS_PRELUDE + r"""
import functools
bits = functools.partial(bits, strides=True)
aten = torch.ops.aten
x4 = torch.randn(2, 3, 4, 5)
x4[0, 0, 0, :3] = torch.tensor([0.0, -0.0, float("nan")])
w3, w1 = torch.randn(3), torch.randn(1)
for dt in ("float32", "float64", "bfloat16", "float16"):
    d = getattr(torch, dt)
    xd, wd = x4.to(d), w3.to(d)
    # a float16/bfloat16 NaN's payload follows upstream's vector/scalar split: not claimed
    nb = functools.partial(bits, nan_payload=d in (torch.float32, torch.float64))
    case(f"prelu_{dt}", lambda: nb(torch.prelu(xd, wd)))
    case(f"prelu_1_{dt}", lambda: nb(torch.prelu(xd, w1.to(d))))
    case(f"prelu_cl_{dt}", lambda: nb(torch.prelu(xd.to(memory_format=torch.channels_last), wd)))
    g = torch.randn(2, 3, 4, 5).to(d)
    case(f"prelu_bwd_{dt}", lambda: [bits(r) for r in aten._prelu_kernel_backward(
        g, xd, wd.reshape(1, 3, 1, 1))])
case("prelu_0d", lambda: bits(torch.prelu(torch.tensor(-2.0), w1)))
case("prelu_1d", lambda: bits(torch.prelu(torch.randn(3), w1)))
case("prelu_0d_w3", lambda: torch.prelu(torch.tensor(-2.0), w3))
case("prelu_mismatch", lambda: torch.prelu(x4, torch.randn(4)))
case("prelu_dtype", lambda: torch.prelu(x4, w3.double()))
case("prelu_w2d", lambda: torch.prelu(x4, torch.randn(3, 1)))
case("prelu_int", lambda: torch.prelu(x4.long(), w3.long()))
case("prelu_t", lambda: bits(torch.prelu(x4.transpose(0, 3), w3)))
case("prelu_meta", lambda: torch.prelu(x4.to("meta"), w3.to("meta")).shape)
def grads(fn, *vs):
    ts = [v.double().clone().requires_grad_() for v in vs]
    r = fn(*ts)
    w = torch.linspace(-1, 2, r.numel(), dtype=torch.float64).reshape(r.shape)
    return [r.grad_fn.name()] + [bits(g) for g in torch.autograd.grad((r * w).sum(), ts)]
case("g_prelu", lambda: grads(torch.prelu, x4, w3))
case("g_prelu_1", lambda: grads(torch.prelu, x4, w1))
case("gg_prelu", lambda: second_order(lambda t: torch.prelu(t, w3.double()).flatten(), x4))
def gg_weight():
    t = x4.double().clone().requires_grad_()
    w = w3.double().clone().requires_grad_()
    g, gw = torch.autograd.grad((torch.prelu(t, w) * t.detach().sin()).sum(), [t, w],
                                create_graph=True)
    r = torch.autograd.grad((g.cos() + gw.sum()).sum(), [t, w])
    return [g.grad_fn.name()] + [bits(v, nan_payload=False) for v in r]  # the sum's NaN sign
case("gg_prelu_w", gg_weight)
# native_dropout_backward
gd, mask = torch.randn(4, 5), torch.rand(4, 5) > 0.5
for dt in ("float32", "float64", "bfloat16", "float16"):
    d = getattr(torch, dt)
    case(f"ndb_{dt}", lambda: bits(aten.native_dropout_backward(gd.to(d), mask, 1 / 0.3)))
case("ndb_int", lambda: bits(aten.native_dropout_backward(torch.arange(20).view(4, 5), mask, 2.)))
case("ndb_fmask", lambda: bits(aten.native_dropout_backward(gd, mask.float(), 1.7)))
case("ndb_t", lambda: bits(aten.native_dropout_backward(gd.t(), mask.t(), 1.7)))
case("ndb_out", lambda: bits(aten.native_dropout_backward.out(gd, mask, 1.7, out=torch.empty(0))))
case("ndb_meta", lambda: aten.native_dropout_backward(gd.to("meta"), mask.to("meta"), 2.).shape)
def ndb_grad():
    t = gd.double().clone().requires_grad_()
    r = aten.native_dropout_backward(t, mask, 1 / 0.7)
    return [r.grad_fn.name(), bits(torch.autograd.grad((r * r.detach()).sum(), t)[0])]
case("g_ndb", ndb_grad)
def dropout_double():
    t = gd.double().clone().requires_grad_()
    torch.manual_seed(5)
    y = torch.nn.functional.dropout(t, 0.4)
    g, = torch.autograd.grad((y * y).sum(), t, create_graph=True)
    return [g.grad_fn.name(), bits(torch.autograd.grad(g.sum(), t)[0])]
case("gg_dropout", dropout_double)
# nonzero_static
z = torch.tensor([[0, 1.5, 0], [float("nan"), 0, 2]])
for size in (0, 2, 3, 6):
    case(f"nzs_{size}", lambda: bits(torch.nonzero_static(z, size=size)))
    case(f"nzs_fill_{size}", lambda: bits(torch.nonzero_static(z, size=size, fill_value=7)))
case("nzs_neg", lambda: torch.nonzero_static(z, size=-1))
case("nzs_0d", lambda: bits(torch.nonzero_static(torch.tensor(3), size=2)))
case("nzs_bool", lambda: bits(torch.nonzero_static(z > 0, size=4)))
case("nzs_t", lambda: bits(torch.nonzero_static(z.t(), size=4)))
case("nzs_empty", lambda: bits(torch.nonzero_static(torch.empty(0, 3), size=2)))
case("nzs_out", lambda: bits(torch.nonzero_static(z, size=4, out=torch.empty(0, dtype=torch.long))))
case("nzs_out_dtype", lambda: torch.nonzero_static(z, size=4, out=torch.empty(0)))
case("nzs_meta", lambda: torch.nonzero_static(z.to("meta"), size=5).shape)
# batch norm spellings
xb = torch.randn(4, 3, 5)
wb, bb = torch.randn(3), torch.randn(3)
def legit(train, dt="float32"):
    d = getattr(torch, dt)
    rm, rv = torch.randn(3).to(d), torch.rand(3).to(d)
    r = aten._native_batch_norm_legit(xb.to(d), wb.to(d), bb.to(d), rm, rv, train, 0.1, 1e-5)
    return [bits(v) for v in r] + [bits(rm), bits(rv)]
# (bfloat16: native_batch_norm's own bfloat16 statistics differ from upstream's already)
for dt in ("float32", "float64"):
    for train in (True, False):
        case(f"legit_{train}_{dt}", lambda: legit(train, dt))
case("legit_no_stats", lambda: [bits(v) for v in aten._native_batch_norm_legit.no_stats(
    xb, wb, bb, True, 0.1, 1e-5)])
case("legit_no_training", lambda: [bits(v) for v in aten._native_batch_norm_legit_no_training(
    xb, wb, bb, torch.zeros(3), torch.ones(3), 0.1, 1e-5)])
def legit_out():
    outs = [torch.empty(0) for _ in range(3)]
    rm, rv = torch.zeros(3), torch.ones(3)
    r = aten._native_batch_norm_legit.out(xb, wb, None, rm, rv, True, 0.2, 1e-3, out=outs[0],
                                          save_mean=outs[1], save_invstd=outs[2])
    return [bits(v) for v in list(r) + outs + [rm, rv]]
case("legit_out", legit_out)
case("legit_int", lambda: aten._native_batch_norm_legit(xb.long(), None, None, torch.zeros(3),
                                                        torch.ones(3), True, 0.1, 1e-5))
case("legit_meta", lambda: [v.shape for v in aten._native_batch_norm_legit(
    xb.to("meta"), None, None, torch.zeros(3, device="meta"), torch.ones(3, device="meta"),
    True, 0.1, 1e-5)])
def with_update():
    rm, rv = torch.zeros(3), torch.ones(3)
    r = aten._batch_norm_with_update(xb, wb, bb, rm, rv, 0.1, 1e-5)
    return [bits(v) for v in r] + [bits(rm), bits(rv)]
case("with_update", with_update)
def bn_grads(op, *extra):
    t, w, b = (v.double().clone().requires_grad_() for v in (xb, wb, bb))
    rm, rv = torch.zeros(3, dtype=torch.double), torch.ones(3, dtype=torch.double)
    r = op(t, w, b, rm, rv, *extra)[0]
    wt = torch.linspace(-1, 2, r.numel(), dtype=torch.float64).reshape(r.shape)
    return [r.grad_fn.name()] + [bits(g) for g in torch.autograd.grad((r * wt).sum(), [t, w, b])]
case("g_legit", lambda: bn_grads(aten._native_batch_norm_legit, True, 0.1, 1e-5))
case("g_legit_eval", lambda: bn_grads(aten._native_batch_norm_legit, False, 0.1, 1e-5))
case("g_no_training", lambda: bn_grads(aten._native_batch_norm_legit_no_training, 0.1, 1e-5))
case("g_with_update", lambda: bn_grads(aten._batch_norm_with_update, 0.1, 1e-5))
case("g_no_stats", lambda: bn_grads(lambda t, w, b, rm, rv: aten._native_batch_norm_legit.no_stats(
    t, w, b, True, 0.1, 1e-5)))
print(json.dumps(out))
"""


def test_nn_misc_agree():
    ours, upstream, differ = cases_differing(SCRIPT)
    assert not differ, {k: (str(a)[:300], str(b)[:300]) for k, (a, b) in differ.items()}
    assert upstream["g_prelu"][0] == "PreluKernelBackward0"
    assert upstream["g_legit"][0] == "NativeBatchNormLegitBackward0"
