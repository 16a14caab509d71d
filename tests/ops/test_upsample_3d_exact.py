"""upsample_nearest3d, upsample_trilinear3d and _upsample_nearest_exact1d/2d/3d (with .vec,
out= and backward kernels; issue 9, item 2), ours and upstream each in its own process:
nearest modes bit for bit (indices only), trilinear within upstream's own float32 error of its
float64 result, errors and messages, node names and gradients.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import (CASES_PRELUDE, SAME_VALUES_IN_DTYPE,  # noqa: E402
                     cases_beyond_upstreams_error, cases_differing)

EXACT = CASES_PRELUDE + r"""
F = torch.nn.functional
v = torch.randn(2, 3, 4, 5, 6)
for size in [(8, 10, 12), (3, 7, 4), (4, 5, 6), (9, 2, 13)]:
    case(f"n3_{size}", lambda: F.interpolate(v, size=size, mode="nearest"))
    case(f"e3_{size}", lambda: F.interpolate(v, size=size, mode="nearest-exact"))
    case(f"e2_{size}", lambda: F.interpolate(v[:, :, 0], size=size[1:], mode="nearest-exact"))
    case(f"e1_{size}", lambda: F.interpolate(v[:, :, 0, 0], size=size[2:], mode="nearest-exact"))
for sf in [1.5, 2.0, 0.7, 3.3]:
    case(f"n3_sf{sf}", lambda: F.interpolate(v, scale_factor=sf, mode="nearest"))
    case(f"e3_sf{sf}", lambda: F.interpolate(v, scale_factor=sf, mode="nearest-exact"))
    case(f"e2_sf{sf}", lambda: F.interpolate(v[0], scale_factor=sf, mode="nearest-exact"))
    case(f"e1_sf{sf}", lambda: F.interpolate(v[0, 0], scale_factor=sf, mode="nearest-exact"))
case("n3_u8", lambda: F.interpolate((v * 10).abs().to(torch.uint8), size=(5, 5, 5)))
case("e2_u8", lambda: F.interpolate((v[0] * 10).abs().to(torch.uint8), size=(7, 3), mode="nearest-exact"))
case("n3_bf16", lambda: F.interpolate(v.bfloat16(), size=(5, 9, 5)))
case("n3_long", lambda: F.interpolate(v.long(), size=(5, 9, 5)))
case("t3_u8", lambda: F.interpolate(v.to(torch.uint8), size=(5, 9, 5), mode="trilinear"))
case("n3_bad_dim", lambda: torch.ops.aten.upsample_nearest3d(v[0], [2, 2, 2]))
case("n3_zero", lambda: torch.ops.aten.upsample_nearest3d(v, [2, 0, 2]))
case("e3_bad_len", lambda: torch.ops.aten._upsample_nearest_exact3d(v, [2, 2]))
o = torch.empty(0)
case("n3_out", lambda: [torch._C._nn.upsample_nearest3d(v, [3, 3, 3], out=o), o])
case("meta", lambda: F.interpolate(v.to("meta"), size=(3, 4, 5), mode="trilinear").shape)
def grads(fn, x):
    t = x.double().clone().requires_grad_()
    y = fn(t)
    w = torch.linspace(-1, 2, y.numel(), dtype=torch.float64).reshape(y.shape)
    return [y.grad_fn.name()] + list(torch.autograd.grad((y * w).sum(), [t]))
case("g_n3", lambda: grads(lambda t: F.interpolate(t, size=(7, 3, 9)), v))
case("g_e3", lambda: grads(lambda t: F.interpolate(t, size=(7, 3, 9), mode="nearest-exact"), v))
case("g_e2", lambda: grads(lambda t: F.interpolate(t, size=(3, 9), mode="nearest-exact"), v[0]))
case("g_e1", lambda: grads(lambda t: F.interpolate(t, size=(11,), mode="nearest-exact"), v[0, 0]))
print(json.dumps(out))
"""

TRILINEAR = CASES_PRELUDE + SAME_VALUES_IN_DTYPE + r"""
F = torch.nn.functional
v = torch.randn(2, 3, 4, 5, 6)
for size in [(8, 10, 12), (3, 7, 4), (4, 5, 6)]:
    for align in (False, True):
        case(f"t3_{size}_{align}", lambda: F.interpolate(v, size=size, mode="trilinear",
                                                         align_corners=align))
case("t3_sf", lambda: F.interpolate(v, scale_factor=1.7, mode="trilinear"))
def grad_of(size):
    t = v.clone().requires_grad_()
    y = F.interpolate(t, size=size, mode="trilinear")
    w = torch.linspace(-1, 2, y.numel(), dtype=DTYPE).reshape(y.shape)
    return torch.autograd.grad((y * w).sum(), [t])[0]
case("g_t3", lambda: grad_of((7, 3, 9)))
print(json.dumps(out))
"""


def test_nearest_modes_agree_exactly():
    _, upstream, differ = cases_differing(EXACT)
    assert not differ, sorted(differ)
    assert upstream["g_e3"][0] == "UpsampleNearestExact3DBackward0"


def test_trilinear_within_upstreams_error():
    failures = cases_beyond_upstreams_error(TRILINEAR)
    assert not failures, failures
