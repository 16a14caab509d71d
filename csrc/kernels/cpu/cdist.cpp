// cdist and its pieces as upstream's Distance.cpp and cpu/DistanceOpsKernel.cpp compute them:
// cdist (CompositeImplicit: the matrix-product path of _euclidean_dist for p = 2 on more than 25
// rows or compute_mode 1, else _cdist_forward), _euclidean_dist (CompositeExplicit), and the
// dense CPU _cdist_forward / _cdist_backward over float32 and float64 (upstream refuses the
// 16-bit floats there, by name). Meta kernels are upstream's meta registrations (Python's).
#include <cmath>
#include <optional>
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
Value int_scalar(int64_t v) { return Value::of_scalar(Scalar::from_int(v)); }
constexpr int64_t kGrain = 32768;  // upstream's internal::GRAIN_SIZE

// The last two sizes of a tensor of at least two dims.
int64_t rows(const Tensor& x) { return x->sizes()[x->dim() - 2]; }
int64_t cols(const Tensor& x) { return x->sizes()[x->dim() - 1]; }
// The checks cdist and _cdist_forward share, in upstream's order and words.
void check_shapes(const Tensor& x1, const Tensor& x2) {
  TN_CHECK(x1->dim() >= 2, "cdist only supports at least 2D tensors, X1 got: ", x1->dim(), "D");
  TN_CHECK(x2->dim() >= 2, "cdist only supports at least 2D tensors, X2 got: ", x2->dim(), "D");
  TN_CHECK(cols(x1) == cols(x2), "X1 and X2 must have the same number of columns. X1: ",
           cols(x1), " X2: ", cols(x2));
}

// Whether p = 2 takes _euclidean_dist's matrix product (upstream's Note [cdist relies on
// cdist_impl redispatching]: mode 1, or mode 0 with more than 25 rows on either side).
bool mm_path(double p, int64_t mode, int64_t r1, int64_t r2) {
  return p == 2 && (mode == 1 || (mode == 0 && (r1 > 25 || r2 > 25)));
}

// The broadcast batch dims of x1 and x2 (all but their last two).
Dims batch_of(const Tensor& x1, const Tensor& x2) {
  Dims b1(x1->sizes().begin(), x1->sizes().end() - 2);
  Dims b2(x2->sizes().begin(), x2->sizes().end() - 2);
  return broadcast_shapes(b1, b2);
}

int64_t product(const Dims& d) {
  int64_t n = 1;
  for (int64_t v : d) n *= v;
  return n;
}

// x expanded to batch + (rows, cols), made contiguous, viewed as (prod(batch), rows, cols).
Tensor flat_batch(const Tensor& x, const Dims& batch, int64_t prod) {
  Dims full = batch;
  full.push_back(rows(x));
  full.push_back(cols(x));
  Tensor e = call_tensor("aten::expand", {t(x), ops::ints(full)});
  e = call_tensor("aten::contiguous", {t(e)});
  return ops::view(e, {prod, rows(x), cols(x)});
}

// How many leading terms of p = 2's scalar sum upstream's AVX2 build adds unfused: its
// compiler vectorises the squares (blocks of 32, then 16 bytes, added in order) and contracts
// the remaining scalar terms into fused multiply-adds (read from the compiled loop, checked
// against upstream's results for 3 to 33 columns); its baseline build fuses none.
template <typename T>
int64_t unfused_terms(int64_t m, bool fused) {
  if (!fused) return m;
  constexpr int64_t kWide = 32 / sizeof(T), kHalf = kWide / 2;
  int64_t n = m >= kWide ? m - m % kWide : 0;
  if (m - n >= kHalf) n += kHalf;
  return n;
}

// res[l, i, j] = finish(reduce_x map(|t1[l, i, x] - t2[l, j, x]|)), scalar and in column
// order as upstream's run_parallel_cdist.
template <dist::Norm N, typename T>
void cdist_rows(T* res, const T* a, const T* b, int64_t d, int64_t r1, int64_t r2, int64_t m,
                T p, bool fused) {
  const int64_t combs = r1 * r2;
  const int64_t unfused = unfused_terms<T>(m, fused);
  parallel_for(0, combs * d, kGrain / (16 * m), [&](int64_t start, int64_t end) {
    for (int64_t k = start; k < end; ++k) {
      const int64_t l = k / combs, i = (k % combs) / r2, j = k % r2;
      const T* xi = a + (l * r1 + i) * m;
      const T* xj = b + (l * r2 + j) * m;
      T agg = 0;
      for (int64_t x = 0; x < m; ++x) {
        const T diff = std::abs(xi[x] - xj[x]);
        if constexpr (N == dist::Norm::Zero) agg = agg + std::min(std::ceil(std::abs(diff)), T(1));
        else if constexpr (N == dist::Norm::One) agg = agg + diff;
        else if constexpr (N == dist::Norm::Two) agg = x >= unfused ? std::fma(diff, diff, agg)
                                                                    : agg + diff * diff;
        else if constexpr (N == dist::Norm::Inf) agg = std::max(agg, diff);
        else agg = agg + std::pow(diff, p);
      }
      res[k] = dist::finish<N>(agg, p);
    }
  });
}

// upstream's cdist_stub: result (d, r1, r2) from t1 (d, r1, m) and t2 (d, r2, m), contiguous.
void cdist_stub(const Tensor& result, const Tensor& t1, const Tensor& t2, double p,
                const std::string& key) {
  const ScalarType dt = result->dtype();
  TN_CHECK_KIND(dt == ScalarType::Float || dt == ScalarType::Double, NotImplemented,
                "\"cdist\" not implemented for '", enum_name(dt), "'");
  for (const Tensor* x : {&t1, &t2})
    TN_CHECK((*x)->dtype() == dt, "expected scalar type ", enum_name(dt), " but found ",
             enum_name((*x)->dtype()));
  const bool fused = cpu::avx2_registered_isa() != cpu::Isa::Base;
  auto run = [&](auto zero) {
    using T = decltype(zero);
    T* r = data_of<T>(result, key);
    const T *a = data_of<T>(t1, key), *b = data_of<T>(t2, key);
    const int64_t d = t1->size(0), r1 = t1->size(1), r2 = t2->size(1), m = t1->size(2);
    const T pt = static_cast<T>(p);
    switch (dist::norm_of(pt)) {
      case dist::Norm::Zero: return cdist_rows<dist::Norm::Zero>(r, a, b, d, r1, r2, m, pt, fused);
      case dist::Norm::One: return cdist_rows<dist::Norm::One>(r, a, b, d, r1, r2, m, pt, fused);
      case dist::Norm::Two: return cdist_rows<dist::Norm::Two>(r, a, b, d, r1, r2, m, pt, fused);
      case dist::Norm::Inf: return cdist_rows<dist::Norm::Inf>(r, a, b, d, r1, r2, m, pt, fused);
      case dist::Norm::P: return cdist_rows<dist::Norm::P>(r, a, b, d, r1, r2, m, pt, fused);
    }
  };
  if (dt == ScalarType::Float) run(float(0));
  else run(double(0));
}

// upstream's cdist_impl: its checks, the batch flattened, then empty, zeros, the matrix
// product (door ops, so autograd sees _euclidean_dist when called above it) or the stub.
Tensor cdist_impl(const Tensor& x1, const Tensor& x2, double p, std::optional<int64_t> cm,
                  const std::string& key) {
  TN_CHECK(is_floating(x1->dtype()), "cdist only supports floating-point dtypes, X1 got: ",
           enum_name(x1->dtype()));
  TN_CHECK(is_floating(x2->dtype()), "cdist only supports floating-point dtypes, X2 got: ",
           enum_name(x2->dtype()));
  TN_CHECK(p >= 0, "cdist only supports non-negative p values");
  const int64_t mode = cm.value_or(0);
  TN_CHECK(mode >= 0 && mode <= 2, "possible modes: 0, 1, 2, but was: ", mode);
  const int64_t r1 = rows(x1), r2 = rows(x2), c1 = cols(x1);
  const Dims batch = batch_of(x1, x2);
  const int64_t prod = product(batch);
  Tensor e1 = flat_batch(x1, batch, prod);
  Tensor e2 = flat_batch(x2, batch, prod);
  Dims shape = batch;
  shape.push_back(r1);
  shape.push_back(r2);
  if (r1 == 0 || r2 == 0 || prod == 0) return ops::empty(shape, x1->dtype(), x1->device());
  if (c1 == 0)
    return call_tensor("aten::zeros", {ops::ints(shape), Value::of_dtype(x1->dtype()), Value{},
                                       Value::of_device(x1->device())});
  if (mm_path(p, mode, r1, r2)) {
    Tensor d = prod == 1 ? call_tensor("aten::_euclidean_dist", {t(x1), t(x2)})
                         : call_tensor("aten::_euclidean_dist", {t(e1), t(e2)});
    return ops::view(d, shape);
  }
  Tensor result = ops::empty(shape, x1->dtype(), x1->device());
  cdist_stub(result, e1, e2, p, key);
  return result;
}

std::optional<int64_t> mode_arg(const Call& c, size_t i) {
  if (c.arg(i).is_none()) return std::nullopt;
  return c.to_int(i);
}

// cdist(x1, x2, float p=2, int? compute_mode=None): CompositeImplicit, as upstream's.
void cdist(Call& c) {
  const Tensor &x1 = c.tensor(0), &x2 = c.tensor(1);
  check_shapes(x1, x2);
  const double p = c.to_double(2);
  const std::optional<int64_t> cm = mode_arg(c, 3);
  const bool empty = x1->numel() == 0 || x2->numel() == 0;
  if (!empty && mm_path(p, cm.value_or(0), rows(x1), rows(x2)))
    return c.ret(cdist_impl(x1, x2, p, cm, c.key()));
  c.ret(call_tensor("aten::_cdist_forward", {t(x1), t(x2), c.arg(2), c.arg(3)}));
}

// _cdist_forward(x1, x2, float p, int? compute_mode) on dense CPU tensors.
void cdist_forward(Call& c) {
  check_shapes(c.tensor(0), c.tensor(1));
  c.ret(cdist_impl(c.tensor(0), c.tensor(1), c.to_double(2), mode_arg(c, 3), c.key()));
}

// Meta: upstream's meta_cdist_forward (its checks and words, x1's dtype, the broadcast shape).
void cdist_forward_meta(Call& c) {
  const Tensor &x1 = c.tensor(0), &x2 = c.tensor(1);
  check_shapes(x1, x2);
  TN_CHECK(is_floating(x1->dtype()), "cdist only supports floating-point dtypes, X1 got: torch.",
           name(x1->dtype()));
  TN_CHECK(is_floating(x2->dtype()), "cdist only supports floating-point dtypes, X2 got: torch.",
           name(x2->dtype()));
  TN_CHECK(c.to_double(2) >= 0, "cdist only supports non-negative p values");
  const std::optional<int64_t> cm = mode_arg(c, 3);
  TN_CHECK(!cm || (*cm >= 0 && *cm <= 2), "possible modes: None, 0, 1, 2, but was: ", *cm);
  Dims shape = batch_of(x1, x2);
  shape.push_back(rows(x1));
  shape.push_back(rows(x2));
  c.ret(ops::empty(shape, x1->dtype(), x1->device()));
}

// _euclidean_dist(x1, x2): upstream's composition (norms and ones padded on, one matmul),
// CompositeExplicit so that autograd records EuclideanDistBackward0.
void euclidean_dist(Call& c) {
  const Tensor &x1 = c.tensor(0), &x2 = c.tensor(1);
  auto norm = [](const Tensor& x) {
    Tensor sq = call_tensor("aten::pow.Tensor_Scalar", {t(x), int_scalar(2)});
    return call_tensor("aten::sum.dim_IntList", {t(sq), ops::ints({-1}), Value::of_bool(true)});
  };
  auto ones = [](const Tensor& x) {
    Value mf;
    mf.tag = Value::Tag::MemoryFormat;
    mf.memory_format = MemoryFormatKind::Contiguous;
    return call_tensor("aten::ones_like", {t(x), Value{}, Value{}, Value{}, Value{}, mf});
  };
  Tensor n1 = norm(x1), n2 = norm(x2);
  Tensor p1 = ones(n1), p2 = ones(n2);
  Tensor m1 = call_tensor("aten::mul.Scalar", {t(x1), int_scalar(-2)});
  Tensor a = call_tensor("aten::cat", {Value::of_tensors({m1, n1, p1}), ops::i64(-1)});
  Tensor b = call_tensor("aten::cat", {Value::of_tensors({x2, p2, n2}), ops::i64(-1)});
  Tensor r = call_tensor("aten::matmul", {t(a), t(call_tensor("aten::mT", {t(b)}))});
  call("aten::clamp_min_", {t(r), int_scalar(0)});
  call("aten::sqrt_", {t(r)});
  c.ret(r);
}

// The gradient of x1's every column (independently, as upstream's vector columns): for each
// batch l and row i of t1, the sum over t2's rows j of backward(t1[l, i] - t2[l, j]), grad and
// dist read in (l, i, j) order.
template <dist::Grad G, typename T>
void cdist_columns(T* res, const T* a, const T* b, const T* grad, const T* dist, int64_t d,
                   int64_t r1, int64_t r2, int64_t m, T p) {
  for (int64_t col = 0; col < m; ++col) {
    int64_t k = 0;
    for (int64_t l = 0; l < d; ++l) {
      for (int64_t i = 0; i < r1; ++i) {
        T acc = res[(l * r1 + i) * m + col];
        const T ai = a[(l * r1 + i) * m + col];
        for (int64_t j = 0; j < r2; ++j, ++k)
          acc = acc + dist::backward<G>(ai - b[(l * r2 + j) * m + col], grad[k], dist[k], p);
        res[(l * r1 + i) * m + col] = acc;
      }
    }
  }
}

// _cdist_backward(grad, x1, x2, float p, cdist) on dense CPU tensors: x1's gradient, in x1's
// broadcast shape (the engine sums it back to x1's).
void cdist_backward(Call& c) {
  Tensor x1 = c.tensor(1), x2 = c.tensor(2);
  dist::size_at(x1, -2);
  dist::size_at(x2, -2);
  const int64_t c1 = cols(x1), r1 = rows(x1), r2 = rows(x2);
  const Dims batch = batch_of(x1, x2);
  const int64_t prod = product(batch);
  if (r1 == 0 || r2 == 0 || c1 == 0 || prod == 0)
    return c.ret(call_tensor("aten::zeros_like", {t(x1)}));
  auto expanded = [&](const Tensor& x) {
    Dims full = batch;
    full.push_back(rows(x));
    full.push_back(cols(x));
    if (full == x->sizes()) return x;
    Tensor e = call_tensor("aten::expand", {t(x), ops::ints(full)});
    return call_tensor("aten::contiguous", {t(e)});
  };
  // upstream 2.13 reads every operand through a contiguous copy (strided ones are taken, the
  // older "requires ... to be contiguous" checks are gone), grad and cdist as flat arrays
  auto dense = [](const Tensor& x) { return call_tensor("aten::contiguous", {t(x)}); };
  x1 = dense(expanded(x1));
  x2 = dense(expanded(x2));
  const Tensor grad = dense(c.tensor(0)), cd = dense(c.tensor(4));
  const int64_t m = cols(x1);
  Tensor r = ops::empty({prod, r1, m}, x1->dtype(), x1->device());
  const ScalarType dt = r->dtype();
  TN_CHECK_KIND(dt == ScalarType::Float || dt == ScalarType::Double, NotImplemented,
                "\"cdist_backward\" not implemented for '", enum_name(dt), "'");
  call("aten::zero_", {t(r)});
  const double p = c.to_double(3);
  if (p != 0.0) {
    for (const Tensor* v : {&grad, static_cast<const Tensor*>(&x2), &cd})
      TN_CHECK((*v)->dtype() == dt, "expected scalar type ", enum_name(dt), " but found ",
               enum_name((*v)->dtype()));
    const std::string& key = c.key();
    auto run = [&](auto zero) {
      using T = decltype(zero);
      T* res = data_of<T>(r, key);
      const T *a = data_of<T>(x1, key), *b = data_of<T>(x2, key);
      const T *g = data_of<T>(grad, key), *d = data_of<T>(cd, key);
      const T pt = static_cast<T>(p);
      switch (dist::grad_of(p)) {
        case dist::Grad::One:
          return cdist_columns<dist::Grad::One>(res, a, b, g, d, prod, r1, r2, m, pt);
        case dist::Grad::LessThanTwo:
          return cdist_columns<dist::Grad::LessThanTwo>(res, a, b, g, d, prod, r1, r2, m, pt);
        case dist::Grad::Two:
          return cdist_columns<dist::Grad::Two>(res, a, b, g, d, prod, r1, r2, m, pt);
        case dist::Grad::Inf:
          return cdist_columns<dist::Grad::Inf>(res, a, b, g, d, prod, r1, r2, m, pt);
        case dist::Grad::P:
          return cdist_columns<dist::Grad::P>(res, a, b, g, d, prod, r1, r2, m, pt);
      }
    };
    if (dt == ScalarType::Float) run(float(0));
    else run(double(0));
  }
  c.ret(ops::view(r, x1->sizes()));
}

// Meta: upstream's meta_cdist_backward (zeros like x1 when empty, else x1's broadcast shape).
void cdist_backward_meta(Call& c) {
  const Tensor &x1 = c.tensor(1), &x2 = c.tensor(2);
  dist::size_at(x1, -2);
  dist::size_at(x2, -2);
  const Dims batch = batch_of(x1, x2);
  if (rows(x1) == 0 || rows(x2) == 0 || cols(x1) == 0 || product(batch) == 0)
    return c.ret(call_tensor("aten::zeros_like", {t(x1)}));
  Dims full = batch;
  full.push_back(rows(x1));
  full.push_back(cols(x1));
  c.ret(ops::empty(full, x1->dtype(), x1->device()));
}

}  // namespace

TN_REGISTER_COMPOSITE("aten::cdist", cdist);
TN_REGISTER_COMPOSITE("aten::_euclidean_dist", euclidean_dist);
TN_REGISTER_KERNEL("aten::_cdist_forward", DenseCPU, cdist_forward);
TN_REGISTER_KERNEL("aten::_cdist_forward", Meta, cdist_forward_meta);
TN_REGISTER_KERNEL("aten::_cdist_backward", DenseCPU, cdist_backward);
TN_REGISTER_KERNEL("aten::_cdist_backward", Meta, cdist_backward_meta);
static constexpr char kCdistForward[] = "aten::_cdist_forward";
TN_REGISTER_COMPOSITE("aten::_cdist_forward.out", ops::generated_out<kCdistForward>);

}  // namespace tn
