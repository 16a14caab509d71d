"""CTC loss (F.ctc_loss: aten.ctc_loss.IntList / .Tensor, _ctc_loss and _ctc_loss_backward with
their .Tensor and out= forms), ours and upstream each in its own process. Acceptance: every value
and gradient agrees bit for bit in float32 and float64 (the kernels run upstream's recursions in
its order, with libm's exp and log), as do errors and their messages, shapes on meta and the
nodes' names. log_alpha cells upstream leaves uninitialised (past an item's input length or its
2 * target length + 1 states) are not compared: upstream's hold whatever memory it was given.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import BITS_PRELUDE, CASES_PRELUDE, cases_differing  # noqa: E402

PRELUDE = CASES_PRELUDE + BITS_PRELUDE + r"""
F = torch.nn.functional
A = torch.ops.aten
def logp(*shape, dtype=torch.float32):
    return torch.randn(*shape, dtype=torch.float64).log_softmax(-1).to(dtype)
def defined(la, il, tl):
    # log_alpha with the cells upstream leaves uninitialised set to 0 (row 0 is always written)
    la = la.detach().clone()
    for b in range(la.shape[0]):
        la[b, il[b]:] = 0
        la[b, :, 2 * tl[b] + 1:] = 0
    return la
def both_outputs(r, il, tl):
    return [bits(r[0]), bits(defined(r[1], il, tl))]
def L(*a, **k):  # the loss's bits
    return bits(F.ctc_loss(*a, **k))
NONE = {"reduction": "none"}
def refusal(fn):
    # no Meta kernel upstream either: ours refuses by name in its own words, so the type compares
    try:
        return fn()
    except NotImplementedError:
        return "NotImplementedError"
T, N, C = 12, 4, 6
lp = logp(T, N, C)
tg = torch.randint(1, C, (N, 5))
tg[0, 1] = tg[0, 2]  # a repeated label: the skip transition is barred there
il = torch.tensor([12, 10, 7, 12])
tl = torch.tensor([5, 3, 0, 4])
cat = torch.cat([tg[b, :tl[b]] for b in range(N)])
"""

FORWARD = PRELUDE + r"""
for dt in (torch.float32, torch.float64):
    x = lp.to(dt)
    n = str(dt)[6:]
    for red in ("none", "mean", "sum"):
        for zi in (False, True):
            kw = {"reduction": red, "zero_infinity": zi}
            case(f"{n}_{red}_{zi}", lambda: L(x, tg, il, tl, **kw))
            case(f"{n}_{red}_{zi}_list", lambda: L(x, tg, il.tolist(), tl.tolist(), **kw))
            case(f"{n}_{red}_{zi}_cat", lambda: L(x, cat, il, tl, **kw))
    case(f"{n}_blank3", lambda: L(x, tg.clamp(max=2), il, tl, blank=3, **NONE))
    case(f"{n}_blank_in_targets", lambda: L(x, tg, il, tl, blank=tg[0, 0].item(), **NONE))
    case(f"{n}_unbatched", lambda: L(x[:, 1], tg[1, :3], il[1], tl[1], **NONE))
    case(f"{n}_unbatched_2d_targets", lambda: L(x[:, 1], tg[1:2], il[1], tl[1], **NONE))
    case(f"{n}_unbatched_mean", lambda: L(x[:, 1], tg[1, :3], il[1:2], tl[1:2]))
    case(f"{n}_unbatched_sum", lambda: L(x[:, 1], tg[1, :3], [10], [3], reduction="sum"))
    # infeasible alignments (a target longer than its input): +inf, zeroed by zero_infinity
    short = torch.tensor([2, 10, 1, 12])
    case(f"{n}_inf", lambda: L(x, tg, short, tl, **NONE))
    case(f"{n}_inf_zero", lambda: L(x, tg, short, tl, zero_infinity=True, **NONE))
    case(f"{n}_inf_mean_zero", lambda: L(x, tg, short, tl, zero_infinity=True))
    # input length 0 (upstream returns -0 for an empty target, +inf otherwise)
    case(f"{n}_il0", lambda: L(x, tg, torch.tensor([0, 0, 3, 12]), tl, **NONE))
    # non-contiguous log_probs and targets, int32 targets and lengths, other integral lengths
    xt = x.transpose(0, 1).contiguous().transpose(0, 1)
    case(f"{n}_nc_lp", lambda: L(xt, tg, il, tl, **NONE))
    xp = logp(N, C, T, dtype=dt).permute(2, 0, 1)
    case(f"{n}_nc_lp2", lambda: L(xp, tg, il, tl, **NONE))
    wide = torch.randint(1, C, (N, 10))
    case(f"{n}_nc_tg", lambda: L(x, wide[:, ::2], il, tl, **NONE))
    case(f"{n}_int32", lambda: L(x, tg.int(), il.int(), tl.int(), **NONE))
    case(f"{n}_uint8_lengths", lambda: L(x, tg, il.to(torch.uint8), tl.to(torch.int16)))
    case(f"{n}_float_targets", lambda: L(x, tg.float(), il, tl, reduction="sum"))
    case(f"{n}_2d_lengths", lambda: L(x, tg, il.view(2, 2), tl.view(4, 1), **NONE))
    case(f"{n}_reduction_other", lambda: bits(torch.ctc_loss(x, tg, il, tl, 0, 7, False)))
    # upstream's OpInfo shapes
    big = logp(50, 16, 20, dtype=dt)
    btg = torch.randint(1, 20, (16, 30))
    btl = torch.randint(10, 30, (16,))
    bil = torch.full((16,), 50)
    case(f"{n}_opinfo", lambda: L(big, btg, bil, btl, **NONE))
    case(f"{n}_opinfo_mean", lambda: L(big, btg, bil, btl))
    # the aten overloads: both outputs (log_alpha where upstream defines it)
    ill, tll = il.tolist(), tl.tolist()
    case(f"{n}_ctc", lambda: both_outputs(A._ctc_loss(x, tg, ill, tll), ill, tll))
    case(f"{n}_ctc_int32", lambda: both_outputs(A._ctc_loss(x, tg.int(), ill, tll, 2), ill, tll))
    case(f"{n}_ctc_cat", lambda: both_outputs(A._ctc_loss(x, cat, ill, tll), ill, tll))
    case(f"{n}_ctc_tensor", lambda: both_outputs(A._ctc_loss.Tensor(x, tg, il, tl, 0, True),
                                                 ill, tll))
    full = [T] * N
    o0, o1 = torch.zeros(0, dtype=dt), torch.zeros(2, 2, dtype=dt)
    case(f"{n}_ctc_out", lambda: [bits(v) for v in A._ctc_loss.out(
        x, tg, full, [5] * N, out0=o0, out1=o1)] + [bits(o0), bits(o1)])
    outs = {"out0": torch.zeros(0, dtype=dt), "out1": torch.zeros(0, dtype=dt)}
    case(f"{n}_ctc_tensor_out", lambda: [bits(v) for v in A._ctc_loss.Tensor_out(
        x, tg, torch.tensor(full), torch.full((N,), 5), **outs)])
    half = {"out0": torch.zeros(0, dtype=torch.float16), "out1": torch.zeros(0, dtype=dt)}
    case(f"{n}_ctc_out_dtype", lambda: A._ctc_loss.out(x, tg, ill, tll, **half))
    nll, la = A._ctc_loss(x, tg, ill, tll)
    g = torch.randn(N, dtype=dt)
    case(f"{n}_bwd", lambda: bits(A._ctc_loss_backward(g, x, tg, ill, tll, nll, la, 0)))
    case(f"{n}_bwd_tensor", lambda: bits(A._ctc_loss_backward.Tensor(g, x, tg, il, tl, nll, la, 0)))
    case(f"{n}_bwd_nc_lp", lambda: bits(A._ctc_loss_backward(g, xt, tg, ill, tll, nll, la, 0)))
    o = torch.zeros(3, dtype=dt)
    case(f"{n}_bwd_out", lambda: [bits(A._ctc_loss_backward.out(
        g, x, tg, ill, tll, nll, la, 0, out=o)), bits(o)])
    sl = short.tolist()
    nll_s, la_s = A._ctc_loss(x, tg, sl, tll)
    for zi in (False, True):
        case(f"{n}_bwd_inf_{zi}", lambda: bits(A._ctc_loss_backward(
            g, x, tg, sl, tll, nll_s, la_s, 0, zi)))
print(json.dumps(out))
"""

ERRORS = PRELUDE + r"""
ill, tll = il.tolist(), tl.tolist()
nll, la = A._ctc_loss(lp, tg, ill, tll)
g = torch.randn(N)
case("half", lambda: F.ctc_loss(lp.half(), tg, il, tl))
case("bf16", lambda: F.ctc_loss(lp.bfloat16(), tg, il, tl))
case("half_aten", lambda: A._ctc_loss(lp.half(), tg, ill, tll))
case("half_empty", lambda: A._ctc_loss(lp[:0].half(), tg, [0] * N, tll))
case("empty", lambda: A._ctc_loss(lp[:0], tg, [0] * N, tll))
case("empty_batch", lambda: F.ctc_loss(lp[:, :0], tg[:0], [], []))
case("empty_float_targets", lambda: A._ctc_loss(lp[:0], tg.float(), [0] * N, tll))
case("targets_float", lambda: A._ctc_loss(lp, tg.float(), ill, tll))
case("targets_3d", lambda: F.ctc_loss(lp, tg.unsqueeze(0), il, tl))
case("targets_0d", lambda: A._ctc_loss(lp, torch.tensor(3), ill, tll))
case("lp_4d", lambda: F.ctc_loss(lp.unsqueeze(0), tg, il, tl))
case("lp_2d_aten", lambda: A._ctc_loss(lp[0], tg, ill, tll))
case("lengths_float", lambda: F.ctc_loss(lp, tg, il.float(), tl))
case("lengths_bool", lambda: F.ctc_loss(lp, tg, il, tl.bool()))
case("lengths_float_aten", lambda: A._ctc_loss.Tensor(lp, tg, il, tl.double()))
case("blank_high", lambda: F.ctc_loss(lp, tg, il, tl, blank=C))
case("blank_neg", lambda: F.ctc_loss(lp, tg, il, tl, blank=-1))
case("il_size", lambda: F.ctc_loss(lp, tg, il[:2], tl))
case("tl_size", lambda: F.ctc_loss(lp, tg, il, tl[:3]))
case("tg_short_dim1", lambda: F.ctc_loss(lp, tg[:, :3], il, tl))
case("tg_short_dim0", lambda: F.ctc_loss(lp, tg[:2], il, tl))
case("cat_short", lambda: F.ctc_loss(lp, cat[:5], il, tl))
case("il_high", lambda: F.ctc_loss(lp, tg, il + 1, tl))
case("il_neg", lambda: F.ctc_loss(lp, tg, il - 13, tl))
case("tl_neg", lambda: F.ctc_loss(lp, tg, il, tl - 4))
case("tl_neg_cat", lambda: F.ctc_loss(lp, cat, il, tl - 4))
case("unbatched_lengths", lambda: F.ctc_loss(lp[:, 0], tg[0], il, tl))
case("bwd_half", lambda: A._ctc_loss_backward(g, lp.half(), tg, ill, tll, lp, lp, 0))
case("bwd_grad_dtype", lambda: A._ctc_loss_backward(g.double(), lp, tg, ill, tll, nll, la, 0))
case("bwd_la_dtype", lambda: A._ctc_loss_backward(g, lp, tg, ill, tll, nll, la.double(), 0))
case("bwd_la_2d", lambda: A._ctc_loss_backward(g, lp, tg, ill, tll, nll, la[0], 0))
case("bwd_tg_float", lambda: A._ctc_loss_backward(g, lp, tg.float(), ill, tll, nll, la, 0))
case("bwd_grad_0d", lambda: A._ctc_loss_backward(g[0], lp, tg, ill, tll, nll, la, 0))
case("bwd_lp_2d", lambda: A._ctc_loss_backward(g, lp[0], tg, ill, tll, nll, la, 0))
case("bwd_lengths_float", lambda: A._ctc_loss_backward.Tensor(g, lp, tg, il.float(), tl, nll,
                                                               la, 0))
gm, lpm, tgm, nllm, lam = (v.to("meta") for v in (g, lp, tg, nll, la))
case("bwd_meta", lambda: refusal(lambda: A._ctc_loss_backward(gm, lpm, tgm, ill, tll, nllm, lam,
                                                              0)))
out64 = torch.zeros(0, dtype=torch.float64)
case("bwd_out_dtype", lambda: A._ctc_loss_backward.out(g, lp, tg, ill, tll, nll, la, 0, out=out64))
# meta: shapes, dtypes and the checks that need no data
m = lp.to("meta")
case("meta_ctc", lambda: [(str(r.dtype), list(r.shape), r.device.type)
                          for r in A._ctc_loss(m, tgm, ill, tll)])
case("meta_ctc_empty", lambda: [list(r.shape) for r in A._ctc_loss(m[:0], tg, [0] * N, tll)])
case("meta_ctc_cat", lambda: [list(r.shape) for r in A._ctc_loss(m.double(), cat, ill, tll)])
case("meta_ctc_half", lambda: A._ctc_loss(m.half(), tg, ill, tll))
case("meta_ctc_blank", lambda: A._ctc_loss(m, tg, ill, tll, C))
case("meta_ctc_il", lambda: A._ctc_loss(m, tg, [13] * N, tll))
case("meta_ctc_tensor", lambda: refusal(lambda: A._ctc_loss.Tensor(m, tg, il, tl)))
case("meta_loss", lambda: [(str(r.dtype), list(r.shape)) for r in [
    F.ctc_loss(m, tg, ill, tll, reduction=red) for red in ("none", "mean", "sum")]])
# meta arguments take upstream's tensor road (_ctc_loss.Tensor, which has no Meta kernel)
case("meta_loss_tensor_lengths", lambda: refusal(lambda: F.ctc_loss(m, tg, il, tl)))
case("meta_lengths_0d_input", lambda: F.ctc_loss(torch.tensor(1.0), tg[0], il.to("meta")[0],
                                                  tl[0]))
case("meta_loss_zi", lambda: list(F.ctc_loss(m, tgm, ill, tll, zero_infinity=True, **NONE).shape))
case("meta_loss_unbatched", lambda: list(F.ctc_loss(m[:, 0], tg[0], [12], [5], **NONE).shape))
print(json.dumps(out))
"""

GRADS = PRELUDE + r"""
def grads(fn, x):
    x = x.clone().requires_grad_()
    r = fn(x)
    w = torch.linspace(-1, 2, r.numel(), dtype=x.dtype).reshape(r.shape)
    names = []
    f = r.grad_fn
    while f is not None:
        names.append(f.name())
        nxt = [n for n, _ in f.next_functions
               if n is not None and n.name() != "torch::autograd::AccumulateGrad"]
        f = nxt[0] if nxt else None
    return [names, bits(torch.autograd.grad((r * w).sum(), [x])[0])]
short = torch.tensor([2, 10, 1, 12])
for dt in (torch.float32, torch.float64):
    x = lp.to(dt)
    n = str(dt)[6:]
    for red in ("none", "mean", "sum"):
        for zi in (False, True):
            kw = {"reduction": red, "zero_infinity": zi}
            case(f"g_{n}_{red}_{zi}", lambda: grads(lambda a: F.ctc_loss(a, tg, il, tl, **kw), x))
            case(f"g_{n}_{red}_{zi}_short",
                 lambda: grads(lambda a: F.ctc_loss(a, tg, short, tl, **kw), x))
    ill, tll = il.tolist(), tl.tolist()
    case(f"g_{n}_list_cat",
         lambda: grads(lambda a: F.ctc_loss(a, cat, ill, tll, reduction="sum"), x))
    case(f"g_{n}_unbatched",
         lambda: grads(lambda a: F.ctc_loss(a, tg[1, :3], il[1], tl[1], **NONE), x[:, 1]))
    xt = x.transpose(0, 1).contiguous()
    case(f"g_{n}_nc", lambda: grads(lambda a: F.ctc_loss(a.transpose(0, 1), tg, il, tl), xt))
    il0 = torch.tensor([0, 4, 3, 12])
    case(f"g_{n}_il0", lambda: grads(lambda a: F.ctc_loss(a, tg, il0, tl, reduction="sum"), x))
    case(f"g_{n}_aten_tensor", lambda: grads(lambda a: A._ctc_loss.Tensor(a, tg, il, tl)[0], x))
    case(f"g_{n}_aten_int32",
         lambda: grads(lambda a: A._ctc_loss(a, tg.int(), ill, tll)[0], x))
    case(f"g_{n}_log_alpha_history", lambda: [
        r.requires_grad for r in A._ctc_loss(x.clone().requires_grad_(), tg, ill, tll)])
    big = logp(50, 16, 20, dtype=dt)
    btg = torch.randint(1, 20, (16, 30))
    btl = torch.randint(10, 30, (16,))
    bil = torch.full((16,), 50)
    case(f"g_{n}_opinfo", lambda: grads(lambda a: F.ctc_loss(a, btg, bil, btl), big))
# under a dispatch mode upstream's ctc_loss.Tensor keeps the lengths as tensors
# (_ctc_loss.Tensor, CtcLossBackward1) and divides 'mean' by the clamped integral lengths
from torch.utils._python_dispatch import TorchDispatchMode
class Ops(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))
def under_mode(red, zi):
    with Ops():
        kw = {"reduction": red, "zero_infinity": zi}
        return grads(lambda a: F.ctc_loss(a, tg.int(), il, tl, **kw), lp)
for red in ("none", "mean", "sum"):
    case(f"mode_{red}", lambda: under_mode(red, True))
case("mode_mean_plain", lambda: under_mode("mean", False))
def gradcheck():
    z = torch.randn(5, 2, 4, dtype=torch.float64, requires_grad=True)
    t2 = tg[:2, :2].clamp(max=3)
    fn = lambda a: F.ctc_loss(a.log_softmax(2), t2, [5, 4], [2, 1], zero_infinity=True, **NONE)
    return torch.autograd.gradcheck(fn, (z,), check_undefined_grad=False)
case("gradcheck", gradcheck)
def double_backward():
    x = lp.double().requires_grad_()
    g, = torch.autograd.grad(F.ctc_loss(x, tg, il, tl), [x], create_graph=True)
    return torch.autograd.grad(g.sum(), [x])
case("double_backward", double_backward)
print(json.dumps(out))
"""


def _agree(script):
    ours, upstream, differ = cases_differing(script)
    assert not differ, {k: v for k, v in list(differ.items())[:3]}
    return ours, upstream


def test_ctc_loss_values_agree_bit_for_bit():
    _, upstream = _agree(FORWARD)
    assert len(upstream) == 2 * 51
    assert upstream["float32_none_False"][0] == "torch.float32"
    assert upstream["float64_ctc_out_dtype"][0] == "raises"


def test_ctc_loss_errors_and_meta_agree():
    _, upstream = _agree(ERRORS)
    assert upstream["blank_high"] == ["raises", "RuntimeError", "blank must be in label range"]
    assert upstream["half"][1] == "NotImplementedError"
    assert upstream["meta_ctc"][0] == ["torch.float32", [4], "meta"]


def test_ctc_loss_gradients_agree_bit_for_bit():
    _, upstream = _agree(GRADS)
    assert upstream["g_float64_none_False"][0] == ["CtcLossBackward0"]
    assert upstream["g_float32_mean_True"][0] == ["MeanBackward0", "DivBackward0",
                                                  "WhereBackward0", "CtcLossBackward0"]
    assert upstream["g_float32_aten_tensor"][0][0] == "CtcLossBackward1"
    assert upstream["double_backward"][1] == "RuntimeError"
    assert upstream["gradcheck"] is True
    assert upstream["mode_mean_plain"][0] == ["MeanBackward0", "DivBackward0",
                                              "CtcLossBackward1"]
