// Building the CPU iteration of elementwise ops (see elementwise_loop.h).
#include "kernels/cpu/elementwise_loop.h"

#include "kernels/cpu/cpu_isa.h"

#include <algorithm>
#include <memory>
#include <numeric>

namespace tn {

namespace {

// Number operand k (0-based) of the iteration: its value in the iteration's own slot.
void put_number(EwIter& it, int k, const Scalar& v) {
  char* slot = reinterpret_cast<char*>(&it.numbers[2 * k]);
  if (it.common == ScalarType::ComplexHalf) {
    // Upstream casts a number to the loop's complex32 before computing (each part rounded
    // through float to float16), so the loop reads it back rounded.
    double im = v.is_complex() ? v.im : 0.0;
    double re = v.is_floating() || v.is_complex() ? v.d : v.is_bool() ? v.b : double(v.i);
    chalf z(Half(static_cast<float>(re)), Half(static_cast<float>(im)));
    std::memcpy(slot, &z, sizeof(z));
    it.data[k + 1] = slot;
    it.dtype[k + 1] = ScalarType::ComplexHalf;
    return;
  }
  if (v.is_complex()) {
    std::memcpy(slot, &v.d, sizeof(double));
    std::memcpy(slot + sizeof(double), &v.im, sizeof(double));
  } else if (v.is_floating()) std::memcpy(slot, &v.d, sizeof(double));
  else if (v.is_bool()) std::memcpy(slot, &v.b, sizeof(bool));
  else std::memcpy(slot, &v.i, sizeof(int64_t));
  it.data[k + 1] = slot;
  it.dtype[k + 1] = v.default_dtype();
}

// The common case of ew_iter_init, without its bookkeeping: more than one element, the output
// contiguous and every tensor operand contiguous with the output's shape. What the general
// path would build is then one dim of numel elements, each tensor stepping by its itemsize and
// each number by 0; that is laid out here directly. False (nothing written but the operands'
// data) when the case does not apply.
bool lay_out_flat(EwIter& it, const EwSpec& s, const TensorImpl& out, const char* op_key) {
  if (it.numel < 2 || !out.is_contiguous()) return false;
  for (int k = 0; k < s.n; ++k) {
    const TensorImpl* t = s.ops[k].tensor;
    if (t && (!t->is_contiguous() || t->sizes() != out.sizes())) return false;
  }
  it.sizes.assign(1, it.numel);
  it.strides[0].assign(1, out.itemsize());
  for (int k = 0; k < s.n; ++k) {
    const EwOperand& op = s.ops[k];
    it.ops[k] = op;
    if (op.is_number()) {
      put_number(it, k, op.number);
      it.strides[k + 1].assign(1, 0);
      continue;
    }
    it.data[k + 1] = static_cast<char*>(op.tensor->dense_cpu_data(op_key));
    it.dtype[k + 1] = op.tensor->dtype();
    it.strides[k + 1].assign(1, op.tensor->itemsize());
  }
  return true;
}

}  // namespace

namespace ew_detail {
int64_t avx512_kernel_block_bytes() {
  static const int64_t bytes = cpu::isa() == cpu::Isa::Avx512 ? 128 : kUpstreamBlockBytes;
  return bytes;
}
}  // namespace ew_detail

bool ew_cpu_has_avx2_fma() {
  static const bool has = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  }();
  return has;
}

// The per-call path allocates nothing once warm: the iteration is a pooled EwIter whose vectors
// keep their capacity (ew_cpu_run), and the dim sort works in place on a thread-local scratch.
void ew_iter_init(EwIter& it, const EwSpec& s, const Tensor& out, const char* op_key) {
  it.common = s.common;
  it.ntensors = 1 + s.n;
  it.numel = out->numel();
  const Dims& shape = out->sizes();
  size_t nd = shape.size();
  it.data[0] = static_cast<char*>(out->dense_cpu_data(op_key));
  it.dtype[0] = out->dtype();
  if (lay_out_flat(it, s, *out, op_key)) return;
  // Full strides in bytes, one row per tensor, in a thread-local scratch (ew_iter_init calls
  // nothing that could re-enter it).
  static thread_local std::vector<int64_t> full_scratch;
  std::vector<int64_t>& full = full_scratch;  // one thread-local lookup, not one per use
  full.assign(static_cast<size_t>(it.ntensors) * nd, 0);
  auto fs = [&](int k) { return full.data() + static_cast<size_t>(k) * nd; };
  for (size_t d = 0; d < nd; ++d) fs(0)[d] = out->stride(d) * out->itemsize();
  for (int k = 0; k < s.n; ++k) {
    const EwOperand& op = s.ops[k];
    it.ops[k] = op;
    if (op.is_number()) {
      put_number(it, k, op.number);
      continue;
    }
    const TensorImpl& t = *op.tensor;
    it.data[k + 1] = static_cast<char*>(t.dense_cpu_data(op_key));
    it.dtype[k + 1] = t.dtype();
    if (it.common == ScalarType::ComplexHalf && t.numel() == 1 &&
        t.dtype() != ScalarType::ComplexHalf && t.dtype() != ScalarType::Bool) {
      // A one-element operand of a wider dtype (a wrapped Python number) is cast to the
      // loop's complex32 first, as upstream's TensorIterator casts it: rounded once more.
      cfloat v;
      ew_load<cfloat>(t.dtype(), it.data[k + 1], 0, &v, 1);
      chalf z(v);
      char* slot = reinterpret_cast<char*>(&it.numbers[2 * k]);
      std::memcpy(slot, &z, sizeof(z));
      it.data[k + 1] = slot;
      it.dtype[k + 1] = ScalarType::ComplexHalf;
    }
    size_t off = nd - t.dim();
    int64_t* st = fs(k + 1);
    for (int64_t i = 0; i < t.dim(); ++i)
      if (t.size(i) != 1) st[off + i] = t.stride(i) * t.itemsize();
  }
  // Dims of size 1 go; the rest are ordered by the output's strides, fastest first (a stable
  // insertion sort: few dims), then neighbours that every tensor walks as one are merged.
  static thread_local std::vector<size_t> dims_scratch;
  std::vector<size_t>& dims = dims_scratch;
  dims.clear();
  for (size_t d = 0; d < nd; ++d)
    if (shape[d] != 1) dims.push_back(d);
  const int64_t* out_strides = fs(0);
  for (size_t a = 1; a < dims.size(); ++a) {
    size_t d = dims[a], b = a;
    for (; b > 0 && out_strides[d] < out_strides[dims[b - 1]]; --b) dims[b] = dims[b - 1];
    dims[b] = d;
  }
  it.sizes.clear();
  for (int k = 0; k < it.ntensors; ++k) it.strides[k].clear();
  for (size_t d : dims) {
    bool merge = !it.sizes.empty();
    for (int k = 0; k < it.ntensors && merge; ++k)
      merge = fs(k)[d] == it.strides[k].back() * it.sizes.back();
    if (merge) {
      it.sizes.back() *= shape[d];
      continue;
    }
    it.sizes.push_back(shape[d]);
    for (int k = 0; k < it.ntensors; ++k) it.strides[k].push_back(fs(k)[d]);
  }
  if (it.sizes.empty()) {  // one element (or a 0-dim tensor)
    it.sizes.push_back(1);
    for (int k = 0; k < it.ntensors; ++k) it.strides[k].push_back(0);
  }
}

void EwIter::remove_operand(int k) {
  TN_ASSERT(k >= 1 && k < ntensors);
  for (int j = k; j + 1 < ntensors; ++j) {
    data[j] = data[j + 1];
    dtype[j] = dtype[j + 1];
    strides[j] = std::move(strides[j + 1]);
    ops[j - 1] = ops[j];
    numbers[2 * (j - 1)] = numbers[2 * j];
    numbers[2 * (j - 1) + 1] = numbers[2 * j + 1];
    if (ops[j - 1].is_number()) data[j] = reinterpret_cast<char*>(&numbers[2 * (j - 1)]);
  }
  --ntensors;
}

bool EwIter::is_scalar(int k) const {
  if (numel == 0) return false;  // no value to read (an empty operand may have no storage)
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
// this AVX-512 machine as on AVX2 ones (two 32-byte vectors). ew_run_split reproduces that, and
// above 32,768 elements at several threads each thread's part of a row is a row of its own, as
// upstream's split between threads makes it (run_rows): the tails move where upstream's move.

void ew_cpu_run(Call& c, const EwRule& r, void (*compute)(EwIter&, const Call&)) {
  // The rule's result (ew_meta_run keeps it in the call); a compute run without the rule (a
  // caller of ew_cpu_run's own) derives the dtypes itself.
  const EwSpec* kept = c.rule_state<EwSpec>();
  EwSpec derived;
  if (!kept) derived = ew_dtypes(c, r);
  const EwSpec& s = kept ? *kept : derived;
  const Tensor& out = c.results.at(0).tensor;
  // A pool of iterations, one per nesting depth (a compute step may call another op), reused
  // across calls so that their vectors keep their capacity.
  struct Pool {
    std::vector<std::unique_ptr<EwIter>> iters;
    size_t depth = 0;
  };
  static thread_local Pool pool_tls;
  Pool& pool = pool_tls;
  if (pool.iters.size() <= pool.depth) pool.iters.push_back(std::make_unique<EwIter>());
  EwIter& it = *pool.iters[pool.depth];
  struct Depth {
    Pool& p;
    explicit Depth(Pool& p) : p(p) { ++p.depth; }
    ~Depth() { --p.depth; }
  } in_use{pool};
  ew_iter_init(it, s, out, c.key().c_str());
  compute(it, c);
}

}  // namespace tn
