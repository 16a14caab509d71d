// The zip writer (io/zip_writer.h) read back by the zip reader (io/zip_reader.h): records of
// several sizes (empty, one byte, across the 64-byte alignment, starting with a descriptor's
// signature) keep their bytes, land aligned, and the end records are found; the CRC-32 is
// zlib's on its check value; a second record of one name, and writing after the end, refuse.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "core/error.h"
#include "io/zip_reader.h"
#include "io/zip_writer.h"

namespace {

using tn::io::ZipReader;
using tn::io::ZipWriter;

std::string archive_with(const std::vector<std::pair<std::string, std::string>>& records,
                         uint64_t alignment = 64) {
  std::string out;
  ZipWriter w([&](const void* p, size_t n) {
    out.append(static_cast<const char*>(p), n);
    return n;
  }, "archive", true, alignment);
  for (const auto& [name, bytes] : records) w.write_record(name, bytes.data(), bytes.size());
  w.write_end();
  return out;
}

ZipReader reader_of(const std::string& bytes) {
  return ZipReader([&bytes](uint64_t at, void* dst, uint64_t n) {
    ASSERT_LE(at + n, bytes.size());
    std::memcpy(dst, bytes.data() + at, n);
  }, bytes.size());
}

TEST(Zip, Crc32IsZlibs) {
  EXPECT_EQ(tn::io::crc32(0, "123456789", 9), 0xCBF43926u);
  EXPECT_EQ(tn::io::crc32(0, "", 0), 0u);
  // In pieces, continuing from the CRC so far.
  uint32_t c = tn::io::crc32(0, "12345", 5);
  EXPECT_EQ(tn::io::crc32(c, "6789", 4), 0xCBF43926u);
}

TEST(Zip, RecordsReadBackAlignedWithTheirBytes) {
  std::string big(1000, '\0');
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 7 + 3);
  std::string sig("PK\x07\x08" "abcdefgh", 12);
  std::vector<std::pair<std::string, std::string>> records = {
      {"data.pkl", "pickle"}, {"data/0", ""}, {"data/1", "x"}, {"data/2", big},
      {"data/3", sig}};
  for (uint64_t alignment : {1u, 64u, 4096u}) {
    std::string bytes = archive_with(records, alignment);
    ZipReader r = reader_of(bytes);
    for (const auto& [name, content] : records) {
      ASSERT_TRUE(r.has(name)) << name;
      EXPECT_EQ(r.read_string(name), content) << name;
      EXPECT_EQ(r.data_offset(name) % alignment, 0u) << name;
    }
    // The end of file adds the version, byteorder and serialization id records.
    EXPECT_EQ(r.read_string("version"), "3\n");
    EXPECT_EQ(r.read_string("byteorder"), "little");
    EXPECT_EQ(r.read_string(".data/serialization_id").size(), 40u);
  }
}

TEST(Zip, RefusesARecordWrittenTwiceAndWritesAfterTheEnd) {
  std::string out;
  ZipWriter w([&](const void* p, size_t n) {
    out.append(static_cast<const char*>(p), n);
    return n;
  }, "archive", true, 64);
  w.write_record("a", "1", 1);
  EXPECT_THROW(w.write_record("a", "2", 1), tn::Error);
  w.write_end();
  EXPECT_THROW(w.write_record("b", "2", 1), tn::Error);
  EXPECT_THROW(w.write_end(), tn::Error);
}

}  // namespace
