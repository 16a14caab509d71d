// Extremum reductions: amax/amin, max/min (no dim: a 0-dim value; with dim: values and indices)
// and argmax/argmin. NaN propagates (the first NaN wins), and on ties the first index wins,
// as upstream's CPU kernels. Structured: the shape rule is shared with meta.
#include <cmath>

#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

// Empty-input rules: no dim given on an empty tensor, or an empty reduced dim, cannot reduce.
void check_nonempty(const Tensor& self, const Dims& dims, const char* name, bool all_is_index) {
  if (self->numel() != 0) return;
  if (dims.empty()) {
    if (all_is_index)
      TN_FAIL(Index, name, "(): Expected reduction dim to be specified for input.numel() == 0.");
    TN_FAIL(Runtime, name, "(): Expected reduction dim to be specified for input.numel() == 0. "
            "Specify the reduction dim with the 'dim' argument.");
  }
  for (int64_t d : dims) {
    int64_t w = wrap_dim(d, self->dim());
    TN_CHECK_KIND(self->dim() == 0 || self->size(w) != 0, Index, name,
                  "(): Expected reduction dim ", w, " to have non-zero size.");
  }
}

template <typename A>
bool is_nan(A v) {
  if constexpr (std::is_floating_point_v<A>) return std::isnan(v);
  else return false;
}

// Scans each reduced slice; writes the extreme value (vals, if given) and its first index in
// the slice's row-major order (idx, if given). vals has self's dtype, idx int64; contiguous.
template <bool IsMax>
void extreme(const Tensor& self, const Dims& dims, const Tensor* vals, const Tensor* idx,
             const std::string& key) {
  ReduceGeom g = reduce_geom(self, reduce_mask(self->dim(), dims));
  dispatch_dtype(self->dtype(), key, [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    const T* x = data_of<T>(self, key);
    T* vo = vals ? data_of<T>(*vals, key) : nullptr;
    int64_t* io = idx ? data_of<int64_t>(*idx, key) : nullptr;
    for (size_t i = 0; i < g.outer.size(); ++i) {
      const T* b = x + g.outer[i];
      A best = A(b[g.inner[0]]);
      int64_t at = 0;
      for (size_t k = 1; k < g.inner.size() && !is_nan(best); ++k) {
        A v = A(b[g.inner[k]]);
        if ((IsMax ? v > best : v < best) || is_nan(v)) {
          best = v;
          at = static_cast<int64_t>(k);
        }
      }
      if (vo) vo[i] = T(best);
      if (io) io[i] = at;
    }
  });
}

// amax/amin(Tensor self, int[1] dim=[], bool keepdim=False)
template <bool IsMax>
void amax_rule(Call& c) {
  const Tensor& self = c.tensor(0);
  check_supported(self, c.key());
  const Dims& dims = c.int_list(1);
  check_nonempty(self, dims, IsMax ? "amax" : "amin", false);
  auto mask = reduce_mask(self->dim(), dims);
  c.ret(new_on(self, reduced_sizes(self->sizes(), mask, c.to_bool(2)), self->dtype()));
}
template <bool IsMax>
void amax_cpu(Call& c) {
  extreme<IsMax>(c.tensor(0), c.int_list(1), &c.results[0].tensor, nullptr, c.key());
}
TN_REGISTER_STRUCTURED("aten::amax", amax_rule<true>, amax_cpu<true>);
TN_REGISTER_STRUCTURED("aten::amin", amax_rule<false>, amax_cpu<false>);

// amax.out/amin.out: out must have the input's dtype (upstream's meta checks it first).
template <bool IsMax>
void amax_out(Call& c) {
  const Tensor& self = c.tensor(0);
  const Tensor& out = c.tensor(3);
  TN_CHECK(self->dtype() == out->dtype(), "Expected the dtype for input and out to match, but "
           "got ", enum_name(self->dtype()), " for input's dtype and ", enum_name(out->dtype()),
           " for out's dtype.");
  Tensor r = call_tensor(IsMax ? "aten::amax" : "aten::amin", {c.arg(0), c.arg(1), c.arg(2)});
  c.ret(ops::write_out(out, r, c.key()));
}
TN_REGISTER_COMPOSITE("aten::amax.out", amax_out<true>);
TN_REGISTER_COMPOSITE("aten::amin.out", amax_out<false>);

// max/min(Tensor self) -> Tensor: the extreme over every element, as a 0-dim tensor.
template <bool IsMax>
void max_all_rule(Call& c) {
  const Tensor& self = c.tensor(0);
  check_supported(self, c.key());
  check_nonempty(self, {}, IsMax ? "max" : "min", false);
  c.ret(new_on(self, {}, self->dtype()));
}
template <bool IsMax>
void max_all_cpu(Call& c) {
  extreme<IsMax>(c.tensor(0), {}, &c.results[0].tensor, nullptr, c.key());
}
TN_REGISTER_STRUCTURED("aten::max", max_all_rule<true>, max_all_cpu<true>);
TN_REGISTER_STRUCTURED("aten::min", max_all_rule<false>, max_all_cpu<false>);

// max.dim/min.dim(Tensor self, int dim, bool keepdim=False) -> (values, indices)
template <bool IsMax>
void max_dim_rule(Call& c) {
  const Tensor& self = c.tensor(0);
  check_supported(self, c.key());
  Dims dims{c.to_int(1)};
  check_nonempty(self, dims, IsMax ? "max" : "min", false);
  Dims sizes = reduced_sizes(self->sizes(), reduce_mask(self->dim(), dims), c.to_bool(2));
  c.ret(new_on(self, sizes, self->dtype()));
  c.ret(new_on(self, sizes, ScalarType::Long));
}
template <bool IsMax>
void max_dim_cpu(Call& c) {
  extreme<IsMax>(c.tensor(0), {c.to_int(1)}, &c.results[0].tensor, &c.results[1].tensor,
                 c.key());
}
TN_REGISTER_STRUCTURED("aten::max.dim", max_dim_rule<true>, max_dim_cpu<true>);
TN_REGISTER_STRUCTURED("aten::min.dim", max_dim_rule<false>, max_dim_cpu<false>);

// argmax/argmin(Tensor self, int? dim=None, bool keepdim=False): without dim, the index into
// the flattened tensor; keepdim then keeps every dim as 1.
template <bool IsMax>
void argmax_rule(Call& c) {
  const Tensor& self = c.tensor(0);
  const char* name = IsMax ? "argmax" : "argmin";
  check_supported(self, c.key());
  TN_CHECK(self->dtype() != ScalarType::Bool, name, "(): does not support bool input");
  Dims dims = opt_dims(c, 1);
  check_nonempty(self, dims, name, true);
  Dims sizes = reduced_sizes(self->sizes(), reduce_mask(self->dim(), dims), c.to_bool(2));
  c.ret(new_on(self, sizes, ScalarType::Long));
}
template <bool IsMax>
void argmax_cpu(Call& c) {
  extreme<IsMax>(c.tensor(0), opt_dims(c, 1), nullptr, &c.results[0].tensor, c.key());
}
TN_REGISTER_STRUCTURED("aten::argmax", argmax_rule<true>, argmax_cpu<true>);
TN_REGISTER_STRUCTURED("aten::argmin", argmax_rule<false>, argmax_cpu<false>);

// argmax.out/argmin.out: upstream's structured out= takes int64 only (its resize_out check).
template <bool IsMax>
void argmax_out(Call& c) {
  Tensor r = call_tensor(IsMax ? "aten::argmax" : "aten::argmin", {c.arg(0), c.arg(1), c.arg(2)});
  const Tensor& out = c.tensor(3);
  TN_CHECK(out->dtype() == ScalarType::Long, "Expected out tensor to have dtype long int, "
           "but got ", cpp_type_name(out->dtype()), " instead");
  c.ret(ops::write_out(out, r, c.key()));
}
TN_REGISTER_COMPOSITE("aten::argmax.out", argmax_out<true>);
TN_REGISTER_COMPOSITE("aten::argmin.out", argmax_out<false>);

}  // namespace
}  // namespace tn
