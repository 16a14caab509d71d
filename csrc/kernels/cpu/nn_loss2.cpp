// Binary cross entropy and log-sigmoid on the CPU, in upstream's arithmetic (Loss.cpp,
// Activation.cpp's log_sigmoid kernels): log_sigmoid_forward (output, buffer = exp(-|x|), with
// SLEEF's exp and log1p as upstream's vector body calls them; 16-bit floats in float),
// log_sigmoid_backward, binary_cross_entropy (the log clamped at -100, weight, reduction by our
// mean/sum), binary_cross_entropy_backward, smooth_l1_loss and huber_loss with their backward
// kernels. Float dtypes only, refused by name otherwise.
// Not here: binary_cross_entropy_with_logits and the other composites (composite/loss2.cpp).
#include <algorithm>
#include <cmath>
#include <limits>

#include "dispatch/kernel.h"
#include "kernels/cpu/cpu_isa.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/cpu/elementwise_sleef.h"
#include "kernels/rules/elementwise.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

enum Reduction : int64_t { kNone = 0, kMean = 1, kSum = 2 };

template <typename F>
void floating(ScalarType t, const std::string& key, const char* frame, F&& f) {
  bool ok = t == ScalarType::Float || t == ScalarType::Double || t == ScalarType::BFloat16 ||
            t == ScalarType::Half;
  TN_CHECK_KIND(ok, NotImplemented, "\"", frame, "\" not implemented for '", enum_name(t), "'");
  dispatch_dtype(t, key, [&](auto z) {
    using T = decltype(z);
    if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, Half> ||
                  std::is_same_v<T, BFloat16>)
      f(z);
  });
}

template <typename A>
A exp_v(A x) { return sleef::available() ? sleef::exp(x) : std::exp(x); }
template <typename A>
A log1p_v(A x) { return sleef::available() ? sleef::log1p(x) : std::log1p(x); }

// t's values as a contiguous tensor of shape (broadcast to it when t has fewer elements).
Tensor dense_as(const Tensor& t, const Dims& shape, const std::string& key) {
  Tensor e = t->sizes() == shape ? t : expand_view(t, shape);
  Tensor out = empty_tensor(shape, t->dtype(), t->device());
  copy_cast(out, e, key);
  return out;
}

// log_sigmoid_forward(Tensor self) -> (Tensor output, Tensor buffer)
void log_sigmoid_rule(Call& c) {
  const Tensor& x = c.tensor(0);
  c.ret(new_on(x, x->sizes(), x->dtype()));
  c.ret(new_on(x, x->sizes(), x->dtype()));
}
void log_sigmoid_cpu(Call& c) {
  const std::string& key = c.key();
  Tensor x = contiguous(c.tensor(0), key);
  floating(x->dtype(), key, "log_sigmoid_cpu", [&](auto z) {
    using T = decltype(z);
    using A = acc_t<T>;
    const T* px = data_of<T>(x, key);
    T* po = data_of<T>(c.results[0].tensor, key);
    T* pb = data_of<T>(c.results[1].tensor, key);
    for (int64_t i = 0; i < x->numel(); ++i) {
      A a = static_cast<A>(px[i]);
      A lo = std::min(a, A(0));
      A buf = exp_v(-std::abs(a));
      po[i] = T(lo - log1p_v(buf));
      pb[i] = T(buf);
    }
  });
}
TN_REGISTER_STRUCTURED("aten::log_sigmoid_forward", log_sigmoid_rule, log_sigmoid_cpu);

// log_sigmoid_backward(Tensor grad_output, Tensor self, Tensor buffer) -> Tensor:
// (max_deriv - sign * (b / (1 + b))) * grad, max_deriv 1 and sign 1 where x < 0, else 0 and -1.
void log_sigmoid_backward_rule(Call& c) {
  const Tensor& x = c.tensor(1);
  Dims shape = broadcast_shapes(broadcast_shapes(c.tensor(0)->sizes(), x->sizes()),
                                c.tensor(2)->sizes());
  c.ret(new_on(x, shape, x->dtype()));
}
void log_sigmoid_backward_cpu(Call& c) {
  const std::string& key = c.key();
  const Tensor& out = c.results[0].tensor;
  Tensor g = dense_as(c.tensor(0), out->sizes(), key), x = dense_as(c.tensor(1), out->sizes(), key);
  Tensor b = dense_as(c.tensor(2), out->sizes(), key);
  floating(out->dtype(), key, "log_sigmoid_backward_cpu", [&](auto z) {
    using T = decltype(z);
    using A = acc_t<T>;
    const T *pg = data_of<T>(g, key), *px = data_of<T>(x, key), *pb = data_of<T>(b, key);
    T* po = data_of<T>(out, key);
    for (int64_t i = 0; i < out->numel(); ++i) {
      A a = static_cast<A>(px[i]), bv = static_cast<A>(pb[i]);
      bool negative = a < A(0);
      A max_deriv = negative ? A(1) : A(0), sign = negative ? A(1) : A(-1);
      po[i] = T((max_deriv - sign * (bv / (A(1) + bv))) * static_cast<A>(pg[i]));
    }
  });
}
TN_REGISTER_STRUCTURED("aten::log_sigmoid_backward", log_sigmoid_backward_rule,
                       log_sigmoid_backward_cpu);

void check_bce_shapes(const Tensor& x, const Tensor& t) {
  TN_CHECK(x->numel() == t->numel(), "binary_cross_entropy: input of shape ",
           dims_str(x->sizes()), " and target of shape ", dims_str(t->sizes()),
           " must have the same number of elements");
}

// The loss reduced as upstream's apply_loss_reduction (mean / sum of the unreduced loss).
Tensor reduce_loss(const Tensor& loss, int64_t reduction) {
  if (reduction == kMean) return call_tensor("aten::mean", {Value::of(loss)});
  if (reduction == kSum) return call_tensor("aten::sum", {Value::of(loss)});
  return loss;
}

// binary_cross_entropy(Tensor self, Tensor target, Tensor? weight=None, int reduction=Mean):
// (t - 1) * max(log1p(-x), -100) - t * max(log(x), -100), then * weight, then reduced.
void bce_cpu(Call& c) {
  const std::string& key = c.key();
  const Tensor &self = c.tensor(0), &target = c.tensor(1);
  check_bce_shapes(self, target);
  Tensor x = contiguous(self, key);
  Tensor t = contiguous(cast_to(target, self->dtype(), key), key);
  Tensor loss = empty_tensor(self->sizes(), self->dtype(), self->device());
  floating(self->dtype(), key, "binary_cross_entropy", [&](auto z) {
    using T = decltype(z);
    using A = acc_t<T>;
    const T *px = data_of<T>(x, key), *pt = data_of<T>(t, key);
    T* po = data_of<T>(loss, key);
    for (int64_t i = 0; i < x->numel(); ++i) {
      A a = static_cast<A>(px[i]), y = static_cast<A>(pt[i]);
      TN_CHECK(a >= A(0) && a <= A(1), "all elements of input should be between 0 and 1");
      A l1 = static_cast<A>(T(std::log1p(-a)));
      A l0 = static_cast<A>(T(std::log(a)));
      // Each step rounded to T, as upstream's scalar_t arithmetic (BFloat16 rounds each one).
      auto r = [](A v) { return static_cast<A>(T(v)); };
      po[i] = T(r(r(y - A(1)) * std::max(l1, A(-100))) - r(y * std::max(l0, A(-100))));
    }
  });
  if (const Tensor* w = c.optional_tensor(2))
    loss = call_tensor("aten::mul.Tensor", {Value::of(loss), Value::of(*w)});
  c.ret(reduce_loss(loss, c.to_int(3)));
}
TN_REGISTER_KERNEL("aten::binary_cross_entropy", DenseCPU, bce_cpu);

// binary_cross_entropy_backward(grad_output, self, target, weight=None, reduction=Mean):
// grad * (x - t) / max((1 - x) x, 1e-12), then * weight, then / numel for a mean.
void bce_backward_cpu(Call& c) {
  const std::string& key = c.key();
  const Tensor &self = c.tensor(1), &target = c.tensor(2);
  check_bce_shapes(self, target);
  Tensor g = dense_as(cast_to(c.tensor(0), self->dtype(), key), self->sizes(), key);
  Tensor x = contiguous(self, key);
  Tensor t = contiguous(cast_to(target, self->dtype(), key), key);
  Tensor out = empty_tensor(self->sizes(), self->dtype(), self->device());
  floating(self->dtype(), key, "binary_cross_entropy_backward", [&](auto z) {
    using T = decltype(z);
    using A = acc_t<T>;
    const T *pg = data_of<T>(g, key), *px = data_of<T>(x, key), *pt = data_of<T>(t, key);
    T* po = data_of<T>(out, key);
    const A eps = A(1e-12f);
    for (int64_t i = 0; i < x->numel(); ++i) {
      A a = static_cast<A>(px[i]);
      A den = static_cast<A>(T(std::max(static_cast<A>(T(static_cast<A>(T(A(1) - a)) * a)),
                                        eps)));
      A num = static_cast<A>(T(static_cast<A>(pg[i]) * static_cast<A>(T(a - static_cast<A>(
                                                                             pt[i])))));
      po[i] = T(num / den);
    }
  });
  if (const Tensor* w = c.optional_tensor(3))
    out = call_tensor("aten::mul.Tensor", {Value::of(out), Value::of(*w)});
  if (c.to_int(4) == kMean)
    out = call_tensor("aten::div.Scalar",
                      {Value::of(out), Value::of_scalar(Scalar::from_int(self->numel()))});
  c.ret(out);
}
TN_REGISTER_KERNEL("aten::binary_cross_entropy_backward", DenseCPU, bce_backward_cpu);

// The elementwise losses of two same-shaped operands (broadcast as upstream's TensorIterator
// does), in T (16-bit floats in float, rounded once), then reduced as upstream's mean/sum.
template <typename F>
Tensor pair_loss(const Tensor& self, const Tensor& target, const std::string& key,
                 const char* frame, F&& f) {
  TN_CHECK(self->dtype() == target->dtype(), "expected scalar type ", enum_name(self->dtype()),
           " but found ", enum_name(target->dtype()));
  Dims shape = broadcast_shapes(self->sizes(), target->sizes());
  Tensor x = dense_as(self, shape, key), t = dense_as(target, shape, key);
  Tensor loss = empty_tensor(shape, self->dtype(), self->device());
  floating(self->dtype(), key, frame, [&](auto z) {
    using T = decltype(z);
    using A = acc_t<T>;
    const T *px = data_of<T>(x, key), *pt = data_of<T>(t, key);
    T* po = data_of<T>(loss, key);
    for (int64_t i = 0; i < loss->numel(); ++i)
      po[i] = T(f(static_cast<A>(px[i]), static_cast<A>(pt[i])));
  });
  return loss;
}

// grad_input of the same losses: f(x - t, grad) per element, norm = 1/numel for a mean.
template <typename F>
Tensor pair_loss_backward(Call& c, const char* frame, bool tail_in_double, F&& f) {
  const std::string& key = c.key();
  const Tensor &self = c.tensor(1), &target = c.tensor(2);
  Dims shape = broadcast_shapes(self->sizes(), target->sizes());
  Tensor g = dense_as(c.tensor(0), shape, key), x = dense_as(self, shape, key);
  Tensor t = dense_as(cast_to(target, self->dtype(), key), shape, key);
  Tensor out = empty_tensor(shape, self->dtype(), self->device());
  double norm = c.to_int(3) == kMean ? 1.0 / static_cast<double>(self->numel()) : 1.0;
  floating(self->dtype(), key, frame, [&](auto z) {
    using T = decltype(z);
    using A = acc_t<T>;
    const T *pg = data_of<T>(g, key), *px = data_of<T>(x, key), *pt = data_of<T>(t, key);
    T* po = data_of<T>(out, key);
    // Upstream's vector body runs whole blocks of two vectors; f's last argument says whether
    // the element is in its scalar tail instead (which huber's lambda computes differently).
    // (32-byte vectors: the kernel has no AVX-512 entry, cpu::avx2_registered_isa().)
    int64_t n = out->numel(), block = 64 / static_cast<int64_t>(sizeof(T));
    int64_t body = tail_in_double ? n - n % block : n;
    for (int64_t i = 0; i < n; ++i) {
      A x = A(static_cast<A>(px[i]) - static_cast<A>(pt[i]));
      po[i] = i < body ? T(f(x, static_cast<A>(pg[i]), A(norm), false))
                       : T(f(x, static_cast<A>(pg[i]), A(norm), true));
    }
  });
  return out;
}

// smooth_l1_loss(self, target, reduction=Mean, beta=1.0): z = |x - t|, 0.5 z z / beta below
// beta, else z - 0.5 beta; beta 0 is l1_loss.
void smooth_l1_cpu(Call& c) {
  double beta = c.to_double(3);
  TN_CHECK(beta >= 0, "smooth_l1_loss does not support negative values for beta.");
  const std::string& key = c.key();
  Tensor loss = pair_loss(c.tensor(0), c.tensor(1), key, "smooth_l1_cpu", [&](auto a, auto b) {
    using A = decltype(a);
    A bv = A(beta), zz = std::abs(A(a - b));
    if (beta == 0) return zz;
    return zz < bv ? A(A(A(A(0.5) * zz) * zz) / bv) : A(zz - A(A(0.5) * bv));
  });
  c.ret(reduce_loss(loss, c.to_int(2)));
}
TN_REGISTER_KERNEL("aten::smooth_l1_loss", DenseCPU, smooth_l1_cpu);

// smooth_l1_loss_backward(grad_output, self, target, reduction, beta): -norm g, norm g, or
// norm x g / beta (x = self - target) below -beta, above beta, between.
void smooth_l1_backward_cpu(Call& c) {
  double beta = c.to_double(4);
  c.ret(pair_loss_backward(c, "smooth_l1_backward_cpu", false,
                           [&](auto x, auto g, auto norm, bool) {
    using A = decltype(x);
    A bv = A(beta);
    if (x <= -bv) return A(-norm * g);
    if (x >= bv) return A(norm * g);
    return A(A(A(norm * x) * g) / bv);
  }));
}
TN_REGISTER_KERNEL("aten::smooth_l1_loss_backward", DenseCPU, smooth_l1_backward_cpu);

// huber_loss(self, target, reduction=Mean, delta=1.0): z = |x - t|, 0.5 z z below delta, else
// delta (z - 0.5 delta).
void huber_cpu(Call& c) {
  double delta = c.to_double(3);
  TN_CHECK(delta > 0, "huber_loss does not support non-positive values for delta.");
  Tensor loss = pair_loss(c.tensor(0), c.tensor(1), c.key(), "huber_cpu", [&](auto a, auto b) {
    using A = decltype(a);
    A dv = A(delta), zz = std::abs(A(a - b));
    return zz < dv ? A(A(A(0.5) * zz) * zz) : A(dv * A(zz - A(A(0.5) * dv)));
  });
  c.ret(reduce_loss(loss, c.to_int(2)));
}
TN_REGISTER_KERNEL("aten::huber_loss", DenseCPU, huber_cpu);

// huber_loss_backward(grad_output, self, target, reduction, delta): -norm g delta, norm g delta,
// or norm x g (its scalar tail with delta a double, as upstream's lambda captures it).
void huber_backward_cpu(Call& c) {
  double delta = c.to_double(4);
  c.ret(pair_loss_backward(c, "huber_backward_cpu", true,
                           [&](auto x, auto g, auto norm, bool tail) {
    using A = decltype(x);
    // The tail's lambda compares with, and multiplies by, the double delta.
    if (tail) {
      if (double(x) <= -delta) return A(double(A(-norm * g)) * delta);
      if (double(x) >= delta) return A(double(A(norm * g)) * delta);
      return A(A(norm * x) * g);
    }
    A dv = A(delta);
    if (x <= -dv) return A(A(-norm * g) * dv);
    if (x >= dv) return A(A(norm * g) * dv);
    return A(A(norm * x) * g);
  }));
}
TN_REGISTER_KERNEL("aten::huber_loss_backward", DenseCPU, huber_backward_cpu);

}  // namespace
}  // namespace tn
