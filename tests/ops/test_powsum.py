"""linalg._powsum (sum(|x| ** ord), vector_norm without its root) and _foreach_powsum, ours and
upstream each in its own process.

Bit for bit: float16 and bfloat16 (summed in float), ord 0 and +-inf for every dtype, and the
2-norm's sum of squares over contiguous rows (upstream's vectorised lanes, as vector_norm's);
the dtype rules, errors, empty reductions, out= of the foreach form and the refused derivative.
The other sums (other ords, other layouts, complex inputs) run pairwise in the accumulation
type, as our vector_norm's: upstream's vectorised order is not reproduced, so they are held to
docs/AGREEMENT_RULES.md's rule, within upstream's own float32 error against its float64 result.
"""

from __future__ import annotations

from helpers import (BITS_PRELUDE, CASES_PRELUDE, SAME_VALUES_IN_DTYPE,
                     cases_beyond_upstreams_error, cases_differing)

BITS = CASES_PRELUDE + BITS_PRELUDE + r"""
ps = torch.linalg._powsum
g = torch.Generator().manual_seed(0)
INF = float('inf')
SHAPES = [((1000,), None), ((37, 300), None), ((37, 300), 1), ((37, 300), 0),
          ((5, 6, 7), (0, 2)), ((4097,), None), ((3,), None), ((0, 3), 1), ((), None)]
for dt in (torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.complex64):
    for shape, dim in SHAPES:
        x = torch.randn(shape, generator=g).to(dt)
        x.view(-1)[::7] = 0  # ord 0 counts every element, zero or not (pow(0, 0) is 1)
        for o in (0, INF, -INF, 2, 1, 3, 0.5, -1, 2.5):
            if dt in (torch.float16, torch.bfloat16) or o in (0, INF, -INF) or (
                    o == 2 and dt in (torch.float32, torch.float64) and dim in (None, 1)):
                case(f"{dt}_{shape}_{dim}_{o}", lambda: bits(ps(x, o, dim)))
x = torch.randn(4, 5, generator=g)
case("keepdim", lambda: bits(ps(x, 3, 1, True)))
case("neg_dim", lambda: bits(ps(x, 0, -1)))
case("dims_list", lambda: bits(ps(x, 2, [0, 1])))
case("nan_inf", lambda: bits(ps(torch.tensor([float('nan'), 1.]), INF)))
case("ones_inf", lambda: bits(ps(torch.tensor([1., -1., 0.5]), INF)))
case("zero_neg_inf", lambda: bits(ps(torch.tensor([0., 3.]), -INF)))
case("empty_neg", lambda: bits(ps(torch.ones(0), -1)))
case("empty_inf_dim", lambda: bits(ps(torch.ones(2, 0), INF, 1)))
case("dtype_half", lambda: bits(ps(x, 2, dtype=torch.half)))
case("dtype_double", lambda: bits(ps(x, 2, dtype=torch.double)))
case("dtype_long", lambda: ps(x, 2, dtype=torch.long))
case("long_input", lambda: ps(torch.ones(3, dtype=torch.long), 2))
case("bool_input", lambda: ps(torch.ones(3, dtype=torch.bool), 2))
case("int8_input", lambda: ps(torch.ones(3, dtype=torch.int8), 2))
case("dtype_int", lambda: ps(x, 2, dtype=torch.int32))
case("complex_dtype", lambda: bits(ps(torch.ones(3, dtype=torch.cfloat), 2, dtype=torch.cdouble)))
case("complex_ord", lambda: ps(x, 1j))
case("bad_dim", lambda: ps(x, 2, 2))
def raises(f):  # the exception's type alone (the message is the argument parser's, or an
    try:        # internal assert's)
        return f()
    except Exception as e:
        return type(e).__name__
case("out_kw", lambda: raises(lambda: ps(x, 2, out=torch.empty(0))))
def meta(r):
    return [list(r.shape), str(r.dtype), str(r.device)]
case("meta", lambda: meta(ps(torch.empty(3, 4, device='meta', dtype=torch.cfloat), 2, 0, True)))
case("meta_long", lambda: meta(ps(torch.empty(3, device='meta', dtype=torch.int8), 2)))
xs = [torch.randn(6, generator=g), torch.randn(3, 4, generator=g).double(),
      torch.randn(5, generator=g).half()]
case("foreach", lambda: [bits(r) for r in torch._foreach_powsum(xs, 2)])
case("foreach_inf", lambda: [bits(r) for r in torch._foreach_powsum(xs, INF)])
case("foreach_dtype", lambda: [bits(r) for r in torch._foreach_powsum(xs[:2], 0,
                                                                     dtype=torch.double)])
case("foreach_empty_list", lambda: torch._foreach_powsum([], 2))
case("foreach_long", lambda: torch._foreach_powsum([xs[0], torch.ones(2, dtype=torch.long)], 2))
def foreach_out(o):
    torch.ops.aten._foreach_powsum.Scalar_out(xs[:2], 2, out=o)
    return [bits(t) for t in o]
case("foreach_out", lambda: foreach_out([torch.empty(0), torch.empty(7, dtype=torch.double)]))
case("foreach_out_dtype", lambda: foreach_out([torch.empty(0, dtype=torch.double),
                                               torch.empty(0, dtype=torch.double)]))
case("foreach_out_len", lambda: raises(lambda: foreach_out([torch.empty(0)])))
w = torch.randn(3, 4, generator=g, requires_grad=True)
def grad_of(f):
    y = f()
    y.backward()
    return type(y.grad_fn).__name__
case("grad", lambda: grad_of(lambda: ps(w, 2)))
case("foreach_grad", lambda: grad_of(lambda: torch._foreach_powsum([w], 2)[0]))
print(json.dumps(out))
"""

# The sums our pairwise order rounds differently from upstream's vectorised one, in float32
# against upstream's float64 (helpers.SAME_VALUES_IN_DTYPE).
ERRORS = CASES_PRELUDE + SAME_VALUES_IN_DTYPE + r"""
ps = torch.linalg._powsum
for shape, dim in [((1000,), None), ((37, 300), None), ((37, 300), 1), ((37, 300), 0),
                   ((5, 6, 7), (0, 2)), ((4097,), None)]:
    x = randn(*shape)
    for o in (2, 1, 3, 0.5, -1, 2.5):
        case(f"{shape}_{dim}_{o}", lambda: ps(x, o, dim).double())
    c = torch.complex(randn(*shape), randn(*shape))
    case(f"complex_{shape}_{dim}", lambda: ps(c, 2, dim).double())
print(json.dumps(out))
"""


def test_powsum_agrees_bit_for_bit():
    ours, upstream, differ = cases_differing(BITS)
    assert not differ, differ
    # not vacuous: the sums came out, the bad inputs raised, the derivative is refused as
    # upstream refuses it
    assert upstream["torch.float16_(37, 300)_0_3"][0] == "torch.float16"
    assert upstream["dtype_long"][:2] == ["raises", "NotImplementedError"]
    assert upstream["grad"][:2] == ["raises", "RuntimeError"]
    assert upstream["meta_long"] == [[], "torch.int64", "meta"]
    assert len(upstream) > 150


def test_powsum_within_upstreams_own_error():
    failures = cases_beyond_upstreams_error(ERRORS)
    assert not failures, failures
