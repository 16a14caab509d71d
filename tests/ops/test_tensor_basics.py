"""Tensors from Python and their metadata, against upstream in separate processes.

Covers the parts that are not kernels: torch.tensor/as_tensor/from_numpy dtype inference and
values, attributes (shape, dtype, device, strides, requires_grad, is_leaf), item/tolist/numpy,
the binder's choices and errors (overload order, out=, in-place identity, exception types),
meta tensors under `with torch.device("meta")`, and requires_grad propagation.
"""

from __future__ import annotations

import textwrap

from helpers import OURS, UPSTREAM, run_json

PRELUDE = "import json, torch, numpy as np\n"


def both_torch(body: str):
    """Runs body with the real `import torch` in each environment; returns (ours, upstream)."""
    code = PRELUDE + textwrap.dedent(body)
    return run_json(OURS, code), run_json(UPSTREAM, code)


def outcome(expr: str) -> str:
    """A snippet line that records expr's value as JSON-able data, or its exception type."""
    return textwrap.dedent(
        f"""
        try:
            _v = ({expr})
            out.append(describe(_v))
        except Exception as e:
            out.append(["raised", type(e).__name__])
        """
    )


DESCRIBE = """
def describe(v):
    if isinstance(v, torch.Tensor):
        return {"dtype": str(v.dtype), "shape": list(v.shape), "stride": list(v.stride()),
                "device": str(v.device), "values": v.tolist() if v.device.type == "cpu" else None,
                "requires_grad": v.requires_grad, "is_leaf": v.is_leaf}
    if isinstance(v, (tuple, list)):
        return [describe(x) for x in v]
    if isinstance(v, (torch.dtype, torch.device, torch.Size)):
        return str(v)
    return v
out = []
"""

CREATION = [
    "torch.tensor([[1, 2], [3, 4]])",
    "torch.tensor([1.5, 2])",
    "torch.tensor([True, False])",
    "torch.tensor(3)",
    "torch.tensor(2.5)",
    "torch.tensor([])",
    "torch.tensor([[1, 2], [3]])",
    "torch.tensor([1, 2], dtype=torch.float16)",
    "torch.tensor([0.1, 0.2], dtype=torch.bfloat16)",
    "torch.tensor([1.0, 2.0], dtype=torch.float64)",
    "torch.tensor([1, True])",
    "torch.tensor([[0.5]], requires_grad=True)",
    "torch.tensor([1, 2], requires_grad=True)",
    "torch.tensor('a')",
    "torch.from_numpy(np.arange(6, dtype=np.float32).reshape(2, 3))",
    "torch.from_numpy(np.arange(6, dtype=np.int16)[::2])",
    "torch.from_numpy(np.zeros(3, dtype=np.uint8))",
    "torch.from_numpy(np.array([1.0, 2.0]))",
    "torch.as_tensor([1, 2, 3])",
    "torch.empty(2, 3).shape",
    "torch.empty((2, 3), dtype=torch.int32).dtype",
    "torch.empty(2, dtype=int).dtype",
    "torch.empty(2, dtype=float).dtype",
    "torch.empty(0).shape",
    "torch.empty(2, -1)",
    "torch.empty(2, 3).stride()",
    "torch.empty(2, 3).is_contiguous()",
    "torch.empty(4).fill_(2.5)",
    "torch.empty(2, dtype=torch.int64).fill_(7)",
    "torch.empty(3, dtype=torch.bool).fill_(1)",
]


def compare_cases(exprs: list[str], setup: str = "") -> None:
    """Evaluates every expression in one process per environment; all must agree."""
    body = DESCRIBE + setup + "".join(outcome(e) for e in exprs) + "print(json.dumps(out))"
    mine, theirs = both_torch(body)
    bad = [(e, m, t) for e, m, t in zip(exprs, mine, theirs) if m != t]
    assert not bad, "\n".join(f"{e}: ours {m!r} upstream {t!r}" for e, m, t in bad)


def test_creation_agrees():
    compare_cases(CREATION)


METADATA = [
    "x.shape", "x.dtype", "x.device", "x.ndim", "x.dim()", "x.numel()", "x.size()", "x.size(1)",
    "x.size(-1)", "x.size(2)", "x.stride()", "x.stride(0)", "x.element_size()",
    "x.storage_offset()", "x.is_floating_point()", "x.is_contiguous()", "x.requires_grad",
    "x.is_leaf", "x.grad", "x.grad_fn", "x.layout == torch.strided", "x.is_cpu", "x.is_cuda",
    "x.is_meta", "len(x)", "x.itemsize", "x.nbytes", "x._version", "x.tolist()",
    "x.numpy().tolist()", "str(x.numpy().dtype)", "x[0].tolist()", "x[1].item()",
    "x[0][1].item()", "float(x[1][0])", "int(x[1][0])", "bool(x[0][0])", "bool(x)", "x.item()",
    "torch.tensor(5).__index__()", "x.__index__()", "len(torch.tensor(1.0))",
    "x.size('a')", "x.size(dim=0)", "x.stride(-1)", "torch.tensor(1.).size(0)",
]


def test_metadata_agrees():
    compare_cases(METADATA, "x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])\n")


# x.size() and x.shape hand back a kept torch.Size while it still matches (tensor_size in
# csrc/python/tensor.cpp): asked before and after each in-place change of geometry, they must
# follow the tensor as upstream's do.
GEOMETRY_CHANGES = [
    "x.set_(torch.ones(7))",
    "x.set_(torch.ones(2, 5).t())",
    "x.data = torch.ones(5, 1)",
    "x.data = torch.ones(3, 1, 2)",
    "x.data = torch.ones(())",
]


def test_size_follows_in_place_geometry_changes():
    body = DESCRIBE + textwrap.dedent(
        """
        for change in CHANGES:
            x = torch.ones(3, 1, 4)
            before = (x.size(), x.shape)
            exec(change)
            out.append([str(before), str(x.size()), str(x.shape), x.size() == x.shape,
                        str(before), [x.size(d) for d in range(x.dim())]])
        print(json.dumps(out))
        """
    ).replace("CHANGES", repr(GEOMETRY_CHANGES))
    mine, theirs = both_torch(body)
    assert mine == theirs


def test_inplace_and_out_return_the_same_object():
    body = DESCRIBE + textwrap.dedent(
        """
        x = torch.empty(3)
        out.append(x.fill_(1) is x)
        out.append(torch.fill_(x, 2) is x)
        out.append(x._version)
        y = torch.empty(2, 2)
        z = torch.empty(2, 2, out=y) if False else y
        print(json.dumps(out))
        """
    )
    mine, theirs = both_torch(body)
    assert mine == theirs


def test_numpy_memory_is_shared_both_ways():
    body = textwrap.dedent(
        """
        a = np.arange(6, dtype=np.float32).reshape(2, 3)
        t = torch.from_numpy(a)
        a[0, 0] = 42
        n = t.numpy()
        n[1, 1] = -1
        print(json.dumps([t.tolist(), a.tolist(), n.tolist()]))
        """
    )
    mine, theirs = both_torch(body)
    assert mine == theirs


def test_meta_device_context_and_errors():
    body = DESCRIBE + textwrap.dedent(
        """
        with torch.device("meta"):
            m = torch.empty(3, 4)
        out.append(describe(m))
        out.append(describe(m.fill_(1)))
        for expr in (lambda: m.item(), lambda: m.tolist(), lambda: m.numpy()):
            try:
                expr()
                out.append("no error")
            except Exception as e:
                out.append(type(e).__name__)
        print(json.dumps(out))
        """
    )
    mine, theirs = both_torch(body)
    # meta reads refuse: upstream raises NotImplementedError / RuntimeError / TypeError kinds;
    # ours must raise too, of the same type.
    assert mine == theirs


def test_binder_errors_agree():
    calls = [
        "torch.empty(2).fill_('a')",
        "torch.empty('a')",
        "torch.empty(2, device='cuda:x')",
        "torch.empty(2, device='gpu')",
        "torch.empty(2, dtype='float')",
        "torch.empty(2, 3, bogus=1)",
        "torch.empty(2).fill_(1, 2)",
    ]
    compare_cases(calls)


def test_parameter_and_requires_grad():
    body = DESCRIBE + textwrap.dedent(
        """
        p = torch.nn.Parameter(torch.empty(2, 2).fill_(1.0))
        out.append([type(p).__name__, p.requires_grad, p.is_leaf, p.tolist()])
        q = p.fill_(2.0) if False else None
        try:
            torch.empty(2, dtype=torch.int64).requires_grad_()
            out.append("no error")
        except Exception as e:
            out.append(type(e).__name__)
        print(json.dumps(out))
        """
    )
    mine, theirs = both_torch(body)
    assert mine == theirs


def test_backward_of_a_leaf_is_upstreams():
    # Once a refusal by name (before the engine, issue 8); now as upstream: a leaf's own
    # backward gives it a gradient of ones.
    proc_code = PRELUDE + textwrap.dedent(
        """
        x = torch.tensor([1.0], requires_grad=True)
        x.backward()
        print(json.dumps([x.grad.tolist(), x.grad_fn is None, x.is_leaf]))
        """
    )
    assert run_json(OURS, proc_code) == run_json(UPSTREAM, proc_code)


PROMOTION = [
    "(torch.tensor([1, 2, 3]) * 3.0)", "(torch.tensor([1, 2, 3]) + 1)",
    "(torch.tensor([True]) + 1)", "(torch.tensor([True]) + True)",
    "(torch.tensor([1.0], dtype=torch.float16) + 2.5)", "(torch.tensor([1, 2]) / 2)",
    "(torch.tensor([1, 2], dtype=torch.int32) + torch.tensor(5))",
    "(torch.tensor([1, 2], dtype=torch.int32) + torch.tensor(5.0, dtype=torch.float64))",
    "(torch.tensor([1, 2], dtype=torch.uint8) + torch.tensor([1], dtype=torch.int8))",
    "(torch.tensor([0.5], dtype=torch.bfloat16) * torch.tensor([2.0], dtype=torch.float16))",
    "(2 - torch.tensor([1.5]))", "(3 * torch.tensor([2]))",
    "(torch.tensor([1.0]) @ torch.tensor([2.0]))",
    "(torch.tensor([[1.0, 2.0]]) > 1.5)", "(torch.tensor([1, 2]) == 2)",
]


def test_python_operators_promote_as_upstream():
    """Python numbers reach kernels as wrapped numbers: they only raise the category."""
    compare_cases(PROMOTION)


def test_conversions_keep_self_or_copy_by_the_memory_format_as_upstreams():
    """to()/float()/aten::to with contiguous_format keep self unless its strides suggest
    channels_last (upstream's suggest_memory_format), and copy then; channels_last itself is
    refused by name here (not implemented) where upstream converts."""
    body = """
    out = {}
    x = torch.arange(6.).view(2, 3).t()
    cl = torch.arange(48.).view(2, 2, 3, 4).permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)
    n1 = torch.arange(24.).view(1, 2, 3, 4).permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)
    cf = torch.contiguous_format
    for name, t in (("t", x), ("channels-last", cl), ("batch of one", n1)):
        for how, f in (("to", lambda t: t.to(memory_format=cf)),
                       ("float", lambda t: t.float(memory_format=cf)),
                       ("double", lambda t: t.double(memory_format=cf)),
                       ("aten", lambda t: torch.ops.aten.to.dtype(t, torch.float32, False,
                                                                   False, cf))):
            r = f(t)
            out[name + " " + how] = [r is t, list(r.stride()), str(r.dtype)]
    four = torch.arange(24.).view(1, 2, 3, 4)
    for how, f in (("float", lambda: four.float(memory_format=torch.channels_last)),
                   ("to", lambda: four.to(memory_format=torch.channels_last))):
        r = f()
        out["channels_last " + how] = [r is four, list(r.stride())]
    out["channels_last of channels-last"] = cl.to(memory_format=torch.channels_last) is cl
    print(json.dumps(out))
    """
    ours, theirs = both_torch(body)
    assert ours == theirs
    assert theirs["channels_last to"] == [False, [24, 1, 8, 2]]
    assert ours["channels-last to"][0] is False and ours["t to"][0] is True
