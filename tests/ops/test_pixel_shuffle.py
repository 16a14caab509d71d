"""pixel_shuffle and pixel_unshuffle (issue 9, item 2), ours and upstream each in its own process:
values, shapes, strides (channels-last stays channels-last), errors and messages, nodes and
gradients compare exactly (the ops only move values).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import CASES_PRELUDE, cases_differing  # noqa: E402

EXACT = CASES_PRELUDE + r"""
x = torch.arange(2 * 8 * 3 * 3.).reshape(2, 8, 3, 3)
case("ps", lambda: torch.pixel_shuffle(x, 2))
case("ps_3d", lambda: torch.pixel_shuffle(x[0], 2))
case("ps_5d", lambda: torch.pixel_shuffle(x.reshape(1, 2, 8, 3, 3), 2))
case("ps_cl", lambda: torch.pixel_shuffle(x.to(memory_format=torch.channels_last), 2))
case("ps_strided", lambda: torch.pixel_shuffle(x.transpose(2, 3), 2))
case("ps_one", lambda: torch.pixel_shuffle(x, 1))
case("ps_int", lambda: torch.pixel_shuffle(x.long(), 2))
case("ps_bad_c", lambda: torch.pixel_shuffle(x, 3))
case("ps_bad_r", lambda: torch.pixel_shuffle(x, 0))
case("ps_bad_dim", lambda: torch.pixel_shuffle(x[0, 0], 2))
case("pu", lambda: torch.pixel_unshuffle(torch.pixel_shuffle(x, 2), 2))
x_cl = x.reshape(2, 2, 6, 6).to(memory_format=torch.channels_last)
case("pu_cl", lambda: torch.pixel_unshuffle(x_cl, 3))
case("pu_bad_h", lambda: torch.pixel_unshuffle(x, 2))
case("pu_bad_w", lambda: torch.pixel_unshuffle(x.reshape(2, 8, 9, 1), 3))
case("pu_bad_r", lambda: torch.pixel_unshuffle(x, -1))
case("ps_empty", lambda: torch.pixel_shuffle(torch.ones(0, 4, 2, 2), 2))
case("ps_meta", lambda: torch.pixel_shuffle(x.to("meta"), 2).stride())
def grads(fn, x):
    t = x.double().clone().requires_grad_()
    y = fn(t)
    w = torch.linspace(-1, 2, y.numel(), dtype=torch.float64).reshape(y.shape)
    return [y.grad_fn.name()] + list(torch.autograd.grad((y * w).sum(), [t]))
case("g_ps", lambda: grads(lambda t: torch.pixel_shuffle(t, 2), x))
case("g_pu", lambda: grads(lambda t: torch.pixel_unshuffle(t, 3), x.reshape(2, 2, 6, 6)))
print(json.dumps(out))
"""


def test_pixel_shuffle_and_unshuffle_agree_exactly():
    _, upstream, differ = cases_differing(EXACT)
    assert not differ, differ
    assert upstream["ps_cl"][2] == [72, 1, 12, 2]
    assert upstream["g_ps"][0] == "PixelShuffleBackward0"
