// In-place random samplers on dense CPU tensors: uniform_, exponential_, normal_, random_ (three
// overloads), bernoulli_ (.float, .Tensor), cauchy_, log_normal_, geometric_; and poisson. They
// draw from the MT19937 generator in upstream's order and with its arithmetic, so a seeded
// sequence gives upstream's bits. Factories: random_factories.cpp.
#include "kernels/cpu/random.h"

#include <immintrin.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <sstream>
#include <string>

#include "kernels/cpu/random_avx2.h"
#include "kernels/dtype_dispatch.h"
#include "kernels/rules/elementwise.h"

namespace tn {

Generator& generator_arg(const Call& c, size_t i) {
  const Value& v = c.arg(i);
  if (v.is_none()) return default_generator();
  TN_CHECK_KIND(v.tag == Value::Tag::Generator && v.generator, Internal, c.key(),
                ": argument ", i, " is not a Generator");
  return *v.generator;
}

void walk_like_iterator(const Dims& sizes, const std::vector<Dims>& strides, const WalkFn& f) {
  const int64_t nd = static_cast<int64_t>(sizes.size());
  const size_t nops = strides.size();
  if (numel_of(sizes) == 0) return;
  // perm[0] is the innermost dimension; start from the last dimension, as upstream does.
  std::vector<int64_t> perm(nd);
  for (int64_t i = 0; i < nd; ++i) perm[i] = nd - 1 - i;
  // Upstream's comparison: 1 = dim0 goes outside dim1, -1 = stays inside, 0 = undecided.
  auto should_swap = [&](int64_t d0, int64_t d1) {
    for (size_t op = 0; op < nops; ++op) {
      int64_t s0 = strides[op][d0], s1 = strides[op][d1];
      if (s0 == 0 || s1 == 0) continue;
      if (s0 < s1) return -1;
      if (s0 > s1) return 1;
      if (sizes[d0] > sizes[d1]) return 1;
    }
    return 0;
  };
  for (int64_t i = 1; i < nd; ++i) {
    int64_t d1 = i;
    for (int64_t d0 = i - 1; d0 >= 0; --d0) {
      int cmp = should_swap(perm[d0], perm[d1]);
      if (cmp > 0) {
        std::swap(perm[d0], perm[d1]);
        d1 = d0;
      } else if (cmp < 0) {
        break;
      }
    }
  }
  // Odometer over the permuted dimensions, innermost first.
  Dims idx(nd, 0);
  int64_t off[2] = {0, 0};
  const int64_t total = numel_of(sizes);
  for (int64_t k = 0; k < total; ++k) {
    f(off[0], nops > 1 ? off[1] : 0);
    for (int64_t p = 0; p < nd; ++p) {
      int64_t d = perm[p];
      if (++idx[d] < sizes[d]) {
        for (size_t op = 0; op < nops; ++op) off[op] += strides[op][d];
        break;
      }
      for (size_t op = 0; op < nops; ++op) off[op] -= (sizes[d] - 1) * strides[op][d];
      idx[d] = 0;
    }
  }
}

namespace {

// Upstream's AVX2 build fuses x*(to-from)+from; its baseline build does not. We follow the
// build this CPU would run. Our own build has no -mfma, so a*b+c below is never contracted.
bool use_fma() { return has_avx2_fma(); }
template <typename A>
A madd(A a, A b, A c) {
  static const bool fused = use_fma();
  return fused ? std::fma(a, b, c) : a * b + c;
}

// Uniform in [0, 1): the low 24 bits of one word (float); uniform53 (random.h) for double.
float uniform24(Generator& g) { return static_cast<float>(g.random() & 0xFFFFFFu) * 0x1p-24f; }

template <typename T> constexpr bool is_reduced_v = std::is_same_v<T, Half> ||
                                                    std::is_same_v<T, BFloat16>;
// Conversions as upstream's static_cast<scalar_t>: 16-bit floats go through float.
template <typename T> T from_double(double d) {
  if constexpr (is_reduced_v<T>) return T(static_cast<float>(d));
  else return static_cast<T>(d);
}
template <typename T> T from_int64(int64_t v) {
  if constexpr (is_reduced_v<T>) return T(static_cast<float>(v));
  else return static_cast<T>(v);
}

// Writes gen() into every element of t in upstream's iterator order. t may not write one
// element twice (an expanded tensor), as upstream's iterator refuses.
template <typename T, typename G>
void fill_in_order(const Tensor& t, const char* key, G&& gen) {
  check_no_internal_overlap(*t);
  T* base = static_cast<T*>(t->dense_cpu_data(key));
  if (t->is_contiguous()) {
    for (int64_t k = 0; k < t->numel(); ++k) base[k] = gen();
    return;
  }
  walk_like_iterator(t->sizes(), {t->strides()}, [&](int64_t o, int64_t) { base[o] = gen(); });
}


// Upstream's ScalarType name ("Long", "Half"): the legacy tensor type name without "Tensor".
std::string upstream_name(ScalarType t) {
  std::string s = info(t).legacy_name;
  const std::string suffix = "Tensor";
  if (s.size() > suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0)
    s.resize(s.size() - suffix.size());
  return s;
}

// Upstream's AT_DISPATCH refusal for dtypes a sampler has no case for.
[[noreturn]] void not_for_dtype(const char* dispatch_name, ScalarType t) {
  TN_FAIL(NotImplemented, "\"", dispatch_name, "\" not implemented for '", enum_name(t), "'");
}

template <typename F>
void dispatch_floating(ScalarType t, const char* dispatch_name, F&& f) {
  switch (t) {
    case ScalarType::Float: f(float{}); return;
    case ScalarType::Double: f(double{}); return;
    case ScalarType::Half: f(Half{}); return;
    case ScalarType::BFloat16: f(BFloat16{}); return;
    default: not_for_dtype(dispatch_name, t);
  }
}

template <typename T> struct Limits {
  static double lowest() { return static_cast<double>(std::numeric_limits<T>::lowest()); }
  static double max() { return static_cast<double>(std::numeric_limits<T>::max()); }
  static constexpr int digits = std::numeric_limits<T>::digits;
};
template <> struct Limits<Half> {
  static double lowest() { return -65504.0; }
  static double max() { return 65504.0; }
  static constexpr int digits = 11;
};
template <> struct Limits<BFloat16> {
  static double lowest() { return -3.3895313892515355e38; }
  static double max() { return 3.3895313892515355e38; }
  static constexpr int digits = 8;
};

// ---------------------------------------------------------------------------------- uniform_

// uniform_(Tensor(a!) self, float from=0, float to=1, *, Generator? generator=None)
// A complex tensor is sampled as its real view (upstream's uniform_impl_ and normal_impl_):
// each part in turn, real first; normal_'s std is divided by sqrt(2).
bool sample_as_real(Call& c, const char* op_key, double std_divisor) {
  const Tensor& self = c.tensor(0);
  if (!is_complex(self->dtype())) return false;
  std::vector<Value> args = c.args;
  args[0] = Value::of(call_tensor("aten::view_as_real", {c.arg(0)}));
  if (std_divisor != 1.0) args[2] = Value::of_double(c.to_double(2) / std_divisor);
  call(op_key, std::move(args));
  c.ret(self);
  return true;
}

void uniform_cpu(Call& c) {
  if (sample_as_real(c, "aten::uniform_", 1.0)) return;
  const Tensor& self = c.tensor(0);
  double from = c.to_double(1), to = c.to_double(2);
  Generator& g = generator_arg(c, 3);
  const std::string& key = c.key();
  dispatch_floating(self->dtype(), "check_uniform_bounds", [&](auto zero) {
    using T = decltype(zero);
    const double lo = Limits<T>::lowest(), hi = Limits<T>::max();
    const char* tn = cpp_type_name(self->dtype());
    TN_CHECK(from >= lo && from <= hi, "from is out of bounds for ", tn);
    TN_CHECK(to >= lo && to <= hi, "to is out of bounds for ", tn);
    TN_CHECK(from <= to, "uniform_ expects to return a [from, to) range, but found from=", from,
             " > to=", to);
    TN_CHECK(to - from <= hi, "uniform_ expects to-from <= std::numeric_limits<",
             upstream_name(self->dtype()), ">::max(), but found to=", to, " and from=", from,
             " which result in to-from to exceed the limit");
  });
  if (self->numel() != 0) {
    std::lock_guard<std::mutex> lock(g.mutex);
    dispatch_floating(self->dtype(), "uniform_kernel_cpu", [&](auto zero) {
      using T = decltype(zero);
      const T to_t = from_double<T>(to), from_t = from_double<T>(from);
      // A value that rounds up to `to` in T is replaced by `from`, as upstream does.
      auto clamp = [&](T v) { return v == to_t ? from_t : v; };
      if constexpr (std::is_same_v<T, double>) {
        fill_in_order<T>(self, key.c_str(),
                         [&] { return clamp(madd(uniform53(g), to - from, from)); });
      } else {
        const float f = static_cast<float>(from), t = static_cast<float>(to);
        fill_in_order<T>(self, key.c_str(),
                         [&] { return clamp(T(madd(uniform24(g), t - f, f))); });
      }
    });
  }
  c.ret(self);
}

// ------------------------------------------------------------------------------ exponential_

// exponential_(Tensor(a!) self, float lambd=1, *, Generator? generator=None): per element, in
// iterator order, one double uniform u and (-1 / lambd) * log1p(-u) in double (the scalar
// log1p, as upstream's serial kernel), then cast to the dtype.
void exponential_cpu(Call& c) {
  const Tensor& self = c.tensor(0);
  const double lambd = c.to_double(1);
  Generator& g = generator_arg(c, 2);
  const std::string& key = c.key();
  TN_CHECK(lambd > 0.0 && !std::isinf(lambd) && !std::isnan(lambd),
           "exponential_ expects lambda > 0.0, but found lambda=", lambd);
  TN_CHECK(is_floating(self->dtype()), "Exponential distribution is a continuous probability "
           "distribution. dtype must be a floating point but you specified ",
           upstream_name(self->dtype()));
  dispatch_floating(self->dtype(), "exponential_cpu", [&](auto zero) {
    using T = decltype(zero);
    if (self->numel() == 0) return;
    std::lock_guard<std::mutex> lock(g.mutex);
    const double scale = -1.0 / lambd;
    fill_in_order<T>(self, key.c_str(),
                     [&] { return from_double<T>(scale * std::log1p(-uniform53(g))); });
  });
  c.ret(self);
}

// exponential_ on meta: the lambda check alone.
void exponential_meta(Call& c) {
  const double lambd = c.to_double(1);
  TN_CHECK(lambd > 0.0 && !std::isinf(lambd) && !std::isnan(lambd),
           "exponential_ expects lambda > 0.0, but found lambda=", lambd);
  c.ret(c.tensor(0));
}

// ----------------------------------------------------------------------------------- normal_

// Box-Muller on 16 values (8 pairs) in place, upstream's scalar block: cos from data[j],
// sin into data[j + 8], both fused with std and mean.
template <typename A>
void normal_fill16_scalar(A* data, A mean, A std) {
  for (int j = 0; j < 8; ++j) {
    const A u1 = 1 - data[j];
    const A u2 = data[j + 8];
    const A radius = std::sqrt(-2 * std::log(u1));
    const A theta = static_cast<A>(2.0 * M_PI * u2);
    data[j] = std::fma(radius * std::cos(theta), std, mean);
    data[j + 8] = std::fma(radius * std::sin(theta), std, mean);
  }
}

template <typename A>
void normal_fill16(A* data, A mean, A std) {
  if constexpr (std::is_same_v<A, float>) {
    if (has_avx2_fma()) return normal_fill16_avx2(data, mean, std);
  }
  normal_fill16_scalar(data, mean, std);
}

template <typename A> A uniform_acc(Generator& g) {
  if constexpr (std::is_same_v<A, double>) return uniform53(g);
  else return uniform24(g);
}

// Contiguous, >= 16 elements: uniforms first, 16-wide blocks, the tail block recomputed from 16
// fresh uniforms. float/double fill in place; 16-bit floats go block by block through floats.
template <typename T>
void normal_fill(T* data, int64_t n, double mean, double std, Generator& g) {
  using A = acc_t<T>;
  const A m = static_cast<A>(mean), s = static_cast<A>(std);
  if constexpr (std::is_same_v<T, A>) {
    for (int64_t i = 0; i < n; ++i) data[i] = uniform_acc<A>(g);
    for (int64_t i = 0; i + 16 <= n; i += 16) normal_fill16(data + i, m, s);
    if (n % 16 != 0) {
      A* tail = data + n - 16;
      for (int j = 0; j < 16; ++j) tail[j] = uniform_acc<A>(g);
      normal_fill16(tail, m, s);
    }
  } else {
    A buf[16];
    auto block = [&](int64_t at) {
      for (int j = 0; j < 16; ++j) buf[j] = uniform_acc<A>(g);
      normal_fill16(buf, m, s);
      for (int j = 0; j < 16; ++j) data[at + j] = T(buf[j]);
    };
    for (int64_t i = 0; i + 16 <= n; i += 16) block(i);
    if (n % 16 != 0) block(n - 16);
  }
}

// One sample of upstream's scalar normal_distribution<double>: Box-Muller in double, the sine
// half cached on the generator for the next call.
double normal_sample(Generator& g, double mean, double std) {
  if (g.next_double_normal) {
    double v = *g.next_double_normal;
    g.next_double_normal.reset();
    return madd(v, std, mean);
  }
  const double u1 = uniform53(g);
  const double u2 = uniform53(g);
  const double r = std::sqrt(-2.0 * std::log1p(-u2));
  const double theta = 2.0 * M_PI * u1;
  g.next_double_normal = r * std::sin(theta);
  return madd(r * std::cos(theta), std, mean);
}

// normal_(Tensor(a!) self, float mean=0, float std=1, *, Generator? generator=None)
void normal_cpu(Call& c) {
  if (sample_as_real(c, "aten::normal_", std::sqrt(2.0))) return;
  const Tensor& self = c.tensor(0);
  const double mean = c.to_double(1), std = c.to_double(2);
  Generator& g = generator_arg(c, 3);
  const std::string& key = c.key();
  TN_CHECK(std >= 0.0, "normal expects std >= 0.0, but found std ", std);
  if (self->numel() != 0) {
    dispatch_floating(self->dtype(), "normal_kernel_cpu", [&](auto zero) {
      using T = decltype(zero);
      std::lock_guard<std::mutex> lock(g.mutex);
      if (self->numel() >= 16 && self->is_contiguous()) {
        normal_fill(static_cast<T*>(self->dense_cpu_data(key.c_str())), self->numel(), mean, std,
                    g);
      } else {
        fill_in_order<T>(self, key.c_str(),
                         [&] { return from_double<T>(normal_sample(g, mean, std)); });
      }
    });
  }
  c.ret(self);
}

// ------------------------------------------------------------ cauchy_, log_normal_, geometric_

// Each draws per element, in iterator order, from upstream's scalar double distributions and
// casts the double to the dtype (the serial kernels of its DistributionKernels.cpp).

// The continuous samplers refuse a non-floating self as upstream, naming the distribution.
void check_continuous(const Tensor& self, const char* distribution) {
  TN_CHECK(is_floating(self->dtype()), distribution, " distribution is a continuous probability "
           "distribution. dtype must be a floating point but you specified ",
           upstream_name(self->dtype()));
}

// A double as Python's repr writes it (the shortest text that reads back, ".0" when integral):
// upstream's meta functions are Python and print their numbers so.
std::string python_float(double v) {
  char buf[32];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  std::string s = buf;
  if (s.find_first_of(".eni") == std::string::npos) s += ".0";
  return s;
}
// A number for a check's message: C++'s text on a back end, Python's on meta.
std::string number_text(double v, bool meta) {
  if (meta) return python_float(v);
  std::ostringstream os;
  os << v;
  return os.str();
}

// cauchy_(Tensor(a!) self, float median=0, float sigma=1, *, Generator? generator=None):
// median + sigma * tan(pi * (u - 0.5)) for one double uniform u.
void cauchy_checks(const Call& c, bool meta) {
  const double sigma = c.to_double(2);
  TN_CHECK(sigma > 0.0, "cauchy_ expects sigma > 0.0, but found sigma=",
           number_text(sigma, meta));
  const Tensor& self = c.tensor(0);
  TN_CHECK(is_floating(self->dtype()), "Cauchy distribution is a continuous probability "
           "distribution. dtype must be a floating point but you specified ",
           cpp_type_name(self->dtype()));
}
void cauchy_cpu(Call& c) {
  cauchy_checks(c, false);
  const Tensor& self = c.tensor(0);
  const double median = c.to_double(1), sigma = c.to_double(2);
  Generator& g = generator_arg(c, 3);
  const std::string& key = c.key();
  dispatch_floating(self->dtype(), "cauchy_cpu", [&](auto zero) {
    using T = decltype(zero);
    if (self->numel() == 0) return;
    std::lock_guard<std::mutex> lock(g.mutex);
    fill_in_order<T>(self, key.c_str(), [&] {
      return from_double<T>(madd(sigma, std::tan(M_PI * (uniform53(g) - 0.5)), median));
    });
  });
  c.ret(self);
}

// log_normal_(Tensor(a!) self, float mean=1, float std=2, *, Generator? generator=None): exp of
// one scalar normal sample (normal_sample: the generator's cached second half first). An
// integral self is refused by the kernel's dtype dispatch, as upstream's.
void log_normal_checks(const Call& c, bool meta) {
  const double std = c.to_double(2);
  TN_CHECK(std > 0.0, "log_normal_ expects std > 0.0, but found std=", number_text(std, meta));
}
void log_normal_cpu(Call& c) {
  log_normal_checks(c, false);
  const Tensor& self = c.tensor(0);
  check_no_internal_overlap(*self);  // upstream's iterator, before the dtype dispatch
  const double mean = c.to_double(1), std = c.to_double(2);
  Generator& g = generator_arg(c, 3);
  const std::string& key = c.key();
  dispatch_floating(self->dtype(), "log_normal_cpu", [&](auto zero) {
    using T = decltype(zero);
    if (self->numel() == 0) return;
    std::lock_guard<std::mutex> lock(g.mutex);
    fill_in_order<T>(self, key.c_str(),
                     [&] { return from_double<T>(std::exp(normal_sample(g, mean, std))); });
  });
  c.ret(self);
}

// geometric_(Tensor(a!) self, float p, *, Generator? generator=None): ceil(log(u) / log1p(-p))
// for one double uniform u, for every real dtype but bool.
void geometric_checks(const Call& c, bool meta) {
  const double p = c.to_double(1);
  TN_CHECK(0 < p && p < 1, "geometric_ expects p to be in (0, 1), but got p=",
           number_text(p, meta));
}
void geometric_cpu(Call& c) {
  geometric_checks(c, false);
  const Tensor& self = c.tensor(0);
  check_no_internal_overlap(*self);  // upstream's iterator, before the dtype dispatch
  const double p = c.to_double(1);
  Generator& g = generator_arg(c, 2);
  const std::string& key = c.key();
  const ScalarType dt = self->dtype();
  switch (dt) {  // upstream's AT_DISPATCH_ALL_TYPES_AND2(Half, BFloat16)
    case ScalarType::Byte: case ScalarType::Char: case ScalarType::Short: case ScalarType::Int:
    case ScalarType::Long: case ScalarType::Half: case ScalarType::BFloat16:
    case ScalarType::Float: case ScalarType::Double: break;
    default: not_for_dtype("geometric_cpu", dt);
  }
  dispatch_dtype(dt, key, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (!std::is_same_v<T, bool>) {
      if (self->numel() == 0) return;
      std::lock_guard<std::mutex> lock(g.mutex);
      const double denominator = std::log1p(-p);
      fill_in_order<T>(self, key.c_str(), [&] {
        const double v = std::ceil(std::log(uniform53(g)) / denominator);
        if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<int64_t>(v));
        else return from_double<T>(v);
      });
    }
  });
  c.ret(self);
}

// poisson(Tensor self, Generator? generator=None): per element of self (the rates), in the
// order of a new contiguous result, upstream's sample_poisson: for a rate of 10 or more
// Hoermann's transformed rejection, below it the product of uniforms against exp(-rate), 0 for
// a rate of 0; upstream builds this file without FMA, and so is it computed here.
int64_t sample_poisson(double lambda, Generator& g) {
  TN_CHECK(lambda >= 0, "invalid Poisson rate, expected rate to be non-negative");
  if (lambda >= 10) {
    const double slam = std::sqrt(lambda), loglam = std::log(lambda);
    const double b = 0.931 + 2.53 * slam;
    const double a = -0.059 + 0.02483 * b;
    const double invalpha = 1.1239 + 1.1328 / (b - 3.4);
    const double vr = 0.9277 - 3.6224 / (b - 2);
    while (true) {
      const double u = uniform53(g) - 0.5;
      const double v = uniform53(g);
      const double us = 0.5 - std::fabs(u);
      const int64_t k = static_cast<int64_t>(std::floor((2 * a / us + b) * u + lambda + 0.43));
      if (us >= 0.07 && v <= vr) return k;
      if (k < 0 || (us < 0.013 && v > us)) continue;
      if (std::log(v) + std::log(invalpha) - std::log(a / (us * us) + b) <=
          -lambda + static_cast<double>(k) * loglam - std::lgamma(static_cast<double>(k) + 1))
        return k;
    }
  }
  if (lambda == 0) return 0;
  const double enlam = std::exp(-lambda);
  int64_t x = 0;
  double prod = 1.0;
  while (true) {
    prod *= uniform53(g);
    if (prod > enlam) x += 1;
    else return x;
  }
}
template <bool kCpu>
void poisson(Call& c) {
  const Tensor& self = c.tensor(0);
  Tensor out = call_tensor("aten::zeros", {Value::of_ints(self->sizes()),
                                           Value::of_dtype(self->dtype()), Value{},
                                           Value::of_device(self->device())});
  c.ret(out);
  if (!kCpu || self->numel() == 0) return;
  Generator& g = generator_arg(c, 1);
  const std::string& key = c.key();
  dispatch_floating(self->dtype(), "poisson_cpu", [&](auto zero) {
    using T = decltype(zero);
    const T* rates = static_cast<const T*>(self->dense_cpu_data(key.c_str()));
    T* o = static_cast<T*>(out->dense_cpu_data(key.c_str()));
    std::lock_guard<std::mutex> lock(g.mutex);
    walk_like_iterator(out->sizes(), {out->strides(), self->strides()},
                       [&](int64_t oi, int64_t si) {
                         const double rate = static_cast<acc_t<T>>(rates[si]);
                         o[oi] = from_int64<T>(sample_poisson(rate, g));
                       });
  });
}

// On meta: the checks alone.
template <void (*kChecks)(const Call&, bool)>
void checks_then_self(Call& c) {
  kChecks(c, true);
  c.ret(c.tensor(0));
}

// ----------------------------------------------------------------------------------- random_

// update_from / update_to: move a bound inwards until it survives the round trip through T.
template <typename T>
int64_t update_from(int64_t from) {
  const auto back = static_cast<int64_t>(static_cast<float>(from_int64<T>(from + 1)));
  if (back < from) {
    int64_t a = std::llabs(from + 1);
    int n = 0;
    while (a >>= 1) ++n;
    from = back + (int64_t{1} << (n - Limits<T>::digits + 1));
  }
  return from;
}
template <typename T>
int64_t update_to(int64_t to) {
  const auto back = static_cast<int64_t>(static_cast<float>(from_int64<T>(to - 1)));
  if (back >= to) {
    int64_t a = std::llabs(to - 1);
    int n = 0;
    while (a >>= 1) ++n;
    to = back - (int64_t{1} << (n - Limits<T>::digits + 1));
  }
  return to;
}
// double's round trip must not go through float.
template <> int64_t update_from<double>(int64_t from) {
  const auto back = static_cast<int64_t>(static_cast<double>(from + 1));
  if (back < from) {
    int64_t a = std::llabs(from + 1);
    int n = 0;
    while (a >>= 1) ++n;
    from = back + (int64_t{1} << (n - 53 + 1));
  }
  return from;
}
template <> int64_t update_to<double>(int64_t to) {
  const auto back = static_cast<int64_t>(static_cast<double>(to - 1));
  if (back >= to) {
    int64_t a = std::llabs(to - 1);
    int n = 0;
    while (a >>= 1) ++n;
    to = back - (int64_t{1} << (n - 53 + 1));
  }
  return to;
}

template <typename F>
void dispatch_random(ScalarType t, const char* dispatch_name, F&& f) {
  switch (t) {
    case ScalarType::Bool: case ScalarType::Byte: case ScalarType::Char: case ScalarType::Short:
    case ScalarType::Int: case ScalarType::Long: case ScalarType::Half:
    case ScalarType::BFloat16: case ScalarType::Float: case ScalarType::Double:
      dispatch_dtype(t, dispatch_name, f);
      return;
    default: not_for_dtype(dispatch_name, t);
  }
}

// from and to - 1 must be representable in the dtype.
void check_from_to_in_range(int64_t from, int64_t to_inc, ScalarType t) {
  const char* tn = cpp_type_name(t);
  auto check = [&](double lo, double hi) {
    TN_CHECK(from >= lo && from <= hi, "from is out of bounds for ", tn);
    TN_CHECK(to_inc >= lo && to_inc <= hi, "to - 1 is out of bounds for ", tn);
  };
  dispatch_random(t, "check_random_bounds", [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_same_v<T, bool>) check(0, 1);
    else check(Limits<T>::lowest(), Limits<T>::max());
  });
}

// Values base + (word % range) with upstream's word size choice: one 32-bit word below 2^28.
void random_from_to_fill(const Tensor& self, uint64_t range, int64_t base, Generator& g,
                         const char* key) {
  std::lock_guard<std::mutex> lock(g.mutex);
  dispatch_random(self->dtype(), "random_from_to_kernel_cpu", [&](auto zero) {
    using T = decltype(zero);
    const bool wide = range >= (uint64_t{1} << 28);
    fill_in_order<T>(self, key, [&] {
      uint64_t word = wide ? g.random64() : g.random();
      return from_int64<T>(static_cast<int64_t>(word % range + static_cast<uint64_t>(base)));
    });
  });
}

// The one case [int64 min, int64 max]: a full 64-bit word per element.
void random_full_range_fill(const Tensor& self, Generator& g, const char* key) {
  const ScalarType dt = self->dtype();
  if (dt == ScalarType::Bool || dt == ScalarType::Half)  // outside upstream's dispatch list
    not_for_dtype("random_full_64_bits_range_kernel_cpu", dt);
  std::lock_guard<std::mutex> lock(g.mutex);
  dispatch_random(self->dtype(), "random_full_64_bits_range_kernel_cpu", [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_same_v<T, int64_t> || std::is_same_v<T, double> ||
                  std::is_same_v<T, float> || std::is_same_v<T, BFloat16>) {
      fill_in_order<T>(self, key,
                       [&] { return from_int64<T>(static_cast<int64_t>(g.random64())); });
    } else {
      TN_FAIL(Runtime,
              "random_full_64_bits_range_kernel_cpu handles only int64, double, float and "
              "bfloat16");
    }
  });
}

void random_from_to(const Tensor& self, int64_t from, std::optional<int64_t> to_opt,
                    Generator& g, const char* key) {
  const ScalarType dt = self->dtype();
  const bool floating = is_floating(dt);
  if (to_opt) {
    int64_t to = *to_opt;
    TN_CHECK(from < to, "random_ expects 'from' to be less than 'to', but got from=", from,
             " >= to=", to);
    if (floating) {
      dispatch_floating(dt, "random_update_from_to", [&](auto zero) {
        using T = decltype(zero);
        from = update_from<T>(from);
        to = update_to<T>(to);
        TN_CHECK(from < to, "random_ expects 'from' casted to dtype to be less than 'to' casted "
                 "to dtype, but got from=", from, " >= to=", to);
      });
    }
    check_from_to_in_range(from, to - 1, dt);
    if (self->numel() == 0) return;
    random_from_to_fill(self, static_cast<uint64_t>(to) - static_cast<uint64_t>(from), from, g,
                        key);
  } else if (from != std::numeric_limits<int64_t>::lowest()) {
    int64_t to_inc = 0;
    if (floating) {
      dispatch_floating(dt, "random_from_to_range_calc", [&](auto zero) {
        using T = decltype(zero);
        to_inc = int64_t{1} << Limits<T>::digits;
        from = update_from<T>(from);
        TN_CHECK(from < to_inc, "random_ expects 'from' casted to dtype to be less than or equal "
                 "to 'to_inc' casted to dtype, but got from=", from, " > to_inc=", to_inc);
      });
    } else {
      dispatch_random(dt, "random_from_to_range_calc", [&](auto zero) {
        using T = decltype(zero);
        if constexpr (std::is_same_v<T, bool>) to_inc = 1;
        else to_inc = static_cast<int64_t>(std::numeric_limits<T>::max());
      });
    }
    check_from_to_in_range(from, to_inc, dt);
    if (self->numel() == 0) return;
    random_from_to_fill(self, static_cast<uint64_t>(to_inc) - static_cast<uint64_t>(from) + 1,
                        from, g, key);
  } else {
    if (self->numel() == 0) return;
    random_full_range_fill(self, g, key);
  }
}

// random_.from(Tensor(a!) self, int from, int? to, *, Generator? generator=None)
void random_from_cpu(Call& c) {
  const Tensor& self = c.tensor(0);
  std::optional<int64_t> to;
  if (!c.arg(2).is_none()) to = c.to_int(2);
  random_from_to(self, c.to_int(1), to, generator_arg(c, 3), c.key().c_str());
  c.ret(self);
}

// random_.to(Tensor(a!) self, int to, *, Generator? generator=None): [0, to)
void random_to_cpu(Call& c) {
  const Tensor& self = c.tensor(0);
  random_from_to(self, 0, c.to_int(1), generator_arg(c, 2), c.key().c_str());
  c.ret(self);
}

// random_(Tensor(a!) self, *, Generator? generator=None): [0, 2^digits] for floats, [0, max]
// for integers; 64-bit types take random64.
void random_cpu(Call& c) {
  const Tensor& self = c.tensor(0);
  Generator& g = generator_arg(c, 1);
  const std::string& key = c.key();
  if (self->numel() != 0) {
    std::lock_guard<std::mutex> lock(g.mutex);
    dispatch_random(self->dtype(), "random_kernel_cpu", [&](auto zero) {
      using T = decltype(zero);
      fill_in_order<T>(self, key.c_str(), [&]() -> T {
        if constexpr (std::is_same_v<T, bool>) {
          return static_cast<bool>(g.random() & 1);
        } else if constexpr (std::is_same_v<T, int64_t> || std::is_same_v<T, double>) {
          const uint64_t m = std::is_same_v<T, double>
                                 ? (uint64_t{1} << 53) + 1
                                 : static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) + 1;
          return static_cast<T>(g.random64() % m);
        } else if constexpr (std::is_floating_point_v<T> || is_reduced_v<T>) {
          const uint64_t m = (uint64_t{1} << Limits<T>::digits) + 1;
          return from_int64<T>(static_cast<int64_t>(g.random() % m));
        } else {
          const uint64_t m = static_cast<uint64_t>(std::numeric_limits<T>::max()) + 1;
          return static_cast<T>(g.random() % m);
        }
      });
    });
  }
  c.ret(self);
}

// -------------------------------------------------------------------------------- bernoulli_

template <typename F>
void dispatch_bernoulli_self(ScalarType t, const char* name, F&& f) {
  dispatch_random(t, name, std::forward<F>(f));
}

// out[k] = 1.0f where the 53-bit integer of words 2k (high) and 2k + 1 (low) is below bound,
// else 0.0f, for k < m: four pairs per 256-bit load, the words of each pair swapped into one
// 64-bit lane (both sides of the compare are below 2^63, so the signed compare is exact).
__attribute__((target("avx2"))) void bernoulli_block_f32(const uint32_t* words, int64_t m,
                                                          uint64_t bound, float* out) {
  const __m256i mask = _mm256_set1_epi64x(static_cast<int64_t>((uint64_t{1} << 53) - 1));
  const __m256i lim = _mm256_set1_epi64x(static_cast<int64_t>(bound));
  const __m256i low_halves = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
  const __m128i one = _mm_set1_epi32(0x3f800000);
  int64_t k = 0;
  for (; k + 4 <= m; k += 4) {
    __m256i w = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(words + 2 * k));
    __m256i u = _mm256_and_si256(_mm256_shuffle_epi32(w, 0xB1), mask);
    __m256i below = _mm256_cmpgt_epi64(lim, u);
    __m128i b32 = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(below, low_halves));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + k), _mm_and_si128(b32, one));
  }
  for (; k < m; ++k) {
    const uint64_t u = (uint64_t{words[2 * k] & 0x1fffffU} << 32) | words[2 * k + 1];
    out[k] = u < bound ? 1.0f : 0.0f;
  }
}

// bernoulli_.float on a contiguous tensor, the same draws as uniform53(g) < p per element:
// the generator's words come a block at a time, and u * 2^-53 < p (both exact) is compared as
// u < ceil(p * 2^53) on the 53-bit integer u, the low 21 bits of the first word over the second.
template <typename T>
void bernoulli_words(const Tensor& self, double p, Generator& g, const char* key) {
  T* out = static_cast<T*>(self->dense_cpu_data(key));
  const uint64_t bound = static_cast<uint64_t>(std::ceil(p * 0x1p53));
  constexpr int64_t kBlock = 1024;
  uint32_t words[2 * kBlock];
  const T one = from_int64<T>(1), zero = from_int64<T>(0);
  for (int64_t at = 0, n = self->numel(); at < n; at += kBlock) {
    const int64_t m = std::min(kBlock, n - at);
    g.engine().draw(words, 2 * m);
    if constexpr (std::is_same_v<T, float>) {
      static const bool avx2 = __builtin_cpu_supports("avx2");
      if (avx2) {
        bernoulli_block_f32(words, m, bound, out + at);
        continue;
      }
    }
    for (int64_t k = 0; k < m; ++k) {
      const uint64_t u = (uint64_t{words[2 * k] & 0x1fffffU} << 32) | words[2 * k + 1];
      out[at + k] = u < bound ? one : zero;
    }
  }
}

// bernoulli_.float(Tensor(a!) self, float p=0.5, *, Generator? generator=None): one
// double-precision uniform per element, in iterator order.
void bernoulli_float_cpu(Call& c) {
  const Tensor& self = c.tensor(0);
  const double p = c.to_double(1);
  Generator& g = generator_arg(c, 2);
  const std::string& key = c.key();
  TN_CHECK(0 <= p && p <= 1, "bernoulli_ expects p to be in [0, 1], but got p=", p);
  if (self->numel() != 0) {
    dispatch_bernoulli_self(self->dtype(), "bernoulli_scalar_cpu_", [&](auto zero) {
      using T = decltype(zero);
      std::lock_guard<std::mutex> lock(g.mutex);
      if (self->is_contiguous()) return bernoulli_words<T>(self, p, g, key.c_str());
      fill_in_order<T>(self, key.c_str(), [&] { return from_int64<T>(uniform53(g) < p); });
    });
  }
  c.ret(self);
}

// p's strides after broadcasting it to self's sizes (upstream's expand_inplace).
Dims expanded_strides(const Tensor& p, const Dims& sizes) {
  const int64_t nd = static_cast<int64_t>(sizes.size()), pd = p->dim();
  TN_CHECK(pd <= nd, "The size of tensor a (", pd > 0 ? p->size(0) : 1,
           ") must match the size of tensor b at non-singleton dimension 0");
  Dims st(nd, 0);
  for (int64_t i = 0; i < pd; ++i) {
    int64_t d = nd - pd + i;
    int64_t ps = p->size(i);
    TN_CHECK(ps == sizes[d] || ps == 1, "The expanded size of the tensor (", sizes[d],
             ") must match the existing size (", ps, ") at non-singleton dimension ", d,
             ".  Target sizes: ", "[...]", ".  Tensor sizes: [...]");
    st[d] = ps == 1 ? 0 : p->stride(i);
  }
  return st;
}

void bernoulli_tensor_fill(const Tensor& self, const Tensor& p, Generator& g,
                           const std::string& key) {
  if (self->numel() == 0) return;
  check_no_internal_overlap(*self);
  const Dims pstrides = expanded_strides(p, self->sizes());
  dispatch_bernoulli_self(self->dtype(), "bernoulli_tensor_cpu_self_", [&](auto zero) {
    using T = decltype(zero);
    T* out = static_cast<T*>(self->dense_cpu_data(key.c_str()));
    std::lock_guard<std::mutex> lock(g.mutex);
    dispatch_floating(p->dtype(), "bernoulli_tensor_cpu_p_", [&](auto pzero) {
      using P = decltype(pzero);
      const P* pp = static_cast<const P*>(p->dense_cpu_data(key.c_str()));
      walk_like_iterator(self->sizes(), {self->strides(), pstrides}, [&](int64_t o, int64_t q) {
        bool hit;
        if constexpr (std::is_same_v<P, double>) {
          const double pv = pp[q];
          TN_CHECK(pv >= 0 && pv <= 1, "Expected p_in >= 0 && p_in <= 1 to be true, but got "
                   "false.");
          hit = uniform53(g) < pv;
        } else {
          const float pv = static_cast<float>(pp[q]);
          TN_CHECK(pv >= 0 && pv <= 1, "Expected p_in >= 0 && p_in <= 1 to be true, but got "
                   "false.");
          hit = uniform24(g) < pv;
        }
        out[o] = from_int64<T>(hit);
      });
    });
  });
}

// bernoulli_.Tensor(Tensor(a!) self, Tensor p, *, Generator? generator=None): p broadcast to
// self; one uniform per element, double precision when p is float64, float otherwise.
void bernoulli_tensor_cpu(Call& c) {
  const Tensor& self = c.tensor(0);
  bernoulli_tensor_fill(self, c.tensor(1), generator_arg(c, 2), c.key());
  c.ret(self);
}

void return_self(Call& c) { c.ret(c.tensor(0)); }

// normal_ on meta: no sampling, but upstream's meta function's checks (its CPU kernel refuses a
// non-floating dtype by name instead, as normal_cpu does).
void normal_meta(Call& c) {
  const Tensor& self = c.tensor(0);
  const double std = c.to_double(2);
  TN_CHECK(info(self->dtype()).is_floating || info(self->dtype()).is_complex,
           "expected a floating-point or complex dtype, but got dtype=torch.",
           info(self->dtype()).name);
  TN_CHECK(std >= 0.0, "normal expects std >= 0.0, but found std ", std);
  c.ret(self);
}

}  // namespace

TN_REGISTER_KERNEL("aten::uniform_", DenseCPU, uniform_cpu);
TN_REGISTER_KERNEL("aten::uniform_", Meta, return_self);
TN_REGISTER_KERNEL("aten::exponential_", DenseCPU, exponential_cpu);
TN_REGISTER_KERNEL("aten::exponential_", Meta, exponential_meta);
TN_REGISTER_KERNEL("aten::poisson", DenseCPU, poisson<true>);
TN_REGISTER_KERNEL("aten::poisson", Meta, poisson<false>);
TN_REGISTER_KERNEL("aten::cauchy_", DenseCPU, cauchy_cpu);
TN_REGISTER_KERNEL("aten::cauchy_", Meta, checks_then_self<cauchy_checks>);
TN_REGISTER_KERNEL("aten::log_normal_", DenseCPU, log_normal_cpu);
TN_REGISTER_KERNEL("aten::log_normal_", Meta, checks_then_self<log_normal_checks>);
TN_REGISTER_KERNEL("aten::geometric_", DenseCPU, geometric_cpu);
TN_REGISTER_KERNEL("aten::geometric_", Meta, checks_then_self<geometric_checks>);
TN_REGISTER_KERNEL("aten::normal_", DenseCPU, normal_cpu);
TN_REGISTER_KERNEL("aten::normal_", Meta, normal_meta);
TN_REGISTER_KERNEL("aten::random_.from", DenseCPU, random_from_cpu);
TN_REGISTER_KERNEL("aten::random_.from", Meta, return_self);
TN_REGISTER_KERNEL("aten::random_.to", DenseCPU, random_to_cpu);
TN_REGISTER_KERNEL("aten::random_.to", Meta, return_self);
TN_REGISTER_KERNEL("aten::random_", DenseCPU, random_cpu);
TN_REGISTER_KERNEL("aten::random_", Meta, return_self);
TN_REGISTER_KERNEL("aten::bernoulli_.float", DenseCPU, bernoulli_float_cpu);
TN_REGISTER_KERNEL("aten::bernoulli_.float", Meta, return_self);
TN_REGISTER_KERNEL("aten::bernoulli_.Tensor", DenseCPU, bernoulli_tensor_cpu);
TN_REGISTER_KERNEL("aten::bernoulli_.Tensor", Meta, return_self);

double standard_normal(Generator& g) { return normal_sample(g, 0.0, 1.0); }

}  // namespace tn
