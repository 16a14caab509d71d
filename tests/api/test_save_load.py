"""torch.save and torch.load (issue 9, item 5), ours and upstream each in its own process: a
state_dict, a whole module and nested containers whose tensors share storages (views, a
transpose, a slice of another) are saved by both; the files must be byte for byte upstream's,
and each side loads the other's (with mmap=True and map_location too) to the same values,
sharing and strides. pickle and copy.deepcopy of tensors and modules round-trip in both."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import OURS, UPSTREAM, run_json  # noqa: E402

OBJECTS = r"""
import copy, hashlib, io, json, pickle, sys, torch
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Embedding(10, 4), torch.nn.Linear(4, 3), torch.nn.LayerNorm(3))
base = torch.arange(12.).reshape(3, 4)
nested = {
    "base": base, "row": base[1], "cols": base[:, 1:3], "t": base.t(),
    "list": [torch.tensor([1, 2, 3]), torch.tensor(True), torch.empty(0, 2)],
    "tuple": (torch.ones(2, dtype=torch.bfloat16), torch.zeros(3, dtype=torch.float16)),
    "scalar": torch.tensor(2.5, dtype=torch.float64), "n": 7, "s": "text",
}
OBJS = {"state_dict": model.state_dict(), "module": model, "nested": nested}

def describe(x):
    if isinstance(x, torch.Tensor):
        return ["T", str(x.dtype), list(x.shape), list(x.stride()), x.storage_offset(),
                x.float().tolist()]
    if isinstance(x, torch.nn.Module):
        return ["M", type(x).__name__, {k: describe(v) for k, v in x.state_dict().items()}]
    if isinstance(x, dict):
        return {k: describe(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [describe(v) for v in x]
    return x

def sharing(x):
    # which tensors of a loaded nested dict share a storage with "base"
    b = x["base"].untyped_storage().data_ptr()
    return sorted(k for k in ("row", "cols", "t") if x[k].untyped_storage().data_ptr() == b)
"""

SAVE = OBJECTS + r"""
out_dir = sys.argv[1]
result = {}
for name, obj in OBJS.items():
    buf = io.BytesIO()
    torch.save(obj, buf)
    path = f"{out_dir}/{name}.pt"
    torch.save(obj, path)
    result[name] = [hashlib.sha256(buf.getvalue()).hexdigest(),
                    hashlib.sha256(open(path, "rb").read()).hexdigest()]
t = nested["cols"]
result["pickle"] = describe(pickle.loads(pickle.dumps(t)))
result["deepcopy"] = describe(copy.deepcopy(t))
result["deepcopy_module"] = describe(copy.deepcopy(model))
result["deepcopy_shared"] = sharing(copy.deepcopy(nested))
print(json.dumps(result))
"""

LOAD = OBJECTS + r"""
in_dir = sys.argv[1]
result = {}
for name in OBJS:
    path = f"{in_dir}/{name}.pt"
    kw = {"weights_only": name != "module"}
    result[name] = describe(torch.load(path, **kw))
    result[name + "_mmap"] = describe(torch.load(path, mmap=True, **kw))
    result[name + "_map_location"] = describe(torch.load(path, map_location="cpu", **kw))
result["shared"] = sharing(torch.load(f"{in_dir}/nested.pt"))
print(json.dumps(result))
"""


def run_with(python, code, arg):
    return run_json(python, f"import sys; sys.argv = ['x', {str(arg)!r}]\n" + code)


def test_save_bytes_equal_upstreams_and_each_side_loads_the_other(tmp_path):
    (tmp_path / "ours").mkdir()
    (tmp_path / "upstream").mkdir()
    ours = run_with(OURS, SAVE, tmp_path / "ours")
    upstream = run_with(UPSTREAM, SAVE, tmp_path / "upstream")
    for name in ("state_dict", "module", "nested"):
        assert ours[name] == upstream[name], name  # buffer and file bytes, by hash
        assert (tmp_path / "ours" / f"{name}.pt").read_bytes() == \
            (tmp_path / "upstream" / f"{name}.pt").read_bytes()
    for key in ("pickle", "deepcopy", "deepcopy_module", "deepcopy_shared"):
        assert ours[key] == upstream[key], key
    assert upstream["deepcopy_shared"] == ["cols", "row", "t"]
    # Each side loads the other's files (the same bytes, but read by the other core).
    ours_reading_upstream = run_with(OURS, LOAD, tmp_path / "upstream")
    upstream_reading_ours = run_with(UPSTREAM, LOAD, tmp_path / "ours")
    assert ours_reading_upstream == upstream_reading_ours
    assert upstream_reading_ours["shared"] == ["cols", "row", "t"]
