"""The samplers behind torch.distributions' Gamma, Beta, Chi2, StudentT, Dirichlet and Binomial
(_standard_gamma, _sample_dirichlet, binomial) and the reparameterised gradient
_standard_gamma_grad (issue 9: every random sampler, seeded bit-identical), ours and upstream
each in its own process: the draws bit for bit under the same seeds and generators (every branch:
alpha below 1, 0, NaN and inf; BTRS and inversion for binomial, probabilities above and below 0.5,
0 and 1; the gradient's three approximations), the distributions' sample(), the derivative and its
refusal, dtype and shape errors, binomial's resized result and its warning, and which of them have
a Meta kernel (_standard_gamma alone, as upstream).

One deliberate difference: upstream's binomial never returns for a NaN or infinite count with a
probability in (0, 1) (its loops wait for a sum above the count); ours raises RuntimeError."""

from __future__ import annotations

from helpers import BITS_PRELUDE, CASES_PRELUDE, OURS, cases_differing, run_json

CODE = CASES_PRELUDE + BITS_PRELUDE + r"""
torch.manual_seed(0)
for dt in (torch.float32, torch.float64):
    a = torch.tensor([0.1, 0.5, 1.0, 2.5, 10.0, 0.0, 1e-3, 100.0, 0.99, 3.0], dtype=dt)
    case(f"gamma_{dt}", lambda: bits(torch._standard_gamma(a)))
    case(f"gamma_big_{dt}", lambda: bits(torch._standard_gamma(torch.rand(50, 7, dtype=dt) * 5)))
    case(f"gamma_t_{dt}", lambda: bits(torch._standard_gamma((torch.rand(5, 4, dtype=dt) * 3).t())))
    case(f"gamma_bad_{dt}", lambda: bits(torch._standard_gamma(torch.tensor([0., -1., float('nan'), float('inf')], dtype=dt))))
    case(f"dirichlet_{dt}", lambda: bits(torch._sample_dirichlet(torch.rand(6, 4, dtype=dt) * 2 + 0.1)))
    case(f"dirichlet_small_{dt}", lambda: bits(torch._sample_dirichlet(torch.full((3, 3), 1e-3, dtype=dt))))
    n = torch.tensor([0., 1., 5., 20., 100., 1000., 7., 50., -1., 30.], dtype=dt)
    p = torch.tensor([0.5, 0.3, 0.9, 0.2, 0.05, 0.5, 0.0, 0.99, 0.5, 1.0], dtype=dt)
    case(f"binomial_{dt}", lambda: bits(torch.binomial(n, p)))
    case(f"binomial_bc_{dt}", lambda: bits(torch.binomial(torch.full((4, 3), 40., dtype=dt), torch.tensor([0.1, 0.5, 0.8], dtype=dt))))
    case(f"binomial_nan_{dt}", lambda: bits(torch.binomial(torch.tensor([5., float("nan"), float("inf")], dtype=dt), torch.tensor([float("nan"), 1.0, 0.0], dtype=dt))))
    x = torch.tensor([0.1, 0.5, 1.0, 5.0, 9.0, 20.0, 3.0, 0.01], dtype=dt)
    al = torch.tensor([0.5, 2.0, 10.0, 12.0, 9.5, 20.0, 1.0, -0.5], dtype=dt)
    case(f"gamma_grad_{dt}", lambda: bits(torch._standard_gamma_grad(al, x)))
    aa = (torch.rand(8, dtype=dt) * 3 + 0.2).requires_grad_()
    case(f"rsample_grad_{dt}", lambda: bits(torch.autograd.grad(torch._standard_gamma(aa).sum(), aa)[0]))
case("dist_gamma", lambda: bits(torch.distributions.Gamma(torch.ones(5) * 2, torch.ones(5)).sample((3,))))
case("dist_beta", lambda: bits(torch.distributions.Beta(torch.ones(5) * 2, torch.ones(5) * 3).sample((2,))))
case("dist_dirichlet", lambda: bits(torch.distributions.Dirichlet(torch.ones(4)).sample((3,))))
case("dist_binomial", lambda: bits(torch.distributions.Binomial(10, torch.full((4,), 0.3)).sample()))
case("dist_chi2", lambda: bits(torch.distributions.Chi2(torch.full((4,), 3.)).sample()))
case("dist_studentt", lambda: bits(torch.distributions.StudentT(torch.full((4,), 3.)).sample()))
case("half", lambda: torch._standard_gamma(torch.ones(2, dtype=torch.half)))
case("dir_long", lambda: torch._sample_dirichlet(torch.ones(2, dtype=torch.long)))
case("binom_half", lambda: torch.binomial(torch.ones(2, dtype=torch.half), torch.ones(2, dtype=torch.half)))
case("binom_long", lambda: torch.binomial(torch.ones(2, dtype=torch.long), torch.ones(2)))
case("binom_prob_long", lambda: torch.binomial(torch.ones(2), torch.ones(2, dtype=torch.long)))
case("binom_cfloat", lambda: torch.binomial(torch.ones(2, dtype=torch.cfloat),
                                            torch.ones(2, dtype=torch.cfloat)))
case("binom_mixed", lambda: torch.binomial(torch.ones(2), torch.ones(2, dtype=torch.double)))
case("binom_shape", lambda: torch.binomial(torch.ones(2, 3), torch.ones(3, 2)))
case("grad_fn", lambda: [type(torch._standard_gamma(aa).grad_fn).__name__])
case("gg_grad", lambda: torch._standard_gamma_grad(aa, aa.detach()).sum().backward())
def meta(r):
    return [str(r.shape), str(r.dtype), str(r.device)]
case("meta", lambda: meta(torch._standard_gamma(torch.ones(2, 3, device='meta', dtype=torch.double))))
def kind(f):
    try: f(); return "returns"
    except Exception as e: return type(e).__name__
case("meta_binomial", lambda: kind(lambda: torch.binomial(torch.ones(2, device='meta'), torch.ones(2, device='meta'))))
case("meta_dirichlet", lambda: kind(lambda: torch._sample_dirichlet(torch.ones(2, device='meta'))))
case("meta_gamma_grad", lambda: kind(lambda: torch._standard_gamma_grad(torch.ones(2, device='meta'), torch.ones(2, device='meta'))))
def warned(f):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        r = f()
    return [bits(r), [str(x.message).split(" (Triggered internally")[0] for x in w]]
case("binom_grow", lambda: warned(lambda: torch.binomial(torch.full((2,), 30.), torch.full((3, 2), 0.4))))
case("binom_grow2", lambda: warned(lambda: torch.binomial(torch.full((3, 2), 30.), torch.full((2,), 0.4))))
case("gg_shape", lambda: torch._standard_gamma_grad(torch.ones(2, 3), torch.ones(3, 2)))
case("gg_dtype", lambda: torch._standard_gamma_grad(torch.ones(2), torch.ones(2).double()))
case("gg_bc", lambda: bits(torch._standard_gamma_grad(torch.full((3, 1), 2.), torch.tensor([0.5, 3., 30.]))))
g = torch.Generator().manual_seed(11)
for dt in (torch.float32, torch.float64):  # every branch of the samplers, many times
    al = torch.rand(3000, generator=g, dtype=dt) * 12
    case(f"gamma_many_{dt}", lambda: bits(torch._standard_gamma(al, generator=g)))
    cnt = torch.randint(0, 400, (3000,), generator=g).to(dt)
    pr = torch.rand(3000, generator=g, dtype=dt)
    case(f"binomial_many_{dt}", lambda: bits(torch.binomial(cnt, pr, generator=g)))
    case(f"gamma_grad_many_{dt}", lambda: bits(torch._standard_gamma_grad(al + 0.01, torch._standard_gamma(al + 0.01, generator=g))))
case("gen", lambda: bits(torch._standard_gamma(torch.ones(4), generator=torch.Generator().manual_seed(3))))
print(json.dumps(out))
"""


def test_samplers_agree_bit_for_bit():
    ours, upstream, differ = cases_differing(CODE)
    assert not differ, differ
    # not vacuous: draws came out, the bad inputs raised, the derivative is upstream's node
    assert upstream["gamma_many_torch.float64"][1] == [3000]
    assert upstream["grad_fn"] == ["StandardGammaBackward0"]
    assert upstream["gg_dtype"][:2] == ["raises", "RuntimeError"]
    assert upstream["binom_grow"][1], "upstream warned of the resized result"


def test_binomial_refuses_what_upstream_never_returns_from():
    code = (CASES_PRELUDE + "\n"
            "for n in (float('nan'), float('inf')):\n"
            "    case(str(n), lambda: torch.binomial(torch.tensor([n]), torch.tensor([0.5])))\n"
            "print(json.dumps(out))\n")
    out = run_json(OURS, code)
    assert [v[:2] for v in out.values()] == [["raises", "RuntimeError"]] * 2, out
