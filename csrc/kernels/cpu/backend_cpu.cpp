// The CPU back end's row of the device table (core/backend.h): host memory from cpu_alloc,
// copies are memmove, nothing to synchronise, always available.
#include <cstring>

#include "core/backend.h"
#include "core/storage.h"

namespace tn {
namespace {

struct CpuAllocator final : Allocator {
  void* allocate(size_t nbytes) override { return cpu_alloc(nbytes); }
  void release(void* p, size_t) override { cpu_free(p); }
};

void host_copy(void* dst, const void* src, size_t nbytes) { std::memmove(dst, src, nbytes); }
void no_sync() {}
Availability always() { return {true, "cpu: always present", ""}; }

Backend make_cpu() {
  static CpuAllocator allocator;
  Backend b;
  b.type = DeviceType::CPU;
  b.allocator = &allocator;
  b.copy_from_host = host_copy;
  b.copy_to_host = host_copy;
  b.copy_on_device = host_copy;
  b.synchronize = no_sync;
  b.probe = always;
  return b;
}

}  // namespace

TN_REGISTER_BACKEND(make_cpu);

}  // namespace tn
