// _fused_adam_ and _fused_adamw_ (dense CPU): the `fused=True` path of Adam and AdamW, one pass
// per parameter as upstream's FusedAdamKernel runs it. Its arithmetic differs between its vector
// body and its scalar tail (the moment's lerp is one fused multiply-add in the body, the
// compiler's contraction of the scalar formula in the tail), and upstream splits each parameter
// into per-thread chunks (cache-line aligned, then the rest) whose tails fall where the chunks
// end: the same split is made here from torch.get_num_threads(), so each element takes the same
// path as in upstream's process. The chunks run one after another on the calling thread.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "dispatch/kernel.h"
#include "kernels/cpu/cpu_isa.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

enum class AdamMode { Original, AdamW };

struct AdamArgs {
  double lr, beta1, beta2, weight_decay, eps;
  bool amsgrad, maximize;
  const float* grad_scale;  // may be null
};

// One chunk [0, n) of a parameter: the first n - n % W elements as upstream's vector body,
// the rest as its scalar tail. T is float or double.
template <typename T, AdamMode M>
void adam_chunk(T* p, T* g, T* m, T* v, T* vmax, int64_t n, int w, const AdamArgs& a,
                double step) {
  const double bc1 = 1 - std::pow(a.beta1, step);
  const double bc2 = 1 - std::pow(a.beta2, step);
  const double step_size = a.lr / bc1;
  const T c1 = T(1 - a.beta1), c2 = T(1 - a.beta2), b2 = T(a.beta2);
  const T bc2_sqrt = T(std::sqrt(bc2)), eps = T(a.eps);
  const T decay = T(1 - a.lr * a.weight_decay), wd = T(a.weight_decay);
  const int64_t body = n - n % w;
  for (int64_t d = 0; d < n; ++d) {
    const bool vec = d < body;
    T gv = g[d];
    if (a.grad_scale) {
      gv = gv / T(*a.grad_scale);
      g[d] = gv;
    }
    if (a.maximize) gv = vec ? gv * T(-1) : -gv;
    T pv = p[d];
    if (a.weight_decay != 0) {
      if constexpr (M == AdamMode::Original) gv = std::fma(pv, wd, gv);
      else pv = pv * decay;
    }
    // exp_avg.lerp_(grad, 1 - beta1), both paths one fused multiply-add.
    T e = m[d];
    e = std::abs(c1) < T(0.5) ? std::fma(c1, gv - e, e) : std::fma(c1 - T(1), gv - e, gv);
    m[d] = e;
    // The second moment: measured against upstream's kernel, its body contracts the
    // v * beta2 + (1 - beta2) * g * g into fma((1 - beta2) * g, g, v * beta2), its tail into
    // fma(v, beta2, ((1 - beta2) * g) * g).
    T s = vec ? std::fma(c2 * gv, gv, v[d] * b2) : std::fma(v[d], b2, (c2 * gv) * gv);
    v[d] = s;
    T denom_src = s;
    if (a.amsgrad) {
      T mx = vmax[d];
      mx = vec ? (mx > s || std::isnan(mx) ? mx : s) : std::max(mx, s);
      vmax[d] = mx;
      denom_src = mx;
    }
    T denom = std::sqrt(denom_src) / bc2_sqrt + eps;
    pv = vec ? pv + (T(-step_size) * e) / denom : pv - (T(step_size) * e) / denom;
    p[d] = pv;
  }
}

// Upstream's split of a parameter's n elements: at::parallel_for over the head of
// threads * (n / threads rounded down to whole cache lines) elements, then another over the rest.
// Measured against upstream's process at 1, 2 and 3 threads: each range behaves as one chunk
// (its OpenMP team does not split it further here), so a range's tail is where it ends.
template <typename F>
void for_each_chunk(int64_t n, int64_t itemsize, int threads, F&& f) {
  const int64_t per_line = 64 / itemsize;
  const int64_t head = (n + threads - 1) / threads / per_line * per_line * threads;
  if (head > 0) f(int64_t(0), head);
  if (head < n) f(head, n - head);
}

// t.item(), as upstream's kernel reads lr and each step: one element only.
double item(const Tensor& t) {
  TN_CHECK(t->numel() == 1, "a Tensor with ", t->numel(), " elements cannot be converted to "
           "Scalar");
  return call("aten::_local_scalar_dense", {Value::of(t)})[0].scalar.to_double();
}

template <AdamMode M>
void fused_adam(Call& c) {
  const std::string& key = c.key();
  const auto& params = c.args[0].tensors;
  const auto& grads = c.args[1].tensors;
  const auto& m = c.args[2].tensors;
  const auto& v = c.args[3].tensors;
  const auto& vmax = c.args[4].tensors;
  const auto& steps = c.args[5].tensors;
  AdamArgs a;
  const Value& lr = c.arg(6);
  if (lr.tag == Value::Tag::Tensor) {
    TN_CHECK(lr.tensor->device().type == DeviceType::CPU, "lr must be on CPU");
    a.lr = item(lr.tensor);
  } else {
    a.lr = c.to_double(6);
  }
  a.beta1 = c.to_double(7);
  a.beta2 = c.to_double(8);
  a.weight_decay = c.to_double(9);
  a.eps = c.to_double(10);
  a.amsgrad = c.to_bool(11);
  a.maximize = c.to_bool(12);
  const Tensor* scale = c.optional_tensor(13);
  const Tensor* found_inf = c.optional_tensor(14);
  for (const Tensor* t : {scale, found_inf})
    TN_CHECK(!t || ((*t)->dtype() == ScalarType::Float && (*t)->numel() >= 1), key,
             ": grad_scale and found_inf must be float32 tensors with an element");
  a.grad_scale = scale ? data_of<float>(*scale, key) : nullptr;
  if (found_inf && *data_of<float>(*found_inf, key) == 1.0f) return;
  const size_t n = params.size();
  TN_CHECK(grads.size() == n && m.size() == n && v.size() == n && steps.size() == n,
           key, ": every tensor list must have one tensor per parameter");
  TN_CHECK(a.amsgrad ? vmax.size() == n : vmax.empty(), key, ": max_exp_avg_sqs must have ",
           a.amsgrad ? "one tensor per parameter" : "no tensors", " when amsgrad is ",
           a.amsgrad ? "True" : "False");
  const int threads = intra_op_threads();
  const int width_bytes = cpu::isa() == cpu::Isa::Avx512 ? 64 : 32;
  for (size_t i = 0; i < n; ++i) {
    const Tensor& p = params[i];
    const ScalarType dt = p->dtype();
    TN_CHECK_KIND(dt == ScalarType::Float || dt == ScalarType::Double, NotImplemented, key,
                  ": torchnative's CPU kernel takes float32 and float64 parameters, not ",
                  enum_name(dt), " (float16/bfloat16: autograd, issue 8)");
    std::vector<const Tensor*> same = {&grads[i], &m[i], &v[i]};
    if (a.amsgrad) same.push_back(&vmax[i]);
    for (const Tensor* t : same)
      TN_CHECK((*t)->dtype() == dt && (*t)->numel() == p->numel() && (*t)->is_contiguous() &&
                   p->is_contiguous(),
               key, ": parameter ", i, ", its gradient and moments must be contiguous tensors "
               "of one dtype and size");
    double step = item(steps[i]);
    dispatch_dtype(dt, key, [&](auto zero) {
      using T = decltype(zero);
      if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
        T* pp = data_of<T>(p, key);
        T* gp = data_of<T>(grads[i], key);
        T* mp = data_of<T>(m[i], key);
        T* vp = data_of<T>(v[i], key);
        T* xp = a.amsgrad ? data_of<T>(vmax[i], key) : nullptr;
        const int w = width_bytes / static_cast<int>(sizeof(T));
        for_each_chunk(p->numel(), sizeof(T), threads, [&](int64_t b, int64_t len) {
          adam_chunk<T, M>(pp + b, gp + b, mp + b, vp + b, xp ? xp + b : nullptr, len, w, a,
                           step);
        });
      }
    });
    for (const Tensor* t : {&p, &grads[i], &m[i], &v[i]}) (*t)->bump_version();
    if (a.amsgrad) vmax[i]->bump_version();
  }
}

TN_REGISTER_KERNEL("aten::_fused_adam_", DenseCPU, fused_adam<AdamMode::Original>);
TN_REGISTER_KERNEL("aten::_fused_adam_.tensor_lr", DenseCPU, fused_adam<AdamMode::Original>);
TN_REGISTER_KERNEL("aten::_fused_adamw_", DenseCPU, fused_adam<AdamMode::AdamW>);
TN_REGISTER_KERNEL("aten::_fused_adamw_.tensor_lr", DenseCPU, fused_adam<AdamMode::AdamW>);

}  // namespace
}  // namespace tn
