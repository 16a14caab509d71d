// embedding (a row gather with upstream's range check), dropout (sampled with bernoulli_ as
// upstream's CPU path does), native_dropout (its deterministic cases; upstream uses it on
// accelerators only, sampling refuses by name) and
// scaled_dot_product_attention (upstream's math path: q*sqrt(s) @ (k*sqrt(s))^T, mask,
// safe softmax, @ v; the intermediates are rounded to the input dtype as upstream's tensors are).
#include <cmath>
#include <cstring>

#include "dispatch/kernel.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

// embedding(Tensor weight, Tensor indices, SymInt padding_idx=-1, bool scale_grad_by_freq=False,
//           bool sparse=False)
void embedding_rule(Call& c) {
  const Tensor &w = c.tensor(0), &idx = c.tensor(1);
  TN_CHECK(w->dim() == 2, "'weight' must be 2-D");
  TN_CHECK(idx->dtype() == ScalarType::Long || idx->dtype() == ScalarType::Int,
           "Expected tensor for argument #1 'indices' to have one of the following scalar types: "
           "Long, Int; but got torch.", info(idx->dtype()).legacy_name,
           " instead (while checking arguments for embedding)");
  Dims sizes = idx->sizes();
  sizes.push_back(w->size(1));
  c.ret(new_on(w, sizes, w->dtype()));
}
void embedding_cpu(Call& c) {
  const std::string& key = c.key();
  const Tensor &w = c.tensor(0), &out = c.results[0].tensor;
  Tensor idx = contiguous(cast_to(c.tensor(1), ScalarType::Long, key), key);
  const int64_t* pi = data_of<int64_t>(idx, key);
  int64_t rows = w->size(0), d = w->size(1);
  for (int64_t i = 0; i < idx->numel(); ++i)
    TN_CHECK_KIND(pi[i] >= 0 && pi[i] < rows, Index, "index out of range in self");
  dispatch_dtype(w->dtype(), key, [&](auto zero) {
    using T = decltype(zero);
    const T* pw = data_of<T>(w, key);
    T* o = data_of<T>(out, key);
    for (int64_t i = 0; i < idx->numel(); ++i)
      for (int64_t j = 0; j < d; ++j) o[i * d + j] = pw[pi[i] * w->stride(0) + j * w->stride(1)];
  });
}
TN_REGISTER_STRUCTURED("aten::embedding", embedding_rule, embedding_cpu);

void check_p(double p) {
  TN_CHECK(p >= 0 && p <= 1, "dropout probability has to be between 0 and 1, but got ", p);
}

// dropout(Tensor input, float p, bool train), as upstream's CPU path (its fused kernel is for
// accelerators): the input itself when nothing is dropped; with p == 1, input * 0 (so NaN
// stays NaN); otherwise noise = empty_like(input).bernoulli_(1 - p) / (1 - p) and
// input * noise, the noise drawn from the default generator in upstream's order (bernoulli_
// is bit-exact, tests/ops/test_rng.py), so a seeded dropout gives upstream's bits.
// dropout_(input, p, train): the same, input multiplied in place (mul_).
template <bool InPlace>
void dropout(Call& c) {
  double p = c.to_double(1);
  check_p(p);
  const Tensor& x = c.tensor(0);
  const char* mul = InPlace ? "aten::mul_.Tensor" : "aten::mul.Tensor";
  if (!c.to_bool(2) || p == 0 || x->numel() == 0) return c.ret(x);
  if (p == 1) {
    Tensor zero = call_tensor("aten::zeros", {Value::of_ints({}), Value::of_dtype(x->dtype()),
                                              Value{}, Value::of_device(x->device())});
    return c.ret(call_tensor(mul, {Value::of(x), Value::of(zero)}));
  }
  Tensor noise = call_tensor("aten::empty_like", {Value::of(x)});
  call("aten::bernoulli_.float", {Value::of(noise), Value::of_double(1 - p)});
  call("aten::div_.Scalar", {Value::of(noise), Value::of_scalar(Scalar::from_double(1 - p))});
  c.ret(call_tensor(mul, {Value::of(x), Value::of(noise)}));
}
TN_REGISTER_COMPOSITE("aten::dropout", dropout<false>);
TN_REGISTER_COMPOSITE("aten::dropout_", dropout<true>);

// native_dropout(Tensor input, float p, bool? train) -> (output, mask): without sampling,
// (a copy, all-true mask); train (None counts as train, as upstream) with p == 1 drops
// everything (zeros, all-false mask).
bool dropout_train(const Call& c) { return c.arg(2).is_none() || c.to_bool(2); }
void native_dropout_rule(Call& c) {
  const Tensor& x = c.tensor(0);
  double p = c.to_double(1);
  bool train = dropout_train(c);
  TN_CHECK(!train || x->numel() == 0 || (0 <= 1 - p && 1 - p <= 1),
           "bernoulli_ expects p to be in [0, 1], but got p=", 1 - p);
  // Upstream scales the sampled output in place by a double (mul_), which integers refuse.
  TN_CHECK(!train || x->numel() == 0 || info(x->dtype()).is_floating,
           "result type Float can't be cast to the desired output type ", enum_name(x->dtype()));
  TN_CHECK_KIND(!train || p == 0 || p == 1 || x->numel() == 0, NotImplemented, c.key(),
                " with train=True and 0<p<1 needs random sampling, which torchnative does not "
                "implement yet");
  c.ret(new_on(x, x->sizes(), x->dtype()));
  c.ret(new_on(x, x->sizes(), ScalarType::Bool));
}
void native_dropout_cpu(Call& c) {
  bool drop_all = dropout_train(c) && c.to_double(1) == 1;
  const Tensor &out = c.results[0].tensor, &mask = c.results[1].tensor;
  if (drop_all) {
    std::memset(out->dense_cpu_data(c.key().c_str()), 0, out->numel() * out->itemsize());
  } else {
    copy_cast(out, c.tensor(0), c.key());
  }
  std::memset(mask->dense_cpu_data(c.key().c_str()), drop_all ? 0 : 1, mask->numel());
}
TN_REGISTER_STRUCTURED("aten::native_dropout", native_dropout_rule, native_dropout_cpu);

}  // namespace
}  // namespace tn
