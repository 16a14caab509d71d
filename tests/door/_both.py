"""One snippet under ours and under upstream, each in its own process: the tests of tests/door
give a prelude (defining `out`) and a body; each side prints `out` as JSON."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import OURS, UPSTREAM, run_json  # noqa: E402


def both(prelude: str, body: str):
    code = prelude + body + "\nprint(json.dumps(out))\n"
    return run_json(OURS, code), run_json(UPSTREAM, code)
