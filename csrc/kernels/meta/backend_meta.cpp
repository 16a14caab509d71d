// The Meta back end's row of the device table (core/backend.h): storages keep a size and no
// bytes, so there is nothing to allocate or copy; every kernel is the op's shared rule alone
// (the door runs a structured op's rule and no compute on Meta).
#include "core/backend.h"
#include "core/error.h"

namespace tn {
namespace {

[[noreturn]] void no_bytes(void*, const void*, size_t) {
  TN_FAIL(NotImplemented, "Cannot copy out of meta tensor; no data!");
}
void no_sync() {}
Availability always() { return {true, "meta: always present", ""}; }

Backend make_meta() {
  Backend b;
  b.type = DeviceType::Meta;
  b.holds_bytes = false;
  b.copy_from_host = no_bytes;
  b.copy_to_host = no_bytes;
  b.copy_on_device = no_bytes;
  b.synchronize = no_sync;
  b.probe = always;
  return b;
}

}  // namespace

TN_REGISTER_BACKEND(make_meta);

}  // namespace tn
