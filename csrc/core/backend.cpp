// The device table's rows and the counted copies between devices (see backend.h).
#include "core/backend.h"

#include <atomic>
#include <cstring>
#include <mutex>

#include "core/error.h"
#include "core/storage.h"

namespace tn {
namespace {

struct Row {
  Backend backend;
  bool registered = false;
  std::once_flag probed;
  Availability answer;  // the probe's answer, asked once (availability does not change)
  std::atomic<uint64_t> to_device{0}, to_host{0}, bytes_to_device{0}, bytes_to_host{0};
};

Row* rows() {
  static Row* r = new Row[kNumDeviceTypes];
  return r;
}

Row& row(DeviceType t) { return rows()[static_cast<int>(t)]; }

struct HostAllocator final : Allocator {
  void* allocate(size_t nbytes) override { return cpu_alloc(nbytes); }
  void release(void* p, size_t) override { cpu_free(p); }
};

}  // namespace

Allocator& host_allocator() {
  static HostAllocator allocator;
  return allocator;
}

void register_backend(const Backend& b) {
  Row& r = row(b.type);
  TN_ASSERT(!r.registered);
  r.backend = b;
  r.registered = true;
}

Availability availability(DeviceType t) {
  const Row& r = row(t);
  if (!r.registered) {
    Availability a;
    a.probe = device_type_name(t);
    a.reason = "torchnative was built without a back end for this device";
    return a;
  }
  Row& w = row(t);
  std::call_once(w.probed, [&w] { w.answer = w.backend.probe(); });
  return w.answer;
}

const Backend& backend(DeviceType t) {
  const Row& r = row(t);
  TN_CHECK_KIND(r.registered, NotImplemented, "torchnative has no '", device_type_name(t),
                "' back end: tensors cannot live on that device");
  if (!r.answer.available) {
    Availability a = availability(t);
    TN_CHECK(a.available, "the '", device_type_name(t), "' device is not available (", a.probe,
             "): ", a.reason);
  }
  return r.backend;
}

void copy_bytes(DeviceType dst_type, void* dst, DeviceType src_type, const void* src,
                size_t nbytes) {
  if (nbytes == 0) return;
  if (dst_type == DeviceType::CPU && src_type == DeviceType::CPU) {
    std::memmove(dst, src, nbytes);
    return;
  }
  if (dst_type == src_type) {
    backend(dst_type).copy_on_device(dst, src, nbytes);
    return;
  }
  TN_ASSERT(dst_type == DeviceType::CPU || src_type == DeviceType::CPU);
  if (src_type == DeviceType::CPU) {
    backend(dst_type).copy_from_host(dst, src, nbytes);
    Row& r = row(dst_type);
    r.to_device.fetch_add(1);
    r.bytes_to_device.fetch_add(nbytes);
  } else {
    backend(src_type).copy_to_host(dst, src, nbytes);
    Row& r = row(src_type);
    r.to_host.fetch_add(1);
    r.bytes_to_host.fetch_add(nbytes);
  }
}

TransferCounts transfer_counts(DeviceType t) {
  const Row& r = row(t);
  TransferCounts c;
  c.to_device = r.to_device.load();
  c.to_host = r.to_host.load();
  c.bytes_to_device = r.bytes_to_device.load();
  c.bytes_to_host = r.bytes_to_host.load();
  return c;
}

void reset_transfer_counts(DeviceType t) {
  Row& r = row(t);
  r.to_device = 0;
  r.to_host = 0;
  r.bytes_to_device = 0;
  r.bytes_to_host = 0;
}

}  // namespace tn
