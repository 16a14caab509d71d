"""to_sparse and to_sparse.sparse_dim: upstream returns a sparse tensor, which torchnative cannot
hold (no sparse layouts), so ours refuses by name (NotImplementedError naming the op and the
sparse layout) in every spelling, never returning a dense tensor in its place. Both sides run
the same script, each in its own process.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import CASES_PRELUDE, OURS, UPSTREAM, run_json  # noqa: E402

SCRIPT = CASES_PRELUDE + r"""
x = torch.randn(3, 4)
def layout(f):
    return str(f().layout)
case("method", lambda: layout(lambda: x.to_sparse()))
case("sparse_dim", lambda: layout(lambda: x.to_sparse(1)))
case("csr", lambda: layout(lambda: x.to_sparse(layout=torch.sparse_csr)))
case("coo_alias", lambda: layout(lambda: x.to_sparse_coo()))
case("aten", lambda: layout(lambda: torch.ops.aten.to_sparse.default(x)))
case("aten_dim", lambda: layout(lambda: torch.ops.aten.to_sparse.sparse_dim(x, 2)))
print(json.dumps(out))
"""


def test_to_sparse_refuses_by_name_where_upstream_returns_sparse():
    ours, upstream = run_json(OURS, SCRIPT), run_json(UPSTREAM, SCRIPT)
    assert upstream == {"method": "torch.sparse_coo", "sparse_dim": "torch.sparse_coo",
                        "csr": "torch.sparse_csr", "coo_alias": "torch.sparse_coo",
                        "aten": "torch.sparse_coo", "aten_dim": "torch.sparse_coo"}, upstream
    for name, got in ours.items():
        assert got[:2] == ["raises", "NotImplementedError"], (name, got)
        assert "aten.to_sparse." in got[2] and "sparse layout" in got[2], (name, got)
        assert "has no sparse layouts" in got[2], (name, got)
