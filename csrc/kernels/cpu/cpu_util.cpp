// Dense-CPU helpers for the reduction, matmul and nn kernels (see cpu_util.h).
#include "kernels/cpu/cpu_util.h"

#include <unistd.h>

#include <atomic>

namespace tn {

namespace {
std::atomic<int> g_intra_op_threads{0};
}  // namespace

int intra_op_threads() {
  int n = g_intra_op_threads.load(std::memory_order_relaxed);
  if (n > 0) return n;
  long h = sysconf(_SC_NPROCESSORS_ONLN);
  return h > 0 ? static_cast<int>(h) : 1;
}
void set_intra_op_threads(int n) { g_intra_op_threads.store(n, std::memory_order_relaxed); }

// copy.h's strided copy (upstream's copy_ casting rules); declared here because copy.h and this
// file's header each define a `convert`.
void copy_dense_cpu(const Tensor& dst, const Tensor& src, const char* op_key);

void copy_cast(const Tensor& dst, const Tensor& src, const std::string& key) {
  TN_ASSERT(dst->sizes() == src->sizes());
  copy_dense_cpu(dst, src, key.c_str());
}

Tensor cast_to(const Tensor& t, ScalarType dt, const std::string& key) {
  if (t->dtype() == dt) return t;
  Tensor out = empty_tensor(t->sizes(), dt, t->device());
  copy_cast(out, t, key);
  return out;
}

Tensor contiguous(const Tensor& t, const std::string& key) {
  if (t->is_contiguous()) return t;
  Tensor out = empty_tensor(t->sizes(), t->dtype(), t->device());
  copy_cast(out, t, key);
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
