// Unit tests of the elementwise machinery (no Python): broadcasting and its wording, result
// dtypes with wrapped numbers and 0-dim tensors, out=/in-place checks, output layout, strided and
// converting loops, and a few ops whose semantics are easy to get wrong. Values are compared
// against upstream in tests/test_elementwise_agreement.py.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "core/half.h"
#include "dispatch/kernel.h"
#include "kernels/cpu/elementwise_sleef.h"
#include "kernels/rules/elementwise.h"

using namespace tn;

namespace {

template <typename T>
Tensor make_tensor(const std::vector<T>& v, Dims sizes, ScalarType dt) {
  Tensor t = empty_tensor(sizes, dt, Device{});
  EXPECT_EQ(static_cast<size_t>(t->numel()), v.size());
  std::memcpy(t->dense_cpu_data("test"), v.data(), v.size() * sizeof(T));
  return t;
}

Tensor floats(const std::vector<float>& v, Dims sizes = {}) {
  if (sizes.empty()) sizes = {static_cast<int64_t>(v.size())};
  return make_tensor(v, sizes, ScalarType::Float);
}

Tensor longs(const std::vector<int64_t>& v, Dims sizes = {}) {
  if (sizes.empty()) sizes = {static_cast<int64_t>(v.size())};
  return make_tensor(v, sizes, ScalarType::Long);
}

double element(ScalarType dt, const char* p) {
  switch (dt) {
    case ScalarType::Float: return *reinterpret_cast<const float*>(p);
    case ScalarType::Double: return *reinterpret_cast<const double*>(p);
    case ScalarType::Long: return static_cast<double>(*reinterpret_cast<const int64_t*>(p));
    case ScalarType::Int: return *reinterpret_cast<const int32_t*>(p);
    case ScalarType::Char: return *reinterpret_cast<const int8_t*>(p);
    case ScalarType::Byte: return *reinterpret_cast<const uint8_t*>(p);
    case ScalarType::Bool: return *reinterpret_cast<const bool*>(p);
    case ScalarType::Half: return static_cast<float>(*reinterpret_cast<const Half*>(p));
    case ScalarType::BFloat16: return static_cast<float>(*reinterpret_cast<const BFloat16*>(p));
    default: ADD_FAILURE() << "dtype"; return 0;
  }
}

// The elements of t in row-major order, as doubles.
std::vector<double> values(const Tensor& t) {
  std::vector<double> out;
  const char* base = static_cast<const char*>(t->dense_cpu_data("test"));
  std::vector<int64_t> idx(t->dim(), 0);
  for (int64_t n = 0; n < t->numel(); ++n) {
    int64_t off = 0;
    for (int64_t d = 0; d < t->dim(); ++d) off += idx[d] * t->stride(d);
    const char* p = base + off * t->itemsize();
    out.push_back(element(t->dtype(), p));
    for (int64_t d = t->dim() - 1; d >= 0; --d) {
      if (++idx[d] < t->size(d)) break;
      idx[d] = 0;
    }
  }
  return out;
}

Value num(int64_t v) { return Value::of_scalar(Scalar::from_int(v)); }
Value num(double v) { return Value::of_scalar(Scalar::from_double(v)); }
Value boolean(bool v) { return Value::of_scalar(Scalar::from_bool(v)); }
Value T(const Tensor& t) { return Value::of(t); }
Value str(const char* s) {
  Value v;
  v.tag = Value::Tag::String;
  v.str = s;
  return v;
}

// The message of the tn::Error that f throws ("" if none).
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(Elementwise, BroadcastsAndReportsTheFailingDimension) {
  Dims s = {2, 1, 3};
  broadcast_into(s, {4, 1});
  EXPECT_EQ(s, (Dims{2, 4, 3}));
  Dims bad = {2, 3};
  EXPECT_EQ(error_of([&] { broadcast_into(bad, {2, 4}); }),
            "The size of tensor a (3) must match the size of tensor b (4) at non-singleton "
            "dimension 1");
  Tensor r = call_tensor("aten::add.Tensor", {T(floats({1, 2, 3}, {3, 1})), T(floats({10, 20}))});
  EXPECT_EQ(r->sizes(), (Dims{3, 2}));
  EXPECT_EQ(values(r), (std::vector<double>{11, 21, 12, 22, 13, 23}));
}

TEST(Elementwise, WrappedNumbersOnlyRaiseTheCategory) {
  Tensor i32 = make_tensor(std::vector<int32_t>{1, 2}, {2}, ScalarType::Int);
  Tensor h = make_tensor(std::vector<Half>{Half(1.f), Half(2.f)}, {2}, ScalarType::Half);
  EXPECT_EQ(call_tensor("aten::add.Tensor", {T(i32), num(int64_t{5})})->dtype(), ScalarType::Int);
  EXPECT_EQ(call_tensor("aten::add.Tensor", {T(i32), num(2.5)})->dtype(), ScalarType::Float);
  EXPECT_EQ(call_tensor("aten::mul.Scalar", {T(h), num(2.5)})->dtype(), ScalarType::Half);
  // A 0-dim tensor is its own tier: float64 0-dim does not widen float16, but lifts int32.
  Tensor d0 = make_tensor(std::vector<double>{1.5}, {}, ScalarType::Double);
  EXPECT_EQ(call_tensor("aten::add.Tensor", {T(h), T(d0)})->dtype(), ScalarType::Half);
  EXPECT_EQ(call_tensor("aten::add.Tensor", {T(i32), T(d0)})->dtype(), ScalarType::Double);
  Tensor b = make_tensor(std::vector<uint8_t>{1, 0}, {2}, ScalarType::Bool);
  EXPECT_EQ(call_tensor("aten::add.Tensor", {T(b), boolean(true)})->dtype(), ScalarType::Bool);
  EXPECT_EQ(call_tensor("aten::add.Tensor", {T(b), num(int64_t{1})})->dtype(), ScalarType::Long);
}

TEST(Elementwise, IntegerTrueDivisionGivesTheDefaultFloat) {
  Tensor r = call_tensor("aten::div.Tensor", {T(longs({1, 2, 3})), T(longs({2, 2, 2}))});
  EXPECT_EQ(r->dtype(), ScalarType::Float);
  EXPECT_EQ(values(r), (std::vector<double>{0.5, 1, 1.5}));
  Tensor f = call_tensor("aten::div.Tensor_mode", {T(longs({-7, 7})), T(longs({2, -2})),
                                                   str("floor")});
  EXPECT_EQ(f->dtype(), ScalarType::Long);
  EXPECT_EQ(values(f), (std::vector<double>{-4, -4}));
  EXPECT_EQ(error_of([&] {
              call("aten::div.Tensor_mode", {T(longs({1})), T(longs({0})), str("trunc")});
            }),
            "ZeroDivisionError");
  EXPECT_EQ(error_of([&] {
              call("aten::div.Tensor_mode", {T(longs({1})), T(longs({1})), str("xyz")});
            }),
            "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found 'xyz'");
}

TEST(Elementwise, InPlaceChecksCastAndShape) {
  EXPECT_EQ(error_of([&] { call("aten::add_.Tensor", {T(longs({1, 2})), T(floats({1, 2}))}); }),
            "result type Float can't be cast to the desired output type Long");
  EXPECT_EQ(error_of([&] {
              call("aten::add_.Tensor",
                   {T(floats({1, 2, 3})), T(floats({1, 2, 3, 4, 5, 6}, {2, 3}))});
            }),
            "output with shape [3] doesn't match the broadcast shape [2, 3]");
  Tensor a = floats({1, 2, 3});
  Tensor r = call_tensor("aten::mul_.Scalar", {T(a), num(2.0)});
  EXPECT_EQ(r.get(), a.get());
  EXPECT_EQ(values(a), (std::vector<double>{2, 4, 6}));
  EXPECT_EQ(a->version(), 1u);
  // Writing through a broadcast view is refused.
  Tensor row = floats({1, 2, 3});
  Tensor expanded = make_view(row, {2, 3}, {0, 1}, 0);
  EXPECT_NE(error_of([&] { call("aten::add_.Scalar", {T(expanded), num(int64_t{1})}); })
                .find("more than one element of the written-to tensor"),
            std::string::npos);
}

TEST(Elementwise, OutIsResizedAndCastSafely) {
  Tensor out = empty_tensor({0}, ScalarType::Double, Device{});
  Tensor r = call_tensor("aten::add.out",
                         {T(longs({1, 2})), T(longs({3, 4})), num(int64_t{1}), T(out)});
  EXPECT_EQ(r.get(), out.get());
  EXPECT_EQ(out->sizes(), (Dims{2}));
  EXPECT_EQ(values(out), (std::vector<double>{4, 6}));
  Tensor lout = empty_tensor({2}, ScalarType::Long, Device{});
  EXPECT_EQ(error_of([&] { call("aten::sqrt.out", {T(floats({1, 4})), T(lout)}); }),
            "result type Float can't be cast to the desired output type Long");
  Tensor fout = empty_tensor({2}, ScalarType::Float, Device{});
  EXPECT_EQ(error_of([&] { call("aten::neg.out", {T(longs({1, 4})), T(fout)}); }),
            "Found dtype Float but expected Long");
  EXPECT_EQ(error_of([&] {
              call("aten::add.Scalar_out", {T(longs({1})), num(2.5), num(int64_t{1}), T(lout)});
            }),
            "Expected out tensor to have dtype float, but got long int instead");
}

TEST(Elementwise, OutputFollowsTheInputLayout) {
  // exp of a transposed tensor is transposed (upstream's TensorIterator keeps the permutation).
  Tensor base = floats({0, 1, 2, 3, 4, 5}, {2, 3});
  Tensor tr = make_view(base, {3, 2}, {1, 3}, 0);
  Tensor r = call_tensor("aten::exp", {T(tr)});
  EXPECT_EQ(r->strides(), (Dims{1, 3}));
  Tensor s = call_tensor("aten::add.Tensor", {T(tr), num(int64_t{1})});
  EXPECT_EQ(s->strides(), (Dims{1, 3}));
  EXPECT_EQ(values(s), (std::vector<double>{1, 4, 2, 5, 3, 6}));
  // Mixed layouts with a contiguous operand: contiguous.
  Tensor c = floats({0, 0, 0, 0, 0, 0}, {3, 2});
  EXPECT_EQ(call_tensor("aten::add.Tensor", {T(c), T(tr)})->strides(), (Dims{2, 1}));
}

TEST(Elementwise, StridedAndConvertingLoops) {
  // A strided float16 input (every other element), added to an int64 row, out in float16.
  std::vector<Half> hv;
  for (int i = 0; i < 2000; ++i) hv.push_back(Half(static_cast<float>(i)));
  Tensor h = make_tensor(hv, {1000, 2}, ScalarType::Half);
  Tensor col = make_view(h, {1000}, {2}, 0);
  Tensor r = call_tensor("aten::mul.Tensor", {T(col), T(longs({3}))});
  EXPECT_EQ(r->dtype(), ScalarType::Half);
  std::vector<double> got = values(r);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(got[i], static_cast<float>(Half(6.0f * i))) << i;
}

TEST(Elementwise, PowSemantics) {
  Tensor r = call_tensor("aten::pow.Tensor_Scalar", {T(floats({-2, -8})), num(3.0)});
  EXPECT_EQ(values(r), (std::vector<double>{-8, -512}));  // not exp(y * log x)
  Tensor i = call_tensor("aten::pow.Tensor_Tensor", {T(longs({2, -1, 3})), T(longs({10, -3, -1}))});
  EXPECT_EQ(values(i), (std::vector<double>{1024, -1, 0}));
  EXPECT_EQ(error_of([&] { call("aten::pow.Tensor_Scalar", {T(longs({2})), num(int64_t{-1})}); }),
            "Integers to negative integer powers are not allowed.");
  Tensor i8 = make_tensor(std::vector<int8_t>{3, -4}, {2}, ScalarType::Char);
  Tensor sq = call_tensor("aten::square", {T(i8)});
  EXPECT_EQ(sq->dtype(), ScalarType::Char);
  EXPECT_EQ(values(sq), (std::vector<double>{9, 16}));
  Tensor one = call_tensor("aten::pow.Scalar", {num(1.0), T(floats({NAN, 2}))});
  EXPECT_EQ(values(one), (std::vector<double>{1, 1}));
}

TEST(Elementwise, NanPropagatesThroughMaxMinAndClamp) {
  float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<double> mx =
      values(call_tensor("aten::maximum", {T(floats({nan, 1})), T(floats({0, nan}))}));
  EXPECT_TRUE(std::isnan(mx[0]) && std::isnan(mx[1]));
  std::vector<double> cl =
      values(call_tensor("aten::clamp", {T(floats({nan, 5, -5})), num(0.0), num(1.0)}));
  EXPECT_TRUE(std::isnan(cl[0]));
  EXPECT_EQ(cl[1], 1);
  EXPECT_EQ(cl[2], 0);
  std::vector<double> cn =
      values(call_tensor("aten::clamp", {T(floats({1, 2})), num(double(nan)), Value{}}));
  EXPECT_TRUE(std::isnan(cn[0]) && std::isnan(cn[1]));
  EXPECT_EQ(error_of([&] { call("aten::clamp_", {T(longs({1})), num(0.5), Value{}}); }),
            "result type Float can't be cast to the desired output type long int");
}

TEST(Elementwise, ComparisonsGiveBoolAndCastIntoAnyOut) {
  Tensor r = call_tensor("aten::lt.Scalar", {T(longs({1, 2, 3})), num(2.5)});
  EXPECT_EQ(r->dtype(), ScalarType::Bool);
  EXPECT_EQ(values(r), (std::vector<double>{1, 1, 0}));
  Tensor self = floats({1, 5});
  call("aten::eq_.Tensor", {T(self), T(longs({1, 2}))});
  EXPECT_EQ(values(self), (std::vector<double>{1, 0}));
  Tensor cond = call_tensor("aten::gt.Scalar", {T(longs({1, 5})), num(int64_t{2})});
  Tensor w = call_tensor("aten::where.ScalarOther", {T(cond), T(longs({10, 20})), num(2.5)});
  EXPECT_EQ(w->dtype(), ScalarType::Float);
  EXPECT_EQ(values(w), (std::vector<double>{2.5, 20}));
}

TEST(Elementwise, UnaryDtypes) {
  EXPECT_EQ(call_tensor("aten::sqrt", {T(longs({4}))})->dtype(), ScalarType::Float);
  EXPECT_EQ(call_tensor("aten::abs", {T(longs({-4}))})->dtype(), ScalarType::Long);
  EXPECT_EQ(call_tensor("aten::neg", {T(longs({-4}))})->dtype(), ScalarType::Long);
  EXPECT_EQ(call_tensor("aten::isnan", {T(longs({4}))})->dtype(), ScalarType::Bool);
  Tensor b = make_tensor(std::vector<uint8_t>{1}, {1}, ScalarType::Bool);
  EXPECT_EQ(error_of([&] { call("aten::sub.Tensor", {T(b), num(int64_t{1})}); }),
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
            "trying to invert a mask, use the `~` or `logical_not()` operator instead.");
  EXPECT_EQ(error_of([&] { call("aten::bitwise_not", {T(floats({1}))}); }),
            "\"bitwise_not_cpu\" not implemented for 'Float'");
  // expm1 is not exp(x) - 1 for small x.
  double e = values(call_tensor("aten::expm1", {T(floats({1e-10f}))}))[0];
  EXPECT_NEAR(e, 1e-10, 1e-16);
}

TEST(Elementwise, GeluFormsDiffer) {
  Tensor x = floats({-3, -1, 0.5f, 2});
  std::vector<double> none = values(call_tensor("aten::gelu", {T(x), str("none")}));
  std::vector<double> th = values(call_tensor("aten::gelu", {T(x), str("tanh")}));
  for (size_t i = 0; i < none.size(); ++i) {
    double xi = values(x)[i];
    EXPECT_NEAR(none[i], xi * 0.5 * (1 + std::erf(xi / std::sqrt(2.0))), 1e-6);
  }
  EXPECT_NE(none[0], th[0]);
}

// Contiguous float32 sigmoid and silu run SLEEF's vector exp a chunk at a time; the results
// must keep the per-element formulas' bits: SLEEF's exp where upstream's vector loop runs (all
// but the last n % 16 elements), std::exp on that tail.
TEST(Elementwise, SigmoidAndSiluKeepThePerElementBits) {
  if (!sleef::available()) GTEST_SKIP() << "built without SLEEF or no FMA";
  std::vector<float> x(1000);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.37f * i) * (i % 7 ? 9.0f : 90.0f);
  std::vector<double> sg = values(call_tensor("aten::sigmoid", {T(floats(x))}));
  std::vector<double> si = values(call_tensor("aten::silu", {T(floats(x))}));
  for (size_t i = 0; i < x.size(); ++i) {
    bool vec = i < x.size() - x.size() % 16;
    float e = vec ? sleef::exp(0.f - x[i]) : std::exp(-x[i]);
    ASSERT_EQ(static_cast<float>(sg[i]), 1.f / (1.f + e)) << i;
    e = vec ? sleef::exp(-x[i]) : std::exp(-x[i]);
    ASSERT_EQ(static_cast<float>(si[i]), x[i] / (1.f + e)) << i;
  }
}

TEST(Elementwise, MetaTensorsGetShapeAndDtypeOnly) {
  Tensor m = call_tensor("aten::empty.memory_format",
                         {Value::of_ints({4, 1}), Value::of_dtype(ScalarType::Int), Value{},
                          Value::of_device(Device{DeviceType::Meta, -1})});
  Tensor r = call_tensor("aten::div.Tensor", {T(m), num(int64_t{2})});
  EXPECT_EQ(r->representation(), Representation::Meta);
  EXPECT_EQ(r->dtype(), ScalarType::Float);
  EXPECT_EQ(r->sizes(), (Dims{4, 1}));
  EXPECT_EQ(error_of([&] { call("aten::add_.Tensor", {T(m), num(2.5)}); }),
            "result type Float can't be cast to the desired output type Int");
}
