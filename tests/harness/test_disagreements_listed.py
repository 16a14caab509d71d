"""docs/DISAGREEMENTS.md names, with its cause, every implemented overload that the last `make agree`
did not grade "agrees" (forward, or its backward) and every model of the last `make models` that
upstream runs and ours does not agree on; and names nothing else, so a fixed one leaves the list
with the rerun that shows it. Reads the generated docs (docs/AGREEMENT.md's per-overload table,
docs/MODELS.json), not a hand-kept copy of them."""

from __future__ import annotations

import json
import re
from pathlib import Path

DOCS = Path(__file__).resolve().parents[2] / "docs"


def measured() -> set[tuple[str, str]]:
    found = set()
    in_table = False
    for line in (DOCS / "AGREEMENT.md").read_text().splitlines():
        if line.startswith("## "):
            in_table = line == "## Per overload"
            continue
        if not in_table or not line.startswith("| `"):
            continue
        # (a worst case may hold escaped pipes: "\\|")
        cols = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
        name, ours, grade, backward = cols[0].strip("`"), cols[1], cols[2], cols[9]
        if ours != "yes":
            continue
        if grade != "agrees":
            found.add((name, "forward"))
        if backward not in ("agrees", "—"):
            found.add((name, "backward"))
    for row in json.loads((DOCS / "MODELS.json").read_text())["rows"]:
        if row["upstream_ok"] and row["grade"] != "agrees":
            found.add((f"{row['type']} / {row['head']}", "model"))
    return found


def listed() -> set[tuple[str, str]]:
    pattern = re.compile(r"^- `([^`]+)` \((forward|backward|model)\): \S")
    return {m.groups() for m in map(pattern.match,
                                    (DOCS / "DISAGREEMENTS.md").read_text().splitlines()) if m}


def test_every_disagreement_is_listed_with_its_cause_and_nothing_else():
    found, named = measured(), listed()
    assert found, "the generated docs list no disagreement at all: the parser is broken"
    assert found - named == set(), f"measured but not listed: {sorted(found - named)}"
    assert named - found == set(), f"listed but no longer measured: {sorted(named - found)}"
