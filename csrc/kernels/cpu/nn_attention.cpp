// scaled_dot_product_attention as upstream's math path: q*sqrt(s) @ (k*sqrt(s))^T, plus the
// mask (bool: -inf where false; float: added), causal masking (top-left aligned tril), a safe
// softmax (fully masked rows give 0), then @ v. Intermediates are rounded to the input dtype as
// upstream's tensors are; upstream's CPU default is a flash kernel, so not bit-identical.
// float32 has its own vectorised path (sdpa_f32), other dtypes plain loops (sdpa_cpu).
#include <algorithm>
#include <cmath>
#include <vector>

#include "dispatch/kernel.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/cpu/vec_math.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

Dims batch_of(const Tensor& t) { return Dims(t->sizes().begin(), t->sizes().end() - 2); }

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

// scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, Tensor? attn_mask=None,
//   float dropout_p=0.0, bool is_causal=False, *, float? scale=None, bool enable_gqa=False)
SdpaShape sdpa_check(const Call& c) {
  const Tensor &q = c.tensor(0), &k = c.tensor(1), &v = c.tensor(2);
  const Tensor* mask = c.optional_tensor(3);
  TN_CHECK(q->dim() >= 2 && k->dim() >= 2 && v->dim() >= 2, c.key(),
           ": query, key and value must be at least 2-D");
  TN_CHECK(q->dtype() == k->dtype() && q->dtype() == v->dtype(), "Expected query, key, and value "
           "to have the same dtype, but got query.dtype: ", cpp_type_name(q->dtype()), " key.dtype: ",
           cpp_type_name(k->dtype()), " and value.dtype: ", cpp_type_name(v->dtype()), " instead.");
  TN_CHECK(q->device().type == k->device().type && q->device().type == v->device().type,
           "Expected query, key, and value to have the same device type, but got query.device: ",
           q->device().str(), " key.device: ", k->device().str(), " and value.device: ",
           v->device().str(), " instead.");
  TN_CHECK(!mask || (*mask)->dtype() == ScalarType::Bool || (*mask)->dtype() == q->dtype(),
           "Expected attn_mask dtype to be bool or float or to match query dtype, but got "
           "attn_mask.dtype: ", cpp_type_name((*mask)->dtype()), " and  query.dtype: ",
           cpp_type_name(q->dtype()), " instead.");
  TN_CHECK(!(mask && c.to_bool(5)), "_scaled_dot_product_attention: Explicit attn_mask should "
           "not be set when is_causal=True");
  TN_CHECK_KIND(c.to_double(4) == 0, NotImplemented, c.key(), " with dropout_p>0 needs random "
                "sampling, which torchnative does not implement yet");
  TN_CHECK_KIND(is_floating(q->dtype()), NotImplemented, c.key(), " has no kernel for dtype ",
                name(q->dtype()));
  SdpaShape s;
  s.gqa = c.to_bool(7) && q->dim() >= 3;
  s.hq = q->dim() >= 3 ? q->size(q->dim() - 3) : 1;
  if (s.gqa) {
    int64_t hk = k->size(k->dim() - 3), hv = v->size(v->dim() - 3);
    TN_CHECK(hk > 0 && hv > 0 && s.hq % hk == 0 && s.hq % hv == 0, "Number of heads in key and "
             "value must divide the number of heads in query");
  }
  s.L = q->size(q->dim() - 2), s.E = q->size(q->dim() - 1);
  s.S = k->size(k->dim() - 2), s.Ev = v->size(v->dim() - 1);
  TN_CHECK(k->size(k->dim() - 1) == s.E && v->size(v->dim() - 2) == s.S, c.key(),
           ": query, key and value shapes do not fit (", dims_str(q->sizes()), ", ",
           dims_str(k->sizes()), ", ", dims_str(v->sizes()), ")");
  Dims kb = kv_sizes(k, s.hq, s.gqa), vb = kv_sizes(v, s.hq, s.gqa);
  s.batch = broadcast_shapes(broadcast_shapes(batch_of(q), Dims(kb.begin(), kb.end() - 2)),
                             Dims(vb.begin(), vb.end() - 2));
  return s;
}

void sdpa_rule(Call& c) {
  SdpaShape s = sdpa_check(c);
  Dims out = s.batch;
  out.insert(out.end(), {s.L, s.Ev});
  c.ret(new_on(c.tensor(0), out, c.tensor(0)->dtype()));
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
void softmax_rows_f32(float* p, int64_t L, int64_t S, int64_t ld) {
  std::vector<char> dead(static_cast<size_t>(L));
  for (int64_t i = 0; i < L; ++i) {
    float* r = p + i * ld;
    float mx = -INFINITY;
    for (int64_t j = 0; j < S; ++j) mx = std::max(mx, r[j]);
    dead[i] = mx == -INFINITY;
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
              const Tensor* mask, bool causal, double scale, const Tensor& out,
              const std::string& key) {
  auto qo = batch_offsets(q, nb), ko = batch_offsets(k, nb), vo = batch_offsets(v, nb);
  auto mo = mask ? batch_offsets(*mask, nb) : std::vector<int64_t>(qo.size(), 0);
  const float *pq = data_of<float>(q, key), *pk = data_of<float>(k, key);
  const float* pv = data_of<float>(v, key);
  float* po = data_of<float>(out, key);
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
    softmax_rows_f32(p.data(), s.L, s.S, Sp);
    if (vec::vec_width() != 0)
      vec::matmul_rows_f32(p.data(), Sp, s.L, vp.data(), Evp, s.S, Evp, o.data(), Evp);
    else
      for (int64_t i = 0; i < s.L; ++i)
        for (int64_t e0 = 0; e0 < Evp; e0 += kBlock)
          dot_block(p.data() + i * Sp, 1, vp.data() + e0, Evp, s.S, o.data() + i * Evp + e0);
    for (int64_t i = 0; i < s.L; ++i)
      std::copy(o.begin() + i * Evp, o.begin() + i * Evp + s.Ev, po + (b * s.L + i) * s.Ev);
  }
}

void sdpa_cpu(Call& c) {
  const std::string& key = c.key();
  SdpaShape s = sdpa_check(c);
  size_t nb = s.batch.size();
  Tensor q = kv_view(c.tensor(0), {s.batch, s.L, s.E, s.Ev, s.hq, false}, {s.L, s.E}, key);
  Tensor k = kv_view(c.tensor(1), s, {s.S, s.E}, key);
  Tensor v = kv_view(c.tensor(2), s, {s.S, s.Ev}, key);
  const Tensor* m0 = c.optional_tensor(3);
  Tensor mask = m0 ? kv_view(*m0, {s.batch, 0, 0, 0, 0, false}, {s.L, s.S}, key) : Tensor();
  double scale = c.arg(6).is_none() ? 1.0 / std::sqrt(static_cast<double>(s.E)) : c.to_double(6);
  bool causal = c.to_bool(5);
  const Tensor& out = c.results[0].tensor;
  if (q->dtype() == ScalarType::Float && s.L * s.S > 0)
    return sdpa_f32(s, nb, q, k, v, m0 ? &mask : nullptr, causal, scale, out, key);
  auto qo = batch_offsets(q, nb), ko = batch_offsets(k, nb), vo = batch_offsets(v, nb);
  auto mo = m0 ? batch_offsets(mask, nb) : std::vector<int64_t>(qo.size(), 0);
  dispatch_dtype(q->dtype(), key, [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    if constexpr (std::is_floating_point_v<A>) {
      const T *pq = data_of<T>(q, key), *pk = data_of<T>(k, key), *pv = data_of<T>(v, key);
      T* po = data_of<T>(out, key);
      bool mbool = m0 && mask->dtype() == ScalarType::Bool;
      const void* pm = m0 ? mask->dense_cpu_data(key.c_str()) : nullptr;
      A sq = static_cast<A>(std::sqrt(scale));
      auto Q = [&](size_t b, int64_t i, int64_t e) {
        return A(T(A(pq[qo[b] + i * q->stride(nb) + e * q->stride(nb + 1)]) * sq));
      };
      std::vector<A> qs(s.E), p(s.S);
      for (size_t b = 0; b < qo.size(); ++b) {
        for (int64_t i = 0; i < s.L; ++i) {
          for (int64_t e = 0; e < s.E; ++e) qs[e] = Q(b, i, e);
          A mx = -INFINITY;
          for (int64_t j = 0; j < s.S; ++j) {
            A dot = 0;
            for (int64_t e = 0; e < s.E; ++e)
              dot += qs[e] * A(T(A(pk[ko[b] + j * k->stride(nb) + e * k->stride(nb + 1)]) * sq));
            A sc = A(T(dot));
            int64_t mi = m0 ? mo[b] + i * mask->stride(nb) + j * mask->stride(nb + 1) : 0;
            if (causal && j > i) sc = -INFINITY;
            if (mbool && !static_cast<const bool*>(pm)[mi]) sc = -INFINITY;
            if (m0 && !mbool) sc = A(T(sc + A(static_cast<const T*>(pm)[mi])));
            p[j] = sc;
            mx = std::max(mx, sc);
          }
          A sum = 0;
          for (int64_t j = 0; j < s.S; ++j) sum += (p[j] = std::exp(p[j] - mx));
          for (int64_t j = 0; j < s.S; ++j)
            p[j] = mx == -INFINITY ? A(0) : A(T(p[j] / sum));  // safe softmax: masked rows -> 0
          for (int64_t e = 0; e < s.Ev; ++e) {
            A acc = 0;
            for (int64_t j = 0; j < s.S; ++j)
              acc += p[j] * A(pv[vo[b] + j * v->stride(nb) + e * v->stride(nb + 1)]);
            po[(b * s.L + i) * s.Ev + e] = T(acc);
          }
        }
      }
    }
  });
}
TN_REGISTER_STRUCTURED("aten::scaled_dot_product_attention", sdpa_rule, sdpa_cpu);

}  // namespace
}  // namespace tn
