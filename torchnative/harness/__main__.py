"""`python -m torchnative.harness`: draw (upstream), replay (ours), judge, report. Imports no torch.

Steps: ask our _C which ops it implements; survey every OpInfo entry's reach under upstream
(cached); draw fully the entries that reach an implemented op, and written cases for implemented
ops nothing reaches (cached per entry under build/harness/, keyed by the wheel and the harness
source); replay every case in our worker processes, isolating crashes; then the backward
grading: upstream's gradients of up to --bwd-samples float32 and float64 samples per entry that
supports autograd (draw_bwd.py, cached the same way), topped up with cases for each implemented
overload upstream differentiates (differentiable.py) that those miss, replayed by the same
workers; judge; write docs/AGREEMENT.md (or --report PATH) and a JSON summary.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from torchnative.envs import OURS, ROOT, UPSTREAM, worker_environ
from torchnative.harness import codec
from torchnative.harness.report import evaluate, evaluate_backward, write_report

HERE = Path(__file__).resolve().parent
CASE_TIMEOUT_S = 60


def source_key(*parts: str, more: tuple = ()) -> str:
    """Hash of the upstream wheel's RECORD, the drawing code (and the files `more` names) and
    the given settings."""
    h = hashlib.sha256()
    record = sorted(UPSTREAM.venv.glob("lib/python3*/site-packages/torch-*.dist-info/RECORD"))
    for p in [*record, HERE / "draw.py", HERE / "codec.py", HERE / "extra_cases.py",
              HERE / "dispatch_log.py", HERE / "wrapped.py", *more]:
        h.update(p.read_bytes())
    h.update("|".join(parts).encode())
    return h.hexdigest()[:16]


def implemented_ops() -> list[str]:
    code = "import json, torch; print(json.dumps(sorted(torch._C._tn_implemented_ops())))"
    out = subprocess.run([str(OURS.python), "-I", "-c", code], capture_output=True, text=True,
                         cwd="/", check=True, env=worker_environ(1))
    return json.loads(out.stdout.strip().splitlines()[-1])


def run_draw(args: list[str], log: Path) -> None:
    with open(log, "a") as f:
        subprocess.run([str(UPSTREAM.python), "-I", str(HERE / "draw.py"), *args], cwd="/",
                       check=True, stdout=f, stderr=f, env=worker_environ(1))


def survey(cache: Path) -> dict[str, dict]:
    """Entry key -> {overload: samples reaching it} for every OpInfo entry (cached)."""
    target = cache / f"survey-{source_key('survey')}"
    if not (target / "DONE").exists():
        print("surveying every OpInfo entry's reach under upstream ...", flush=True)
        run_draw([str(target), "--survey"], cache / "draw.log")
        (target / "DONE").write_text("")
    return {r["key"]: r["reached"] for r in map(codec.load, sorted(target.glob("*.pkl")))}


def draw(cache: Path, keys: list[str], extras: list[str], max_samples: int,
         max_dtypes: int | None, jobs: int) -> Path:
    """Draws what is missing into the cache; returns the folder of entry files."""
    target = cache / f"draw-{source_key('full', str(max_samples), str(max_dtypes))}"
    target.mkdir(parents=True, exist_ok=True)
    missing = [k for k in keys if not entry_path(target, k).exists()]
    extra_missing = [o for o in extras if not entry_path(target, f"extra:{o}").exists()]
    if missing or extra_missing:
        print(f"drawing {len(missing)} entries and {len(extra_missing)} written cases under "
              "upstream ...", flush=True)
        chunks = [missing[i::jobs] for i in range(jobs)]
        calls = []
        for n, chunk in enumerate(chunks):
            list_file = target / f"todo-{n}.txt"
            list_file.write_text("\n".join(chunk))
            extra = ["--extra", str(target / "extra.txt")] if n == 0 and extra_missing else []
            calls.append([str(target), "--full", str(list_file), "--max-samples",
                          str(max_samples), *extra,
                          *(["--max-dtypes", str(max_dtypes)] if max_dtypes else [])])
        (target / "extra.txt").write_text("\n".join(extra_missing))
        with ThreadPoolExecutor(jobs) as pool:
            list(pool.map(lambda a: run_draw(a, cache / "draw.log"), calls))
    return target


def draw_backward(cache: Path, folder: Path, keys: list[str], max_samples: int,
                  jobs: int) -> Path:
    """Draws upstream's gradients of the forward draw's entries that lack them (cached beside
    it, keyed by the forward draw and the backward code); returns their folder."""
    target = cache / (f"bwd-{folder.name}-" + source_key(
        "backward", str(max_samples), more=(HERE / "draw_bwd.py", HERE / "backward.py",
                                            HERE / "differentiable.py")))
    target.mkdir(parents=True, exist_ok=True)
    missing = [k for k in keys if not entry_path(target, k).exists()]
    if missing:
        print(f"drawing the gradients of {len(missing)} entries under upstream ...", flush=True)
        calls = []
        for n in range(jobs):
            list_file = target / f"todo-{n}.txt"
            list_file.write_text("\n".join(missing[n::jobs]))
            calls.append([str(HERE / "draw_bwd.py"), str(folder), str(target), "--keys",
                          str(list_file), "--max-samples", str(max_samples)])

        def run(a):
            with open(cache / "draw.log", "a") as f:
                subprocess.run([str(UPSTREAM.python), "-I", *a], cwd="/", check=True, stdout=f,
                               stderr=f, env=worker_environ(1))

        with ThreadPoolExecutor(jobs) as pool:
            list(pool.map(run, calls))
    return target


def differentiability(cache: Path) -> Path:
    """The file of differentiable.py's classes (aten overload -> its class under upstream's
    autograd), run under upstream's interpreter; cached per wheel and classifier."""
    target = cache / ("differentiable-" + source_key(
        "differentiable", more=(HERE / "differentiable.py", ROOT / "tools" / "gen_ops.py"))
        + ".json")
    if not target.exists():
        subprocess.run([str(UPSTREAM.python), "-I", str(HERE / "differentiable.py"),
                        str(target)], cwd="/", check=True, env=worker_environ(1))
    return target


def draw_topups(cache: Path, folder: Path, bwd_folder: Path, keys: list[str], wanted: set,
                reach: dict, classes_file: Path, jobs: int) -> list[str]:
    """Backward cases for each wanted overload that no entry's own backward case reaches alone
    with a gradient (a failure of a case that reaches many is charged to the overload its
    message names, so it may grade none of the others): draw_bwd.py --topup draws them from
    the forward cases of every entry that reaches it (cached as topup:aten.X in the backward
    folder); returns the top-up keys."""
    graded = set()  # overloads a case of which upstream computed gradients reaches alone
    for k in keys:
        for c in codec.load(entry_path(bwd_folder, k))["cases"]:
            if c["upstream"]["ok"] and len(set(c["reached"])) == 1:
                graded.update(c["reached"])
    plan = []
    for ov in sorted(wanted - graded):
        entries = [k for k in keys if ov in reach.get(k, {}) or k == f"extra:{ov}"]
        if entries:
            plan.append((ov, entries))
    missing = [(ov, e) for ov, e in plan if not entry_path(bwd_folder, f"topup:{ov}").exists()]
    if missing:
        print(f"drawing the gradients of {len(missing)} overloads no entry's backward case "
              "reaches, under upstream ...", flush=True)
        missing.sort(key=lambda x: x[1])
        calls = []
        for n in range(jobs):
            list_file = bwd_folder / f"topup-{n}.txt"
            list_file.write_text("\n".join(f"{ov} {','.join(e)}" for ov, e in missing[n::jobs]))
            calls.append([str(HERE / "draw_bwd.py"), str(folder), str(bwd_folder), "--keys",
                          str(list_file), "--topup", str(classes_file)])

        def run(a):
            with open(cache / "draw.log", "a") as f:
                subprocess.run([str(UPSTREAM.python), "-I", *a], cwd="/", check=True, stdout=f,
                               stderr=f, env=worker_environ(1))

        with ThreadPoolExecutor(jobs) as pool:
            list(pool.map(run, [c for c in calls if Path(c[4]).read_text()]))
    return [f"topup:{ov}" for ov, _ in plan]


def entry_path(folder: Path, key: str) -> Path:
    return folder / (key.replace("/", "_") + ".pkl")


class Worker:
    """One replay worker under our interpreter; restarted after a crash."""

    def __init__(self, inject: str, log: Path):
        self.inject, self.log = inject, log
        self.proc = None

    def start(self) -> None:
        env = worker_environ(1)
        env.pop("TN_HARNESS_INJECT", None)
        if self.inject:
            env["TN_HARNESS_INJECT"] = self.inject
        self.proc = subprocess.Popen([str(OURS.python), "-I", str(HERE / "replay.py")],
                                     cwd="/", text=True, bufsize=1, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=open(self.log, "a"),
                                     env=env)
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, args=(self.proc, self.lines), daemon=True).start()
        if self.next_line(120) != "READY":
            raise RuntimeError(f"our replay worker did not start; see {self.log}")

    @staticmethod
    def _read(proc, lines) -> None:
        for line in proc.stdout:
            lines.put(line.strip())
        lines.put(None)

    def next_line(self, timeout: float):
        try:
            return self.lines.get(timeout=timeout)
        except queue.Empty:
            return "TIMEOUT"

    def stop(self) -> str:
        """Ends the worker; says how it ended."""
        if self.proc.poll() is None:
            self.proc.kill()
        code = self.proc.wait()
        return f"killed by {signal.Signals(-code).name}" if code < 0 else f"exit status {code}"

    def run_entry(self, draw_file: Path, result_file: Path, n_cases: int, tick,
                  verb: str = "RUN") -> None:
        """Replays every case of an entry (verb BWD: its backward cases); a case that kills or
        hangs the worker is recorded as a crash and the worker restarts at the next case."""
        result_file.unlink(missing_ok=True)
        start = 0
        while start < n_cases:
            if self.proc is None or self.proc.poll() is not None:
                self.start()
            self.proc.stdin.write(f"{verb} {draw_file} {result_file} {start}\n")
            self.proc.stdin.flush()
            current = None
            while True:
                line = self.next_line(CASE_TIMEOUT_S)
                if line == "D":
                    start = n_cases
                    break
                if line and line.startswith("S "):
                    if current is not None:
                        tick()
                    current = int(line[2:])
                    continue
                if line in (None, "TIMEOUT"):
                    how = (f"no result within {CASE_TIMEOUT_S} s" if line == "TIMEOUT"
                           else "the worker died")
                    how += f" ({self.stop()})"
                    self.proc = None
                    at = current if current is not None else start
                    with open(result_file, "ab") as f:
                        codec.append_record(f, {"index": at, "ours": {
                            "ok": False, "crash": how, "exc": "crash", "msg": how}})
                    start = at + 1
                    break
            if current is not None:
                tick()

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.stdin.write("EXIT\n")
            self.proc.stdin.flush()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.stop()


def replay_all(folder: Path, keys: list[str], out: Path, inject: str, jobs: int,
               verb: str = "RUN") -> None:
    from tqdm import tqdm

    out.mkdir(parents=True, exist_ok=True)
    sizes = {k: len(codec.load(entry_path(folder, k))["cases"]) for k in keys}
    desc = "replaying under ours" + (" (backward)" if verb == "BWD" else "")
    bar = tqdm(total=sum(sizes.values()), unit="case", desc=desc, file=sys.stderr,
               mininterval=1.0)
    lock = threading.Lock()

    def tick():
        with lock:
            bar.update(1)

    todo: queue.Queue = queue.Queue()
    for k in sorted(keys, key=lambda k: -sizes[k]):
        todo.put(k)

    def serve(n: int) -> None:
        worker = Worker(inject, out / f"worker-{n}.log")
        try:
            while True:
                try:
                    k = todo.get_nowait()
                except queue.Empty:
                    return
                if sizes[k]:
                    worker.run_entry(entry_path(folder, k), entry_path(out, k).with_suffix(
                        ".results"), sizes[k], tick, verb)
        finally:
            worker.close()

    with ThreadPoolExecutor(jobs) as pool:
        list(pool.map(serve, range(jobs)))
    bar.close()


def coverage(args, implemented: list[str], reach: dict, extras: list[str]) -> int:
    """The coverage rule alone: implemented overloads that neither an OpInfo entry nor a
    written case reaches (the written cases are drawn, cached, to see that each gives a case)."""
    folder = draw(args.cache, [], extras, args.max_samples, args.max_dtypes, args.jobs)
    reached = {ov for r in reach.values() for ov in r}
    for o in extras:
        record = codec.load(entry_path(folder, f"extra:{o}"))
        if record["cases"]:
            reached |= {ov for case in record["cases"] for ov in case["reached"]}
    elsewhere = {o for o in implemented if not o.startswith("aten.")}
    result = {"implemented": len(implemented), "written": len(extras),
              "checked_elsewhere": sorted(elsewhere),
              "uncovered": sorted(set(implemented) - reached - elsewhere)}
    text = json.dumps(result, indent=1)
    if args.json:
        args.json.write_text(text)
    print(text)
    return 0


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="python -m torchnative.harness")
    ap.add_argument("--only", default="", help="comma-separated OpInfo entry keys")
    ap.add_argument("--max-samples", type=int, default=8)
    ap.add_argument("--max-dtypes", type=int, default=None)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--bwd-samples", type=int, default=4,
                    help="float32 and float64 samples per entry graded backward (0: none)")
    ap.add_argument("--inject", default="", help="a deliberate fault for our side (gelu_tanh)")
    ap.add_argument("--report", type=Path, default=ROOT / "docs" / "AGREEMENT.md")
    ap.add_argument("--no-report", action="store_true")
    ap.add_argument("--json", type=Path, default=None, help="where to write the summary")
    ap.add_argument("--coverage", action="store_true",
                    help="only check that every implemented op has a case; print JSON")
    ap.add_argument("--cache", type=Path, default=ROOT / "build" / "harness")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    args.cache.mkdir(parents=True, exist_ok=True)
    implemented = implemented_ops()
    reach = survey(args.cache)
    reached_any = {ov for r in reach.values() for ov in r}
    implemented_set = set(implemented)
    keys = sorted(k for k, r in reach.items() if implemented_set & set(r))
    # Written cases are aten overloads; the profiler's record_function ops (no tensors in or
    # out, nothing to grade) are checked by tests/autograd/test_training.py instead, and listed
    # as such by --coverage.
    extras = sorted(o for o in implemented_set - reached_any if o.startswith("aten."))
    if args.coverage:
        return coverage(args, implemented, reach, extras)
    if args.only:
        wanted = args.only.split(",")
        keys = [k for k in keys if k in wanted]
        extras = [o for o in extras if f"extra:{o}" in wanted]
    folder = draw(args.cache, keys, extras, args.max_samples, args.max_dtypes, args.jobs)
    all_keys = keys + [f"extra:{o}" for o in extras]
    run_name = "run" + (f"-{args.inject}" if args.inject else "") + (
        "-subset" if args.only else "")
    run_dir = args.cache / run_name
    replay_all(folder, all_keys, run_dir, args.inject, args.jobs)
    summary = evaluate(folder, run_dir, all_keys, implemented, reach,
                       subset=bool(args.only), inject=args.inject)
    if args.bwd_samples > 0:
        bwd_folder = draw_backward(args.cache, folder, all_keys, args.bwd_samples, args.jobs)
        classes_file = differentiability(args.cache)
        classes = json.loads(classes_file.read_text())
        wanted = {o for o in implemented if classes.get(o, {}).get("class") == "differentiable"}
        topups = draw_topups(args.cache, folder, bwd_folder, all_keys, wanted, reach,
                             classes_file, args.jobs)
        bwd_keys = all_keys + topups
        replay_all(bwd_folder, bwd_keys, run_dir / "backward", args.inject, args.jobs, "BWD")
        summary["backward"] = evaluate_backward(bwd_folder, run_dir / "backward", bwd_keys,
                                                implemented, classes, subset=bool(args.only))
        summary["backward_folder"] = str(bwd_folder)
    summary["draw_folder"] = str(folder)
    summary["seconds"] = round(time.perf_counter() - t0, 1)
    summary["settings"] = {"max_samples": args.max_samples, "max_dtypes": args.max_dtypes,
                           "bwd_samples": args.bwd_samples,
                           "jobs": args.jobs, "only": args.only, "inject": args.inject}
    json_path = args.json or (run_dir / "summary.json")
    json_path.write_text(json.dumps(summary, indent=1))
    if not args.no_report:
        write_report(summary, args.report)
        print(f"wrote {args.report}")
    counts = summary["overload_grades"]
    print("overloads by grade: " + ", ".join(f"{g} {counts.get(g, 0)}" for g in counts)
          + f"; cases by grade: {summary['case_grades']}; {summary['seconds']} s")
    if summary.get("complex"):
        cx = summary["complex"]
        print("complex samples: overloads by grade: " + ", ".join(
            f"{g} {n}" for g, n in cx["overload_grades"].items()) + f"; cases by grade: "
            f"{cx['cases']}")
    if "backward" in summary:
        b = summary["backward"]
        print("backward: overloads by grade: " + ", ".join(
            f"{g} {n}" for g, n in b["overload_grades"].items()) + f"; cases by grade: "
            f"{b['case_grades']}")
        if "coverage" in b:
            c = b["coverage"]
            print(f"backward coverage: {c['differentiable']} implemented differentiable "
                  f"overloads, graded {c['graded']} ({c['grades']}), without a case "
                  f"{len(c['uncovered'])}, refusing {len(c['refusing'])}; not differentiable "
                  f"{len(c['not_differentiable'])}")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main(sys.argv[1:]))
