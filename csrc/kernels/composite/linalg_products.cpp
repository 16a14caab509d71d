// Matrix and vector products upstream composes from others (LinearAlgebra.cpp), in its order of
// operations, so their values are those of the products they call:
//   vdot.out                    vdot (a kernel: cpu/blas.cpp) written to out;
//   linalg_vecdot(x, y, dim)    vdot for two vectors, else (conj(x) * y).sum(dim);
//   linalg_matrix_power(A, n)   identity, a clone, inv, or matmuls by the binary digits of |n|
//                               from the lowest (of inv(A) for n < 0); matrix_power the same;
//   linalg_multi_dot(tensors)   mm in the cheapest order (three: by the two costs; more: the
//                               textbook dynamic program, first split on ties); chain_matmul.
// Their gradients are the gradients of what they call (upstream's are CompositeImplicit), but
// vdot's (VdotBackward0, derivatives/linalg.cpp).
#include <limits>

#include "core/promotion.h"
#include "kernels/composite/ops.h"
#include "kernels/cpu/linalg_util.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

using namespace ops;

Tensor matmul(const Tensor& a, const Tensor& b) {
  return call_tensor("aten::matmul", {t(a), t(b)});
}
Tensor mm(const Tensor& a, const Tensor& b) { return call_tensor("aten::mm", {t(a), t(b)}); }

// --- vdot and linalg_vecdot ---------------------------------------------------------------

// vdot itself is a kernel (cpu/blas.cpp: ?dotc, as upstream's).
Tensor vdot_of(const Tensor& a, const Tensor& b) {
  return call_tensor("aten::vdot", {t(a), t(b)});
}
void vdot_out(Call& c) {
  c.ret(write_out(c.tensor(2), vdot_of(c.tensor(0), c.tensor(1)), c.key()));
}

Tensor vecdot_of(const Call& c) {
  const Tensor &x = c.tensor(0), &y = c.tensor(1);
  linalg::check_floating_or_complex(x, "linalg.vecdot");
  TN_CHECK(x->dtype() == y->dtype(), "linalg.vecdot: Expected x and y to have the same dtype, "
           "but found x of type ", enum_name(x->dtype()), " and y of type ",
           enum_name(y->dtype()), " instead");
  if (x->dim() == 1 && y->dim() == 1) return vdot_of(x, y);
  Tensor p = call_tensor("aten::mul.Tensor", {t(conj_if_complex(x)), t(y)});
  return call_tensor("aten::sum.dim_IntList",
                     {t(p), ints({c.to_int(2)}), Value::of_bool(false), Value{}});
}
void linalg_vecdot(Call& c) { c.ret(vecdot_of(c)); }
void linalg_vecdot_out(Call& c) {
  const Tensor& out = c.tensor(3);
  Tensor r = vecdot_of(c);
  TN_CHECK(out->dtype() == r->dtype(), "linalg.vecdot: Expected out of dtype",
           enum_name(r->dtype()), " but found ", enum_name(out->dtype()));
  c.ret(write_out(out, r, c.key()));
}
TN_REGISTER_COMPOSITE("aten::vdot.out", vdot_out);
TN_REGISTER_COMPOSITE("aten::linalg_vecdot", linalg_vecdot);
TN_REGISTER_COMPOSITE("aten::linalg_vecdot.out", linalg_vecdot_out);

// --- matrix_power ---------------------------------------------------------------------------

Tensor matrix_power_of(const Tensor& A, int64_t n) {
  linalg::check_square(A, "linalg.matrix_power");
  if (n == 0) {
    Tensor out = clone_contiguous(A);  // a clone keeps the result in the autograd graph
    const int64_t k = A->size(A->dim() - 1);
    Tensor eye = call_tensor("aten::eye", {i64(k), Value::of_dtype(A->dtype()), Value{},
                                           Value::of_device(A->device())});
    return call_tensor("aten::copy_", {t(out), t(eye)});
  }
  if (n == 1) return clone_contiguous(A);
  if (n == -1) return call_tensor("aten::linalg_inv", {t(A)});
  Tensor a = n < 0 ? call_tensor("aten::linalg_inv", {t(A)}) : A;
  uint64_t m = n < 0 ? uint64_t(0) - static_cast<uint64_t>(n) : static_cast<uint64_t>(n);
  if (m == 2) return matmul(a, a);
  if (m == 3) return matmul(matmul(a, a), a);
  Tensor z, result;
  while (m > 0) {
    const bool bit = m % 2;
    m /= 2;
    z = z ? matmul(z, z) : a;
    if (bit) result = result ? matmul(result, z) : z;
  }
  return result;
}
void matrix_power(Call& c) { c.ret(matrix_power_of(c.tensor(0), c.to_int(1))); }
void matrix_power_out(Call& c) {
  const Tensor &A = c.tensor(0), &out = c.tensor(2);
  linalg::check_square(A, "linalg.matrix_power");
  check_out_device(out, A->device());
  linalg::check_out_castable("matrix_power", out, A->dtype(), "result");
  c.ret(write_out(out, matrix_power_of(A, c.to_int(1)), c.key()));
}
TN_REGISTER_COMPOSITE("aten::linalg_matrix_power", matrix_power);
TN_REGISTER_COMPOSITE("aten::linalg_matrix_power.out", matrix_power_out);
TN_REGISTER_COMPOSITE("aten::matrix_power", matrix_power);
TN_REGISTER_COMPOSITE("aten::matrix_power.out", matrix_power_out);

// --- multi_dot ------------------------------------------------------------------------------

std::string shape_str(const Dims& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s + "]";
}

// mm of ts[i..j] in the order split[i][j] gives.
Tensor chain(const std::vector<Tensor>& ts, const std::vector<std::vector<size_t>>& split,
             size_t i, size_t j) {
  if (i == j) return ts[i];
  return mm(chain(ts, split, i, split[i][j]), chain(ts, split, split[i][j] + 1, j));
}

// The product of 2-D views of the inputs (a first or last 1-D input as a row or column) and
// the result's shape without those dims.
Tensor multi_dot_of(const std::vector<Tensor>& in, Dims* out_shape) {
  const size_t n = in.size();
  TN_CHECK(n >= 2, "multi_dot(): expected at least 2 tensors but got ", n);
  std::vector<Tensor> ts(n);
  if (in[0]->dim() == 1) {
    ts[0] = call_tensor("aten::unsqueeze", {t(in[0]), i64(0)});
  } else {
    TN_CHECK(in[0]->dim() == 2, "multi_dot(): the first tensor must be 1D or 2D but got ",
             in[0]->dim(), "D");
    ts[0] = in[0];
    out_shape->push_back(in[0]->size(0));
  }
  if (in[n - 1]->dim() == 1) {
    ts[n - 1] = call_tensor("aten::unsqueeze", {t(in[n - 1]), i64(-1)});
  } else {
    TN_CHECK(in[n - 1]->dim() == 2, "multi_dot(): the last tensor must be 1D or 2D but got ",
             in[n - 1]->dim(), "D");
    ts[n - 1] = in[n - 1];
    out_shape->push_back(in[n - 1]->size(1));
  }
  for (size_t i = 1; i + 1 < n; ++i) {
    TN_CHECK(in[i]->dim() == 2, "multi_dot(): tensor ", i, " must be 2D but got ", in[i]->dim(),
             "D");
    ts[i] = in[i];
  }
  for (size_t i = 1; i < n; ++i) {
    TN_CHECK(ts[i]->dtype() == ts[0]->dtype(), "multi_dot(): all tensors must have be the same "
             "dtype but tensor 0 is ", cpp_type_name(ts[0]->dtype()), " and tensor ", i, " ",
             cpp_type_name(ts[i]->dtype()));
    TN_CHECK(ts[i]->device() == ts[0]->device(), "multi_dot(): all tensors must be on the same "
             "device but tensor 0 is on ", ts[0]->device().str(), " and tensor ", i, " on ",
             ts[i]->device().str());
    TN_CHECK(ts[i - 1]->size(1) == ts[i]->size(0), "multi_dot(): tensors ", i - 1, " and ", i,
             " with shapes ", shape_str(in[i - 1]->sizes()), " and ",
             shape_str(in[i]->sizes()), " cannot be multiplied");
  }
  if (n == 2) return mm(ts[0], ts[1]);
  if (n == 3) {
    const int64_t a = ts[0]->size(0), b = ts[1]->size(0), cc = ts[2]->size(0),
                  d = ts[2]->size(1);
    if (a * cc * (b + d) > b * d * (a + cc)) return mm(ts[0], mm(ts[1], ts[2]));
    return mm(mm(ts[0], ts[1]), ts[2]);
  }
  std::vector<int64_t> p(n + 1);
  for (size_t i = 0; i < n; ++i) p[i] = ts[i]->size(0);
  p[n] = ts[n - 1]->size(1);
  std::vector<std::vector<int64_t>> cost(n, std::vector<int64_t>(n, 0));
  std::vector<std::vector<size_t>> split(n, std::vector<size_t>(n, 0));
  for (size_t l = 1; l < n; ++l) {
    for (size_t i = 0; i + l < n; ++i) {
      const size_t j = i + l;
      cost[i][j] = std::numeric_limits<int64_t>::max();
      for (size_t k = i; k < j; ++k) {
        const int64_t q = cost[i][k] + cost[k + 1][j] + p[i] * p[k + 1] * p[j + 1];
        if (q < cost[i][j]) {
          cost[i][j] = q;
          split[i][j] = k;
        }
      }
    }
  }
  return chain(ts, split, 0, n - 1);
}
Tensor multi_dot_result(const std::vector<Tensor>& in) {
  Dims shape;
  Tensor r = multi_dot_of(in, &shape);
  return call_tensor("aten::view", {t(r), ints(shape)});
}
void linalg_multi_dot(Call& c) { c.ret(multi_dot_result(c.arg(0).tensors)); }
void linalg_multi_dot_out(Call& c) {
  const Tensor& out = c.tensor(1);
  Tensor r = multi_dot_result(c.arg(0).tensors);
  TN_CHECK(out->dtype() == r->dtype(), "multi_dot(): expected out tensor to have dtype ",
           cpp_type_name(r->dtype()), " but got ", cpp_type_name(out->dtype()));
  TN_CHECK(out->device() == r->device(), "multi_dot(): expected out tensor to be on device ",
           r->device().str(), " but got ", out->device().str());
  c.ret(write_out(out, r, c.key()));
}
TN_REGISTER_COMPOSITE("aten::linalg_multi_dot", linalg_multi_dot);
TN_REGISTER_COMPOSITE("aten::linalg_multi_dot.out", linalg_multi_dot_out);

}  // namespace
}  // namespace tn
