"""Upstream's half: draws OpInfo samples and records every spelling's outcome as exact bytes.

Runs under .venv-upstream only (`python draw.py OUT_DIR --ops ... `), one pickle of builtins per
OpInfo entry in OUT_DIR. For each entry and each dtype both upstream and our core support, the
samples are drawn under a fixed seed; upstream then runs, from the encoded bytes, every spelling it
offers (torch.X, Tensor.X, Tensor.X_, out=, the operator, the aliases, and each aten overload the
call reaches, positional and by keyword), and reruns the entry's own call in float64 with every
floating input widened. Which aten overloads a call reaches is read at the pre-dispatch level,
so composite ops (aten.linear, aten.softmax.int) count as reached before they decompose. Each
case also records the aten overloads a logging TorchDispatchMode sees while upstream runs it
(dispatch_log.py), which replay.py records under ours.
"""

from __future__ import annotations

import argparse
import contextlib
import operator
import sys
import time
import zlib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import torch  # noqa: E402
from torch._dispatch.python import enable_python_dispatcher  # noqa: E402
from torch._subclasses.schema_check_mode import SchemaCheckMode  # noqa: E402
from torch.utils._python_dispatch import TorchDispatchMode  # noqa: E402

from torchnative.harness import codec  # noqa: E402
from torchnative.harness.dispatch_log import dispatch_sequence  # noqa: E402
from torchnative.harness.wrapped import resolve  # noqa: E402,F401 - draw_bwd imports it here

DRAW_VERSION = 4  # bump when the recorded format or the drawing changes
# Samples whose tensors hold more than this are passed over (reference_inputs include tensors of
# a million elements; a few thousand elements exercise a kernel as well and keep the draw small),
# and at most CANDIDATES x max_samples samples are looked at per dtype.
MAX_SAMPLE_BYTES = 16384
CANDIDATES = 4


class ReachedOverloads(SchemaCheckMode):
    """Records the top-level aten overloads a call reaches, with their encoded arguments.

    A pre-dispatch mode sees an op before CompositeImplicitAutograd decomposes it; upstream only
    lets a few mode classes sit there, SchemaCheckMode among them, hence the base class (none of
    its checking runs: __torch_dispatch__ is ours). Nested calls are not seen: upstream pops the
    mode while the handler runs."""

    def __init__(self, encode_args: bool):
        TorchDispatchMode.__init__(self, torch._C.DispatchKey.PreDispatch)
        self.calls: list[dict] = []
        self.encode_args = encode_args

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        call = {"overload": str(func)}
        if self.encode_args:
            try:
                enc = codec.Encoder()
                call["args"], call["kwargs"] = enc.encode(tuple(args)), enc.encode(dict(kwargs))
                call["state"] = enc.state()
                schema = func._schema
                call["names"] = [a.name for a in schema.arguments]
            except codec.Unencodable as e:
                call["unencodable"] = str(e)
        self.calls.append(call)
        return func(*args, **kwargs)


@contextlib.contextmanager
def reaching(encode_args: bool):
    mode = ReachedOverloads(encode_args)
    with enable_python_dispatcher(), torch._C._EnablePreDispatch(), mode:
        yield mode


def path_of(fn) -> str | None:
    """A dotted path that names fn in any torch tree ("torch.add", "torch.Tensor.add_",
    "operator.iadd"), or None (a lambda, a wrapper of the test suite's own)."""
    if fn is None:
        return None
    name = getattr(fn, "__name__", None)
    if not name or name == "<lambda>":
        return None
    candidates = []
    objclass = getattr(fn, "__objclass__", None)
    if objclass is not None:
        candidates.append(f"torch.Tensor.{name}")
    module = getattr(fn, "__module__", None) or ""
    if module == "_operator" or getattr(operator, name, None) is fn:
        candidates.append(f"operator.{name}")
    for prefix in ("torch", "torch.nn.functional", "torch.special", "torch.linalg", "torch.fft",
                   "torch.Tensor", module, "torch._C._nn", "torch._C._special"):
        if prefix:
            candidates.append(f"{prefix}.{name}")
    for path in candidates:
        if path.startswith("torch.testing"):
            continue  # the test suite's own helpers: our tree need not import it
        try:
            if resolve(path) is fn:
                return path
        except (AttributeError, ImportError):
            continue
    return None


def spellings(op) -> list[tuple[str, str]]:
    """(spelling, path) for every replayable way upstream offers to call the entry."""
    out = [("torch", path_of(op.op)), ("method", path_of(op.method_variant)),
           ("inplace", path_of(op.inplace_variant)), ("operator", path_of(op.operator_variant)),
           ("inplace_operator", path_of(op.inplace_operator_variant))]
    for alias in op.aliases:
        out += [(f"alias:{alias.name}", path_of(alias.op)),
                (f"alias:{alias.name}:method", path_of(alias.method_variant)),
                (f"alias:{alias.name}:inplace", path_of(alias.inplace_variant))]
    seen, unique = set(), []
    for spelling, path in out:
        if path and path not in seen:
            seen.add(path)
            unique.append((spelling, path))
    return unique


def seed_of(text: str) -> int:
    return zlib.crc32(text.encode())


def run_call(fn, state, args_tree, kwargs_tree, seed):
    """Upstream's outcome of fn on freshly rebuilt inputs, under the case's seed."""
    tensors = codec.rebuild(state)
    args, kwargs = codec.decode(args_tree, tensors), codec.decode(kwargs_tree, tensors)
    torch.manual_seed(seed)
    try:
        result = fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - every exception type is a recorded outcome
        return codec.outcome(None, tensors, e)
    return codec.outcome(result, tensors)


def widened(state: dict) -> dict:
    """The same inputs with every floating tensor in float64 and every complex one in complex128
    (values exact, contiguous)."""
    tensors = codec.rebuild(state)
    enc = codec.Encoder()
    for t in tensors:
        if t.is_complex():
            t = t.to(torch.complex128).contiguous()
        elif t.is_floating_point():
            t = t.to(torch.float64).contiguous()
        enc.tensor(t)
    return enc.state()


def traced(fn, state, args_tree, kwargs_tree, seed) -> list[dict]:
    tensors = codec.rebuild(state)
    args, kwargs = codec.decode(args_tree, tensors), codec.decode(kwargs_tree, tensors)
    torch.manual_seed(seed)
    with reaching(encode_args=True) as mode:
        try:
            fn(*args, **kwargs)
        except Exception:  # noqa: BLE001 - the calls before the exception were reached
            pass
    return mode.calls


def logged(fn, state, args_tree, kwargs_tree, seed) -> list[str]:
    """The overloads a logging dispatch mode sees while fn runs on freshly rebuilt inputs."""
    tensors = codec.rebuild(state)
    args, kwargs = codec.decode(args_tree, tensors), codec.decode(kwargs_tree, tensors)
    torch.manual_seed(seed)
    return dispatch_sequence(fn, args, kwargs)


def out_tree(outcome: dict):
    """out= arguments shaped like a result: zero tensors of its dtypes and shapes."""
    tensors = codec.rebuild(outcome)

    def build(tree):
        if isinstance(tree, dict) and tree.get(codec.MARK) == "tensor":
            t = tensors[tree["v"]]
            return torch.zeros(t.shape, dtype=t.dtype)
        if isinstance(tree, dict) and tree.get(codec.MARK) == "namedtuple":
            return tuple(build(x) for x in tree["v"])
        if isinstance(tree, (tuple, list)):
            return tuple(build(x) for x in tree)
        raise codec.Unencodable("a non-tensor result has no out= form")

    return build(outcome["tree"])


def encode_sample(inp, args, kwargs):
    enc = codec.Encoder()
    a = enc.encode((inp, *args))
    k = enc.encode(dict(kwargs))
    return enc, a, k


def draw_sample(key, op, paths, dtype, i, sample, full: bool):
    """The cases of one sample: a list of case dicts, the reference record, and reached keys."""
    enc, args_tree, kwargs_tree = encode_sample(sample.input, sample.args, sample.kwargs)
    state = enc.state()
    stem = f"{key}|{dtype}|{i}"
    seed = seed_of(stem)
    reached: list[str] = []
    cases: list[dict] = []
    ref = {"dtype": dtype}
    ref["outcome"] = run_call(op.op, state, args_tree, kwargs_tree, seed)
    if full:
        if dtype in codec.FLOATING and dtype not in codec.WIDEST:
            ref["outcome64"] = run_call(op.op, widened(state), args_tree, kwargs_tree, seed)
    first_calls = traced(op.op, state, args_tree, kwargs_tree, seed)
    ref["reached"] = [c["overload"] for c in first_calls]
    todo = list(paths)
    if op.supports_out and ref["outcome"]["ok"]:
        try:
            outs = out_tree(ref["outcome"])
        except codec.Unencodable:
            outs = None
        torch_path = dict(paths).get("torch")
        if outs is not None and torch_path:
            out_enc = codec.Encoder()
            a = out_enc.encode((sample.input, *sample.args))
            k = out_enc.encode(dict(sample.kwargs, out=outs))
            todo.append(("out", torch_path, out_enc.state(), a, k))
    aten_seen = set()
    add_aten_cases(first_calls, stem, key, dtype, i, seed, ref, aten_seen, cases, full)
    for entry in todo:
        spelling, path = entry[0], entry[1]
        st, a, k = (entry[2], entry[3], entry[4]) if len(entry) > 2 else (state, args_tree,
                                                                           kwargs_tree)
        fn = resolve(path)
        calls = traced(fn, st, a, k, seed)
        case = {"id": f"{stem}|{spelling}", "op": key, "dtype": dtype, "sample": i,
                "spelling": spelling, "call": path, "args": a, "kwargs": k, "state": st,
                "seed": seed, "reached": [c["overload"] for c in calls]}
        reached += case["reached"]
        if full:
            case["upstream"] = run_call(fn, st, a, k, seed)
            case["dispatch"] = logged(fn, st, a, k, seed)
            mark_random(case, fn)
            cases.append(case)
        add_aten_cases(calls, stem, key, dtype, i, seed, ref, aten_seen, cases, full)
    return cases, ref, reached + ref["reached"]


def input_bytes(sample) -> int:
    """Bytes of every tensor in a sample's input, args and kwargs."""
    total = 0

    def visit(x):
        nonlocal total
        if isinstance(x, torch.Tensor):
            total += x.untyped_storage().nbytes()
        elif isinstance(x, (list, tuple)):
            for y in x:
                visit(y)
        elif isinstance(x, dict):
            for y in x.values():
                visit(y)

    visit((sample.input, sample.args, sample.kwargs))
    return total


def add_aten_cases(calls, stem, key, dtype, i, seed, ref, aten_seen, cases, full) -> None:
    """torch.ops.aten.X.overload cases, positional and by name, for each top-level call not
    seen yet in this sample."""
    for c in calls:
        ov = c["overload"]
        if ov in aten_seen or "state" not in c or not ov.startswith("aten."):
            continue
        aten_seen.add(ov)
        if not full:
            continue
        fn_aten = resolve("torch.ops." + ov)
        positional = {"id": f"{stem}|aten:{ov}", "op": key, "dtype": dtype, "sample": i,
                      "spelling": "aten", "call": "torch.ops." + ov, "args": c["args"],
                      "kwargs": c["kwargs"], "state": c["state"], "seed": seed,
                      "reached": [ov], "same_as_entry": ref["reached"] == [ov]}
        named = dict(positional, id=f"{stem}|aten_kw:{ov}", spelling="aten_kw", args=(),
                     kwargs={**dict(zip(c["names"], c["args"])), **c["kwargs"]})
        for case in (positional, named):
            case["upstream"] = run_call(fn_aten, case["state"], case["args"], case["kwargs"],
                                        seed)
            case["dispatch"] = logged(fn_aten, case["state"], case["args"], case["kwargs"], seed)
            mark_random(case, fn_aten)
            cases.append(case)


def mark_random(case: dict, fn) -> None:
    """A floating case whose result changes with the seed draws random numbers: a float64 rerun
    would draw other ones, so such a case is judged against upstream's result of the same call
    (report.context_for). Entries that wrap their call in the test suite's wrapper_set_seed
    re-seed inside, so this is asked of each case's own call, not of the entry's. Three other
    seeds: one can draw the same value by chance (randint_like of a 0-d tensor below 10 did, one
    time in ten, and its case was then judged against the entry's float64 rerun's other draw)."""
    if case["dtype"] not in ("float16", "bfloat16", "float32", "complex32", "complex64") or \
            not case["upstream"]["ok"]:
        return
    case["random"] = any(
        run_call(fn, case["state"], case["args"], case["kwargs"], case["seed"] + k)
        != case["upstream"] for k in (1, 2, 3))


def our_dtypes(op) -> list[str]:
    supported = op.supported_dtypes("cpu")
    return [d for d in codec.OUR_DTYPES if getattr(torch, d) in supported]


def draw_entry(op, max_samples: int, full: bool, max_dtypes: int | None = None) -> dict:
    key = op.name + (f".{op.variant_test_name}" if op.variant_test_name else "")
    paths = spellings(op)
    record = {"key": key, "name": op.name, "variant": op.variant_test_name,
              "aten_name": op.aten_name, "spellings": paths, "full": full, "cases": [],
              "refs": {}, "reached": {}, "skipped": [], "version": DRAW_VERSION,
              "values_undefined": bool(op.has_nondeterministic_output)}
    dtypes = our_dtypes(op)
    if not full:  # the reach survey: one dtype, two samples
        dtypes = ["float32"] if "float32" in dtypes else dtypes[:1]
        max_samples = 2
    elif max_dtypes is not None:
        preferred = [d for d in ("float32", "int64", "float64", "bfloat16") if d in dtypes]
        dtypes = (preferred + [d for d in dtypes if d not in preferred])[:max_dtypes]
    for dtype in dtypes:
        torch.manual_seed(seed_of(f"{key}|{dtype}"))
        try:
            samples = op.reference_inputs("cpu", getattr(torch, dtype), requires_grad=False)
            kept = 0
            for i, sample in enumerate(samples):
                if kept >= max_samples or i >= CANDIDATES * max_samples:
                    break
                try:
                    size = input_bytes(sample)
                    if size > MAX_SAMPLE_BYTES:
                        continue
                    cases, ref, reached = draw_sample(key, op, paths, dtype, i, sample, full)
                except codec.Unencodable as e:
                    record["skipped"].append(f"{dtype} sample {i}: {e}")
                    continue
                except Exception as e:  # noqa: BLE001 - the harness's own failure, reported
                    record["skipped"].append(f"{dtype} sample {i}: harness raised "
                                             f"{type(e).__name__}: {e}")
                    continue
                kept += 1
                record["cases"] += cases
                record["refs"][f"{dtype}|{i}"] = ref
                for ov in reached:
                    record["reached"][ov] = record["reached"].get(ov, 0) + 1
        except Exception as e:  # noqa: BLE001 - a sample generator that fails is reported
            record["skipped"].append(f"{dtype}: drawing samples raised {type(e).__name__}: {e}")
    if full:
        try:
            draw_errors(op, key, paths, record)
        except Exception as e:  # noqa: BLE001 - the harness's own failure, reported
            record["skipped"].append(f"error inputs: harness raised {type(e).__name__}: {e}")
    return record


def draw_errors(op, key, paths, record, max_errors: int = 8) -> None:
    """error_inputs: upstream raises; ours must raise the same type."""
    torch_path = dict(paths).get("torch")
    if not torch_path or op.error_inputs_func is None:
        return
    try:
        errors = list(op.error_inputs("cpu"))[:max_errors]
    except Exception as e:  # noqa: BLE001
        record["skipped"].append(f"error_inputs raised {type(e).__name__}: {e}")
        return
    for j, err in enumerate(errors):
        s = err.sample_input
        try:
            enc, a, k = encode_sample(s.input, s.args, s.kwargs)
        except codec.Unencodable as e:
            record["skipped"].append(f"error input {j}: {e}")
            continue
        stem = f"{key}|error|{j}"
        state = enc.state()
        calls = traced(op.op, state, a, k, seed_of(stem))
        case = {"id": f"{stem}|torch", "op": key, "dtype": "error", "sample": j,
                "spelling": "torch", "call": torch_path, "args": a, "kwargs": k,
                "state": state, "seed": seed_of(stem), "reached": [c["overload"] for c in calls]}
        case["upstream"] = run_call(resolve(torch_path), state, a, k, case["seed"])
        record["cases"].append(case)


def entry_file(out_dir: Path, key: str) -> Path:
    return out_dir / (key.replace("/", "_") + ".pkl")


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("out_dir", type=Path)
    ap.add_argument("--full", default="", help="file with one entry key per line to draw fully")
    ap.add_argument("--survey", action="store_true", help="survey every entry's reach")
    ap.add_argument("--only", default="", help="comma-separated entry keys (default all)")
    ap.add_argument("--max-samples", type=int, default=12)
    ap.add_argument("--max-dtypes", type=int, default=None)
    ap.add_argument("--extra", default="", help="file with one aten overload a line to draw as "
                    "a written case (extra_cases.py)")
    args = ap.parse_args(argv)
    from torch.testing._internal.common_methods_invocations import op_db

    args.out_dir.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(1)
    full = set(Path(args.full).read_text().split()) if args.full else set()
    only = set(args.only.split(",")) if args.only else None
    entries = []
    for op in op_db:
        key = op.name + (f".{op.variant_test_name}" if op.variant_test_name else "")
        if only is not None and key not in only:
            continue
        if key in full or args.survey:
            entries.append((key, op))
    t0 = time.perf_counter()
    for n, (key, op) in enumerate(entries):
        record = draw_entry(op, args.max_samples, key in full, args.max_dtypes)
        codec.dump(record, entry_file(args.out_dir, key))
        print(f"drew {n + 1}/{len(entries)} {key} {len(record['cases'])} cases "
              f"{time.perf_counter() - t0:.1f}s", flush=True)
    if args.extra:
        from torchnative.harness import extra_cases

        overloads = Path(args.extra).read_text().split()
        for record in extra_cases.draw_all(overloads, args.max_samples):
            codec.dump(record, entry_file(args.out_dir, record["key"]))
            print(f"drew extra {record['key']} {len(record['cases'])} cases", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
