// In-place writes into views (upstream's CopySlices and view regeneration). When an in-place op
// writes into a view whose base takes part in autograd, the base's history becomes a
// CopySlices node: its gradient passes through unchanged outside the view, and inside it goes
// through the in-place op's own node. The view, and every other view of that base, then takes
// its history from the base again: an AsStridedBackward0 node picking its elements out of the
// base's gradient, made when the view's grad_fn is next asked for (its version has moved on).
// Pure C++.
#pragma once

#include "autograd/node.h"

namespace tn::autograd {

// After the in-place op recorded as `fn` wrote into `view` (a view, fn its node with the view
// as input 0 and output 0): rebases the base's history onto CopySlices(fn) and gives the view
// its history from the base. Refuses as upstream does a view made under no_grad.
void rebase_view_history(const Tensor& view, const Ptr<Node>& fn);

// A view whose base was written into since its grad_fn was made gets a new one from the
// base's history (called wherever a grad_fn is read: grad_fn_of, gradient_edge).
void refresh_view_history(const TensorImpl& view);

// Marks a view's grad_fn as current (set_history calls it for every view it gives a history).
inline void note_view_history(TensorImpl& t) {
  if (t.view_base()) t.ensure_autograd_meta().view_version = t.version();
}

}  // namespace tn::autograd
