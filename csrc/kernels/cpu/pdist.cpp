// pdist, _pdist_forward and _pdist_backward as upstream's Distance.cpp and
// cpu/DistanceOpsKernel.cpp compute them: pdist (CompositeImplicit: checks, then
// _pdist_forward of the contiguous input), the dense CPU forward (each pair's terms reduced in
// upstream's vec::map2_reduce_all order: lanes of 32 bytes, as its AVX2 build registered for
// every CPU) and backward (column by column, pairs in order), float32 and float64 only, as
// upstream's dispatch. Meta kernels are upstream's meta registrations.
#include <cmath>
#include <string>

#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"
#include "kernels/cpu/cpu_isa.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/cpu/distance_math.h"
#include "kernels/cpu/parallel.h"

namespace tn {
namespace {

using ops::t;
constexpr int64_t kGrain = 32768;  // upstream's internal::GRAIN_SIZE

// map2_reduce_all(map(|a - b|), red, a, b, m) for W lanes: fewer than W terms fold in order;
// else the first W start the lanes, each further block is reduced into them, the tail into
// the first lanes, and the lanes fold (float's vector build: halves, then quarters, then
// pairs; otherwise lane by lane). No multiply-add is contracted: measured against upstream's
// p = 2 results for 3 to 33 columns, float32 and float64.
template <dist::Norm N, typename T>
T pair_reduce(const T* a, const T* b, int64_t m, T p, bool vec_build) {
  constexpr int W = 32 / sizeof(T);
  auto term = [&](int64_t x) { return dist::vmap<N>(std::abs(a[x] - b[x]), p); };
  if (m < W) {
    T acc = term(0);
    for (int64_t x = 1; x < m; ++x) acc = dist::vred<N>(acc, term(x));
    return acc;
  }
  T lane[W];
  for (int l = 0; l < W; ++l) lane[l] = term(l);
  int64_t d = W;
  for (; d < m - m % W; d += W)
    for (int l = 0; l < W; ++l) lane[l] = dist::vred<N>(lane[l], term(d + l));
  for (int64_t l = 0; l < m - d; ++l) lane[l] = dist::vred<N>(lane[l], term(d + l));
  if (vec_build && sizeof(T) == 4) {
    for (int s = W / 2; s >= 1; s /= 2)
      for (int l = 0; l < s; ++l) lane[l] = dist::vred<N>(lane[l], lane[l + s]);
    return lane[0];
  }
  T acc = lane[0];
  for (int l = 1; l < W; ++l) acc = dist::vred<N>(acc, lane[l]);
  return acc;
}

// res[k] for the pairs (i < j) in order, as upstream's run_parallel_pdist.
template <dist::Norm N, typename T>
void pdist_pairs(T* res, const T* x, int64_t n, int64_t m, int64_t combs, T p) {
  const bool vec_build = cpu::avx2_registered_isa() != cpu::Isa::Base;
  parallel_for(0, combs, kGrain / (16 * m), [&](int64_t k, int64_t end) {
    const double n2 = n - .5;
    int64_t i = static_cast<int64_t>(n2 - std::sqrt(n2 * n2 - 2 * k - 1));
    int64_t j = k - n * i + i * (i + 1) / 2 + i + 1;
    for (; k < end; ++k) {
      res[k] = dist::finish<N>(pair_reduce<N>(x + i * m, x + j * m, m, p, vec_build), p);
      if (++j == n) {
        ++i;
        j = i + 1;
      }
    }
  });
}

// pdist(self, float p=2): CompositeImplicit, as upstream's.
void pdist(Call& c) {
  const Tensor& x = c.tensor(0);
  TN_CHECK(x->dim() == 2, "pdist only supports 2D tensors, got: ", x->dim(), "D");
  TN_CHECK(is_floating(x->dtype()), "pdist only supports floating-point dtypes");
  TN_CHECK(c.to_double(1) >= 0, "pdist only supports non-negative p values");
  Tensor xc = call_tensor("aten::contiguous", {t(x)});
  c.ret(call_tensor("aten::_pdist_forward", {t(xc), c.arg(1)}));
}

// _pdist_forward(self, float p=2) on a dense CPU tensor: n (n - 1) / 2 distances.
void pdist_forward(Call& c) {
  const Tensor& x = c.tensor(0);
  TN_CHECK(x->is_contiguous(), "_pdist_forward requires contiguous input");
  const int64_t n = dist::size_at(x, 0);
  const int64_t combs = n <= 1 ? 0 : n * (n - 1) / 2;
  Tensor r = ops::empty({combs}, x->dtype(), x->device());
  if (combs == 0) return c.ret(r);
  const int64_t m = dist::size_at(x, 1);
  if (m == 0) {
    call("aten::zero_", {t(r)});
    return c.ret(r);
  }
  const ScalarType dt = x->dtype();
  TN_CHECK_KIND(dt == ScalarType::Float || dt == ScalarType::Double, NotImplemented,
                "\"pdist\" not implemented for '", enum_name(dt), "'");
  const std::string& key = c.key();
  auto run = [&](auto zero) {
    using T = decltype(zero);
    T* res = data_of<T>(r, key);
    const T* xs = data_of<T>(x, key);
    const T p = static_cast<T>(c.to_double(1));
    switch (dist::norm_of(p)) {
      case dist::Norm::Zero: return pdist_pairs<dist::Norm::Zero>(res, xs, n, m, combs, p);
      case dist::Norm::One: return pdist_pairs<dist::Norm::One>(res, xs, n, m, combs, p);
      case dist::Norm::Two: return pdist_pairs<dist::Norm::Two>(res, xs, n, m, combs, p);
      case dist::Norm::Inf: return pdist_pairs<dist::Norm::Inf>(res, xs, n, m, combs, p);
      case dist::Norm::P: return pdist_pairs<dist::Norm::P>(res, xs, n, m, combs, p);
    }
  };
  if (dt == ScalarType::Float) run(float(0));
  else run(double(0));
  c.ret(r);
}

void pdist_forward_meta(Call& c) {
  const Tensor& x = c.tensor(0);
  TN_CHECK(x->is_contiguous(), "_pdist_forward requires contiguous input");
  const int64_t n = dist::size_at(x, 0);
  c.ret(ops::empty({n * (n - 1) / 2}, x->dtype(), x->device()));
}

// The gradient of every column (independently, as upstream's vector columns): for each pair
// (i < j) in order, b = backward(x[i] - x[j]) is added to row i and taken from row j.
template <dist::Grad G, typename T>
void pdist_columns(T* res, const T* x, const T* grad, int64_t gs, const T* dist, int64_t n,
                   int64_t m, T p) {
  for (int64_t col = 0; col < m; ++col) {
    int64_t k = 0;
    for (int64_t i = 0; i + 1 < n; ++i) {
      T ri = res[i * m + col];
      const T xi = x[i * m + col];
      for (int64_t j = i + 1; j < n; ++j, ++k) {
        const T b = dist::backward<G>(xi - x[j * m + col], grad[k * gs], dist[k], p);
        ri = ri + b;
        res[j * m + col] = res[j * m + col] - b;
      }
      res[i * m + col] = ri;
    }
  }
}

// _pdist_backward(grad, self, float p, pdist) on dense CPU tensors.
void pdist_backward(Call& c) {
  const Tensor &grad = c.tensor(0), &x = c.tensor(1), &pd = c.tensor(3);
  TN_CHECK(x->is_contiguous(), "_pdist_backward requires self to be contiguous");
  TN_CHECK(pd->is_contiguous(), "_pdist_backward requires pdist to be contiguous");
  Tensor r = ops::empty(x->sizes(), x->dtype(), x->device());
  const ScalarType dt = x->dtype();
  TN_CHECK_KIND(dt == ScalarType::Float || dt == ScalarType::Double, NotImplemented,
                "\"pdist_backward\" not implemented for '", enum_name(dt), "'");
  call("aten::zero_", {t(r)});
  const double p = c.to_double(2);
  if (p == 0.0) return c.ret(r);
  // upstream's order: the sizes read, grad's stride, then the operands' dtypes
  const int64_t n = dist::size_at(x, 0), m = dist::size_at(x, 1);
  dist::size_at(grad, 0);  // grad.stride(0): a 0-dim grad refuses
  const int64_t gs = grad->strides()[0];
  for (const Tensor* v : {&grad, &pd})
    TN_CHECK((*v)->dtype() == dt, "expected scalar type ", enum_name(dt), " but found ",
             enum_name((*v)->dtype()));
  if (n <= 1 || m == 0) return c.ret(r);
  const std::string& key = c.key();
  auto run = [&](auto zero) {
    using T = decltype(zero);
    T* res = data_of<T>(r, key);
    const T *xs = data_of<T>(x, key), *g = data_of<T>(grad, key), *d = data_of<T>(pd, key);
    const T pt = static_cast<T>(p);
    switch (dist::grad_of(p)) {
      case dist::Grad::One: return pdist_columns<dist::Grad::One>(res, xs, g, gs, d, n, m, pt);
      case dist::Grad::LessThanTwo:
        return pdist_columns<dist::Grad::LessThanTwo>(res, xs, g, gs, d, n, m, pt);
      case dist::Grad::Two: return pdist_columns<dist::Grad::Two>(res, xs, g, gs, d, n, m, pt);
      case dist::Grad::Inf: return pdist_columns<dist::Grad::Inf>(res, xs, g, gs, d, n, m, pt);
      case dist::Grad::P: return pdist_columns<dist::Grad::P>(res, xs, g, gs, d, n, m, pt);
    }
  };
  if (dt == ScalarType::Float) run(float(0));
  else run(double(0));
  c.ret(r);
}

void pdist_backward_meta(Call& c) {
  const Tensor &x = c.tensor(1), &pd = c.tensor(3);
  TN_CHECK(x->is_contiguous(), "_pdist_backward requires self to be contiguous");
  TN_CHECK(pd->is_contiguous(), "_pdist_backward requires pdist to be contiguous");
  c.ret(ops::empty(x->sizes(), x->dtype(), x->device()));
}

}  // namespace

TN_REGISTER_COMPOSITE("aten::pdist", pdist);
TN_REGISTER_KERNEL("aten::_pdist_forward", DenseCPU, pdist_forward);
TN_REGISTER_KERNEL("aten::_pdist_forward", Meta, pdist_forward_meta);
TN_REGISTER_KERNEL("aten::_pdist_backward", DenseCPU, pdist_backward);
TN_REGISTER_KERNEL("aten::_pdist_backward", Meta, pdist_backward_meta);

}  // namespace tn
