// Reading the zip archives torch.save writes (upstream's "PyTorch file" format): entries stored
// uncompressed under one top-level folder ("archive/data.pkl", "archive/data/0", ...), ZIP64
// records where sizes or offsets pass 4 GiB. Only the central directory is read up front;
// records are read on demand through a byte source. Pure C++.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

namespace tn::io {

// Reads n bytes at offset into dst; throws tn::Error when it cannot.
using ReadAt = std::function<void(uint64_t offset, void* dst, uint64_t n)>;

class ZipReader {
 public:
  // size: the archive's length in bytes. Throws tn::Error (RuntimeError) naming what is wrong
  // when the bytes are not a readable zip archive.
  ZipReader(ReadAt read, uint64_t size);

  // Record names relative to the top-level folder, in the archive's order.
  const std::vector<std::string>& records() const { return names_; }
  bool has(const std::string& name) const { return index_.count(name) != 0; }
  uint64_t size_of(const std::string& name) const;
  // Where the record's bytes begin in the archive, and where its local header begins.
  uint64_t data_offset(const std::string& name) const;
  uint64_t header_offset(const std::string& name) const;
  // Copies the record's bytes into dst (size_of(name) bytes).
  void read(const std::string& name, void* dst) const;
  std::string read_string(const std::string& name) const;

 private:
  struct Entry {
    uint64_t size = 0;
    uint64_t header = 0;  // local header offset
    uint16_t method = 0;  // 0: stored
  };
  const Entry& entry(const std::string& name) const;

  ReadAt read_;
  uint64_t size_;
  std::string prefix_;  // "archive/"
  std::vector<std::string> names_;
  std::unordered_map<std::string, Entry> index_;
};

}  // namespace tn::io
