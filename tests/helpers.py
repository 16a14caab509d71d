"""Running code in our environment and in upstream's, each in its own process.

Two torch packages never share a process (ARCHITECTURE.md, section 2): every comparison runs a
snippet under .venv (ours) and under .venv-upstream (the official wheel) and compares the JSON each
prints. `OURS_C` loads our torch._C alone, without torch/__init__.py, for parts that do not need
the whole tree.
"""

from __future__ import annotations

import json
import math
import struct
import subprocess
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OURS = ROOT / ".venv" / "bin" / "python"
UPSTREAM = ROOT / ".venv-upstream" / "bin" / "python"

# Loads our extension as torch._C without executing torch/__init__.py, and checks which file it is.
OURS_C = textwrap.dedent(
    """
    import importlib.util, json, sys, sysconfig
    from pathlib import Path
    site = Path(sysconfig.get_paths()["purelib"])
    path = next((site / "torch").glob("_C.cpython-*.so"))
    spec = importlib.util.spec_from_file_location("torch._C", path)
    C = importlib.util.module_from_spec(spec)
    assert Path(C.__file__).resolve() == path.resolve(), C.__file__
    """
)

UPSTREAM_C = "import json, sys\nimport torch\nC = torch._C\n"


def run(python: Path, code: str, timeout: int = 300) -> subprocess.CompletedProcess:
    """Runs code with python -I (isolated: no user site, no cwd on sys.path)."""
    return subprocess.run([str(python), "-I", "-c", code], capture_output=True, text=True,
                          timeout=timeout, cwd="/")


def run_json(python: Path, code: str):
    """Runs code that prints one JSON document as its last line; returns it decoded."""
    proc = run(python, code)
    assert proc.returncode == 0, f"{python} failed:\n{proc.stderr[-4000:]}"
    return json.loads(proc.stdout.strip().splitlines()[-1])


def both(body: str):
    """Runs body against our _C (loaded alone) and upstream's torch._C; returns (ours, upstream).
    body uses `C` and ends by printing json."""
    body = textwrap.dedent(body)
    return run_json(OURS, OURS_C + body), run_json(UPSTREAM, UPSTREAM_C + body)


# The start of a child that hashes results made from random bytes (tests/ops/test_copy_*.py,
# test_fill_flat.py): THREADS intra-op threads, rng seeded with SEED, draw(shape, dtype) (random
# bytes viewed as dtype: floats carry NaN payloads; bools 0 or 1) and h(t) (shape, strides and
# a hash of the bytes). run_bit_hashes fills both in.
BYTE_HASHES_PRELUDE = textwrap.dedent(
    """
    import hashlib, json, random, torch
    torch.set_num_threads(THREADS)
    assert torch.get_num_threads() == THREADS
    rng = random.Random(SEED)

    def draw(shape, dt):
        n = 1
        for s in shape:
            n *= s
        item = torch.empty((), dtype=dt).element_size()
        raw = torch.frombuffer(bytearray(rng.randbytes(n * item + 1)), dtype=torch.uint8)[:-1]
        if dt == torch.bool:
            raw = raw & 1
        return raw.view(dt).reshape(shape)

    def h(t):
        b = t.contiguous().reshape(-1).view(torch.uint8).numpy().tobytes()
        return [list(t.shape), list(t.stride()), hashlib.sha256(b).hexdigest()[:16]]
    """
)


def run_bit_hashes(python: Path, body: str, threads: int, seed: int) -> dict:
    """Runs BYTE_HASHES_PRELUDE then body (which prints one JSON dict last) in python."""
    code = (BYTE_HASHES_PRELUDE + textwrap.dedent(body)).replace("THREADS", str(threads))
    proc = run(python, code.replace("SEED", str(seed)))
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def assert_same_bit_hashes(body: str, threads: int, seed: int, shown: int = 8):
    """Ours and upstream's run_bit_hashes of body: the same keys and every hash equal."""
    ours = run_bit_hashes(OURS, body, threads, seed)
    upstream = run_bit_hashes(UPSTREAM, body, threads, seed)
    assert ours.keys() == upstream.keys()
    bad = {k: (ours[k], upstream[k]) for k in ours if ours[k] != upstream[k]}
    assert not bad, f"{len(bad)} of {len(ours)} differ: {dict(list(bad.items())[:shown])}"


# docs/AGREEMENT_RULES.md: the float32 (and complex64) floor of 4 ulp.
FLOAT32_FLOOR = 4 * 2.0 ** -23


def _flat(v):
    if isinstance(v, list):
        for x in v:
            yield from _flat(x)
    else:
        yield float(v)


def scaled_error(got, ref) -> float:
    """AGREEMENT_RULES.md's error of nested lists of reals (complex values as pairs): max
    |got - ref| over max finite |ref|, where both are finite; the non-finite positions must
    match."""
    g, r = list(_flat(got)), list(_flat(ref))
    assert len(g) == len(r)
    assert [math.isfinite(a) for a in g] == [math.isfinite(b) for b in r]
    pairs = [(a, b) for a, b in zip(g, r) if math.isfinite(a) and math.isfinite(b)]
    scale = max((abs(b) for _, b in pairs), default=0.0) or 1.0
    return max((abs(a - b) / scale for a, b in pairs), default=0.0)


# A prelude for scripts that record named cases into `out` (printed as JSON at the end):
# enc() writes a tensor as [dtype, shape, strides, conjugate bit, values as reals] (complex
# values as pairs, conjugate views resolved), a torch.Size as a list, tuples and lists
# element-wise; case(name, fn) records fn()'s encoding or ["raises", type, message]. The
# seed is 0 and warnings are silenced.
CASES_PRELUDE = r"""
import json, torch, warnings
warnings.simplefilter("ignore")
torch.manual_seed(0)
out = {}
def enc(r):
    if isinstance(r, torch.Tensor):
        r = r.detach()
        v = r.resolve_conj()
        vals = torch.view_as_real(v).flatten().tolist() if v.is_complex() else v.flatten().tolist()
        return [str(r.dtype), list(r.shape), list(r.stride()), r.is_conj(), vals]
    if isinstance(r, torch.Size):
        return list(r)
    if isinstance(r, (tuple, list)):
        return [enc(x) for x in r]
    return r
def case(name, fn):
    try:
        out[name] = enc(fn())
    except Exception as e:
        out[name] = ["raises", type(e).__name__, str(e)]
"""

# For scripts that compare results bit for bit (after CASES_PRELUDE): bits(t) is a tensor's
# dtype, shape ([strides] of its contiguous copy with strides=True) and every value's bit pattern,
# so NaN payloads and signed zeros compare (nan_payload=False writes NaN as "nan", where which NaN
# comes out is not claimed); integer and bool tensors as values. second_order(fn, v) is the
# gradient of a first gradient (double backward) through both the input and the weights, in
# float64.
BITS_PRELUDE = r"""
def bits(t, nan_payload=True, strides=False):
    t = t.detach().contiguous()
    if t.dtype == torch.bool or not t.is_floating_point():
        return [str(t.dtype), t.tolist()]
    w = {2: torch.int16, 4: torch.int32, 8: torch.int64}[t.element_size()]
    b = t.view(w).flatten().tolist()
    if not nan_payload:
        b = ["nan" if v != v else x for v, x in zip(t.flatten().tolist(), b)]
    return [str(t.dtype), list(t.shape)] + ([list(t.stride())] if strides else []) + [b]
def second_order(fn, v):
    t = v.double().clone().requires_grad_()
    w = torch.linspace(-1, 2, t.numel(), dtype=torch.float64).requires_grad_()
    g, = torch.autograd.grad((fn(t) * w).sum(), [t], create_graph=True)
    second = torch.autograd.grad((g * g.detach().cos()).sum(), [t, w], allow_unused=True)
    return [g.grad_fn.name()] + [None if r is None else bits(r) for r in second]
"""

# For gradient scripts run in two dtypes: `DTYPE_NAME` in the script is replaced by the dtype,
# and torch.randn draws in float32 then widens, so both dtypes see the same values.
SAME_VALUES_IN_DTYPE = r"""
DTYPE = getattr(torch, "DTYPE_NAME")
_randn = torch.randn
def randn(*shape, requires_grad=False, **kw):
    return _randn(*shape, **kw).to(DTYPE).requires_grad_(requires_grad)
torch.randn = randn
"""


def cases_differing(script: str):
    """Runs a CASES_PRELUDE script in both environments; returns (ours, upstream, the cases
    whose encodings differ)."""
    ours, upstream = run_json(OURS, script), run_json(UPSTREAM, script)
    assert ours.keys() == upstream.keys()
    return ours, upstream, {k: (ours[k], upstream[k]) for k in upstream if ours[k] != upstream[k]}


def bits_values(enc) -> list:
    """The floats of a bits() encoding (its float32 or float64 bit patterns)."""
    fmt, ifmt = ("f", "i") if enc[0] == "torch.float32" else ("d", "q")
    return [struct.unpack(fmt, struct.pack(ifmt, v))[0] for v in enc[-1]]


def bits_near(a, b, ulps) -> bool:
    """Two bits() encodings of one dtype and shape whose values differ by at most `ulps` units
    in the last place of b's largest magnitude (a stated allowance where bits cannot agree)."""
    if a[:-1] != b[:-1] or len(a[-1]) != len(b[-1]):
        return False
    va, vb = bits_values(a), bits_values(b)
    eps = 2.0 ** (-23 if a[0] == "torch.float32" else -52)
    scale = max([abs(v) for v in vb] + [1e-300])
    return all(abs(x - y) <= ulps * eps * scale for x, y in zip(va, vb))


def encoded_values(r) -> list:
    """The numbers of an encoded result (a tensor's encoding, or a list of them)."""
    if r and isinstance(r[0], str):
        return r[4]
    return [v for x in r for v in encoded_values(x)]


def cases_beyond_upstreams_error(script: str) -> dict:
    """Runs a script using DTYPE_NAME (SAME_VALUES_IN_DTYPE) under ours in float32 and upstream
    in float32 and float64; returns the cases whose error against upstream's float64 exceeds
    upstream's own float32 error on that case and the float32 floor (AGREEMENT_RULES.md)."""
    ours = run_json(OURS, script.replace("DTYPE_NAME", "float32"))
    up32 = run_json(UPSTREAM, script.replace("DTYPE_NAME", "float32"))
    up64 = run_json(UPSTREAM, script.replace("DTYPE_NAME", "float64"))
    failures = {}
    for name in up32:
        assert up32[name][0] != "raises", (name, up32[name])
        own = scaled_error(encoded_values(up32[name]), encoded_values(up64[name]))
        err = scaled_error(encoded_values(ours[name]), encoded_values(up64[name]))
        if err > max(own, FLOAT32_FLOOR):
            failures[name] = (err, own)
    return failures
