// Dispatch keys: the ordered layers one operator call passes through, and the key sets a call
// is dispatched on (docs/ARCHITECTURE.md, "The door in layers"). Pure C++.
//
// A key set is a bit mask; a higher bit runs first. From the top:
//   Capture          records the call for replay and lowering (reserved: no kernel yet)
//   Autograd         records the graph; CompositeImplicit kernels (upstream's
//                    CompositeImplicitAutograd) run here, so every layer below sees their pieces
//   ADInplaceOrView  version bumps of written arguments, derived from the schema's alias info
//   Conjugate        tensors whose conjugate bit is set (x.conj()): the op's inputs resolved
//   Negative         ... negative bit set (an imaginary part of a conjugate view): the same
//                    (kernels/views/math_bits.cpp); view ops and copy_ pass the bits through
//   Python           TorchDispatchMode and __torch_dispatch__ subclasses (below autograd, as
//                    upstream places it)
//   back ends        one key per row of the device table (core/device_table.h), lowest first
// A key whose slot holds no kernel for an op is skipped at no cost (the op's mask lacks it).
#pragma once

#include <cstdint>

#include "core/dispatch_key.h"

namespace tn {

// Per-thread keys added to (included) and removed from (excluded) every call's key set; a
// kernel that must not see a layer again below itself excludes it for the duration.
struct LocalKeys {
  KeySet included = key_bit(DispatchKey::ADInplaceOrView);
  KeySet excluded = 0;
};
LocalKeys& local_keys();

// RAII: removes keys from every call this thread makes until destroyed.
class ExcludeKeys {
 public:
  explicit ExcludeKeys(KeySet ks) : saved_(local_keys().excluded) { local_keys().excluded |= ks; }
  ~ExcludeKeys() { local_keys().excluded = saved_; }
  ExcludeKeys(const ExcludeKeys&) = delete;
  ExcludeKeys& operator=(const ExcludeKeys&) = delete;

 private:
  KeySet saved_;
};

// RAII: adds keys to every call this thread makes until destroyed (a dispatch mode's Python key).
class IncludeKeys {
 public:
  explicit IncludeKeys(KeySet ks) : saved_(local_keys().included) { local_keys().included |= ks; }
  ~IncludeKeys() { local_keys().included = saved_; }
  IncludeKeys(const IncludeKeys&) = delete;
  IncludeKeys& operator=(const IncludeKeys&) = delete;

 private:
  KeySet saved_;
};

}  // namespace tn
