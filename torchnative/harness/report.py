"""Judges every replayed case and writes docs/AGREEMENT.md (generated; never edit it by hand).

`evaluate` turns the drawn entries and our results into a summary (plain data, also written as
JSON): a verdict per case, a row per aten overload with its counts per grade, the derived
allowance per (entry, dtype), the implemented ops no case reaches, the ops OpInfo reaches that
we do not implement, and the cases whose overload sequence under a logging TorchDispatchMode is
not upstream's; `evaluate_backward` does the same for the backward cases (gradients, judged by
judge.judge_backward). `write_report` renders it. NumPy only, through judge.py.
"""

from __future__ import annotations

import datetime
import json
import platform
import re
import subprocess
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

from torchnative.harness import codec, judge

GRADE_RANK = {g: i for i, g in enumerate(judge.GRADES)}


def entry_path(folder: Path, key: str) -> Path:
    return folder / (key.replace("/", "_") + ".pkl")


def allowances(record: dict) -> dict[str, dict]:
    """dtype -> {"samples", "p90", "floor", "allowance", "own": per-sample errors by index}."""
    own = defaultdict(dict)
    for ref_key, ref in record["refs"].items():
        dtype, sample = ref_key.split("|")
        if dtype in judge.FLOATING and dtype != "float64":
            e = judge.own_error(ref)
            if e is not None:
                own[dtype][int(sample)] = e
    out = {}
    for dtype in {r.split("|")[0] for r in record["refs"]} | set(own):
        if dtype not in judge.FLOATING:
            continue
        errs = [e for e in own[dtype].values() if np.isfinite(e)]
        out[dtype] = {"samples": len(errs), "floor": judge.floor_of(dtype),
                      "p90": float(np.percentile(errs, 90)) if errs else None,
                      "allowance": judge.allowance(errs, dtype), "own": own[dtype]}
    return out


def context_for(case: dict, ours: dict, record: dict, allow: dict) -> judge.Context:
    dtype = case["dtype"]
    ref, own = None, 0.0
    ref_rec = record["refs"].get(f"{dtype}|{case['sample']}")
    applies = ((case["spelling"] not in ("aten", "aten_kw") or case.get("same_as_entry"))
               and not case.get("random"))
    if ref_rec is not None and applies and "outcome64" in ref_rec:
        ref = ref_rec["outcome64"]
        own = allow.get(dtype, {}).get("own", {}).get(case["sample"], 0.0)
    if dtype in allow:
        bound = allow[dtype]["allowance"]
    else:  # integer inputs with floating results, or float64: no wider rerun
        bound = allow.get("float32", {}).get("allowance", judge.floor_of("float32"))
        if dtype == "float64":
            bound = judge.floor_of("float64")
    return judge.Context(up=case["upstream"], ours=ours, ref=ref, allowance=bound, own=own,
                         values_defined=not record.get("values_undefined"))


NAMED = re.compile(r"\baten(?:\.|::)(\w+)(?:\.(\w+))?")


def attributed(case: dict, verdict: judge.Verdict) -> list[str]:
    """The overload rows a verdict counts in: every overload the case reached, except that a
    failure of a case that reached several, whose message names an aten overload, counts only
    for the overloads it names (a refusal of aten.conj.default inside a composite says nothing
    of aten.mul.Tensor, which the same case also reached)."""
    reached = list(dict.fromkeys(case["reached"]))
    if verdict.grade == "agrees" or len(reached) < 2:
        return reached
    named = [f"aten.{m.group(1)}.{m.group(2) or 'default'}"
             for m in NAMED.finditer(verdict.reason)]
    return list(dict.fromkeys(named)) or reached


MAX_LISTED = 40  # dispatch-sequence mismatches listed in the report (all are counted)


def compare_dispatch(case: dict, ours: dict, our_ops) -> dict | None:
    """How the case's overload sequence under ours compares with upstream's: None when it is
    not compared (either side's sequence missing, or either side raised: the outcome comparators
    grade that), else {"same": bool} and, for a mismatch, where the sequences part."""
    up_ops = case.get("dispatch")
    if up_ops is None or our_ops is None:
        return None
    if not case["upstream"].get("ok") or not ours.get("ok"):
        return None
    if up_ops == our_ops:
        return {"same": True}
    at = next((i for i, (a, b) in enumerate(zip(up_ops, our_ops)) if a != b),
              min(len(up_ops), len(our_ops)))
    return {"same": False, "case": case["id"], "at": at, "upstream_len": len(up_ops),
            "ours_len": len(our_ops), "upstream": up_ops[at:at + 3], "ours": our_ops[at:at + 3]}


def evaluate(folder: Path, run_dir: Path, keys: list[str], implemented: list[str],
             reach: dict, subset: bool = False, inject: str = "") -> dict:
    rows = defaultdict(lambda: {"grades": Counter(), "worst": None, "entries": set()})
    # complex samples are graded apart (their own table), so the overloads' grades on the real
    # dtypes stay comparable from run to run while complex coverage grows
    crows = defaultdict(lambda: {"grades": Counter(), "worst": None, "entries": set()})
    complex_cases = Counter()
    case_grades, exercised, objected = Counter(), Counter(), Counter()
    tolerances, entries, skipped = [], [], {}
    meta_counts, meta_mismatches = Counter(), []
    dispatch_counts, dispatch_mismatches, dispatch_firsts = Counter(), [], Counter()
    covered = set()
    for key in keys:
        record = codec.load(entry_path(folder, key))
        raw = codec.read_records(entry_path(run_dir, key).with_suffix(".results"))
        results = {r["index"]: r["ours"] for r in raw}
        sequences = {r["index"]: r.get("dispatch") for r in raw}
        for r in raw:
            m = r.get("meta")
            verdict = "no tensor argument" if m is None else m["verdict"]
            meta_counts[verdict] += 1
            if verdict in ("mismatch", "harness"):
                meta_mismatches.append({"case": r["id"], **m})
        allow = allowances(record)
        for dtype, a in sorted(allow.items()):
            tolerances.append({"entry": key, "dtype": dtype, "samples": a["samples"],
                               "p90": a["p90"], "floor": a["floor"],
                               "allowance": a["allowance"]})
        if record["skipped"]:
            skipped[key] = record["skipped"]
        grades = Counter()
        for i, case in enumerate(record["cases"]):
            ours = results.get(i, {"ok": False, "crash": "no result was recorded",
                                   "exc": "crash", "msg": ""})
            verdict = judge.judge(context_for(case, ours, record, allow))
            seq = compare_dispatch(case, ours, sequences.get(i))
            if seq is None:
                dispatch_counts["not compared"] += 1
            elif seq["same"]:
                dispatch_counts["same"] += 1
            else:
                dispatch_counts["mismatch"] += 1
                dispatch_mismatches.append(seq)
                first = (seq["upstream"] or ["(end)"])[0], (seq["ours"] or ["(end)"])[0]
                dispatch_firsts[first] += 1
            case_grades[verdict.grade] += 1
            grades[verdict.grade] += 1
            exercised.update(verdict.exercised)
            if verdict.comparator:
                objected[verdict.comparator] += 1
            covered.update(case["reached"])
            if case["dtype"] in codec.COMPLEX:
                complex_cases[verdict.grade] += 1
            for ov in attributed(case, verdict):
                row = (crows if case["dtype"] in codec.COMPLEX else rows)[ov]
                row["grades"][verdict.grade] += 1
                row["entries"].add(key)
                rank = GRADE_RANK[verdict.grade]
                if row["worst"] is None or rank < row["worst"]["rank"]:
                    row["worst"] = {"rank": rank, "grade": verdict.grade, "case": case["id"],
                                    "reason": verdict.reason, "error": verdict.error,
                                    "allowance": verdict.allowance}
        entries.append({"entry": key, "cases": sum(grades.values()), "grades": dict(grades)})
    impl = set(implemented)

    def graded(table):
        out = []
        for ov, row in table.items():
            worst = row["worst"]
            out.append({"overload": ov, "implemented": ov in impl,
                        "grade": worst["grade"] if worst else "agrees",
                        "grades": dict(row["grades"]), "entries": sorted(row["entries"]),
                        "example": None if worst["grade"] == "agrees" else worst})
        out.sort(key=lambda r: (not r["implemented"], GRADE_RANK[r["grade"]], r["overload"]))
        return out

    overloads, complex_overloads = graded(rows), graded(crows)
    overload_grades = Counter(r["grade"] for r in overloads if r["implemented"])
    complex_grades = Counter(r["grade"] for r in complex_overloads if r["implemented"])
    users = Counter()
    for r in reach.values():
        for ov in r:
            users[ov] += 1
    next_work = [{"overload": ov, "entries": n} for ov, n in
                 sorted(users.items(), key=lambda x: (-x[1], x[0]))
                 if ov not in impl and ov.startswith("aten.")]
    return {"cases": sum(case_grades.values()),
            "case_grades": {g: case_grades.get(g, 0) for g in reversed(judge.GRADES)},
            "overload_grades": {g: overload_grades.get(g, 0) for g in reversed(judge.GRADES)},
            "complex": {"cases": {g: complex_cases.get(g, 0) for g in reversed(judge.GRADES)},
                        "overload_grades": {g: complex_grades.get(g, 0)
                                            for g in reversed(judge.GRADES)},
                        "overloads": complex_overloads},
            "implemented": len(impl),
            "uncovered": None if subset else sorted(impl - covered),
            "overloads": overloads, "entries": entries, "tolerances": tolerances,
            "exercised": dict(exercised), "objected": dict(objected), "skipped": skipped,
            "next_work": next_work, "subset": subset, "inject": inject,
            "meta": {"counts": dict(meta_counts), "mismatches": meta_mismatches},
            "dispatch": {"counts": dict(dispatch_counts), "mismatches": dispatch_mismatches,
                         "first_differences": [
                             {"upstream": u, "ours": o, "cases": n}
                             for (u, o), n in dispatch_firsts.most_common()]},
            "provenance": provenance()}


def backward_context(case: dict, ours: dict, allow: dict) -> judge.Context:
    """A backward case's context: float32 gradients against upstream's float64 rerun within the
    entry's derived float32 allowance (or upstream's own error on this sample), float64 ones
    against upstream's within the float64 floor."""
    dtype = case["dtype"]
    ref = case.get("upstream64")
    own = 0.0
    if ref is not None:
        own = judge.own_error({"outcome": case["upstream"], "outcome64": ref}) or 0.0
    bound = allow.get(dtype, judge.floor_of(dtype))
    return judge.Context(up=case["upstream"], ours=ours, ref=ref, allowance=bound, own=own)


def backward_allowances(record: dict) -> dict[str, float]:
    """dtype -> the derived allowance of the entry's gradients: for float32, the 90th
    percentile of upstream's own float32-vs-float64 gradient errors, never below the floor; for
    float64, which has no wider rerun, the same number of ulps in float64 (a gradient upstream
    computes to within k float32 ulps is taken as computed to within k float64 ulps), never
    below the float64 floor."""
    own = [judge.own_error({"outcome": c["upstream"], "outcome64": c["upstream64"]})
           for c in record["cases"] if c.get("upstream64")]
    f32 = judge.allowance([e for e in own if e is not None], "float32")
    ulps = f32 / judge.EPS["float32"]
    return {"float32": f32, "float64": max(ulps * judge.EPS["float64"], judge.floor_of("float64"))}


def evaluate_backward(folder: Path, run_dir: Path, keys: list[str], implemented: list[str],
                      classes: dict[str, dict] | None = None, subset: bool = False) -> dict:
    """Backward grades: a verdict per case, and per aten overload the counts per grade and
    its worst case (attributed as forward's are); and the coverage of the implemented
    overloads upstream's autograd differentiates (`classes`: differentiable.py's)."""
    rows = defaultdict(lambda: {"grades": Counter(), "worst": None})
    case_grades, objected, entries = Counter(), Counter(), 0
    records = {key: codec.load(entry_path(folder, key)) for key in keys}
    allows = {key: backward_allowances(r) for key, r in records.items()
              if not key.startswith("topup:")}
    with_gradient = set()  # overloads reached by a case of which upstream computed gradients
    for key, record in records.items():
        if record.get("no_autograd"):
            continue
        entries += 1
        raw = codec.read_records(entry_path(run_dir, key).with_suffix(".results"))
        results = {r["index"]: r["ours"] for r in raw}
        for i, case in enumerate(record["cases"]):
            # A top-up case takes the allowance of the entry its forward case came from.
            allow = allows.get(case.get("entry", key)) or backward_allowances(record)
            ours = results.get(i, {"ok": False, "crash": "no result was recorded",
                                   "exc": "crash", "msg": ""})
            verdict = judge.judge_backward(backward_context(case, ours, allow))
            case_grades[verdict.grade] += 1
            if verdict.comparator:
                objected[verdict.comparator] += 1
            if case["upstream"]["ok"]:
                with_gradient.update(case["reached"])
            if case["dtype"] in codec.COMPLEX:
                complex_cases[verdict.grade] += 1
            for ov in attributed(case, verdict):
                row = (crows if case["dtype"] in codec.COMPLEX else rows)[ov]
                row["grades"][verdict.grade] += 1
                rank = GRADE_RANK[verdict.grade]
                if row["worst"] is None or rank < row["worst"]["rank"]:
                    row["worst"] = {"rank": rank, "grade": verdict.grade, "case": case["id"],
                                    "reason": verdict.reason, "error": verdict.error,
                                    "allowance": verdict.allowance}
    impl = set(implemented)
    overloads = {ov: {"grade": row["worst"]["grade"], "grades": dict(row["grades"]),
                      "implemented": ov in impl,
                      "example": None if row["worst"]["grade"] == "agrees" else row["worst"]}
                 for ov, row in rows.items()}
    grades = Counter(r["grade"] for r in overloads.values() if r["implemented"])
    order = [g for g in reversed(judge.GRADES) if g != "reaches"]
    out = {"entries": entries, "cases": sum(case_grades.values()),
           "case_grades": {g: case_grades.get(g, 0) for g in order},
           "overload_grades": {g: grades.get(g, 0) for g in order},
           "objected": dict(objected), "overloads": overloads}
    if classes is not None:
        out["coverage"] = backward_coverage(implemented, classes, overloads, with_gradient,
                                            records, order, subset)
    return out


def observed_class(cls: dict, top: dict | None) -> tuple[str, str] | None:
    """Where upstream's own runs overrule torchgen's class of a differentiable overload that no
    case graded: a CompositeImplicitAutograd overload (its class a guess from its Tensor
    output) whose every tried case had no differentiable output is non-differentiable; one whose
    every tried case upstream's backward refused as "not implemented" has no upstream formula."""
    tried = (top or {}).get("tried", [])
    if not tried or (top or {}).get("skipped"):
        return None
    if cls["formula"] is None and all(t.endswith("(no differentiable output)") for t in tried):
        return ("non_differentiable", "CompositeImplicitAutograd, and no differentiable output "
                "upstream in the cases tried (observed)")
    if all("is not implemented" in t for t in tried):
        return ("no_formula", "upstream's backward raises 'not implemented' in every case tried "
                "(observed)")
    return None


def backward_coverage(implemented: list[str], classes: dict, overloads: dict,
                      with_gradient: set, records: dict, order: list[str],
                      subset: bool) -> dict:
    """The implemented aten overloads by their class under upstream's autograd; the
    differentiable ones by their worst backward grade over cases of which upstream computed a
    gradient, and those without such a case, each with why (AGREEMENT_RULES.md, "Backward
    coverage")."""
    by_class = defaultdict(list)
    for ov in sorted(implemented):
        if ov.startswith("aten."):
            by_class[classes.get(ov, {}).get("class", "unknown")].append(ov)
    graded, uncovered, observed = {}, {}, {}
    for ov in by_class["differentiable"]:
        if ov in with_gradient and ov in overloads:
            graded[ov] = overloads[ov]["grade"]
            continue
        top = records.get(f"topup:{ov}")
        if subset and top is None and ov not in with_gradient:
            continue  # no entry of the subset reaches it: outside the subset's count
        seen = observed_class(classes[ov], top)
        if seen is not None:
            observed[ov] = seen
            continue
        if ov in with_gradient:
            why = "its backward cases failed in another overload they name"
        elif top is None:
            why = "no float32 or float64 forward case reaches it"
        elif top["skipped"] and not top["tried"]:
            why = "; ".join(top["skipped"][:2])
        elif top["tried"] or top["skipped"]:
            tried = top["tried"] + top["skipped"]
            why = (f"{len(tried)} forward case(s) tried, none with a gradient upstream: "
                   + "; ".join(tried[:2]))
        else:
            why = "no forward case reaches it that upstream runs without raising"
        uncovered[ov] = why
    for ov, (cls, why) in observed.items():
        by_class["differentiable"].remove(ov)
        by_class[cls].append(ov)
        classes = {**classes, ov: {**classes[ov], "class": cls, "why": why}}
    counts = Counter(graded.values())
    refusing = {ov: overloads[ov]["example"]["reason"] for ov, g in graded.items()
                if g == "refuses"}
    n = len(graded) + len(uncovered) if subset else len(by_class["differentiable"])
    return {"differentiable": n, "graded": len(graded),
            "grades": {g: counts.get(g, 0) for g in order}, "uncovered": uncovered,
            "refusing": refusing, "subset": subset,
            "classes": {c: len(v) for c, v in sorted(by_class.items())},
            "not_differentiable": {ov: classes[ov]["why"] for c in ("non_differentiable",
                                                                     "no_formula")
                                   for ov in by_class[c]},
            "no_formula": by_class["no_formula"], "unknown": by_class["unknown"]}


def provenance() -> dict:
    root = Path(__file__).resolve().parents[2]

    def git(*args):
        try:
            return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True,
                                  check=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            return "unknown"

    dirty = git("status", "--porcelain", "--untracked-files=no")
    return {"commit": git("rev-parse", "--short", "HEAD") + (" + uncommitted changes"
                                                              if dirty else ""),
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "machine": f"{platform.machine()}, {_cpu_count()} cores"}


def _cpu_count() -> int:
    import os

    return len(os.sched_getaffinity(0))


def _fmt(x) -> str:
    return "—" if x is None else f"{x:.3g}"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")[:220]


BWD_ORDER = ("agrees", "builds", "refuses", "crashes")


def _backward_cells(row: dict | None) -> str:
    if row is None:
        return "— | —"
    return row["grade"] + " | " + "/".join(str(row["grades"].get(g, 0)) for g in BWD_ORDER)


def backward_summary(b: dict | None) -> list[str]:
    if b is None:
        return ["Backward: not graded (--bwd-samples 0).", ""]
    cg = b["case_grades"]
    cases = (f"**Backward cases ({b['cases']}, {b['entries']} entries and top-ups):** "
             + ", ".join(f"{g} {cg[g]}" for g in cg) + ".")
    cov = b.get("coverage")
    if cov is None:
        og = b["overload_grades"]
        return [f"**Backward: implemented overloads reached by a backward case "
                f"({sum(og.values())}) by their worst case:** "
                + ", ".join(f"{g} {og[g]}" for g in og) + ". " + cases, ""]
    n, gr = cov["differentiable"], cov["grades"]
    share = f" ({100 * gr.get('agrees', 0) / n:.1f} % of {n} agree)" if n else ""
    cls = cov["classes"]
    return [f"**Backward: implemented differentiable overloads ({n})** (upstream's autograd "
            "differentiates them; [AGREEMENT_RULES.md](AGREEMENT_RULES.md), Backward coverage)"
            f"**, graded ({cov['graded']}) by their worst case:** "
            + ", ".join(f"{g} {gr[g]}" for g in gr) + share
            + f"; **without a backward case: {len(cov['uncovered'])}**. Implemented overloads "
            f"upstream does not differentiate: {cls.get('non_differentiable', 0)} "
            f"non-differentiable, {cls.get('no_formula', 0)} with no upstream formula "
            f"(listed under *Backward coverage*); out= overloads: {cls.get('out', 0)}. "
            + cases, ""]


def backward_coverage_section(cov: dict | None) -> list[str]:
    """The lists behind the backward headline: uncovered, refusing, not differentiable."""
    if cov is None:
        return []
    out = ["", "## Backward coverage", "",
           f"Implemented differentiable overloads without a backward case "
           f"({len(cov['uncovered'])}; goal: none):", ""]
    out += [f"- `{ov}`: " + _cell(why) for ov, why in sorted(cov["uncovered"].items())]
    out += ["", f"Implemented differentiable overloads whose backward refuses "
            f"({len(cov['refusing'])}), with the refusal:", ""]
    out += [f"- `{ov}`: " + _cell(why) for ov, why in sorted(cov["refusing"].items())]
    groups = defaultdict(list)
    for ov, why in cov["not_differentiable"].items():
        groups[why].append(ov)
    out += ["", f"Implemented overloads upstream's autograd does not differentiate "
            f"({len(cov['not_differentiable'])}), not graded backward, by why:", ""]
    for why, ovs in sorted(groups.items()):
        out.append(f"- {why} ({len(ovs)}): " + ", ".join(f"`{o}`" for o in sorted(ovs)))
    if cov["unknown"]:
        out += ["", "Implemented overloads native_functions.yaml does not name: "
                + ", ".join(f"`{o}`" for o in cov["unknown"])]
    return out


def backward_section(b: dict | None, listed: set) -> list[str]:
    """The backward rows that do not agree, worst first, with their worst case; and the
    overloads only a backward case names (a refusal inside a composite)."""
    if b is None:
        return []
    rows = sorted(b["overloads"].items(), key=lambda x: (not x[1]["implemented"],
                                                         GRADE_RANK[x[1]["grade"]], x[0]))
    out = ["", "## Backward", "",
           "Gradients of up to `bwd_samples` float32 and float64 samples per OpInfo entry that "
           "supports autograd (the entry's own call; every floating input requires grad; one "
           "seeded cotangent per differentiable output), against upstream's with the forward "
           "rule's derived allowance (float32 against upstream's float64 gradients). *builds*: "
           "a gradient computed and wrong, or missing where upstream's exists; *refuses*: ours "
           "raises NotImplementedError (a derivative we lack). Overloads whose backward does "
           "not agree, worst first:", "",
           "| overload | ours | backward | a/b/r/c | worst case |", "|---|---|---|---|---|"]
    for ov, r in rows:
        if r["grade"] == "agrees" and ov in listed:
            continue
        ex = r["example"]
        why = "" if not ex else _cell(f"`{ex['case']}`: {ex['reason']}")
        out.append(f"| `{ov}` | {'yes' if r['implemented'] else 'no'} | "
                   f"{_backward_cells(r)} | {why} |")
    return out


def complex_section(c: dict | None) -> list[str]:
    """The complex64/complex128 samples' grades, apart from the table above."""
    if not c:
        return []
    og, cg = c["overload_grades"], c["cases"]
    out = ["", "## Complex samples", "",
           "The cases drawn with complex64 and complex128 samples (OpInfo entries whose "
           "upstream runs them in complex dtypes), graded by the same rule (complex64 against "
           "upstream's complex128 rerun) but apart: they are not in the table above, so its "
           "grades stay comparable while complex coverage grows. "
           f"**Implemented overloads by their worst complex case:** "
           + ", ".join(f"{g} {og[g]}" for g in og)
           + ". **Cases:** " + ", ".join(f"{g} {cg[g]}" for g in cg) + ".", "",
           "Implemented overloads whose worst complex case does not agree:", "",
           "| overload | grade | agrees | reaches | builds | refuses | crashes | worst case |",
           "|---|---|---|---|---|---|---|---|"]
    for r in c["overloads"]:
        if not r["implemented"] or r["grade"] == "agrees":
            continue
        g, ex = r["grades"], r["example"]
        why = "" if not ex else _cell(f"`{ex['case']}`: {ex['reason']}")
        out.append(f"| `{r['overload']}` | {r['grade']} | "
                   + " | ".join(str(g.get(k, 0)) for k in reversed(judge.GRADES))
                   + f" | {why} |")
    return out


def write_report(s: dict, path: Path) -> None:
    p = s["provenance"]
    og, cg = s["overload_grades"], s["case_grades"]
    uncovered = s["uncovered"]
    if uncovered is None:
        coverage = "Coverage of the implemented overloads: not checked (a subset was run)."
    else:
        coverage = (f"Implemented overloads that no case reaches: {len(uncovered)}"
                    + (" (" + ", ".join(f"`{o}`" for o in uncovered) + ")" if uncovered
                       else "") + ".")
    lines = [
        "# Agreement with upstream torch 2.13.0, every operator",
        "",
        f"Generated by `make agree` (`python -m torchnative.harness`) on {p['date']} at commit "
        f"{p['commit']} on {p['machine']}, in {s['seconds']} s; never edit by hand. The rule "
        "(grades, derived tolerances, comparators) is [AGREEMENT_RULES.md](AGREEMENT_RULES.md).",
        "",
        f"**Implemented overloads ({s['implemented']}) by their worst case:** "
        + ", ".join(f"{g} {og[g]}" for g in og)
        + f". **Cases ({s['cases']}):** " + ", ".join(f"{g} {cg[g]}" for g in cg) + ".",
        "",
        coverage,
        "",
        *backward_summary(s.get("backward")),
        f"Settings: {s['settings']}.",
        "",
        "## Per overload",
        "",
        "Worst grade over every case that reaches the overload (any spelling), the counts per "
        "grade, and the worst case with why. Implemented overloads first. The backward columns: "
        "the worst grade of the overload's backward cases and their counts (agrees/builds/"
        "refuses/crashes); — where no backward case reaches it. The backward worst cases are "
        "listed under *Backward* below.",
        "",
        "| overload | ours | grade | agrees | reaches | builds | refuses | crashes | worst case "
        "| backward | a/b/r/c |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    bwd = (s.get("backward") or {}).get("overloads", {})
    for r in s["overloads"]:
        g = r["grades"]
        ex = r["example"]
        why = "" if not ex else _cell(f"`{ex['case']}`: {ex['reason']}")
        lines.append(f"| `{r['overload']}` | {'yes' if r['implemented'] else 'no'} | "
                     f"{r['grade']} | " + " | ".join(str(g.get(k, 0)) for k in
                                                    reversed(judge.GRADES)) + f" | {why} | "
                     + _backward_cells(bwd.get(r["overload"])) + " |")
    lines += complex_section(s.get("complex"))
    lines += backward_section(s.get("backward"), {r["overload"] for r in s["overloads"]})
    lines += backward_coverage_section((s.get("backward") or {}).get("coverage"))
    mc = s["meta"]["counts"]
    lines += ["", "## Meta against CPU", "",
              "Every case run again with its tensor arguments on meta, against our CPU run of it: "
              "where CPU returns, meta must return the same shapes, dtypes and strides; where CPU "
              "raises, meta must raise the same type. A CPU result that needs the data (a Python "
              "number) is data-dependent and not compared, as upstream's meta kernels refuse it.",
              "", f"**Mismatches: {mc.get('mismatch', 0) + mc.get('harness', 0)}** "
              f"(same {mc.get('same', 0)}, data-dependent {mc.get('data-dependent', 0)}, "
              f"no tensor argument {mc.get('no tensor argument', 0)}, inputs not built "
              f"{mc.get('not built', 0)}).", ""]
    if s["meta"]["mismatches"]:
        lines += ["| case | CPU | meta |", "|---|---|---|"]
        for m in s["meta"]["mismatches"]:
            lines.append(f"| `{m['case']}` | {_cell(str(m.get('cpu', m.get('error'))))} | "
                         f"{_cell(str(m.get('meta', '')))} |")
    dc = s["dispatch"]["counts"]
    lines += ["", "## Dispatch sequence", "",
              "Every case with upstream's overload sequence (the aten overloads a logging "
              "TorchDispatchMode sees while the call runs, drawn in upstream's process) run again "
              "under ours in the same mode: the sequences must be identical, names and order. "
              "Compared where both sides returned (an exception is the outcome comparators' "
              "business).", "",
              f"**Mismatches: {dc.get('mismatch', 0)}** (same {dc.get('same', 0)}, not compared "
              f"{dc.get('not compared', 0)}).", ""]
    firsts = s["dispatch"]["first_differences"]
    if firsts:
        lines += ["Where the sequences first part, most frequent first:", "",
                  "| upstream | ours | cases |", "|---|---|---|"]
        for f in firsts[:20]:
            lines.append(f"| `{f['upstream']}` | `{f['ours']}` | {f['cases']} |")
        lines += ["", f"The first {MAX_LISTED} mismatching cases:", "",
                  "| case | at | upstream (ops) | ours (ops) |", "|---|---|---|---|"]
        for m in s["dispatch"]["mismatches"][:MAX_LISTED]:
            lines.append(f"| `{_cell(m['case'])}` | {m['at']} | "
                         f"{_cell(', '.join(m['upstream']))} ({m['upstream_len']}) | "
                         f"{_cell(', '.join(m['ours']))} ({m['ours_len']}) |")
    lines += ["", "## Derived tolerances", "",
              "Per OpInfo entry and floating dtype: samples with a float64 rerun, the 90th "
              "percentile of upstream's own scaled error, the floor (4 ulp), and the allowance "
              "(the larger).", "",
              "| entry | dtype | samples | p90 own error | floor | allowance |",
              "|---|---|---|---|---|---|"]
    for t in s["tolerances"]:
        lines.append(f"| `{t['entry']}` | {t['dtype']} | {t['samples']} | {_fmt(t['p90'])} | "
                     f"{_fmt(t['floor'])} | {_fmt(t['allowance'])} |")
    lines += ["", "## Next work: reached by OpInfo, not implemented", "",
              "Aten overloads that OpInfo samples reach and our dispatch table lacks, most used "
              "first (used = number of OpInfo entries whose samples reach it).", "",
              "| overload | entries |", "|---|---|"]
    for n in s["next_work"]:
        lines.append(f"| `{n['overload']}` | {n['entries']} |")
    if s["skipped"]:
        lines += ["", "## Samples the harness could not carry", ""]
        for key, why in sorted(s["skipped"].items()):
            lines.append(f"- `{key}`: " + _cell("; ".join(why[:3])))
    path.write_text("\n".join(lines) + "\n")
    compact = {k: s[k] for k in ("cases", "case_grades", "overload_grades", "implemented",
                                 "uncovered", "seconds", "settings", "provenance")}
    if s.get("backward"):
        compact["backward"] = {k: s["backward"][k] for k in ("entries", "cases", "case_grades",
                                                              "overload_grades")}
        if "coverage" in s["backward"]:
            compact["backward"]["coverage"] = {
                k: v for k, v in s["backward"]["coverage"].items() if k != "not_differentiable"}
    if s.get("complex"):
        compact["complex"] = {k: s["complex"][k] for k in ("cases", "overload_grades")}
    compact["meta"] = {"counts": s["meta"]["counts"],
                       "mismatches": len(s["meta"]["mismatches"])}
    compact["dispatch"] = {"counts": s["dispatch"]["counts"],
                           "first_differences": s["dispatch"]["first_differences"][:20]}
    compact["next_work"] = s["next_work"][:20]
    path.with_suffix(".json").write_text(json.dumps(compact, indent=1) + "\n")
