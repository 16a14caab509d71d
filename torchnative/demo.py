"""`python -m torchnative demo`: all-MiniLM-L6-v2 sentence embeddings, ours against upstream.

Runs torchnative/_embed_worker.py under upstream (float32 and float64) and under ours (float32),
each in its own process, prints the similarity ranking from ours and whether ours agrees with
upstream by the rule of torchnative/agree.py. Exit status: 0 agrees, 1 ours does not run or does
not agree, 2 upstream itself does not run (nothing to compare against).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from torchnative.agree import max_abs_diff, within_own_error
from torchnative.embed import EmbedRun, run_embed
from torchnative.envs import OURS, ROOT, UPSTREAM, model_path

SENTENCES = (
    "A man is playing a guitar.",
    "Someone is strumming an acoustic guitar on a small stage.",
    "He plays in a rock band every weekend.",
    "A woman is slicing tomatoes in the kitchen.",
    "The stock market fell sharply this morning after the announcement.",
    "A cat sleeps on the windowsill in the afternoon sun.",
)
QUERY = 0  # the index of the query sentence; the others are ranked against it
FACTOR = 2.0  # ours may be off by at most this many times upstream's own float32 error


def ranking(embeddings: np.ndarray, query: int = QUERY) -> list[tuple[float, int]]:
    """(cosine similarity, sentence index) of every other sentence, most similar first."""
    rows = embeddings.astype(np.float64)
    scores = rows @ rows[query]  # rows are unit norm: dot product is cosine similarity
    return sorted(((float(scores[i]), i) for i in range(len(rows)) if i != query), reverse=True)


def print_ranking(embeddings: np.ndarray, title: str) -> None:
    print(f"\n{title}")
    print(f'  query: "{SENTENCES[QUERY]}"')
    for place, (score, index) in enumerate(ranking(embeddings), 1):
        print(f"  {place:2d}.  {score:+.4f}  {SENTENCES[index]}")


def run(env, dtypes, out_dir: Path, step: str, what: str) -> EmbedRun:
    print(f"\n[{step}] {env.name} ({what}): embeddings in {' and '.join(dtypes)}", flush=True)
    stale = env.stale_sources()
    if stale:
        print(f"  warning: {len(stale)} source file(s) are newer than our _C (e.g. "
              f"{stale[0].relative_to(ROOT)}): run `make build`; this measures the old build")
    start = time.perf_counter()
    result = run_embed(env, SENTENCES, dtypes, out_dir)
    print(f"  {env.name}: {'finished' if result.ok else 'failed'} after "
          f"{time.perf_counter() - start:.1f} s", flush=True)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m torchnative demo", description=__doc__)
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "demo",
                        help="folder for the workers' .npy files and logs")
    args = parser.parse_args(argv)
    print("torchnative demo: all-MiniLM-L6-v2 sentence embeddings, ours against upstream "
          "torch 2.13.0")
    print(f"model files: {model_path()}")
    upstream = run(UPSTREAM, ("float32", "float64"), args.out / "upstream", "1/2",
                   "the official wheel")
    ours = run(OURS, ("float32",), args.out / "ours", "2/2", "our _C under upstream's tree")

    if not upstream.ok:
        print(f"\nupstream: does not run: {upstream.describe_failure()}")
        print(f"  worker log: {args.out / 'upstream' / 'worker.log'}")
    if not ours.ok:
        print(f"\nours: does not run: {ours.describe_failure()}")
        print(f"  worker log: {args.out / 'ours' / 'worker.log'}")
        if upstream.ok:
            print_ranking(upstream.embeddings["float32"], "Similarity to the query, from "
                          "UPSTREAM (float32), since ours did not run:")
            own = max_abs_diff(upstream.embeddings["float32"], upstream.embeddings["float64"])
            print(f"\nupstream's own float32 error: max |upstream_f32 - upstream_f64| = {own:.3g}"
                  f" (ours would be allowed {FACTOR * own:.3g})")
    if not upstream.ok:
        print("\nresult: no comparison: upstream itself does not run")
        return 2
    if not ours.ok:
        print("\nresult: ours does not run")
        return 1
    return compare(ours, upstream)


def compare(ours: EmbedRun, upstream: EmbedRun) -> int:
    """Prints ours' ranking and the agreement figures; 0 if ours agrees, else 1."""
    mine = ours.embeddings["float32"]
    up32, up64 = upstream.embeddings["float32"], upstream.embeddings["float64"]
    print_ranking(mine, "Similarity to the query, from OURS (float32):")
    same_inputs = ours.message["input_ids"] == upstream.message["input_ids"]
    verdict = within_own_error(mine, up32, up64, FACTOR)
    order_same = [i for _, i in ranking(mine)] == [i for _, i in ranking(up32)]
    print(f"\nAgreement with upstream over {len(SENTENCES)} sentences x {up32.shape[1]} "
          f"(rule: ours within {FACTOR:g} x upstream's own float32 error):")
    print(f"  max |ours - upstream_f64|          {verdict.error:.3g}")
    print(f"  max |upstream_f32 - upstream_f64|  {verdict.own_error:.3g}  "
          "(upstream's own float32 error)")
    print(f"  allowance ({FACTOR:g} x own error)          {verdict.allowance:.3g}")
    print(f"  token ids                          {'identical' if same_inputs else 'DIFFER'}")
    print(f"  ranking order                      {'same as' if order_same else 'DIFFERS from'}"
          " upstream's")
    if verdict.ok and same_inputs:
        print(f"\nresult: agrees: {verdict}")
        return 0
    why = verdict if same_inputs else "the workers tokenized differently"
    print(f"\nresult: does not agree: {why}")
    return 1
