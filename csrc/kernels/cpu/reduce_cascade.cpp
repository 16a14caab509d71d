// Upstream's cascade sum for float32 and float64 (reduce_cascade.h). Each function below is
// named after the step of upstream's SumKernel it reproduces; "lanes" stand for its vector
// registers (L lanes add lane by lane, exactly as L scalar sums would).
#include "kernels/cpu/reduce_cascade.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "kernels/cpu/cpu_isa.h"
#include "kernels/cpu/parallel.h"


namespace tn {
namespace {

// Reads L consecutive elements at p.
template <typename T, int L>
struct Lanes {
  T v[L];
  static Lanes load(const char* p) {
    Lanes r;
    std::memcpy(r.v, p, sizeof(r.v));
    return r;
  }
  void add(const Lanes& o) {
    for (int l = 0; l < L; ++l) v[l] += o.v[l];
  }
};

constexpr int kLevels = 4;

// multi_row_sum<float, 8, 4> below in AVX2 registers, the same adds in the same order (a lane
// of a vector add is the scalar add, so the bits are the generic loop's): every float sum over
// a contiguous row, and over contiguous columns (a bias gradient), goes through it.
__attribute__((target("avx2"))) void multi_row_sum_f8x4(const char* in, int64_t step,
                                                        int64_t col, int64_t size, float* out) {
  const int64_t power = std::max<int64_t>(4, ceil_log2(size) / kLevels);
  const int64_t level_step = int64_t(1) << power;
  const int64_t mask = level_step - 1;
  __m256 acc[kLevels][4];
  for (auto& level : acc)
    for (auto& a : level) a = _mm256_setzero_ps();
#define TN_AT(i, k) _mm256_loadu_ps(reinterpret_cast<const float*>(in + (i) * step + (k) * col))
  int64_t i = 0;
  while (i + level_step <= size) {
    __m256 a0 = acc[0][0], a1 = acc[0][1], a2 = acc[0][2], a3 = acc[0][3];
    for (int64_t j = 0; j < level_step; ++j, ++i) {
      a0 = _mm256_add_ps(a0, TN_AT(i, 0));
      a1 = _mm256_add_ps(a1, TN_AT(i, 1));
      a2 = _mm256_add_ps(a2, TN_AT(i, 2));
      a3 = _mm256_add_ps(a3, TN_AT(i, 3));
    }
    acc[0][0] = a0, acc[0][1] = a1, acc[0][2] = a2, acc[0][3] = a3;
    for (int j = 1; j < kLevels; ++j) {
      for (int k = 0; k < 4; ++k) {
        acc[j][k] = _mm256_add_ps(acc[j][k], acc[j - 1][k]);
        acc[j - 1][k] = _mm256_setzero_ps();
      }
      if ((i & (mask << (j * power))) != 0) break;
    }
  }
  for (; i < size; ++i)
    for (int k = 0; k < 4; ++k) acc[0][k] = _mm256_add_ps(acc[0][k], TN_AT(i, k));
  for (int j = 1; j < kLevels; ++j)
    for (int k = 0; k < 4; ++k) acc[0][k] = _mm256_add_ps(acc[0][k], acc[j][k]);
  for (int k = 0; k < 4; ++k) _mm256_storeu_ps(out + 8 * k, acc[0][k]);
#undef TN_AT
}

bool has_avx2() {
  static const bool yes = cpu::cpu_runs(cpu::Isa::Avx2);
  return yes;
}

// nrows sums at once over `size` steps: step i, row k reads at in + i * step + k * col. Partial
// sums cascade through four levels of 2^p steps each (p = max(4, ceil_log2(size) / 4)), so only
// sums of similar size meet; upstream's multi_row_sum.
template <typename T, int L, int NR>
void multi_row_sum(const char* in, int64_t step, int64_t col, int64_t size, Lanes<T, L>* out) {
  if constexpr (std::is_same_v<T, float> && L == 8 && NR == 4) {
    if (has_avx2()) {
      float v[4 * 8];
      multi_row_sum_f8x4(in, step, col, size, v);
      std::memcpy(static_cast<void*>(out), v, sizeof(v));
      return;
    }
  }
  const int64_t power = std::max<int64_t>(4, ceil_log2(size) / kLevels);
  const int64_t level_step = int64_t(1) << power;
  const int64_t mask = level_step - 1;
  Lanes<T, L> acc[kLevels][NR] = {};
  int64_t i = 0;
  while (i + level_step <= size) {
    for (int64_t j = 0; j < level_step; ++j, ++i)
      for (int k = 0; k < NR; ++k) acc[0][k].add(Lanes<T, L>::load(in + i * step + k * col));
    for (int j = 1; j < kLevels; ++j) {
      for (int k = 0; k < NR; ++k) {
        acc[j][k].add(acc[j - 1][k]);
        acc[j - 1][k] = Lanes<T, L>{};
      }
      if ((i & (mask << (j * power))) != 0) break;
    }
  }
  for (; i < size; ++i)
    for (int k = 0; k < NR; ++k) acc[0][k].add(Lanes<T, L>::load(in + i * step + k * col));
  for (int j = 1; j < kLevels; ++j)
    for (int k = 0; k < NR; ++k) acc[0][k].add(acc[j][k]);
  for (int k = 0; k < NR; ++k) out[k] = acc[0][k];
}

// One sum of `size` steps of `stride` bytes: four interleaved partial sums (upstream's
// row_sum), the steps past a multiple of four added to the first, then the four in order.
template <typename T, int L>
Lanes<T, L> row_sum(const char* in, int64_t stride, int64_t size) {
  constexpr int kIlp = 4;
  const int64_t groups = size / kIlp;
  Lanes<T, L> part[kIlp];
  multi_row_sum<T, L, kIlp>(in, stride * kIlp, stride, groups, part);
  for (int64_t i = groups * kIlp; i < size; ++i) part[0].add(Lanes<T, L>::load(in + i * stride));
  for (int k = 1; k < kIlp; ++k) part[0].add(part[k]);
  return part[0];
}

template <typename T>
void store_add(char* out, T v) {
  T o;
  std::memcpy(&o, out, sizeof(T));
  o += v;
  std::memcpy(out, &o, sizeof(T));
}

// A 2-D slice: size0 steps along dim 0 and size1 along dim 1, strides in bytes; upstream's
// cascade_sum loop body, W the vector width in elements.
template <typename T, int W>
void sum_slice(char* out, const char* in, int64_t s_out0, int64_t s_in0, int64_t s_out1,
               int64_t s_in1, int64_t size0, int64_t size1) {
  // The reduced dim goes first.
  if (s_out0 != 0 && s_out1 == 0) {
    std::swap(s_out0, s_out1);
    std::swap(s_in0, s_in1);
    std::swap(size0, size1);
  }
  const int64_t es = sizeof(T);
  if (s_out0 != 0 && s_out1 != 0) {  // nothing reduced here: out += in
    for (int64_t j = 0; j < size1; ++j)
      for (int64_t i = 0; i < size0; ++i) {
        T v;
        std::memcpy(&v, in + i * s_in0 + j * s_in1, es);
        store_add<T>(out + i * s_out0 + j * s_out1, v);
      }
    return;
  }
  const int64_t os = s_out1;
  if (s_in0 == es && size0 >= W) {
    // Contiguous rows: vectors of W along the row (interleaved four ways), the tail
    // elements, then the lanes, in that order.
    const int64_t nvec = size0 / W;
    for (int64_t j = 0; j < size1; ++j) {
      const char* row = in + j * s_in1;
      Lanes<T, W> v = row_sum<T, W>(row, W * es, nvec);
      T acc = T(0);
      for (int64_t k = nvec * W; k < size0; ++k) {
        T x;
        std::memcpy(&x, row + k * es, es);
        acc += x;
      }
      for (int l = 0; l < W; ++l) acc += v.v[l];
      store_add<T>(out + j * os, acc);
    }
  } else if (s_in1 == es && size1 >= W) {
    // Contiguous columns: four vectors of columns at once while they last, then one vector,
    // then single columns.
    int64_t j = 0;
    for (; j + 4 * W <= size1; j += 4 * W) {
      Lanes<T, W> s[4];
      multi_row_sum<T, W, 4>(in + j * es, s_in0, W * es, size0, s);
      for (int k = 0; k < 4; ++k)
        for (int l = 0; l < W; ++l) store_add<T>(out + (j + k * W + l) * os, s[k].v[l]);
    }
    for (; j + W <= size1; j += W) {
      Lanes<T, W> s = row_sum<T, W>(in + j * es, s_in0, size0);
      for (int l = 0; l < W; ++l) store_add<T>(out + (j + l) * os, s.v[l]);
    }
    for (; j < size1; ++j) store_add<T>(out + j * os, row_sum<T, 1>(in + j * es, s_in0, size0).v[0]);
  } else if (s_in0 < s_in1) {
    for (int64_t j = 0; j < size1; ++j)
      store_add<T>(out + j * os, row_sum<T, 1>(in + j * s_in1, s_in0, size0).v[0]);
  } else {
    int64_t j = 0;
    for (; j + 3 < size1; j += 4) {
      Lanes<T, 1> s[4];
      multi_row_sum<T, 1, 4>(in + j * s_in1, s_in0, s_in1, size0, s);
      for (int k = 0; k < 4; ++k) store_add<T>(out + (j + k) * os, s[k].v[0]);
    }
    for (; j < size1; ++j)
      store_add<T>(out + j * os, row_sum<T, 1>(in + j * s_in1, s_in0, size0).v[0]);
  }
}

// The iteration upstream's TensorIterator makes of a reduction: per dim, its size and the
// output's and input's strides in bytes (the output's 0 on reduced dims).
struct Layout {
  Dims shape, out, in;
};

// Upstream's reorder_dimensions for a reduction with operands (out, in): innermost first,
// reduced dims ahead of kept ones, then by stride, equal strides by size.
void reorder(Layout& g) {
  const int64_t n = static_cast<int64_t>(g.shape.size());
  std::vector<int64_t> perm(n);
  for (int64_t i = 0; i < n; ++i) perm[i] = n - 1 - i;
  auto should_swap = [&](int64_t d0, int64_t d1) {
    const Dims* ops[2] = {&g.out, &g.in};
    for (int a = 0; a < 2; ++a) {
      int64_t s0 = (*ops[a])[d0], s1 = (*ops[a])[d1];
      if (a == 0 && (s0 == 0) != (s1 == 0)) return s1 == 0 ? 1 : -1;
      if (s0 == 0 || s1 == 0) continue;
      if (s0 < s1) return -1;
      if (s0 > s1) return 1;
      if (g.shape[d0] > g.shape[d1]) return 1;
    }
    return 0;
  };
  for (int64_t i = 1; i < n; ++i) {
    int64_t d1 = i;
    for (int64_t d0 = i - 1; d0 >= 0; --d0) {
      int c = should_swap(perm[d0], perm[d1]);
      if (c > 0) {
        std::swap(perm[d0], perm[d1]);
        d1 = d0;
      } else if (c < 0) {
        break;
      }
    }
  }
  Layout r;
  for (int64_t p : perm) {
    r.shape.push_back(g.shape[p]);
    r.out.push_back(g.out[p]);
    r.in.push_back(g.in[p]);
  }
  g = std::move(r);
}

// Upstream's coalesce_dimensions: neighbours merge when either has size 1 or both operands
// step through them as one.
void coalesce(Layout& g) {
  const size_t n = g.shape.size();
  if (n <= 1) return;
  size_t prev = 0;
  for (size_t d = 1; d < n; ++d) {
    bool can = g.shape[prev] == 1 || g.shape[d] == 1 ||
               (g.shape[prev] * g.out[prev] == g.out[d] && g.shape[prev] * g.in[prev] == g.in[d]);
    if (can) {
      if (g.shape[prev] == 1) {
        g.out[prev] = g.out[d];
        g.in[prev] = g.in[d];
      }
      g.shape[prev] *= g.shape[d];
    } else if (++prev != d) {
      g.out[prev] = g.out[d];
      g.in[prev] = g.in[d];
      g.shape[prev] = g.shape[d];
    }
  }
  g.shape.resize(prev + 1);
  g.out.resize(prev + 1);
  g.in.resize(prev + 1);
}

template <typename T, int W>
void run(const Layout& g, char* out, const char* in) {
  const size_t n = g.shape.size();
  auto at = [&](size_t d, const Dims& s) { return d < n ? s[d] : 0; };
  const int64_t size0 = n > 0 ? g.shape[0] : 1, size1 = n > 1 ? g.shape[1] : 1;
  // Dims past the first two, dim 2 fastest (upstream's DimCounter).
  Dims idx(n > 2 ? n - 2 : 0, 0);
  int64_t outer = 1;
  for (size_t d = 2; d < n; ++d) outer *= g.shape[d];
  for (int64_t it = 0; it < outer; ++it) {
    int64_t oo = 0, io = 0;
    for (size_t k = 0; k < idx.size(); ++k) {
      oo += idx[k] * g.out[k + 2];
      io += idx[k] * g.in[k + 2];
    }
    sum_slice<T, W>(out + oo, in + io, at(0, g.out), at(0, g.in), at(1, g.out), at(1, g.in),
                    size0, size1);
    for (size_t k = 0; k < idx.size() && ++idx[k] == g.shape[k + 2]; ++k) idx[k] = 0;
  }
}

// Upstream's TensorIterator::parallel_reduce over the laid-out iteration, for T with vector
// width W: serial below 32,768 elements, at one thread or inside a parallel region. A full
// reduction (one output element) of a contiguous run goes two-pass: each chunk of
// parallel_for's split is summed into its thread's zeroed slot, then the slots are summed into
// the output as a reduction of their own. Otherwise the outer-most kept dim with at least as
// many elements as threads (else the largest kept one) is split, each chunk rounded to 128
// bytes where that dim is contiguous, and each part summed as a narrower iteration. Each
// sum's steps are those of the serial walk, so the bits are upstream's at every thread count.
template <typename T, int W>
void parallel_sum(const Layout& g, char* out, const char* in, int64_t numel, int64_t out_numel) {
  const int threads = intra_op_threads();
  const int64_t es = sizeof(T);
  if (numel < kGrainSize || threads <= 1 || parallel_detail::in_region() || g.shape.empty())
    return run<T, W>(g, out, in);
  if (out_numel == 1) {
    if (g.shape.size() != 1) return run<T, W>(g, out, in);  // (not laid out as one run)
    std::vector<T> slot(static_cast<size_t>(threads), T(0));
    const int64_t chunks = std::min<int64_t>(threads, (numel + kGrainSize - 1) / kGrainSize);
    const int64_t chunk = (numel + chunks - 1) / chunks;
    parallel_for(0, numel, kGrainSize, [&](int64_t b, int64_t e) {
      Layout part{{e - b}, {0}, {g.in[0]}};
      run<T, W>(part, reinterpret_cast<char*>(&slot[static_cast<size_t>(b / chunk)]),
                in + b * g.in[0]);
    });
    Layout fold{{threads}, {0}, {es}};
    return run<T, W>(fold, out, reinterpret_cast<const char*>(slot.data()));
  }
  const int nd = static_cast<int>(g.shape.size());
  int dim = nd - 1, best = nd - 1;
  for (; dim >= 0 && g.out[dim] != 0; --dim) {
    if (g.shape[dim] >= threads) break;
    if (g.shape[dim] > g.shape[best]) best = dim;
  }
  if (dim < 0 || g.out[dim] == 0) dim = best;
  if (g.out[dim] == 0) return run<T, W>(g, out, in);
  const int64_t cols = g.shape[dim];
  const bool round = g.in[dim] == es;
  parallel_for(0, cols, 1, [&](int64_t b, int64_t e) {
    if (round) {
      const int64_t m = 128 / es;
      b -= b % m;
      if (e != cols) e -= e % m;
    }
    if (b == e) return;
    Layout part = g;
    part.shape[dim] = e - b;
    run<T, W>(part, out + b * g.out[dim], in + b * g.in[dim]);
  });
}

}  // namespace

bool cascade_sum(const Tensor& self, const std::vector<bool>& mask, const Tensor& out) {
  const ScalarType dt = self->dtype();
  if ((dt != ScalarType::Float && dt != ScalarType::Double) || out->dtype() != dt) return false;
  const int64_t n = self->dim(), es = self->itemsize();
  Layout g;
  // out's strides over self's dims: 0 on reduced dims; out lacks them unless keepdim.
  const bool keepdim = out->dim() == n;
  int64_t od = 0;
  for (int64_t d = 0; d < n; ++d) {
    g.shape.push_back(self->sizes()[d]);
    g.in.push_back(self->strides()[d] * es);
    if (mask[d]) {
      g.out.push_back(0);
      if (keepdim) ++od;
    } else {
      g.out.push_back(out->strides()[od++] * es);
    }
  }
  reorder(g);
  coalesce(g);
  char* o = static_cast<char*>(out->dense_cpu_data("sum_cpu"));
  const char* x = static_cast<const char*>(self->dense_cpu_data("sum_cpu"));
  // Zero the output first, as upstream's fill_(0): every sum is then added into it.
  {
    Dims osz = out->sizes();
    int64_t cnt = out->numel();
    Dims oi(osz.size(), 0);
    for (int64_t k = 0; k < cnt; ++k) {
      int64_t off = 0;
      for (size_t d = 0; d < osz.size(); ++d) off += oi[d] * out->strides()[d];
      std::memset(o + off * es, 0, static_cast<size_t>(es));
      for (int64_t d = static_cast<int64_t>(osz.size()) - 1; d >= 0 && ++oi[d] == osz[d]; --d)
        oi[d] = 0;
    }
  }
  if (self->numel() == 0) return true;
  // AVX2's lanes on every build: upstream's sum_stub has no AVX-512 entry (AVX-512 machines
  // run its AVX2 build, cpu::avx2_registered_isa()), and its baseline build's Vectorized is
  // 32 bytes too.
  if (dt == ScalarType::Float) parallel_sum<float, 8>(g, o, x, self->numel(), out->numel());
  else parallel_sum<double, 4>(g, o, x, self->numel(), out->numel());
  return true;
}

}  // namespace tn
