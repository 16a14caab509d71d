"""The fuzz subset of `make test` (issue 7 item 8): a fixed sample of the differential fuzz run.

Acceptance: no case of the sample crashes ours, and none returns under ours where upstream
raises, except the cases of EXPECTED (known, being fixed; each names what is wrong). A listed
case that stops failing, or is no longer drawn, fails the test too, so the list is pruned as
fixes land. The sample: SAMPLE_PER_OP drawn cases of every op we implement (the full run's draw,
fewer examples; every schema argument kind), plus the surface expressions of SURFACE.
"""

from __future__ import annotations

import collections

import pytest

from torchnative.fuzz import compare, draw_cases, fuzz, gate, surface

SAMPLE_PER_OP = 2
SURFACE = ("torch.ones(4).as_strided((2,), (4611686018427387904,)).tolist()",
           "torch.empty(4611686018427387904)",
           "torch.ones(4)[18446744073709551616]",
           "torch.ones(2).expand(3, 2).add_(1).tolist()",
           "torch.ones(3).squeeze((0, 0))")

# The to-do: case id -> what is wrong. Keep it short and exact; remove a line when the test
# says it passes. docs/FUZZ.md lists every failure of the full run.
EXPECTED: dict[str, str] = {}


@pytest.fixture(scope="module")
def rows():
    wanted = [c for c in surface.cases() if c["expr"] in SURFACE]
    assert len(wanted) == len(SURFACE), "a SURFACE expression is not in surface.py"
    return fuzz(draw_cases(SAMPLE_PER_OP, with_surface=False) + wanted)


def test_no_crash_and_no_return_where_upstream_raises(rows):
    problems = gate(rows, EXPECTED)
    counts = collections.Counter(r["verdict"] for r in rows)
    assert not problems, f"{len(problems)} problem(s) ({dict(counts)}):\n" + "\n".join(problems)


def test_sample_reaches_every_op(rows):
    ops = {r["op"] for r in rows}
    judged = [r for r in rows if r["verdict"] != "not-built"]
    assert len(ops) > 500 and len(judged) > 0.9 * len(rows), (len(ops), len(judged))
    assert set(compare.FAILURES) <= set(compare.VERDICTS)
