// The samplers behind torch.distributions' Gamma, Beta, Dirichlet and Binomial: _standard_gamma,
// _sample_dirichlet and binomial, and the reparameterised gradient _standard_gamma_grad, as
// upstream's Distributions.cpp runs them on the CPU: one element after another in the order of
// a new contiguous result, each draw from the generator's 53-bit uniforms and Box-Muller
// normals (random.h), so a seeded call gives upstream's bits. Float and double only (upstream's
// AT_DISPATCH_FLOATING_TYPES). Meta: _standard_gamma's shape and dtype; the others have no Meta
// kernel upstream, and none here.
#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>

#include "core/warning.h"
#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"
#include "kernels/cpu/random.h"
#include "kernels/rules/elementwise.h"

namespace tn {
namespace {

template <typename F>
void float_or_double(ScalarType t, const char* name, F&& f) {
  if (t == ScalarType::Float) return f(float{});
  if (t == ScalarType::Double) return f(double{});
  TN_FAIL(NotImplemented, "\"", name, "\" not implemented for '", c10_dtype_name(t), "'");
}

// Marsaglia and Tsang's acceptance-rejection (upstream's sample_gamma<scalar_t, double>): alpha
// in T (its boost below 1 and 1/3 subtracted in T, float literals as written), the rest in
// double; 1 - uniform and a normal per try.
template <typename T>
T sample_gamma(T alpha, Generator& g) {
  double scale = 1.0;
  if (alpha < 1.0f) {
    if (alpha == 0.f) return T(0);
    scale *= std::pow(1 - uniform53(g), 1.0f / alpha);
    alpha += 1.0f;
  }
  const double d = alpha - 1.0f / 3.0f;
  const double c = 1.0f / std::sqrt(9.0f * d);
  for (;;) {
    double x, y;
    do {
      x = standard_normal(g);
      y = 1.0f + c * x;
    } while (y <= 0);
    const double v = y * y * y;
    const double u = 1 - uniform53(g);
    const double xx = x * x;
    if (u < 1.0f - 0.0331f * xx * xx) return static_cast<T>(scale * d * v);
    if (std::log(u) < 0.5f * xx + d * (1.0f - v + std::log(v))) return static_cast<T>(scale * d * v);
  }
}

// Offsets of operand `strides` for the contiguous result's elements in order (its iterator's
// order: the result is a new contiguous tensor).
template <typename F>
void each_in_order(const Dims& sizes, const std::vector<Dims>& strides, F&& f) {
  const int64_t n = numel_of(sizes);
  const size_t nd = sizes.size();
  std::vector<int64_t> idx(nd, 0), off(strides.size(), 0);
  for (int64_t k = 0; k < n; ++k) {
    f(k, off);
    for (size_t d = nd; d-- > 0;) {
      if (++idx[d] < sizes[d]) {
        for (size_t o = 0; o < strides.size(); ++o) off[o] += strides[o][d];
        break;
      }
      for (size_t o = 0; o < strides.size(); ++o) off[o] -= strides[o][d] * (sizes[d] - 1);
      idx[d] = 0;
    }
  }
}

// Upstream's iterator over inputs of one dtype: "Found dtype Double but expected Float".
void check_same_dtype(const Tensor& first, const Tensor& other) {
  TN_CHECK(first->dtype() == other->dtype(), "Found dtype ", enum_name(other->dtype()),
           " but expected ", enum_name(first->dtype()));
}

Tensor zeros_like_sizes(const Tensor& self, ScalarType dt) {
  return call_tensor("aten::zeros", {Value::of_ints(self->sizes()), Value::of_dtype(dt), Value{},
                                     Value::of_device(self->device())});
}

// _standard_gamma(Tensor self, Generator? generator=None): a Gamma(self, 1) draw per element,
// at least the dtype's smallest normal number (NaN gives it too, as upstream's std::max).
template <bool kCpu>
void standard_gamma(Call& c) {
  const Tensor& alpha = c.tensor(0);
  Tensor out = zeros_like_sizes(alpha, alpha->dtype());
  c.ret(out);
  if (!kCpu) return;
  float_or_double(alpha->dtype(), "gamma_cpu", [&](auto zero) {
    using T = decltype(zero);
    if (out->numel() == 0) return;
    const std::string& key = c.key();
    const T* a = static_cast<const T*>(alpha->dense_cpu_data(key.c_str()));
    T* o = static_cast<T*>(out->dense_cpu_data(key.c_str()));
    Generator& g = generator_arg(c, 1);
    std::lock_guard<std::mutex> lock(g.mutex);
    each_in_order(out->sizes(), {alpha->strides()}, [&](int64_t k, const std::vector<int64_t>& at) {
      o[k] = std::max(std::numeric_limits<T>::min(), sample_gamma<T>(a[at[0]], g));
    });
  });
}

// _sample_dirichlet(Tensor self, Generator? generator=None): Gamma(self) draws in double (at
// least double's smallest normal), each over its row's sum (the last dim), clamped to
// [smallest normal, the number below 1] in the dtype.
void sample_dirichlet(Call& c) {
  const Tensor& alpha = c.tensor(0);
  Tensor out = zeros_like_sizes(alpha, alpha->dtype());
  c.ret(out);
  float_or_double(alpha->dtype(), "dirichlet", [&](auto zero) {
    using T = decltype(zero);
    const std::string& key = c.key();
    Tensor gamma = zeros_like_sizes(alpha, ScalarType::Double);
    if (out->numel() != 0) {
      const T* a = static_cast<const T*>(alpha->dense_cpu_data(key.c_str()));
      double* gd = static_cast<double*>(gamma->dense_cpu_data(key.c_str()));
      Generator& g = generator_arg(c, 1);
      std::lock_guard<std::mutex> lock(g.mutex);
      each_in_order(out->sizes(), {alpha->strides()},
                    [&](int64_t k, const std::vector<int64_t>& at) {
                      const double s = sample_gamma<double>(static_cast<double>(a[at[0]]), g);
                      gd[k] = std::max(std::numeric_limits<double>::min(), s);
                    });
    }
    Tensor sum = call_tensor("aten::sum.dim_IntList",
                             {ops::t(gamma), Value::of_ints({-1}), Value::of_bool(true), Value{}});
    sum = call_tensor("aten::expand", {ops::t(sum), Value::of_ints(alpha->sizes())});
    if (out->numel() == 0) return;
    const double* gd = static_cast<const double*>(gamma->dense_cpu_data(key.c_str()));
    const double* sd = static_cast<const double*>(sum->dense_cpu_data(key.c_str()));
    T* o = static_cast<T*>(out->dense_cpu_data(key.c_str()));
    const T lo = std::numeric_limits<T>::min();
    const T hi = std::nextafter(T(1), T(0));
    each_in_order(out->sizes(), {gamma->strides(), sum->strides()},
                  [&](int64_t k, const std::vector<int64_t>& at) {
                    const double r = gd[at[0]] / sd[at[1]];
                    o[k] = std::min(hi, std::max(lo, static_cast<T>(r)));
                  });
  });
}

// Stirling's tail of log k! (upstream's stirling_approx_tail, in double).
double stirling_tail(double k) {
  static const double kTail[] = {0.0810614667953272,  0.0413406959554092,  0.0276779256849983,
                                 0.02079067210376509, 0.0166446911898211,  0.0138761288230707,
                                 0.0118967099458917,  0.0104112652619720,  0.00925546218271273,
                                 0.00833056343336287};
  if (k <= 9) return kTail[static_cast<size_t>(k)];
  const double kp1sq = (k + 1) * (k + 1);
  return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1);
}

// Geometric jumps until their sum passes count (small count * prob).
template <typename T>
T binomial_inversion(T count, T prob, Generator& g) {
  double geom_sum = 0;
  T num_geom = 0;
  const double logprob = std::log1p(-prob);
  for (;;) {
    const double u = uniform53(g);
    const double geom = std::ceil(std::log(u) / logprob);
    geom_sum += geom;
    if (geom_sum > count) break;
    num_geom = num_geom + 1;
  }
  return num_geom;
}

// Hoermann's BTRS transformed rejection (large count * prob), as upstream adapts it.
template <typename T>
T btrs(T count, T prob, Generator& g) {
  const double stddev = std::sqrt(count * prob * (1 - prob));
  const double b = 1.15 + 2.53 * stddev;
  const double a = -0.0873 + 0.0248 * b + 0.01 * prob;
  const double c = count * prob + 0.5;
  const double v_r = 0.92 - 4.2 / b;
  const double r = prob / (1 - prob);
  const double alpha = (2.83 + 5.1 / b) * stddev;
  const double m = std::floor((count + 1) * prob);
  for (;;) {
    const double u = uniform53(g) - 0.5;
    double v = uniform53(g);
    const double us = 0.5 - std::fabs(u);
    const T k = static_cast<T>(std::floor((2 * a / us + b) * u + c));
    if (k < 0 || k > count) continue;
    if (us >= 0.07 && v <= v_r) return k;
    v = std::log(v * alpha / (a / (us * us) + b));
    const double upper =
        ((m + 0.5) * std::log((m + 1) / (r * (count - m + 1))) +
         (count + 1) * std::log((count - m + 1) / (count - k + 1)) +
         (k + 0.5) * std::log(r * (count - k + 1) / (k + 1)) + stirling_tail(m) +
         stirling_tail(count - m) - stirling_tail(k) - stirling_tail(count - k));
    if (v <= upper) return k;
  }
}

template <typename T>
T sample_binomial(T count, T prob, Generator& g) {
  if (count <= 0.0 || prob <= 0.0) return 0;
  if (prob >= 1.0) return count;
  // Upstream's loops never end for a NaN or infinite count with a probability in (0, 1) (its
  // geometric sum is never above the count): refused here rather than hang.
  TN_CHECK(std::isfinite(count) || std::isnan(prob), "binomial: count must be finite where "
           "0 < prob < 1, but got ", static_cast<double>(count));
  if (prob <= 0.5) {
    return count * prob >= 10.0 ? btrs<T>(count, prob, g) : binomial_inversion<T>(count, prob, g);
  }
  if (prob > 0.5) {
    const T q = 1.0 - prob;
    return count - (count * q >= 10.0 ? btrs<T>(count, q, g) : binomial_inversion<T>(count, q, g));
  }
  return static_cast<T>(NAN);  // prob is NaN
}

// binomial(Tensor count, Tensor prob, Generator? generator=None): a result of count's sizes that
// upstream's iterator resizes (with its warning) when count and prob broadcast to more.
void binomial(Call& c) {
  const Tensor &count = c.tensor(0), &prob = c.tensor(1);
  TN_CHECK_KIND(is_floating(count->dtype()), Value, "binomial only supports floating-point "
                "dtypes for count, got: ", c10_dtype_name(count->dtype()));
  TN_CHECK_KIND(is_floating(prob->dtype()), Value, "binomial only supports floating-point "
                "dtypes for prob, got: ", c10_dtype_name(prob->dtype()));
  const Dims shape = broadcast_shapes(count->sizes(), prob->sizes());
  if (shape != count->sizes() && count->numel() != 0)
    warn(resized_output_warning(dims_str(count->sizes()), dims_str(shape)));
  check_same_dtype(count, prob);
  Tensor n = call_tensor("aten::expand", {ops::t(count), Value::of_ints(shape)});
  Tensor p = call_tensor("aten::expand", {ops::t(prob), Value::of_ints(shape)});
  Tensor out = call_tensor("aten::zeros", {Value::of_ints(shape), Value::of_dtype(count->dtype()),
                                           Value{}, Value::of_device(count->device())});
  c.ret(out);
  float_or_double(count->dtype(), "binomial_cpu", [&](auto zero) {
    using T = decltype(zero);
    if (out->numel() == 0) return;
    const std::string& key = c.key();
    const T* cn = static_cast<const T*>(n->dense_cpu_data(key.c_str()));
    const T* q = static_cast<const T*>(p->dense_cpu_data(key.c_str()));
    T* o = static_cast<T*>(out->dense_cpu_data(key.c_str()));
    Generator& g = generator_arg(c, 2);
    std::lock_guard<std::mutex> lock(g.mutex);
    each_in_order(shape, {n->strides(), p->strides()},
                  [&](int64_t k, const std::vector<int64_t>& at) {
                    o[k] = sample_binomial<T>(cn[at[0]], q[at[1]], g);
                  });
  });
}

// digamma in double (upstream's digamma_one, from Cephes: the recurrence up to 10, then the
// asymptotic series).
double digamma_one(double x) {
  const double kPsi10 = 2.25175258906672110764;
  if (x == 0) return INFINITY;
  double extra = 0;
  const bool integer = x == std::floor(x);
  if (x < 0) {
    if (integer) return INFINITY;
    extra = -M_PI / std::tan(M_PI * x);
    x = 1 - x;
  }
  double result = 0;
  while (x < 10) {
    result -= 1 / x;
    x += 1;
  }
  if (x == 10) return result + kPsi10 + extra;
  static const double kA[] = {8.33333333333333333333E-2, -2.10927960927960927961E-2,
                              7.57575757575757575758E-3, -4.16666666666666666667E-3,
                              3.96825396825396825397E-3, -8.33333333333333333333E-3,
                              8.33333333333333333333E-2};
  double y = 0;
  if (x < 1.0e17f) {
    const double z = 1.0 / (x * x);
    double p = 0;
    for (double a : kA) p = p * z + a;
    y = z * p;
  }
  return result + std::log(x) - (0.5f / x) - y + extra;
}

// -(d/dalpha cdf(x; alpha)) / pdf(x; alpha) for a Gamma(alpha) draw x, in double (upstream's
// standard_gamma_grad_one): a Taylor series for small x, Rice's saddle point expansion for large
// alpha, else a bivariate rational approximation.
double gamma_grad_one(double alpha, double x) {
  if (x < 0.8f) {
    double numer = 1, denom = alpha;
    double series1 = numer / denom, series2 = numer / (denom * denom);
    for (int i = 1; i <= 5; ++i) {
      numer *= -x / static_cast<double>(i);
      denom += 1;
      series1 += numer / denom;
      series2 += numer / (denom * denom);
    }
    const double pow_x_alpha = std::pow(x, alpha);
    const double pdf = std::pow(x, alpha - 1) * std::exp(-x);
    const double cdf = pow_x_alpha * series1;
    const double cdf_alpha = (std::log(x) - digamma_one(alpha)) * cdf - pow_x_alpha * series2;
    const double result = -cdf_alpha / pdf;
    return std::isnan(result) ? 0.0 : result;
  }
  if (alpha > 8.0f) {
    if (0.9f * alpha <= x && x <= 1.1f * alpha) {
      const double numer_1 = 1 + 24 * alpha * (1 + 12 * alpha);
      const double numer_2 = 1440 * (alpha * alpha) + 6 * x * (53 - 120 * x) -
                             65 * x * x / alpha + alpha * (107 + 3600 * x);
      const double denom = 1244160 * (alpha * alpha) * (alpha * alpha);
      return numer_1 * numer_2 / denom;
    }
    const double denom = std::sqrt(8 * alpha);
    const double term2 = denom / (alpha - x);
    const double term3 = std::pow(x - alpha - alpha * std::log(x / alpha), -1.5);
    const double term23 = (x < alpha) ? term2 - term3 : term2 + term3;
    const double term1 = std::log(x / alpha) * term23 -
                         std::sqrt(2 / alpha) * (alpha + x) / ((alpha - x) * (alpha - x));
    const double stirling = 1 + 1 / (12 * alpha) * (1 + 1 / (24 * alpha));
    const double numer = x * term1;
    return -stirling * numer / denom;
  }
  const double u = std::log(x / alpha), v = std::log(alpha);
  static const double kUV[3][8] = {
      {0.16009398, -0.094634809, 0.025146376, -0.0030648343, 1, 0.32668115, 0.10406089,
       0.0014179084},
      {0.53487893, 0.1298071, 0.065735949, -0.0015649758, 0.16639465, 0.020070113,
       -0.0035938915, -0.00058392623},
      {0.040121004, -0.0065914022, -0.0026286047, -0.0013441777, 0.017050642, -0.0021309326,
       0.00085092367, -1.5247877e-07}};
  double cv[8];
  for (int i = 0; i < 8; ++i) cv[i] = kUV[0][i] + u * (kUV[1][i] + u * kUV[2][i]);
  const double p = cv[0] + v * (cv[1] + v * (cv[2] + v * cv[3]));
  const double q = cv[4] + v * (cv[5] + v * (cv[6] + v * cv[7]));
  return std::exp(p / q);
}

// _standard_gamma_grad(Tensor self, Tensor output): self (alpha) and output (the draws)
// broadcast together.
void standard_gamma_grad(Call& c) {
  const Tensor &alpha = c.tensor(0), &x = c.tensor(1);
  const Dims shape = broadcast_shapes(alpha->sizes(), x->sizes());
  Tensor a = call_tensor("aten::expand", {ops::t(alpha), Value::of_ints(shape)});
  Tensor xs = call_tensor("aten::expand", {ops::t(x), Value::of_ints(shape)});
  check_same_dtype(alpha, x);
  Tensor out = ops::empty(shape, alpha->dtype(), alpha->device());
  c.ret(out);
  float_or_double(alpha->dtype(), "_standard_gamma_grad_cpu", [&](auto zero) {
    using T = decltype(zero);
    if (out->numel() == 0) return;
    const std::string& key = c.key();
    const T* ap = static_cast<const T*>(a->dense_cpu_data(key.c_str()));
    const T* xp = static_cast<const T*>(xs->dense_cpu_data(key.c_str()));
    T* o = static_cast<T*>(out->dense_cpu_data(key.c_str()));
    each_in_order(shape, {a->strides(), xs->strides()},
                  [&](int64_t k, const std::vector<int64_t>& at) {
                    o[k] = static_cast<T>(gamma_grad_one(ap[at[0]], xp[at[1]]));
                  });
  });
}

}  // namespace

// (Meta: _standard_gamma alone, as upstream registers it.)
TN_REGISTER_KERNEL("aten::_standard_gamma_grad", DenseCPU, standard_gamma_grad);
TN_REGISTER_KERNEL("aten::_standard_gamma", DenseCPU, standard_gamma<true>);
TN_REGISTER_KERNEL("aten::_standard_gamma", Meta, standard_gamma<false>);
TN_REGISTER_KERNEL("aten::_sample_dirichlet", DenseCPU, sample_dirichlet);
TN_REGISTER_KERNEL("aten::binomial", DenseCPU, binomial);

}  // namespace tn
