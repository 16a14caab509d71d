// Dispatch keys and key sets: the ordered layers one operator call passes through (the door's
// meaning of them: dispatch/keys.h). Here in the core, as upstream's c10 keeps them, because a
// tensor carries the keys it asks for (its back end's, Autograd when it requires grad, Python
// when it is a __torch_dispatch__ subclass). Pure C++.
#pragma once

#include <cstdint>

#include "core/device.h"

namespace tn {

enum class DispatchKey : uint8_t {
#define TN_BACKEND_KEY(e, name, rep_name) e,
  TN_FORALL_BACKENDS(TN_BACKEND_KEY)
#undef TN_BACKEND_KEY
  Python = 8,
  Negative,   // tensors with the negative bit (the imaginary part of a conjugate view)
  Conjugate,  // tensors with the conjugate bit (x.conj() of a complex tensor)
  ADInplaceOrView,
  Autograd,
  Capture,
};
constexpr int kNumDispatchKeys = static_cast<int>(DispatchKey::Capture) + 1;
static_assert(kNumDeviceTypes <= static_cast<int>(DispatchKey::Python),
              "the device table has outgrown the back-end keys");

const char* dispatch_key_name(DispatchKey k);  // upstream's names: "CPU", "Meta", "AutogradCPU"...

using KeySet = uint16_t;
constexpr KeySet key_bit(DispatchKey k) { return static_cast<KeySet>(1u << static_cast<int>(k)); }
constexpr KeySet kBackendKeys = static_cast<KeySet>(key_bit(DispatchKey::Python) - 1);
// Every key strictly below k.
constexpr KeySet keys_below(DispatchKey k) { return static_cast<KeySet>(key_bit(k) - 1); }
inline DispatchKey backend_key(DeviceType t) { return static_cast<DispatchKey>(t); }
inline DispatchKey highest_key(KeySet ks) {
  return static_cast<DispatchKey>(31 - __builtin_clz(static_cast<unsigned>(ks)));
}

}  // namespace tn
