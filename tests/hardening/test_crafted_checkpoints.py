"""Damaged checkpoints (issue 7, item 8: every checkpoint record checked against what it must
hold), loaded by ours and by upstream, each in its own child process.

Acceptance: make_crafted_checkpoints.py, run by upstream, writes the corpus with upstream's own
torch.save and then damages it. Each file is loaded with weights_only=True from a path, from a
file object and with mmap=True. Ours must never crash; wherever upstream refuses, ours refuses
with the same exception type; wherever upstream loads, ours loads the same tensors (values,
shapes, strides, offsets): never bytes upstream would not return.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import OURS, UPSTREAM, run

from .batch import describe, run_cases

MAKER = Path(__file__).with_name("make_crafted_checkpoints.py")
MODES = {
    "path": "torch.load({p!r}, weights_only=True)",
    "buffer": "torch.load(io.BytesIO(open({p!r}, 'rb').read()), weights_only=True)",
    "mmap": "torch.load({p!r}, weights_only=True, mmap=True)",
}
REPORT = "\n{k: (v.tolist(), list(v.shape), v.stride(), v.storage_offset()) for k, v in sd.items()}"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    out = tmp_path_factory.mktemp("crafted")
    proc = run(UPSTREAM, f"import runpy, sys\nsys.argv = ['maker', {str(out)!r}]\n"
                         f"runpy.run_path({str(MAKER)!r}, run_name='__main__')")
    assert proc.returncode == 0, proc.stderr[-3000:]
    names = proc.stdout.split()
    assert {"base", "record_short", "stride_negative", "central_signature",
            "pickle_runs_code"} <= set(names)
    cases = {f"{n}:{m}": "import io\nsd = " + load.format(p=str(out / f"{n}.pt")) + REPORT
             for n in names for m, load in MODES.items()}
    return cases, run_cases(OURS, cases), run_cases(UPSTREAM, cases)


def test_corpus_has_refusals_and_loads(corpus):
    cases, _, upstream = corpus
    refused = [n for n in cases if "raised" in upstream[n]]
    loaded = [n for n in cases if "returned" in upstream[n]]
    assert len(refused) > len(cases) // 2 and loaded  # a corpus that tests both ways
    assert all("crashed" not in upstream[n] for n in cases), [
        (n, describe(upstream[n])) for n in cases if "crashed" in upstream[n]]


def test_each_checkpoint_as_upstream(corpus):
    cases, ours, upstream = corpus
    wrong = []
    for name in cases:
        o, u = ours[name], upstream[name]
        if "crashed" in o:
            wrong.append(f"{name}: ours {describe(o)}")
        elif "raised" in u and o.get("raised") != u["raised"]:
            wrong.append(f"{name}: upstream {describe(u)}; ours {describe(o)}")
        elif "returned" in u and o != u:
            wrong.append(f"{name}: upstream {describe(u)}; ours {describe(o)}")
    assert not wrong, "\n".join(wrong)
