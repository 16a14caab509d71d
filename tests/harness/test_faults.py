"""The judge's own test: one plausible defect per comparator, injected into a copy of a real
upstream result (from the fast subset's draw), must be caught by exactly that comparator.

A fault caught by another comparator, or by none, is a failure; so is a comparator no fault is
aimed at; and removing any one comparator from the judge makes `fault_problems` report failures
(the last test), so no check can be dropped or broken unnoticed.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

from torchnative.harness import codec, judge
from torchnative.harness.report import allowances, context_for, entry_path


def load(draw_folder, key):
    return codec.load(entry_path(draw_folder, key))


def find(record, pred):
    for case in record["cases"]:
        if pred(case):
            return case
    raise LookupError(f"no such case in {record['key']}")


def element_at(rec: dict, flat: int) -> int:
    """The storage element index of a tensor's logical element number `flat`."""
    idx = np.unravel_index(flat, rec["shape"]) if rec["shape"] else ()
    return rec["offset"] + sum(int(i) * s for i, s in zip(idx, rec["stride"]))


def set_element(outcome: dict, t: int, flat: int, value) -> None:
    rec = outcome["tensors"][t]
    blob = bytearray(outcome["storages"][rec["storage"]])
    np_dtype = judge.NP_DTYPES[rec["dtype"]]
    view = np.frombuffer(blob, np_dtype)
    view[element_at(rec, flat)] = value
    outcome["storages"][rec["storage"]] = bytes(blob)


def tensor_leaves(outcome: dict) -> list[int]:
    return [v for k, v in judge.leaves(outcome["tree"]) if k == "tensor"]


# Each fault: (name, comparator that must object, entry, case predicate, mutation of ours).
def one_wrong_element(o):
    t = tensor_leaves(o)[0]
    vals = judge.tensor_values(o, t)
    k = vals.size // 2
    set_element(o, t, k, vals.flat[k] + 0.01 * np.abs(vals).max() + 0.01)


def last_element_wrong(o):
    t = tensor_leaves(o)[0]
    vals = judge.tensor_values(o, t)
    set_element(o, t, vals.size - 1, vals.flat[-1] + 0.01 * np.abs(vals).max() + 0.01)


def permuted(o):
    t = tensor_leaves(o)[0]
    vals = judge.tensor_values(o, t).ravel()
    for k, v in enumerate(vals[::-1]):
        set_element(o, t, k, v)


def nan_where_finite(o):
    set_element(o, tensor_leaves(o)[0], 0, np.nan)


def wrong_shape(o):
    rec = o["tensors"][tensor_leaves(o)[0]]
    rec["shape"], rec["stride"] = [1, *rec["shape"]], [0, *rec["stride"]]


def bool_as_uint8(o):
    o["tensors"][tensor_leaves(o)[0]]["dtype"] = "uint8"


def items(tree) -> list:
    return list(tree["v"]) if isinstance(tree, dict) else list(tree)


def swapped_pair(o):
    o["tree"] = tuple(reversed(items(o["tree"])))


def swapped_chunks(o):
    first, second, *rest = items(o["tree"])
    o["tree"] = type(o["tree"])([second, first, *rest])


def missing_output(o):
    o["tree"] = tuple(items(o["tree"])[:1])


def lost_alias(o):
    o["tensors"][tensor_leaves(o)[0]]["alias"] = -1


def new_object(o):
    o["tensors"][tensor_leaves(o)[0]]["is_input"] = -1


def contiguous_strides(o):
    rec = o["tensors"][tensor_leaves(o)[0]]
    rec["stride"] = [int(np.prod(rec["shape"][k + 1:])) for k in range(len(rec["shape"]))]


def int_off_by_one(o):
    t = tensor_leaves(o)[0]
    set_element(o, t, 0, judge.tensor_values(o, t).flat[0] + 1)


def raises_instead(o):
    o.clear()
    o.update({"ok": False, "exc": "RuntimeError", "msg": "injected"})


def other_exception(o):
    o["exc"] = "ValueError" if o["exc"] != "ValueError" else "TypeError"


def returns_instead(o, template):
    o.clear()
    o.update(copy.deepcopy(template))


def wrong_scalar(o):
    o["tree"] = not o["tree"]


def is_f32(case, spelling="torch"):
    return case["dtype"] == "float32" and case["spelling"] == spelling and case["upstream"]["ok"]


def big_enough(case, n=2):
    u = case["upstream"]
    return all(np.prod(u["tensors"][t]["shape"]) >= n for t in tensor_leaves(u))


def distinct_pair(case):
    u = case["upstream"]
    leaves = tensor_leaves(u)
    if len(leaves) < 2 or u["tensors"][leaves[0]]["shape"] != u["tensors"][leaves[1]]["shape"]:
        return False
    a, b = judge.tensor_values(u, leaves[0]), judge.tensor_values(u, leaves[1])
    return a.size > 0 and not np.array_equal(a, b)


FAULTS = [
    ("one wrong element", "values", "add", lambda c: is_f32(c) and big_enough(c, 3),
     one_wrong_element),
    ("last element wrong", "values", "add", lambda c: is_f32(c) and big_enough(c, 3),
     last_element_wrong),
    ("permuted order", "values", "add", lambda c: is_f32(c) and big_enough(c, 3), permuted),
    ("NaN where upstream is finite", "nonfinite", "add",
     lambda c: is_f32(c) and big_enough(c, 1), nan_where_finite),
    ("wrong shape", "shape", "add", lambda c: is_f32(c) and big_enough(c, 1), wrong_shape),
    ("wrong dtype (uint8 for bool)", "dtype", "max.reduction_with_dim",
     lambda c: c["dtype"] == "bool" and c["spelling"] == "torch" and c["upstream"]["ok"]
     and len(tensor_leaves(c["upstream"])) == 2, bool_as_uint8),
    ("swapped pair (values, indices)", "dtype", "max.reduction_with_dim",
     lambda c: is_f32(c) and len(tensor_leaves(c["upstream"])) == 2, swapped_pair),
    ("swapped pair of equal-shape views (split)", "strides", "split",
     lambda c: is_f32(c) and distinct_pair(c), swapped_chunks),
    ("missing output", "structure", "max.reduction_with_dim",
     lambda c: is_f32(c) and len(tensor_leaves(c["upstream"])) == 2, missing_output),
    ("lost alias (a copy where upstream gives a view)", "alias", "transpose",
     lambda c: is_f32(c) and big_enough(c, 2), lost_alias),
    ("in-place returns a new object", "identity", "add",
     lambda c: is_f32(c, "inplace") and big_enough(c, 1), new_object),
    ("view with the wrong strides", "strides", "transpose",
     lambda c: is_f32(c) and c["upstream"]["tensors"][0]["alias"] >= 0
     and c["upstream"]["tensors"][0]["stride"][-1] != 1, contiguous_strides),
    ("integer result off by one", "exact", "add",
     lambda c: c["dtype"] == "int64" and c["spelling"] == "torch" and c["upstream"]["ok"]
     and big_enough(c, 1), int_off_by_one),
    ("raises where upstream returns", "raises", "add", lambda c: is_f32(c), raises_instead),
    ("another exception type", "raises", "div.floor_rounding",
     lambda c: not c["upstream"]["ok"], other_exception),
    ("returns where upstream raises", "raises", "div.floor_rounding",
     lambda c: not c["upstream"]["ok"], None),
    ("wrong non-tensor result", "scalars", "extra:aten.is_floating_point.default",
     lambda c: c["upstream"]["ok"], wrong_scalar),
]


def inject(draw_folder, fault):
    """(context with ours = upstream's result carrying the fault, the same context clean)."""
    name, _, key, pred, mutate = fault
    record = load(draw_folder, key)
    case = find(record, pred)
    allow = allowances(record)
    ours = copy.deepcopy(case["upstream"])
    if mutate is None:  # ours returns: take any successful result of the same entry
        ok = find(record, lambda c: c["upstream"]["ok"])
        returns_instead(ours, ok["upstream"])
    else:
        mutate(ours)
    return (context_for(case, ours, record, allow),
            context_for(case, copy.deepcopy(case["upstream"]), record, allow))


def fault_problems(draw_folder, comparators=judge.COMPARATORS) -> list[str]:
    """Every way the judge fails the fault suite: a clean result not agreeing, a fault caught by
    the wrong comparator or by none, a comparator no fault is aimed at."""
    problems = []
    names = {name for name, _, _ in judge.COMPARATORS}
    aimed = {f[1] for f in FAULTS}
    problems += [f"no fault is aimed at comparator {n}" for n in sorted(names - aimed)]
    for fault in FAULTS:
        bad, clean = inject(draw_folder, fault)
        v = judge.judge(clean, comparators)
        if v.grade != "agrees":
            problems.append(f"{fault[0]}: upstream against itself is not agrees: {v.reason}")
        v = judge.judge(bad, comparators)
        if v.comparator != fault[1]:
            problems.append(f"{fault[0]}: expected {fault[1]} to object, got "
                            f"{v.comparator} ({v.grade}: {v.reason})")
    return problems


def test_every_injected_fault_is_caught_by_its_comparator(draw_folder):
    assert fault_problems(draw_folder) == []


@pytest.mark.parametrize("removed", [name for name, _, _ in judge.COMPARATORS])
def test_removing_a_comparator_fails_the_fault_suite(draw_folder, removed):
    fewer = tuple(c for c in judge.COMPARATORS if c[0] != removed)
    assert fault_problems(draw_folder, fewer), f"the suite passes without {removed}"


def test_every_comparator_runs_on_real_cases(subset):
    """Each comparator ran on cases of the subset's real replay (none is dead code there)."""
    names = [name for name, _, _ in judge.COMPARATORS]
    assert {n: subset["exercised"].get(n, 0) for n in names if not subset["exercised"].get(n)} \
        == {}


def test_the_allowance_has_its_floor():
    assert judge.allowance([], "float32") == 4 * 2.0 ** -23
    assert judge.allowance([1e-9] * 10, "float32") == 4 * 2.0 ** -23
    assert judge.allowance([1e-3] * 10, "float32") == pytest.approx(1e-3)


def test_scaled_error_ignores_denormal_noise():
    ref = np.array([1.0, 1e-40, 0.0], np.float32)
    got = np.array([1.0, 3e-40, 1e-41], np.float32)
    assert judge.scaled_error(got, ref) < 1e-38
