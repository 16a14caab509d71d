"""torch.fft against upstream, each side in its own process.

Acceptance: every case (1-D, 2-D and n-D transforms, each norm, n and s padding and
truncation, odd and even sizes, batched and non-contiguous inputs, float32/complex64 and
float64/complex128, integer input, out= forms, hfft/ihfft, fftfreq/rfftfreq/fftshift, the
primitives on meta) has upstream's dtype, shape, strides and conjugate bit, and every misuse
raises upstream's exception type and message. Values: ours computes with the oneMKL release
upstream's wheel links, configured as upstream configures it (kernels/cpu/fft.cpp, Note [FFT
through DFTI]), so they must be bit-identical; they are also held to an allowance derived from
upstream's own float32 error (upstream re-run in float64; the allowance is twice the largest
error of upstream's float32 result), which sizes a difference should the bits ever part.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.door import _both

PRELUDE = r'''
import json, warnings, torch
warnings.simplefilter("ignore")
out = {}
def enc(t):
    if not isinstance(t, torch.Tensor):
        return ["value", repr(t)]
    t = t.detach()
    meta = [str(t.dtype), list(t.shape), list(t.stride()), t.is_conj()]
    if t.device.type == "meta":
        return meta
    v = t.resolve_conj()
    if v.is_complex():
        v = torch.view_as_real(v)
    return meta + [v.contiguous().numpy().tobytes().hex()]
def case(name, fn):
    try:
        out[name] = enc(fn())
    except Exception as e:
        out[name] = ["raises", type(e).__name__, str(e).split("\n")[0]]
'''

# Every case is a function of (real dtype, complex dtype); inputs are drawn in float64 and cast,
# so the float64 run of a case is the float32 run's reference.
BODY = r'''
torch.manual_seed(0)
R = {n: torch.randn(*s, dtype=torch.float64) for n, s in
     (("v8", (8,)), ("v7", (7,)), ("v11", (11,)), ("v60", (60,)), ("m", (6, 10)),
      ("m2", (5, 9)), ("t3", (4, 6, 5)), ("t4", (3, 4, 6, 5)))}
C = {n: torch.complex(torch.randn(*s, dtype=torch.float64), torch.randn(*s, dtype=torch.float64))
     for n, s in (("c8", (8,)), ("c7", (7,)), ("cm", (6, 10)), ("cm2", (5, 9)),
                  ("ct3", (4, 6, 5)), ("ct4", (3, 4, 6, 5)))}

BIG = {"v65536": torch.randn(1 << 16, dtype=torch.float64),
       "m512": torch.randn(512, 384, dtype=torch.float64)}

def cases(rd, cd):
    r = {k: v.to(rd) for k, v in R.items()}
    c = {k: v.to(cd) for k, v in C.items()}
    f = torch.fft
    L = {}
    for norm in (None, "backward", "ortho", "forward"):
        L[f"fft real even {norm}"] = lambda norm=norm: f.fft(r["v8"], norm=norm)
        L[f"fft real odd {norm}"] = lambda norm=norm: f.fft(r["v7"], norm=norm)
        L[f"fft complex {norm}"] = lambda norm=norm: f.fft(c["c8"], norm=norm)
        L[f"ifft real {norm}"] = lambda norm=norm: f.ifft(r["v11"], norm=norm)
        L[f"ifft complex {norm}"] = lambda norm=norm: f.ifft(c["c7"], norm=norm)
        L[f"rfft {norm}"] = lambda norm=norm: f.rfft(r["v60"], norm=norm)
        L[f"irfft {norm}"] = lambda norm=norm: f.irfft(c["c8"], norm=norm)
        L[f"hfft {norm}"] = lambda norm=norm: f.hfft(c["c7"], norm=norm)
        L[f"ihfft {norm}"] = lambda norm=norm: f.ihfft(r["v11"], norm=norm)
        L[f"fft2 {norm}"] = lambda norm=norm: f.fft2(c["cm"], norm=norm)
        L[f"ifft2 real {norm}"] = lambda norm=norm: f.ifft2(r["m2"], norm=norm)
        L[f"rfft2 {norm}"] = lambda norm=norm: f.rfft2(r["m"], norm=norm)
        L[f"irfft2 {norm}"] = lambda norm=norm: f.irfft2(c["cm2"], norm=norm)
        L[f"hfft2 {norm}"] = lambda norm=norm: f.hfft2(c["cm"], norm=norm)
        L[f"ihfft2 {norm}"] = lambda norm=norm: f.ihfft2(r["m2"], norm=norm)
        L[f"fftn {norm}"] = lambda norm=norm: f.fftn(c["ct3"], norm=norm)
        L[f"ifftn {norm}"] = lambda norm=norm: f.ifftn(c["ct3"], norm=norm)
        L[f"rfftn {norm}"] = lambda norm=norm: f.rfftn(r["t3"], norm=norm)
        L[f"irfftn {norm}"] = lambda norm=norm: f.irfftn(c["ct3"], norm=norm)
        L[f"hfftn {norm}"] = lambda norm=norm: f.hfftn(c["ct3"], norm=norm)
        L[f"ihfftn {norm}"] = lambda norm=norm: f.ihfftn(r["t3"], norm=norm)
    # n / s: zero-padding and truncation, odd and even
    for n in (1, 3, 5, 8, 13, 16):
        L[f"fft n={n}"] = lambda n=n: f.fft(r["v8"], n=n)
        L[f"fft complex n={n}"] = lambda n=n: f.fft(c["c7"], n=n)
        L[f"rfft n={n}"] = lambda n=n: f.rfft(r["v7"], n=n)
        L[f"irfft n={n}"] = lambda n=n: f.irfft(c["c8"], n=n)
        L[f"hfft n={n}"] = lambda n=n: f.hfft(c["c8"], n=n, norm="ortho")
        L[f"ihfft n={n}"] = lambda n=n: f.ihfft(r["v8"], n=n)
    L["fft2 s pad/trunc"] = lambda: f.fft2(c["cm"], s=(9, 4))
    L["rfft2 s odd"] = lambda: f.rfft2(r["m"], s=(3, 7))
    L["irfft2 s odd"] = lambda: f.irfft2(c["cm"], s=(7, 9))
    L["irfftn s -1"] = lambda: f.irfftn(c["ct3"], s=(-1, 5), dim=(0, 2))
    L["fftn s -1"] = lambda: f.fftn(c["ct3"], s=(-1, 8))
    L["hfftn s"] = lambda: f.hfftn(c["ct3"], s=(3, 9), dim=(2, 0))
    L["ihfftn s"] = lambda: f.ihfftn(r["t3"], s=(5, 4), dim=(0, 1))
    L["rfftn s dims"] = lambda: f.rfftn(r["t4"], s=(7, 3), dim=(3, 1), norm="ortho")
    # batched dims and dims in every position
    for d in (0, 1, 2, -1):
        L[f"fft dim={d}"] = lambda d=d: f.fft(c["ct3"], dim=d)
        L[f"rfft dim={d}"] = lambda d=d: f.rfft(r["t3"], dim=d)
        L[f"irfft dim={d}"] = lambda d=d: f.irfft(c["ct3"], dim=d, n=7)
        L[f"ihfft dim={d}"] = lambda d=d: f.ihfft(r["t3"], dim=d)
    L["fftn dims 0,2"] = lambda: f.fftn(c["ct4"], dim=(0, 2))
    L["fftn dims 3,1"] = lambda: f.fftn(c["ct4"], dim=(3, 1))
    L["rfftn dims 2,0"] = lambda: f.rfftn(r["t4"], dim=(2, 0))
    L["irfftn dims 1,3"] = lambda: f.irfftn(c["ct4"], dim=(1, 3))
    L["fftn 4 dims"] = lambda: f.fftn(c["ct4"])
    L["rfftn 4 dims"] = lambda: f.rfftn(r["t4"])
    L["irfftn 4 dims"] = lambda: f.irfftn(c["ct4"])
    # non-contiguous inputs (the strides reach MKL as they are)
    L["fft transposed"] = lambda: f.fft(c["cm"].t())
    L["fft strided slice"] = lambda: f.fft(c["cm"][:, ::3], dim=0)
    L["rfft transposed"] = lambda: f.rfft(r["m"].t(), dim=0)
    L["rfft2 permuted"] = lambda: f.rfft2(r["t3"].permute(2, 0, 1))
    L["fftn permuted"] = lambda: f.fftn(c["ct4"].permute(3, 1, 0, 2), dim=(1, 3))
    L["irfft2 transposed"] = lambda: f.irfft2(c["ct3"].transpose(0, 2))
    L["ifft real strided"] = lambda: f.ifft(r["v60"][1::4])
    L["fft expanded"] = lambda: f.fft(r["v7"].expand(3, 7))
    L["rfft expanded signal"] = lambda: f.rfft(r["v8"][:1].expand(6))
    L["fft conj input"] = lambda: f.fft(c["c8"].conj())
    L["irfft conj input"] = lambda: f.irfft(c["cm"].conj())
    # large: MKL's threaded and multi-radix paths
    L["fft 65536"] = lambda: f.fft(BIG["v65536"].to(rd))
    L["rfft2 512x384"] = lambda: f.rfft2(BIG["m512"].to(rd))
    L["irfft2(rfft2) 512x384"] = lambda: f.irfft2(f.rfft2(BIG["m512"].to(rd)), s=(512, 384))
    # round trips
    L["irfft(rfft) even"] = lambda: f.irfft(f.rfft(r["v60"]), n=60)
    L["irfft(rfft) odd"] = lambda: f.irfft(f.rfft(r["v11"]), n=11)
    L["irfftn(rfftn)"] = lambda: f.irfftn(f.rfftn(r["t3"]), s=r["t3"].shape)
    L["ifft(fft)"] = lambda: f.ifft(f.fft(c["c7"]))
    L["ihfft(hfft)"] = lambda: f.ihfft(f.hfft(c["c8"]))
    # out= forms (out of another size is resized)
    L["fft out"] = lambda: f.fft(r["v8"], out=torch.empty(0, dtype=cd))
    L["fft complex out"] = lambda: f.fft(c["c8"], norm="ortho", out=torch.empty(8, dtype=cd))
    L["ifft real out"] = lambda: f.ifft(r["v8"], out=torch.empty(0, dtype=cd))
    L["rfft out"] = lambda: f.rfft(r["v8"], out=torch.empty(0, dtype=cd))
    L["irfft out"] = lambda: f.irfft(c["c8"], out=torch.empty(0, dtype=rd))
    L["hfft out"] = lambda: f.hfft(c["c8"], out=torch.empty(0, dtype=rd))
    L["ihfft out"] = lambda: f.ihfft(r["v8"], out=torch.empty(0, dtype=cd))
    L["fftn out"] = lambda: f.fftn(r["t3"], out=torch.empty(0, dtype=cd))
    L["rfft2 out"] = lambda: f.rfft2(r["m"], out=torch.empty(0, dtype=cd))
    L["irfftn out"] = lambda: f.irfftn(c["ct3"], out=torch.empty(0, dtype=rd))
    L["hfft2 out"] = lambda: f.hfft2(c["cm"], out=torch.empty(0, dtype=rd))
    L["ihfft2 out"] = lambda: f.ihfft2(r["m"], out=torch.empty(0, dtype=cd))
    # the primitives, two-sided r2c included
    L["_fft_r2c two-sided"] = lambda: torch._fft_r2c(r["t3"], [0, 2], 2, False)
    L["_fft_r2c two-sided out"] = lambda: torch._fft_r2c(r["t3"], [2, 1], 1, False,
                                                          out=torch.empty(0, dtype=cd))
    L["_fft_c2r"] = lambda: torch._fft_c2r(c["ct3"], [1, 2], 0, 9)
    L["_fft_c2c"] = lambda: torch._fft_c2c(c["ct3"], [2, 0], 1, False)
    L["_fft_c2c no dims"] = lambda: torch._fft_c2c(c["ct3"], [], 0, True)
    # frequencies and shifts
    L["fftfreq"] = lambda: f.fftfreq(9, 0.37, dtype=rd)
    L["fftfreq even"] = lambda: f.fftfreq(10, dtype=rd)
    L["rfftfreq"] = lambda: f.rfftfreq(9, 0.37, dtype=rd)
    L["fftfreq out"] = lambda: f.fftfreq(7, 2.5, out=torch.empty(2, dtype=rd))
    L["rfftfreq out"] = lambda: f.rfftfreq(7, 2.5, out=torch.empty(0, dtype=rd))
    L["fftshift"] = lambda: f.fftshift(r["t3"])
    L["fftshift dim"] = lambda: f.fftshift(r["t3"], dim=(0, -1))
    L["ifftshift"] = lambda: f.ifftshift(r["v7"])
    L["ifftshift(fftshift(fftfreq))"] = lambda: f.ifftshift(f.fftshift(f.fftfreq(11, dtype=rd)))
    return L

for tag, rd, cd in (("32", torch.float32, torch.complex64),
                    ("64", torch.float64, torch.complex128)):
    for name, fn in cases(rd, cd).items():
        case(f"{name} [{tag}]", fn)

# dtype promotion and the default dtype
case("fft of int64", lambda: torch.fft.fft(torch.arange(6)))
case("rfft of bool", lambda: torch.fft.rfft(torch.tensor([True, False, True, True])))
case("hfft of int", lambda: torch.fft.hfft(torch.arange(5)))
torch.set_default_dtype(torch.float64)
case("fft of int64, default float64", lambda: torch.fft.fft(torch.arange(6)))
case("fftfreq default float64", lambda: torch.fft.fftfreq(5))
torch.set_default_dtype(torch.float32)

# meta: upstream's meta rules (cuFFT's staging of strides)
M = lambda *s, dtype=torch.float32: torch.empty(*s, device="meta", dtype=dtype)
case("meta rfftn", lambda: torch.fft.rfftn(M(3, 4, 5)))
case("meta rfft2 dims", lambda: torch.fft.rfft2(M(3, 4, 5, 6), dim=(0, 2)))
case("meta fftn 5 dims", lambda: torch.fft.fftn(M(2, 3, 4, 5, 6, dtype=torch.complex64)))
case("meta irfftn", lambda: torch.fft.irfftn(M(3, 4, 5, dtype=torch.complex64)))
case("meta hfft", lambda: torch.fft.hfft(M(3, 4, dtype=torch.complex64)))
case("meta _fft_r2c", lambda: torch._fft_r2c(M(3, 4, 5).transpose(0, 2), [0, 2], 0, False))
case("meta _fft_c2r", lambda: torch._fft_c2r(M(3, 4, 5, dtype=torch.complex64).transpose(0, 1),
                                             [0, 2], 0, 8))
case("meta _fft_c2c", lambda: torch._fft_c2c(M(3, 4, 5, dtype=torch.complex64).permute(2, 0, 1),
                                             [1], 0, True))
case("meta _fft_r2c out", lambda: torch._fft_r2c(M(3, 4, 5), [0, 2], 0, False,
                                                 out=M(0, dtype=torch.complex64)))
case("meta _fft_c2r out", lambda: torch._fft_c2r(M(3, 4, 5, dtype=torch.complex64), [0, 2], 0, 8,
                                                 out=M(0)))
case("meta ihfft2", lambda: torch.fft.ihfft2(M(3, 4, 6)))
case("meta hfftn", lambda: torch.fft.hfftn(M(3, 4, 6, 2, dtype=torch.complex64)))
case("meta fftfreq", lambda: torch.fft.fftfreq(5, device="meta"))

# misuse
x = torch.randn(2, 3)
z = torch.randn(2, 3, dtype=torch.complex64)
case("n=0", lambda: torch.fft.fft(x, n=0))
case("irfft n=0", lambda: torch.fft.irfft(z, n=0))
case("irfft of one element", lambda: torch.fft.irfft(z[:, :1]))
case("bad norm", lambda: torch.fft.fft(x, norm="foo"))
case("dim out of range", lambda: torch.fft.fft(x, dim=2))
case("0-dim", lambda: torch.fft.fft(torch.tensor(2.0)))
case("fftn of 0-dim", lambda: torch.fft.fftn(torch.tensor(2.0)))
case("fftn dim=[]", lambda: torch.fft.fftn(x, dim=[]))
case("rfftn dim=[]", lambda: torch.fft.rfftn(x, dim=[]))
case("irfftn dim=[]", lambda: torch.fft.irfftn(z, dim=[]))
case("repeated dims", lambda: torch.fft.fftn(x, dim=(0, -2)))
case("s and dim lengths", lambda: torch.fft.fftn(x, s=(2, 3), dim=(0,)))
case("s too long", lambda: torch.fft.fftn(x, s=(2, 3, 4)))
case("s zero", lambda: torch.fft.fftn(x, s=(0, 3)))
case("rfft of complex", lambda: torch.fft.rfft(z))
case("rfftn of complex", lambda: torch.fft.rfftn(z))
case("ihfft of complex", lambda: torch.fft.ihfft(z))
case("float16", lambda: torch.fft.fft(x.half()))
case("bfloat16", lambda: torch.fft.rfft(x.bfloat16()))
case("real out for fft", lambda: torch.fft.fft(x, out=torch.empty(0)))
case("complex out for irfft", lambda: torch.fft.irfft(z, out=torch.empty(0, dtype=z.dtype)))
case("real out for rfftn", lambda: torch.fft.rfftn(x, out=torch.empty(0)))
case("fftfreq of int dtype", lambda: torch.fft.fftfreq(4, dtype=torch.int64))
case("fftshift of 0-dim with dim", lambda: torch.fft.fftshift(torch.tensor(1.0), dim=0))
case("empty batch", lambda: torch.fft.fft(torch.empty(0, 4)))
case("_fft_r2c of int", lambda: torch._fft_r2c(torch.arange(4), [0], 0, True))
case("_fft_c2c of real", lambda: torch._fft_c2c(x, [0], 0, True))
case("_fft_c2r of real", lambda: torch._fft_c2r(x, [0], 0, 4))
case("_fft_r2c of float16", lambda: torch._fft_r2c(x.half(), [1], 0, True))
'''


@pytest.fixture(scope="module")
def runs():
    return _both.both(PRELUDE, BODY)


def _values(enc):
    """The values of an encoded tensor, as float64 (complex as interleaved pairs)."""
    dtype = {"torch.float32": np.float32, "torch.complex64": np.float32,
             "torch.float64": np.float64, "torch.complex128": np.float64}[enc[0]]
    return np.frombuffer(bytes.fromhex(enc[4]), dtype=dtype).astype(np.float64)


def test_same_cases_and_metadata(runs):
    """dtype, shape, strides and conjugate bit, or the exception's type and message."""
    ours, up = runs
    assert ours.keys() == up.keys()
    bad = [f"{k}: {ours[k][:4]} vs {up[k][:4]}" for k in up if ours[k][:4] != up[k][:4]]
    assert not bad, "\n".join(bad)


def test_float32_within_upstreams_own_error(runs):
    """Each float32/complex64 case within twice upstream's own float32 error (its float64 run of
    the same case as the reference)."""
    ours, up = runs
    checked, bad = 0, []
    for name in up:
        if not name.endswith("[32]") or up[name][0] in ("raises", "value") or len(up[name]) < 5:
            continue
        ref = up[name.replace("[32]", "[64]")]
        if ref[0] not in ("torch.float64", "torch.complex128"):
            continue  # the case computes in float32 whatever the inputs (fftfreq's out=)
        up32, up64, mine = _values(up[name]), _values(ref), _values(ours[name])
        allowance = 2 * np.max(np.abs(up32 - up64), initial=0.0)
        err = np.max(np.abs(mine - up64), initial=0.0)
        checked += 1
        if not err <= allowance:
            bad.append(f"{name}: error {err:.3g} > allowance {allowance:.3g}")
    assert checked > 100
    assert not bad, "\n".join(bad)


def test_values_bit_identical(runs):
    """Same oneMKL, same descriptor, same strides: the same bits, float32 and float64."""
    ours, up = runs
    bad = [k for k in up if len(up[k]) == 5 and ours[k] != up[k]]
    assert not bad, "differ: " + ", ".join(bad)
