// Building the CPU iteration of elementwise ops (see elementwise_loop.h).
#include "kernels/cpu/elementwise_loop.h"

#include <algorithm>
#include <numeric>

namespace tn {

void ew_iter_init(EwIter& it, const EwSpec& s, const Tensor& out, const char* op_key) {
  it.common = s.common;
  it.ntensors = 1 + s.n;
  it.numel = out->numel();
  const Dims& shape = out->sizes();
  size_t nd = shape.size();
  it.data[0] = static_cast<char*>(out->dense_cpu_data(op_key));
  it.dtype[0] = out->dtype();
  it.strides[0].resize(nd);
  for (size_t d = 0; d < nd; ++d) it.strides[0][d] = out->stride(d) * out->itemsize();
  for (int k = 0; k < s.n; ++k) {
    const EwOperand& op = s.ops[k];
    it.ops[k] = op;
    std::vector<int64_t>& st = it.strides[k + 1];
    st.assign(nd, 0);
    if (op.is_number()) {
      const Scalar& v = op.number;
      char* slot = reinterpret_cast<char*>(&it.numbers[k]);
      if (v.is_floating()) std::memcpy(slot, &v.d, sizeof(double));
      else if (v.is_bool()) std::memcpy(slot, &v.b, sizeof(bool));
      else std::memcpy(slot, &v.i, sizeof(int64_t));
      it.data[k + 1] = slot;
      it.dtype[k + 1] = v.default_dtype();
      continue;
    }
    const TensorImpl& t = *op.tensor;
    it.data[k + 1] = static_cast<char*>(t.dense_cpu_data(op_key));
    it.dtype[k + 1] = t.dtype();
    size_t off = nd - t.dim();
    for (int64_t i = 0; i < t.dim(); ++i)
      if (t.size(i) != 1) st[off + i] = t.stride(i) * t.itemsize();
  }
  // Dims of size 1 go; the rest are ordered by the output's strides, fastest first, then
  // neighbours that every tensor walks as one are merged.
  std::vector<size_t> dims;
  for (size_t d = 0; d < nd; ++d)
    if (shape[d] != 1) dims.push_back(d);
  std::stable_sort(dims.begin(), dims.end(), [&](size_t a, size_t b) {
    return it.strides[0][a] < it.strides[0][b];
  });
  Dims sizes;
  std::vector<int64_t> strides[kEwMaxTensors];
  for (size_t d : dims) {
    bool merge = !sizes.empty();
    for (int k = 0; k < it.ntensors && merge; ++k)
      merge = it.strides[k][d] == strides[k].back() * sizes.back();
    if (merge) {
      sizes.back() *= shape[d];
      continue;
    }
    sizes.push_back(shape[d]);
    for (int k = 0; k < it.ntensors; ++k) strides[k].push_back(it.strides[k][d]);
  }
  if (sizes.empty()) {  // one element (or a 0-dim tensor)
    sizes.push_back(1);
    for (int k = 0; k < it.ntensors; ++k) strides[k].push_back(0);
  }
  it.sizes = std::move(sizes);
  for (int k = 0; k < it.ntensors; ++k) it.strides[k] = std::move(strides[k]);
}

void EwIter::remove_operand(int k) {
  TN_ASSERT(k >= 1 && k < ntensors);
  for (int j = k; j + 1 < ntensors; ++j) {
    data[j] = data[j + 1];
    dtype[j] = dtype[j + 1];
    strides[j] = std::move(strides[j + 1]);
    ops[j - 1] = ops[j];
    numbers[j - 1] = numbers[j];
    if (ops[j - 1].is_number()) data[j] = reinterpret_cast<char*>(&numbers[j - 1]);
  }
  --ntensors;
}

bool EwIter::is_scalar(int k) const {
  for (int64_t s : strides[k])
    if (s != 0) return false;
  return true;
}

// Note [Vector and scalar paths]: upstream's CPU kernels have a scalar functor and a SIMD one,
// and where the two round differently (float16/bfloat16 add with alpha: the SIMD path fuses
// alpha * other + self in float, the scalar path rounds alpha * other first; maximum of -0.0 and
// 0.0) the result depends on which one an element took. cpu_kernel_vec takes the SIMD path on
// rows where every operand is contiguous (or one input is a broadcast scalar), in blocks from the
// row's start; the remaining elements and all other rows take the scalar path. Measured on
// upstream's wheel (maximum of -0.0 and 0.0, bfloat16 add with alpha, rows of 100 to 1,000
// elements): a block is 64 bytes of the computed dtype (16 float32, 8 float64, 32 bfloat16), on
// this AVX-512 machine as on AVX2 ones (two 32-byte vectors). ew_run_split reproduces that for
// rows of up to 32,768 elements; upstream splits longer runs between threads, moving the tails.

void ew_cpu_run(Call& c, const EwRule& r, void (*compute)(EwIter&, const Call&)) {
  EwSpec s = ew_dtypes(c, r);
  const Tensor& out = c.results.at(0).tensor;
  std::string key = c.key();
  EwIter it;
  ew_iter_init(it, s, out, key.c_str());
  compute(it, c);
  if (r.variant != EwVariant::Functional) out->bump_version();
}

}  // namespace tn
