"""Rewrites the `## Status` section of README.md from measurement; nothing in it is typed by hand.

Run from anywhere: `.venv/bin/python tools/status.py [--tests]`. Probes, each in its own process:
our _C file (builds), `import torch` and `import transformers` under ours, all-MiniLM-L6-v2
embeddings under ours against upstream, optionally the test suite (`--tests`: minutes);
and it summarises docs/BENCH_*.json as the benchmarks last wrote them. Every line carries its
grade (builds, reaches, agrees) or says "does not run". Only the text between `## Status` and the
next `## ` heading (or the end) is replaced; the date and the commit measured are stamped on it.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from torchnative.agree import within_own_error  # noqa: E402
from torchnative.children import Child, format_failure  # noqa: E402
from torchnative.demo import SENTENCES  # noqa: E402
from torchnative.embed import run_embed  # noqa: E402
from torchnative.envs import OURS, ROOT, UPSTREAM  # noqa: E402
from torchnative.provenance import file_digest, git_commit, now  # noqa: E402

README = ROOT / "README.md"
PROBE = ROOT / "torchnative" / "_import_probe.py"
BENCHES = (("dispatch per-call benchmark", "docs/BENCH_DISPATCH"),
           ("all-MiniLM-L6-v2 embedding benchmark", "docs/BENCH_MINILM"),
           ("training-step benchmark (MLP, conv net, GPT-2; 1 and 2 threads)", "docs/BENCH_TRAIN"),
           ("optimizer-step benchmark", "docs/BENCH_OPTIM"),
           ("hot ops at model shapes (elementwise, norms, softmax, SDPA, decode-sized sum and "
            "cat; 1 and 2 threads)", "docs/BENCH_OPS"),
           ("whole models: GPT-2 small and a SmolLM2-135M-shaped Llama (prefill, generate), "
            "all-MiniLM-L6-v2 at batch 1, 8, 32; 1 and 2 threads", "docs/BENCH_MODELS"))


def bullet(subject: str, grade: str, detail: str) -> str:
    return f"- **{subject}** — {grade}: {detail}"


def probe_import(module: str, log_dir: Path, expect_c: str | None = None) -> dict:
    with Child(OURS, PROBE, [module] + ([expect_c] if expect_c else []),
               log_dir / f"import-{module}.log", echo=False) as child:
        return child.receive(timeout=300)


def c_line() -> str:
    subject = "our `_C`"
    try:
        c_file = OURS.expected_c()
    except FileNotFoundError as exc:
        return bullet(subject, "does not run", str(exc))
    stale = OURS.stale_sources()
    warning = (f"; warning: {len(stale)} source file(s) are newer than it (e.g. "
               f"`{stale[0].relative_to(ROOT)}`), so the lines below measure an older build"
               if stale else "")
    size = c_file.stat().st_size / 2**20
    return bullet(subject, "builds", f"`{c_file.relative_to(ROOT)}`, {size:.1f} MiB, "
                  f"sha256 {file_digest(c_file)}{warning}")


def import_lines(log_dir: Path) -> list[str]:
    lines = []
    for module in ("torch", "transformers"):
        subject = f"`import {module}` (ours)"
        try:
            expect_c = str(OURS.expected_c()) if module == "torch" else None
        except FileNotFoundError as exc:
            lines.append(bullet(subject, "does not run", str(exc)))
            continue
        message = probe_import(module, log_dir, expect_c)
        if not message.get("ok"):
            lines.append(bullet(subject, "does not run", format_failure(message["failure"])))
            continue
        note = "" if module == "torch" else (
            "; it imports torch" if message["imported_torch"] else "; torch not imported yet "
            "(transformers imports it lazily)")
        lines.append(bullet(subject, "reaches", f"completes in {message['seconds']:.1f} s{note}"))
    return lines


def minilm_line(work: Path) -> str:
    subject = "all-MiniLM-L6-v2 embeddings, ours against upstream (tests/test_minilm.py)"
    ours = run_embed(OURS, SENTENCES, ("float32",), work / "ours", echo=False)
    if not ours.ok:
        return bullet(subject, "does not run", ours.describe_failure())
    upstream = run_embed(UPSTREAM, SENTENCES, ("float32", "float64"), work / "upstream",
                         echo=False)
    if not upstream.ok:
        return bullet(subject, "does not run",
                      f"no reference: upstream {upstream.describe_failure()}")
    verdict = within_own_error(ours.embeddings["float32"], upstream.embeddings["float32"],
                               upstream.embeddings["float64"])
    if verdict.ok:
        return bullet(subject, "agrees", str(verdict))
    mine, theirs = ours.embeddings["float32"], upstream.embeddings["float32"]
    if (mine.shape, mine.dtype) == (theirs.shape, theirs.dtype):
        return bullet(subject, "reaches", f"right shape and dtype, but {verdict}")
    return bullet(subject, "builds", f"runs, but {verdict}")


def tests_lines() -> list[str]:
    proc = subprocess.run([str(OURS.python), "-m", "pytest", "-q", "-rxX", "tests"], cwd=ROOT,
                          capture_output=True, text=True, timeout=1800)
    lines = [line for line in proc.stdout.splitlines() if line.strip()]
    summary = re.sub(r"\s+in [\d.]+s.*$", "", lines[-1].strip("= ")) if lines else "no output"
    grade = "builds, reaches and agrees checks" if proc.returncode == 0 else "does not run clean"
    out = [bullet("test suite (`.venv/bin/python -m pytest -q tests`)", grade, summary)]
    for line in lines:
        if line.startswith("XFAIL "):
            name, _, reason = line.removeprefix("XFAIL ").partition(" - ")
            out.append(f"  - expected failure `{name.split('::')[-1]}` — does not run: {reason}")
    return out


def step_ratios(side: dict) -> list[float]:
    """A side's ratios to upstream: a list, or per phase with the whole step under "seconds"
    (the training benchmark's forward / backward / step phases)."""
    r = side["ratios"]
    return r["seconds"] if isinstance(r, dict) else r


def bench_line(subject: str, stem: str) -> str:
    record_path = ROOT / f"{stem}.json"
    link = f"[{stem}.md]({stem}.md)"
    if not record_path.is_file():
        return bullet(subject, "does not run", f"no measurement recorded yet ({link} missing)")
    record = json.loads(record_path.read_text())
    where = f"{link}, measured {record['date']} at {record['commit']}"
    rows = record["rows"] if "rows" in record else [record]
    ours = [row["ours"] for row in rows]
    controls = [statistics.median(step_ratios(row["control"])) for row in rows
                if "ratios" in row.get("control", {})]
    control = (f"; control upstream B / A: medians {min(controls):.2f}–{max(controls):.2f}"
               if controls else "")
    if all(o["grade"] == "does not run" for o in ours):
        details = sorted({o["detail"] for o in ours})
        return bullet(subject, "does not run", f"{'; '.join(details)} ({where}){control}")
    counts = ", ".join(f"{grade} {sum(o['grade'] == grade for o in ours)}"
                       for grade in ("bit-identical", "agrees", "reaches", "disagrees",
                                     "does not run")
                       if any(o["grade"] == grade for o in ours))
    ratios = [statistics.median(step_ratios(o)) for o in ours if "ratios" in o]
    speed = f"ours / upstream medians {min(ratios):.2f}–{max(ratios):.2f} " if ratios else ""
    return bullet(subject, f"{counts} (of {len(ours)} case(s))", f"{speed}({where}){control}")


def agreement_line() -> str:
    """Counts per grade from the last `make agree` (docs/AGREEMENT.json)."""
    subject = "every implemented operator against upstream's OpInfo samples (`make agree`)"
    path = ROOT / "docs" / "AGREEMENT.json"
    if not path.is_file():
        return bullet(subject, "does not run", "no run recorded yet (docs/AGREEMENT.json missing)")
    s = json.loads(path.read_text())
    og, cg, p = s["overload_grades"], s["case_grades"], s["provenance"]
    counts = ", ".join(f"{g} {og[g]}" for g in og)
    return bullet(subject, f"{counts} (of {s['implemented']} overloads, by worst case)",
                  "cases: " + ", ".join(f"{g} {cg[g]}" for g in cg)
                  + f"; {len(s['uncovered'] or [])} implemented overloads without a case "
                  f"([docs/AGREEMENT.md](docs/AGREEMENT.md), measured {p['date']} at "
                  f"{p['commit']})")


def complex_line() -> str:
    """The complex64/complex128 samples' grades from the last `make agree`."""
    subject = "complex samples of every implemented operator (`make agree`, complex64/complex128)"
    path = ROOT / "docs" / "AGREEMENT.json"
    c = json.loads(path.read_text()).get("complex") if path.is_file() else None
    if not c:
        return bullet(subject, "does not run", "no complex samples recorded in "
                      "docs/AGREEMENT.json")
    og, cg = c["overload_grades"], c["cases"]
    return bullet(subject, ", ".join(f"{g} {og[g]}" for g in og)
                  + f" (of {sum(og.values())} overloads their samples reach, by worst case)",
                  "cases: " + ", ".join(f"{g} {cg[g]}" for g in cg)
                  + " ([docs/AGREEMENT.md](docs/AGREEMENT.md), *Complex samples*)")


def backward_line() -> str:
    """Backward grades and coverage from the last `make agree` (docs/AGREEMENT.json)."""
    subject = "gradients of every implemented differentiable overload (`make agree`, backward)"
    path = ROOT / "docs" / "AGREEMENT.json"
    b = json.loads(path.read_text()).get("backward") if path.is_file() else None
    if not b or "coverage" not in b:
        return bullet(subject, "does not run", "no backward run recorded in docs/AGREEMENT.json")
    c = b["coverage"]
    grades = ", ".join(f"{g} {n}" for g, n in c["grades"].items())
    refusing = "; ".join(f"`{ov}`" for ov in c["refusing"]) or "none"
    return bullet(subject, f"{grades} (of {c['differentiable']} overloads, by worst case)",
                  f"{len(c['uncovered'])} without a backward case; refusing by name: "
                  f"{refusing}; cases: " + ", ".join(f"{g} {n}" for g, n in
                                                    b["case_grades"].items())
                  + " ([docs/AGREEMENT.md](docs/AGREEMENT.md))")


def section(run_tests: bool) -> list[str]:
    with tempfile.TemporaryDirectory(prefix="torchnative-status-") as work:
        work = Path(work)
        lines = [c_line(), *import_lines(work), minilm_line(work)]
    if run_tests:
        lines += tests_lines()
    lines += [agreement_line(), complex_line(), backward_line()]
    lines += [bench_line(subject, stem) for subject, stem in BENCHES]
    tests_note = "" if run_tests else (
        " The test suite was not run for this section (`tools/status.py --tests` runs it).")
    return [f"Generated by `tools/status.py` on {now()}, measuring commit {git_commit()}; rerun "
            "it to refresh, never edit by hand. Each line has its grade (ARCHITECTURE.md, "
            "section 1: builds, reaches, agrees) or says \"does not run\"; benchmark lines "
            f"summarise what the benchmark last recorded, with its own date.{tests_note}",
            "", *lines]


def rewrite(readme: str, body: list[str]) -> str:
    """README with only the text between `## Status` and the next `## ` heading replaced."""
    text = "\n".join(["## Status", "", *body]) + "\n"
    match = re.search(r"^## Status[ \t]*$\n?", readme, flags=re.M)
    if match is None:
        return readme.rstrip("\n") + "\n\n" + text
    following = re.search(r"^## ", readme[match.end():], flags=re.M)
    if following is None:
        return readme[:match.start()] + text
    return readme[:match.start()] + text + "\n" + readme[match.end() + following.start():]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tests", action="store_true", help="also run the test suite (slow)")
    parser.add_argument("--print", action="store_true", help="print the section, leave README")
    args = parser.parse_args()
    body = section(args.tests)
    print("\n".join(body))
    if not args.print:
        README.write_text(rewrite(README.read_text(), body))
        print(f"\nrewrote the ## Status section of {README.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
