// isin: which elements appear among test elements, in the three spellings (tensor in tensor,
// tensor against one number, one number in a tensor) and their out= forms. Both sides are
// compared in their result type (upstream's result_type: a 0-dim side or a number only raises
// the category), as ==: NaN is in nothing, -0.0 and 0.0 are equal. Bool and complex inputs are
// refused, as upstream refuses them. The test elements are sorted once (NaN dropped) and each
// element found by binary search; upstream picks a loop or a sort by size, and the answer is
// the same booleans.
#include <algorithm>
#include <cmath>
#include <vector>

#include "core/promotion.h"
#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

void check_isin_dtype(ScalarType t) {
  TN_CHECK(t != ScalarType::Bool && !info(t).is_complex,
           "Unsupported input type encountered for isin(): ", enum_name(t));
}

ScalarType number_dtype(const Scalar& s) {
  return s.default_dtype();
}

// isin.Tensor_Tensor(Tensor elements, Tensor test_elements, *, bool assume_unique=False,
// bool invert=False)
void isin_rule(Call& c) {
  const Tensor& elements = c.tensor(0);
  const Tensor& test = c.tensor(1);
  check_isin_dtype(elements->dtype());
  check_isin_dtype(test->dtype());
  check_supported(elements, c.key());
  check_supported(test, c.key());
  // Upstream answers a CPU-and-meta pair with values read from nowhere; refused here.
  TN_CHECK(elements->device() == test->device(), "Expected all tensors to be on the same "
           "device, but found at least two devices, ", test->device().str(), " and ",
           elements->device().str(), "!");
  c.ret(new_on(elements, elements->sizes(), ScalarType::Bool));
}

void isin_cpu(Call& c) {
  const Tensor& elements = c.tensor(0);
  const Tensor& test = c.tensor(1);
  const bool invert = c.to_bool(3);
  const Tensor& out = c.results[0].tensor;
  const std::string& key = c.key();
  ResultType rt;
  rt.add_tensor(elements->dtype(), elements->dim() == 0);
  rt.add_tensor(test->dtype(), test->dim() == 0);
  const ScalarType common = rt.result();
  Tensor e = contiguous(cast_to(elements, common, key), key);
  Tensor s = contiguous(cast_to(test, common, key), key);
  bool* o = data_of<bool>(out, key);
  dispatch_dtype(common, key, [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    const T* sx = data_of<T>(s, key);
    std::vector<A> sorted;
    sorted.reserve(static_cast<size_t>(s->numel()));
    for (int64_t j = 0; j < s->numel(); ++j) {
      A v = A(sx[j]);
      if constexpr (std::is_floating_point_v<A>)
        if (std::isnan(v)) continue;
      sorted.push_back(v);
    }
    std::sort(sorted.begin(), sorted.end());
    const T* ex = data_of<T>(e, key);
    for (int64_t j = 0; j < e->numel(); ++j) {
      A v = A(ex[j]);
      bool found = false;
      if constexpr (std::is_floating_point_v<A>) found = !std::isnan(v) &&
          std::binary_search(sorted.begin(), sorted.end(), v);
      else found = std::binary_search(sorted.begin(), sorted.end(), v);
      o[j] = found != invert;
    }
  });
}
TN_REGISTER_STRUCTURED("aten::isin.Tensor_Tensor", isin_rule, isin_cpu);

// The out= forms: out must be bool (upstream's structured check), then the result copied in.
void write_bool_out(Call& c, const Tensor& r, size_t out_at) {
  const Tensor& out = c.tensor(out_at);
  TN_CHECK(out->dtype() == ScalarType::Bool, "Expected out tensor to have dtype bool, but got ",
           cpp_type_name(out->dtype()), " instead");
  ops::write_out(out, r, c.key());
  c.ret(out);
}

// isin.Tensor_Scalar(elements, Scalar test_element, *, assume_unique, invert): elements == the
// number (!= when inverted), the number a wrapped scalar as in eq.
Tensor isin_tensor_scalar(const Call& c) {
  check_isin_dtype(c.tensor(0)->dtype());
  check_isin_dtype(number_dtype(c.scalar(1)));
  return call_tensor(c.to_bool(3) ? "aten::ne.Scalar" : "aten::eq.Scalar", {c.arg(0), c.arg(1)});
}
void isin_ts(Call& c) { c.ret(isin_tensor_scalar(c)); }
void isin_ts_out(Call& c) { write_bool_out(c, isin_tensor_scalar(c), 4); }
TN_REGISTER_COMPOSITE("aten::isin.Tensor_Scalar", isin_ts);
TN_REGISTER_COMPOSITE("aten::isin.Tensor_Scalar_out", isin_ts_out);

// isin.Scalar_Tensor(Scalar element, test_elements, *, assume_unique, invert): the number as a
// 0-dim tensor of its own type on test_elements' device, then Tensor_Tensor.
Tensor isin_scalar_tensor(const Call& c) {
  const Tensor& test = c.tensor(1);
  const Scalar s = c.scalar(0);
  Value strided;
  strided.tag = Value::Tag::Layout;
  Tensor element = call_tensor("aten::scalar_tensor",
                               {Value::of_scalar(s), Value::of_dtype(number_dtype(s)), strided,
                                Value::of_device(test->device())});
  return call_tensor("aten::isin.Tensor_Tensor", {Value::of(element), c.arg(1), c.arg(2),
                                                  c.arg(3)});
}
void isin_st(Call& c) { c.ret(isin_scalar_tensor(c)); }
void isin_st_out(Call& c) { write_bool_out(c, isin_scalar_tensor(c), 4); }
TN_REGISTER_COMPOSITE("aten::isin.Scalar_Tensor", isin_st);
TN_REGISTER_COMPOSITE("aten::isin.Scalar_Tensor_out", isin_st_out);

void isin_tt_out(Call& c) {
  write_bool_out(c, call_tensor("aten::isin.Tensor_Tensor", {c.arg(0), c.arg(1), c.arg(2),
                                                             c.arg(3)}), 4);
}
TN_REGISTER_COMPOSITE("aten::isin.Tensor_Tensor_out", isin_tt_out);

}  // namespace
}  // namespace tn
