// Autograd for torch.special's Bessel/Airy functions, orthogonal polynomials and zeta
// (kernels/cpu/special_bessel.cpp, special_polynomial.cpp), per upstream's derivatives.yaml:
// the Bessel/Airy functions and the polynomials are non_differentiable in every input, so
// their results never require grad (a formula with no edges whose output gets no history);
// special_zeta differentiates only `other`: grad * -self * zeta(self + 1, other)
// (SpecialZetaBackward0, and SpecialZetaBackward1 for a Scalar self), while a `self` that
// needs a gradient refuses as upstream's not_implemented("zeta") (SpecialZetaBackward0/2).
#include "autograd/derivatives/helpers.h"

namespace tn::autograd {
namespace {

using namespace d;

constexpr char kZeta[] = "zeta";

// special_zeta(self, other): edges self, other.
Grads zeta_backward(const Saved& s, const Grads& g) {
  Grads out(2);
  if (s.need(0)) not_implemented<kZeta>(s, g);
  if (s.need(1)) {
    const Tensor& self = s.tensor(0);
    Tensor shifted = call_tensor("aten::add.Scalar", {V(self), S(1.0), S(Scalar::from_int(1))});
    out[1] = mul(mul(g[0], neg(self)),
                 call_tensor("aten::special_zeta", {V(shifted), V(s.tensor(1))}));
  }
  return out;
}
// special_zeta.self_scalar(self, other): other gets grad * -self * zeta(self + 1, other),
// -self keeping the number's kind (an int stays an int, as c10::Scalar's negation).
Grads zeta_self_scalar_backward(const Saved& s, const Grads& g) {
  const Scalar self = s.scalar(0);
  const Scalar minus = self.is_floating() ? Scalar::from_double(-self.d)
                                          : Scalar::from_int(-self.to_int());
  Tensor z = call_tensor("aten::special_zeta.self_scalar",
                         {S(self.to_double() + 1.), V(s.tensor(1))});
  return {mul(mul(g[0], minus), z)};
}

}  // namespace

// No edges and a result without history: upstream's non_differentiable inputs.
#define TN_NOT_DIFFERENTIABLE(op) TN_REGISTER_DERIVATIVE(op, {"", {}, {}, 0, nullptr, 1})

TN_NOT_DIFFERENTIABLE("aten::special_bessel_j0");
TN_NOT_DIFFERENTIABLE("aten::special_bessel_j1");
TN_NOT_DIFFERENTIABLE("aten::special_bessel_y0");
TN_NOT_DIFFERENTIABLE("aten::special_bessel_y1");
TN_NOT_DIFFERENTIABLE("aten::special_modified_bessel_i0");
TN_NOT_DIFFERENTIABLE("aten::special_modified_bessel_i1");
TN_NOT_DIFFERENTIABLE("aten::special_modified_bessel_k0");
TN_NOT_DIFFERENTIABLE("aten::special_modified_bessel_k1");
TN_NOT_DIFFERENTIABLE("aten::special_scaled_modified_bessel_k0");
TN_NOT_DIFFERENTIABLE("aten::special_scaled_modified_bessel_k1");
TN_NOT_DIFFERENTIABLE("aten::special_spherical_bessel_j0");
TN_NOT_DIFFERENTIABLE("aten::special_airy_ai");
TN_NOT_DIFFERENTIABLE("aten::special_chebyshev_polynomial_t");
TN_NOT_DIFFERENTIABLE("aten::special_chebyshev_polynomial_t.x_scalar");
TN_NOT_DIFFERENTIABLE("aten::special_chebyshev_polynomial_t.n_scalar");
TN_NOT_DIFFERENTIABLE("aten::special_chebyshev_polynomial_u");
TN_NOT_DIFFERENTIABLE("aten::special_chebyshev_polynomial_u.x_scalar");
TN_NOT_DIFFERENTIABLE("aten::special_chebyshev_polynomial_u.n_scalar");
TN_NOT_DIFFERENTIABLE("aten::special_chebyshev_polynomial_v");
TN_NOT_DIFFERENTIABLE("aten::special_chebyshev_polynomial_v.x_scalar");
TN_NOT_DIFFERENTIABLE("aten::special_chebyshev_polynomial_v.n_scalar");
TN_NOT_DIFFERENTIABLE("aten::special_chebyshev_polynomial_w");
TN_NOT_DIFFERENTIABLE("aten::special_chebyshev_polynomial_w.x_scalar");
TN_NOT_DIFFERENTIABLE("aten::special_chebyshev_polynomial_w.n_scalar");
TN_NOT_DIFFERENTIABLE("aten::special_shifted_chebyshev_polynomial_t");
TN_NOT_DIFFERENTIABLE("aten::special_shifted_chebyshev_polynomial_t.x_scalar");
TN_NOT_DIFFERENTIABLE("aten::special_shifted_chebyshev_polynomial_t.n_scalar");
TN_NOT_DIFFERENTIABLE("aten::special_shifted_chebyshev_polynomial_u");
TN_NOT_DIFFERENTIABLE("aten::special_shifted_chebyshev_polynomial_u.x_scalar");
TN_NOT_DIFFERENTIABLE("aten::special_shifted_chebyshev_polynomial_u.n_scalar");
TN_NOT_DIFFERENTIABLE("aten::special_shifted_chebyshev_polynomial_v");
TN_NOT_DIFFERENTIABLE("aten::special_shifted_chebyshev_polynomial_v.x_scalar");
TN_NOT_DIFFERENTIABLE("aten::special_shifted_chebyshev_polynomial_v.n_scalar");
TN_NOT_DIFFERENTIABLE("aten::special_shifted_chebyshev_polynomial_w");
TN_NOT_DIFFERENTIABLE("aten::special_shifted_chebyshev_polynomial_w.x_scalar");
TN_NOT_DIFFERENTIABLE("aten::special_shifted_chebyshev_polynomial_w.n_scalar");
TN_NOT_DIFFERENTIABLE("aten::special_hermite_polynomial_h");
TN_NOT_DIFFERENTIABLE("aten::special_hermite_polynomial_h.x_scalar");
TN_NOT_DIFFERENTIABLE("aten::special_hermite_polynomial_h.n_scalar");
TN_NOT_DIFFERENTIABLE("aten::special_hermite_polynomial_he");
TN_NOT_DIFFERENTIABLE("aten::special_hermite_polynomial_he.x_scalar");
TN_NOT_DIFFERENTIABLE("aten::special_hermite_polynomial_he.n_scalar");
TN_NOT_DIFFERENTIABLE("aten::special_laguerre_polynomial_l");
TN_NOT_DIFFERENTIABLE("aten::special_laguerre_polynomial_l.x_scalar");
TN_NOT_DIFFERENTIABLE("aten::special_laguerre_polynomial_l.n_scalar");
TN_NOT_DIFFERENTIABLE("aten::special_legendre_polynomial_p");
TN_NOT_DIFFERENTIABLE("aten::special_legendre_polynomial_p.x_scalar");
TN_NOT_DIFFERENTIABLE("aten::special_legendre_polynomial_p.n_scalar");
// Their out= spellings: no edges either, so an out= call with an input requiring grad runs.
TN_NOT_DIFFERENTIABLE("aten::special_bessel_j0.out");
TN_NOT_DIFFERENTIABLE("aten::special_bessel_j1.out");
TN_NOT_DIFFERENTIABLE("aten::special_bessel_y0.out");
TN_NOT_DIFFERENTIABLE("aten::special_bessel_y1.out");
TN_NOT_DIFFERENTIABLE("aten::special_modified_bessel_i0.out");
TN_NOT_DIFFERENTIABLE("aten::special_modified_bessel_i1.out");
TN_NOT_DIFFERENTIABLE("aten::special_modified_bessel_k0.out");
TN_NOT_DIFFERENTIABLE("aten::special_modified_bessel_k1.out");
TN_NOT_DIFFERENTIABLE("aten::special_scaled_modified_bessel_k0.out");
TN_NOT_DIFFERENTIABLE("aten::special_scaled_modified_bessel_k1.out");
TN_NOT_DIFFERENTIABLE("aten::special_spherical_bessel_j0.out");
TN_NOT_DIFFERENTIABLE("aten::special_airy_ai.out");
TN_NOT_DIFFERENTIABLE("aten::special_chebyshev_polynomial_t.out");
TN_NOT_DIFFERENTIABLE("aten::special_chebyshev_polynomial_t.x_scalar_out");
TN_NOT_DIFFERENTIABLE("aten::special_chebyshev_polynomial_t.n_scalar_out");
TN_NOT_DIFFERENTIABLE("aten::special_chebyshev_polynomial_u.out");
TN_NOT_DIFFERENTIABLE("aten::special_chebyshev_polynomial_u.x_scalar_out");
TN_NOT_DIFFERENTIABLE("aten::special_chebyshev_polynomial_u.n_scalar_out");
TN_NOT_DIFFERENTIABLE("aten::special_chebyshev_polynomial_v.out");
TN_NOT_DIFFERENTIABLE("aten::special_chebyshev_polynomial_v.x_scalar_out");
TN_NOT_DIFFERENTIABLE("aten::special_chebyshev_polynomial_v.n_scalar_out");
TN_NOT_DIFFERENTIABLE("aten::special_chebyshev_polynomial_w.out");
TN_NOT_DIFFERENTIABLE("aten::special_chebyshev_polynomial_w.x_scalar_out");
TN_NOT_DIFFERENTIABLE("aten::special_chebyshev_polynomial_w.n_scalar_out");
TN_NOT_DIFFERENTIABLE("aten::special_shifted_chebyshev_polynomial_t.out");
TN_NOT_DIFFERENTIABLE("aten::special_shifted_chebyshev_polynomial_t.x_scalar_out");
TN_NOT_DIFFERENTIABLE("aten::special_shifted_chebyshev_polynomial_t.n_scalar_out");
TN_NOT_DIFFERENTIABLE("aten::special_shifted_chebyshev_polynomial_u.out");
TN_NOT_DIFFERENTIABLE("aten::special_shifted_chebyshev_polynomial_u.x_scalar_out");
TN_NOT_DIFFERENTIABLE("aten::special_shifted_chebyshev_polynomial_u.n_scalar_out");
TN_NOT_DIFFERENTIABLE("aten::special_shifted_chebyshev_polynomial_v.out");
TN_NOT_DIFFERENTIABLE("aten::special_shifted_chebyshev_polynomial_v.x_scalar_out");
TN_NOT_DIFFERENTIABLE("aten::special_shifted_chebyshev_polynomial_v.n_scalar_out");
TN_NOT_DIFFERENTIABLE("aten::special_shifted_chebyshev_polynomial_w.out");
TN_NOT_DIFFERENTIABLE("aten::special_shifted_chebyshev_polynomial_w.x_scalar_out");
TN_NOT_DIFFERENTIABLE("aten::special_shifted_chebyshev_polynomial_w.n_scalar_out");
TN_NOT_DIFFERENTIABLE("aten::special_hermite_polynomial_h.out");
TN_NOT_DIFFERENTIABLE("aten::special_hermite_polynomial_h.x_scalar_out");
TN_NOT_DIFFERENTIABLE("aten::special_hermite_polynomial_h.n_scalar_out");
TN_NOT_DIFFERENTIABLE("aten::special_hermite_polynomial_he.out");
TN_NOT_DIFFERENTIABLE("aten::special_hermite_polynomial_he.x_scalar_out");
TN_NOT_DIFFERENTIABLE("aten::special_hermite_polynomial_he.n_scalar_out");
TN_NOT_DIFFERENTIABLE("aten::special_laguerre_polynomial_l.out");
TN_NOT_DIFFERENTIABLE("aten::special_laguerre_polynomial_l.x_scalar_out");
TN_NOT_DIFFERENTIABLE("aten::special_laguerre_polynomial_l.n_scalar_out");
TN_NOT_DIFFERENTIABLE("aten::special_legendre_polynomial_p.out");
TN_NOT_DIFFERENTIABLE("aten::special_legendre_polynomial_p.x_scalar_out");
TN_NOT_DIFFERENTIABLE("aten::special_legendre_polynomial_p.n_scalar_out");

// No formula runs, so complex inputs requiring grad reach the kernel, which refuses them in
// upstream's words.
TN_COMPLEX_READY("aten::special_bessel_j0", "aten::special_bessel_j1", "aten::special_bessel_y0",
                 "aten::special_bessel_y1", "aten::special_modified_bessel_i0",
                 "aten::special_modified_bessel_i1", "aten::special_modified_bessel_k0",
                 "aten::special_modified_bessel_k1", "aten::special_scaled_modified_bessel_k0",
                 "aten::special_scaled_modified_bessel_k1", "aten::special_spherical_bessel_j0",
                 "aten::special_airy_ai", "aten::special_chebyshev_polynomial_t",
                 "aten::special_chebyshev_polynomial_t.x_scalar",
                 "aten::special_chebyshev_polynomial_t.n_scalar",
                 "aten::special_chebyshev_polynomial_u",
                 "aten::special_chebyshev_polynomial_u.x_scalar",
                 "aten::special_chebyshev_polynomial_u.n_scalar",
                 "aten::special_chebyshev_polynomial_v",
                 "aten::special_chebyshev_polynomial_v.x_scalar",
                 "aten::special_chebyshev_polynomial_v.n_scalar",
                 "aten::special_chebyshev_polynomial_w",
                 "aten::special_chebyshev_polynomial_w.x_scalar",
                 "aten::special_chebyshev_polynomial_w.n_scalar",
                 "aten::special_shifted_chebyshev_polynomial_t",
                 "aten::special_shifted_chebyshev_polynomial_t.x_scalar",
                 "aten::special_shifted_chebyshev_polynomial_t.n_scalar",
                 "aten::special_shifted_chebyshev_polynomial_u",
                 "aten::special_shifted_chebyshev_polynomial_u.x_scalar",
                 "aten::special_shifted_chebyshev_polynomial_u.n_scalar",
                 "aten::special_shifted_chebyshev_polynomial_v",
                 "aten::special_shifted_chebyshev_polynomial_v.x_scalar",
                 "aten::special_shifted_chebyshev_polynomial_v.n_scalar",
                 "aten::special_shifted_chebyshev_polynomial_w",
                 "aten::special_shifted_chebyshev_polynomial_w.x_scalar",
                 "aten::special_shifted_chebyshev_polynomial_w.n_scalar",
                 "aten::special_hermite_polynomial_h",
                 "aten::special_hermite_polynomial_h.x_scalar",
                 "aten::special_hermite_polynomial_h.n_scalar",
                 "aten::special_hermite_polynomial_he",
                 "aten::special_hermite_polynomial_he.x_scalar",
                 "aten::special_hermite_polynomial_he.n_scalar",
                 "aten::special_laguerre_polynomial_l",
                 "aten::special_laguerre_polynomial_l.x_scalar",
                 "aten::special_laguerre_polynomial_l.n_scalar",
                 "aten::special_legendre_polynomial_p",
                 "aten::special_legendre_polynomial_p.x_scalar",
                 "aten::special_legendre_polynomial_p.n_scalar", "aten::special_bessel_j0.out",
                 "aten::special_bessel_j1.out", "aten::special_bessel_y0.out",
                 "aten::special_bessel_y1.out", "aten::special_modified_bessel_i0.out",
                 "aten::special_modified_bessel_i1.out", "aten::special_modified_bessel_k0.out",
                 "aten::special_modified_bessel_k1.out",
                 "aten::special_scaled_modified_bessel_k0.out",
                 "aten::special_scaled_modified_bessel_k1.out",
                 "aten::special_spherical_bessel_j0.out", "aten::special_airy_ai.out",
                 "aten::special_chebyshev_polynomial_t.out",
                 "aten::special_chebyshev_polynomial_t.x_scalar_out",
                 "aten::special_chebyshev_polynomial_t.n_scalar_out",
                 "aten::special_chebyshev_polynomial_u.out",
                 "aten::special_chebyshev_polynomial_u.x_scalar_out",
                 "aten::special_chebyshev_polynomial_u.n_scalar_out",
                 "aten::special_chebyshev_polynomial_v.out",
                 "aten::special_chebyshev_polynomial_v.x_scalar_out",
                 "aten::special_chebyshev_polynomial_v.n_scalar_out",
                 "aten::special_chebyshev_polynomial_w.out",
                 "aten::special_chebyshev_polynomial_w.x_scalar_out",
                 "aten::special_chebyshev_polynomial_w.n_scalar_out",
                 "aten::special_shifted_chebyshev_polynomial_t.out",
                 "aten::special_shifted_chebyshev_polynomial_t.x_scalar_out",
                 "aten::special_shifted_chebyshev_polynomial_t.n_scalar_out",
                 "aten::special_shifted_chebyshev_polynomial_u.out",
                 "aten::special_shifted_chebyshev_polynomial_u.x_scalar_out",
                 "aten::special_shifted_chebyshev_polynomial_u.n_scalar_out",
                 "aten::special_shifted_chebyshev_polynomial_v.out",
                 "aten::special_shifted_chebyshev_polynomial_v.x_scalar_out",
                 "aten::special_shifted_chebyshev_polynomial_v.n_scalar_out",
                 "aten::special_shifted_chebyshev_polynomial_w.out",
                 "aten::special_shifted_chebyshev_polynomial_w.x_scalar_out",
                 "aten::special_shifted_chebyshev_polynomial_w.n_scalar_out",
                 "aten::special_hermite_polynomial_h.out",
                 "aten::special_hermite_polynomial_h.x_scalar_out",
                 "aten::special_hermite_polynomial_h.n_scalar_out",
                 "aten::special_hermite_polynomial_he.out",
                 "aten::special_hermite_polynomial_he.x_scalar_out",
                 "aten::special_hermite_polynomial_he.n_scalar_out",
                 "aten::special_laguerre_polynomial_l.out",
                 "aten::special_laguerre_polynomial_l.x_scalar_out",
                 "aten::special_laguerre_polynomial_l.n_scalar_out",
                 "aten::special_legendre_polynomial_p.out",
                 "aten::special_legendre_polynomial_p.x_scalar_out",
                 "aten::special_legendre_polynomial_p.n_scalar_out");

TN_REGISTER_DERIVATIVE("aten::special_zeta",
                       {"SpecialZetaBackward0", {0, 1}, {{0}, {1}}, 0, zeta_backward});
TN_REGISTER_DERIVATIVE("aten::special_zeta.self_scalar",
                       {"SpecialZetaBackward1", {1}, {{1}}, 0, zeta_self_scalar_backward});
TN_REGISTER_DERIVATIVE("aten::special_zeta.other_scalar",
                       {"SpecialZetaBackward2", {0}, {}, 0, not_implemented<kZeta>});

}  // namespace tn::autograd
