"""Upstream's half of the backward grading: gradients of recorded forward cases, as exact bytes.

Runs under .venv-upstream only (`python draw_bwd.py DRAW_DIR OUT_DIR --keys FILE`). For each
OpInfo entry that supports autograd, each written case (extra:aten.X), and each of its float32
and float64 samples (at most --max-samples per dtype), one case of the forward draw is taken
(the entry's own call: its torch.X, method or operator spelling, else its aten spelling) and
backward.run_backward computes its gradients, drawing the cotangents; float32 samples are rerun
in float64 (inputs and cotangents widened exactly) for the reference and upstream's own error.
A call that mutates its inputs runs on clones of the leaves (backward.mutates). One pickle per
entry. With --topup, for each differentiable overload those cases miss, a float32 and a float64
case of the forward draw that reach it (draw_topup), one pickle per overload (topup:aten.X).
"""

from __future__ import annotations

import argparse
import functools
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from torchnative.harness import backward, codec  # noqa: E402
from torchnative.harness.draw import resolve, widened  # noqa: E402

BWD_VERSION = 2  # bump when the recorded format or the drawing changes
DTYPES = ("float32", "float64")
PREFERRED = ("torch", "method", "operator")


def entry_file(folder: Path, key: str) -> Path:
    return folder / (key.replace("/", "_") + ".pkl")


def pick(cases: list[dict]) -> dict | None:
    """The case of one sample whose call is the entry's own: torch.X, Tensor.X or the
    operator, else an alias, else the aten overload the entry's call alone reaches, else the
    first aten spelling; only a case upstream ran without raising."""
    ok = [c for c in cases if c["upstream"]["ok"]]

    def rank(c):
        s = c["spelling"]
        if s in PREFERRED:
            return PREFERRED.index(s)
        if s.startswith("alias:") and not s.endswith((":inplace", ":method")):
            return 3
        if s == "wrapped":  # the call inside the state it needs (wrapped.py)
            return 3
        if s == "aten":
            return 4 if c.get("same_as_entry") else 5
        return None

    ranked = [(rank(c), n, c) for n, c in enumerate(ok) if rank(c) is not None]
    return min(ranked, key=lambda x: x[:2])[2] if ranked else None


def tensor_positions(tree) -> set[int]:
    """The positions in the case's tensor list of the tensors a codec tree holds."""
    if isinstance(tree, dict) and tree.get(codec.MARK) == "tensor":
        return {tree["v"]}
    if isinstance(tree, dict):
        return {i for v in tree.values() for i in tensor_positions(v)}
    if isinstance(tree, (tuple, list)):
        return {i for v in tree for i in tensor_positions(v)}
    return set()


def frozen_positions(case: dict, names: list[str]) -> list[int]:
    """The tensors of an aten spelling's case bound to the arguments `names` (schema order for
    positional arguments, by name otherwise)."""
    if not names or case["spelling"] not in ("aten", "aten_kw"):
        return []
    schema = resolve(case["call"])._schema
    bound = dict(zip([a.name for a in schema.arguments], case["args"]))
    bound.update(case["kwargs"].items() if isinstance(case["kwargs"], dict) else ())
    return sorted({i for n in names if n in bound for i in tensor_positions(bound[n])})


def backward_case(case: dict, key: str, dtype: str, sample: int,
                  frozen_names: list[str] = ()) -> dict | None:
    """Upstream's gradients of one forward case as a backward case of entry `key` (with the
    float64 rerun of a float32 one); None where there is nothing to grade (no differentiable
    output, or no floating input). The arguments `frozen_names` of an aten spelling do not
    require grad. Raises where the harness itself cannot run the call."""
    bid = f"{case['id']}|backward"
    fn = resolve(case["call"])
    clone = backward.mutates(case)
    frozen = frozen_positions(case, list(frozen_names))
    up = backward.run_backward(fn, case["state"], case["args"], case["kwargs"], case["seed"],
                               case_id=bid, clone=clone, frozen=set(frozen))
    if up["ok"] and not up["tree"]:
        return None
    cot = up.pop("cotangents", None)
    bcase = {"id": bid, "op": key, "entry": case["op"], "dtype": dtype, "sample": sample,
             "spelling": case["spelling"], "call": case["call"], "args": case["args"],
             "kwargs": case["kwargs"], "state": case["state"], "seed": case["seed"],
             "reached": case["reached"], "random": case.get("random", False), "clone": clone,
             "frozen": frozen,
             "upstream": up, "cotangents": cot, "differentiable": up.get("differentiable")}
    if up["ok"] and dtype == "float32" and not bcase["random"]:
        wide = backward.run_backward(fn, widened(case["state"]), case["args"], case["kwargs"],
                                     case["seed"], backward.decode_cotangents(cot, widen=True),
                                     up["differentiable"], clone=clone, frozen=set(frozen))
        wide.pop("cotangents", None)
        bcase["upstream64"] = wide
    return bcase


def draw_entry(record: dict, max_samples: int) -> dict:
    out = {"key": record["key"], "cases": [], "skipped": [], "version": BWD_VERSION}
    by_sample: dict[tuple, list] = {}
    for case in record["cases"]:
        if case["dtype"] in DTYPES:
            by_sample.setdefault((case["dtype"], case["sample"]), []).append(case)
    kept = {d: 0 for d in DTYPES}
    for (dtype, sample), cases in sorted(by_sample.items(), key=lambda x: (x[0][0], x[0][1])):
        if kept[dtype] >= max_samples:
            continue
        case = pick(cases)
        if case is None:
            continue
        try:
            bcase = backward_case(case, record["key"], dtype, sample)
        except Exception as e:  # noqa: BLE001 - the harness's own failure, reported
            out["skipped"].append(f"{dtype} sample {sample}: harness raised "
                                  f"{type(e).__name__}: {e}"[:300])
            continue
        if bcase is not None:
            out["cases"].append(bcase)
            kept[dtype] += 1
    return out


@functools.lru_cache(maxsize=4)
def load_entry(draw_dir: Path, key: str) -> dict:
    """A forward entry file; the top-up lines come sorted by entry, so one load serves many."""
    return codec.load(entry_file(draw_dir, key))


TOPUP_TRIES = 8  # forward cases tried per overload and dtype before it is reported uncovered
# Upstream's refusal of an argument requiring grad that its formula does not differentiate.
NOT_WRT = re.compile(r"is not differentiable with respect to argument '(\w+)'")


def topup_rank(case: dict, overload: str) -> tuple:
    """Order of the forward cases tried for an overload: a call that reaches it alone first,
    then its own aten spelling (positional before by name), then the earliest sample."""
    s = case["spelling"]
    return (case["reached"] != [overload], s != "aten", s != "aten_kw", case["sample"])


def draw_topup(overload: str, entries: list[str], draw_dir: Path,
               frozen_names: list[str] = ()) -> dict:
    """The backward cases of one differentiable overload that no entry's own backward cases
    reach: for float32 and for float64, the first forward case (of the given entries, in
    topup_rank's order) that reaches it and of which upstream computes a gradient (a case
    whose backward raises grades no gradient); at most TOPUP_TRIES tried per dtype. Where
    upstream refuses an argument requiring grad (a composite's running_mean), the case is
    tried again with that argument as it is (up to four such arguments). What was tried and
    found nothing is kept under "tried"."""
    out = {"key": f"topup:{overload}", "overload": overload, "cases": [], "skipped": [],
           "tried": [], "version": BWD_VERSION}
    reaching = [c for e in entries for c in load_entry(draw_dir, e)["cases"]
                if overload in c["reached"] and c["dtype"] in DTYPES]
    found = [c for c in reaching if c["upstream"]["ok"]]
    if reaching and not found:  # why nothing could be tried: upstream's own forward raised
        up = reaching[0]["upstream"]
        out["skipped"].append(f"{reaching[0]['id']}: upstream's forward raised "
                              f"{up.get('exc')}: {up.get('msg', '')}"[:300])
    for dtype in DTYPES:
        candidates = sorted((c for c in found if c["dtype"] == dtype),
                            key=lambda c: topup_rank(c, overload))
        for case in candidates[:TOPUP_TRIES]:
            try:
                names = list(frozen_names)
                bcase = backward_case(case, out["key"], dtype, case["sample"], names)
                for _ in range(4):
                    # Through a composite, an argument its pieces do not differentiate.
                    refused = NOT_WRT.search((bcase or {}).get("upstream", {}).get("msg", ""))
                    if not refused or refused.group(1) in names:
                        break
                    names.append(refused.group(1))
                    bcase = backward_case(case, out["key"], dtype, case["sample"], names)
            except Exception as e:  # noqa: BLE001 - the harness's own failure, reported
                out["skipped"].append(f"{case['id']}: harness raised "
                                      f"{type(e).__name__}: {e}"[:300])
                continue
            if bcase is not None and bcase["upstream"]["ok"]:
                out["cases"].append(bcase)
                break
            out["tried"].append(case["id"] + (
                f" (upstream raised {bcase['upstream']['exc']}: {bcase['upstream']['msg']})"
                if bcase else " (no differentiable output)"))
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("draw_dir", type=Path)
    ap.add_argument("out_dir", type=Path)
    ap.add_argument("--keys", required=True, help="file with one entry key per line")
    ap.add_argument("--topup", default=None, type=Path,
                    help="differentiable.py's classes: --keys lists 'OVERLOAD ENTRY,ENTRY...' "
                    "lines, draw_topup for each")
    ap.add_argument("--max-samples", type=int, default=4)
    args = ap.parse_args(argv)
    import torch
    from torch.testing._internal.common_methods_invocations import op_db

    torch.set_num_threads(1)
    autograd = {op.name + (f".{op.variant_test_name}" if op.variant_test_name else ""):
                op.supports_autograd for op in op_db}
    args.out_dir.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    if args.topup:
        import json

        classes = json.loads(args.topup.read_text())
        lines = Path(args.keys).read_text().splitlines()
        for n, line in enumerate(lines):
            overload, entries = line.split()
            record = draw_topup(overload, entries.split(","), args.draw_dir,
                                classes.get(overload, {}).get("frozen", []))
            codec.dump(record, entry_file(args.out_dir, record["key"]))
            print(f"drew backward top-up {n + 1}/{len(lines)} {overload} "
                  f"{len(record['cases'])} cases {time.perf_counter() - t0:.1f}s", flush=True)
        return 0
    keys = Path(args.keys).read_text().split()
    for n, key in enumerate(keys):
        # A written case (extra:aten.X) is graded backward too: upstream's own run says whether
        # it differentiates (a gradient, an error ours must raise too, or nothing to grade).
        if key.startswith("extra:") or autograd.get(key):
            record = draw_entry(codec.load(entry_file(args.draw_dir, key)), args.max_samples)
        else:
            record = {"key": key, "cases": [], "skipped": [], "version": BWD_VERSION,
                      "no_autograd": True}
        codec.dump(record, entry_file(args.out_dir, key))
        print(f"drew backward {n + 1}/{len(keys)} {key} {len(record['cases'])} cases "
              f"{time.perf_counter() - t0:.1f}s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
