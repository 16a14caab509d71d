// The CPU back end's row of the device table (core/backend.h): host memory from cpu_alloc,
// copies are memmove, nothing to synchronise, always available.
#include <cstring>

#include "core/backend.h"

namespace tn {
namespace {

void host_copy(void* dst, const void* src, size_t nbytes) { std::memmove(dst, src, nbytes); }
void no_sync() {}
Availability always() { return {true, "cpu: always present", ""}; }

Backend make_cpu() {
  Backend b;
  b.type = DeviceType::CPU;
  b.allocator = &host_allocator();
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
