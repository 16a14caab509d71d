"""stft (the overload torch.stft calls after its own centre padding), ours and upstream each in
its own process: every combination of n_fft / hop_length / win_length defaults, a window or
none (centred in n_fft when shorter), normalized, onesided (None, False, True for real input),
align_to_window, real and complex input of one and two dims, return_complex both ways, and
torch.stft's centre padding in the four pad modes, bit for bit; upstream's errors in its words
(the stft(...) description of the call, the short last aligned frame); meta shapes; the input's
gradient through the overlapping frames.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import BITS_PRELUDE, CASES_PRELUDE, cases_differing  # noqa: E402

SCRIPT = CASES_PRELUDE + BITS_PRELUDE + r"""
warnings.simplefilter("ignore")
A = torch.ops.aten
def cbits(t):
    return bits(torch.view_as_real(t.resolve_conj()) if t.is_complex() else t)
def win(n, dt):
    return (torch.arange(n, dtype=dt) + 1) / (n + 1)
for dt in [torch.float32, torch.float64, torch.complex64, torch.complex128]:
    n = str(dt)[6:]
    rdt = torch.float64 if dt in (torch.float64, torch.complex128) else torch.float32
    x, x1 = torch.randn(2, 40, dtype=dt), torch.randn(33, dtype=dt)
    for n_fft, hop, wl in [(8, None, None), (8, 3, 6), (16, 4, 16), (9, 2, 5), (40, 7, 33)]:
        for use_w in [False, True]:
            w = win(wl or n_fft, rdt) if use_w else None
            for norm in [False, True]:
                for ones in [None, False] + ([] if dt.is_complex else [True]):
                    key = f"{n}_{n_fft}_{hop}_{wl}_{use_w}_{norm}_{ones}"
                    for al in [None, False, True]:
                        case(f"{key}_{al}", lambda: cbits(A.stft.default(
                            x, n_fft, hop, wl, w, norm, ones, True, al)))
                    if n_fft <= 33:
                        case(f"1d_{key}", lambda: cbits(A.stft.default(
                            x1, n_fft, hop, wl, w, norm, ones, not dt.is_complex and None)))
                        case(f"real_{key}", lambda: cbits(A.stft.default(
                            x1, n_fft, hop, wl, w, norm, ones, False)))
    for center in [True, False]:
        for pm in ["reflect", "constant", "replicate", "circular"]:
            case(f"py_{n}_{center}_{pm}", lambda: cbits(torch.stft(
                x, 10, 3, window=win(10, rdt), center=center, pad_mode=pm, return_complex=True)))
    case(f"cwin_{n}", lambda: cbits(torch.stft(x, 8, 2, window=win(8, rdt) * (1 + 1j),
                                               return_complex=True, center=False)))
    case(f"strided_{n}", lambda: cbits(torch.stft(torch.randn(40, 2, dtype=dt).t(), 8,
                                                  return_complex=True, center=False)))
for dt in [torch.float32, torch.float64]:
    xx = torch.randn(2, 40, dtype=dt).requires_grad_()
    y = torch.stft(xx, 8, 2, window=win(8, dt), return_complex=True, center=False)
    w = ((torch.arange(y.numel()) % 5 - 2) / 4).to(dt).reshape(y.shape)
    case(f"grad_{str(dt)[6:]}", lambda: bits(torch.autograd.grad(
        (torch.view_as_real(y) * w[..., None]).sum(), [xx])[0]))
x = torch.randn(2, 20)
errs = {
    "int": lambda: A.stft.default(x.long(), 8, None, None, None, False, None, True),
    "3d": lambda: A.stft.default(x[None], 8, None, None, None, False, None, True),
    "n_fft": lambda: A.stft.default(x, 30, None, None, torch.ones(8), False, True, True),
    "n_fft0": lambda: A.stft.default(x, 0, 1, None, None, False, None, True),
    "hop": lambda: A.stft.default(x, 8, 0, None, None, False, None, True),
    "win": lambda: A.stft.default(x, 8, 2, 9, None, False, None, True),
    "win_shape": lambda: A.stft.default(x, 8, 2, 6, torch.ones(5), False, None, True),
    "win_2d": lambda: A.stft.default(x, 8, 2, 6, torch.ones(2, 6), False, None, True),
    "return_complex": lambda: A.stft.default(x, 8, 2, 6, None, False, None, None),
    "onesided_complex": lambda: A.stft.default(x.to(torch.complex64), 8, 2, 6, None, False,
                                               True, True),
    "half": lambda: A.stft.default(x.half(), 8, 2, 6, None, False, None, True),
}
for k, f in errs.items():
    case(f"err_{k}", f)
m = torch.randn(2, 40, device="meta")
case("meta", lambda: list(A.stft.default(m, 8, 2, 6, None, False, None, True).shape))
case("meta_real", lambda: list(A.stft.default(m[0], 8, 2, 6, None, False, False, False).shape))
print(json.dumps(out))
"""


def test_stft_agrees():
    ours, upstream, differ = cases_differing(SCRIPT)
    assert not differ, {k: (str(a)[:300], str(b)[:300]) for k, (a, b) in differ.items()}
    assert upstream["err_n_fft"][0] == "raises" and "stft(torch.FloatTensor" in upstream[
        "err_n_fft"][2]
    assert upstream["float64_40_7_33_True_True_None_True"][0] == "raises"
