"""3-d max and average pools, adaptive max pools (1-d, 2-d, 3-d), adaptive average 3-d and
avg_pool1d (issue 9, item 2), ours and upstream each in its own process: values, indices,
shapes, strides, errors and messages, dtype refusals, node names and gradients (first and
second order) compare exactly.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import CASES_PRELUDE, OURS, cases_differing, run_json  # noqa: E402

EXACT = CASES_PRELUDE + r"""
F = torch.nn.functional
x5 = torch.randn(2, 3, 5, 6, 7)
x4 = torch.randn(3, 4, 5, 6)
nanx = x5.clone(); nanx[0, 0, 1, 1, 1] = float("nan")
def nan_enc(r):  # NaN as a string, so the encodings compare
    return [[str(v) for v in t.flatten().tolist()] for t in r]
# max_pool3d
case("mp3", lambda: F.max_pool3d(x5, 2, return_indices=True))
case("mp3_4d", lambda: F.max_pool3d(x4, (2, 3, 2), return_indices=True))
case("mp3_args", lambda: F.max_pool3d(x5, (3, 2, 3), stride=(1, 2, 1), padding=(1, 1, 0),
                                      dilation=(1, 2, 1), ceil_mode=True, return_indices=True))
case("mp3_ceil", lambda: F.max_pool3d(x5, 2, stride=2, ceil_mode=True, return_indices=True))
case("mp3_nan", lambda: nan_enc(F.max_pool3d(nanx, 2, return_indices=True)))
case("mp3_int", lambda: F.max_pool3d((x5 * 10).long(), 2, return_indices=True))
case("mp3_u8", lambda: torch.max_pool3d((x5 * 10).abs().to(torch.uint8), 2))
case("mp3_bf16", lambda: F.max_pool3d(x5.bfloat16(), 3, padding=1, return_indices=True))
case("mp3_bool", lambda: F.max_pool3d(x5 > 0, 2))
case("mp3_strided", lambda: F.max_pool3d(x5.transpose(2, 4), 2, return_indices=True))
case("mp3_empty_batch", lambda: F.max_pool3d(torch.ones(0, 2, 4, 4, 4), 2))
case("mp3_bad_dim", lambda: F.max_pool3d(torch.ones(2, 4, 4), 2))
case("mp3_bad_k", lambda: torch.ops.aten.max_pool3d_with_indices(x5, [2, 2]))
case("mp3_bad_s", lambda: torch.ops.aten.max_pool3d_with_indices(x5, [2], [1, 1]))
case("mp3_bad_p", lambda: torch.ops.aten.max_pool3d_with_indices(x5, [2], [], [1, 1]))
case("mp3_bad_d", lambda: torch.ops.aten.max_pool3d_with_indices(x5, [2], [], [0], [1, 1]))
case("mp3_pad_big", lambda: F.max_pool3d(x5, 2, padding=2))
case("mp3_zero_k", lambda: torch.ops.aten.max_pool3d_with_indices(x5, [0]))
case("mp3_neg_s", lambda: torch.ops.aten.max_pool3d_with_indices(x5, [2], [-1]))
case("mp3_small", lambda: F.max_pool3d(torch.ones(1, 1, 1, 4, 4), 2))
case("mp3_zero_dim", lambda: F.max_pool3d(torch.ones(1, 0, 2, 4, 4), 2))
case("mp3_meta", lambda: [t.shape for t in F.max_pool3d(x5.to("meta"), 2, return_indices=True)])
# avg_pool3d
case("ap3", lambda: F.avg_pool3d(x5, 2))
case("ap3_4d", lambda: F.avg_pool3d(x4, (2, 3, 2), stride=1))
case("ap3_pad", lambda: F.avg_pool3d(x5, 3, stride=2, padding=1))
case("ap3_nopad", lambda: F.avg_pool3d(x5, 3, stride=2, padding=1, count_include_pad=False))
case("ap3_ceil", lambda: F.avg_pool3d(x5, 2, ceil_mode=True, count_include_pad=False))
case("ap3_div", lambda: F.avg_pool3d(x5, 2, divisor_override=3))
case("ap3_double", lambda: F.avg_pool3d(x5.double(), (1, 2, 3)))
case("ap3_long", lambda: F.avg_pool3d((x5 * 100).long(), 2, padding=1))
case("ap3_bf16", lambda: F.avg_pool3d(x5.bfloat16(), 2))
case("ap3_int", lambda: F.avg_pool3d((x5 * 100).int(), 2))
case("ap3_div0", lambda: F.avg_pool3d(x5, 2, divisor_override=0))
case("ap3_bigk", lambda: F.avg_pool3d(x5, 6))
case("ap3_bad_k", lambda: torch.ops.aten.avg_pool3d(x5, [2, 2]))
case("ap3_bad_s", lambda: torch.ops.aten.avg_pool3d(x5, [2], [1, 1]))
case("ap3_bad_p", lambda: torch.ops.aten.avg_pool3d(x5, [2], [], [1, 1]))
case("ap3_bad_dim", lambda: F.avg_pool3d(torch.ones(4, 4), 2))
case("ap3_meta", lambda: F.avg_pool3d(x5.to("meta"), 2).shape)
# avg_pool1d
x3 = torch.randn(2, 3, 9)
case("ap1", lambda: F.avg_pool1d(x3, 3))
case("ap1_args", lambda: F.avg_pool1d(x3, 4, stride=2, padding=2, ceil_mode=True,
                                      count_include_pad=False))
case("ap1_2d", lambda: F.avg_pool1d(x3[0], 2))
case("ap1_long", lambda: F.avg_pool1d((x3 * 10).long(), 2))
case("ap1_int", lambda: F.avg_pool1d((x3 * 10).int(), 2))
case("ap1_bad_dim", lambda: F.avg_pool1d(x5, 2))
case("ap1_bad_k", lambda: torch.avg_pool1d(x3, [2, 2]))
case("ap1_bad_s", lambda: torch.avg_pool1d(x3, [2], [1, 1]))
case("ap1_bad_p", lambda: torch.avg_pool1d(x3, [2], [1], [0, 0]))
# avg_pool2d's dtypes (Int refused as upstream)
case("ap2_int", lambda: F.avg_pool2d((x4 * 10).int(), 2))
case("ap2_long", lambda: F.avg_pool2d((x4 * 10).long(), 2))
case("ap2_bool", lambda: F.avg_pool2d(x4 > 0, 2))
# adaptive max pools
case("amp2", lambda: F.adaptive_max_pool2d(x4, (2, 4), return_indices=True))
case("amp2_3d", lambda: F.adaptive_max_pool2d(x4[0], 3, return_indices=True))
case("amp2_grow", lambda: F.adaptive_max_pool2d(x4, (7, 9), return_indices=True))
case("amp2_none", lambda: F.adaptive_max_pool2d(x4, (None, 2), return_indices=True))
case("amp2_nan", lambda: nan_enc(F.adaptive_max_pool2d(nanx[0], 2, return_indices=True)))
case("amp2_bf16", lambda: F.adaptive_max_pool2d(x4.bfloat16(), 3, return_indices=True))
case("amp2_half", lambda: F.adaptive_max_pool2d(x4.half(), 2, return_indices=True))
case("amp2_long", lambda: F.adaptive_max_pool2d(x4.long(), 2))
case("amp2_bad_dim", lambda: F.adaptive_max_pool2d(x5, 2))
case("amp2_zero", lambda: F.adaptive_max_pool2d(torch.ones(2, 0, 4), 2))
case("amp2_batch0", lambda: F.adaptive_max_pool2d(torch.ones(0, 2, 4, 4), 2, return_indices=True))
case("amp2_bad_out", lambda: torch._C._nn.adaptive_max_pool2d(x4, [2, 2, 2]))
case("amp2_strided", lambda: F.adaptive_max_pool2d(x4.transpose(2, 3), 2, return_indices=True))
case("amp3", lambda: F.adaptive_max_pool3d(x5, (2, 3, 4), return_indices=True))
case("amp3_4d", lambda: F.adaptive_max_pool3d(x4, 2, return_indices=True))
case("amp3_double", lambda: F.adaptive_max_pool3d(x5.double(), (3, 1, 5), return_indices=True))
case("amp3_long", lambda: F.adaptive_max_pool3d(x5.long(), 2))
case("amp3_bad_dim", lambda: F.adaptive_max_pool3d(x4[0], 2))
case("amp3_zero", lambda: F.adaptive_max_pool3d(torch.ones(2, 3, 0, 4), 2))
case("amp1", lambda: F.adaptive_max_pool1d(x3, 4, return_indices=True))
case("amp1_2d", lambda: F.adaptive_max_pool1d(x3[0], 5, return_indices=True))
case("amp1_bad_dim", lambda: F.adaptive_max_pool1d(x4, 2))
case("amp1_bad_out", lambda: torch.adaptive_max_pool1d(x3, [2, 2]))
case("amp1_zero", lambda: torch.adaptive_max_pool1d(torch.ones(2, 0), [2]))
case("amp_meta", lambda: [t.shape for t in F.adaptive_max_pool2d(x4.to("meta"), 3, True)])
# adaptive avg 3-d
case("aap3", lambda: F.adaptive_avg_pool3d(x5, (2, 3, 4)))
case("aap3_ones", lambda: F.adaptive_avg_pool3d(x5, 1))
case("aap3_4d", lambda: F.adaptive_avg_pool3d(x4, (5, 2, 7)))
case("aap3_bf16", lambda: F.adaptive_avg_pool3d(x5.bfloat16(), 3))
case("aap3_long", lambda: torch._C._nn._adaptive_avg_pool3d(x5.long(), [2, 2, 2]))
case("aap3_neg", lambda: F.adaptive_avg_pool3d(x5, (2, -1, 2)))
case("aap3_bad_len", lambda: torch._C._nn.adaptive_avg_pool3d(x5, [2, 2]))
case("aap3_bad_dim", lambda: F.adaptive_avg_pool3d(x4[0], 2))
case("aap3_zero", lambda: F.adaptive_avg_pool3d(torch.ones(2, 3, 0, 4), 2))
case("aap3_meta", lambda: F.adaptive_avg_pool3d(x5.to("meta"), 2).shape)
# gradients: first order, node names, and the backward's own gradient
def grads(fn, x, second=False):
    t = x.double().clone().requires_grad_()
    y = fn(t)
    w = torch.linspace(-1, 2, y.numel(), dtype=torch.float64).reshape(y.shape)
    g, = torch.autograd.grad((y * w).sum(), [t], create_graph=second)
    res = [y.grad_fn.name(), g]
    if second:
        res.append(g.grad_fn.name())
        res += list(torch.autograd.grad((g * g).sum(), [t], allow_unused=True))
        w2 = w.clone().requires_grad_()
        g2, = torch.autograd.grad((y * w2).sum(), [t], create_graph=True)
        res += list(torch.autograd.grad((g2 * torch.cos(t)).sum(), [w2]))
    return res
case("g_mp3", lambda: grads(lambda t: F.max_pool3d(t, 2, stride=1), x5, True))
case("g_mp3_args", lambda: grads(lambda t: F.max_pool3d(t, 3, padding=1, dilation=(1, 1, 2)), x5))
case("g_ap3", lambda: grads(lambda t: F.avg_pool3d(t, 3, stride=2, padding=1), x5, True))
case("g_ap3_div", lambda: grads(lambda t: F.avg_pool3d(t, 2, divisor_override=5), x4))
case("g_ap1", lambda: grads(lambda t: F.avg_pool1d(t, 3, stride=2, padding=1), x3))
case("g_amp2", lambda: grads(lambda t: F.adaptive_max_pool2d(t, (3, 4)), x4, True))
case("g_amp3", lambda: grads(lambda t: F.adaptive_max_pool3d(t, (2, 4, 3)), x5, True))
case("g_amp1", lambda: grads(lambda t: F.adaptive_max_pool1d(t, 4), x3))
case("g_aap3", lambda: grads(lambda t: F.adaptive_avg_pool3d(t, (2, 4, 3)), x5, True))
def grads_in(dtype, fn, x):
    t = x.to(dtype).requires_grad_()
    y = fn(t)
    return torch.autograd.grad(y.sum() * 3, [t])
case("g_aap3_bf16", lambda: grads_in(torch.bfloat16, lambda t: F.adaptive_avg_pool3d(t, 3), x5))
case("g_aap2_bf16", lambda: grads_in(torch.bfloat16, lambda t: F.adaptive_avg_pool2d(t, 4), x4))
case("g_amp2_f32", lambda: grads_in(torch.float32, lambda t: F.adaptive_max_pool2d(t, 2), x4))
case("g_ap3_f32", lambda: grads_in(torch.float32, lambda t: F.avg_pool3d(t, 3, 1, 1), x5))
# the backward ops called directly: checks and dtype refusals
go = torch.randn(2, 3, 2, 3, 3)
_, ind = F.max_pool3d(x5, 2, return_indices=True)
case("mp3b_bad_go", lambda: torch.ops.aten.max_pool3d_with_indices_backward(
    go[:, :2], x5, [2], [2], [0], [1], False, ind))
case("mp3b_bad_idx", lambda: torch.ops.aten.max_pool3d_with_indices_backward(
    go, x5, [2], [2], [0], [1], False, ind[:, :, :1]))
case("mp3b", lambda: torch.ops.aten.max_pool3d_with_indices_backward(
    go, x5, [2], [2], [0], [1], False, ind))
case("ap3b_bad_go", lambda: torch.ops.aten.avg_pool3d_backward(
    go[..., :2], x5, [2], [2], [0], False, True, None))
case("ap3b_long", lambda: torch.ops.aten.avg_pool3d_backward(
    go.long(), x5.long(), [2], [2], [0], False, True, None))
_, aind = F.adaptive_max_pool2d(x4, 2, return_indices=True)
case("amp2b", lambda: torch.ops.aten.adaptive_max_pool2d_backward(torch.ones(3, 4, 2, 2), x4, aind))
case("amp2b_bad_dtype", lambda: torch.ops.aten.adaptive_max_pool2d_backward(
    torch.ones(3, 4, 2, 2).double(), x4, aind))
case("amp2b_bad_dim", lambda: torch.ops.aten.adaptive_max_pool2d_backward(
    torch.ones(4, 2, 2, 2, 2), x4, aind))
case("aap3b_empty", lambda: torch.ops.aten._adaptive_avg_pool3d_backward(
    torch.ones(2, 3, 0, 2, 2), x5))
case("mp3b_zero_dim", lambda: torch.ops.aten.max_pool3d_with_indices_backward(
    go, torch.ones(2, 3, 0, 6, 7), [2], [2], [0], [1], False, ind))
case("aap1_bad_out", lambda: torch.adaptive_avg_pool1d(x3, [2, 2]))
case("amp3b_bad_dtype", lambda: torch.ops.aten.adaptive_max_pool3d_backward(
    torch.ones(2, 3, 1, 1, 1).double(), x5, torch.zeros(2, 3, 1, 1, 1, dtype=torch.long)))
# half and bfloat16 windows of negative values (ours once started the maximum at 0)
neg = -torch.arange(1., 17.).reshape(1, 4, 4)
for dt in ["float16", "bfloat16"]:
    case("mp2_neg_" + dt, lambda: F.max_pool2d(neg.to(getattr(torch, dt)), 2, return_indices=True))
    case("mp3_neg_" + dt, lambda: F.max_pool3d(neg.reshape(1, 1, 2, 2, 4).to(getattr(torch, dt)),
                                               2, return_indices=True))
# out= forms
def with_out(fn, *outs):
    r = fn(*outs)
    return [r, list(outs), [o.data_ptr() == p for o, p in zip(outs, ptrs)]]
o1, o2 = torch.empty(0), torch.empty(0, dtype=torch.long)
ptrs = []
case("ap3_out", lambda: [torch._C._nn.avg_pool3d(x5, 2, out=o1), o1])
case("ap2_out", lambda: [torch._C._nn.avg_pool2d(x4, 2, out=o1), o1])
case("ap3_out_bad", lambda: torch._C._nn.avg_pool3d(x5, 2, out=torch.empty(0).double()))
case("mp3_out", lambda: [torch.ops.aten.max_pool3d_with_indices.out(x5, [2], out=o1, indices=o2),
                         o1, o2])
case("amp2_out", lambda: [torch._C._nn.adaptive_max_pool2d(x4, [2, 3], out=(o1, o2)), o1, o2])
case("amp3_out_bad", lambda: torch._C._nn.adaptive_max_pool3d(x5, [2, 3, 1],
                                                              out=(o1, o2.int())))
case("aap2_out_one", lambda: [torch._C._nn.adaptive_avg_pool2d(x4, [1, 1], out=o1), o1])
case("aap3_out", lambda: [torch._C._nn.adaptive_avg_pool3d(x5, [1, 2, 1], out=o1), o1])
print(json.dumps(out))
"""


def test_pools_3d_and_adaptive_agree_exactly():
    _, upstream, differ = cases_differing(EXACT)
    assert not differ, differ
    assert upstream["g_amp2"][0] == "AdaptiveMaxPool2DBackward0"
    assert upstream["mp3_bool"][0] == "raises"


def test_adaptive_max_backward_refuses_indices_outside_the_plane():
    # Upstream's kernel writes outside its tensor here (the process aborts); ours raises.
    script = CASES_PRELUDE + r"""
x4 = torch.randn(3, 4, 5, 6)
_, ind = torch.nn.functional.adaptive_max_pool2d(x4, 2, return_indices=True)
for name, bad in [("over", ind + 30), ("under", ind - 31)]:
    case(name, lambda: torch.ops.aten.adaptive_max_pool2d_backward(torch.ones(3, 4, 2, 2), x4, bad))
case("fine", lambda: torch.ops.aten.adaptive_max_pool2d_backward(torch.ones(3, 4, 2, 2), x4, ind))
print(json.dumps(out))
"""
    ours = run_json(OURS, script)
    assert ours["over"][:2] == ["raises", "IndexError"], ours["over"]
    assert "index 30 out of range" in ours["over"][2] or "out of range" in ours["over"][2]
    assert ours["under"][:2] == ["raises", "IndexError"], ours["under"]
    assert ours["fine"][0] == "torch.float32"
