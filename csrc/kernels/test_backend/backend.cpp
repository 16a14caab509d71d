// torchnative's test back end, on the PrivateUse1 row of the device table: the smallest real
// back end, used only by the tests (STYLE.md: tinygrad's fake device). Its storage is host
// memory kept behind the back-end contract (core/backend.h), so the core and the door must treat
// it as another device's: nothing may reach its bytes but its own kernels and the contract's
// copies, which count host<->device traffic. Available only when TORCHNATIVE_TEST_BACKEND=1.
// Adding it touched this folder and the device table's row, nothing else.
#include <cstdlib>
#include <cstring>

#include "core/backend.h"

namespace tn {
namespace {

void move_bytes(void* dst, const void* src, size_t nbytes) { std::memmove(dst, src, nbytes); }
void no_sync() {}

Availability probe() {
  const char* v = std::getenv("TORCHNATIVE_TEST_BACKEND");
  bool on = v && std::strcmp(v, "1") == 0;
  return {on, "privateuseone: TORCHNATIVE_TEST_BACKEND",
          on ? "" : "torchnative's test back end is enabled only with TORCHNATIVE_TEST_BACKEND=1"};
}

Backend make_test_backend() {
  Backend b;
  b.type = DeviceType::PrivateUse1;
  b.allocator = &host_allocator();
  b.copy_from_host = move_bytes;
  b.copy_to_host = move_bytes;
  b.copy_on_device = move_bytes;
  b.synchronize = no_sync;
  b.probe = probe;
  return b;
}

}  // namespace

TN_REGISTER_BACKEND(make_test_backend);

}  // namespace tn
