// Grad mode (torch.is_grad_enabled / no_grad / enable_grad): per thread, as upstream's. The
// Autograd layer reads it on every differentiable call that has a tensor requiring grad.
// Pure C++.
#pragma once

namespace tn {

bool grad_mode_enabled();
void set_grad_mode(bool enabled);

// Anomaly mode (torch.autograd.detect_anomaly / set_detect_anomaly): process-wide, as upstream's.
// With check_nan, backward raises naming the first node whose output gradient holds a NaN.
bool anomaly_enabled();
bool anomaly_check_nan();
void set_anomaly(bool enabled, bool check_nan);

// RAII: grad mode set for a scope (C++ callers; Python's no_grad goes through _set_grad_enabled).
class GradModeGuard {
 public:
  explicit GradModeGuard(bool enabled) : saved_(grad_mode_enabled()) { set_grad_mode(enabled); }
  ~GradModeGuard() { set_grad_mode(saved_); }
  GradModeGuard(const GradModeGuard&) = delete;
  GradModeGuard& operator=(const GradModeGuard&) = delete;

 private:
  bool saved_;
};

}  // namespace tn
