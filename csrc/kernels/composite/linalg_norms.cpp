// Matrix norms, the pseudoinverse and the rank, as upstream composes them over the
// factorisations (CompositeImplicit, but linalg_pinv.atol_rtol_tensor, which has its own
// derivative):
//   linalg_matrix_norm  'fro' (vector_norm of the matrix), 'nuc' (sum of singular values), ±2
//                       (largest/smallest singular value), ±1 and ±inf (max/min of column or
//                       row sums of |x|)
//   linalg_norm         the vector norm, or the matrix norm when ord names one for two dims
//   linalg_pinv         V diag(1/s) U^H over the singular values above max(atol, rtol s_max)
//                       (eigh's for hermitian=True); rcond spellings, pinverse
//   linalg_matrix_rank  the number of singular values (|eigenvalues|) above the same tolerance
//   _lu_with_info       the deprecated torch.lu: linalg_lu_factor_ex, with its warning
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <mutex>
#include <sstream>

#include "core/promotion.h"
#include "core/warning.h"
#include "kernels/composite/ops.h"
#include "kernels/composite/shape_util.h"
#include "kernels/rules/elementwise.h"

namespace tn {
namespace {

using ops::i64;
using ops::mH;
using ops::t;

Value opt_dtype_value(const std::optional<ScalarType>& dt) {
  return dt ? Value::of_dtype(*dt) : Value{};
}
Tensor matmul(const Tensor& a, const Tensor& b) {
  return call_tensor("aten::matmul", {t(a), t(b)});
}
Tensor unsqueeze(const Tensor& x, int64_t d) {
  return call_tensor("aten::unsqueeze", {t(x), i64(d)});
}

// --- matrix norms ----------------------------------------------------------------------------

void check_norm_dtype(const std::optional<ScalarType>& dt, ScalarType self, const char* name) {
  if (!dt) return;
  TN_CHECK(is_floating(*dt) || is_complex(*dt), name, ": dtype should be floating point or "
           "complex, but got ", c10_dtype_name(*dt));
  TN_CHECK(is_complex(self) == is_complex(*dt), name, ": dtype should be ",
           is_complex(self) ? "complex" : "real", " for ", is_complex(self) ? "complex" : "real",
           " inputs, but got ", c10_dtype_name(*dt));
  TN_CHECK(promote_types(self, *dt) == *dt, name, ": the dtype of the input (",
           c10_dtype_name(self), ") should be convertible without narrowing to the specified "
           "dtype (", c10_dtype_name(*dt), ")");
}

// upstream's _linalg_matrix_norm_checks; dim is wrapped in place.
void matrix_norm_checks(const Tensor& A, Dims& dim, const std::optional<ScalarType>& dt,
                        bool low_precision) {
  TN_CHECK(A->dim() >= 2, "linalg.matrix_norm: The input tensor A must have at least 2 "
           "dimensions.");
  const ScalarType st = A->dtype();
  TN_CHECK(is_floating(st) || is_complex(st), "linalg.matrix_norm: Expected a floating point or "
           "complex tensor as input. Got ", c10_dtype_name(st));
  if (!low_precision)
    TN_CHECK(st == ScalarType::Float || st == ScalarType::Double ||
                 st == ScalarType::ComplexFloat || st == ScalarType::ComplexDouble,
             "linalg.matrix_norm: Low precision dtypes not supported. Got ", c10_dtype_name(st));
  TN_CHECK(dim.size() == 2, "linalg.matrix_norm: dim must be a 2-tuple. Got ", dims_str(dim));
  for (int64_t& d : dim) d = wrap_dim(d, A->dim());
  TN_CHECK(dim[0] != dim[1], "linalg.matrix_norm: dims must be different. Got (", dim[0], ", ",
           dim[1], ")");
  check_norm_dtype(dt, st, "linalg.matrix_norm");
}

// The dims other than d0, d1 in order, then d0 and d1; and its inverse.
Dims backshift(int64_t d0, int64_t d1, int64_t ndim) {
  Dims p;
  for (int64_t d = 0; d < ndim; ++d)
    if (d != d0 && d != d1) p.push_back(d);
  p.push_back(d0);
  p.push_back(d1);
  return p;
}
Dims inverse_of(const Dims& p) {
  Dims r(p.size());
  for (size_t i = 0; i < p.size(); ++i) r[static_cast<size_t>(p[i])] = static_cast<int64_t>(i);
  return r;
}
Tensor permute(const Tensor& x, const Dims& p) {
  return call_tensor("aten::permute", {t(x), ops::ints(p)});
}
Tensor svdvals(const Tensor& x) { return call_tensor("aten::linalg_svdvals", {t(x), Value{}}); }
Tensor cast_to(const Tensor& A, const std::optional<ScalarType>& dt) {
  return dt ? call_tensor("aten::_to_copy", {t(A), Value::of_dtype(*dt)}) : A;
}

// The singular values with dims (d0, d1) moved to the back, reduced by f over them (keeping
// the reduced dim when keepdim), and both reduced dims put back as size 1 when keepdim.
template <typename F>
Tensor over_singular_values(const Tensor& A, const Dims& dim, bool keepdim,
                            const std::optional<ScalarType>& dt, F&& f) {
  Dims p = backshift(dim[0], dim[1], A->dim());
  Tensor r = f(svdvals(permute(cast_to(A, dt), p)));
  if (keepdim) r = permute(unsqueeze(r, -1), inverse_of(p));
  return r;
}

// linalg_matrix_norm(Tensor self, Scalar ord, int[] dim=[-2,-1], bool keepdim=False, *,
// ScalarType? dtype=None)
Tensor matrix_norm_scalar(const Tensor& A, const Scalar& ord_s, Dims dim, bool keepdim,
                          const std::optional<ScalarType>& dt) {
  const double ord = ord_s.to_double(), a = std::abs(ord);
  std::ostringstream o;
  o << ord;
  TN_CHECK(a == 2. || a == 1. || a == INFINITY, "linalg.matrix_norm: Order ", o.str(),
           " not supported.");
  matrix_norm_checks(A, dim, dt, /*low_precision=*/a != 2.);
  const char* reduce = ord > 0 ? "aten::amax" : "aten::amin";
  auto max_min = [&](const Tensor& x, int64_t d) {
    return call_tensor(reduce, {t(x), ops::ints({d}), Value::of_bool(keepdim)});
  };
  if (a == 2.) {
    return over_singular_values(A, dim, keepdim, dt, [&](const Tensor& s) {
      return call_tensor(reduce, {t(s), ops::ints({-1}), Value::of_bool(keepdim)});
    });
  }
  if (a == INFINITY) std::swap(dim[0], dim[1]);  // the inf norm is the 1 norm of the transpose
  if (!keepdim && dim[0] < dim[1]) --dim[1];
  Tensor sums = call_tensor("aten::linalg_vector_norm",
                            {t(A), Value::of_scalar(Scalar::from_double(1.0)),
                             ops::ints({dim[0]}), Value::of_bool(keepdim), opt_dtype_value(dt)});
  return max_min(sums, dim[1]);
}

// linalg_matrix_norm.str_ord(Tensor self, str ord='fro', ...)
Tensor matrix_norm_str(const Tensor& A, const std::string& ord, Dims dim, bool keepdim,
                       const std::optional<ScalarType>& dt) {
  TN_CHECK(ord == "fro" || ord == "nuc", "linalg.matrix_norm: Order ", ord, " not supported.");
  matrix_norm_checks(A, dim, dt, /*low_precision=*/ord != "nuc");
  if (ord == "fro")
    return call_tensor("aten::linalg_vector_norm",
                       {t(A), Value::of_scalar(Scalar::from_double(2.0)), ops::ints(dim),
                        Value::of_bool(keepdim), opt_dtype_value(dt)});
  return over_singular_values(A, dim, keepdim, dt, [&](const Tensor& s) {
    return call_tensor("aten::sum.dim_IntList", {t(s), ops::ints({-1}), Value::of_bool(keepdim),
                                                 Value{}});
  });
}

void matrix_norm(Call& c) {
  c.ret(matrix_norm_scalar(c.tensor(0), c.scalar(1), c.int_list(2), c.to_bool(3),
                           c.optional_dtype(4)));
}
void matrix_norm_out(Call& c) {
  c.ret(ops::write_out(c.tensor(5), matrix_norm_scalar(c.tensor(0), c.scalar(1), c.int_list(2),
                                                       c.to_bool(3), c.optional_dtype(4)),
                       c.key()));
}
void matrix_norm_s(Call& c) {
  c.ret(matrix_norm_str(c.tensor(0), c.arg(1).str, c.int_list(2), c.to_bool(3),
                        c.optional_dtype(4)));
}
void matrix_norm_s_out(Call& c) {
  c.ret(ops::write_out(c.tensor(5), matrix_norm_str(c.tensor(0), c.arg(1).str, c.int_list(2),
                                                    c.to_bool(3), c.optional_dtype(4)),
                       c.key()));
}

// linalg_norm(Tensor self, Scalar? ord=None, int[1]? dim=None, bool keepdim=False, *,
// ScalarType? dtype=None): a matrix norm when ord is given for two dims (or a 2-D input
// without dim), else the vector norm (ord 2 by default).
Tensor norm_scalar(const Call& c) {
  const Tensor& X = c.tensor(0);
  const bool has_ord = !c.arg(1).is_none(), has_dim = !c.arg(2).is_none();
  const Dims dim = has_dim ? c.int_list(2) : Dims();
  if (has_dim)
    TN_CHECK(dim.size() == 1 || dim.size() == 2, "linalg.norm: If dim is specified, it must be "
             "of length 1 or 2. Got ", dims_str(dim));
  else if (has_ord)
    TN_CHECK(X->dim() == 1 || X->dim() == 2, "linalg.norm: If dim is not specified but ord is, "
             "the input must be 1D or 2D. Got ", X->dim(), "D.");
  if (has_ord && ((has_dim && dim.size() == 2) || (!has_dim && X->dim() == 2)))
    return matrix_norm_scalar(X, c.scalar(1), has_dim ? dim : Dims{0, 1}, c.to_bool(3),
                              c.optional_dtype(4));
  Value ord = has_ord ? c.arg(1) : Value::of_scalar(Scalar::from_double(2.0));
  return call_tensor("aten::linalg_vector_norm", {c.arg(0), ord, c.arg(2), c.arg(3), c.arg(4)});
}
// linalg_norm.ord_str(Tensor self, str ord, int[1]? dim=None, bool keepdim=False, *, dtype)
Tensor norm_str(const Call& c) {
  const Tensor& X = c.tensor(0);
  const bool has_dim = !c.arg(2).is_none();
  const Dims dim = has_dim ? c.int_list(2) : Dims{0, 1};
  if (has_dim)
    TN_CHECK(dim.size() == 1 || dim.size() == 2, "linalg.norm: If dim is specified, it mut be "
             "of length 1 or 2. Got ", dims_str(dim));
  else
    TN_CHECK(X->dim() == 1 || X->dim() == 2, "linalg.norm: If dim is not specified but ord is, "
             "the input must be 1D or 2D. Got ", X->dim(), "D.");
  return matrix_norm_str(X, c.arg(1).str, dim, c.to_bool(3), c.optional_dtype(4));
}
void norm(Call& c) { c.ret(norm_scalar(c)); }
void norm_out(Call& c) { c.ret(ops::write_out(c.tensor(5), norm_scalar(c), c.key())); }
void norm_s(Call& c) { c.ret(norm_str(c)); }
void norm_s_out(Call& c) { c.ret(ops::write_out(c.tensor(5), norm_str(c), c.key())); }

// --- tolerances, pinv and matrix_rank --------------------------------------------------------

Tensor scalar_tensor(double v, ScalarType dt, Device dev) {
  return call_tensor("aten::scalar_tensor", {Value::of_scalar(Scalar::from_double(v)),
                                             Value::of_dtype(dt), Value{}, Value::of_device(dev)});
}
void check_real_tolerance(const Tensor& tol, const char* f, const char* name) {
  TN_CHECK(!is_complex(tol->dtype()), f, ": ", name, " tensor of complex type is not "
           "supported. Got ", c10_dtype_name(tol->dtype()));
}
// upstream's get_atol_rtol: atol 0 by default; rtol eps * max(m, n) by default, or 0 when a
// positive atol is given. Both float64 0-dim tensors unless given.
std::pair<Tensor, Tensor> atol_rtol(const Tensor& A, const Value& atol_v, const Value& rtol_v,
                                    const char* f) {
  const Device dev = A->device();
  const bool has_atol = atol_v.tag == Value::Tag::Tensor && atol_v.tensor;
  const bool has_rtol = rtol_v.tag == Value::Tag::Tensor && rtol_v.tensor;
  Tensor atol = has_atol ? atol_v.tensor : scalar_tensor(0.0, ScalarType::Double, dev);
  check_real_tolerance(atol, f, "atol");
  Tensor rtol;
  if (has_rtol) {
    rtol = rtol_v.tensor;
    check_real_tolerance(rtol, f, "rtol");
  } else {
    const double eps = to_real_type(A->dtype()) == ScalarType::Double ? DBL_EPSILON : FLT_EPSILON;
    const int64_t mn = std::max(A->size(A->dim() - 1), A->size(A->dim() - 2));
    Tensor def = scalar_tensor(eps * static_cast<double>(mn), ScalarType::Double, dev);
    rtol = has_atol ? call_tensor("aten::where.self",
                                  {t(call_tensor("aten::gt.Scalar",
                                                 {t(atol), Value::of_scalar(Scalar::from_int(0))})),
                                   t(scalar_tensor(0.0, ScalarType::Double, dev)), t(def)})
                    : def;
  }
  return {atol, rtol};
}
Value tensor_value(const Tensor& x) { return x ? Value::of(x) : Value{}; }
Value float_to_tensor(const Value& v, Device dev) {
  if (v.is_none()) return Value{};
  return Value::of(scalar_tensor(v.tag == Value::Tag::Int ? double(v.i) : v.d, ScalarType::Double,
                                 dev));
}

// max(atol, rtol * s_max), shaped to compare against the values (batch, k).
Tensor threshold(const Tensor& atol, const Tensor& rtol, const Tensor& s_max) {
  return call_tensor("aten::maximum", {t(unsqueeze(atol, -1)),
                                       t(call_tensor("aten::mul.Tensor",
                                                     {t(unsqueeze(rtol, -1)), t(s_max)}))});
}

// linalg_pinv.atol_rtol_tensor(Tensor self, *, Tensor? atol=None, Tensor? rtol=None,
// bool hermitian=False)
Tensor pinv_of(const Tensor& A, const Value& atol_v, const Value& rtol_v, bool hermitian) {
  const ScalarType st = A->dtype();
  TN_CHECK(is_floating(st) || is_complex(st), "linalg.pinv: Expected a floating point or complex "
           "tensor as input. Got ", c10_dtype_name(st));
  TN_CHECK(A->dim() >= 2, "linalg.pinv: The input tensor A must have at least 2 dimensions.");
  auto [atol, rtol] = atol_rtol(A, atol_v, rtol_v, "linalg.pinv");
  auto recip_above = [&](const Tensor& values, const Tensor& compared, const Tensor& tol) {
    Tensor keep = call_tensor("aten::gt.Tensor", {t(compared), t(tol)});
    Tensor zero = scalar_tensor(0.0, values->dtype(), values->device());
    Tensor inv = call_tensor("aten::where.self",
                             {t(keep), t(call_tensor("aten::reciprocal", {t(values)})), t(zero)});
    return call_tensor("aten::_to_copy", {t(inv), Value::of_dtype(st)});
  };
  if (!hermitian || A->numel() == 0) {
    std::vector<Value> usv = call("aten::svd", {t(A), Value::of_bool(true), Value::of_bool(true)});
    const Tensor &U = usv[0].tensor, &S = usv[1].tensor, &Vm = usv[2].tensor;
    Tensor Sinv;
    if (A->numel() == 0) {
      Sinv = call_tensor("aten::reciprocal", {t(S)});
    } else {
      Tensor s_max = call_tensor("aten::narrow", {t(S), i64(-1), i64(0), i64(1)});
      Sinv = recip_above(S, S, threshold(atol, rtol, s_max));
    }
    return matmul(call_tensor("aten::mul.Tensor", {t(Vm), t(unsqueeze(Sinv, -2))}), mH(U));
  }
  std::vector<Value> eig = call("aten::linalg_eigh", {t(A), Value::of_string("L")});
  const Tensor &S = eig[0].tensor, &U = eig[1].tensor;
  Tensor S_abs = call_tensor("aten::abs", {t(S)});
  Tensor s_max = call_tensor("aten::amax", {t(S_abs), ops::ints({-1}), Value::of_bool(true)});
  Tensor Sinv = recip_above(S, S_abs, threshold(atol, rtol, s_max));
  return matmul(call_tensor("aten::mul.Tensor", {t(U), t(unsqueeze(Sinv, -2))}), mH(U));
}
void pinv_tensor(Call& c) { c.ret(pinv_of(c.tensor(0), c.arg(1), c.arg(2), c.to_bool(3))); }
void pinv_tensor_out(Call& c) {
  c.ret(ops::write_out(c.tensor(4), pinv_of(c.tensor(0), c.arg(1), c.arg(2), c.to_bool(3)),
                       c.key()));
}
// The float spellings: tolerances as float64 0-dim tensors, through the Tensor overload.
Tensor pinv_float(const Call& c) {
  const Device dev = c.tensor(0)->device();
  return call_tensor("aten::linalg_pinv.atol_rtol_tensor",
                     {c.arg(0), float_to_tensor(c.arg(1), dev), float_to_tensor(c.arg(2), dev),
                      c.arg(3)});
}
void pinv_f(Call& c) { c.ret(pinv_float(c)); }
void pinv_f_out(Call& c) { c.ret(ops::write_out(c.tensor(4), pinv_float(c), c.key())); }
// linalg_pinv(Tensor self, float rcond, bool hermitian=False) and .rcond_tensor: NumPy's rcond
// is the relative tolerance, atol 0.
Tensor pinv_rcond(const Call& c) {
  const Device dev = c.tensor(0)->device();
  Value rtol = c.arg(1).tag == Value::Tag::Tensor ? c.arg(1) : float_to_tensor(c.arg(1), dev);
  return call_tensor("aten::linalg_pinv.atol_rtol_tensor",
                     {c.arg(0), Value::of(scalar_tensor(0.0, ScalarType::Double, dev)), rtol,
                      c.arg(2)});
}
void pinv_r(Call& c) { c.ret(pinv_rcond(c)); }
void pinv_r_out(Call& c) { c.ret(ops::write_out(c.tensor(3), pinv_rcond(c), c.key())); }
// pinverse(Tensor self, float rcond=1e-15)
void pinverse(Call& c) {
  c.ret(call_tensor("aten::linalg_pinv", {c.arg(0), c.arg(1), Value::of_bool(false)}));
}

// linalg_matrix_rank.atol_rtol_tensor(Tensor input, *, Tensor? atol=None, Tensor? rtol=None,
// bool hermitian=False) -> int64
Tensor rank_of(const Tensor& A, const Value& atol_v, const Value& rtol_v, bool hermitian) {
  TN_CHECK(A->dim() >= 2, "torch.linalg.matrix_rank: The input tensor input must have at least 2 "
           "dimensions.");
  auto [atol, rtol] = atol_rtol(A, atol_v, rtol_v, "torch.linalg.matrix_rank");
  if (A->numel() == 0) {
    Dims batch(A->sizes().begin(), A->sizes().end() - 2);
    Tensor r = ops::empty(batch, ScalarType::Long, A->device());
    call("aten::zero_", {t(r)});
    return r;
  }
  Tensor S, s_max;
  if (!hermitian) {
    S = svdvals(A);
    s_max = call_tensor("aten::narrow", {t(S), i64(-1), i64(0), i64(1)});
  } else {
    S = call_tensor("aten::abs", {t(call_tensor("aten::linalg_eigvalsh", {t(A), Value::of_string("L")}))});
    s_max = call_tensor("aten::amax", {t(S), ops::ints({-1}), Value::of_bool(true)});
  }
  Tensor above = call_tensor("aten::gt.Tensor", {t(S), t(threshold(atol, rtol, s_max))});
  return call_tensor("aten::sum.dim_IntList", {t(above), ops::ints({-1}), Value::of_bool(false),
                                               Value{}});
}
void rank_tensor(Call& c) { c.ret(rank_of(c.tensor(0), c.arg(1), c.arg(2), c.to_bool(3))); }
void rank_tensor_out(Call& c) {
  c.ret(ops::write_out(c.tensor(4), rank_of(c.tensor(0), c.arg(1), c.arg(2), c.to_bool(3)),
                       c.key()));
}
Tensor rank_float(const Call& c) {
  const Device dev = c.tensor(0)->device();
  return rank_of(c.tensor(0), float_to_tensor(c.arg(1), dev), float_to_tensor(c.arg(2), dev),
                 c.to_bool(3));
}
void rank_f(Call& c) { c.ret(rank_float(c)); }
void rank_f_out(Call& c) { c.ret(ops::write_out(c.tensor(4), rank_float(c), c.key())); }
// linalg_matrix_rank(Tensor self, float tol, bool hermitian=False) and .tol_tensor: tol is the
// absolute tolerance, rtol 0 (NumPy's).
Tensor rank_tol(const Call& c) {
  const Device dev = c.tensor(0)->device();
  Value atol = c.arg(1).tag == Value::Tag::Tensor ? c.arg(1) : float_to_tensor(c.arg(1), dev);
  return rank_of(c.tensor(0), atol, Value::of(scalar_tensor(0.0, ScalarType::Double, dev)),
                 c.to_bool(2));
}
void rank_t(Call& c) { c.ret(rank_tol(c)); }
void rank_t_out(Call& c) { c.ret(ops::write_out(c.tensor(3), rank_tol(c), c.key())); }

// _lu_with_info(Tensor self, bool pivot=True, bool check_errors=True): torch.lu.
void lu_with_info(Call& c) {
  static std::once_flag once;
  std::call_once(once, [] {
    warn("torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex "
         "and will be removed in a future PyTorch release.\nLU, pivots = torch.lu(A, "
         "compute_pivots)\nshould be replaced with\nLU, pivots = torch.linalg.lu_factor(A, "
         "compute_pivots)\nand\nLU, pivots, info = torch.lu(A, compute_pivots, "
         "get_infos=True)\nshould be replaced with\nLU, pivots, info = "
         "torch.linalg.lu_factor_ex(A, compute_pivots)");
  });
  for (Value& v : call("aten::linalg_lu_factor_ex", {c.arg(0), c.arg(1), Value::of_bool(false)}))
    c.ret(v.tensor);
}

}  // namespace

TN_REGISTER_COMPOSITE("aten::linalg_matrix_norm", matrix_norm);
TN_REGISTER_COMPOSITE("aten::linalg_matrix_norm.out", matrix_norm_out);
TN_REGISTER_COMPOSITE("aten::linalg_matrix_norm.str_ord", matrix_norm_s);
TN_REGISTER_COMPOSITE("aten::linalg_matrix_norm.str_ord_out", matrix_norm_s_out);
TN_REGISTER_COMPOSITE("aten::linalg_norm", norm);
TN_REGISTER_COMPOSITE("aten::linalg_norm.out", norm_out);
TN_REGISTER_COMPOSITE("aten::linalg_norm.ord_str", norm_s);
TN_REGISTER_COMPOSITE("aten::linalg_norm.ord_str_out", norm_s_out);
TN_REGISTER_COMPOSITE("aten::linalg_pinv.atol_rtol_tensor", pinv_tensor);
TN_REGISTER_COMPOSITE("aten::linalg_pinv.atol_rtol_tensor_out", pinv_tensor_out);
TN_REGISTER_COMPOSITE("aten::linalg_pinv.atol_rtol_float", pinv_f);
TN_REGISTER_COMPOSITE("aten::linalg_pinv.atol_rtol_float_out", pinv_f_out);
TN_REGISTER_COMPOSITE("aten::linalg_pinv", pinv_r);
TN_REGISTER_COMPOSITE("aten::linalg_pinv.rcond_tensor", pinv_r);
TN_REGISTER_COMPOSITE("aten::linalg_pinv.out", pinv_r_out);
TN_REGISTER_COMPOSITE("aten::linalg_pinv.out_rcond_tensor", pinv_r_out);
TN_REGISTER_COMPOSITE("aten::pinverse", pinverse);
TN_REGISTER_COMPOSITE("aten::linalg_matrix_rank.atol_rtol_tensor", rank_tensor);
TN_REGISTER_COMPOSITE("aten::linalg_matrix_rank.atol_rtol_tensor_out", rank_tensor_out);
TN_REGISTER_COMPOSITE("aten::linalg_matrix_rank.atol_rtol_float", rank_f);
TN_REGISTER_COMPOSITE("aten::linalg_matrix_rank.atol_rtol_float_out", rank_f_out);
TN_REGISTER_COMPOSITE("aten::linalg_matrix_rank", rank_t);
TN_REGISTER_COMPOSITE("aten::linalg_matrix_rank.tol_tensor", rank_t);
TN_REGISTER_COMPOSITE("aten::linalg_matrix_rank.out", rank_t_out);
TN_REGISTER_COMPOSITE("aten::linalg_matrix_rank.out_tol_tensor", rank_t_out);
TN_REGISTER_COMPOSITE("aten::_lu_with_info", lu_with_info);

}  // namespace tn
