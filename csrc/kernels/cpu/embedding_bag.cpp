// _embedding_bag and _embedding_bag_forward_only (sum, mean and max of bags of embedding rows),
// with their backward kernels _embedding_bag_dense_backward and
// _embedding_bag_per_sample_weights_backward, on dense CPU tensors, after upstream's
// EmbeddingBag.cpp: its checks and messages in its order, its auxiliary outputs (offset2bag,
// bag_size, max_indices) shaped and filled as its CPU kernel fills them, and its two summing
// paths (Note [embedding_bag's two paths]). Meta kernels run upstream's meta registrations'
// checks and shapes, which differ from the CPU kernel's in places (noted where they do).
// The composites over these (embedding_bag, _embedding_bag_backward, the out= spellings) are in
// kernels/composite/embedding_bag.cpp; the derivative in autograd/derivatives/embedding_bag.cpp.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "core/promotion.h"
#include "dispatch/kernel.h"
#include "kernels/cpu/blas_loader.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/rules/elementwise.h"
#include "kernels/rules/embedding_bag.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

// Note [embedding_bag's two paths]
// Upstream sums bags (modes sum and mean) one of two ways. Its fast path (float32, float16 and
// bfloat16 weights whose rows are contiguous, no padding_idx, per_sample_weights of stride 1)
// hands each bag to fbgemm's EmbeddingSpMDM: a float accumulator per bag, row after row in
// index order (a per-sample weight w enters as fma(w, row, acc)), rounded to the weight's dtype
// at the end: float16 to nearest-even, bfloat16 by adding half a unit and truncating (ties away
// from zero, not to even). That path validates as it goes and, on failure, lets upstream's
// fbgemm_spmdm_report_error_ name the first bad index, position or offset; it computes no
// offset2bag in mode sum. The slow path (float64, padding_idx >= 0, strided rows) walks the
// indices in order, adding row[idx] into its bag's accumulator (float for the 16-bit dtypes,
// a product w * row rounded before the add, as upstream's plain C++ loop), and rounds to
// nearest-even. Mean then divides each bag by max(bag_size, 1) in the weight's dtype. Upstream's
// fast path runs under parallel_for, which validates each chunk of bags apart, so which
// message a malformed `offsets` gets depends on the thread count: ours splits the bags as
// upstream's parallel_for does for torch.get_num_threads().

enum Mode : int64_t { kSum = 0, kMean = 1, kMax = 2 };

using embedding_bag::check_contiguous_arg;
using embedding_bag::check_index_arg;
using embedding_bag::is_index;

// Upstream's checkScalarTypes(..., {kHalf, kBFloat16, kFloat, kDouble}) on argument `name`.
void check_float_arg(const Tensor& t, const char* name) {
  ScalarType d = t->dtype();
  TN_CHECK(d == ScalarType::Half || d == ScalarType::BFloat16 || d == ScalarType::Float ||
               d == ScalarType::Double,
           "Expected tensor for argument #1 '", name, "' to have one of the following scalar "
           "types: Half, BFloat16, Float, Double; but got torch.", info(d).legacy_name,
           " instead (while checking arguments for embedding_bag)");
}

// A 1-D (or any) index tensor's values as int64, in row-major order.
std::vector<int64_t> values_of(const Tensor& t, const std::string& key) {
  TN_CHECK(is_index(t->dtype()), "expected scalar type Long but found ",
           c10_dtype_name(t->dtype()));
  Tensor c = contiguous(t, key);
  std::vector<int64_t> v(static_cast<size_t>(c->numel()));
  if (v.empty()) return v;
  if (c->dtype() == ScalarType::Long) {
    const int64_t* p = data_of<int64_t>(c, key);
    std::copy(p, p + v.size(), v.begin());
  } else {
    const int32_t* p = data_of<int32_t>(c, key);
    std::copy(p, p + v.size(), v.begin());
  }
  return v;
}

// A new tensor like `like` of dtype dt holding v (int64 values, stored in dt).
Tensor index_tensor(const Tensor& like, const Dims& sizes, ScalarType dt,
                    const std::vector<int64_t>& v, const std::string& key) {
  Tensor t = new_on(like, sizes, dt);
  if (dt == ScalarType::Long) {
    std::copy(v.begin(), v.end(), data_of<int64_t>(t, key));
  } else {
    int32_t* p = data_of<int32_t>(t, key);
    for (size_t i = 0; i < v.size(); ++i) p[i] = static_cast<int32_t>(v[i]);
  }
  return t;
}

// Upstream's promoteIndicesAndOffsets: both in the promoted type of the two.
std::pair<Tensor, Tensor> promote_indices(const Tensor& indices, const Tensor& offsets,
                                          const std::string& key) {
  ScalarType common = promote_types(offsets->dtype(), indices->dtype());
  return {cast_to(indices, common, key), cast_to(offsets, common, key)};
}

// Upstream's make_offset2bag over `offsets` (every value in [0, n], else index_add_'s
// IndexError): for each of n positions, the number of offsets at or before it, minus one.
std::vector<int64_t> offset2bag_of(const std::vector<int64_t>& offsets, size_t count, int64_t n) {
  std::vector<int64_t> o2b(static_cast<size_t>(n) + 1, 0);
  for (size_t k = 0; k < count; ++k) {
    int64_t o = offsets[k];
    TN_CHECK_KIND(o >= 0 && o <= n, Index, "index out of range in self");
    ++o2b[static_cast<size_t>(o)];
  }
  o2b[0] -= 1;
  std::partial_sum(o2b.begin(), o2b.end(), o2b.begin());
  o2b.resize(static_cast<size_t>(n));
  return o2b;
}

// float -> bfloat16 as fbgemm's embedding kernels round: half a unit added to the magnitude's
// bits, then truncated (ties away from zero; a NaN keeps its sign and its payload's top bits).
BFloat16 bf16_ties_away(float f) {
  BFloat16 r;
  r.x = static_cast<uint16_t>((float_bits(f) + 0x8000U) >> 16);
  return r;
}

// The arguments of _embedding_bag / _embedding_bag_forward_only after upstream's checks.
struct Bag {
  Tensor weight, indices, offsets;  // indices and offsets promoted to one index dtype
  const Tensor* psw;                // per_sample_weights, or null
  int64_t mode, pad, n, num_bags;
  bool ilo;
};

// _embedding_bag_cpu_impl's checks (and check_arguments'), in its order.
Bag checked_bag(const Call& c, const std::string& key) {
  const Tensor &weight = c.tensor(0), &indices = c.tensor(1), &offsets = c.tensor(2);
  TN_CHECK(indices->dim() == 1 || indices->dim() == 2,
           "input has to be a 1D or 2D Tensor, but got Tensor of dimension ", indices->dim());
  if (indices->dim() == 1)
    TN_CHECK(offsets->dim() == 1, "offsets has to be a 1D Tensor, but got Tensor of dimension ",
             offsets->dim());
  TN_CHECK(weight->dim() == 2, "weight has to be a 2D Tensor, but got Tensor of dimension ",
           weight->dim());
  Bag b;
  b.weight = weight;
  std::tie(b.indices, b.offsets) = promote_indices(indices, offsets, key);
  check_index_arg(b.indices, "indices");
  check_index_arg(b.offsets, "offsets");
  check_float_arg(weight, "weight");
  // Upstream's kernel reads 2-D indices (with any offsets) by their first dimension's size
  // against all their elements; torch.nn.functional.embedding_bag flattens them first.
  TN_CHECK_KIND(indices->dim() == 1, NotImplemented, key, ": 2-D indices are not implemented "
                "in torchnative (torch.nn.functional.embedding_bag flattens them into bags)");
  b.n = b.indices->size(0);
  b.psw = c.optional_tensor(6);
  b.mode = c.to_int(4);
  b.ilo = c.to_bool(7);
  b.pad = c.to_int(8);
  return b;
}

// check_arguments' checks that read offsets' values, then the ones after them.
void check_bag_values(const Bag& b, const std::vector<int64_t>& off) {
  if (!off.empty()) {
    TN_CHECK(off[0] == 0, "offsets[0] has to be 0, i.e., the first sequence in the mini-batch "
             "has to start from position 0. However, got ", off[0], "\n[ torch.",
             info(b.offsets->dtype()).legacy_name, "{} ]");
    TN_CHECK(off.back() <= b.n, "offsets[-1] can not be greater than input's length ", b.n,
             " but got offsets[-1] of ", off.back());
  }
  if (b.psw) {
    TN_CHECK(b.mode == kSum, "embedding_bag: per_sample_weights only supported with mode='sum'");
    TN_CHECK((*b.psw)->dtype() == b.weight->dtype(), "Expected tensor for argument #1 'weight' "
             "to have the same type as tensor for argument #1 'per_sample_weights'; but type "
             "torch.", info(b.weight->dtype()).legacy_name, " does not equal torch.",
             info((*b.psw)->dtype()).legacy_name, " (while checking arguments for embedding_bag)");
    TN_CHECK((*b.psw)->dim() == 1, "Expected per_sample_weights.value().dim() == 1 to be true, "
             "but got false.  (Could this error message be improved?  If so, please report an "
             "enhancement request to PyTorch.)");
    TN_CHECK((*b.psw)->numel() == b.n, "Expected per_sample_weights.value().numel() == "
             "indices.numel() to be true, but got false.  (Could this error message be improved?"
             "  If so, please report an enhancement request to PyTorch.)");
  }
  if (b.ilo)
    TN_CHECK(b.offsets->size(0) >= 1,
             "include_last_offset: number of offset should be at least 1");
  TN_CHECK(b.mode == kSum || b.mode == kMean || b.mode == kMax,
           "`mode` must be sum, mean, or max.");
}

// One parallel_for chunk of upstream's fast path: bags [lo, hi), their offsets read from
// ext + lo and their indices from position ext[lo] on, as fbgemm is handed them.
struct Chunk {
  const std::vector<int64_t>& ext;
  const std::vector<int64_t>& idx;
  int64_t lo, hi, rows;
  const std::string& key;
  int64_t base() const { return ext[size_t(lo)]; }
  int64_t index_size() const { return ext[size_t(hi)] - base(); }
  // The chunk's index at relative position i (upstream reads there unchecked; we refuse).
  int64_t index_at(int64_t i) const {
    int64_t at = base() + i;
    TN_CHECK_KIND(at >= 0 && at < int64_t(idx.size()), NotImplemented, key, ": offsets that "
                  "lead before or past the indices are not supported (upstream reads outside "
                  "the indices there)");
    return idx[size_t(at)];
  }
};

// Upstream's fbgemm_spmdm_report_error_ for a chunk whose kernel failed: names the first
// position past the chunk's indices (the offsets read as positions in the chunk's own
// indices), index out of range, or a last offset that is not the indices' count. Where it
// finds none although the kernel failed (offsets that go backwards), upstream returns what
// fbgemm wrote so far; we refuse by name instead.
void report_fast_path_error(const Chunk& ch) {
  const int64_t index_size = ch.index_size();
  for (int64_t m = ch.lo; m < ch.hi; ++m)
    for (int64_t i = ch.ext[size_t(m)]; i < ch.ext[size_t(m) + 1]; ++i) {
      TN_CHECK(i < index_size, "Expected i < index_size to be true, but got false.  (Could this "
               "error message be improved?  If so, please report an enhancement request to "
               "PyTorch.)");
      int64_t v = ch.index_at(i);
      TN_CHECK(v >= 0 && v < ch.rows, "Index ", i, " of input takes value ", v,
               " which is not in the valid range [0, ", ch.rows, ")");
    }
  TN_CHECK(ch.ext[size_t(ch.hi)] == index_size, "Your input appears to be incorrect: the last "
           "offset value should be the size of the indices tensor, but it seems not to be the "
           "case.");
  TN_FAIL(NotImplemented, ch.key, ": offsets that are not non-decreasing are not supported on "
          "upstream's fbgemm path (upstream returns a partly written result there)");
}

// Modes sum and mean by upstream's fast path on one chunk of bags: bag m's rows read from a
// running position, as fbgemm reads them. acc is (nb, D) float, zeroed by the caller. False
// where fbgemm would fail.
template <typename T>
bool sum_fast_chunk(const Bag& b, const Chunk& ch, std::vector<float>& acc) {
  const int64_t d = b.weight->size(1);
  const T* w = data_of<T>(b.weight, ch.key);
  const int64_t s0 = b.weight->stride(0);
  const T* ps = b.psw ? data_of<T>(*b.psw, ch.key) : nullptr;
  const int64_t index_size = ch.index_size();
  int64_t cur = 0;
  for (int64_t m = ch.lo; m < ch.hi; ++m) {
    int64_t len = ch.ext[size_t(m) + 1] - ch.ext[size_t(m)];
    if (cur + len > index_size) return false;
    float* out = acc.data() + m * d;
    for (int64_t j = 0; j < len; ++j, ++cur) {
      int64_t v = ch.index_at(cur);
      if (v < 0 || v >= ch.rows) return false;
      const T* row = w + v * s0;
      if (ps) {
        float s = static_cast<float>(ps[ch.base() + cur]);
        for (int64_t k = 0; k < d; ++k) out[k] = std::fma(s, static_cast<float>(row[k]), out[k]);
      } else {
        for (int64_t k = 0; k < d; ++k) out[k] += static_cast<float>(row[k]);
      }
    }
  }
  return cur == index_size;
}

// The fast path over all bags, split as upstream's parallel_for(0, nb, 1) splits them among
// torch.get_num_threads() threads; each chunk validated apart, the first failing chunk's error
// raised (upstream raises whichever failing thread gets there first).
template <typename T>
void sum_fast(const Bag& b, const std::vector<int64_t>& ext, const std::vector<int64_t>& idx,
              std::vector<float>& acc, const std::string& key) {
  const int64_t nb = b.num_bags, rows = b.weight->size(0);
  int64_t threads = intra_op_threads();
  if (nb <= 1 || threads <= 1) threads = 1;
  threads = std::min(threads, nb);
  const int64_t chunk = threads > 0 ? (nb + threads - 1) / threads : 1;
  for (int64_t lo = 0; lo < nb; lo += chunk) {
    Chunk ch{ext, idx, lo, std::min(nb, lo + chunk), rows, key};
    if (!sum_fast_chunk<T>(b, ch, acc)) report_fast_path_error(ch);
  }
}

void check_row(int64_t v, int64_t rows) {
  TN_CHECK(v >= 0 && v < rows, "embedding_bag: Expected idx >= 0 && idx < num_embeddings but "
           "found idx to be ", v);
}

// Modes sum and mean by upstream's slow path: index i adds its row into bag o2b[i]; a padding
// index adds nothing and takes one from its bag's size. A is the accumulator's type.
template <typename T, typename A>
void sum_slow(const Bag& b, const std::vector<int64_t>& idx, const std::vector<int64_t>& o2b,
              std::vector<int64_t>& bag_size, std::vector<A>& acc, const std::string& key) {
  const int64_t d = b.weight->size(1), rows = b.weight->size(0);
  const T* w = data_of<T>(b.weight, key);
  const int64_t s0 = b.weight->stride(0), s1 = b.weight->stride(1);
  const T* ps = b.psw ? data_of<T>(*b.psw, key) : nullptr;
  const int64_t pst = b.psw ? (*b.psw)->stride(0) : 0;
  for (int64_t i = 0; i < b.n; ++i) {
    int64_t v = idx[size_t(i)];
    check_row(v, rows);
    int64_t bag = o2b[size_t(i)];
    if (v == b.pad) {
      --bag_size[size_t(bag)];
      continue;
    }
    A* out = acc.data() + bag * d;
    const T* row = w + v * s0;
    if (ps) {
      A s = static_cast<A>(ps[i * pst]);
      // The product is rounded before the add: the baseline build (this file's) fuses nothing.
      for (int64_t k = 0; k < d; ++k) out[k] += static_cast<A>(row[k * s1]) * s;
    } else {
      for (int64_t k = 0; k < d; ++k) out[k] += static_cast<A>(row[k * s1]);
    }
  }
}

// Mode max: per bag and column the first largest value (NaN only where it comes first) and the
// index it came from; empty bags stay 0 with index 0.
template <typename T>
void bag_max(const Bag& b, const std::vector<int64_t>& idx, const std::vector<int64_t>& o2b,
             std::vector<int64_t>& bag_size, T* out, std::vector<int64_t>& max_idx,
             const std::string& key) {
  const int64_t d = b.weight->size(1), rows = b.weight->size(0);
  const T* w = data_of<T>(b.weight, key);
  const int64_t s0 = b.weight->stride(0), s1 = b.weight->stride(1);
  std::vector<bool> empty(static_cast<size_t>(b.num_bags), true);
  for (int64_t i = 0; i < b.n; ++i) {
    int64_t v = idx[size_t(i)];
    check_row(v, rows);
    int64_t bag = o2b[size_t(i)];
    if (v == b.pad) {
      --bag_size[size_t(bag)];
      continue;
    }
    bool first = empty[size_t(bag)];
    for (int64_t k = 0; k < d; ++k) {
      T& cur = out[bag * d + k];
      T x = w[v * s0 + k * s1];
      if (first || static_cast<float>(x) > static_cast<float>(cur)) {
        cur = x;
        max_idx[size_t(bag * d + k)] = v;
      }
    }
    empty[size_t(bag)] = false;
  }
}

// The rounding from the accumulator to T (the fast path's bfloat16 rounds ties away).
template <typename T, typename A>
T round_out(A v, bool ties_away) {
  if constexpr (std::is_same_v<T, BFloat16>) {
    if (ties_away) return bf16_ties_away(v);
  }
  return T(v);
}

// _embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
//                per_sample_weights=None, include_last_offset=False, padding_idx=-1)
//   -> (output, offset2bag, bag_size, max_indices); kGrad false: _embedding_bag_forward_only.
// output (num_bags, D) in weight's dtype; the others in the promoted index dtype: offset2bag
// (n) where computed (modes mean, max, or the slow path), else (0); bag_size (num_bags) for
// _embedding_bag and for modes mean and max (sizes less padding), else zeros shaped like
// offsets; max_indices (num_bags, D) in mode max, else bag_size's copy (mean) or zeros (sum).
template <bool kGrad>
void embedding_bag_cpu(Call& c) {
  const std::string& key = c.key();
  Bag b = checked_bag(c, key);
  std::vector<int64_t> off = values_of(b.offsets, key);
  check_bag_values(b, off);
  const int64_t d = b.weight->size(1), n = b.n;
  b.num_bags = b.offsets->size(0) - (b.ilo ? 1 : 0);
  const int64_t nb = b.num_bags;
  const ScalarType wt = b.weight->dtype(), it = b.offsets->dtype();
  const bool fast = (wt == ScalarType::Float || wt == ScalarType::Half ||
                     wt == ScalarType::BFloat16) &&
                    b.weight->stride(1) == 1 && b.pad < 0 && (!b.psw || (*b.psw)->stride(0) == 1);
  const bool with_o2b = b.mode != kSum || !fast;
  std::vector<int64_t> idx = values_of(b.indices, key);
  std::vector<int64_t> o2b;
  if (with_o2b) {
    o2b = offset2bag_of(off, static_cast<size_t>(nb), n);
    // Upstream writes bag -1 (before its output) when there are indices but no bags.
    TN_CHECK_KIND(n == 0 || nb > 0, NotImplemented, key, ": indices without any bag (empty "
                  "offsets) are not supported: upstream writes outside its output there");
  }
  const bool sized = kGrad || b.mode != kSum;
  std::vector<int64_t> bag_size(static_cast<size_t>(sized ? nb : b.offsets->size(0)), 0);
  if (sized)
    for (int64_t k = 0; k < nb; ++k)
      bag_size[size_t(k)] = (k + 1 < nb ? off[size_t(k) + 1] : n) - off[size_t(k)];
  std::vector<int64_t> max_idx(static_cast<size_t>(b.mode == kMax ? nb * d : 0), 0);
  Tensor out = new_on(b.weight, {nb, d}, wt);
  dispatch_dtype(wt, key, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> ||
                  std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
      using A = acc_t<T>;
      T* po = data_of<T>(out, key);
      if (b.mode == kMax) {
        std::fill(po, po + nb * d, T(A(0)));
        bag_max<T>(b, idx, o2b, bag_size, po, max_idx, key);
        return;
      }
      std::vector<A> acc(static_cast<size_t>(nb * d), A(0));
      if (fast) {
        if constexpr (std::is_same_v<A, float>) {
          std::vector<int64_t> ext(off.begin(), off.end());
          if (!b.ilo) ext.push_back(n);
          sum_fast<T>(b, ext, idx, acc, key);
        }
      } else {
        sum_slow<T, A>(b, idx, o2b, bag_size, acc, key);
      }
      for (size_t k = 0; k < acc.size(); ++k) po[k] = round_out<T, A>(acc[k], fast);
      if (b.mode == kMean)
        for (int64_t m = 0; m < nb; ++m) {
          // max(bag_size, 1) converted to T, then T's division (in float for 16-bit T).
          const int64_t count = std::max<int64_t>(bag_size[size_t(m)], 1);
          const A size = static_cast<A>(T(static_cast<A>(count)));
          for (int64_t k = 0; k < d; ++k)
            po[m * d + k] = T(static_cast<A>(po[m * d + k]) / size);
        }
    }
  });
  if (b.mode == kSum) std::fill(bag_size.begin(), bag_size.end(), 0);
  const Dims bag_dims{static_cast<int64_t>(bag_size.size())};
  c.ret(out);
  c.ret(index_tensor(b.offsets, {with_o2b ? n : 0}, it, o2b, key));
  c.ret(index_tensor(b.offsets, bag_dims, it, bag_size, key));
  if (b.mode == kMax) c.ret(index_tensor(b.offsets, {nb, d}, it, max_idx, key));
  else c.ret(index_tensor(b.offsets, bag_dims, it, bag_size, key));
}

// The Meta kernels: upstream's meta_embedding_bag, its checks and messages, and the shapes it
// gives tensors off the CPU (a meta tensor is one): offset2bag (n) and bag_size shaped like
// offsets, in the indices' dtype, max_indices (num_bags, D) in mode max, else empty.
void embedding_bag_meta(Call& c) {
  const Tensor &weight = c.tensor(0), &indices = c.tensor(1), &offsets = c.tensor(2);
  const Tensor* psw = c.optional_tensor(6);
  const int64_t mode = c.to_int(4);
  TN_CHECK(is_index(indices->dtype()), "expected indices to be long or int, got torch.",
           name(indices->dtype()));
  TN_CHECK(is_index(offsets->dtype()), "expected offsets to be long or int, got torch.",
           name(offsets->dtype()));
  TN_CHECK(is_floating(weight->dtype()), "expected weight to be floating point type, got torch.",
           name(weight->dtype()));
  TN_CHECK(weight->dim() == 2 && offsets->dim() >= 1 && indices->dim() >= 1,
           "embedding_bag: expected a 2-D weight and 1-D indices and offsets");
  int64_t nb = offsets->size(0);
  if (c.to_bool(7)) {
    TN_CHECK(nb >= 1, "include_last_offset: numBags should be at least 1");
    nb -= 1;
  }
  if (psw) {
    TN_CHECK(mode == kSum, "embedding_bag: per_sample_weights only supported with mode='sum'");
    TN_CHECK((*psw)->dim() == 1, "expected per_sample_weights to be 1D tensor, got ",
             (*psw)->dim(), "D");
    TN_CHECK((*psw)->numel() == indices->numel(), "expected per_sample_weights.numel() (",
             (*psw)->numel(), " to be the same as indices.numel() (", indices->numel(), ")");
  }
  const int64_t d = weight->size(1);
  const ScalarType it = indices->dtype();
  c.ret(new_on(weight, {nb, d}, weight->dtype()));
  c.ret(new_on(indices, {indices->size(0)}, it));
  c.ret(new_on(indices, offsets->sizes(), it));
  c.ret(new_on(indices, mode == kMax ? Dims{nb, d} : Dims{0}, it));
}

// cpublas::axpy's y += a * x on one element: float and double by BLAS (MKL's fused
// multiply-add); the 16-bit floats by upstream's C++ loop, the product rounded to T first.
template <typename T>
T axpy_one(T y, float a16, T a, T x) {
  if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
    return T(static_cast<float>(y) + static_cast<float>(T(a16 * static_cast<float>(x))));
  } else {
    (void)a16;
    return std::fma(a, x, y);
  }
}

// _embedding_bag_dense_backward(grad, indices, offset2bag, bag_size, maximum_indices,
// num_weights, scale_grad_by_freq, mode, per_sample_weights, padding_idx) -> (num_weights, D).
// Max: each non-empty bag's gradient added at its maximum's index, column by column, bags in
// order. Sum and mean: indices in sorted order (ties by position: upstream's unsorted sort
// orders ties its own way, so where one row takes three or more contributions the sum's
// rounding can differ), each row accumulating grad[bag] * scale, scale the sample's weight,
// divided by the count of the group's index (upstream's counts[indices[i]], i the group's
// number, not a position in it) under scale_grad_by_freq and by the bag's size in mean.
void dense_backward_cpu(Call& c) {
  const std::string& key = c.key();
  Tensor grad = contiguous(c.tensor(0), key);
  check_float_arg(grad, "grad_");
  const Tensor* psw = c.optional_tensor(8);
  const int64_t num_weights = c.to_int(5), mode = c.to_int(7), pad = c.to_int(9);
  if (mode != kMax) {
    // (upstream's internal assert, before it reads anything else)
    TN_CHECK(mode == kSum || mode == kMean, key, ": mode must be 0 (sum), 1 (mean) or 2 (max), "
             "got ", mode);
    // upstream sorts the indices, gathers offset2bag by the order (index_select) and reads
    // both as its index type before it looks at grad's shape.
    const Tensor& indices = c.tensor(1);
    TN_CHECK_KIND(indices->dim() <= 1, Index, "index_select(): Index is supposed to be a vector");
    TN_CHECK_KIND(is_index(indices->dtype()), NotImplemented,
                  "\"_embedding_bag_dense_backward_cpu_sum_mean\" not implemented for '",
                  c10_dtype_name(indices->dtype()), "'");
  }
  TN_CHECK(grad->dim() == 2, key, ": expected grad of 2 dimensions, got ", grad->dim());
  const int64_t d = grad->size(1), bags = grad->size(0);
  TN_CHECK(num_weights >= 0, "Trying to create tensor with negative dimension ", num_weights,
           ": [", num_weights, ", ", d, "]");
  Tensor gw = new_on(grad, {num_weights, d}, grad->dtype());
  std::vector<int64_t> bag_size;
  dispatch_dtype(grad->dtype(), key, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> ||
                  std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
      using A = acc_t<T>;
      T* pw = data_of<T>(gw, key);
      std::fill(pw, pw + num_weights * d, T(A(0)));
      const T* pg = data_of<T>(grad, key);
      if (mode == kMax) {
        bag_size = values_of(c.tensor(3), key);
        std::vector<int64_t> mi = values_of(c.tensor(4), key);
        for (size_t bag = 0; bag < bag_size.size(); ++bag) {
          if (bag_size[bag] == 0) continue;
          TN_CHECK_KIND(int64_t(bag) < bags && int64_t(bag + 1) * d <= int64_t(mi.size()),
                        Index, "index out of range in self");
          for (int64_t k = 0; k < d; ++k) {
            int64_t r = mi[bag * size_t(d) + size_t(k)];
            TN_CHECK_KIND(r >= 0 && r < num_weights, Index, "index out of range in self");
            T& y = pw[r * d + k];
            y = T(static_cast<A>(y) + static_cast<A>(pg[int64_t(bag) * d + k]));
          }
        }
        return;
      }
      std::vector<int64_t> idx = values_of(c.tensor(1), key);
      std::vector<int64_t> o2b = values_of(c.tensor(2), key);
      bag_size = values_of(c.tensor(3), key);
      const size_t n = idx.size();
      TN_CHECK(o2b.size() == n, key, ": offset2bag has ", o2b.size(), " entries for ", n,
               " indices");
      std::vector<int64_t> counts(static_cast<size_t>(num_weights), 0);
      for (int64_t v : idx) {
        TN_CHECK_KIND(v >= 0 && v < num_weights, Index, "index out of range in self");
        ++counts[size_t(v)];
      }
      std::vector<size_t> order(n);
      std::iota(order.begin(), order.end(), size_t(0));
      std::stable_sort(order.begin(), order.end(),
                       [&](size_t a, size_t b) { return idx[a] < idx[b]; });
      const T* ps = psw ? data_of<T>(*psw, key) : nullptr;
      const int64_t pst = psw ? (*psw)->stride(0) : 0;
      size_t group = 0;
      for (size_t start = 0; start < n; ++group) {
        const int64_t index = idx[order[start]];
        size_t end = start;
        while (end < n && idx[order[end]] == index) ++end;
        for (size_t j = start; index != pad && j < end; ++j) {
          const size_t pos = order[j];
          const int64_t source = o2b[pos];
          TN_CHECK_KIND(source >= 0 && source < bags && size_t(source) < bag_size.size(), Index,
                        "index out of range in self");
          double scale = ps ? static_cast<double>(static_cast<A>(ps[int64_t(pos) * pst])) : 1.0;
          if (c.to_bool(6)) scale /= static_cast<double>(counts[size_t(idx[order[group]])]);
          if (mode == kMean && bag_size[size_t(source)] != 0)
            scale /= static_cast<double>(bag_size[size_t(source)]);
          const T a = T(static_cast<A>(scale));
          const float a16 = static_cast<float>(a);
          const T* x = pg + source * d;
          T* y = pw + index * d;
          for (int64_t k = 0; k < d; ++k) y[k] = axpy_one<T>(y[k], a16, a, x[k]);
        }
        start = end;
      }
    }
  });
  c.ret(gw);
}

// upstream's meta_embedding_bag_dense_backward.
void dense_backward_meta(Call& c) {
  const Tensor& grad = c.tensor(0);
  ScalarType g = grad->dtype();
  TN_CHECK(g == ScalarType::Half || g == ScalarType::BFloat16 || g == ScalarType::Float ||
               g == ScalarType::Double,
           "Unsupported input type encountered: torch.", name(g));
  c.ret(new_on(grad, {c.to_int(5), grad->size(wrap_dim(1, grad->dim()))}, g));
}

// dot_impl<T>(n, x, incx, y, incy) for float and double: BLAS's dot, as upstream's.
template <typename T>
T blas_dot(int64_t n, const T* x, int64_t incx, const T* y, int64_t incy) {
  if (n == 1) incx = incy = 1;
  if constexpr (std::is_same_v<T, float>)
    return blas().sdot(int(n), x, int(incx), y, int(incy));
  else
    return blas().ddot(int(n), x, int(incx), y, int(incy));
}

// _embedding_bag_per_sample_weights_backward(grad, weight, indices, offsets, offset2bag, mode,
// padding_idx) -> (n): sample s's gradient is grad[offset2bag[s]] . weight[indices[s]] (0 at
// padding_idx), offset2bag rebuilt from offsets when it is empty and there are indices.
void psw_backward_cpu(Call& c) {
  const std::string& key = c.key();
  const Tensor &grad = c.tensor(0), &weight = c.tensor(1);
  const ScalarType g = grad->dtype();
  TN_CHECK_KIND(g == ScalarType::Half || g == ScalarType::BFloat16 || g == ScalarType::Float ||
                    g == ScalarType::Double,
                NotImplemented, "\"_embedding_bag_per_sample_weights_backward_cpu\" not "
                "implemented for '", c10_dtype_name(g), "'");
  TN_CHECK(c.to_int(5) == kSum,
           "embedding_bag_backward: per_sample_weights only supported for mode='sum'");
  TN_CHECK(grad->dim() == 2, key, ": expected grad of 2 dimensions, got ", grad->dim());
  auto [indices, offsets] = promote_indices(c.tensor(2), c.tensor(3), key);
  TN_CHECK(indices->dim() == 1, key, ": expected 1-D indices, got ", indices->dim(), "-D");
  TN_CHECK(weight->dim() == 2 && weight->size(1) == grad->size(1), key, ": expected a weight "
           "of ", grad->size(1), " columns, got shape ", dims_str(weight->sizes()));
  const int64_t n = indices->size(0), d = grad->size(1);
  Tensor out = new_on(grad, {n}, g);
  check_index_arg(indices, "indices");
  check_contiguous_arg(indices, "indices");
  const Tensor& o2b_in = c.tensor(4);
  std::vector<int64_t> o2b;
  if (n != 0 && o2b_in->numel() == 0) {
    std::vector<int64_t> off = values_of(offsets, key);
    o2b = offset2bag_of(off, off.size(), n);
  } else {
    check_index_arg(o2b_in, "offset2bag");
    check_contiguous_arg(o2b_in, "offset2bag");
    o2b = values_of(o2b_in, key);
  }
  TN_CHECK(weight->dtype() == g, "expected scalar type ", c10_dtype_name(g), " but found ",
           c10_dtype_name(weight->dtype()));
  TN_CHECK(int64_t(o2b.size()) >= n, key, ": offset2bag has ", o2b.size(), " entries for ", n,
           " indices");
  std::vector<int64_t> idx = values_of(indices, key);
  const int64_t pad = c.to_int(6);
  dispatch_dtype(g, key, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> ||
                  std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
      T* po = data_of<T>(out, key);
      const T* pg = data_of<T>(grad, key);
      const T* pw = data_of<T>(weight, key);
      for (int64_t s = 0; s < n; ++s) {
        const int64_t bag = o2b[size_t(s)], e = idx[size_t(s)];
        po[s] = T(0.0f);
        if (e == pad) continue;
        TN_CHECK_KIND(bag >= 0 && bag < grad->size(0) && e >= 0 && e < weight->size(0), Index,
                      "index out of range in self");
        if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
          po[s] = blas_dot<T>(d, pg + bag * grad->stride(0), grad->stride(1),
                              pw + e * weight->stride(0), weight->stride(1));
        } else {
          // upstream's dot_impl for the 16-bit floats is at::dot's: ours, through the door.
          Tensor gx = make_view(grad, {d}, {grad->stride(1)},
                                grad->storage_offset() + bag * grad->stride(0));
          Tensor wx = make_view(weight, {d}, {weight->stride(1)},
                                weight->storage_offset() + e * weight->stride(0));
          po[s] = *data_of<T>(call_tensor("aten::dot", {Value::of(gx), Value::of(wx)}), key);
        }
      }
    }
  });
  c.ret(out);
}

// upstream's meta_embedding_bag_per_sample_weights_backward.
void psw_backward_meta(Call& c) {
  const Tensor &grad = c.tensor(0), &weight = c.tensor(1), &indices = c.tensor(2);
  wrap_dim(1, grad->dim());  // upstream's meta reads grad.size(1) first
  TN_CHECK(c.to_int(5) == kSum,
           "embedding_bag_backward: per_sample_weights only supported for mode='sum'");
  TN_CHECK(grad->dim() == 2 && indices->dim() == 1 && weight->dim() == 2 &&
               weight->size(1) == grad->size(1),
           c.key(), ": expected 2-D grad and weight of as many columns, and 1-D indices");
  c.ret(new_on(grad, {indices->size(0)}, grad->dtype()));
}

}  // namespace

TN_REGISTER_KERNEL("aten::_embedding_bag", DenseCPU, embedding_bag_cpu<true>);
TN_REGISTER_KERNEL("aten::_embedding_bag", Meta, embedding_bag_meta);
TN_REGISTER_KERNEL("aten::_embedding_bag_forward_only", DenseCPU, embedding_bag_cpu<false>);
TN_REGISTER_KERNEL("aten::_embedding_bag_forward_only", Meta, embedding_bag_meta);
TN_REGISTER_KERNEL("aten::_embedding_bag_dense_backward", DenseCPU, dense_backward_cpu);
TN_REGISTER_KERNEL("aten::_embedding_bag_dense_backward", Meta, dense_backward_meta);
TN_REGISTER_KERNEL("aten::_embedding_bag_per_sample_weights_backward", DenseCPU,
                   psw_backward_cpu);
TN_REGISTER_KERNEL("aten::_embedding_bag_per_sample_weights_backward", Meta,
                   psw_backward_meta);

}  // namespace tn
