// _scaled_dot_product_flash_attention_for_cpu, the kernel that scaled_dot_product_attention
// (kernels/composite/attention.cpp) reaches on the CPU: q @ k^T times the scale, plus the
// additive mask, causal masking (top-left aligned tril), a safe softmax (fully masked rows give
// 0), then @ v; with upstream's output layout (the query's) and its logsumexp per row
// (max + log(sum), 0 for a fully masked row), in the op-math dtype.
// float32 runs in blocks with an online softmax, GEMMs through BLAS and the work on every
// thread (sdpa_f32; Note [Attention in blocks]); other dtypes plain loops (flash_cpu) with the
// flash kernel's arithmetic: scores and sums in the op-math dtype, the softmax weights rounded
// to the input dtype before they meet v. Neither is bit-identical to upstream's.
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "dispatch/kernel.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/parallel.h"
#include "kernels/composite/shape_util.h"
#include "kernels/cpu/vec_math.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

// k or v with its head dim (-3) as seen by the query (GQA: each kv head serves g query heads).
Dims kv_sizes(const Tensor& t, int64_t hq, bool gqa) {
  Dims s = t->sizes();
  if (gqa && t->dim() >= 3) s[s.size() - 3] = hq;
  return s;
}

struct SdpaShape {
  Dims batch;
  int64_t L, S, E, Ev, hq;
  bool gqa;
};

// _scaled_dot_product_flash_attention_for_cpu(Tensor query, Tensor key, Tensor value,
//   float dropout_p=0.0, bool is_causal=False, *, Tensor? attn_mask=None, float? scale=None)
//   -> (Tensor output, Tensor logsumexp); query (B, H, L, E), key and value (B, Hk, S, E), Hk
// dividing H (a kv head serves H / Hk query heads), as upstream's kernel checks them.
constexpr int kMaskArg = 5, kScaleArg = 6;
SdpaShape flash_check(const Call& c) {
  const Tensor &q = c.tensor(0), &k = c.tensor(1), &v = c.tensor(2);
  const Tensor* mask = c.optional_tensor(kMaskArg);
  const char* who = "scaled_dot_product_attention_flash_attention: ";
  for (int64_t d : {0, 2, 1, 3}) {  // upstream reads size(0), size(2), size(1), size(3) first
    TN_CHECK_KIND(q->dim() > 0, Index, "Dimension specified as 0 but tensor has no dimensions");
    TN_CHECK_KIND(d < q->dim(), Index, "Dimension out of range (expected to be in range of [-",
                  q->dim(), ", ", q->dim() - 1, "], but got ", d, ")");
  }
  TN_CHECK(is_floating(q->dtype()), who, "Expected data type in FP32, FP64, BF16, FP16, but got ",
           cpp_type_name(q->dtype()), " instead.");
  TN_CHECK(q->dim() == 4 && k->dim() == 4 && v->dim() == 4, who,
           "Accept only 4 dims inputs shape of {B, H, T, K}");
  TN_CHECK(c.to_double(3) == 0.0, who, "Currently do not support dropout > 0");
  TN_CHECK(q->size(3) == v->size(3) && k->size(3) == v->size(3), who,
           "Q/K/V should have the same head size");
  TN_CHECK(!mask || (*mask)->dtype() == ScalarType::Float || (*mask)->dtype() == q->dtype(), who,
           "Attention mask is the same data type as query");
  TN_CHECK(!mask || (*mask)->dim() == 2 || (*mask)->dim() == 4, who,
           "Attention mask dim in {2, 4}");
  TN_CHECK(q->dtype() == k->dtype() && q->dtype() == v->dtype(), c.key(),
           ": query, key and value must have one dtype");
  SdpaShape s;
  s.hq = q->size(1);
  int64_t hk = k->size(1), hv = v->size(1);
  TN_CHECK(hk > 0 && hk == hv && s.hq % hk == 0 && q->size(0) == k->size(0) &&
               q->size(0) == v->size(0) && k->size(2) == v->size(2), c.key(),
           ": query, key and value shapes do not fit (", dims_str(q->sizes()), ", ",
           dims_str(k->sizes()), ", ", dims_str(v->sizes()), ")");
  s.gqa = hk != s.hq;
  s.L = q->size(2), s.E = q->size(3), s.S = k->size(2), s.Ev = v->size(3);
  s.batch = {q->size(0), s.hq};
  return s;
}

// output: (B, H, L, E) in the query's layout (upstream's: a model's query, a transposed
// (B, L, H, E) projection, makes the following transpose(1, 2).contiguous() a no-op);
// logsumexp: (B, L, H) memory seen as (B, H, L), in float for the reduced floating dtypes.
void flash_rule(Call& c) {
  SdpaShape s = flash_check(c);
  const Tensor& q = c.tensor(0);
  int64_t B = s.batch[0], H = s.hq;
  Tensor out = new_on(q, {B, H, s.L, s.Ev}, q->dtype());
  out->set_sizes_strides(out->sizes(), preserve_strides(*q), 0);
  ScalarType acc = q->dtype() == ScalarType::Double ? ScalarType::Double : ScalarType::Float;
  Tensor lse = new_on(q, {B, s.L, H}, acc);
  lse->set_sizes_strides({B, H, s.L}, {s.L * H, 1, H}, 0);
  c.ret(out);
  c.ret(lse);
}

// t expanded to batch + tail; with GQA, head h reads kv head h / g (strides cannot say this,
// so the kv tensor is first repeated into a contiguous copy).
Tensor kv_view(const Tensor& t, const SdpaShape& s, Dims tail, const std::string& key) {
  Tensor src = t;
  if (s.gqa && t->size(t->dim() - 3) != s.hq) {
    int64_t h = t->dim() - 3, g = s.hq / t->size(h);
    src = empty_tensor(kv_sizes(t, s.hq, true), t->dtype(), t->device());
    Dims vs = t->sizes(), st_src = t->strides(), st_dst = src->strides();
    vs.erase(vs.begin() + h), st_src.erase(st_src.begin() + h), st_dst.erase(st_dst.begin() + h);
    for (int64_t i = 0; i < s.hq; ++i)
      copy_cast(make_view(src, vs, st_dst, i * src->stride(h)),
                make_view(t, vs, st_src, t->storage_offset() + (i / g) * t->stride(h)), key);
  }
  Dims full = s.batch;
  full.insert(full.end(), tail.begin(), tail.end());
  return expand_view(src, full);
}

// Offsets of each batch element of an expanded view (row-major over the batch dims).
std::vector<int64_t> batch_offsets(const Tensor& t, size_t nb) {
  std::vector<int64_t> offs;
  for_each_offset(Dims(t->sizes().begin(), t->sizes().begin() + nb),
                  Dims(t->strides().begin(), t->strides().begin() + nb), 0,
                  [&](int64_t o) { offs.push_back(o); });
  if (offs.empty() && nb == 0) offs.push_back(0);
  return offs;
}

// float32 in blocks, as upstream's flash kernel (Note [Attention in blocks]): a block of query
// rows meets the keys a block at a time; each row keeps its running max and sum and rescales
// its accumulated output when the max grows, so a thread holds one block's scores, never the
// L x S matrix.

// Query rows and keys of a block: upstream's (its query block follows the query length), but
// 128 query rows where upstream takes 256 (L >= 768; Note [Attention in blocks]); one block's
// scores are at most 128 x 512 floats (256 KiB).
int64_t q_split(int64_t L) { return L >= 768 ? 128 : L >= 192 ? 64 : 32; }
constexpr int64_t kKvSplit = 512;

// Passes over one row of a block's scores, in AVX-512 or AVX2 where vec::vec_width() says the
// CPU runs them (with SLEEF), else plain loops. Each element's steps are the same at every
// width (contraction off, so the steps are the ones written) and a max is exact, so the width
// changes no bit; the one sum (vec::exp_sum_f32) keeps 16 lanes at either width.
#define TN_AVX512_EXACT __attribute__((target("avx512f"), optimize("fp-contract=off")))
#define TN_AVX2_EXACT __attribute__((target("avx2,fma"), optimize("fp-contract=off")))

// With Store, x[j] = x[j] * scale (+ m[j] where m is given) for j < n, and the max of the new
// values; without, the max of x. A NaN may or may not reach the result (block_weights checks).
template <bool Store>
TN_AVX512_EXACT float scale_max16(float* x, const float* m, int64_t n, float scale) {
  const __m512 f = _mm512_set1_ps(scale);
  __m512 mx = _mm512_set1_ps(-INFINITY);
  int64_t j = 0;
  for (; j + 16 <= n; j += 16) {
    __m512 y = _mm512_loadu_ps(x + j);
    if constexpr (Store) {
      y = _mm512_mul_ps(y, f);
      if (m) y = _mm512_add_ps(y, _mm512_loadu_ps(m + j));
      _mm512_storeu_ps(x + j, y);
    }
    mx = _mm512_max_ps(mx, y);
  }
  if (j < n) {
    const __mmask16 k = static_cast<__mmask16>((1u << (n - j)) - 1);
    __m512 y = _mm512_maskz_loadu_ps(k, x + j);
    if constexpr (Store) {
      y = _mm512_mul_ps(y, f);
      if (m) y = _mm512_add_ps(y, _mm512_maskz_loadu_ps(k, m + j));
      _mm512_mask_storeu_ps(x + j, k, y);
    }
    mx = _mm512_mask_max_ps(mx, k, mx, y);
  }
  return _mm512_reduce_max_ps(mx);
}
template <bool Store>
TN_AVX2_EXACT float scale_max8(float* x, const float* m, int64_t n, float scale) {
  const __m256 f = _mm256_set1_ps(scale), lowest = _mm256_set1_ps(-INFINITY);
  __m256 mx = lowest;
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    __m256 y = _mm256_loadu_ps(x + j);
    if constexpr (Store) {
      y = _mm256_mul_ps(y, f);
      if (m) y = _mm256_add_ps(y, _mm256_loadu_ps(m + j));
      _mm256_storeu_ps(x + j, y);
    }
    mx = _mm256_max_ps(mx, y);
  }
  if (j < n) {
    const __m256i k = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n - j)),
                                         _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    __m256 y = _mm256_maskload_ps(x + j, k);
    if constexpr (Store) {
      y = _mm256_mul_ps(y, f);
      if (m) y = _mm256_add_ps(y, _mm256_maskload_ps(m + j, k));
      _mm256_maskstore_ps(x + j, k, y);
    }
    mx = _mm256_max_ps(mx, _mm256_blendv_ps(lowest, y, _mm256_castsi256_ps(k)));
  }
  alignas(32) float lane[8];
  _mm256_store_ps(lane, mx);
  float r = lane[0];
  for (int l = 1; l < 8; ++l) r = std::max(r, lane[l]);
  return r;
}
template <bool Store>
float scale_max1(float* x, const float* m, int64_t n, float scale) {
  float r = -INFINITY;
  for (int64_t j = 0; j < n; ++j) {
    float y = x[j];
    if constexpr (Store) {
      y = y * scale;
      if (m) y = y + m[j];
      x[j] = y;
    }
    r = std::max(r, y);
  }
  return r;
}
template <bool Store>
float scale_max(int width, float* x, const float* m, int64_t n, float scale) {
  return width == 16  ? scale_max16<Store>(x, m, n, scale)
         : width == 8 ? scale_max8<Store>(x, m, n, scale)
                      : scale_max1<Store>(x, m, n, scale);
}

// y[j] = x[j] * f for j < n (y may be x): an accumulator rescaled, or the output divided.
TN_AVX2_EXACT void mul8(const float* x, float f, float* y, int64_t n) {
  const __m256 fv = _mm256_set1_ps(f);
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) _mm256_storeu_ps(y + j, _mm256_mul_ps(_mm256_loadu_ps(x + j), fv));
  for (; j < n; ++j) y[j] = x[j] * f;
}
void mul(int width, const float* x, float f, float* y, int64_t n) {
  if (width != 0) return mul8(x, f, y, n);
  for (int64_t j = 0; j < n; ++j) y[j] = x[j] * f;
}
#undef TN_AVX512_EXACT
#undef TN_AVX2_EXACT

// x[j] = exp(x[j] * scale - mx) for j < n, returning their sum: vec::exp_sum_f32 (its SLEEF
// exp), or its steps with std::exp where the CPU has no vector width (the same 16 lanes).
float exp_sum(int width, float* x, int64_t n, float scale, float mx) {
  if (width != 0) return vec::exp_sum_f32(x, n, scale, mx);
  float lane[16] = {};
  for (int64_t j = 0; j < n; ++j) {
    x[j] = std::exp(x[j] * scale - mx);
    lane[j % 16] += x[j];
  }
  float r = lane[0];
  for (int l = 1; l < 16; ++l) r += lane[l];
  return r;
}

// The operands of one float32 call: element pointers and strides of q (B, H, L, E), k and v
// (B, H / groups, S, E or Ev), the mask expanded to (B, H, L, S) (null without one), out
// (B, H, L, Ev) and lse (B, H, L).
struct FlashF32 {
  const float *q, *k, *v, *mask;
  float *out, *lse;
  int64_t H, groups, L, S, E, Ev, q_block;
  int64_t qs[4], ks[4], vs[4], ms[4], os[4], ls[3];
  float scale;
  bool causal;
  bool hidden_zero;  // a finite positive scale and no mask: -inf scores stay -inf, weight 0
  int width;  // vec::vec_width(): 16, 8, or 0 for the plain loops
};

// One thread's scratch: a block's scores (q_block x kKvSplit), its rows' running max and sum,
// their accumulated outputs (q_block x Ev), and a mask row gathered when its keys are strided.
struct FlashScratch {
  std::unique_ptr<float[]> buf;
  float *qk, *mx, *sum, *dst, *mrow;
  explicit FlashScratch(const FlashF32& a) {
    const int64_t qb = a.q_block;
    buf.reset(new float[qb * kKvSplit + 2 * qb + qb * a.Ev + kKvSplit]);
    qk = buf.get(), mx = qk + qb * kKvSplit, sum = mx + qb, dst = sum + qb;
    mrow = dst + qb * a.Ev;
  }
};

// The mask's values for query row i, keys n .. n + kb of head (b, h), as a contiguous row.
const float* mask_row(const FlashF32& a, int64_t b, int64_t h, int64_t i, int64_t n,
                      int64_t kb, float* gather) {
  const float* p = a.mask + b * a.ms[0] + h * a.ms[1] + i * a.ms[2] + n * a.ms[3];
  if (a.ms[3] == 1) return p;
  for (int64_t j = 0; j < kb; ++j) gather[j] = p[j * a.ms[3]];
  return gather;
}

// Scores of rows m .. m + qb against keys n .. n + kb, in w.qk (qb x kb), made into weights:
// the causal mask, scale and mask, then the online softmax step: the new max, exp(score - max)
// summed into the row's sum, and the row's accumulated output rescaled by exp(old max - new
// max). A row whose scores are all -inf so far gets weights 0 and keeps its state; a NaN score
// makes its row NaN, as upstream's max does.
// Upstream writes -inf past a row's diagonal before the scale (so a scale <= 0 makes those rows
// NaN, as ours do). With a finite positive scale and no mask, those keys' weights are exactly 0
// and only the keys a row sees are exponentiated; the scale is then applied inside exp_sum, the
// max taken before it (rounding is monotonic: max(round(x scale)) = round(max(x) scale)).
void block_weights(const FlashF32& a, int64_t b, int64_t h, int64_t m, int64_t qb, int64_t n,
                   int64_t kb, FlashScratch& w) {
  const bool late = a.hidden_zero;  // the scale goes inside exp_sum
  for (int64_t r = 0; r < qb; ++r) {
    float* s = w.qk + r * kb;
    const int64_t seen = a.causal ? std::clamp<int64_t>(m + r - n + 1, 0, kb) : kb;
    const int64_t len = late ? seen : kb;
    std::fill(s + seen, s + kb, late ? 0.f : -INFINITY);
    float bmax;
    if (late) {
      bmax = scale_max<false>(a.width, s, nullptr, len, 1.f) * a.scale;
    } else {
      const float* mrow = a.mask ? mask_row(a, b, h, m + r, n, kb, w.mrow) : nullptr;
      bmax = scale_max<true>(a.width, s, mrow, len, a.scale);
    }
    if (bmax == -INFINITY && std::any_of(s, s + len, [](float x) { return std::isnan(x); }))
      bmax = NAN;
    const float mx = w.mx[r] > bmax ? w.mx[r] : bmax;
    if (mx == -INFINITY) {
      std::fill(s, s + len, 0.f);
      continue;
    }
    const float bsum = exp_sum(a.width, s, len, late ? a.scale : 1.f, mx);
    const float alpha = std::exp(w.mx[r] - mx);
    w.sum[r] = bsum + alpha * w.sum[r];
    w.mx[r] = mx;
    if (n > 0) mul(a.width, w.dst + r * a.Ev, alpha, w.dst + r * a.Ev, a.Ev);
  }
}

// Whether rows lo .. hi of one head's values (strides vs[2], vs[3]) are all finite.
bool finite_rows(const float* v, const int64_t* vs, int64_t lo, int64_t hi, int64_t Ev) {
  for (int64_t j = lo; j < hi; ++j) {
    const float* row = v + j * vs[2];
    float acc = 0.f;  // x * 0 is 0 for a finite x and NaN for an inf or NaN one
    for (int64_t e = 0; e < Ev; ++e) acc += row[e * vs[3]] * 0.f;
    if (acc != 0.f) return false;
  }
  return true;
}

// Query rows m .. m + qb of head (b, h): every key block up to the causal diagonal, two GEMMs
// each (upstream's: q . k^T, then weights . v added into the accumulated output), then the
// output divided by each row's sum and the logsumexp (max + log(sum); 0 for a row masked
// throughout, whose output is 0).
void flash_rows(const FlashF32& a, int64_t b, int64_t h, int64_t m, FlashScratch& w) {
  const int64_t qb = std::min(a.q_block, a.L - m), hk = h / a.groups;
  const float* q = a.q + b * a.qs[0] + h * a.qs[1] + m * a.qs[2];
  const float* k = a.k + b * a.ks[0] + hk * a.ks[1];
  const float* v = a.v + b * a.vs[0] + hk * a.vs[1];
  std::fill(w.mx, w.mx + qb, -INFINITY);
  std::fill(w.sum, w.sum + qb, 0.f);
  const int64_t keys = a.causal ? std::min(m + qb, a.S) : a.S;
  // Causal: keys past the block's last row carry weight 0 for every row, so where that weight
  // is exactly 0 (hidden_zero) they are not computed; upstream takes the whole key block. The
  // two differ only where a value row of those keys holds an inf or NaN (upstream's 0 x inf
  // makes its output rows NaN): then the whole block is taken, as upstream takes it.
  int64_t end = a.S;
  if (a.causal && a.hidden_zero) {
    const int64_t block_end = std::min(a.S, (keys + kKvSplit - 1) / kKvSplit * kKvSplit);
    end = finite_rows(v, a.vs, keys, block_end, a.Ev) ? keys : a.S;
  }
  for (int64_t n = 0; n < keys; n += kKvSplit) {
    const int64_t kb = std::min(kKvSplit, end - n);
    gemm<float>(qb, kb, a.E, MatRef{q, a.qs[2], a.qs[3]},
                MatRef{k + n * a.ks[2], a.ks[3], a.ks[2]}, w.qk, 1.0, 0.0);
    block_weights(a, b, h, m, qb, n, kb, w);
    gemm<float>(qb, a.Ev, kb, MatRef{w.qk, kb, 1}, MatRef{v + n * a.vs[2], a.vs[2], a.vs[3]},
                w.dst, 1.0, n == 0 ? 0.0 : 1.0);
  }
  for (int64_t r = 0; r < qb; ++r) {
    const float mx = w.mx[r] == -INFINITY ? 0.f : w.mx[r];
    const float sum = w.sum[r] == 0.f ? 1.f : w.sum[r];
    const float inv = 1.f / sum;
    float* o = a.out + b * a.os[0] + h * a.os[1] + (m + r) * a.os[2];
    if (a.os[3] == 1)
      mul(a.width, w.dst + r * a.Ev, inv, o, a.Ev);
    else
      for (int64_t e = 0; e < a.Ev; ++e) o[e * a.os[3]] = w.dst[r * a.Ev + e] * inv;
    a.lse[b * a.ls[0] + h * a.ls[1] + (m + r) * a.ls[2]] = mx + std::log(sum);
  }
}

// The float32 kernel: (batch, head, query block) items split between the threads as
// upstream's parallel_for splits them, each thread with its own scratch.
void sdpa_f32(const SdpaShape& s, const Tensor& q, const Tensor& k, const Tensor& v,
              const Tensor* mask, bool causal, double scale, const Tensor& out, const Tensor& lse,
              const std::string& key) {
  FlashF32 a{};
  a.q = data_of<float>(q, key), a.k = data_of<float>(k, key), a.v = data_of<float>(v, key);
  a.mask = mask ? data_of<float>(*mask, key) : nullptr;
  a.out = data_of<float>(out, key), a.lse = data_of<float>(lse, key);
  a.H = s.hq, a.groups = s.hq / k->size(1), a.L = s.L, a.S = s.S, a.E = s.E, a.Ev = s.Ev;
  a.q_block = std::min(q_split(s.L), s.L);
  for (int d = 0; d < 4; ++d) {
    a.qs[d] = q->stride(d), a.ks[d] = k->stride(d), a.vs[d] = v->stride(d);
    a.os[d] = out->stride(d), a.ms[d] = mask ? (*mask)->stride(d) : 0;
    if (d < 3) a.ls[d] = lse->stride(d);
  }
  a.scale = static_cast<float>(scale), a.causal = causal, a.width = vec::vec_width();
  a.hidden_zero = !mask && a.scale > 0 && std::isfinite(a.scale);
  const int64_t blocks = (s.L + a.q_block - 1) / a.q_block, B = s.batch[0];
  parallel_for(0, B * s.hq * blocks, 1, [&](int64_t lo, int64_t hi) {
    FlashScratch w(a);
    for (int64_t z = lo; z < hi; ++z)
      flash_rows(a, z / (s.hq * blocks), z / blocks % s.hq, z % blocks * a.q_block, w);
  });
}

void flash_cpu(Call& c) {
  const std::string& key = c.key();
  SdpaShape s = flash_check(c);
  size_t nb = s.batch.size();
  Tensor q = c.tensor(0);
  const Tensor* m0 = c.optional_tensor(kMaskArg);
  TN_CHECK_KIND(!m0 || (*m0)->dtype() == q->dtype(), NotImplemented, key, " with an attn_mask "
                "of dtype ", name((*m0)->dtype()), " for a query of dtype ", name(q->dtype()),
                " is not implemented by torchnative");
  Tensor mask = m0 ? kv_view(*m0, {s.batch, 0, 0, 0, 0, false}, {s.L, s.S}, key) : Tensor();
  double scale = c.arg(kScaleArg).is_none() ? 1.0 / std::sqrt(static_cast<double>(s.E))
                                            : c.to_double(kScaleArg);
  bool causal = c.to_bool(4);
  const Tensor& out = c.results[0].tensor;
  const Tensor& lse = c.results[1].tensor;
  if (q->dtype() == ScalarType::Float && s.L * s.S > 0)
    return sdpa_f32(s, q, c.tensor(1), c.tensor(2), m0 ? &mask : nullptr, causal, scale, out,
                    lse, key);
  Tensor k = kv_view(c.tensor(1), s, {s.S, s.E}, key);
  Tensor v = kv_view(c.tensor(2), s, {s.S, s.Ev}, key);
  auto qo = batch_offsets(q, nb), ko = batch_offsets(k, nb), vo = batch_offsets(v, nb);
  auto mo = m0 ? batch_offsets(mask, nb) : std::vector<int64_t>(qo.size(), 0);
  auto oo = batch_offsets(out, nb), lo = batch_offsets(lse, nb);
  dispatch_dtype(q->dtype(), key, [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    if constexpr (std::is_floating_point_v<A>) {
      const T *pq = data_of<T>(q, key), *pk = data_of<T>(k, key), *pv = data_of<T>(v, key);
      T* po = data_of<T>(out, key);
      A* pl = data_of<A>(lse, key);
      const void* pm = m0 ? mask->dense_cpu_data(key.c_str()) : nullptr;
      const A scl = static_cast<A>(scale);
      std::vector<A> p(s.S);
      for (size_t b = 0; b < qo.size(); ++b) {
        for (int64_t i = 0; i < s.L; ++i) {
          A mx = -INFINITY;
          for (int64_t j = 0; j < s.S; ++j) {
            A dot = 0;
            for (int64_t e = 0; e < s.E; ++e)
              dot += A(pq[qo[b] + i * q->stride(nb) + e * q->stride(nb + 1)]) *
                     A(pk[ko[b] + j * k->stride(nb) + e * k->stride(nb + 1)]);
            A sc = dot * scl;
            int64_t mi = m0 ? mo[b] + i * mask->stride(nb) + j * mask->stride(nb + 1) : 0;
            if (causal && j > i) sc = -INFINITY;
            if (m0) sc += A(static_cast<const T*>(pm)[mi]);
            p[j] = sc;
            mx = std::max(mx, sc);
          }
          // A fully masked row: max 0 and sum 1, so its output is 0 and its logsumexp 0.
          const A m = mx == -INFINITY ? A(0) : mx;
          A sum = 0;
          for (int64_t j = 0; j < s.S; ++j) {
            A e = std::exp(p[j] - m);
            sum += e;
            p[j] = A(T(e));  // upstream multiplies v by the weights in the input dtype
          }
          if (sum == 0) sum = 1;
          pl[lo[b] + i * lse->stride(nb)] = m + std::log(sum);
          const A inv = A(1) / sum;
          for (int64_t e = 0; e < s.Ev; ++e) {
            A acc = 0;
            for (int64_t j = 0; j < s.S; ++j)
              acc += p[j] * A(pv[vo[b] + j * v->stride(nb) + e * v->stride(nb + 1)]);
            po[oo[b] + i * out->stride(nb) + e] = T(acc * inv);
          }
        }
      }
    }
  });
}
TN_REGISTER_STRUCTURED("aten::_scaled_dot_product_flash_attention_for_cpu", flash_rule, flash_cpu);

}  // namespace
}  // namespace tn
