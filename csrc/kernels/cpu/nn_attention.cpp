// _scaled_dot_product_flash_attention_for_cpu, the kernel that scaled_dot_product_attention
// (kernels/composite/attention.cpp) reaches on the CPU: q*sqrt(s) @ (k*sqrt(s))^T, plus the
// additive mask, causal masking (top-left aligned tril), a safe softmax (fully masked rows give
// 0), then @ v; with upstream's output layout (the query's) and its logsumexp per row
// (max + log(sum), 0 for a fully masked row), in the op-math dtype.
// float32 has its own vectorised path (sdpa_f32: the math path's arithmetic, q and k each scaled
// by sqrt(scale)); other dtypes plain loops (flash_cpu) with the flash kernel's: scores and
// sums in the op-math dtype, the softmax weights rounded to the input dtype before they meet v.
// Upstream's flash kernel sums in blocks, so neither is bit-identical.
#include <algorithm>
#include <cmath>
#include <vector>

#include "dispatch/kernel.h"
#include "kernels/cpu/cpu_util.h"
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
  TN_CHECK(!mask || (*mask)->dtype() == ScalarType::Bool || (*mask)->dtype() == ScalarType::Float ||
               (*mask)->dtype() == q->dtype(), who,
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

constexpr int kBlock = 16;  // lanes of the vectorised loops below
int64_t padded(int64_t n) { return (n + kBlock - 1) / kBlock * kBlock; }

// Safe softmax of each of the L rows of p (L x ld, S used, ld a multiple of kBlock) in place:
// exp(x - row max), divided by the row's sum taken in order; a row that is -inf throughout gives
// 0; columns from S to ld are left 0. exp is SLEEF's expf u10 (vec_math.h; upstream's
// vectorised softmax uses the same), std::exp without it, over the whole buffer at once. The
// rows' sums run side by side (each in its own order): one row's chain of dependent adds alone
// was a fifth of the kernel's time.
// Each row's logsumexp (max + log(sum), 0 for a dead row, as upstream's flash kernel) goes to
// lse[i * lse_stride].
void softmax_rows_f32(float* p, int64_t L, int64_t S, int64_t ld, float* lse, int64_t lse_stride) {
  std::vector<float> row_max(static_cast<size_t>(L));
  std::vector<char> dead(static_cast<size_t>(L));
  for (int64_t i = 0; i < L; ++i) {
    float* r = p + i * ld;
    float mx = -INFINITY;
    for (int64_t j = 0; j < S; ++j) mx = std::max(mx, r[j]);
    dead[i] = mx == -INFINITY;
    row_max[i] = dead[i] ? 0.f : mx;
    for (int64_t j = 0; j < S; ++j) r[j] = dead[i] ? -INFINITY : r[j] - mx;
    for (int64_t j = S; j < ld; ++j) r[j] = -INFINITY;
  }
  if (vec::vec_width() != 0)
    vec::exp_f32(p, p, L * ld);
  else
    for (int64_t j = 0; j < L * ld; ++j) p[j] = std::exp(p[j]);
  std::vector<float> sum(static_cast<size_t>(L), 0.f);
  for (int64_t j = 0; j < S; ++j)
    for (int64_t i = 0; i < L; ++i) sum[i] += p[i * ld + j];
  for (int64_t i = 0; i < L; ++i) {
    float* r = p + i * ld;
    const float si = dead[i] ? 1.f : sum[i];  // a dead row is 0 throughout already
    lse[i * lse_stride] = row_max[i] + std::log(si);
    for (int64_t j0 = 0; j0 < ld; j0 += kBlock)
      for (int j = 0; j < kBlock; ++j) r[j0 + j] /= si;
  }
}

// out[c] = sum over t < n, in order, of a[t * as] * m[t * ld + c], for c < kBlock: one block
// of columns of a (1 x n) . (n x ld) product, for CPUs without vec::matmul_rows_f32 (same
// arithmetic, so the same bits; GCC -O2 vectorises over c, each sum still runs over t in order).
inline void dot_block(const float* a, int64_t as, const float* __restrict m, int64_t ld,
                      int64_t n, float* __restrict out) {
  float acc[kBlock] = {};
  for (int64_t t = 0; t < n; ++t) {
    const float at = a[t * as];
    for (int c = 0; c < kBlock; ++c) acc[c] += at * m[t * ld + c];
  }
  for (int c = 0; c < kBlock; ++c) out[c] = acc[c];
}

// float32, the math path's arithmetic: scores = (q sqrt(scale)) . (k sqrt(scale)) summed over
// the head dim in order, the masks, a safe softmax (softmax_rows_f32), out = sum over keys in
// order of p * v, all in float without fused steps; the loops are turned so that the vector
// lanes run over keys (scores) and over the value dim (out). BLAS (tn::gemm) was measured
// first: its own summation order took ours past upstream's own error, element by element, on
// the GQA case of tests/ops/test_reductions.py, which this order passes (upstream's CPU default
// for float32 is a flash kernel, not bit-identical either).
void sdpa_f32(const SdpaShape& s, size_t nb, const Tensor& q, const Tensor& k, const Tensor& v,
              const Tensor* mask, bool causal, double scale, const Tensor& out, const Tensor& lse,
              const std::string& key) {
  auto qo = batch_offsets(q, nb), ko = batch_offsets(k, nb), vo = batch_offsets(v, nb);
  auto mo = mask ? batch_offsets(*mask, nb) : std::vector<int64_t>(qo.size(), 0);
  const float *pq = data_of<float>(q, key), *pk = data_of<float>(k, key);
  const float* pv = data_of<float>(v, key);
  float* po = data_of<float>(out, key);
  float* pl = data_of<float>(lse, key);
  auto oo = batch_offsets(out, nb), lo = batch_offsets(lse, nb);
  const int64_t os0 = out->stride(nb), ls0 = lse->stride(nb);
  bool mbool = mask && (*mask)->dtype() == ScalarType::Bool;
  const void* pm = mask ? (*mask)->dense_cpu_data(key.c_str()) : nullptr;
  const float sq = static_cast<float>(std::sqrt(scale));
  const int64_t Sp = padded(s.S), Evp = padded(s.Ev);
  const int64_t qs0 = q->stride(nb), qs1 = q->stride(nb + 1), ks0 = k->stride(nb);
  const int64_t ks1 = k->stride(nb + 1), vs0 = v->stride(nb), vs1 = v->stride(nb + 1);
  std::vector<float> kt(static_cast<size_t>(s.E * Sp));   // E x Sp: k * sqrt(scale), transposed
  std::vector<float> vp(static_cast<size_t>(s.S * Evp));  // S x Evp: v, rows padded
  std::vector<float> p(static_cast<size_t>(s.L * Sp));    // L x Sp: scores, then probabilities
  std::vector<float> o(static_cast<size_t>(s.L * Evp));   // L x Evp: out, rows padded
  std::vector<float> qsc(static_cast<size_t>(s.L * s.E));  // L x E: q * sqrt(scale)
  for (size_t b = 0; b < qo.size(); ++b) {
    for (int64_t j = 0; j < s.S; ++j)
      for (int64_t e = 0; e < s.E; ++e) kt[e * Sp + j] = pk[ko[b] + j * ks0 + e * ks1] * sq;
    for (int64_t j = 0; j < s.S; ++j)
      for (int64_t e = 0; e < s.Ev; ++e) vp[j * Evp + e] = pv[vo[b] + j * vs0 + e * vs1];
    for (int64_t i = 0; i < s.L; ++i)
      for (int64_t e = 0; e < s.E; ++e) qsc[i * s.E + e] = pq[qo[b] + i * qs0 + e * qs1] * sq;
    if (vec::vec_width() != 0)
      vec::matmul_rows_f32(qsc.data(), s.E, s.L, kt.data(), Sp, s.E, Sp, p.data(), Sp);
    else
      for (int64_t i = 0; i < s.L; ++i)
        for (int64_t j0 = 0; j0 < Sp; j0 += kBlock)
          dot_block(qsc.data() + i * s.E, 1, kt.data() + j0, Sp, s.E, p.data() + i * Sp + j0);
    for (int64_t i = 0; i < s.L; ++i) {
      float* r = p.data() + i * Sp;
      if (causal)
        for (int64_t j = i + 1; j < s.S; ++j) r[j] = -INFINITY;
      if (!mask) continue;
      int64_t mi = mo[b] + i * (*mask)->stride(nb), ms = (*mask)->stride(nb + 1);
      if (mbool) {
        const bool* m = static_cast<const bool*>(pm) + mi;
        for (int64_t j = 0; j < s.S; ++j)
          if (!m[j * ms]) r[j] = -INFINITY;
      } else {
        const float* m = static_cast<const float*>(pm) + mi;
        for (int64_t j = 0; j < s.S; ++j) r[j] += m[j * ms];
      }
    }
    softmax_rows_f32(p.data(), s.L, s.S, Sp, pl + lo[b], ls0);
    if (vec::vec_width() != 0)
      vec::matmul_rows_f32(p.data(), Sp, s.L, vp.data(), Evp, s.S, Evp, o.data(), Evp);
    else
      for (int64_t i = 0; i < s.L; ++i)
        for (int64_t e0 = 0; e0 < Evp; e0 += kBlock)
          dot_block(p.data() + i * Sp, 1, vp.data() + e0, Evp, s.S, o.data() + i * Evp + e0);
    for (int64_t i = 0; i < s.L; ++i)
      std::copy(o.begin() + i * Evp, o.begin() + i * Evp + s.Ev, po + oo[b] + i * os0);
  }
}

void flash_cpu(Call& c) {
  const std::string& key = c.key();
  SdpaShape s = flash_check(c);
  size_t nb = s.batch.size();
  Tensor q = c.tensor(0);
  Tensor k = kv_view(c.tensor(1), s, {s.S, s.E}, key);
  Tensor v = kv_view(c.tensor(2), s, {s.S, s.Ev}, key);
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
    return sdpa_f32(s, nb, q, k, v, m0 ? &mask : nullptr, causal, scale, out, lse, key);
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
      bool mbool = m0 && mask->dtype() == ScalarType::Bool;
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
            if (mbool && !static_cast<const bool*>(pm)[mi]) sc = -INFINITY;
            if (m0 && !mbool) sc += A(static_cast<const T*>(pm)[mi]);
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
