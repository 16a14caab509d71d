// scaled_dot_product_attention as upstream's math path: q*sqrt(s) @ (k*sqrt(s))^T, plus the
// mask (bool: -inf where false; float: added), causal masking (top-left aligned tril), a safe
// softmax (fully masked rows give 0), then @ v. Intermediates are rounded to the input dtype as
// upstream's tensors are; upstream's CPU default is a flash kernel, so not bit-identical.
#include <cmath>

#include "dispatch/kernel.h"
#include "kernels/cpu/cpu_util.h"
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
  auto qo = batch_offsets(q, nb), ko = batch_offsets(k, nb), vo = batch_offsets(v, nb);
  auto mo = m0 ? batch_offsets(mask, nb) : std::vector<int64_t>(qo.size(), 0);
  const Tensor& out = c.results[0].tensor;
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
