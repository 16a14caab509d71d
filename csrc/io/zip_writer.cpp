// The zip writer (see zip_writer.h). Layout per PKWARE's APPNOTE, with the choices upstream's
// writer makes: "version needed" and "made by" 0 in the entries, general purpose flags 0x0808
// (UTF-8 names, sizes in a data descriptor after the bytes; 0x0800 and no descriptor for an
// empty record), no compression, zero dates, and the ZIP64 end record and locator before the
// classic end record.
#include "io/zip_writer.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "core/error.h"

namespace tn::io {
namespace {

constexpr uint32_t kLocalSig = 0x04034b50;
constexpr uint32_t kDescriptorSig = 0x08074b50;
constexpr uint32_t kCentralSig = 0x02014b50;
constexpr uint32_t kZip64EndSig = 0x06064b50;
constexpr uint32_t kZip64LocatorSig = 0x07064b50;
constexpr uint32_t kEndSig = 0x06054b50;
constexpr uint64_t kLocalHeaderSize = 30;
constexpr uint64_t kMax32 = 0xFFFFFFFFu;
const char* const kSerializationIdName = ".data/serialization_id";

// Little-endian fields appended to a byte string.
struct Bytes {
  std::string s;
  Bytes& u16(uint64_t v) { return raw(v, 2); }
  Bytes& u32(uint64_t v) { return raw(v, 4); }
  Bytes& u64(uint64_t v) { return raw(v, 8); }
  Bytes& raw(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
    return *this;
  }
  Bytes& str(const std::string& t) {
    s += t;
    return *this;
  }
};

// upstream's c10::hash_combine.
uint64_t hash_combine(uint64_t seed, uint64_t value) {
  return seed ^ (value + 0x9e3779b9 + (seed << 6) + (seed >> 2));
}

uint32_t le32(const unsigned char* p) {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
         (static_cast<uint32_t>(p[2]) << 16) | (static_cast<uint32_t>(p[3]) << 24);
}

// Eight tables for the slice-by-8 CRC: table[k][b] is b's CRC advanced by k more zero bytes.
struct CrcTables {
  uint32_t t[8][256];
  CrcTables() {
    for (uint32_t b = 0; b < 256; ++b) {
      uint32_t c = b;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0xEDB88320u : c >> 1;
      t[0][b] = c;
    }
    for (int k = 1; k < 8; ++k)
      for (uint32_t b = 0; b < 256; ++b) t[k][b] = (t[k - 1][b] >> 8) ^ t[0][t[k - 1][b] & 0xFF];
  }
};

[[noreturn]] void too_large() {
  TN_FAIL(NotImplemented, "torchnative: torch.save archives of 4 GiB or more (ZIP64 records) "
          "are not implemented");
}

}  // namespace

uint32_t crc32(uint32_t crc, const void* data, size_t n) {
  static const CrcTables tables;
  const auto& t = tables.t;
  const auto* p = static_cast<const unsigned char*>(data);
  uint32_t c = ~crc;
  while (n >= 8) {
    uint32_t lo = le32(p) ^ c, hi = le32(p + 4);
    c = t[7][lo & 0xFF] ^ t[6][(lo >> 8) & 0xFF] ^ t[5][(lo >> 16) & 0xFF] ^ t[4][lo >> 24] ^
        t[3][hi & 0xFF] ^ t[2][(hi >> 8) & 0xFF] ^ t[1][(hi >> 16) & 0xFF] ^ t[0][hi >> 24];
    p += 8;
    n -= 8;
  }
  while (n--) c = (c >> 8) ^ t[0][(c ^ *p++) & 0xFF];
  return ~c;
}

ZipWriter::ZipWriter(WriteFn write, std::string archive, bool crc32, uint64_t alignment)
    : write_(std::move(write)), archive_(std::move(archive)), crc32_(crc32),
      alignment_(alignment) {
  TN_CHECK(!archive_.empty(), "invalid file name: ", archive_);
  TN_CHECK(alignment_ > 0 && alignment_ <= 0xFFFF, "PyTorchFileWriter: storage alignment must "
           "be in [1, 65535], got ", alignment_);
}

void ZipWriter::put(const void* data, size_t n) {
  if (n == 0) return;
  size_t wrote = write_(data, n);
  TN_CHECK(wrote == n, "PytorchStreamWriter failed writing file ", archive_, ".");
  pos_ += n;
}

void ZipWriter::write_record(const std::string& name, const void* data, uint64_t size) {
  TN_CHECK(!finished_, "PyTorchFileWriter: the archive ", archive_, " is already finalized");
  TN_CHECK(names_.count(name) == 0, "Tried to serialize file twice: ", name);
  // A copied serialization id is dropped: the writer computes its own at the end.
  if (name == kSerializationIdName && serialization_id_.empty()) return;
  Entry e;
  e.full_name = archive_ + "/" + name;
  e.size = size;
  e.header = pos_;
  TN_CHECK(e.full_name.size() <= 0xFFFF, "PyTorchFileWriter: record name too long: ", name);
  // The bytes start aligned: local header, name, then an extra field "FB" <pad> of 'Z's.
  const uint64_t start = pos_ + kLocalHeaderSize + e.full_name.size() + 4;
  if (size >= kMax32 || pos_ >= kMax32 || start + size + 16 >= kMax32) too_large();
  const uint64_t pad = (alignment_ - start % alignment_) % alignment_;
  if (size > 0 && crc32_) e.crc = crc32(0, data, static_cast<size_t>(size));
  const uint16_t flags = size > 0 ? 0x0808 : 0x0800;
  Bytes h;
  h.u32(kLocalSig).u16(0).u16(flags).u16(0).u16(0).u16(0).u32(0).u32(0).u32(0);
  h.u16(e.full_name.size()).u16(pad + 4).str(e.full_name);
  h.str("FB").u16(pad).str(std::string(static_cast<size_t>(pad), 'Z'));
  put(h.s.data(), h.s.size());
  put(data, static_cast<size_t>(size));
  if (size > 0) {
    // Upstream folds the CRC of every write that begins with a descriptor's signature (its
    // descriptor, and any record bytes that happen to) into the serialization id.
    const auto* p = static_cast<const unsigned char*>(data);
    if (size >= 8 && le32(p) == kDescriptorSig) crc_hash_ = hash_combine(crc_hash_, le32(p + 4));
    Bytes d;
    d.u32(kDescriptorSig).u32(e.crc).u32(size).u32(size);
    put(d.s.data(), d.s.size());
    crc_hash_ = hash_combine(crc_hash_, e.crc);
  }
  entries_.push_back(std::move(e));
  names_.insert(name);
}

void ZipWriter::write_serialization_id() {
  if (names_.count(kSerializationIdName)) return;
  uint64_t names_hash = 0;
  for (const std::string& n : names_) names_hash = hash_combine(names_hash, std::hash<std::string>{}(n));
  char id[48];
  std::snprintf(id, sizeof id, "%020llu%020llu", static_cast<unsigned long long>(names_hash),
                static_cast<unsigned long long>(crc_hash_));
  serialization_id_ = id;
  write_record(kSerializationIdName, serialization_id_.data(), serialization_id_.size());
}

void ZipWriter::write_end() {
  TN_CHECK(!finished_, "PyTorchFileWriter: the archive ", archive_, " is already finalized");
  if (!names_.count(".data/version") && !names_.count("version")) {
    std::string v = std::to_string(version_) + "\n";
    write_record(version_ >= 6 ? ".data/version" : "version", v.data(), v.size());
  }
  if (!names_.count("byteorder")) write_record("byteorder", "little", 6);
  write_serialization_id();
  finished_ = true;
  const uint64_t cd_start = pos_;
  for (const Entry& e : entries_) {
    Bytes c;
    c.u32(kCentralSig).u16(0).u16(0).u16(e.size > 0 ? 0x0808 : 0x0800).u16(0).u16(0).u16(0);
    c.u32(e.crc).u32(e.size).u32(e.size).u16(e.full_name.size()).u16(0).u16(0).u16(0).u16(0);
    c.u32(0).u32(e.header).str(e.full_name);
    put(c.s.data(), c.s.size());
  }
  const uint64_t cd_size = pos_ - cd_start, n = entries_.size();
  if (pos_ >= kMax32) too_large();
  const uint64_t zip64_end = pos_;
  Bytes z;
  z.u32(kZip64EndSig).u64(44).u16(0x031e).u16(0x002d).u32(0).u32(0).u64(n).u64(n);
  z.u64(cd_size).u64(cd_start);
  z.u32(kZip64LocatorSig).u32(0).u64(zip64_end).u32(1);
  z.u32(kEndSig).u16(0).u16(0).u16(std::min<uint64_t>(n, 0xFFFF));
  z.u16(std::min<uint64_t>(n, 0xFFFF)).u32(cd_size).u32(cd_start).u16(0);
  put(z.s.data(), z.s.size());
}

}  // namespace tn::io
