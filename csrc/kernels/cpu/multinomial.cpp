// multinomial(self, num_samples, replacement=False, *, generator=None) and its out= form, as
// upstream's CPU computes it, so a seeded draw gives upstream's indices:
// - without replacement, or one sample: q = Exp(1) draws laid out as self (exponential_), then
//   argmax(self / q) over the last dim (one sample) or topk(self / q, n) (upstream's
//   "gumbel-max" path);
// - with replacement: per distribution the running sum of its probabilities in the input
//   dtype (float for 16-bit floats), divided by the sum, the last entry set to 1; per sample one
//   double uniform and a binary search for the first entry not below it.
#include <cmath>
#include <mutex>
#include <vector>

#include "kernels/composite/ops.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/cpu/random.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

using ops::t;

// Upstream's argument checks and the result's shape: (n) for one distribution, (d, n) for d.
Dims checked_shape(const Tensor& self, int64_t n_sample, bool replacement) {
  TN_CHECK(self->dim() > 0 && self->dim() <= 2, "prob_dist must be 1 or 2 dim");
  TN_CHECK(is_floating(self->dtype()), "multinomial only supports floating-point dtypes for "
           "input, got: ", enum_name(self->dtype()));
  TN_CHECK(n_sample > 0, "cannot sample n_sample <= 0 samples");
  const int64_t n_categories = self->size(self->dim() - 1);
  TN_CHECK(replacement || n_sample <= n_categories,
           "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
  TN_CHECK(n_categories <= (int64_t{1} << 24), "number of categories cannot exceed 2^24");
  if (self->dim() == 1) return {n_sample};
  return {self->size(0), n_sample};
}

// Every entry finite and >= 0, and no distribution all zeros (upstream's checks before the
// exponential draws, read here without a round trip through tensors).
void check_distributions(const Tensor& self, const std::string& key) {
  Tensor x = contiguous(self, key);
  const int64_t cols = x->size(x->dim() - 1), rows = x->numel() / (cols ? cols : 1);
  dispatch_dtype(x->dtype(), key, [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    if constexpr (std::is_floating_point_v<A>) {
      const T* p = data_of<T>(x, key);
      bool valid = true, some_row_zero = false;
      for (int64_t r = 0; r < rows; ++r) {
        bool all_zero = true;
        for (int64_t j = 0; j < cols; ++j) {
          A v = A(p[r * cols + j]);
          if (!(v >= 0) || std::isinf(v)) valid = false;
          if (v != 0) all_zero = false;
        }
        some_row_zero = some_row_zero || all_zero;
      }
      TN_CHECK(valid, "probability tensor contains either `inf`, `nan` or element < 0");
      TN_CHECK(!some_row_zero, "invalid multinomial distribution (sum of probabilities <= 0)");
    }
  });
}

// The with-replacement sampler, writing int64 indices into out (contiguous, shape checked).
void sample_with_replacement(const Tensor& self, int64_t n_sample, Generator& g,
                             const Tensor& out, const std::string& key) {
  const int64_t n_categories = self->size(self->dim() - 1);
  const int64_t n_dist = self->dim() > 1 ? self->size(0) : 1;
  const int64_t s0 = self->dim() > 1 ? self->stride(0) : 0, s1 = self->stride(self->dim() - 1);
  int64_t* res = data_of<int64_t>(out, key);
  std::lock_guard<std::mutex> lock(g.mutex);
  dispatch_dtype(self->dtype(), key, [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;  // the running sum's type: float for the 16-bit floats
    if constexpr (std::is_floating_point_v<A>) {
      const T* p = data_of<T>(self, key);
      std::vector<A> cum(static_cast<size_t>(n_categories));
      for (int64_t i = 0; i < n_dist; ++i) {
        A sum = 0;
        for (int64_t j = 0; j < n_categories; ++j) {
          A v = A(p[i * s0 + j * s1]);
          TN_CHECK(v >= 0, "invalid multinomial distribution (encountering probability entry "
                   "< 0)");
          TN_CHECK(std::isfinite(v), "invalid multinomial distribution (encountering "
                   "probability entry = infinity or NaN)");
          sum += v;
          cum[j] = sum;
        }
        TN_CHECK(sum > 0, "invalid multinomial distribution (sum of probabilities <= 0)");
        for (int64_t j = 0; j < n_categories; ++j) cum[j] /= sum;
        cum[n_categories - 1] = 1;
        for (int64_t k = 0; k < n_sample; ++k) {
          const double u = uniform53(g);
          int64_t lo = 0, hi = n_categories;
          while (hi > lo) {
            int64_t mid = lo + (hi - lo) / 2;
            if (cum[mid] < u) lo = mid + 1;
            else hi = mid;
          }
          res[i * n_sample + k] = lo;
        }
      }
    }
  });
}

// Fill: the CPU kernel draws; Meta's checks and shapes only.
template <bool Fill>
Tensor multinomial_into(const Call& c, const Tensor* out) {
  const Tensor& self = c.tensor(0);
  const int64_t n_sample = c.to_int(1);
  const bool replacement = c.to_bool(2);
  const std::string& key = c.key();
  check_supported(self, key);
  if (out) {
    TN_CHECK((*out)->device() == self->device(), "multinomial arguments must have the same device");
    TN_CHECK((*out)->dtype() == ScalarType::Long, "multinomial expects Long tensor out, got: ",
             enum_name((*out)->dtype()));
  }
  Dims shape = checked_shape(self, n_sample, replacement);
  Tensor result = out ? *out : new_on(self, shape, ScalarType::Long);
  if (out) ops::resize_out(*out, shape);  // resize_, as upstream: no warning
  if (!Fill || numel_of(shape) == 0) return result;
  if (!replacement || n_sample == 1) {
    check_distributions(self, key);
    Tensor q = call_tensor("aten::empty_like", {t(self)});
    call("aten::exponential_", {t(q), Value::of_double(1.0), c.arg(3)});
    call("aten::div.out", {t(self), t(q), t(q)});
    Tensor picked = n_sample == 1
        ? call_tensor("aten::argmax", {t(q), Value::of_int(-1), Value::of_bool(true)})
        : call("aten::topk", {t(q), Value::of_int(n_sample)})[1].tensor;
    ops::copy_(result, picked);
    return result;
  }
  Tensor dense = result->is_contiguous() ? result : new_on(self, shape, ScalarType::Long);
  sample_with_replacement(self, n_sample, generator_arg(c, 3), dense, key);
  if (!(dense == result)) ops::copy_(result, dense);
  return result;
}

// multinomial(Tensor self, SymInt num_samples, bool replacement=False, *, Generator? generator)
template <bool Fill>
void multinomial(Call& c) { c.ret(multinomial_into<Fill>(c, nullptr)); }
// multinomial.out(..., Tensor(a!) out)
template <bool Fill>
void multinomial_out(Call& c) { c.ret(multinomial_into<Fill>(c, &c.tensor(4))); }

}  // namespace

TN_REGISTER_KERNEL("aten::multinomial", DenseCPU, multinomial<true>);
TN_REGISTER_KERNEL("aten::multinomial", Meta, multinomial<false>);
TN_REGISTER_KERNEL("aten::multinomial.out", DenseCPU, multinomial_out<true>);
TN_REGISTER_KERNEL("aten::multinomial.out", Meta, multinomial_out<false>);

}  // namespace tn
