// Unit tests of csrc/core (no Python): storage sharing, views, strides, version counters, the
// dense-CPU accessor's refusal, and the dtype table.
#include <gtest/gtest.h>

#include <cstring>

#include "core/tensor_impl.h"

using namespace tn;

TEST(Core, ContiguousStrides) {
  EXPECT_EQ(contiguous_strides({2, 3, 4}), (Dims{12, 4, 1}));
  EXPECT_EQ(contiguous_strides({}), (Dims{}));
  EXPECT_EQ(contiguous_strides({0, 3}), (Dims{3, 1}));
}

TEST(Core, EmptyTensorIsContiguous) {
  Tensor t = empty_tensor({2, 3}, ScalarType::Float, Device{});
  EXPECT_EQ(t->numel(), 6);
  EXPECT_TRUE(t->is_contiguous());
  EXPECT_EQ(t->storage()->nbytes(), 24u);
}

TEST(Core, ViewsShareStorageAndSeeWrites) {
  Tensor base = empty_tensor({2, 3}, ScalarType::Float, Device{});
  auto* data = static_cast<float*>(base->dense_cpu_data("test"));
  for (int i = 0; i < 6; ++i) data[i] = static_cast<float>(i);
  // The transpose: sizes (3, 2), strides (1, 3).
  Tensor tr = make_view(base, {3, 2}, {1, 3}, 0);
  EXPECT_FALSE(tr->is_contiguous());
  EXPECT_EQ(tr->storage().get(), base->storage().get());
  // Row 1 of base as a view at offset 3.
  Tensor row = make_view(base, {3}, {1}, 3);
  static_cast<float*>(row->dense_cpu_data("test"))[1] = 42.f;
  EXPECT_EQ(data[4], 42.f);
  auto* tdata = static_cast<float*>(tr->dense_cpu_data("test"));
  EXPECT_EQ(tdata[1 * 1 + 1 * 3], 42.f);  // tr[1][1] is base[1][1]
}

TEST(Core, VersionCounterIsSharedByViews) {
  Tensor base = empty_tensor({4}, ScalarType::Int, Device{});
  Tensor v = make_view(base, {2}, {2}, 0);
  EXPECT_EQ(base->version(), 0u);
  v->bump_version();
  EXPECT_EQ(base->version(), 1u);
  Tensor other = empty_tensor({4}, ScalarType::Int, Device{});
  EXPECT_EQ(other->version(), 0u);
}

TEST(Core, MetaHasNoBytesAndRefusesDenseAccess) {
  Tensor m = empty_tensor({1000, 1000}, ScalarType::Double, Device{DeviceType::Meta, -1});
  EXPECT_EQ(m->storage()->data(), nullptr);
  EXPECT_EQ(m->numel(), 1000000);
  try {
    m->dense_cpu_data("aten.gelu.default");
    FAIL() << "meta tensor handed out dense CPU data";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind, ErrorKind::NotImplemented);
    EXPECT_NE(std::strstr(e.what(), "aten.gelu.default"), nullptr);
    EXPECT_NE(std::strstr(e.what(), "Meta"), nullptr);
  }
}

TEST(Core, NegativeSizeIsAnError) {
  EXPECT_THROW(empty_tensor({2, -1}, ScalarType::Float, Device{}), Error);
}

TEST(Core, StorageBytesNeeded) {
  EXPECT_EQ(storage_bytes_needed({3, 2}, {1, 3}, 0, 4), 24u);
  EXPECT_EQ(storage_bytes_needed({3}, {1}, 3, 4), 24u);
  EXPECT_EQ(storage_bytes_needed({0, 5}, {5, 1}, 0, 4), 0u);
}

TEST(Core, DtypeTableKeepsBoolApartFromUint8) {
  EXPECT_NE(ScalarType::Bool, ScalarType::Byte);
  EXPECT_STREQ(name(ScalarType::Bool), "bool");
  EXPECT_STREQ(name(ScalarType::Byte), "uint8");
  EXPECT_EQ(itemsize(ScalarType::BFloat16), 2);
  EXPECT_TRUE(is_floating(ScalarType::BFloat16));
  EXPECT_TRUE(info(ScalarType::ComplexFloat).supported);
  EXPECT_TRUE(info(ScalarType::ComplexHalf).supported);  // computed as complex<float>
  EXPECT_FALSE(info(ScalarType::Float8_e4m3fn).supported);  // fp8 is refused by name
  EXPECT_TRUE(is_integral(ScalarType::Bool, true));
  EXPECT_FALSE(is_integral(ScalarType::Bool, false));
}

TEST(Core, StorageResizeKeepsPrefix) {
  Storage s = make<StorageImpl>(8, Device{}, true);
  std::memcpy(s->data(), "abcdefgh", 8);
  s->resize(16);
  EXPECT_EQ(std::memcmp(s->data(), "abcdefgh", 8), 0);
  EXPECT_EQ(s->nbytes(), 16u);
}

#include "dispatch/schema.h"

TEST(Schema, RoundTripsPlainSchemas) {
  const char* text = "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor";
  EXPECT_EQ(parse_schema(text).str(), std::string("aten::") + text);
  const char* out = "max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, "
                    "Tensor(b!) max_values) -> (Tensor(a!) values, Tensor(b!) indices)";
  FunctionSchema f = parse_schema(out);
  EXPECT_EQ(f.str(), std::string("aten::") + out);
  EXPECT_TRUE(f.is_mutable());
  EXPECT_TRUE(f.arguments[3].is_out);
}

TEST(Schema, NormalisesDefaultsAsUpstream) {
  EXPECT_EQ(parse_schema("f(SymInt[2] stride=1, float eps=1e-05, int r=Mean) -> ()").str(),
            "aten::f(SymInt[2] stride=[1, 1], float eps=1.0000000000000001e-05, int r=1) -> ()");
  EXPECT_EQ(parse_schema("g(str p='fro', float m=0.0, Tensor?[] i) -> Tensor[]").str(),
            "aten::g(str p=\"fro\", float m=0., Tensor?[] i) -> Tensor[]");
}

TEST(Schema, BadTextIsAnError) {
  EXPECT_THROW(parse_schema("f(Tensor self"), Error);
  EXPECT_THROW(parse_schema("f(Tensor self) Tensor"), Error);
}

#include "dispatch/registry.h"

TEST(Registry, BuiltinTablesLoadCleanly) {
  EXPECT_GT(all_ops().size(), 3000u);
  EXPECT_TRUE(registry_errors().empty()) << registry_errors().front();
  int add = find_op("aten", "add", "Tensor");
  ASSERT_GE(add, 0);
  EXPECT_EQ(schema_of(add).str(),
            "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
  EXPECT_GE(find_op("profiler", "_record_function_enter", ""), 0);
}

TEST(Registry, RunTimeDefinitionsAndReset) {
  int i = define_op("tn_test", "twice(Tensor x) -> Tensor", "", 7);
  EXPECT_EQ(find_op("tn_test", "twice", ""), i);
  EXPECT_THROW(define_op("tn_test", "twice(Tensor y) -> Tensor", "", 8), Error);
  remove_library_ops(7);
  EXPECT_EQ(find_op("tn_test", "twice", ""), -1);
  EXPECT_GE(define_op("tn_test", "twice(Tensor y) -> Tensor", "", 9), 0);  // free again
}

#include <random>

#include "core/generator.h"

TEST(Generator, MatchesTheReferenceMersenneTwister) {
  // std::mt19937 is the reference MT19937 with the same init_genrand seeding.
  for (uint64_t seed : {0ULL, 5489ULL, 67280421310721ULL}) {
    MT19937 ours(seed);
    std::mt19937 ref(static_cast<uint32_t>(seed & 0xffffffffULL));
    for (int i = 0; i < 2000; ++i) ASSERT_EQ(ours(), ref()) << "seed " << seed << " draw " << i;
  }
}

TEST(Generator, ManualSeedRestartsTheStream) {
  Generator g(42);
  uint32_t a = g.random();
  g.random();
  g.manual_seed(42);
  EXPECT_EQ(g.random(), a);
  EXPECT_EQ(g.initial_seed(), 42u);
}

#include "core/promotion.h"

TEST(Promotion, PromoteTypes) {
  using S = ScalarType;
  EXPECT_EQ(promote_types(S::Byte, S::Char), S::Short);
  EXPECT_EQ(promote_types(S::Half, S::BFloat16), S::Float);
  EXPECT_EQ(promote_types(S::Long, S::Float), S::Float);
  EXPECT_EQ(promote_types(S::Bool, S::Byte), S::Byte);
  EXPECT_EQ(promote_types(S::Int, S::Long), S::Long);
  EXPECT_EQ(promote_types(S::Byte, S::Int), S::Int);
}

TEST(Promotion, WrappedNumbersOnlyRaiseTheCategory) {
  using S = ScalarType;
  ResultType r1;  // float16 tensor + 2.5 -> float16
  r1.add_tensor(S::Half, false);
  r1.add_number(S::Double);
  EXPECT_EQ(r1.result(), S::Half);
  ResultType r2;  // int64 tensor * 3.0 -> float32 (the default dtype)
  r2.add_tensor(S::Long, false);
  r2.add_number(S::Double);
  EXPECT_EQ(r2.result(), S::Float);
  ResultType r3;  // bool tensor + True -> bool; bool + 1 -> int64
  r3.add_tensor(S::Bool, false);
  r3.add_number(S::Bool);
  EXPECT_EQ(r3.result(), S::Bool);
  ResultType r4;
  r4.add_tensor(S::Bool, false);
  r4.add_number(S::Long);
  EXPECT_EQ(r4.result(), S::Long);
  ResultType r5;  // int32 tensor + 0-dim int64 tensor -> int32
  r5.add_tensor(S::Int, false);
  r5.add_tensor(S::Long, true);
  EXPECT_EQ(r5.result(), S::Int);
  ResultType r6;  // int32 tensor + 0-dim float64 -> default float
  r6.add_tensor(S::Int, false);
  r6.add_tensor(S::Double, true);
  EXPECT_EQ(r6.result(), S::Double);
}

#include <cmath>
#include <limits>

#include "core/half.h"

TEST(Half, RoundTripsEveryHalf) {
  for (uint32_t b = 0; b < 0x10000; ++b) {
    Half h;
    h.x = static_cast<uint16_t>(b);
    float f = h;
    if (std::isnan(f)) continue;
    EXPECT_EQ(Half(f).x, h.x) << std::hex << b;
  }
}

TEST(Half, RoundsToNearestEven) {
  EXPECT_EQ(Half(1.0f).x, 0x3c00);
  EXPECT_EQ(Half(65504.0f).x, 0x7bff);
  EXPECT_EQ(Half(65520.0f).x, 0x7c00);  // halfway to the next step rounds to inf
  EXPECT_EQ(Half(1.0f + std::ldexp(1.0f, -11)).x, 0x3c00);  // tie -> even
  EXPECT_EQ(Half(1.0f + 3 * std::ldexp(1.0f, -11)).x, 0x3c02);
  EXPECT_EQ(Half(std::ldexp(1.0f, -24)).x, 0x0001);  // smallest subnormal
  EXPECT_TRUE(std::isnan(static_cast<float>(Half(std::numeric_limits<float>::quiet_NaN()))));
}

TEST(BFloat16, RoundsToNearestEven) {
  EXPECT_EQ(BFloat16(1.0f).x, 0x3f80);
  EXPECT_EQ(BFloat16(bits_float(0x3f808000U)).x, 0x3f80);  // tie -> even
  EXPECT_EQ(BFloat16(bits_float(0x3f818000U)).x, 0x3f82);
  EXPECT_EQ(static_cast<float>(BFloat16(3.0f)), 3.0f);
}

#include "dispatch/kernel.h"

TEST(Door, FactoriesAndFillThroughTheDoor) {
  Value size = Value::of_ints({2, 3});
  Tensor t = call_tensor("aten::empty.memory_format", {size, Value::of_dtype(ScalarType::Int)});
  EXPECT_EQ(t->sizes(), (Dims{2, 3}));
  EXPECT_EQ(t->dtype(), ScalarType::Int);
  call("aten::fill_.Scalar", {Value::of(t), Value::of_scalar(Scalar::from_int(7))});
  auto* p = static_cast<int32_t*>(t->dense_cpu_data("test"));
  for (int i = 0; i < 6; ++i) EXPECT_EQ(p[i], 7);
  EXPECT_EQ(t->version(), 1u);
  // A transposed view is filled through its strides.
  Tensor tr = make_view(t, {3, 2}, {1, 3}, 0);
  call("aten::zero_", {Value::of(tr)});
  for (int i = 0; i < 6; ++i) EXPECT_EQ(p[i], 0);
}

TEST(Door, MetaAllocatesNoBytesAndMissingKernelsRefuseByName) {
  Tensor m = call_tensor("aten::empty.memory_format",
                         {Value::of_ints({4}), Value{}, Value{},
                          Value::of_device(Device{DeviceType::Meta, -1})});
  EXPECT_EQ(m->representation(), Representation::Meta);
  call("aten::fill_.Scalar", {Value::of(m), Value::of_scalar(Scalar::from_int(1))});
  try {
    call("aten::_test_check_tensor", {Value::of(m)});  // an op we have no kernel for
    FAIL() << "_test_check_tensor ran without a kernel";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind, ErrorKind::NotImplemented);
    EXPECT_STREQ(e.what(), "aten._test_check_tensor.default has no kernel in torchnative for "
                           "Meta tensors of dtype float32");
  }
}


TEST(Door, EveryRegistrationNamesARealOp) {
  EXPECT_FALSE(implemented_ops().empty());
  EXPECT_TRUE(kernel_registration_errors().empty()) << kernel_registration_errors().front();
}
