// The zip reader (see zip_reader.h). Layout per PKWARE's APPNOTE: the end-of-central-directory
// record (and, past 4 GiB, its ZIP64 form found through the ZIP64 locator), then one central
// directory header per entry, each pointing at a local header that precedes the entry's bytes.
#include "io/zip_reader.h"

#include <algorithm>
#include <cstring>

#include "core/error.h"

namespace tn::io {
namespace {

constexpr uint32_t kEndSig = 0x06054b50;
constexpr uint32_t kZip64EndSig = 0x06064b50;
constexpr uint32_t kZip64LocatorSig = 0x07064b50;
constexpr uint32_t kCentralSig = 0x02014b50;
constexpr uint32_t kLocalSig = 0x04034b50;
constexpr uint64_t kEndSize = 22;
constexpr uint64_t kMaxComment = 0xFFFF;

uint16_t u16(const unsigned char* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }
uint32_t u32(const unsigned char* p) {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
         (static_cast<uint32_t>(p[2]) << 16) | (static_cast<uint32_t>(p[3]) << 24);
}
uint64_t u64(const unsigned char* p) { return u32(p) | (static_cast<uint64_t>(u32(p + 4)) << 32); }

// Whether [at, at + n) lies inside a file of `size` bytes, without overflowing.
bool within(uint64_t at, uint64_t n, uint64_t size) { return at <= size && n <= size - at; }

[[noreturn]] void bad(const std::string& what) {
  TN_FAIL(Runtime, "PytorchStreamReader failed reading zip archive: ", what);
}

}  // namespace

ZipReader::ZipReader(ReadAt read, uint64_t size) : read_(std::move(read)), size_(size) {
  if (size_ < kEndSize) bad("failed finding central directory");
  // The end record: the last signature within the final 22 + 65535 bytes.
  uint64_t tail = std::min<uint64_t>(size_, kEndSize + kMaxComment);
  std::vector<unsigned char> buf(tail);
  read_(size_ - tail, buf.data(), tail);
  int64_t at = -1;
  for (int64_t i = static_cast<int64_t>(tail - kEndSize); i >= 0; --i)
    if (u32(&buf[i]) == kEndSig) {
      at = i;
      break;
    }
  if (at < 0) bad("failed finding central directory");
  const unsigned char* e = &buf[at];
  uint64_t count = u16(e + 10), cd_size = u32(e + 12), cd_offset = u32(e + 16);
  uint64_t end_pos = size_ - tail + static_cast<uint64_t>(at);
  // A ZIP64 locator just before the end record, when there is one, gives the values that count
  // (torch.save always writes one; upstream's reader, miniz, then ignores the 32-bit fields).
  unsigned char loc[20];
  bool has_locator = end_pos >= 20;
  if (has_locator) {
    read_(end_pos - 20, loc, 20);
    has_locator = u32(loc) == kZip64LocatorSig;
  }
  bool needs_zip64 = count == 0xFFFF || cd_size == 0xFFFFFFFF || cd_offset == 0xFFFFFFFF;
  if (needs_zip64 && !has_locator)
    bad("failed finding the ZIP64 end of central directory locator");
  if (has_locator) {
    uint64_t z = u64(loc + 8);
    unsigned char rec[56];
    if (!within(z, 56, size_)) bad("ZIP64 end of central directory past the end of the file");
    read_(z, rec, 56);
    if (u32(rec) != kZip64EndSig) bad("invalid ZIP64 end of central directory record");
    count = u64(rec + 32), cd_size = u64(rec + 40), cd_offset = u64(rec + 48);
  }
  if (!within(cd_offset, cd_size, size_)) bad("central directory past the end of the file");
  std::vector<unsigned char> cd(cd_size);
  if (cd_size) read_(cd_offset, cd.data(), cd_size);
  uint64_t pos = 0;
  for (uint64_t k = 0; k < count; ++k) {
    if (pos + 46 > cd_size || u32(&cd[pos]) != kCentralSig) bad("invalid central directory");
    const unsigned char* h = &cd[pos];
    Entry en;
    en.method = u16(h + 10);
    uint64_t csize = u32(h + 20);
    en.size = u32(h + 24);
    uint16_t name_len = u16(h + 28), extra_len = u16(h + 30), comment_len = u16(h + 32);
    en.header = u32(h + 42);
    if (pos + 46 + name_len + extra_len + comment_len > cd_size) bad("invalid central directory");
    std::string name(reinterpret_cast<const char*>(h + 46), name_len);
    // ZIP64 extra field: the 64-bit values of those fields whose 32-bit ones are all ones.
    const unsigned char* x = h + 46 + name_len;
    for (uint32_t q = 0; q + 4 <= extra_len;) {
      uint16_t id = u16(x + q), len = u16(x + q + 2);
      if (q + 4 + len > extra_len) break;
      if (id == 0x0001) {
        const unsigned char* f = x + q + 4;
        uint32_t used = 0;
        auto take = [&](uint64_t* v) {
          if (*v != 0xFFFFFFFF) return;
          if (used + 8 > len) bad("invalid ZIP64 extra field for " + name);
          *v = u64(f + used);
          used += 8;
        };
        take(&en.size);
        take(&csize);
        take(&en.header);
      }
      q += 4 + len;
    }
    // Refused here, as miniz refuses at open: an entry that cannot fit in the file.
    if (!within(en.header, 30, size_) || !within(en.header + 30, en.size, size_) ||
        !within(en.header + 30, csize, size_))
      bad("invalid header or archive is corrupted (entry " + name + ")");
    if (k == 0) prefix_ = name.substr(0, name.find('/') + 1);
    pos += 46 + name_len + extra_len + comment_len;
    if (name.compare(0, prefix_.size(), prefix_) != 0) continue;  // outside the archive folder
    std::string rel = name.substr(prefix_.size());
    if (!index_.count(rel)) names_.push_back(rel);
    index_[rel] = en;
  }
}

const ZipReader::Entry& ZipReader::entry(const std::string& name) const {
  auto it = index_.find(name);
  TN_CHECK(it != index_.end(), "PytorchStreamReader failed locating file ", name,
           ": file not found");
  return it->second;
}

uint64_t ZipReader::size_of(const std::string& name) const { return entry(name).size; }
uint64_t ZipReader::header_offset(const std::string& name) const { return entry(name).header; }

uint64_t ZipReader::data_offset(const std::string& name) const {
  const Entry& en = entry(name);
  unsigned char local[30];
  if (!within(en.header, 30, size_)) bad("local header of " + name + " past the end of the file");
  read_(en.header, local, 30);
  if (u32(local) != kLocalSig) bad("invalid local header of " + name);
  uint64_t at = en.header + 30 + u16(local + 26) + u16(local + 28);
  if (!within(at, en.size, size_)) bad("record " + name + " past the end of the file");
  return at;
}

void ZipReader::read(const std::string& name, void* dst) const {
  const Entry& en = entry(name);
  TN_CHECK_KIND(en.method == 0, NotImplemented, "torchnative reads only stored (uncompressed) "
                "zip records, as torch.save writes them; ", name, " uses compression method ",
                en.method);
  if (en.size) read_(data_offset(name), dst, en.size);
}

std::string ZipReader::read_string(const std::string& name) const {
  std::string s(size_of(name), '\0');
  read(name, s.data());
  return s;
}

}  // namespace tn::io
