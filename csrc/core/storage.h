// Storage: a refcounted byte buffer on one device, shared by every view of it. Pure C++.
// Its bytes come from the device's allocator (core/backend.h) and go back to it; memory owned
// elsewhere (numpy arrays, mmap'd files) is wrapped with a deleter instead. Meta storages hold a
// size but no bytes (data == nullptr).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>

#include "core/device.h"
#include "core/intrusive.h"

namespace tn {

struct Allocator;

class StorageImpl : public RefCounted {
 public:
  using Deleter = std::function<void(void*)>;

  // Allocates nbytes on device through its back end's allocator (no bytes for meta).
  StorageImpl(size_t nbytes, Device device, bool resizable = true);
  // Wraps memory owned elsewhere (numpy arrays, mmap'd files); deleter releases it.
  StorageImpl(void* data, size_t nbytes, Device device, Deleter deleter, bool resizable = false);
  ~StorageImpl() override;

  void* data() const { return data_; }
  size_t nbytes() const { return nbytes_; }
  Device device() const { return device_; }
  bool resizable() const { return resizable_; }
  // Grows or shrinks the buffer through the device's allocator, keeping min(old, new) bytes.
  void resize(size_t nbytes);

 private:
  void* data_ = nullptr;
  size_t nbytes_ = 0;
  Device device_;
  Allocator* allocator_ = nullptr;  // set when the bytes came from it
  Deleter deleter_;                 // set when they are owned elsewhere
  bool resizable_;
};

using Storage = Ptr<StorageImpl>;

// Host memory, 64-byte aligned (the CPU back end's allocator and host-memory back ends use it).
void* cpu_alloc(size_t nbytes);
void cpu_free(void* p);

}  // namespace tn
