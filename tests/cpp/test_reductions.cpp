// Tests of the reductions, matmul and nn kernel families through the door (tn::call): strided
// inputs agree with contiguous ones, meta gives shapes and dtypes without bytes, and errors
// carry upstream's kind and message. Agreement with upstream's values is checked from Python.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "dispatch/kernel.h"
#include "kernels/cpu/cpu_util.h"

using namespace tn;

namespace {

Value V(const Tensor& t) { return Value::of(t); }
Value I(int64_t i) { return Value::of_int(i); }
Value L(Dims d) { return Value::of_ints(std::move(d)); }
Value B(bool b) { return Value::of_bool(b); }
Value DT(ScalarType t) { return Value::of_dtype(t); }
const Value kNone{};

// A dense CPU tensor of dtype dt holding vals (row-major) with the given sizes.
Tensor make(const Dims& sizes, std::vector<double> vals, ScalarType dt = ScalarType::Float) {
  Tensor d = empty_tensor({static_cast<int64_t>(vals.size())}, ScalarType::Double, Device{});
  std::memcpy(d->dense_cpu_data("test"), vals.data(), vals.size() * sizeof(double));
  Tensor out = empty_tensor(sizes, dt, Device{});
  copy_cast(out, make_view(d, sizes, contiguous_strides(sizes), 0), "test");
  return out;
}
Tensor iota(const Dims& sizes, ScalarType dt = ScalarType::Float, double scale = 1) {
  std::vector<double> v(numel_of(sizes));
  for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(static_cast<double>(i) * 0.7) * scale;
  return make(sizes, v, dt);
}
// Values of t (any strides) in row-major order, as doubles.
std::vector<double> vals(const Tensor& t) {
  Tensor d = empty_tensor(t->sizes(), ScalarType::Double, Device{});
  copy_cast(d, t, "test");
  auto* p = static_cast<double*>(d->dense_cpu_data("test"));
  return std::vector<double>(p, p + d->numel());
}
Tensor transposed(const Tensor& t) {
  return make_view(t, {t->size(1), t->size(0)}, {t->stride(1), t->stride(0)}, t->storage_offset());
}
Tensor meta(const Dims& sizes, ScalarType dt = ScalarType::Float) {
  return empty_tensor(sizes, dt, Device{DeviceType::Meta, -1});
}
// The error kind and message of f(), or Internal/"" when it did not throw.
template <typename F>
std::pair<ErrorKind, std::string> error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return {e.kind, e.what()};
  }
  return {ErrorKind::Internal, ""};
}
void expect_near(const std::vector<double>& a, const std::vector<double>& b, double tol) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], tol) << "at " << i;
}

}  // namespace

TEST(Reductions, SumOfStridedViewEqualsContiguous) {
  Tensor x = iota({3, 4});
  Tensor xt = transposed(x);  // (4, 3), strides (1, 4)
  Tensor c = contiguous(xt, "test");
  for (int64_t d : {0, 1, -1}) {
    EXPECT_EQ(vals(call_tensor("aten::sum.dim_IntList", {V(xt), L({d})})),
              vals(call_tensor("aten::sum.dim_IntList", {V(c), L({d})})));
  }
  Tensor r = call_tensor("aten::sum.dim_IntList", {V(xt), L({0, -1}), B(true)});
  EXPECT_EQ(r->sizes(), (Dims{1, 1}));
  EXPECT_NEAR(vals(r)[0], vals(call_tensor("aten::sum", {V(x)}))[0], 1e-6);
}

TEST(Reductions, SumDtypesAndEmpty) {
  Tensor b = make({3}, {1, 0, 1}, ScalarType::Bool);
  Tensor s = call_tensor("aten::sum", {V(b)});
  EXPECT_EQ(s->dtype(), ScalarType::Long);
  EXPECT_EQ(vals(s)[0], 2);
  EXPECT_EQ(call_tensor("aten::sum", {V(make({2}, {1, 2}, ScalarType::Int))})->dtype(),
            ScalarType::Long);
  Tensor h = call_tensor("aten::sum", {V(make({2}, {0.5, 1.75}))});
  EXPECT_EQ(vals(h)[0], 2.25);
  // dtype= casts each element first, as upstream: 0.5 + 0.5 summed as int32 is 0.
  Tensor i = call_tensor("aten::sum.dim_IntList", {V(make({2}, {0.5, 0.5})), kNone, B(false),
                                                  DT(ScalarType::Int)});
  EXPECT_EQ(i->dtype(), ScalarType::Int);
  EXPECT_EQ(vals(i)[0], 0);
  Tensor e = call_tensor("aten::sum.dim_IntList", {V(make({0, 3}, {})), L({0})});
  EXPECT_EQ(vals(e), (std::vector<double>{0, 0, 0}));
  EXPECT_EQ(vals(call_tensor("aten::prod", {V(make({0}, {}))}))[0], 1);
}

TEST(Reductions, DimErrorsHaveUpstreamKinds) {
  Tensor x = iota({2, 3});
  auto e1 = error_of([&] { call("aten::sum.dim_IntList", {V(x), L({5})}); });
  EXPECT_EQ(e1.first, ErrorKind::Index);
  EXPECT_EQ(e1.second, "Dimension out of range (expected to be in range of [-2, 1], but got 5)");
  auto e2 = error_of([&] { call("aten::sum.dim_IntList", {V(x), L({0, -2})}); });
  EXPECT_EQ(e2.first, ErrorKind::Runtime);
  EXPECT_EQ(e2.second, "dim 0 appears multiple times in the list of dims");
  auto e3 = error_of([&] { call("aten::mean", {V(make({2}, {1, 2}, ScalarType::Long))}); });
  EXPECT_EQ(e3.second, "mean(): could not infer output dtype. Input dtype must be either a "
                       "floating point or complex dtype. Got: Long");
}

TEST(Reductions, MeanProdCumsum) {
  Tensor x = make({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(vals(call_tensor("aten::mean.dim", {V(x), L({1})})), (std::vector<double>{2, 5}));
  EXPECT_EQ(vals(call_tensor("aten::prod.dim_int", {V(x), I(0)})),
            (std::vector<double>{4, 10, 18}));
  Tensor cs = call_tensor("aten::cumsum", {V(transposed(x)), I(0)});
  EXPECT_EQ(cs->sizes(), (Dims{3, 2}));
  EXPECT_EQ(vals(cs), (std::vector<double>{1, 4, 3, 9, 6, 15}));
  Tensor ci = call_tensor("aten::cumsum", {V(make({3}, {1, 1, 1}, ScalarType::Bool)), I(0)});
  EXPECT_EQ(ci->dtype(), ScalarType::Long);
  EXPECT_EQ(vals(ci), (std::vector<double>{1, 2, 3}));
}

TEST(Reductions, MaxPropagatesNanAndFirstIndexWins) {
  Tensor x = make({2, 4}, {1, NAN, 3, NAN, 5, 7, 7, 2});
  auto r = call("aten::max.dim", {V(x), I(1)});
  auto v = vals(r[0].tensor);
  EXPECT_TRUE(std::isnan(v[0]));
  EXPECT_EQ(v[1], 7);
  EXPECT_EQ(vals(r[1].tensor), (std::vector<double>{1, 1}));
  EXPECT_EQ(vals(call_tensor("aten::argmin", {V(x), I(1)})), (std::vector<double>{1, 3}));
  EXPECT_TRUE(std::isnan(vals(call_tensor("aten::amax", {V(x)}))[0]));
  Tensor flat = call_tensor("aten::argmax", {V(make({2, 2}, {1, 9, 9, 0}))});
  EXPECT_EQ(flat->dim(), 0);
  EXPECT_EQ(vals(flat)[0], 1);
}

TEST(Reductions, ExtremaOfEmptyRefuseAsUpstream) {
  auto e1 = error_of([&] { call("aten::max", {V(make({0}, {}))}); });
  EXPECT_EQ(e1.first, ErrorKind::Runtime);
  EXPECT_EQ(e1.second, "max(): Expected reduction dim to be specified for input.numel() == 0. "
                       "Specify the reduction dim with the 'dim' argument.");
  auto e2 = error_of([&] { call("aten::max.dim", {V(make({0, 3}, {})), I(0)}); });
  EXPECT_EQ(e2.first, ErrorKind::Index);
  EXPECT_EQ(e2.second, "max(): Expected reduction dim 0 to have non-zero size.");
  auto ok = call("aten::max.dim", {V(make({0, 3}, {})), I(1)});
  EXPECT_EQ(ok[0].tensor->sizes(), (Dims{0}));
  auto e3 = error_of([&] { call("aten::argmax", {V(make({2}, {1, 0}, ScalarType::Bool))}); });
  EXPECT_EQ(e3.second, "argmax(): does not support bool input");
}

TEST(Reductions, VarStdCorrection) {
  Tensor x = make({4}, {1, 2, 3, 4});
  EXPECT_NEAR(vals(call_tensor("aten::var", {V(x)}))[0], 5.0 / 3, 1e-6);
  EXPECT_NEAR(vals(call_tensor("aten::std", {V(x), B(false)}))[0], std::sqrt(1.25), 1e-6);
  Value corr = Value::of_scalar(Scalar::from_double(2));
  EXPECT_NEAR(vals(call_tensor("aten::var.correction", {V(x), kNone, corr}))[0], 2.5, 1e-6);
  EXPECT_TRUE(std::isnan(vals(call_tensor("aten::var", {V(make({1}, {3}))}))[0]));
  auto e = error_of([&] { call("aten::var", {V(make({2}, {1, 2}, ScalarType::Long))}); });
  EXPECT_EQ(e.second, "std and var only support floating point and complex dtypes");
}

TEST(Reductions, AnyAllAndNorm) {
  Tensor u = make({2, 2}, {0, 3, 0, 0}, ScalarType::Byte);
  Tensor a = call_tensor("aten::any.dim", {V(u), I(1)});
  EXPECT_EQ(a->dtype(), ScalarType::Byte);
  EXPECT_EQ(vals(a), (std::vector<double>{1, 0}));
  EXPECT_EQ(call_tensor("aten::all", {V(make({0}, {}))})->dtype(), ScalarType::Bool);
  EXPECT_EQ(vals(call_tensor("aten::all", {V(make({0}, {}))}))[0], 1);
  Tensor x = make({2}, {3, -4});
  EXPECT_NEAR(vals(call_tensor("aten::linalg_vector_norm", {V(x)}))[0], 5, 1e-6);
  Value inf = Value::of_scalar(Scalar::from_double(INFINITY));
  EXPECT_EQ(vals(call_tensor("aten::linalg_vector_norm", {V(x), inf}))[0], 4);
}

TEST(Reductions, MetaGivesShapesWithoutBytes) {
  Tensor m = meta({2, 3, 4}, ScalarType::Int);
  Tensor s = call_tensor("aten::sum.dim_IntList", {V(m), L({-1}), B(true)});
  EXPECT_EQ(s->representation(), Representation::Meta);
  EXPECT_EQ(s->sizes(), (Dims{2, 3, 1}));
  EXPECT_EQ(s->dtype(), ScalarType::Long);
  EXPECT_EQ(s->storage()->data(), nullptr);
  auto mx = call("aten::max.dim", {V(meta({2, 3})), I(0)});
  EXPECT_EQ(mx[1].tensor->dtype(), ScalarType::Long);
  EXPECT_EQ(mx[1].tensor->sizes(), (Dims{3}));
  Tensor mm = call_tensor("aten::matmul", {V(meta({5, 1, 3, 4})), V(meta({2, 4, 6}))});
  EXPECT_EQ(mm->sizes(), (Dims{5, 2, 3, 6}));
  Tensor ln = call("aten::native_layer_norm",
                   {V(meta({2, 3, 4}, ScalarType::BFloat16)), L({4}),
                    V(meta({4})), kNone, Value::of_double(1e-5)})[1].tensor;
  EXPECT_EQ(ln->sizes(), (Dims{2, 3, 1}));
  EXPECT_EQ(ln->dtype(), ScalarType::Float);
  Tensor at = call_tensor("aten::scaled_dot_product_attention",
                          {V(meta({1, 4, 5, 8})), V(meta({1, 2, 7, 8})), V(meta({1, 2, 7, 3})),
                           kNone, Value::of_double(0), B(false), kNone, B(true)});
  EXPECT_EQ(at->sizes(), (Dims{1, 4, 5, 3}));
}

namespace {
// Reference product of row-major a (m x k) and b (k x n) in double.
std::vector<double> naive_mm(const std::vector<double>& a, const std::vector<double>& b,
                             int64_t m, int64_t k, int64_t n) {
  std::vector<double> c(m * n, 0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t q = 0; q < k; ++q) c[i * n + j] += a[i * k + q] * b[q * n + j];
  return c;
}
}  // namespace

TEST(Matmul, TransposedViewsAgreeWithContiguous) {
  Tensor a = iota({3, 5}), bt = iota({4, 5}, ScalarType::Float, 2);
  Tensor b = transposed(bt);  // (5, 4), the layout nn.Linear passes
  auto ref = naive_mm(vals(a), vals(b), 3, 5, 4);
  expect_near(vals(call_tensor("aten::mm", {V(a), V(b)})), ref, 1e-5);
  expect_near(vals(call_tensor("aten::mm", {V(a), V(contiguous(b, "t"))})), ref, 1e-5);
  // Neither stride 1: a strided slice (every other column) is packed first.
  Tensor wide = iota({3, 10});
  Tensor every2 = make_view(wide, {3, 5}, {10, 2}, 0);
  expect_near(vals(call_tensor("aten::mm", {V(every2), V(b)})),
              naive_mm(vals(every2), vals(b), 3, 5, 4), 1e-5);
  Tensor ai = make({2, 2}, {1, 2, 3, 4}, ScalarType::Long);
  EXPECT_EQ(vals(call_tensor("aten::mm", {V(ai), V(transposed(ai))})),
            (std::vector<double>{5, 11, 11, 25}));
}

TEST(Matmul, ErrorsAsUpstream) {
  Tensor a = iota({2, 3});
  auto e1 = error_of([&] { call("aten::mm", {V(a), V(a)}); });
  EXPECT_EQ(e1.second, "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)");
  auto e2 = error_of([&] { call("aten::mm", {V(a), V(iota({3, 2}, ScalarType::Double))}); });
  EXPECT_EQ(e2.second, "expected m1 and m2 to have the same dtype, but got: float != double");
  auto e3 = error_of([&] { call("aten::matmul", {V(make({}, {1})), V(a)}); });
  EXPECT_EQ(e3.second, "both arguments to matmul need to be at least 1D, but they are 0D and 2D");
  auto e4 = error_of([&] { call("aten::mm", {V(make({1, 1}, {1}, ScalarType::Bool)),
                                             V(make({1, 1}, {1}, ScalarType::Bool))}); });
  EXPECT_EQ(e4.first, ErrorKind::NotImplemented);
}

TEST(Matmul, AddmmBaddbmmMvDot) {
  Tensor a = iota({2, 3}), b = iota({3, 2}, ScalarType::Float, 3);
  Tensor bias = make({2}, {10, NAN});
  Value beta = Value::of_scalar(Scalar::from_double(0.5));
  Value alpha = Value::of_scalar(Scalar::from_int(2));
  auto ab = naive_mm(vals(a), vals(b), 2, 3, 2);
  Tensor r = call_tensor("aten::addmm", {V(make({2}, {10, 20})), V(a), V(b), beta, alpha});
  expect_near(vals(r), {5 + 2 * ab[0], 10 + 2 * ab[1], 5 + 2 * ab[2], 10 + 2 * ab[3]}, 1e-5);
  // beta == 0 ignores self, NaN included.
  Value zero = Value::of_scalar(Scalar::from_int(0));
  expect_near(vals(call_tensor("aten::addmm", {V(bias), V(a), V(b), zero})), ab, 1e-5);
  Tensor a3 = make_view(a, {4, 2, 3}, {0, 3, 1}, 0);  // a batch of 4 expanded (stride 0)
  Tensor bb = call_tensor("aten::bmm", {V(a3), V(make_view(b, {4, 3, 2}, {0, 2, 1}, 0))});
  auto bv = vals(bb);
  for (int i = 0; i < 4; ++i)
    expect_near(std::vector<double>(bv.begin() + 4 * i, bv.begin() + 4 * i + 4), ab, 1e-5);
  Tensor v = make({3}, {1, 2, 3});
  expect_near(vals(call_tensor("aten::mv", {V(a), V(v)})),
              naive_mm(vals(a), {1, 2, 3}, 2, 3, 1), 1e-5);
  EXPECT_NEAR(vals(call_tensor("aten::dot", {V(v), V(v)}))[0], 14, 1e-6);
}

TEST(Matmul, MatmulBroadcastingAndLinear) {
  Tensor a = iota({2, 1, 3, 4}), b = iota({5, 4, 2}, ScalarType::Float, 2);
  Tensor r = call_tensor("aten::matmul", {V(a), V(b)});
  ASSERT_EQ(r->sizes(), (Dims{2, 5, 3, 2}));
  auto av = vals(a), bv = vals(b), rv = vals(r);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 5; ++j) {
      auto ref = naive_mm(std::vector<double>(av.begin() + 12 * i, av.begin() + 12 * i + 12),
                          std::vector<double>(bv.begin() + 8 * j, bv.begin() + 8 * j + 8), 3, 4, 2);
      expect_near(std::vector<double>(rv.begin() + (i * 5 + j) * 6,
                                      rv.begin() + (i * 5 + j) * 6 + 6), ref, 1e-5);
    }
  EXPECT_EQ(call_tensor("aten::matmul", {V(iota({4})), V(b)})->sizes(), (Dims{5, 2}));
  EXPECT_EQ(call_tensor("aten::matmul", {V(a), V(iota({4}))})->sizes(), (Dims{2, 1, 3}));
  // linear: 3-D input, weight (out, in) passed as is, bias folded into addmm.
  Tensor x = iota({2, 3, 4}), w = iota({5, 4}, ScalarType::Float, 0.5), bias = iota({5});
  Tensor y = call_tensor("aten::linear", {V(x), V(w), V(bias)});
  ASSERT_EQ(y->sizes(), (Dims{2, 3, 5}));
  auto ref = naive_mm(vals(x), vals(transposed(w)), 6, 4, 5);
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 5; ++j) ref[i * 5 + j] += vals(bias)[j];
  expect_near(vals(y), ref, 1e-5);
  expect_near(vals(call_tensor("aten::linear", {V(transposed(iota({4, 6}))), V(w)})),
              naive_mm(vals(transposed(iota({4, 6}))), vals(transposed(w)), 6, 4, 5), 1e-5);
}

TEST(Matmul, HalfRoundsTheFloatProductOnce) {
  Tensor a = iota({3, 4}), b = iota({4, 2}, ScalarType::Float, 3);
  Tensor h = call_tensor("aten::mm", {V(cast_to(a, ScalarType::Half, "t")),
                                      V(cast_to(b, ScalarType::Half, "t"))});
  EXPECT_EQ(h->dtype(), ScalarType::Half);
  Tensor f = call_tensor("aten::mm", {V(cast_to(cast_to(a, ScalarType::Half, "t"),
                                                ScalarType::Float, "t")),
                                      V(cast_to(cast_to(b, ScalarType::Half, "t"),
                                                ScalarType::Float, "t"))});
  EXPECT_EQ(vals(h), vals(cast_to(f, ScalarType::Half, "t")));
}

TEST(Nn, SoftmaxIsStableAndLogConsistent) {
  Tensor x = make({2, 3}, {1000, 1001, 1002, -1, 0, 1});
  auto s = vals(call_tensor("aten::_softmax", {V(x), I(1), B(false)}));
  auto s2 = vals(call_tensor("aten::softmax.int", {V(make({2, 3}, {0, 1, 2, -1, 0, 1})), I(1)}));
  expect_near(s, s2, 1e-6);
  EXPECT_NEAR(s[0] + s[1] + s[2], 1, 1e-6);
  auto ls = vals(call_tensor("aten::_log_softmax", {V(transposed(x)), I(0), B(false)}));
  auto st = vals(call_tensor("aten::_softmax", {V(transposed(x)), I(0), B(false)}));
  for (size_t i = 0; i < ls.size(); ++i) EXPECT_NEAR(ls[i], std::log(st[i]), 1e-5);
  auto e = error_of([&] { call("aten::_softmax", {V(x), I(1), B(true)}); });
  EXPECT_EQ(e.second, "softmax with half to float conversion is not supported on CPU");
}

TEST(Nn, LayerNormNormalisesRows) {
  Tensor x = iota({2, 3, 4}, ScalarType::Float, 5);
  auto r = call("aten::native_layer_norm", {V(x), L({4}), kNone, kNone, Value::of_double(1e-5)});
  auto y = vals(r[0].tensor);
  for (int row = 0; row < 6; ++row) {
    double m = 0, v = 0;
    for (int k = 0; k < 4; ++k) m += y[row * 4 + k] / 4;
    for (int k = 0; k < 4; ++k) v += (y[row * 4 + k] - m) * (y[row * 4 + k] - m) / 4;
    EXPECT_NEAR(m, 0, 1e-5);
    EXPECT_NEAR(v, 1, 1e-3);
  }
  EXPECT_EQ(r[2].tensor->sizes(), (Dims{2, 3, 1}));
  auto e = error_of([&] { call("aten::layer_norm", {V(x), L({3})}); });
  EXPECT_EQ(e.second, "Given normalized_shape=[3], expected input with shape [*, 3], but got "
                      "input of size[2, 3, 4]");
}

TEST(Nn, EmbeddingDropout) {
  Tensor w = make({3, 2}, {0, 1, 10, 11, 20, 21});
  Tensor idx = make({2, 2}, {2, 0, 1, 1}, ScalarType::Long);
  Tensor e = call_tensor("aten::embedding", {V(transposed(transposed(w))), V(idx)});
  EXPECT_EQ(e->sizes(), (Dims{2, 2, 2}));
  EXPECT_EQ(vals(e), (std::vector<double>{20, 21, 0, 1, 10, 11, 10, 11}));
  auto bad = error_of([&] {
    call("aten::embedding", {V(w), V(make({1}, {3}, ScalarType::Long))});
  });
  EXPECT_EQ(bad.first, ErrorKind::Index);
  EXPECT_EQ(bad.second, "index out of range in self");
  Tensor same = call_tensor("aten::dropout", {V(w), Value::of_double(0.5), B(false)});
  EXPECT_EQ(same.get(), w.get());
  // Training mode samples: every element is dropped (0) or kept and scaled by 1 / (1 - p).
  auto rng = error_of([&] {
    Tensor d = call_tensor("aten::dropout", {V(w), Value::of_double(0.5), B(true)});
    std::vector<double> in = vals(w), out = vals(d);
    ASSERT_EQ(out.size(), in.size());
    for (size_t i = 0; i < in.size(); ++i) EXPECT_TRUE(out[i] == 0 || out[i] == 2 * in[i]) << i;
  });
  EXPECT_EQ(rng.second, "");
}

TEST(Nn, AttentionMatchesTheMathAndGqaRepeatsHeads) {
  Tensor q = iota({1, 2, 3, 4}), k = iota({1, 1, 5, 4}, ScalarType::Float, 2);
  Tensor v = iota({1, 1, 5, 3}, ScalarType::Float, 3);
  Value z = Value::of_double(0);
  Tensor g = call_tensor("aten::scaled_dot_product_attention",
                         {V(q), V(k), V(v), kNone, z, B(true), kNone, B(true)});
  // Broadcasting the single kv head gives the same answer without GQA.
  Tensor b = call_tensor("aten::scaled_dot_product_attention",
                         {V(q), V(k), V(v), kNone, z, B(true)});
  EXPECT_EQ(vals(g), vals(b));
  // Reference for head 0, causal: softmax(q k^T / 2) over j <= i, then @ v.
  auto qv = vals(q), kv = vals(k), vv = vals(v), out = vals(g);
  for (int i = 0; i < 3; ++i) {
    std::vector<double> p(5, 0);
    double mx = -1e300, sum = 0;
    for (int j = 0; j <= i; ++j) {
      for (int e = 0; e < 4; ++e) p[j] += qv[i * 4 + e] * kv[j * 4 + e] / 2;
      mx = std::max(mx, p[j]);
    }
    for (int j = 0; j <= i; ++j) sum += (p[j] = std::exp(p[j] - mx));
    for (int e = 0; e < 3; ++e) {
      double o = 0;
      for (int j = 0; j <= i; ++j) o += p[j] / sum * vv[j * 3 + e];
      EXPECT_NEAR(out[i * 3 + e], o, 1e-5);
    }
  }
  Tensor mask = make({3, 5}, std::vector<double>(15, 0), ScalarType::Bool);
  auto masked = vals(call_tensor("aten::scaled_dot_product_attention", {V(q), V(k), V(v),
                                                                        V(mask)}));
  for (double x : masked) EXPECT_EQ(x, 0);  // fully masked rows: the safe softmax gives 0
}
