// Random factories written over the in-place samplers (composites, so they serve meta too):
// rand, randn, randint, randperm, the *_like forms, normal (every spelling), bernoulli and
// bernoulli.p. Each allocates and then samples exactly as upstream's factory does.
#include <algorithm>
#include <limits>
#include <mutex>

#include "core/backend.h"
#include "core/promotion.h"
#include "kernels/composite/ops.h"
#include "kernels/cpu/random.h"
#include "kernels/dtype_dispatch.h"
#include "kernels/rules/elementwise.h"
#include "kernels/rules/factory_rules.h"

namespace tn {
namespace {

Value none() { return Value{}; }

// The (dtype, layout, device, pin_memory) tail of a factory schema, starting at argument i,
// passed on to aten::empty.memory_format for a tensor of the given sizes.
Tensor empty_from_options(const Call& c, const Dims& sizes, size_t i,
                          std::optional<ScalarType> dtype_default = std::nullopt) {
  Value dtype = c.arg(i);
  if (dtype.is_none() && dtype_default) dtype = Value::of_dtype(*dtype_default);
  return call_tensor("aten::empty.memory_format",
                     {Value::of_ints(sizes), dtype, c.arg(i + 1), c.arg(i + 2), c.arg(i + 3),
                      none()});
}

// empty_like for the *_like factories, as upstream's: self's sizes, its dtype and device unless
// overridden, and its layout under the default preserve_format (a transposed self gives a
// transposed result, which the sampler then fills in memory order, as upstream's does).
Tensor empty_like_options(const Call& c, size_t i) {
  const Tensor& self = c.tensor(0);
  const Value& mf = c.arg(i + 4);
  check_memory_format_rank(mf, self->dim());
  return call_tensor("aten::empty_like",
                     {c.arg(0), c.arg(i), c.arg(i + 1), c.arg(i + 2), c.arg(i + 3), mf});
}

Value gen_or_none(const Call& c, int i) { return i < 0 ? none() : c.arg(i); }

// The argument index of the Generator (or -1) and of the dtype for each overload.
template <int kGen, int kDtype>
void rand_impl(Call& c) {
  Tensor t = empty_from_options(c, c.int_list(0), kDtype);
  c.ret(call_tensor("aten::uniform_", {Value::of(t), Value::of_double(0), Value::of_double(1),
                                       gen_or_none(c, kGen)}));
}
template <int kGen, int kDtype>
void randn_impl(Call& c) {
  Tensor t = empty_from_options(c, c.int_list(0), kDtype);
  c.ret(call_tensor("aten::normal_", {Value::of(t), Value::of_double(0), Value::of_double(1),
                                      gen_or_none(c, kGen)}));
}

// randint(high, size) / randint.low(low, high, size): random_.from(low, high) on a new tensor.
// Without a generator the bounds are checked first, on every device: upstream's meta randint
// refuses an empty range (its meta random_ and the generator overloads check nothing).
template <bool kLow, int kGen>
void randint_impl(Call& c) {
  const size_t h = kLow ? 1 : 0;
  const int64_t low = kLow ? c.to_int(0) : 0, high = c.to_int(h);
  if constexpr (kGen < 0)
    TN_CHECK(low < high, "random_ expects 'from' to be less than 'to', but got from=", low,
             " >= to=", high);
  const size_t dtype_at = h + 2 + (kGen >= 0 ? 1 : 0);
  Tensor t = empty_from_options(c, c.int_list(h + 1), dtype_at, ScalarType::Long);
  c.ret(call_tensor("aten::random_.from", {Value::of(t), Value::of_int(low), Value::of_int(high),
                                           gen_or_none(c, kGen)}));
}

template <int kGen>
void rand_like_impl(Call& c) {
  Tensor t = empty_like_options(c, kGen >= 0 ? 2 : 1);
  c.ret(call_tensor("aten::uniform_", {Value::of(t), Value::of_double(0), Value::of_double(1),
                                       gen_or_none(c, kGen)}));
}
template <int kGen>
void randn_like_impl(Call& c) {
  Tensor t = empty_like_options(c, kGen >= 0 ? 2 : 1);
  c.ret(call_tensor("aten::normal_", {Value::of(t), Value::of_double(0), Value::of_double(1),
                                      gen_or_none(c, kGen)}));
}
// randint_like(self, high) and randint_like.low_dtype(self, low, high).
template <bool kLow, int kGen>
void randint_like_impl(Call& c) {
  const int64_t low = kLow ? c.to_int(1) : 0, high = c.to_int(kLow ? 2 : 1);
  Tensor t = empty_like_options(c, (kLow ? 3 : 2) + (kGen >= 0 ? 1 : 0));
  c.ret(call_tensor("aten::random_.from", {Value::of(t), Value::of_int(low), Value::of_int(high),
                                           gen_or_none(c, kGen)}));
}

// normal.float_float(float mean, float std, SymInt[] size, *, Generator? generator=None,
// ScalarType? dtype=None, ...)
void normal_float_float(Call& c) {
  const double std = c.to_double(1);
  TN_CHECK(std >= 0.0, "normal expects std >= 0.0, but found std ", std);
  Tensor t = empty_from_options(c, c.int_list(2), 4);
  c.ret(call_tensor("aten::normal_", {Value::of(t), c.arg(0), c.arg(1), c.arg(3)}));
}

// normal with tensor arguments (upstream's normal_out_impl): the output drawn as normal_(0, std)
// then mean added (Tensor_float), or normal_(0, 1) then times std plus mean (float_Tensor: mean
// as a 0-dim tensor of the output's dtype; Tensor_Tensor). A tensor std must be real and have
// no element below 0 (nor NaN).
void check_std_tensor(const Tensor& std) {
  TN_CHECK(!is_complex(std->dtype()), "normal expects standard deviation to be non-complex");
  // upstream skips the check on meta tensors: here, on any device whose memory holds no bytes
  if (std->numel() == 0 || !backend(std->device().type).holds_bytes) return;
  Tensor low = call_tensor("aten::min", {Value::of(std)});
  Tensor ok =
      call_tensor("aten::ge.Scalar", {Value::of(low), Value::of_scalar(Scalar::from_int(0))});
  TN_CHECK(call("aten::_local_scalar_dense", {Value::of(ok)})[0].scalar.to_int() != 0,
           "normal expects all elements of std >= 0.0");
}
Tensor contiguous_empty(const Dims& sizes, const Tensor& like) {
  return call_tensor("aten::empty.memory_format",
                     {Value::of_ints(sizes), Value::of_dtype(like->dtype()), none(),
                      Value::of_device(like->device()), none(), none()});
}
Dims broadcast_of(const Dims& a, const Dims& b) {
  size_t n = std::max(a.size(), b.size());
  Dims r(n, 1);
  for (size_t i = 0; i < n; ++i) {
    int64_t x = i + a.size() >= n ? a[i + a.size() - n] : 1;
    int64_t y = i + b.size() >= n ? b[i + b.size() - n] : 1;
    TN_CHECK(x == y || x == 1 || y == 1, "The size of tensor a (", x, ") must match the size of "
             "tensor b (", y, ") at non-singleton dimension ", i);
    r[i] = x == 1 ? y : x;
  }
  return r;
}
// Fills out (already sized): kind 0 Tensor_float, 1 float_Tensor, 2 Tensor_Tensor.
void fill_normal(const Tensor& out, const Value& mean, const Value& std, const Value& gen,
                 int kind) {
  const Value zero = Value::of_double(0);
  if (kind == 0) {
    call("aten::normal_", {Value::of(out), zero, std, gen});
    call("aten::add_.Tensor", {Value::of(out), mean});
    return;
  }
  call("aten::normal_", {Value::of(out), zero, Value::of_double(1), gen});
  call("aten::mul_.Tensor", {Value::of(out), std});
  if (kind == 1) {
    // a 0-dim tensor of the output's dtype (the mean rounded to it), as upstream's at::full
    Tensor m = call_tensor("aten::full", {Value::of_ints({}),
                                          Value::of_scalar(Scalar::from_double(mean.d)),
                                          Value::of_dtype(out->dtype()), none(),
                                          Value::of_device(out->device())});
    call("aten::add_.Tensor", {Value::of(out), Value::of(m)});
  } else {
    call("aten::add_.Tensor", {Value::of(out), mean});
  }
}
template <int kKind>
void normal_tensor(Call& c) {
  Tensor out;
  if (kKind == 0) {
    const double std = c.to_double(1);
    TN_CHECK(std >= 0.0, "normal expects std >= 0.0, but found std ", std);
    out = contiguous_empty(c.tensor(0)->sizes(), c.tensor(0));
  } else if (kKind == 1) {
    check_std_tensor(c.tensor(1));
    out = contiguous_empty(c.tensor(1)->sizes(), c.tensor(1));
  } else {
    check_std_tensor(c.tensor(1));
    Dims shape = broadcast_of(c.tensor(0)->sizes(), c.tensor(1)->sizes());
    out = contiguous_empty(shape, c.tensor(0));
  }
  fill_normal(out, c.arg(0), c.arg(1), c.arg(2), kKind);
  c.ret(out);
}
template <int kKind>
void normal_tensor_out(Call& c) {
  const Tensor& out = c.tensor(3);
  Dims shape;
  if (kKind == 0) {
    const double std = c.to_double(1);
    TN_CHECK(std >= 0.0, "normal expects std >= 0.0, but found std ", std);
    shape = broadcast_of(c.tensor(0)->sizes(), out->sizes());
  } else {
    check_std_tensor(c.tensor(1));
    shape = kKind == 1 ? c.tensor(1)->sizes()
                       : broadcast_of(c.tensor(0)->sizes(), c.tensor(1)->sizes());
  }
  ops::resize_out(out, shape);
  fill_normal(out, c.arg(0), c.arg(1), c.arg(2), kKind);
  c.ret(out);
}

// bernoulli(Tensor self, *, Generator? generator=None): self holds the probabilities.
void bernoulli_self(Call& c) {
  const Tensor& self = c.tensor(0);
  Tensor t = call_tensor("aten::empty.memory_format",
                         {Value::of_ints(self->sizes()), Value::of_dtype(self->dtype()), none(),
                          Value::of_device(self->device()), none(), none()});
  c.ret(call_tensor("aten::bernoulli_.Tensor", {Value::of(t), c.arg(0), c.arg(1)}));
}
// bernoulli.p(Tensor self, float p, *, Generator? generator=None)
void bernoulli_p(Call& c) {
  const Tensor& self = c.tensor(0);
  Tensor t = call_tensor("aten::empty.memory_format",
                         {Value::of_ints(self->sizes()), Value::of_dtype(self->dtype()), none(),
                          Value::of_device(self->device()), none(), none()});
  c.ret(call_tensor("aten::bernoulli_.float", {Value::of(t), c.arg(1), c.arg(2)}));
}

// Upstream's precision check: a float dtype must represent every index exactly.
void check_randperm_precision(int64_t n, ScalarType t) {
  if (t == ScalarType::Half)
    TN_CHECK(n <= (int64_t{1} << 11) + 1, "n cannot be greater than 2049 for Half type.");
  if (t == ScalarType::Float)
    TN_CHECK(n <= (int64_t{1} << 24) + 1, "n cannot be greater than 2^24+1 for Float type.");
  if (t == ScalarType::Double)
    TN_CHECK(n <= (int64_t{1} << 53) + 1, "n cannot be greater than 2^53+1 for Double type.");
}

// Upstream's two shuffles: below 2^32/20 a swap pass with one 32-bit word per step (the old
// behaviour it keeps), above it an inside-out Fisher-Yates with 64-bit words (less modulo skew).
template <typename T> T index_as(int64_t i) {
  if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
    return T(static_cast<float>(i));
  } else {
    return static_cast<T>(i);
  }
}

template <typename T>
void randperm_fill(T* r, int64_t n, Generator& g) {
  if (n < static_cast<int64_t>(std::numeric_limits<uint32_t>::max() / 20)) {
    for (int64_t i = 0; i < n; ++i) r[i] = index_as<T>(i);
    for (int64_t i = 0; i + 1 < n; ++i) {
      int64_t z = static_cast<int64_t>(g.random()) % (n - i);
      std::swap(r[i], r[z + i]);
    }
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    int64_t z = static_cast<int64_t>(g.random64() % static_cast<uint64_t>(i + 1));
    r[i] = r[z];
    r[z] = index_as<T>(i);
  }
}

// randperm(SymInt n, *, ScalarType? dtype=long, ...) and randperm.generator(n, *, generator,
// dtype=long, ...): the checks and the allocation, then on the CPU (Fill) the permutation;
// Meta's kernel is the first part.
template <int kGen, bool Fill>
void randperm_impl(Call& c) {
  const int64_t n = c.to_int(0);
  TN_CHECK(n >= 0, "Trying to create tensor with negative dimension ", n, ": [", n, "]");
  Tensor t = empty_from_options(c, {n}, kGen >= 0 ? 2 : 1, ScalarType::Long);
  check_randperm_precision(n, t->dtype());
  // The largest value, n - 1, must fit the dtype (uint8 holds a permutation of 256, not 257).
  if (n > 0 && t->dtype() != ScalarType::Bool)
    check_scalar_fits(Scalar::from_int(n - 1), t->dtype());
  if constexpr (!Fill) return c.ret(t);
  Generator& g = kGen >= 0 ? generator_arg(c, kGen) : default_generator();
  const std::string& key = c.key();
  std::lock_guard<std::mutex> lock(g.mutex);
  dispatch_dtype(t->dtype(), key, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_same_v<T, bool>) {
      TN_FAIL(NotImplemented, "\"randperm\" not implemented for 'Bool'");
    } else {
      randperm_fill(static_cast<T*>(t->dense_cpu_data(key.c_str())), n, g);
    }
  });
  c.ret(t);
}

}  // namespace

TN_REGISTER_COMPOSITE("aten::rand", (rand_impl<-1, 1>));
TN_REGISTER_COMPOSITE("aten::rand.generator", (rand_impl<1, 2>));
TN_REGISTER_COMPOSITE("aten::randn", (randn_impl<-1, 1>));
TN_REGISTER_COMPOSITE("aten::randn.generator", (randn_impl<1, 2>));
TN_REGISTER_COMPOSITE("aten::randint", (randint_impl<false, -1>));
TN_REGISTER_COMPOSITE("aten::randint.generator", (randint_impl<false, 2>));
TN_REGISTER_COMPOSITE("aten::randint.low", (randint_impl<true, -1>));
TN_REGISTER_COMPOSITE("aten::randint.low_generator", (randint_impl<true, 3>));
TN_REGISTER_COMPOSITE("aten::rand_like", rand_like_impl<-1>);
TN_REGISTER_COMPOSITE("aten::rand_like.generator", rand_like_impl<1>);
TN_REGISTER_COMPOSITE("aten::randn_like", randn_like_impl<-1>);
TN_REGISTER_COMPOSITE("aten::randn_like.generator", randn_like_impl<1>);
TN_REGISTER_COMPOSITE("aten::randint_like", (randint_like_impl<false, -1>));
TN_REGISTER_COMPOSITE("aten::randint_like.generator", (randint_like_impl<false, 2>));
TN_REGISTER_COMPOSITE("aten::randint_like.low_dtype", (randint_like_impl<true, -1>));
TN_REGISTER_COMPOSITE("aten::randint_like.low_generator_dtype", (randint_like_impl<true, 3>));
TN_REGISTER_COMPOSITE("aten::normal.float_float", normal_float_float);
TN_REGISTER_COMPOSITE("aten::normal.Tensor_float", normal_tensor<0>);
TN_REGISTER_COMPOSITE("aten::normal.float_Tensor", normal_tensor<1>);
TN_REGISTER_COMPOSITE("aten::normal.Tensor_Tensor", normal_tensor<2>);
TN_REGISTER_COMPOSITE("aten::normal.Tensor_float_out", normal_tensor_out<0>);
TN_REGISTER_COMPOSITE("aten::normal.float_Tensor_out", normal_tensor_out<1>);
TN_REGISTER_COMPOSITE("aten::normal.Tensor_Tensor_out", normal_tensor_out<2>);
TN_REGISTER_COMPOSITE("aten::bernoulli", bernoulli_self);
TN_REGISTER_COMPOSITE("aten::bernoulli.p", bernoulli_p);
TN_REGISTER_KERNEL("aten::randperm", DenseCPU, (randperm_impl<-1, true>));
TN_REGISTER_KERNEL("aten::randperm", Meta, (randperm_impl<-1, false>));
TN_REGISTER_KERNEL("aten::randperm.generator", DenseCPU, (randperm_impl<1, true>));
TN_REGISTER_KERNEL("aten::randperm.generator", Meta, (randperm_impl<1, false>));

}  // namespace tn
