// The user-facing spellings of the LU family, as upstream composes them (CompositeImplicit:
// autograd differentiates the kernels they call): each `_ex`-less function calls its `_ex` form
// and raises on the info codes (torch.linalg.LinAlgError where upstream does).
//   linalg_lu_factor      linalg_lu_factor_ex, checked
//   linalg_solve(_ex)     _linalg_solve_ex, its LU and pivots dropped
//   linalg_inv, inverse   linalg_inv_ex, checked
//   linalg_det, det       _linalg_det's first result
//   linalg_slogdet, slogdet, logdet
#include <cmath>

#include "kernels/composite/ops.h"
#include "kernels/cpu/linalg_util.h"

namespace tn {
namespace {

using ops::t;

// upstream's _linalg_check_errors, through the door (a no-op on Meta).
void check(const Tensor& info, const char* api, const Tensor& A) {
  call("aten::_linalg_check_errors", {t(info), Value::of_string(api),
                                      Value::of_bool(A->dim() == 2)});
}

// linalg_lu_factor(Tensor A, *, bool pivot=True) -> (Tensor LU, Tensor pivots)
std::vector<Value> lu_factor_of(const Call& c) {
  std::vector<Value> r = call("aten::linalg_lu_factor_ex", {c.arg(0), c.arg(1),
                                                            Value::of_bool(false)});
  check(r[2].tensor, "torch.linalg.lu_factor", c.tensor(0));
  return r;
}
void lu_factor(Call& c) {
  std::vector<Value> r = lu_factor_of(c);
  ops::ret_all(c, {r[0].tensor, r[1].tensor});
}
void lu_factor_out(Call& c) {
  std::vector<Value> r = lu_factor_of(c);
  ops::ret_all(c, {r[0].tensor, r[1].tensor}, 2);
}
TN_REGISTER_COMPOSITE("aten::linalg_lu_factor", lu_factor);
TN_REGISTER_COMPOSITE("aten::linalg_lu_factor.out", lu_factor_out);

// linalg_solve_ex(Tensor A, Tensor B, *, bool left=True, bool check_errors=False)
//   -> (Tensor result, Tensor info)
void solve_ex(Call& c) {
  std::vector<Value> r = call("aten::_linalg_solve_ex", {c.arg(0), c.arg(1), c.arg(2), c.arg(3)});
  ops::ret_all(c, {r[0].tensor, r[3].tensor});
}
void solve_ex_out(Call& c) {
  std::vector<Value> r = call("aten::_linalg_solve_ex", {c.arg(0), c.arg(1), c.arg(2), c.arg(3)});
  ops::ret_all(c, {r[0].tensor, r[3].tensor}, 4);
}
// linalg_solve(Tensor A, Tensor B, *, bool left=True) -> Tensor
Tensor solved(const Call& c) {
  std::vector<Value> r = call("aten::linalg_solve_ex", {c.arg(0), c.arg(1), c.arg(2),
                                                        Value::of_bool(false)});
  check(r[1].tensor, "torch.linalg.solve", c.tensor(0));
  return r[0].tensor;
}
void solve(Call& c) { c.ret(solved(c)); }
void solve_out(Call& c) { c.ret(ops::write_out(c.tensor(3), solved(c), c.key())); }
TN_REGISTER_COMPOSITE("aten::linalg_solve_ex", solve_ex);
TN_REGISTER_COMPOSITE("aten::linalg_solve_ex.out", solve_ex_out);
TN_REGISTER_COMPOSITE("aten::linalg_solve", solve);
TN_REGISTER_COMPOSITE("aten::linalg_solve.out", solve_out);

// linalg_inv(Tensor A) -> Tensor; inverse(Tensor self) is the same.
Tensor inverted(const Call& c) {
  std::vector<Value> r = call("aten::linalg_inv_ex", {c.arg(0), Value::of_bool(false)});
  check(r[1].tensor, "linalg.inv", c.tensor(0));
  return r[0].tensor;
}
void inv(Call& c) { c.ret(inverted(c)); }
void inv_out(Call& c) { c.ret(ops::write_out(c.tensor(1), inverted(c), c.key())); }
TN_REGISTER_COMPOSITE("aten::linalg_inv", inv);
TN_REGISTER_COMPOSITE("aten::linalg_inv.out", inv_out);
TN_REGISTER_COMPOSITE("aten::inverse", inv);
TN_REGISTER_COMPOSITE("aten::inverse.out", inv_out);

// linalg_det(Tensor A) -> Tensor; det(Tensor self) is the same.
Tensor determinant(const Call& c) { return call("aten::_linalg_det", {c.arg(0)})[0].tensor; }
void det(Call& c) { c.ret(determinant(c)); }
void det_out(Call& c) { c.ret(ops::write_out(c.tensor(1), determinant(c), c.key())); }
TN_REGISTER_COMPOSITE("aten::linalg_det", det);
TN_REGISTER_COMPOSITE("aten::linalg_det.out", det_out);
TN_REGISTER_COMPOSITE("aten::det", det);

// linalg_slogdet(Tensor A) -> (Tensor sign, Tensor logabsdet); slogdet is the same.
void slogdet(Call& c) {
  std::vector<Value> r = call("aten::_linalg_slogdet", {c.arg(0)});
  ops::ret_all(c, {r[0].tensor, r[1].tensor});
}
void slogdet_out(Call& c) {
  std::vector<Value> r = call("aten::_linalg_slogdet", {c.arg(0)});
  ops::ret_all(c, {r[0].tensor, r[1].tensor}, 1);
}
TN_REGISTER_COMPOSITE("aten::linalg_slogdet", slogdet);
TN_REGISTER_COMPOSITE("aten::linalg_slogdet.out", slogdet_out);
TN_REGISTER_COMPOSITE("aten::slogdet", slogdet);
TN_REGISTER_COMPOSITE("aten::slogdet.out", slogdet_out);

// logdet(Tensor self): log(sign) + logabsdet for complex; NaN where a real sign is -1.
void logdet(Call& c) {
  const Tensor& A = c.tensor(0);
  linalg::check_square(A, "logdet");
  linalg::check_floating_or_complex(A, "logdet", /*low_precision=*/false);
  std::vector<Value> r = call("aten::linalg_slogdet", {c.arg(0)});
  const Tensor &sign = r[0].tensor, &logabs = r[1].tensor;
  if (is_complex(A->dtype())) {
    Tensor lg = call_tensor("aten::log", {t(sign)});
    return c.ret(call_tensor("aten::add.Tensor", {t(lg), t(logabs),
                                                  Value::of_scalar(Scalar::from_int(1))}));
  }
  Tensor negative =
      call_tensor("aten::eq.Scalar", {t(sign), Value::of_scalar(Scalar::from_double(-1.0))});
  Tensor nan = call_tensor("aten::scalar_tensor",
                           {Value::of_scalar(Scalar::from_double(std::nan(""))),
                            Value::of_dtype(logabs->dtype()), Value{},
                            Value::of_device(logabs->device())});
  c.ret(call_tensor("aten::where.self", {t(negative), t(nan), t(logabs)}));
}
TN_REGISTER_COMPOSITE("aten::logdet", logdet);

}  // namespace
}  // namespace tn
