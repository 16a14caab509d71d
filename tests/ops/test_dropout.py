"""Seeded dropout against upstream, bit for bit: F.dropout and nn.Dropout in training mode draw
their noise with bernoulli_ from the default generator in upstream's order, so after the same
torch.manual_seed the outputs (and the generator's next draws) have upstream's bytes; p == 1 is
input * 0 (NaN stays NaN); eval mode and p == 0 return the input object itself; p outside [0, 1]
raises upstream's exception.
"""

from __future__ import annotations

import textwrap

import pytest

from helpers import OURS, UPSTREAM, run_json

CODE = textwrap.dedent(
    """
    import json, torch
    import torch.nn.functional as F
    out = {}
    torch.manual_seed(0)
    x = torch.randn(4, 33)
    out["functional"] = F.dropout(x, 0.3, True).numpy().tobytes().hex()
    out["transposed"] = F.dropout(x.t(), 0.5, True).numpy().tobytes().hex()
    m = torch.nn.Dropout(0.1)
    m.train()
    out["module"] = m(torch.randn(3, 5, 7)).numpy().tobytes().hex()
    y = x.clone()
    y[0, 0] = float("nan")
    out["p_one"] = F.dropout(y, 1.0, True).numpy().tobytes().hex()
    out["identity"] = [F.dropout(x, 0.5, False) is x, F.dropout(x, 0.0, True) is x]
    out["float16"] = F.dropout(torch.randn(10).half(), 0.2, True).float().numpy().tobytes().hex()
    out["next_draws"] = torch.rand(3).numpy().tobytes().hex()
    try:
        F.dropout(x, 1.5, True)
    except Exception as e:
        out["bad_p"] = [type(e).__name__, str(e)]
    print(json.dumps(out))
    """
)


@pytest.fixture(scope="module")
def runs():
    return run_json(OURS, CODE), run_json(UPSTREAM, CODE)


@pytest.mark.parametrize("key", ["functional", "transposed", "module", "p_one", "identity",
                                 "float16", "next_draws", "bad_p"])
def test_dropout_matches_upstream(runs, key):
    ours, theirs = runs
    assert ours[key] == theirs[key]
