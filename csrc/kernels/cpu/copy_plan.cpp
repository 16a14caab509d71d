// The planned same-dtype copy of copy_plan.h (Note [Permuted copies]): rows by memcpy, a tiled
// transpose, or words along the innermost dim. Not for dtype conversions (copy.cpp).
#include "kernels/cpu/copy_plan.h"

#include <algorithm>
#include <cstring>

#include <emmintrin.h>

#include "kernels/cpu/parallel.h"

namespace tn {

namespace {

struct Words16 {  // a complex128
  uint64_t w[2];
};

// See Note [Permuted copies] (docs/DESIGN_NOTES.md). The plan: size-1 dims dropped, the rest
// ordered as dst lies in memory (largest dst stride first, so the writes stream), neighbours
// contiguous in both merged, as TensorIterator coalesces. Its innermost dim has dst stride 1.

// One dim of a planned copy: its size and both strides, in elements.
struct CopyDim {
  int64_t size, dst, src;
};

// The plan of Note [Permuted copies]; ok is false where it does not apply (one storage, a dst
// that is not dense, more dims than kMaxDims).
struct CopyPlan {
  static constexpr int kMaxDims = 16;
  CopyDim dims[kMaxDims];
  int nd = 0;
  bool ok = false;
};

CopyPlan plan_copy(const Tensor& dst, const Tensor& src) {
  CopyPlan p;
  if (dst->storage() == src->storage()) return p;
  for (int64_t d = 0; d < dst->dim(); ++d) {
    if (dst->size(d) == 1) continue;
    if (p.nd == CopyPlan::kMaxDims) return p;
    CopyDim c{dst->size(d), dst->stride(d), src->stride(d)};
    int i = p.nd++;  // insertion sort by dst stride, largest first; stable for ties
    for (; i > 0 && p.dims[i - 1].dst < c.dst; --i) p.dims[i] = p.dims[i - 1];
    p.dims[i] = c;
  }
  int64_t want = 1;  // dst must be dense in this order: each stride the product of those inside
  for (int i = p.nd - 1; i >= 0; --i) {
    if (p.dims[i].dst != want) return p;
    want *= p.dims[i].size;
  }
  int out = 0;
  for (int i = 0; i < p.nd; ++i) {  // merge dims[i] into the previous kept dim where both allow
    CopyDim c = p.dims[i];
    if (out > 0) {
      CopyDim& o = p.dims[out - 1];
      if (o.src == c.src * c.size && o.dst == c.dst * c.size) {
        o = CopyDim{o.size * c.size, c.dst, c.src};
        continue;
      }
    }
    p.dims[out++] = c;
  }
  p.nd = out;
  p.ok = true;
  return p;
}

// An odometer over the dims [0, n) of a plan but one skipped: the dst and src offsets of the
// outer index it is set to, advanced one step at a time without a division.
struct Odometer {
  const CopyDim* dims;
  int n, skip;
  int64_t idx[CopyPlan::kMaxDims] = {};
  int64_t d = 0, s = 0;

  Odometer(const CopyDim* dims_, int n_, int skip_, int64_t linear)
      : dims(dims_), n(n_), skip(skip_) {
    for (int i = n - 1; i >= 0; --i) {
      if (i == skip) continue;
      idx[i] = linear % dims[i].size;
      linear /= dims[i].size;
      d += idx[i] * dims[i].dst;
      s += idx[i] * dims[i].src;
    }
  }
  void next() {
    for (int i = n - 1; i >= 0; --i) {
      if (i == skip) continue;
      d += dims[i].dst;
      s += dims[i].src;
      if (++idx[i] < dims[i].size) return;
      d -= dims[i].size * dims[i].dst;
      s -= dims[i].size * dims[i].src;
      idx[i] = 0;
    }
  }
};

// Product of the sizes of dims [0, n) but skip.
int64_t outer_count(const CopyPlan& p, int n, int skip) {
  int64_t c = 1;
  for (int i = 0; i < n; ++i)
    if (i != skip) c *= p.dims[i].size;
  return c;
}

// Splits `units` pieces of work of `per_unit` elements each between threads above the grain.
template <typename F>
void split_units(int64_t units, int64_t per_unit, const F& f) {
  parallel_for(0, units, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, per_unit)), f);
}

// Every row of the innermost dim, contiguous on both sides: one memcpy each.
void copy_rows(const CopyPlan& p, char* d, const char* s, int64_t item) {
  const int last = p.nd - 1;
  const int64_t row = p.dims[last].size;
  const size_t bytes = static_cast<size_t>(row * item);
  split_units(outer_count(p, last, -1), row, [&](int64_t b, int64_t e) {
    Odometer o(p.dims, last, -1, b);
    for (int64_t r = b; r < e; ++r, o.next())
      std::memcpy(d + o.d * item, s + o.s * item, bytes);
  });
}

// Words along the innermost dim, src strided.
template <typename W>
void copy_strided_rows(const CopyPlan& p, char* d, const char* s) {
  W* dw = reinterpret_cast<W*>(d);
  const W* sw = reinterpret_cast<const W*>(s);
  const int last = p.nd - 1;
  const int64_t row = p.dims[last].size, ss = p.dims[last].src;
  split_units(outer_count(p, last, -1), row, [&](int64_t b, int64_t e) {
    Odometer o(p.dims, last, -1, b);
    for (int64_t r = b; r < e; ++r, o.next()) {
      W* dr = dw + o.d;
      const W* sr = sw + o.s;
      for (int64_t j = 0; j < row; ++j) dr[j] = sr[j * ss];
    }
  });
}

// A tile's side: 64 x 64 float32 (16 KiB of src and of dst, in L1). At 1 thread, ours / upstream
// on a loaded machine, (1024, 3072).t().contiguous(): float32 0.40 [0.30-1.04] at 256 bytes,
// 0.58 [0.21-0.66] at 128; float16 0.32 against 0.58; float64 1.21 against 1.09 (noise).
constexpr int64_t kTileBytes = 256;

// dst[a * dk + j] = src[a + j * sj] over the tile [k0, k1) x [j0, j1), element by element.
template <typename W>
void transpose_words(W* d, int64_t dk, const W* s, int64_t sj, int64_t k0, int64_t k1,
                     int64_t j0, int64_t j1) {
  for (int64_t a = k0; a < k1; ++a)
    for (int64_t j = j0; j < j1; ++j) d[a * dk + j] = s[a + j * sj];
}

// One tile of copy_transpose: element by element but for 2-, 4- and 8-byte words (below).
template <typename W>
void transpose_tile(W* d, int64_t dk, const W* s, int64_t sj, int64_t k0, int64_t k1,
                    int64_t j0, int64_t j1) {
  transpose_words(d, dk, s, sj, k0, k1, j0, j1);
}

// The tile in B x B blocks, block(dst, src) moving one (16-byte vectors: B words of each of B
// columns loaded, unpacked, stored as B rows), the ragged edges element by element. SSE2
// integer unpacks move bits, so NaN payloads stay; GCC -O2 leaves the element loop scalar, one
// load and one store a word. (1024, 3072).t().contiguous() at 1 thread, ours / upstream on a
// loaded machine: 0.63 [0.49-0.66] with 4 x 4 blocks, 1.01 [0.57-1.75] element by element.
template <int B, typename W, typename Block>
void transpose_blocks(W* d, int64_t dk, const W* s, int64_t sj, int64_t k0, int64_t k1,
                      int64_t j0, int64_t j1, const Block& block) {
  int64_t a = k0;
  for (; a + B <= k1; a += B) {
    int64_t j = j0;
    for (; j + B <= j1; j += B) block(d + a * dk + j, s + a + j * sj);
    transpose_words(d, dk, s, sj, a, a + B, j, j1);
  }
  transpose_words(d, dk, s, sj, a, k1, j0, j1);
}

inline __m128i load16(const void* p) { return _mm_loadu_si128(static_cast<const __m128i*>(p)); }
inline void store16(void* p, __m128i v) { _mm_storeu_si128(static_cast<__m128i*>(p), v); }

void transpose_tile(uint16_t* d, int64_t dk, const uint16_t* s, int64_t sj, int64_t k0,
                    int64_t k1, int64_t j0, int64_t j1) {
  transpose_blocks<8>(d, dk, s, sj, k0, k1, j0, j1, [=](uint16_t* db, const uint16_t* sb) {
    __m128i c[8], t[8], u[8];  // columns j .. j + 7 of rows a .. a + 7; pairs; quads
    for (int i = 0; i < 8; ++i) c[i] = load16(sb + i * sj);
    for (int i = 0; i < 4; ++i) {
      t[i] = _mm_unpacklo_epi16(c[2 * i], c[2 * i + 1]);      // rows a .. a + 3
      t[i + 4] = _mm_unpackhi_epi16(c[2 * i], c[2 * i + 1]);  // rows a + 4 .. a + 7
    }
    for (int h = 0; h < 8; h += 4) {
      u[h] = _mm_unpacklo_epi32(t[h], t[h + 1]);      // rows +0, +1 of columns 0 .. 3
      u[h + 1] = _mm_unpackhi_epi32(t[h], t[h + 1]);  // rows +2, +3 of columns 0 .. 3
      u[h + 2] = _mm_unpacklo_epi32(t[h + 2], t[h + 3]);  // the same of columns 4 .. 7
      u[h + 3] = _mm_unpackhi_epi32(t[h + 2], t[h + 3]);
    }
    for (int h = 0; h < 8; h += 4) {
      store16(db + (h + 0) * dk, _mm_unpacklo_epi64(u[h], u[h + 2]));
      store16(db + (h + 1) * dk, _mm_unpackhi_epi64(u[h], u[h + 2]));
      store16(db + (h + 2) * dk, _mm_unpacklo_epi64(u[h + 1], u[h + 3]));
      store16(db + (h + 3) * dk, _mm_unpackhi_epi64(u[h + 1], u[h + 3]));
    }
  });
}

void transpose_tile(uint32_t* d, int64_t dk, const uint32_t* s, int64_t sj, int64_t k0,
                    int64_t k1, int64_t j0, int64_t j1) {
  transpose_blocks<4>(d, dk, s, sj, k0, k1, j0, j1, [=](uint32_t* db, const uint32_t* sb) {
    __m128i c0 = load16(sb), c1 = load16(sb + sj), c2 = load16(sb + 2 * sj),
            c3 = load16(sb + 3 * sj);  // columns j .. j + 3 of rows a .. a + 3
    __m128i lo01 = _mm_unpacklo_epi32(c0, c1), lo23 = _mm_unpacklo_epi32(c2, c3);
    __m128i hi01 = _mm_unpackhi_epi32(c0, c1), hi23 = _mm_unpackhi_epi32(c2, c3);
    store16(db, _mm_unpacklo_epi64(lo01, lo23));
    store16(db + dk, _mm_unpackhi_epi64(lo01, lo23));
    store16(db + 2 * dk, _mm_unpacklo_epi64(hi01, hi23));
    store16(db + 3 * dk, _mm_unpackhi_epi64(hi01, hi23));
  });
}

void transpose_tile(uint64_t* d, int64_t dk, const uint64_t* s, int64_t sj, int64_t k0,
                    int64_t k1, int64_t j0, int64_t j1) {
  transpose_blocks<2>(d, dk, s, sj, k0, k1, j0, j1, [=](uint64_t* db, const uint64_t* sb) {
    __m128i c0 = load16(sb), c1 = load16(sb + sj);  // columns j, j + 1 of rows a, a + 1
    store16(db, _mm_unpacklo_epi64(c0, c1));
    store16(db + dk, _mm_unpackhi_epi64(c0, c1));
  });
}

// The transpose of Note [Permuted copies]: dim k (src stride 1) against the innermost dim j
// (dst stride 1). A unit of work is one band of tile rows of k at one outer index.
template <typename W>
void copy_transpose(const CopyPlan& p, int k, char* d, const char* s) {
  constexpr int64_t kTile = std::max<int64_t>(8, kTileBytes / sizeof(W));
  W* dw = reinterpret_cast<W*>(d);
  const W* sw = reinterpret_cast<const W*>(s);
  const int last = p.nd - 1;
  const int64_t nk = p.dims[k].size, dk = p.dims[k].dst;
  const int64_t nj = p.dims[last].size, sj = p.dims[last].src;
  const int64_t bands = (nk + kTile - 1) / kTile;
  const int64_t per_band = std::min(kTile, nk) * nj;
  split_units(outer_count(p, last, k) * bands, per_band, [&](int64_t b, int64_t e) {
    Odometer o(p.dims, last, k, b / bands);
    for (int64_t u = b; u < e; ++u) {
      const int64_t band = u % bands;
      if (u != b && band == 0) o.next();
      const int64_t k0 = band * kTile, k1 = std::min(nk, k0 + kTile);
      W* dt = dw + o.d;
      const W* st = sw + o.s;
      for (int64_t j0 = 0; j0 < nj; j0 += kTile) {
        const int64_t j1 = std::min(nj, j0 + kTile);
        transpose_tile(dt, dk, st, sj, k0, k1, j0, j1);
      }
    }
  });
}

template <typename W>
void copy_planned_words(const CopyPlan& p, char* d, const char* s) {
  const int last = p.nd - 1;
  int k = -1;  // the dim src walks with stride 1, when it is not the innermost
  for (int i = 0; i < last && p.dims[last].src != 1; ++i)
    if (p.dims[i].src == 1) k = i;
  if (k >= 0 && p.dims[k].size >= 8 && p.dims[last].size >= 8)
    return copy_transpose<W>(p, k, d, s);
  copy_strided_rows<W>(p, d, s);
}

}  // namespace

bool copy_planned(const Tensor& dst, const Tensor& src, char* d, const char* s) {
  const CopyPlan p = plan_copy(dst, src);
  if (!p.ok) return false;
  const int64_t item = dst->itemsize();
  if (p.nd == 0) {
    std::memcpy(d, s, static_cast<size_t>(item));
    return true;
  }
  if (p.dims[p.nd - 1].src == 1 && p.dims[p.nd - 1].size * item >= 64) {
    copy_rows(p, d, s, item);  // shorter rows go by words: a memcpy call costs more than they
    return true;
  }
  switch (item) {
    case 1: copy_planned_words<uint8_t>(p, d, s); return true;
    case 2: copy_planned_words<uint16_t>(p, d, s); return true;
    case 4: copy_planned_words<uint32_t>(p, d, s); return true;
    case 8: copy_planned_words<uint64_t>(p, d, s); return true;
    case 16: copy_planned_words<Words16>(p, d, s); return true;
    default: return false;
  }
}

}  // namespace tn
