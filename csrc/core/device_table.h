// The device table: one X-macro row per back end torchnative can hold tensors on; DeviceType,
// Representation and the back-end dispatch keys (dispatch/keys.h) all expand from it. Adding a
// back end is one row here plus its folder under csrc/kernels/ (allocator, copies, probe and
// kernels, registered with TN_REGISTER_BACKEND); docs/ARCHITECTURE.md, "Adding a back end".
// Pure C++.
#pragma once

// clang-format off
// X(Enum, upstream's device type name, representation's name in messages)
//   Enum names the DeviceType, the Representation and the back end's dispatch key alike; rows are
//   in dispatch priority order, lowest first: when a call's tensors live on several back ends and
//   the op allows it (copy_ between devices), the later row's kernel runs.
#define TN_FORALL_BACKENDS(X)                        \
  X(CPU, "cpu", "dense CPU")                         \
  X(Meta, "meta", "Meta")                            \
  X(PrivateUse1, "privateuseone", "PrivateUse1 (torchnative's test back end)")
// clang-format on
