// linalg.tensorinv, linalg.tensorsolve (+ out=) and linalg.vander, composed as upstream's
// LinearAlgebra.cpp composes them, so their values and gradients are those of what they call:
//   tensorinv(A, ind)        linalg_inv_ex of A reshaped to a square matrix (errors as "inv"),
//                            reshaped to A.shape[ind:] + A.shape[:ind];
//   tensorsolve(A, B, dims)  A's dims moved last (movedim), reshaped square, linalg_solve
//                            against B flattened, reshaped to A.shape[B.ndim:];
//   vander(x, N)             a column of ones, then cumprod of x repeated N - 1 times.
#include <numeric>
#include <string>

#include "kernels/composite/ops.h"
#include "kernels/cpu/linalg_util.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

using namespace ops;

int64_t product(const Dims& d, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t i = from; i < to; ++i) p *= d[i];
  return p;
}
Tensor reshape(const Tensor& x, const Dims& shape) {
  return call_tensor("aten::reshape", {t(x), ints(shape)});
}

Tensor tensorinv_of(const Tensor& A, int64_t ind) {
  TN_CHECK(ind > 0, "Expected a strictly positive integer for 'ind', but got ", ind);
  const Dims& s = A->sizes();
  TN_CHECK(ind <= A->dim(), "ArrayRef: invalid slice, N = ", ind, "; size = ", A->dim());
  const int64_t end = product(s, ind, s.size()), start = product(s, 0, ind);
  TN_CHECK(end == start, "Expected self to satisfy the requirement prod(self.shape[ind:]) == "
           "prod(self.shape[:ind]), but got ", end, " != ", start);
  Dims shape(s.begin() + ind, s.end());
  shape.insert(shape.end(), s.begin(), s.begin() + ind);
  std::vector<Value> r = call("aten::linalg_inv_ex", {t(reshape(A, {end, start})),
                                                      Value::of_bool(false)});
  call("aten::_linalg_check_errors", {t(r[1].tensor), Value::of_string("inv"),
                                      Value::of_bool(true)});
  return reshape(r[0].tensor, shape);
}

// out= forms: upstream's checkSameDevice and checkLinalgCompatibleDtype against self, before
// computing.
void check_linalg_out(const char* api, const Tensor& out, const Tensor& self) {
  TN_CHECK(out->device() == self->device(), api, ": Expected result and input tensors to be on "
           "the same device, but got result on ", out->device().str(), " and input on ",
           self->device().str());
  linalg::check_out_castable(api, out, self->dtype(), "result");
}

// linalg_tensorinv(Tensor self, int ind=2); .out adds out.
void tensorinv(Call& c) { c.ret(tensorinv_of(c.tensor(0), c.to_int(1))); }
void tensorinv_out(Call& c) {
  check_linalg_out("tensorinv", c.tensor(2), c.tensor(0));
  c.ret(write_out(c.tensor(2), tensorinv_of(c.tensor(0), c.to_int(1)), c.key()));
}

// upstream's movedim(A, dims, [ndim - k, ..., ndim - 1]): the other dims in order, then dims.
Tensor move_last(const Tensor& A, const Dims& dims) {
  const int64_t nd = A->dim();
  std::vector<bool> moved(static_cast<size_t>(nd), false);
  Dims wrapped;
  for (int64_t d : dims) wrapped.push_back(wrap_dim(d, nd));
  const int64_t k = static_cast<int64_t>(dims.size());
  for (int64_t i = 0; i < k; ++i) wrap_dim(nd - k + i, nd);  // the destinations, wrapped next
  for (int64_t d : wrapped) {
    TN_CHECK(!moved[static_cast<size_t>(d)], "movedim: repeated dim in `source` (",
             dims_str(dims), ")");
    moved[static_cast<size_t>(d)] = true;
  }
  Dims perm;
  for (int64_t i = 0; i < nd; ++i)
    if (!moved[static_cast<size_t>(i)]) perm.push_back(i);
  perm.insert(perm.end(), wrapped.begin(), wrapped.end());
  return call_tensor("aten::permute", {t(A), ints(perm)});
}

Tensor tensorsolve_of(const Call& c) {
  const Tensor &A0 = c.tensor(0), &B = c.tensor(1);
  const Tensor A = c.arg(2).is_none() ? A0 : move_last(A0, c.int_list(2));
  const Dims& s = A->sizes();
  const size_t k = static_cast<size_t>(B->dim());
  // (upstream slices A.shape[k : ndim - k] as a length, which wraps when k > ndim)
  TN_CHECK(k <= s.size(), "cannot create std::vector larger than max_size()");
  const Dims shape(s.begin() + static_cast<std::ptrdiff_t>(k), s.end());
  const int64_t rp = product(shape, 0, shape.size()), op = product(B->sizes(), 0, k);
  TN_CHECK(rp == op, "Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
           "prod(self.shape[:other.ndim]), but got ", rp, " != ", op);
  Tensor flat = call_tensor("aten::flatten.using_ints", {t(B), i64(0), i64(-1)});
  Tensor x = call_tensor("aten::linalg_solve", {t(reshape(A, {rp, rp})), t(flat),
                                                Value::of_bool(true)});
  return reshape(x, shape);
}
// linalg_tensorsolve(Tensor self, Tensor other, int[]? dims=None); .out adds out.
void tensorsolve(Call& c) { c.ret(tensorsolve_of(c)); }
void tensorsolve_out(Call& c) {
  check_linalg_out("tensorsolve", c.tensor(3), c.tensor(0));
  c.ret(write_out(c.tensor(3), tensorsolve_of(c), c.key()));
}

// linalg_vander(Tensor x, *, SymInt? N=None)
void vander(Call& c) {
  const Tensor& x = c.tensor(0);
  const ScalarType dt = x->dtype();
  TN_CHECK(dt == ScalarType::Float || dt == ScalarType::Double ||
               dt == ScalarType::ComplexFloat || dt == ScalarType::ComplexDouble ||
               is_integral(dt, false),
           "linalg.vander supports floating point, complex, and integer tensors, but got ",
           enum_name(dt));
  const Tensor x1 = x->dim() == 0 ? call_tensor("aten::unsqueeze", {t(x), i64(-1)}) : x;
  Dims shape = x1->sizes();
  const int64_t n = c.arg(1).is_none() ? shape.back() : c.to_int(1);
  TN_CHECK(n > 1, "N must be greater than 1.");
  shape.push_back(n - 1);
  Tensor rep = call_tensor("aten::expand", {t(call_tensor("aten::unsqueeze", {t(x1), i64(-1)})),
                                            ints(shape), Value::of_bool(false)});
  Tensor result = call_tensor("aten::cumprod", {t(rep), i64(-1), Value{}});
  shape.back() = 1;
  Tensor ones = call_tensor("aten::ones", {ints(shape), Value::of_dtype(result->dtype()), Value{},
                                           Value::of_device(result->device())});
  c.ret(call_tensor("aten::cat", {Value::of_tensors({ones, result}), i64(-1)}));
}

}  // namespace

TN_REGISTER_COMPOSITE("aten::linalg_tensorinv", tensorinv);
TN_REGISTER_COMPOSITE("aten::linalg_tensorinv.out", tensorinv_out);
TN_REGISTER_COMPOSITE("aten::linalg_tensorsolve", tensorsolve);
TN_REGISTER_COMPOSITE("aten::linalg_tensorsolve.out", tensorsolve_out);
TN_REGISTER_COMPOSITE("aten::linalg_vander", vander);

}  // namespace tn
