// The back-end contract: what every device's back end provides to the core (ggml's buffer
// type and device, tinygrad's runtime, in one small struct). One row per device in the device
// table (core/device_table.h); each back end's folder under csrc/kernels/<name>/ fills its row
// with TN_REGISTER_BACKEND. Storages allocate and free through their device's allocator; bytes
// cross devices only through copy_bytes(), which counts host<->device traffic, so a test can prove
// that nothing was read back. Pure C++, no ops (docs/ARCHITECTURE.md, "The back-end contract").
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/device.h"

namespace tn {

// Device memory. allocate(0) may return nullptr; a failed allocation throws tn::Error
// (Runtime, upstream's wording: "<name>: can't allocate memory: you tried to allocate N bytes").
struct Allocator {
  virtual ~Allocator() = default;
  virtual void* allocate(size_t nbytes) = 0;
  virtual void release(void* p, size_t nbytes) = 0;
};

// Host memory (cpu_alloc, 64-byte aligned): the CPU back end's allocator, and any back end's
// whose device memory is host memory (the test back end's).
Allocator& host_allocator();

// A probe's answer: which probe said it, and why not when it is unavailable.
struct Availability {
  bool available = false;
  std::string probe;   // what answered: "cpu: always present", "<device>: <what it read>"
  std::string reason;  // empty when available
};

struct Backend {
  DeviceType type = DeviceType::CPU;
  Allocator* allocator = nullptr;
  bool holds_bytes = true;  // false for Meta: storages keep a size and no bytes
  // nbytes between host memory and this device's memory, and within the device. Synchronous:
  // each returns when the bytes are where they are going.
  void (*copy_from_host)(void* dst, const void* src, size_t nbytes) = nullptr;
  void (*copy_to_host)(void* dst, const void* src, size_t nbytes) = nullptr;
  void (*copy_on_device)(void* dst, const void* src, size_t nbytes) = nullptr;
  void (*synchronize)() = nullptr;
  Availability (*probe)() = nullptr;
};

// Fills t's row; called once per back end from its folder (TN_REGISTER_BACKEND).
void register_backend(const Backend& b);
// t's row; refuses (NotImplemented) a device whose back end is not built in, and (Runtime) one
// whose probe says it is unavailable, naming the probe and its reason.
const Backend& backend(DeviceType t);
// The probe's answer, or "not built" when no back end filled the row.
Availability availability(DeviceType t);

// Copies nbytes between two devices' memory through their back ends (CPU memory is host
// memory). Counts every host<->device crossing.
void copy_bytes(DeviceType dst_type, void* dst, DeviceType src_type, const void* src,
                size_t nbytes);

// Host<->device traffic of one device type since the last reset (tests read it).
struct TransferCounts {
  uint64_t to_device = 0, to_host = 0;  // copies
  uint64_t bytes_to_device = 0, bytes_to_host = 0;
};
TransferCounts transfer_counts(DeviceType t);
void reset_transfer_counts(DeviceType t);

}  // namespace tn

#define TN_BACKEND_CONCAT_(a, b) a##b
#define TN_BACKEND_CONCAT(a, b) TN_BACKEND_CONCAT_(a, b)
// TN_REGISTER_BACKEND(make_fn): make_fn() returns the Backend row, run at static initialisation.
#define TN_REGISTER_BACKEND(make_fn)                                                      \
  static const bool TN_BACKEND_CONCAT(tn_backend_reg_, __LINE__) = [] {                  \
    ::tn::register_backend(make_fn());                                                    \
    return true;                                                                          \
  }()
