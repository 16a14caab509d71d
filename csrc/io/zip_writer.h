// Writing the zip archives torch.save writes (upstream's "PyTorch file" format), byte for byte
// as upstream's writer lays them out: each record stored uncompressed under one top-level folder
// ("archive/data.pkl", "archive/data/0", ...), its bytes aligned (64 by default) by an "FB"
// extra field of 'Z's in the local header, followed by a data descriptor; at the end the
// version and byteorder records when missing, ".data/serialization_id" (a hash of the record
// names and of their CRC-32s), the central directory, and the ZIP64 end records. Dates and
// times are zero. Archives of 4 GiB or more (ZIP64 entries) are refused by name. Pure C++.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_set>
#include <vector>

namespace tn::io {

// Writes n bytes at the end of the output; returns how many it wrote.
using WriteFn = std::function<size_t(const void* data, size_t n)>;

class ZipWriter {
 public:
  // archive: the top-level folder ("archive" for buffers; a file's name without its folder and
  // extension). crc32: compute each record's CRC-32 (upstream's option; 0 is written when off).
  ZipWriter(WriteFn write, std::string archive, bool crc32, uint64_t alignment);

  // Adds a record; refuses a name written before, and writes after the end.
  void write_record(const std::string& name, const void* data, uint64_t size);
  // The version and byteorder records if missing, the serialization id, the central directory.
  void write_end();
  void set_min_version(uint64_t v) { version_ = std::max(version_, v); }

  bool finished() const { return finished_; }
  const std::string& archive_name() const { return archive_; }
  const std::string& serialization_id() const { return serialization_id_; }
  // The names written so far, in upstream's (unordered_set) order.
  std::vector<std::string> written() const { return {names_.begin(), names_.end()}; }

 private:
  struct Entry {
    std::string full_name;
    uint32_t crc = 0;
    uint64_t size = 0;
    uint64_t header = 0;
  };
  void put(const void* data, size_t n);
  void write_serialization_id();

  WriteFn write_;
  std::string archive_;
  bool crc32_;
  uint64_t alignment_;
  uint64_t pos_ = 0;
  uint64_t version_ = 3;  // upstream's kProducedFileFormatVersion for torch.save
  uint64_t crc_hash_ = 0;  // upstream's combined_uncomp_crc32_
  bool finished_ = false;
  std::string serialization_id_;
  std::vector<Entry> entries_;
  // Upstream keeps the names in a std::unordered_set and hashes them in its iteration order;
  // the same container over the same insertions iterates the same way.
  std::unordered_set<std::string> names_;
};

// CRC-32 (ISO-HDLC, zlib's) of n bytes continuing from crc.
uint32_t crc32(uint32_t crc, const void* data, size_t n);

}  // namespace tn::io
