// group_norm as upstream writes it (group_norm.cpp, CompositeImplicitAutograd): checks, input and
// parameters made contiguous, native_group_norm's output. Its gradient is native_group_norm's
// (autograd/derivatives/norm.cpp); the kernels are in cpu/nn_norm2.cpp. Also rms_norm, in door
// ops as upstream's CPU path (its gradient is those ops').
#include <string>

#include "kernels/composite/ops.h"
#include "kernels/rules/elementwise.h"

namespace tn {
namespace {

using namespace ops;

// group_norm(Tensor input, int num_groups, Tensor? weight=None, Tensor? bias=None,
//            float eps=1e-05, bool cudnn_enabled=True)
void group_norm(Call& c) {
  const Tensor& x = c.tensor(0);
  const Tensor* w = c.optional_tensor(2);
  const Tensor* b = c.optional_tensor(3);
  TN_CHECK_KIND(x->dim() >= 2, Index, "Dimension out of range (expected to be in range of [-",
                std::max<int64_t>(x->dim(), 1), ", ", std::max<int64_t>(x->dim(), 1) - 1,
                "], but got 1)");
  int64_t N = x->size(0), C = x->size(1), G = c.to_int(1);
  int64_t HxW = 1;
  for (int64_t d = 2; d < x->dim(); ++d) HxW *= x->size(d);
  auto contig = [](const Tensor& t) { return call_tensor("aten::contiguous", {Value::of(t)}); };
  Value wv = w ? Value::of(contig(*w)) : Value{}, bv = b ? Value::of(contig(*b)) : Value{};
  std::vector<Value> r = call("aten::native_group_norm",
                              {Value::of(contig(x)), wv, bv, i64(N), i64(C), i64(HxW), i64(G),
                               c.arg(4)});
  c.ret(r[0].tensor);
}
TN_REGISTER_COMPOSITE("aten::group_norm", group_norm);

// rms_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, float? eps=None), as
// upstream's CPU path runs it (measured with a dispatch mode: no _fused_rms_norm on the CPU):
// x up to its op-math dtype, x * rsqrt(mean(x^2 over the normalized dims) + eps) [* weight],
// back to input's dtype; eps defaults to the op-math dtype's epsilon and is rounded to input's
// dtype first, as upstream's scalar_t eps_val.
void rms_norm(Call& c) {
  const Tensor& x = c.tensor(0);
  const Dims& ns = c.int_list(1);
  const Tensor* w = c.optional_tensor(2);
  TN_CHECK(!ns.empty(), "Expected normalized_shape to be at least 1-dimensional, i.e., "
           "containing at least one element, but got normalized_shape = ", dims_str(ns));
  TN_CHECK(!w || (*w)->sizes() == ns, "Expected weight to be of same shape as normalized_shape, "
           "but got weight of shape ", dims_str(w ? (*w)->sizes() : Dims{}),
           " and normalized_shape = ", dims_str(ns));
  int64_t axis = x->dim() - static_cast<int64_t>(ns.size());
  bool ok = axis >= 0 && Dims(x->sizes().begin() + axis, x->sizes().end()) == ns;
  TN_CHECK(ok, "Given normalized_shape=", dims_str(ns), ", expected input with shape [*",
           [&] {  // upstream's c10::Join(", ", ...): "[*5, 8]"
             std::string s;
             for (size_t i = 0; i < ns.size(); ++i) s += (i ? ", " : "") + std::to_string(ns[i]);
             return s;
           }(),
           "], but got input of size", dims_str(x->sizes()));
  ScalarType dt = x->dtype();
  bool reduced = dt == ScalarType::BFloat16 || dt == ScalarType::Half;
  TN_CHECK_KIND(is_floating(dt) || dt == ScalarType::ComplexFloat ||
                    dt == ScalarType::ComplexDouble,
                NotImplemented, "\"rms_norm\" not implemented for '", c10_dtype_name(dt), "'");
  ScalarType opmath = reduced ? ScalarType::Float : dt;
  // (complex: the same steps in complex arithmetic, the square z * z as upstream's pow(z, 2))
  double machine_eps = to_real_type(opmath) == ScalarType::Double
                           ? 2.220446049250313e-16   // 2^-52
                           : 1.1920928955078125e-07;  // 2^-23
  double eps = c.arg(3).tag == Value::Tag::Double ? c.to_double(3) : machine_eps;
  // eps_val is a scalar_t: rounded to input's dtype.
  Tensor e = call_tensor("aten::_to_copy", {Value::of(call_tensor(
      "aten::scalar_tensor", {Value::of_scalar(Scalar::from_double(eps)),
                              Value::of_dtype(ScalarType::Double)})), Value::of_dtype(dt)});
  eps = call("aten::_local_scalar_dense", {Value::of(e)})[0].scalar.to_double();
  Tensor up = dt == opmath ? x : call_tensor("aten::_to_copy", {t(x), Value::of_dtype(opmath)});
  Dims dims;
  for (size_t i = 0; i < ns.size(); ++i) dims.push_back(x->dim() - 1 - static_cast<int64_t>(i));
  Tensor sq =
      call_tensor("aten::pow.Tensor_Scalar", {t(up), Value::of_scalar(Scalar::from_int(2))});
  Tensor ms = call_tensor("aten::mean.dim", {t(sq), ints(dims), Value::of_bool(true)});
  call("aten::add_.Scalar", {t(ms), Value::of_scalar(Scalar::from_double(eps))});
  Tensor r = call_tensor("aten::rsqrt", {t(ms)});
  Tensor y = call_tensor("aten::mul.Tensor", {t(up), t(r)});
  if (w) y = call_tensor("aten::mul.Tensor", {t(y), t(*w)});
  if (y->dtype() != dt) y = call_tensor("aten::_to_copy", {t(y), Value::of_dtype(dt)});
  c.ret(y);
}
TN_REGISTER_COMPOSITE("aten::rms_norm", rms_norm);

// norm_except_dim(v, pow=2, dim=0): the pow-norm over every dim but `dim`, kept as a size-1 dim
// each (dim -1: over everything), upstream's composite over linalg_vector_norm (its at::norm):
// rows of v viewed (size(dim), -1) for dim 0, (-1, size(dim)) for the last, else through a
// transpose.
Tensor norm_except_dim_of(const Tensor& v, int64_t p, int64_t dim) {
  auto vnorm = [p](const Tensor& x, const Value& dims) {
    return call_tensor("aten::linalg_vector_norm",
                       {t(x), Value::of_scalar(Scalar::from_int(p)), dims, Value::of_bool(false)});
  };
  if (dim == -1) return vnorm(v, Value{});
  const int64_t n = v->dim();
  if (dim == 0 || dim == n - 1) {
    Dims out(static_cast<size_t>(n), 1);
    out[static_cast<size_t>(dim)] = v->size(dim);
    Tensor flat = call_tensor("aten::view", {t(ops::clone_contiguous(v)),
                                             ints(dim == 0 ? Dims{v->size(0), -1}
                                                           : Dims{-1, v->size(n - 1)})});
    Tensor r = vnorm(flat, ints({dim == 0 ? 1 : 0}));
    return call_tensor("aten::view", {t(r), ints(out)});
  }
  Tensor tr = call_tensor("aten::transpose.int", {t(v), i64(0), i64(dim)});
  Tensor r = norm_except_dim_of(tr, p, 0);
  return call_tensor("aten::transpose.int", {t(r), i64(0), i64(dim)});
}
void norm_except_dim(Call& c) { c.ret(norm_except_dim_of(c.tensor(0), c.to_int(1), c.to_int(2))); }
TN_REGISTER_COMPOSITE("aten::norm_except_dim", norm_except_dim);

// _weight_norm(v, g, dim=0): v * (g / norm_except_dim(v, 2, dim)), upstream's unfused path
// (its fused CPU kernel for dim 0 and the last dim computes the same formula with its own
// summation order).
void weight_norm(Call& c) {
  const Tensor &v = c.tensor(0), &g = c.tensor(1);
  TN_CHECK(v->device() == g->device(), "weight_norm: expected v_in and g_in to be on the same "
           "device, but v_in is on ", v->device().str(), " and g_in is on ", g->device().str());
  TN_CHECK_KIND(is_floating(v->dtype()), NotImplemented,
                "\"weight_norm_kernel\" not implemented for '",
                c10_dtype_name(v->dtype()), "'");
  Tensor nrm = norm_except_dim_of(v, 2, c.to_int(2));
  Tensor scale = call_tensor("aten::div.Tensor", {t(g), t(nrm)});
  c.ret(call_tensor("aten::mul.Tensor", {t(v), t(scale)}));
}
TN_REGISTER_COMPOSITE("aten::_weight_norm", weight_norm);

// instance_norm(input, weight?, bias?, running_mean?, running_var?, use_input_stats, momentum,
// eps, cudnn_enabled), upstream's: the (N, C, ...) input viewed as (1, N C, ...), parameters and
// running stats repeated N times, batch_norm, and the running stats written back as the mean of
// their N copies.
void instance_norm(Call& c) {
  const Tensor& x = c.tensor(0);
  const Tensor* rm = c.optional_tensor(3);
  const Tensor* rv = c.optional_tensor(4);
  TN_CHECK(c.to_bool(5) || (rm && rv), "Expected running_mean and running_var to be defined "
           "when use_input_stats is false");
  TN_CHECK_KIND(x->dim() >= 2, Index, "Dimension out of range (expected to be in range of [-",
                std::max<int64_t>(x->dim(), 1), ", ", std::max<int64_t>(x->dim(), 1) - 1,
                "], but got 1)");
  int64_t b = x->size(0), ch = x->size(1);
  Dims shape = x->sizes();
  shape[1] = b * ch;
  shape[0] = 1;
  auto repeated = [&](size_t i) {
    const Tensor* p = c.optional_tensor(i);
    return p ? Value::of(call_tensor("aten::repeat", {t(*p), ints({b})})) : Value{};
  };
  Value w = repeated(1), bias = repeated(2), mean = repeated(3), var = repeated(4);
  Tensor xr = view(call_tensor("aten::contiguous", {t(x)}), shape);
  Tensor out = call_tensor("aten::batch_norm", {t(xr), w, bias, mean, var, c.arg(5), c.arg(6),
                                                c.arg(7), c.arg(8)});
  auto write_back = [&](const Tensor* stat, const Value& copies) {
    if (!stat) return;
    Tensor m = call_tensor("aten::mean.dim", {t(view(copies.tensor, {b, ch})), ints({0}),
                                              Value::of_bool(false)});
    call("aten::copy_", {t(*stat), t(m)});
  };
  write_back(rm, mean);
  write_back(rv, var);
  c.ret(view(out, x->sizes()));
}
TN_REGISTER_COMPOSITE("aten::instance_norm", instance_norm);

}  // namespace
}  // namespace tn
