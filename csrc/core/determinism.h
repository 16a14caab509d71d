// torch.use_deterministic_algorithms's state, process-wide as upstream's (at::globalContext()):
// the mode, its warn_only form, and whether the factories that leave memory uninitialised fill
// it while the mode is on (torch.utils.deterministic.fill_uninitialized_memory, default on).
#pragma once

namespace tn {

struct Determinism {
  bool algorithms = false;
  bool warn_only = false;
  bool fill_uninitialized_memory = true;
};
Determinism& determinism();

// Upstream's alertNotDeterministic(caller): under the mode, an op without a deterministic
// implementation raises RuntimeError, or with warn_only warns (a UserWarning, each call).
void alert_not_deterministic(const char* caller);

// Whether empty, empty_strided, empty_like, new_empty, empty_permuted and resize_'s new
// elements are filled now (with NaN, or an integer dtype's largest value).
inline bool fills_uninitialized_memory() {
  const Determinism& d = determinism();
  return d.algorithms && d.fill_uninitialized_memory;
}

}  // namespace tn
