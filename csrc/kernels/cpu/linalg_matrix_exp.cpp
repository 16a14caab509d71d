// linalg_matrix_exp (and matrix_exp, its alias) on the CPU, as upstream's LinearAlgebra.cpp
// computes it (Bader, Blanes and Casas' optimised Taylor polynomials of degree 1, 2, 4, 8, 12
// and 18): one matrix picks its degree by its 1-norm, a batch always takes degree 18 with
// scaling and squaring. Every product, sum and linear combination is a door op in upstream's
// order, so the values are those of our bmm, mul and add, which match upstream's.
// Not here: the derivative (autograd/derivatives/linalg_matrix_exp.cpp).
#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <vector>

#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/cpu/linalg_util.h"

namespace tn {
namespace {

using ops::f64;
using ops::i64;
using ops::t;
constexpr char kKey[] = "aten::linalg_matrix_exp";

Tensor add(const Tensor& a, const Tensor& b) {
  return call_tensor("aten::add.Tensor", {t(a), t(b)});
}
Tensor bmm(const Tensor& a, const Tensor& b) { return call_tensor("aten::bmm", {t(a), t(b)}); }
Tensor select0(const Tensor& x, int64_t i) {
  return call_tensor("aten::select.int", {t(x), i64(0), i64(i)});
}

// Upstream's coefficient blobs are arrays of S (float for float32 and complex64, double
// otherwise) read through from_blob as the input's real dtype. For 16-bit dtypes that reads the
// bytes of the S array as halves or bfloat16s, and so do we: the k-th coefficient is the k-th
// element of that dtype in the blob's memory.
template <typename S>
double coef(const std::vector<S>& blob, size_t k, ScalarType real) {
  if (real == ScalarType::Half || real == ScalarType::BFloat16) {
    uint16_t bits = 0;
    std::memcpy(&bits, reinterpret_cast<const char*>(blob.data()) + 2 * k, 2);
    if (real == ScalarType::Half) {
      Half h;
      h.x = bits;
      return static_cast<float>(h);
    }
    BFloat16 b;
    b.x = bits;
    return static_cast<float>(b);
  }
  return static_cast<double>(blob[k]);
}

// upstream's _compute_linear_combination for one output: 0 + c[0] * xs[0] + c[1] * xs[1] + ...,
// each product and sum rounded (its kernel fuses nothing); a complex x times a real c scales
// both parts, as on the real view.
Tensor combination(const std::vector<Tensor>& xs, const std::vector<double>& c) {
  const bool cx = is_complex(xs[0]->dtype());
  auto real_view = [&](const Tensor& x) {
    return cx ? call_tensor("aten::view_as_real", {t(x)}) : x;
  };
  Tensor acc = call_tensor("aten::zeros_like", {t(real_view(xs[0]))});
  for (size_t j = 0; j < xs.size(); ++j)
    acc = add(acc, call_tensor("aten::mul.Scalar", {t(real_view(xs[j])), f64(c[j])}));
  return cx ? call_tensor("aten::view_as_complex", {t(acc)}) : acc;
}
// The linear combination with coefficients blob[row * width + j] (j < xs.size()).
template <typename S>
Tensor combination(const std::vector<Tensor>& xs, const std::vector<S>& blob, size_t row,
                   size_t width) {
  const ScalarType real = to_real_type(xs[0]->dtype());
  std::vector<double> c(xs.size());
  for (size_t j = 0; j < xs.size(); ++j) c[j] = coef(blob, row * width + j, real);
  return combination(xs, c);
}

// {I, A, A^2, A^3, A^6}, the first count of them (A: (batch, n, n)).
std::vector<Tensor> powers(const Tensor& A_in, int count) {
  Tensor A = ops::clone_contiguous(A_in);  // upstream copies A into a contiguous buffer
  Tensor eye = call_tensor("aten::zeros_like", {t(A)});
  call("aten::fill_.Scalar",
       {t(call_tensor("aten::diagonal", {t(eye), i64(0), i64(-2), i64(-1)})), f64(1.0)});
  std::vector<Tensor> p = {eye, A};
  if (count > 2) p.push_back(bmm(A, A));
  if (count > 3) p.push_back(bmm(A, p[2]));
  if (count > 4) p.push_back(bmm(p[3], p[3]));
  return p;
}
// The sum over a stack of xs, as upstream's As.sum(0).
Tensor stack_sum(const std::vector<Tensor>& xs) {
  Tensor st = call_tensor("aten::stack", {Value::of_tensors(xs), i64(0)});
  return call_tensor("aten::sum.dim_IntList",
                     {t(st), ops::ints({0}), Value::of_bool(false), Value{}});
}

Tensor T1(const Tensor& A) { return stack_sum(powers(A, 2)); }
Tensor T2(const Tensor& A) {
  std::vector<Tensor> p = powers(A, 3);
  p[2] = call_tensor("aten::div.Scalar", {t(p[2]), f64(2.0)});
  return stack_sum(p);
}
// I + A + A^2 (I / 2 + A / 6 + A^2 / 24)
template <typename S>
Tensor T4(const Tensor& A) {
  std::vector<Tensor> p = powers(A, 3);
  const std::vector<S> c = {S(1 / 2.0), S(1 / 6.0), S(1 / 24.0)};
  p.push_back(bmm(p[2], combination(p, c, 0, 3)));
  return combination(p, std::vector<S>{S(1.0), S(1.0), S(0.0), S(1.0)}, 0, 4);
}
template <typename S>
Tensor T8(const Tensor& A) {
  // The constants in upstream's types: S-typed, each expression evaluated in double.
  const S sqrt_177 = S(0.1330413469565007072504e+2);
  const S x3 = S(2. / 3.);
  const S x1 = S(x3 * ((1. + sqrt_177) / 88.));
  const S x2 = S(x3 * ((1. + sqrt_177) / 352.));
  const S x4 = S((-271. + 29. * sqrt_177) / (315. * x3));
  const S x5 = S((-11. + 11. * sqrt_177) / (1260. * x3));
  const S x6 = S((-99. + 11. * sqrt_177) / (5040. * x3));
  const S x7 = S((89. - sqrt_177) / (5040. * x3));
  const S y2 = S((857. - 58. * sqrt_177) / 630.);
  std::vector<Tensor> p = powers(A, 3);
  // A4 = A2 (x1 A + x2 A2); A8 = (x3 A2 + A4)(x4 I + x5 A + x6 A2 + x7 A4)
  p.push_back(bmm(p[2], combination({p[1], p[2]}, std::vector<S>{x1, x2}, 0, 2)));
  Tensor left = combination({p[2], p[3]}, std::vector<S>{x3, S(1.0)}, 0, 2);
  Tensor right = combination(p, std::vector<S>{x4, x5, x6, x7}, 0, 4);
  p.push_back(bmm(left, right));
  return combination(p, std::vector<S>{S(1.0), S(1.0), y2, S(0.0), S(1.0)}, 0, 5);
}

// upstream's coefficient tables of degrees 12 (4 x 4) and 18 (5 x 5), row-major.
template <typename S>
std::vector<S> table12() {
  return {S(9.0198e-16), S(0.46932117595418237389), S(-0.20099424927047284052),
          S(-0.04623946134063071740), S(5.31597895759871264183), S(1.19926790417132231573),
          S(0.01179296240992997031), S(0.01108844528519167989), S(0.18188869982170434744),
          S(0.05502798439925399070), S(0.09351590770535414968), S(0.00610700528898058230),
          S(-2.0861320e-13), S(-0.13181061013830184015), S(-0.02027855540589259079),
          S(-0.00675951846863086359)};
}
template <typename S>
std::vector<S> table18() {
  return {S(0.), S(-1.00365581030144618291e-01), S(-8.02924648241156932449e-03),
          S(-8.92138498045729985177e-04), S(0.),
          S(0.), S(3.97849749499645077844e-01), S(1.36783778460411720168e+00),
          S(4.98289622525382669416e-01), S(-6.37898194594723280150e-04),
          S(-1.09676396052962061844e+01), S(1.68015813878906206114e+00),
          S(5.71779846478865511061e-02), S(-6.98210122488052056106e-03),
          S(3.34975017086070470649e-05),
          S(-9.04316832390810593223e-02), S(-6.76404519071381882256e-02),
          S(6.75961301770459654925e-02), S(2.95552570429315521194e-02),
          S(-1.39180257516060693404e-05),
          S(0.), S(0.), S(-9.23364619367118555360e-02), S(-1.69364939002081722752e-02),
          S(-1.40086798182036094347e-05)};
}
// Bs[i] = sum_j b[i][j] As[j], as upstream's _compute_linear_combination(As, bs).
template <typename S>
std::vector<Tensor> combinations(const std::vector<Tensor>& p, const std::vector<S>& b) {
  std::vector<Tensor> B;
  for (size_t i = 0; i < p.size(); ++i) B.push_back(combination(p, b, i, p.size()));
  return B;
}
template <typename S>
Tensor T12(const Tensor& A) {
  std::vector<Tensor> B = combinations(powers(A, 4), table12<S>());
  B[2] = add(B[2], bmm(B[3], B[3]));       // A6
  B[1] = add(B[1], B[2]);
  return add(B[0], bmm(B[1], B[2]));
}
template <typename S>
Tensor T18(const Tensor& A) {
  std::vector<Tensor> B = combinations(powers(A, 5), table18<S>());
  B[3] = add(B[3], bmm(B[0], B[4]));       // A9
  B[2] = add(B[2], B[3]);
  return add(B[1], bmm(B[2], B[3]));
}

// Host copies of a CPU int64 tensor's values.
std::vector<int64_t> host_longs(const Tensor& x) {
  Tensor c = contiguous(x, kKey);
  const int64_t* p = data_of<int64_t>(c, kKey);
  return std::vector<int64_t>(p, p + c->numel());
}

// Degree 18 of A / 2^s, squared s times, s = max(0, ceil(log2(norm / theta))) per matrix:
// upstream sorts the matrices by s and squares them as a shrinking batch, in that order.
template <typename S>
Tensor T18_scale_square(const Tensor& A, const Tensor& norm, S theta) {
  Tensor q = call_tensor("aten::div.Scalar", {t(norm), f64(theta)});
  Tensor s = call_tensor("aten::ceil", {t(call_tensor("aten::log2", {t(q)}))});
  s = call_tensor("aten::clamp", {t(s), f64(0.0), Value{}});
  Tensor pow2s = call_tensor("aten::pow.Scalar", {f64(2.0), t(call_tensor("aten::neg", {t(s)}))});
  Tensor scaled = call_tensor("aten::mul.Tensor", {t(A), t(ops::view(pow2s, {-1, 1, 1}))});
  Tensor mexp = T18<S>(scaled);
  std::vector<Value> sorted = call("aten::sort", {t(s), i64(0), Value::of_bool(false)});
  Tensor order = sorted[1].tensor;
  std::vector<int64_t> ss = host_longs(call_tensor(
      "aten::_to_copy", {t(sorted[0].tensor), Value::of_dtype(ScalarType::Long)}));
  // Runs of equal s: their lengths, and the squarings each run needs past the one before.
  std::vector<int64_t> counts, times;
  int64_t last = 0;
  for (size_t i = 0; i < ss.size(); ++i) {
    if (i > 0 && ss[i] == ss[i - 1]) {
      ++counts.back();
      continue;
    }
    counts.push_back(1);
    size_t end = i;
    while (end + 1 < ss.size() && ss[end + 1] == ss[i]) ++end;
    const int64_t u = std::max<int64_t>(ss[end], 0);
    times.push_back(u - last);
    last = u;
  }
  std::vector<Tensor> pieces;
  Tensor acc = call_tensor("aten::index_select", {t(mexp), i64(0), t(order)});
  for (size_t i = 0; i < counts.size(); ++i) {
    for (int64_t j = 0; j < times[i]; ++j) acc = bmm(acc, acc);
    pieces.push_back(ops::narrow(acc, 0, 0, counts[i]));
    acc = ops::narrow(acc, 0, counts[i], acc->size(0) - counts[i]);
  }
  Tensor out = call_tensor("aten::cat", {Value::of_tensors(pieces), i64(0)});
  Tensor back = call_tensor("aten::argsort", {t(order), i64(-1), Value::of_bool(false)});
  return call_tensor("aten::index_select", {t(out), i64(0), t(back)});
}

bool host_true(const Tensor& mask) {
  Tensor c = contiguous(mask, kKey);
  return c->numel() > 0 && *data_of<bool>(c, kKey);
}

// mexp_impl: A is (batch, n, n), n >= 2.
template <typename S>
Tensor mexp(const Tensor& A, const std::array<S, 6>& theta) {
  Tensor absA = call_tensor("aten::abs", {t(A)});
  Tensor colsum = call_tensor("aten::sum.dim_IntList",
                              {t(absA), ops::ints({-2}), Value::of_bool(false), Value{}});
  Tensor norm = call("aten::max.dim", {t(colsum), i64(-1), Value::of_bool(false)})[0].tensor;
  if (A->size(0) > 1) return T18_scale_square<S>(A, norm, theta[5]);
  // One matrix (or none): NaN unless its norm falls in one of the degrees' intervals, so that a
  // matrix holding NaN gives NaN.
  Value contiguous_format;
  contiguous_format.tag = Value::Tag::MemoryFormat;
  contiguous_format.memory_format = MemoryFormatKind::Contiguous;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Tensor res = call_tensor("aten::full_like", {t(A), f64(nan), Value{}, Value{}, Value{}, Value{},
                                               contiguous_format});
  Tensor (*const degree[5])(const Tensor&) = {T1, T2, T4<S>, T8<S>, T12<S>};
  for (int i = 0; i < 5; ++i) {
    const S lower = i == 0 ? S(-1) : theta[i - 1];
    Tensor in = call_tensor("aten::mul.Tensor",
                            {t(call_tensor("aten::gt.Scalar", {t(norm), f64(lower)})),
                             t(call_tensor("aten::le.Scalar", {t(norm), f64(theta[i])}))});
    if (host_true(in)) ops::copy_(res, degree[i](A));
  }
  if (host_true(call_tensor("aten::ge.Scalar", {t(norm), f64(theta[4])})))
    ops::copy_(res, T18_scale_square<S>(A, norm, theta[5]));
  return res;
}

Tensor matrix_exp_of(const Tensor& A) {
  const int64_t n = A->size(A->dim() - 1);
  if (n == 0) return call_tensor("aten::clone", {t(A), Value{}});
  if (n == 1) return call_tensor("aten::exp", {t(A)});
  Tensor a3 = ops::view(A, {-1, n, n});
  const ScalarType dt = A->dtype();
  Tensor r;
  if (dt == ScalarType::Float || dt == ScalarType::ComplexFloat) {
    r = mexp<float>(a3, {1.192092800768788e-07f, 5.978858893805233e-04f, 5.116619363445086e-02f,
                         5.800524627688768e-01f, 1.461661507209034e+00f,
                         3.010066362817634e+00f});
  } else {
    r = mexp<double>(a3, {2.220446049250313e-16, 2.580956802971767e-08, 3.397168839976962e-04,
                          4.991228871115323e-02, 2.996158913811580e-01,
                          1.090863719290036e+00});
  }
  return ops::view(r, A->sizes());
}

void check_inputs(const Tensor& A) {
  linalg::check_square(A, "linalg.matrix_exp");
  linalg::check_floating_or_complex(A, "linalg.matrix_exp");
}
void linalg_matrix_exp_cpu(Call& c) {
  check_inputs(c.tensor(0));
  c.ret(matrix_exp_of(c.tensor(0)));
}
// upstream's meta registration: the checks, then a contiguous tensor of the input's shape.
void linalg_matrix_exp_meta(Call& c) {
  const Tensor& A = c.tensor(0);
  check_inputs(A);
  c.ret(ops::empty(A->sizes(), A->dtype(), A->device()));
}
// matrix_exp: upstream's CompositeImplicit alias.
void matrix_exp(Call& c) { c.ret(call_tensor("aten::linalg_matrix_exp", {c.arg(0)})); }

}  // namespace

TN_REGISTER_KERNEL("aten::linalg_matrix_exp", DenseCPU, linalg_matrix_exp_cpu);
TN_REGISTER_KERNEL("aten::linalg_matrix_exp", Meta, linalg_matrix_exp_meta);
TN_REGISTER_COMPOSITE("aten::matrix_exp", matrix_exp);

}  // namespace tn
