// Dense-CPU helpers for the reduction, matmul and nn kernels (see cpu_util.h).
#include "kernels/cpu/cpu_util.h"

namespace tn {

void copy_cast(const Tensor& dst, const Tensor& src, const std::string& key) {
  TN_ASSERT(dst->sizes() == src->sizes());
  dispatch_dtype(dst->dtype(), key, [&](auto dz) {
    using D = decltype(dz);
    dispatch_dtype(src->dtype(), key, [&](auto sz) {
      using S = decltype(sz);
      D* d = data_of<D>(dst, key);
      const S* s = data_of<S>(src, key);
      std::vector<int64_t> doff;
      doff.reserve(dst->numel());
      for_each_offset(dst->sizes(), dst->strides(), 0, [&](int64_t o) { doff.push_back(o); });
      size_t k = 0;
      for_each_offset(src->sizes(), src->strides(), 0,
                      [&](int64_t o) { d[doff[k++]] = convert<D>(s[o]); });
    });
  });
}

Tensor cast_to(const Tensor& t, ScalarType dt, const std::string& key) {
  if (t->dtype() == dt) return t;
  Tensor out = empty_tensor(t->sizes(), dt, t->device());
  if (t->representation() == Representation::DenseCPU) copy_cast(out, t, key);
  return out;
}

Tensor contiguous(const Tensor& t, const std::string& key) {
  if (t->is_contiguous()) return t;
  Tensor out = empty_tensor(t->sizes(), t->dtype(), t->device());
  if (t->representation() == Representation::DenseCPU) copy_cast(out, t, key);
  return out;
}

ReduceGeom reduce_geom(const Tensor& t, const std::vector<bool>& mask) {
  Dims ks, kst, rs, rst;
  for (int64_t d = 0; d < t->dim(); ++d) {
    (mask[d] ? rs : ks).push_back(t->size(d));
    (mask[d] ? rst : kst).push_back(t->stride(d));
  }
  ReduceGeom g;
  g.outer.reserve(numel_of(ks));
  g.inner.reserve(numel_of(rs));
  for_each_offset(ks, kst, 0, [&](int64_t o) { g.outer.push_back(o); });
  for_each_offset(rs, rst, 0, [&](int64_t o) { g.inner.push_back(o); });
  return g;
}

}  // namespace tn

#include "core/promotion.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {

Tensor write_out(const Tensor& out, const Tensor& result, const std::string& key) {
  TN_CHECK(can_cast(result->dtype(), out->dtype()), key, ": result type ",
           enum_name(result->dtype()), " can't be cast to the desired output type ",
           enum_name(out->dtype()));
  resize_out(out, result->sizes());
  if (out->representation() == Representation::DenseCPU) copy_cast(out, result, key);
  out->bump_version();
  return out;
}

}  // namespace tn
