// Shape arithmetic shared by the view, shape and indexing kernels: dim wrapping, size inference,
// broadcasting, the stride rule that decides whether a view is possible, and layout predicates.
// Pure metadata: no bytes are touched here, so everything works on every representation.
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>
#include <sstream>
#include <string>

#include "core/tensor_impl.h"
#include "dispatch/value.h"
#include "kernels/rules/factory_rules.h"

namespace tn {

// Upstream's maybe_wrap_dim: a 0-dim tensor accepts dims 0 and -1; IndexError otherwise.
inline int64_t wrap_dim(int64_t dim, int64_t ndim) {
  int64_t n = ndim <= 0 ? 1 : ndim;
  TN_CHECK_KIND(dim >= -n && dim < n, Index, "Dimension out of range (expected to be in range of [",
                -n, ", ", n - 1, "], but got ", dim, ")");
  return dim < 0 ? dim + n : dim;
}

// Resolves a single -1 in shape against numel (upstream's infer_size for view/reshape).
inline Dims infer_size(const Dims& shape, int64_t numel) {
  Dims out = shape;
  int64_t known = 1;
  std::optional<size_t> infer;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      TN_CHECK(!infer, "only one dimension can be inferred");
      infer = i;
    } else {
      TN_CHECK(shape[i] >= 0, "invalid shape dimension ", shape[i]);
      known *= shape[i];
    }
  }
  if (infer) {
    TN_CHECK(known != 0, "cannot reshape tensor of ", numel, " elements into shape ",
             dims_str(shape), " because the unspecified dimension size -1 can be any value and ",
             "is ambiguous");
    TN_CHECK(numel % known == 0, "shape '", dims_str(shape), "' is invalid for input of size ",
             numel);
    out[*infer] = numel / known;
  } else {
    TN_CHECK(known == numel, "shape '", dims_str(shape), "' is invalid for input of size ", numel);
  }
  return out;
}

// Strides that let (sizes, strides) be viewed as new_sizes without copying, or nullopt.
// Walks the old dims from the innermost, grouping runs that are contiguous with each other
// ("chunks"); each chunk must be covered exactly by a run of new dims (upstream's rule).
inline std::optional<Dims> view_strides(const Dims& sizes, const Dims& strides,
                                        const Dims& new_sizes) {
  int64_t n_new = static_cast<int64_t>(new_sizes.size());
  if (sizes.empty()) return Dims(new_sizes.size(), 1);
  int64_t numel = numel_of(sizes);
  if (numel == 0 && sizes == new_sizes) return strides;
  Dims out(new_sizes.size());
  if (numel == 0) {  // any strides will do; upstream picks contiguous ones
    for (int64_t d = n_new - 1; d >= 0; --d)
      out[d] = d == n_new - 1 ? 1 : std::max<int64_t>(new_sizes[d + 1], 1) * out[d + 1];
    return out;
  }
  int64_t vd = n_new - 1;
  int64_t chunk_stride = strides.back();
  int64_t old_numel = 1, new_numel = 1;
  for (int64_t od = static_cast<int64_t>(sizes.size()) - 1; od >= 0; --od) {
    old_numel *= sizes[od];
    bool chunk_ends = od == 0 || (sizes[od - 1] != 1 &&
                                  strides[od - 1] != old_numel * chunk_stride);
    if (!chunk_ends) continue;
    while (vd >= 0 && (new_numel < old_numel || new_sizes[vd] == 1)) {
      out[vd] = new_numel * chunk_stride;
      new_numel *= new_sizes[vd];
      --vd;
    }
    if (new_numel != old_numel) return std::nullopt;
    if (od > 0) {
      chunk_stride = strides[od - 1];
      old_numel = 1;
      new_numel = 1;
    }
  }
  if (vd != -1) return std::nullopt;
  return out;
}

// Strides of t broadcast to `shape` (0 for broadcast dims); shape must be a broadcast of t's.
inline Dims broadcast_strides(const TensorImpl& t, const Dims& shape) {
  Dims out(shape.size(), 0);
  size_t lead = shape.size() - t.sizes().size();
  for (size_t i = 0; i < t.sizes().size(); ++i)
    out[lead + i] = t.sizes()[i] == 1 && shape[lead + i] != 1 ? 0 : t.strides()[i];
  return out;
}

// Upstream's is_non_overlapping_and_dense: some permutation of the dims is contiguous. A tensor
// of no elements counts as contiguous whatever its strides (c10's compute_contiguous), so clone
// and empty_like keep them.
inline bool non_overlapping_and_dense(const Dims& sizes, const Dims& strides) {
  size_t n = sizes.size();
  if (std::find(sizes.begin(), sizes.end(), 0) != sizes.end()) return true;
  if (n == 1) return sizes[0] < 2 || strides[0] == 1;
  std::vector<size_t> perm(n);
  std::iota(perm.begin(), perm.end(), 0);
  std::sort(perm.begin(), perm.end(), [&](size_t a, size_t b) {
    if (sizes[a] < 2) return false;
    if (sizes[b] < 2) return true;
    return strides[a] < strides[b];
  });
  int64_t want = 1;
  for (size_t d : perm) {
    if (sizes[d] < 2) return true;
    if (strides[d] != want) return false;
    want *= sizes[d];
  }
  return true;
}

// Dense strides keeping the order of the input's strides (upstream's infer_dense_strides, used
// by empty_like/clone with preserve_format when the input is not dense): a stable insertion
// sort, innermost dim first, where zero strides compare as "ambiguous" and never move.
inline Dims dense_strides_like(const Dims& sizes, const Dims& strides) {
  int64_t n = static_cast<int64_t>(sizes.size());
  std::vector<int64_t> perm(n);
  for (int64_t i = 0; i < n; ++i) perm[i] = n - 1 - i;
  auto order = [&](int64_t a, int64_t b) {  // 1: a goes after b, -1: before, 0: ambiguous
    if (strides[a] == 0 || strides[b] == 0) return 0;
    if (strides[a] != strides[b]) return strides[a] < strides[b] ? -1 : 1;
    return sizes[a] > sizes[b] ? 1 : 0;
  };
  for (int64_t i = 1; i < n; ++i) {
    int64_t cur = i;
    for (int64_t j = i - 1; j >= 0; --j) {
      int c = order(perm[j], perm[cur]);
      if (c > 0) {
        std::swap(perm[j], perm[cur]);
        cur = j;
      } else if (c < 0) {
        break;
      }
    }
  }
  Dims out(n);
  int64_t s = 1;
  for (int64_t i = 0; i < n; ++i) {
    out[perm[i]] = s;
    if (sizes[perm[i]] > 1) s *= sizes[perm[i]];
  }
  return out;
}

// Strides an output "like" t gets under memory_format=preserve.
inline Dims preserve_strides(const TensorImpl& t) {
  if (non_overlapping_and_dense(t.sizes(), t.strides())) return t.strides();
  return dense_strides_like(t.sizes(), t.strides());
}

// The memory format a MemoryFormat? argument asks for (None: preserve), after upstream's rank
// check for a tensor of ndim dims.
inline MemoryFormatKind format_of(const Value& mf, int64_t ndim) {
  if (mf.is_none()) return MemoryFormatKind::Preserve;
  check_memory_format_rank(mf, ndim);
  return mf.memory_format;
}

// Upstream's suggest_memory_format() for t.
inline MemoryFormatKind suggested_format(const TensorImpl& t) {
  if (!suggests_channels_last(t)) return MemoryFormatKind::Contiguous;
  return t.dim() == 4 ? MemoryFormatKind::ChannelsLast : MemoryFormatKind::ChannelsLast3d;
}

// The strides a new tensor of t's sizes takes under format f (preserve keeps dense strides).
inline Dims strides_in_format(const TensorImpl& t, MemoryFormatKind f) {
  if (f == MemoryFormatKind::Preserve) return preserve_strides(t);
  if (f == MemoryFormatKind::Contiguous) return contiguous_strides(t.sizes());
  return channels_last_strides(t.sizes());
}

}  // namespace tn
