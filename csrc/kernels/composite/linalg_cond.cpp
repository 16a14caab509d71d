// linalg_cond (+ .out, and the .p_str forms), composed as upstream's LinearAlgebra.cpp composes
// it: p = None or +-2 the ratio of the extreme singular values (linalg_svdvals); 'nuc' the sum
// of the singular values times the sum of their reciprocals; +-1, +-inf and 'fro' the matrix
// norm of A times that of its inverse (linalg_inv_ex; a singular matrix's inverse filled with
// inf), NaN products made inf. Empty inputs give zeros. Gradients are those of the ops called.
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "kernels/composite/ops.h"
#include "kernels/cpu/linalg_util.h"

namespace tn {
namespace {

using namespace ops;
constexpr double kInf = std::numeric_limits<double>::infinity();

Tensor matrix_norm(const Tensor& A, const Value& ord) {
  const char* key = ord.tag == Value::Tag::String ? "aten::linalg_matrix_norm.str_ord"
                                                  : "aten::linalg_matrix_norm";
  return call_tensor(key, {t(A), ord});
}

// upstream's _linalg_cond_helper: norm(A) * norm(inv(A)), inf where inv_ex reports a singular
// matrix, then nan_to_num(nan=inf, posinf=inf, neginf=-inf).
Tensor cond_by_inverse(const Tensor& A, const Value& ord) {
  std::vector<Value> r = call("aten::linalg_inv_ex", {t(A), Value::of_bool(false)});
  Tensor info = call_tensor("aten::unsqueeze", {t(r[1].tensor), i64(-1)});
  info = call_tensor("aten::unsqueeze", {t(info), i64(-1)});
  Tensor singular =
      call_tensor("aten::gt.Scalar", {t(info), Value::of_scalar(Scalar::from_int(0))});
  call("aten::masked_fill_.Scalar", {t(r[0].tensor), t(singular), f64(kInf)});
  Tensor result = call_tensor("aten::mul.Tensor", {t(matrix_norm(A, ord)),
                                                   t(matrix_norm(r[0].tensor, ord))});
  call("aten::nan_to_num_", {t(result), Value::of_double(kInf), Value::of_double(kInf),
                             Value::of_double(-kInf)});
  return result;
}

// Zeros of A's batch shape in A's real dtype (upstream's answer for 0 x 0 matrices).
Tensor empty_cond(const Tensor& A) {
  return call_tensor("aten::zeros", {ints(linalg::batch_of(A)),
                                     Value::of_dtype(to_real_type(A->dtype())), Value{},
                                     Value::of_device(A->device())});
}

// upstream's std::to_string(double): printf's %f.
std::string f_string(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%f", v);
  return buf;
}

// linalg_cond(Tensor self, Scalar? p=None)
Tensor cond_of(const Tensor& A, const Value& p) {
  TN_CHECK(A->dim() >= 2, "linalg.cond: The input tensor must have at least 2 dimensions.");
  const Scalar ord = p.is_none() ? Scalar::from_int(2) : p.scalar;
  TN_CHECK(!ord.is_complex() || ord.imag() == 0.0,
           "value cannot be converted to type double without overflow");
  const double o = ord.to_double();
  TN_CHECK(std::abs(o) == 2.0 || std::abs(o) == 1.0 || std::abs(o) == kInf,
           "linalg.cond got an invalid norm type: ", o);
  if (A->numel() == 0) return empty_cond(A);
  if (std::abs(o) == 2.0) {
    Tensor s = call_tensor("aten::linalg_svdvals", {t(A), Value{}});
    Tensor s_max = narrow(s, -1, 0, 1), s_min = narrow(s, -1, -1, 1);
    Tensor r = o == -2.0 ? call_tensor("aten::div.Tensor", {t(s_min), t(s_max)})
                         : call_tensor("aten::div.Tensor", {t(s_max), t(s_min)});
    return call_tensor("aten::squeeze.dim", {t(r), i64(-1)});
  }
  const std::string shown = ord.is_floating() || ord.is_complex()
                                ? f_string(o) : std::to_string(ord.to_int());
  linalg::check_square(A, ("linalg.cond(ord=" + shown + ")").c_str());
  return cond_by_inverse(A, Value::of_scalar(ord));
}

// linalg_cond.p_str(Tensor self, str p)
Tensor cond_str_of(const Tensor& A, const std::string& p) {
  linalg::check_square(A, ("linalg.cond(ord=" + p + ")").c_str());
  TN_CHECK(p == "fro" || p == "nuc", "linalg.cond got an invalid norm type: ", p);
  if (A->numel() == 0) return empty_cond(A);
  if (p == "nuc") {
    Tensor s = call_tensor("aten::linalg_svdvals", {t(A), Value{}});
    auto sum_last = [](const Tensor& x) {
      return call_tensor("aten::sum.dim_IntList",
                         {t(x), ints({-1}), Value::of_bool(false), Value{}});
    };
    Tensor rs = sum_last(call_tensor("aten::reciprocal", {t(s)}));
    return call_tensor("aten::mul.Tensor", {t(sum_last(s)), t(rs)});
  }
  return cond_by_inverse(A, Value::of_string(p));
}

// The out= forms: upstream's checkSameDevice and checkLinalgCompatibleDtype (against the real
// dtype), then the result copied in.
void check_out(const Tensor& out, const Tensor& A) {
  TN_CHECK(out->device() == A->device(), "linalg.cond: Expected result and input tensors to be "
           "on the same device, but got result on ", out->device().str(), " and input on ",
           A->device().str());
  linalg::check_out_castable("linalg.cond", out, to_real_type(A->dtype()), "result");
}

void linalg_cond(Call& c) { c.ret(cond_of(c.tensor(0), c.arg(1))); }
void linalg_cond_out(Call& c) {
  check_out(c.tensor(2), c.tensor(0));
  c.ret(write_out(c.tensor(2), cond_of(c.tensor(0), c.arg(1)), c.key()));
}
void linalg_cond_str(Call& c) { c.ret(cond_str_of(c.tensor(0), c.arg(1).str)); }
void linalg_cond_str_out(Call& c) {
  check_out(c.tensor(2), c.tensor(0));
  c.ret(write_out(c.tensor(2), cond_str_of(c.tensor(0), c.arg(1).str), c.key()));
}

}  // namespace

TN_REGISTER_COMPOSITE("aten::linalg_cond", linalg_cond);
TN_REGISTER_COMPOSITE("aten::linalg_cond.out", linalg_cond_out);
TN_REGISTER_COMPOSITE("aten::linalg_cond.p_str", linalg_cond_str);
TN_REGISTER_COMPOSITE("aten::linalg_cond.p_str_out", linalg_cond_str_out);

}  // namespace tn
