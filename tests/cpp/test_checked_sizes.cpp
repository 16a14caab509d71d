// Unit tests of the checked size arithmetic in csrc/core (Note [Checked size arithmetic]): every
// overflow refuses with upstream's message instead of wrapping, views are checked against their
// storage, and a tensor whose storage shrank under it refuses its bytes.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "core/tensor_impl.h"

using namespace tn;

namespace {
// The message of the tn::Error f throws ("" when it throws none).
template <typename F>
std::string error_of(F f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}
constexpr int64_t k2e62 = int64_t{1} << 62;
}  // namespace

TEST(CheckedSizes, NumelOverflowRefuses) {
  EXPECT_EQ(numel_of({int64_t{1} << 32, 3}), int64_t{3} << 32);
  EXPECT_EQ(error_of([] { numel_of({int64_t{1} << 32, int64_t{1} << 32}); }),
            "numel: integer multiplication overflow");
}

TEST(CheckedSizes, ContiguousNbytesOverflowRefuses) {
  EXPECT_EQ(contiguous_nbytes({2, 3}, 4), 24u);
  EXPECT_EQ(error_of([] { contiguous_nbytes({k2e62}, 4); }),
            "Storage size calculation overflowed with sizes=[4611686018427387904]");
  // Past INT64_MAX without wrapping uint64: still refused (upstream's storage_max).
  EXPECT_NE(error_of([] { contiguous_nbytes({int64_t{1} << 61, 4}, 1); }), "");
}

TEST(CheckedSizes, StorageBytesNeededOverflowRefuses) {
  EXPECT_EQ(storage_bytes_needed({2, 3}, {3, 1}, 1, 4), 28u);
  EXPECT_EQ(storage_bytes_needed({0, 3}, {k2e62, 1}, 0, 4), 0u);
  EXPECT_EQ(error_of([] { storage_bytes_needed({2}, {k2e62}, 0, 4); }),
            "Storage size calculation overflowed with sizes=[2] and strides=[4611686018427387904]");
  EXPECT_NE(error_of([] { storage_bytes_needed({2}, {1}, k2e62, 4); }), "");
}

TEST(CheckedSizes, EmptyTensorRefusesWhatNoStorageHolds) {
  EXPECT_NE(error_of([] { empty_tensor({k2e62}, ScalarType::Float, Device{}); }), "");
  EXPECT_NE(error_of([] { empty_tensor({int64_t{1} << 32, int64_t{1} << 32}, ScalarType::Byte,
                                       Device{}); }), "");
}

TEST(CheckedSizes, AllocationFailureIsUpstreamsRuntimeError) {
  std::string msg = error_of([] { cpu_alloc(size_t{1} << 50); });
  EXPECT_NE(msg.find("DefaultCPUAllocator: can't allocate memory: you tried to allocate "
                     "1125899906842624 bytes"), std::string::npos) << msg;
  EXPECT_NE(error_of([] { cpu_alloc(static_cast<size_t>(-1)); }).find("negative number"),
            std::string::npos);
}

TEST(CheckedSizes, ViewsAreCheckedAgainstTheirStorage) {
  Tensor base = empty_tensor({4}, ScalarType::Float, Device{});
  EXPECT_EQ(error_of([&] { make_view(base, {2}, {1}, 3); }),
            "setStorage: sizes [2], strides [1], storage offset 3, and itemsize 4 requiring a "
            "storage size of 20 are out of bounds for storage of size 16");
  EXPECT_NE(error_of([&] { make_view(base, {2}, {k2e62}, 0); }), "");
  // Negative strides inside the storage (flip's internal view) are fine; before it, refused.
  EXPECT_EQ(error_of([&] { make_view(base, {4}, {-1}, 3); }), "");
  EXPECT_NE(error_of([&] { make_view(base, {4}, {-1}, 2); }), "");
  // Reinterpreting as a wider dtype is checked with that dtype's itemsize.
  EXPECT_NE(error_of([&] { make_view(base, {3}, {1}, 0, ScalarType::Double); }), "");
}

TEST(CheckedSizes, ShrunkStorageRefusesItsBytes) {
  Tensor t = empty_tensor({4}, ScalarType::Float, Device{});
  EXPECT_TRUE(t->storage_holds());
  t->storage()->resize(0);
  EXPECT_FALSE(t->storage_holds());
  EXPECT_NE(error_of([&] { t->dense_cpu_data("aten::add.Tensor"); }).find("aten::add.Tensor"),
            std::string::npos);
}
