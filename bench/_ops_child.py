"""The op rows of bench/ops_bench.py, run under this interpreter's torch (ours or upstream's).

Run by path, `python -I _ops_child.py REQUEST_JSON`, in one of two modes. "rounds": resident;
builds the requested rows' inputs (each from its own seeded torch.Generator, so the same in
every process), runs each row once and writes its result with numpy.save under the request's
folder (upstream A also the float64 result of the same inputs, for the allowance), sends the
files' names and a digest of every input, then answers each `round` command with every runnable
row's seconds per call. "memory": short-lived; the rise of ru_maxrss across one causal
scaled_dot_product_attention at L = 1024, then it exits. The parent imports CASES and INPUTS.
"""

from __future__ import annotations

import hashlib
import json
import resource
import sys
import timeit
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parents[1]))  # for torchnative._child, stdlib only
from torchnative import _child  # noqa: E402
from torchnative._child import send, step  # noqa: E402

BIG = (1024, 3072)  # GPT-2 small's MLP activation: 1024 tokens × 4 · 768
ROTARY = (1, 1024, 64)  # rotary angles: 1024 positions × head dim 64
SDPA_LENGTHS = (128, 512, 1024)
MEMORY_LENGTH, MEMORY_WARMUP_LENGTH = 1024, 128

# name -> (seed, kind, shape). Kinds: normal (randn), positive (rand · 4 + 1/16, in
# [0.0625, 4.0625)), mask (rand < 0.5, bool), rotary (position · inverse frequency as
# Llama/GPT-NeoX build them, from Python floats: no torch arithmetic, so no room to differ).
INPUTS = {
    "x": (1, "normal", BIG), "y": (2, "normal", BIG), "xp": (3, "positive", BIG),
    "mask": (4, "mask", BIG), "angles": (0, "rotary", ROTARY),
    "h": (5, "normal", (1024, 768)), "w": (6, "normal", (768,)), "b": (7, "normal", (768,)),
    "s": (8, "normal", (12, 1024, 1024)),
    **{f"{role}{n}": (100 + 3 * n + i, "normal", (1, 12, n, 64))
       for n in SDPA_LENGTHS for i, role in enumerate("qkv")},
    "t": (9, "normal", (1, 1, 768)),
    "cache": (10, "normal", (1, 12, 16, 64)), "new": (11, "normal", (1, 12, 1, 64)),
    "c1": (12, "normal", (1, 1, 768)), "c2": (13, "normal", (1, 1, 768)),
    "c3": (14, "normal", (1, 1, 768)),
}

# (name, statement, check, the inputs it reads) in report order. Checks: exact (bit for bit
# against upstream A), derived (bit for bit, or within 2 × upstream A's own float32 error from
# its float64 run of the same inputs).
CASES = (
    ("exp", "torch.exp(x)", "derived", ("x",)),
    ("log", "torch.log(xp)", "derived", ("xp",)),
    ("tanh", "torch.tanh(x)", "derived", ("x",)),
    ("erf", "torch.erf(x)", "derived", ("x",)),
    ("gelu", "F.gelu(x)", "derived", ("x",)),
    ("gelu_tanh", "F.gelu(x, approximate='tanh')", "derived", ("x",)),
    ("sigmoid", "torch.sigmoid(x)", "derived", ("x",)),
    ("silu", "F.silu(x)", "derived", ("x",)),
    ("pow_scalar", "xp.pow(2.5)", "derived", ("xp",)),
    ("pow_tensor", "torch.pow(xp, y)", "derived", ("xp", "y")),
    ("rsqrt", "torch.rsqrt(xp)", "derived", ("xp",)),
    ("sin", "torch.sin(angles)", "derived", ("angles",)),
    ("cos", "torch.cos(angles)", "derived", ("angles",)),
    ("gt", "x > y", "exact", ("x", "y")),
    ("where", "torch.where(mask, x, y)", "exact", ("mask", "x", "y")),
    ("masked_fill", "x.masked_fill(mask, float('-inf'))", "exact", ("x", "mask")),
    ("layer_norm", "F.layer_norm(h, (768,), w, b)", "derived", ("h", "w", "b")),
    ("softmax", "F.softmax(s, dim=-1)", "derived", ("s",)),
    *[(f"sdpa_{n}", f"F.scaled_dot_product_attention(q{n}, k{n}, v{n}, is_causal=True)",
       "derived", (f"q{n}", f"k{n}", f"v{n}")) for n in SDPA_LENGTHS],
    ("sum_decode", "t.sum()", "derived", ("t",)),
    ("cat_kv", "torch.cat([cache, new], dim=2)", "exact", ("cache", "new")),
    ("cat3_decode", "torch.cat([c1, c2, c3], dim=-1)", "exact", ("c1", "c2", "c3")),
)


def rotary_angles(torch):
    """(1, 1024, 64) float32: angle[p, i] = p · 10000^(-2 (i mod 32) / 64), computed in Python
    double and rounded once to float32 by torch.tensor."""
    half = ROTARY[2] // 2
    inverse = [10000.0 ** (-2 * i / ROTARY[2]) for i in range(half)]
    rows = [[p * f for f in inverse] * 2 for p in range(ROTARY[1])]
    return torch.tensor([rows], dtype=torch.float32)


def build(torch, name: str):
    seed, kind, shape = INPUTS[name]
    if kind == "rotary":
        return rotary_angles(torch)
    g = torch.Generator().manual_seed(seed)
    if kind == "normal":
        return torch.randn(shape, generator=g)
    uniform = torch.rand(shape, generator=g)
    return uniform < 0.5 if kind == "mask" else uniform.mul_(4.0).add_(0.0625)


def as_numpy(torch, tensor):
    """The tensor's exact values as a NumPy array, and the route that read them (float32/64
    through _child.tensor_bytes; bool through the bridge, or tolist where it is missing)."""
    import numpy

    if tensor.dtype == torch.bool:
        try:
            return tensor.contiguous().numpy().copy(), "numpy"
        except Exception:  # the route taken is reported beside the file
            return numpy.array(tensor.tolist(), dtype=bool), "tolist"
    data, route = _child.tensor_bytes(tensor)
    dtype = {torch.float32: numpy.float32, torch.float64: numpy.float64}[tensor.dtype]
    return numpy.frombuffer(data, dtype=dtype).reshape(tuple(tensor.shape)), route


def digest(torch, tensor) -> str:
    return hashlib.sha256(as_numpy(torch, tensor)[0].tobytes()).hexdigest()[:16]


def save(torch, tensor, path: Path) -> str:
    """Writes the tensor as .npy with its exact values; returns the route that read them."""
    import numpy

    array, route = as_numpy(torch, tensor)
    numpy.save(path, array)
    return route



def run_case(torch, namespace: dict, case: tuple, request: dict) -> dict:
    """Runs one row once and writes its result (and, for upstream A, the float64 result of the
    same inputs widened)."""
    name, stmt, check, reads = case
    out_dir = Path(request["out_dir"])
    result = eval(stmt, namespace)
    out = {"ok": True, "file": str(out_dir / f"{name}.npy")}
    out["route"] = save(torch, result, Path(out["file"]))
    if request["reference64"] and check == "derived":
        wide = {**namespace, **{n: namespace[n].double() for n in reads
                                if namespace[n].is_floating_point()}}
        out["file64"] = str(out_dir / f"{name}.f64.npy")
        save(torch, eval(stmt, wide), Path(out["file64"]))
    return out


def rounds_mode(torch, request: dict) -> dict:
    """Builds the inputs, runs and writes every requested row once; the timers for the rounds."""
    import torch.nn.functional as F

    Path(request["out_dir"]).mkdir(parents=True, exist_ok=True)
    wanted = [case for case in CASES if case[0] in request["cases"]]
    namespace, digests = {"torch": torch, "F": F}, {}
    with step("build the inputs"):
        for name in dict.fromkeys(n for case in wanted for n in case[3]):
            namespace[name] = build(torch, name)
            digests[name] = digest(torch, namespace[name])
    results, timers = {}, {}
    for case in wanted:
        name, stmt, _, reads = case
        try:
            results[name] = run_case(torch, namespace, case, request)
            results[name]["inputs"] = {n: digests[n] for n in reads}
            timers[name] = timeit.Timer(stmt, globals=namespace)
        except Exception as exc:  # reported by name; the other rows still run
            results[name] = {"ok": False, "failure": _child.describe(exc, f"run {stmt}")}
    return {"cases": results, "timers": timers}


def proc_status_kib(field: str) -> int:
    """One VmRSS/VmHWM-style field of /proc/self/status, KiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1])
    raise KeyError(field)


def reset_high_water_mark() -> bool:
    """Lowers this process's peak resident set to its current one (Linux: writing 5 to
    clear_refs), so that a later rise is measured from the resident set, not from an earlier
    transient peak such as import's. False where the kernel refuses."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def memory_mode(torch) -> dict:
    """ru_maxrss (KiB on Linux) just before and just after one causal SDPA at MEMORY_LENGTH,
    its inputs built and one call at MEMORY_WARMUP_LENGTH run first (so that one-time set-up
    is not counted), and the high-water mark then lowered to the resident set. ru_maxrss also
    keeps the peak of the image this process was started from (its parent's, when spawned
    through vfork), which no reset lowers; so the headroom (the mark minus the resident set
    just before the call: what the call could use without raising the mark) is recorded
    beside the rise, and VmHWM (this image's own peak) as a cross-check."""
    import torch.nn.functional as F

    n, w = MEMORY_LENGTH, MEMORY_WARMUP_LENGTH
    q, k, v = (build(torch, f"{role}{n}") for role in "qkv")
    small = [build(torch, f"{role}{w}") for role in "qkv"]
    F.scaled_dot_product_attention(*small, is_causal=True)
    reset = reset_high_water_mark()
    rss_before = proc_status_kib("VmRSS")
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"maxrss_before_kib": before, "maxrss_after_kib": after, "rise_kib": after - before,
            "rss_before_kib": rss_before, "headroom_kib": before - rss_before,
            "mark_reset": reset, "vmhwm_rise_kib": proc_status_kib("VmHWM") - rss_before,
            "output_shape": list(out.shape)}


def main(request: dict) -> None:
    torch, loaded = _child.import_torch(request)
    hello = {"ok": True, "torch": loaded, "threads": torch.get_num_threads()}
    if request["mode"] == "memory":
        with step("measure the peak memory of one SDPA call"):
            hello["memory"] = memory_mode(torch)
        send(hello)
        return
    state = rounds_mode(torch, request)
    send({**hello, "cases": state["cases"]})
    loops: dict[str, int] = {}
    for command in _child.commands():
        with step(f"timed round ({command})", announce=False):
            seconds = {name: _child.per_call(timer, request, loops, name)
                       for name, timer in state["timers"].items()}
        send({"ok": True, "seconds": seconds, "loops": loops})


if __name__ == "__main__":
    main(json.loads(sys.argv[1]))
