// Structure of the random kernels (no Python): how many generator words each sampler consumes,
// the element order upstream's TensorIterator gives strided targets, and refusals. Bit agreement
// with upstream itself is checked against the real wheel in tests/ops/test_rng.py.
#include <gtest/gtest.h>

#include <cstring>

#include "dispatch/kernel.h"
#include "kernels/cpu/random.h"

using namespace tn;

namespace {

Tensor empty_of(Dims sizes, ScalarType t) {
  return call_tensor("aten::empty.memory_format",
                     {Value::of_ints(std::move(sizes)), Value::of_dtype(t)});
}

// Words drawn from the default generator by f, measured against a fresh copy of the seed.
template <typename F>
int64_t words_consumed(F&& f) {
  default_generator().manual_seed(42);
  f();
  uint32_t next = default_generator().random();
  MT19937 ref(42);
  for (int64_t k = 0; k < 100000; ++k)
    if (ref() == next) return k;
  return -1;
}

}  // namespace

TEST(Rng, WordsPerElement) {
  auto sample = [](const char* op, ScalarType t, int64_t n) {
    return words_consumed([&] { call(op, {Value::of(empty_of({n}, t))}); });
  };
  EXPECT_EQ(sample("aten::uniform_", ScalarType::Float, 10), 10);   // one word per float
  EXPECT_EQ(sample("aten::uniform_", ScalarType::Double, 10), 20);  // random64 per double
  EXPECT_EQ(sample("aten::uniform_", ScalarType::Half, 10), 10);    // drawn as float
  EXPECT_EQ(sample("aten::bernoulli_.float", ScalarType::Float, 10), 20);  // double uniforms
  EXPECT_EQ(sample("aten::random_", ScalarType::Long, 10), 20);
  EXPECT_EQ(sample("aten::random_", ScalarType::Int, 10), 10);
  // normal_, contiguous and >= 16: all uniforms, then 16 more for the recomputed tail block.
  EXPECT_EQ(sample("aten::normal_", ScalarType::Float, 17), 17 + 16);
  EXPECT_EQ(sample("aten::normal_", ScalarType::Float, 32), 32);
  // 16-bit floats go block by block: floor(n/16) blocks plus the tail block.
  EXPECT_EQ(sample("aten::normal_", ScalarType::Half, 17), 16 + 16);
  // Below 16 elements: scalar Box-Muller, two doubles per pair, the second sample cached.
  EXPECT_EQ(sample("aten::normal_", ScalarType::Float, 3), 8);
}

TEST(Rng, RangeWordSize) {
  auto randint = [](int64_t lo, int64_t hi) {
    return words_consumed([&] {
      call("aten::random_.from",
           {Value::of(empty_of({5}, ScalarType::Long)), Value::of_int(lo), Value::of_int(hi)});
    });
  };
  EXPECT_EQ(randint(0, (int64_t{1} << 28) - 1), 5);  // below 2^28: one 32-bit word
  EXPECT_EQ(randint(0, int64_t{1} << 28), 10);       // from 2^28 on: random64
}

TEST(Rng, IteratorOrderFollowsMemory) {
  // A transposed 2x3 (sizes 3x2, strides 1x3) is visited in storage order.
  std::vector<int64_t> seen;
  walk_like_iterator({3, 2}, {{1, 3}}, [&](int64_t o, int64_t) { seen.push_back(o); });
  EXPECT_EQ(seen, (std::vector<int64_t>{0, 1, 2, 3, 4, 5}));
  // Equal strides fall back to the second operand (p of bernoulli_), broadcast dims skipped.
  seen.clear();
  std::vector<int64_t> second;
  walk_like_iterator({2, 2}, {{0, 0}, {1, 2}}, [&](int64_t, int64_t q) { second.push_back(q); });
  EXPECT_EQ(second, (std::vector<int64_t>{0, 1, 2, 3}));
}

TEST(Rng, StridedUniformMatchesContiguousInMemoryOrder) {
  // Filling a transposed view draws the same words, in storage order, as a contiguous fill.
  default_generator().manual_seed(7);
  Tensor a = empty_of({6}, ScalarType::Float);
  call("aten::uniform_", {Value::of(a)});
  default_generator().manual_seed(7);
  Tensor base = empty_of({2, 3}, ScalarType::Float);
  call("aten::uniform_", {Value::of(make_view(base, {3, 2}, {1, 3}, 0))});
  EXPECT_EQ(std::memcmp(a->dense_cpu_data("t"), base->dense_cpu_data("t"), 24), 0);
}

TEST(Rng, RefusalsNameTheProblem) {
  Tensor l = empty_of({3}, ScalarType::Long);
  try {
    call("aten::uniform_", {Value::of(l)});
    FAIL() << "uniform_ accepted int64";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind, ErrorKind::NotImplemented);
    EXPECT_STREQ(e.what(), "\"check_uniform_bounds\" not implemented for 'Long'");
  }
  try {
    call("aten::random_.from", {Value::of(l), Value::of_int(5), Value::of_int(5)});
    FAIL() << "random_ accepted an empty range";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind, ErrorKind::Runtime);
    EXPECT_STREQ(e.what(), "random_ expects 'from' to be less than 'to', but got from=5 >= to=5");
  }
}

TEST(Rng, MetaTargetsDrawNothing) {
  Tensor m = call_tensor("aten::rand", {Value::of_ints({4}), Value{}, Value{},
                                        Value::of_device(Device{DeviceType::Meta, -1})});
  EXPECT_EQ(m->representation(), Representation::Meta);
  EXPECT_EQ(words_consumed([&] { call("aten::normal_", {Value::of(m)}); }), 0);
}
