"""What bench/dispatch_bench.py and bench/minilm_bench.py share (ARCHITECTURE.md, section 5).

Three resident workers, each in its own process: ours, upstream A (the reference) and upstream B
(the same-vs-same control). Each round asks them in turn, so drift over time hits all three alike,
and the turn order rotates from round to round (ours, A, B; then A, B, ours; then B, ours, A), so
no side always runs right after the same other one (a fixed order showed the control B / A at
1.08 [1.01-1.11] on this machine: the slot, not the side); the first round is a warm-up and is
discarded. Ratios are paired by round (ours_k /
A_k, B_k / A_k) and reported as median [min-max]. Every worker runs with one thread.
"""

from __future__ import annotations

import json
import shlex
import statistics
import sys
from dataclasses import dataclass, field
from pathlib import Path

from torchnative.children import Child, format_failure
from torchnative.envs import OURS, ROOT, THREAD_VARIABLES, UPSTREAM, Env
from torchnative.provenance import file_digest, git_commit, machine, now

THREADS = 1
MIN_ROUNDS = 5
WARMUP_ROUNDS = 1
REPEATS = 5  # timeit repeats per round; a round's figure is their best
SIDES = (("ours", OURS), ("upstream A", UPSTREAM), ("upstream B", UPSTREAM))
ORDER = ("each round asks every worker in turn, the order rotated by one worker per round "
         "(ours, A, B; A, B, ours; B, ours, A; ...)")


@dataclass
class Side:
    """One resident worker: its first message, its measured rounds, or why it stopped."""

    label: str
    env: Env
    child: Child | None
    hello: dict
    rounds: list[dict] = field(default_factory=list)
    failure: dict | None = None
    embeddings: dict = field(default_factory=dict)  # the MiniLM bench's check, per dtype

    def __post_init__(self):
        if not self.hello.get("ok"):
            self.failure = self.hello["failure"]


def expected_c(label: str, env: Env) -> tuple[str | None, Side | None]:
    """(the path of the _C this side must load, None), or (None, a Side that does not run)
    where the environment has no _C file to find."""
    try:
        return str(env.expected_c()), None
    except FileNotFoundError as exc:
        failure = {"step": "find the _C file", "type": "FileNotFoundError", "message": str(exc)}
        return None, Side(label, env, None, {"ok": False, "failure": failure})


def case_failure(name: str, side: Side, ref: Side, key: str = "checks",
                 reference: bool = True) -> tuple[str, str] | None:
    """("does not run", why) where case `name` (in each side's first message, under `key`)
    cannot be checked: its side did not run, it failed there, or (with `reference`) it failed
    on upstream A's; else None."""
    if side.failure is not None:
        return "does not run", format_failure(side.failure, where=False)
    mine = side.hello[key][name]
    if not mine["ok"]:
        return "does not run", format_failure(mine["failure"])
    theirs = ref.hello[key][name]
    if reference and not theirs["ok"]:
        return "does not run", f"upstream A: {format_failure(theirs['failure'])}"
    return None


def rotate(sides: list[Side], rounds: int, timeout: float = 600) -> None:
    """Warm-up, then `rounds` measured rounds; in each, every running side in turn, the order
    rotated by one side per round. A side silent for `timeout` seconds in a round is stopped."""
    total = WARMUP_ROUNDS + rounds
    for k in range(total):
        warm = " (warm-up, discarded)" if k < WARMUP_ROUNDS else ""
        print(f"round {k + 1}/{total}{warm}", flush=True)
        shift = k % len(sides)
        for side in sides[shift:] + sides[:shift]:
            if side.failure is not None:
                continue
            message = side.child.request("round", timeout)
            if not message.get("ok"):
                side.failure = message["failure"]
            elif k >= WARMUP_ROUNDS:
                side.rounds.append(message)


def close(sides: list[Side]) -> None:
    for side in sides:
        if side.child is not None:
            side.child.close()


def spread(values: list[float]) -> tuple[float, float, float]:
    """(median, min, max)."""
    return statistics.median(values), min(values), max(values)


def paired_ratios(top: list[float], bottom: list[float]) -> list[float]:
    return [a / b for a, b in zip(top, bottom, strict=True)]


def seconds_text(values: list[float]) -> str:
    """Per-call time, median [min-max], in a unit that suits the median."""
    median, low, high = spread(values)
    scale, unit = next((s, u) for s, u in ((1e9, "ns"), (1e6, "µs"), (1e3, "ms"), (1, "s"))
                       if median * s < 1000 or u == "s")

    def number(value: float) -> str:
        return f"{value:.3g}" if value < 1000 else f"{value:.0f}"

    return f"{number(median * scale)} {unit} [{number(low * scale)}–{number(high * scale)}]"


def ratio_text(values: list[float]) -> str:
    median, low, high = spread(values)
    return f"{median:.2f} [{low:.2f}–{high:.2f}]"


def control_note(ratio_lists: list[list[float]]) -> str:
    """How far the same-vs-same control strayed from 1.00: the noise floor of this run."""
    if not ratio_lists:
        return "Control: no upstream B / A ratio was measured."
    medians = [statistics.median(r) for r in ratio_lists]
    lows, highs = [min(r) for r in ratio_lists], [max(r) for r in ratio_lists]
    return (f"Control (upstream B / A, ideally 1.00): medians {min(medians):.2f}–"
            f"{max(medians):.2f}, single rounds {min(lows):.2f}–{max(highs):.2f}. That spread is "
            "this machine's noise during the run; an ours / upstream ratio inside it is no "
            "measured difference.")


def side_summary(side: Side) -> str:
    stale = side.env.stale_sources()
    warning = (f" (warning: {len(stale)} source file(s) newer than this `_C`, e.g. "
               f"{stale[0].relative_to(ROOT)}: it measures an older build)" if stale else "")
    if side.failure is not None:
        return f"does not run: {format_failure(side.failure)}{warning}"
    torch = side.hello["torch"]
    return (f"torch {torch['version']}, `_C` {Path(torch['c_file']).name} "
            f"(sha256 {file_digest(torch['c_file'])}), {len(side.rounds)} measured rounds"
            f"{warning}")


def provenance(script: str) -> dict:
    """Date, commit, machine, command and thread settings of this run."""
    python = Path(sys.executable)
    python = python.relative_to(ROOT) if python.is_relative_to(ROOT) else python
    return {"date": now(), "commit": git_commit(), "machine": machine(),
            "command": shlex.join([str(python), script, *sys.argv[1:]]),
            "threads": f"`torch.set_num_threads({THREADS})` in every worker; "
                       + ", ".join(f"`{name}={THREADS}`" for name in THREAD_VARIABLES)}


def header(title: str, run: dict, method: list[str], sides: list[Side]) -> list[str]:
    """The lines every benchmark document opens with: provenance, method, each side's state."""
    script = run["command"].split()[1]
    lines = [f"# {title}", "",
             f"Generated by `{script}`; do not edit by hand, rerun it to refresh "
             "(docs/README.md).", "",
             f"- date: {run['date']}",
             f"- commit measured: {run['commit']}",
             f"- machine: {run['machine']}",
             f"- command: `{run['command']}` (from the repository root)",
             f"- threads: {run['threads']}",
             *[f"- method: {line}" for line in method]]
    lines += [f"- {side.label}: {side_summary(side)}" for side in sides]
    return lines


def side_records(sides: list[Side]) -> dict:
    """Each side's state for the JSON record: which torch it loaded, or why it did not run."""
    return {side.label: {"torch": side.hello.get("torch"), "failure": side.failure,
                         "measured_rounds": len(side.rounds)} for side in sides}


def write(doc: Path, lines: list[str], record: dict) -> None:
    """Writes the markdown and, beside it, the same run's raw numbers as JSON."""
    doc.write_text("\n".join(lines) + "\n")
    doc.with_suffix(".json").write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {shown(doc)} and {shown(doc.with_suffix('.json'))}")


def shown(path: Path) -> Path:
    """A path as printed: relative to the repository when inside it, else as given (an --out
    outside the repository used to crash the last print after the files were written)."""
    path = path.resolve()
    return path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
