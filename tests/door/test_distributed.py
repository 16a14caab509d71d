"""torch.distributed in one process: what imports and answers as upstream's CPU wheel does.

Acceptance: each probe, run under ours and under upstream in separate processes, gives the same
answer — imports (torch.distributed, torch.distributed.tensor, DTensor), is_available() and
is_initialized(), the errors of get_rank/get_world_size/barrier before init_process_group,
ReduceOp's members and comparisons, DebugLevel, ProcessGroup.BackendType, and DTensor's placement
values. Where ours differs on purpose (no Gloo, no stores, no process groups: Note
[torch.distributed in one process]) the test states the difference and checks that ours refuses
by name rather than hangs or pretends.
"""

from __future__ import annotations

import pytest

from tests.door import _both
from tests.helpers import OURS, run_json

PRELUDE = r'''
import json, torch
import torch.distributed as dist
out = {}
def case(name, fn):
    try:
        out[name] = ["returns", repr(fn())]
    except Exception as e:
        out[name] = ["raises", type(e).__name__, str(e)]
'''

AGREE = r'''
import torch.distributed.tensor
from torch.distributed import ReduceOp
from torch.distributed.tensor import DTensor, Shard, Replicate, Partial
from torch.distributed.tensor.placement_types import _StridedShard
case("is_available", dist.is_available)
case("is_initialized", dist.is_initialized)
case("nccl", dist.is_nccl_available)
case("mpi", dist.is_mpi_available)
case("get_rank", dist.get_rank)
case("get_world_size", dist.get_world_size)
case("barrier", dist.barrier)
case("get_backend", dist.get_backend)
case("dtensor", lambda: (DTensor.__module__, DTensor.__name__, issubclass(DTensor, torch.Tensor)))
case("has_distributed", torch._C._has_distributed)
case("red_op_members", lambda: list(ReduceOp.RedOpType.__members__.items()))
case("red_op_values", lambda: [(str(m), int(m)) for m in ReduceOp.RedOpType.__members__.values()])
case("red_op_attrs", lambda: [getattr(ReduceOp, n) for n in ("SUM", "AVG", "MAX", "PREMUL_SUM")])
case("red_op_unused", lambda: hasattr(ReduceOp, "UNUSED"))
case("red_op_module", lambda: (ReduceOp.__module__, type(ReduceOp).__name__))
case("red_op_eq", lambda: (ReduceOp(ReduceOp.MAX) == ReduceOp.MAX, ReduceOp.MAX == 4,
                           ReduceOp(ReduceOp.MAX) == ReduceOp(ReduceOp.MAX),
                           ReduceOp(ReduceOp.MAX) == ReduceOp.MIN,
                           hash(ReduceOp(ReduceOp.MIN)) == hash(ReduceOp.MIN),
                           ReduceOp(ReduceOp.BOR).op))
case("red_op_isinstance", lambda: (isinstance(ReduceOp.SUM, ReduceOp), isinstance(3, ReduceOp)))
case("red_op_premul", lambda: type(ReduceOp(ReduceOp.PREMUL_SUM)).__name__)
case("red_op_no_arg", lambda: ReduceOp())
case("reduce_op_legacy", lambda: dist.reduce_op.SUM)
case("debug_level", lambda: (dist.get_debug_level(), list(dist.DebugLevel.__members__.items())))
case("backend_type", lambda: list(dist.ProcessGroup.BackendType.__members__.items()))
case("backend_names", lambda: (dist.Backend("GLOO"), dist.Backend("nccl"), dist.Backend.backend_list))
case("bucket_bytes", lambda: torch._C._distributed_c10d._DEFAULT_FIRST_BUCKET_BYTES)
case("placements", lambda: (repr(Shard(1)), repr(Replicate()), repr(Partial()), Partial("max").reduce_op))
case("placement_eq", lambda: (Shard(1) == Shard(1), Shard(1) == Shard(0), Shard(0) == Replicate(),
                              Replicate() == Replicate(), Partial() == Partial("sum"),
                              hash(Shard(2)) == hash(Shard(2)), Shard(1).dim))
case("placement_is", lambda: (Shard(1).is_shard(), Shard(1).is_shard(1), Shard(1).is_shard(0),
                              Shard(1).is_replicate(), Replicate().is_replicate(),
                              Partial().is_partial("sum"), Partial().is_partial("max"),
                              _StridedShard(0, split_factor=2).is_shard()))
case("placement_strided", lambda: (_StridedShard(0, split_factor=3).split_factor,
                                   _StridedShard(0, split_factor=3) == Shard(0)))
case("placement_readonly", lambda: setattr(Shard(1), "dim", 3))
case("placement_state", lambda: (torch._C._distributed.Shard(2).__getstate__(),
                                 torch._C._distributed.Partial().__getstate__()))
case("placement_copy", lambda: __import__("copy").deepcopy(Shard(3)))
case("placement_bad", lambda: Shard())
'''


@pytest.fixture(scope="module")
def runs():
    return _both.both(PRELUDE, AGREE)


NAMES = ["is_available", "is_initialized", "nccl", "mpi", "get_rank", "get_world_size", "barrier",
         "get_backend", "dtensor", "has_distributed", "red_op_members", "red_op_values",
         "red_op_attrs", "red_op_unused", "red_op_module", "red_op_eq", "red_op_isinstance",
         "reduce_op_legacy", "debug_level", "backend_type", "backend_names", "bucket_bytes",
         "placements", "placement_eq", "placement_is", "placement_strided", "placement_state",
         "placement_copy"]


@pytest.mark.parametrize("name", NAMES)
def test_agrees_with_upstream(runs, name):
    ours, up = runs
    assert ours[name] == up[name], (ours[name], up[name])


# Refusals whose type agrees; the message is pybind11's (or upstream's internal assert) there.
@pytest.mark.parametrize("name", ["red_op_premul", "red_op_no_arg", "placement_readonly",
                                  "placement_bad"])
def test_refuses_as_upstream(runs, name):
    ours, up = runs
    assert ours[name][:2] == up[name][:2], (ours[name], up[name])
    assert ours[name][0] == "raises"


DIFFER = r'''
case("gloo", dist.is_gloo_available)
case("gloo_class", lambda: __import__("torch._C._distributed_c10d", fromlist=["x"]).ProcessGroupGloo)
case("hash_store", dist.HashStore)
case("process_group", lambda: dist.ProcessGroup(None, 0, 1))
case("init_gloo", lambda: dist.init_process_group("gloo", rank=0, world_size=1,
                                                  init_method="tcp://127.0.0.1:29517"))
case("initialized_after", dist.is_initialized)
'''


def test_what_ours_lacks_refuses_by_name():
    # Upstream's wheel has Gloo, stores and process groups; ours has none of them and says so.
    ours = run_json(OURS, PRELUDE + DIFFER + "\nprint(json.dumps(out))\n")
    assert ours["gloo"] == ["returns", "False"]
    assert ours["gloo_class"][:2] == ["raises", "AttributeError"]
    for name, missing in [("hash_store", "HashStore"), ("process_group", "ProcessGroup")]:
        assert ours[name][:2] == ["raises", "NotImplementedError"], ours[name]
        assert f"torch._C._distributed_c10d.{missing}" in ours[name][2], ours[name]
    assert ours["init_gloo"][:2] == ["raises", "NotImplementedError"], ours["init_gloo"]
    assert ours["initialized_after"] == ["returns", "False"]
