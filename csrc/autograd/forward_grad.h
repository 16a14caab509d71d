// Forward-mode AD's state (upstream's ForwardGrad and ForwardADLevel): the dual level, the
// per-thread forward-grad switch, and each tensor's tangent at the level. One level at a time,
// as upstream's C++ allows (its only level is 0); exiting it drops every tangent made in it.
// The recording of tangents through ops is forward_ad.h's. Pure C++.
#pragma once

#include <atomic>
#include <cstdint>

#include "core/tensor_impl.h"

namespace tn::autograd {

// Whether a dual level is live: the one check every recorded call pays when none is.
extern std::atomic<bool> g_dual_level_live;
inline bool dual_level_live() { return g_dual_level_live.load(std::memory_order_relaxed); }

// torch._C._enter_dual_level / _exit_dual_level, with upstream's RuntimeErrors for a nested
// level and for exiting one that is not the last made.
int64_t enter_dual_level();
void exit_dual_level(int64_t level);

// torch._C._set_fwd_grad_enabled / _is_fwd_grad_enabled (per thread; custom Functions turn it
// off): off, every tensor reads as having no tangent.
bool fw_grad_mode_enabled();
void set_fw_grad_mode(bool enabled);

// t's tangent at level, or null. A view without one of its own whose base has one reads the
// same view of the base's tangent (upstream's case 5 of [Forward Grad View/inplace]).
Tensor fw_grad(const Tensor& t, int64_t level);
inline bool has_fw_grad(const Tensor& t) {
  return t && t->autograd_meta() && dual_level_live() && fw_grad(t, 0);
}

// Upstream's set_fw_grad: tangent becomes t's at level (RuntimeError for a tangent that is
// itself dual, a size mismatch, a level that does not exist). A tangent whose layout differs
// from t's is copied into one that matches (for a tensor that is no view). In place into a
// view whose base has no tangent: the base gets zeros and t's tangent is the view of them.
void set_fw_grad(const Tensor& t, const Tensor& tangent, int64_t level, bool in_place);

// Marks t (the result of _fw_primal) as not reading its base's tangent.
void set_not_forward_view(const Tensor& t);

}  // namespace tn::autograd
