// Graph nodes (see node.h): sequence numbers, leaves' AccumulateGrad, refusing nodes, edges.
#include "autograd/node.h"

#include <algorithm>
#include <limits>
#include <string>

#include "autograd/grad_mode.h"
#include "autograd/view_history.h"
#include "kernels/composite/ops.h"

namespace tn::autograd {
namespace {

// Upstream numbers nodes per thread, in the order they are made.
thread_local uint64_t t_next_sequence_nr = 0;

}  // namespace

Node::Node() : seq_(t_next_sequence_nr++) {}
Node::~Node() = default;

AccumulateGrad::AccumulateGrad(Tensor leaf)
    : Node(std::numeric_limits<uint64_t>::max()), variable_(std::move(leaf)) {
  inputs.push_back(meta_of(*variable_));
}

AccumulateGrad::~AccumulateGrad() {
  if (AutogradMeta* m = variable_->autograd_meta())
    if (m->grad_accumulator == this) m->grad_accumulator = nullptr;
}

// Upstream's AccumulateGrad::accumulateGrad for dense tensors: the first gradient is kept as it
// comes when nothing else holds it and its layout is the leaf's, else copied into the leaf's
// layout; later ones are added in place (out of place under grad mode, so that a graph built by
// create_graph keeps each step).
Grads AccumulateGrad::apply(Grads&& grads) {
  Tensor g = std::move(grads[0]);
  if (!g) return {};
  AutogradMeta& m = variable_->ensure_autograd_meta();
  if (!m.grad) {
    bool keep = !grad_mode_enabled() && g->use_count() == 1 &&
                g->strides() == variable_->strides() && g->storage_offset() == 0 &&
                g->storage()->nbytes() == g->numel() * g->itemsize();
    if (keep) {
      m.grad = std::move(g);
    } else {
      Tensor copy = ops::empty_strided(variable_->sizes(),
                                       variable_->is_contiguous()
                                           ? contiguous_strides(variable_->sizes())
                                           : variable_->strides(),
                                       variable_->dtype(), variable_->device());
      ops::copy_(copy, g);
      m.grad = std::move(copy);
    }
  } else if (!grad_mode_enabled()) {
    call("aten::add_.Tensor", {Value::of(m.grad), Value::of(g)});
  } else {
    m.grad = call_tensor("aten::add.Tensor", {Value::of(m.grad), Value::of(g)});
  }
  return {};
}

Grads Unsupported::apply(Grads&&) {
  if (as_upstream_) TN_FAIL(Runtime, why_);
  TN_FAIL(NotImplemented, why_);
}

namespace {
LeafHookRunner g_leaf_hooks = nullptr;
PostAccumulateRunner g_post_accumulate = nullptr;
}  // namespace
void set_post_accumulate_runner(PostAccumulateRunner run) { g_post_accumulate = run; }
void run_post_accumulate_hooks(const Tensor& leaf) {
  const AutogradMeta* m = leaf->autograd_meta();
  if (g_post_accumulate && m && m->has_post_accumulate_hooks) g_post_accumulate(leaf);
}
void set_leaf_hook_runner(LeafHookRunner run) { g_leaf_hooks = run; }
Tensor run_leaf_hooks(const Tensor& leaf, const Tensor& grad) {
  const AutogradMeta* m = leaf->autograd_meta();
  if (!grad || !g_leaf_hooks || !m || !m->has_hooks) return grad;
  return g_leaf_hooks(leaf, grad);
}

Node* grad_fn_of(const TensorImpl& t) {
  if (t.view_base()) refresh_view_history(t);
  AutogradMeta* m = t.autograd_meta();
  return m ? static_cast<Node*>(m->grad_fn.get()) : nullptr;
}

Edge gradient_edge(const Tensor& t) {
  if (!t) return {};
  if (t->view_base()) refresh_view_history(*t);
  AutogradMeta* m = t->autograd_meta();
  if (!m) return {};
  if (m->grad_fn) return {Ptr<Node>(static_cast<Node*>(m->grad_fn.get())),
                          static_cast<uint32_t>(m->output_nr)};
  if (!m->requires_grad) return {};
  if (m->grad_accumulator) return {Ptr<Node>(static_cast<Node*>(m->grad_accumulator)), 0};
  Ptr<Node> acc = make<AccumulateGrad>(t);
  m->grad_accumulator = acc.get();
  return {std::move(acc), 0};
}

Tensor alias_without_history(const Tensor& t) {
  Tensor a = make<TensorImpl>(t->storage(), t->dtype(), t->sizes(), t->strides(),
                              t->storage_offset(), t->representation());
  a->share_version(*t);
  a->copy_math_bits(*t);
  return a;
}

namespace {
// "torch.FloatTensor": the legacy type name upstream's messages use.
std::string type_name_of(ScalarType s) {
  const char* legacy = info(s).legacy_name;
  return std::string("torch.") + (legacy[0] ? legacy : "Tensor");
}

// "ExpBackward0" -> "Exp", and a custom Function's "ExpBackward" -> "Exp": how upstream's
// messages name the op behind a node.
std::string op_name_of(const char* node_name) {
  std::string n(node_name);
  size_t at = n.rfind("Backward");
  if (at != std::string::npos && at > 0) {
    bool digits = true;
    for (size_t i = at + 8; i < n.size(); ++i) digits = digits && n[i] >= '0' && n[i] <= '9';
    if (digits) n.erase(at);
  }
  return n;
}
}  // namespace

const char* const kSavedFreed =
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward.";

void check_saved_version(const Tensor& t, uint32_t kept, const Node* by, int output_nr) {
  uint32_t now = t->version();
  if (now == kept) return;
  std::string what = "[" + type_name_of(t->dtype()) + " " + dims_str(t->sizes()) + "]";
  if (by)
    what += ", which is output " + std::to_string(output_nr) + " of " + op_name_of(by->name()) +
            ",";
  TN_FAIL(Runtime, "one of the variables needed for gradient computation has been modified by "
          "an inplace operation: ", what, " is at version ", now, "; expected version ", kept,
          " instead. Hint: enable anomaly detection to find the operation that failed to "
          "compute its gradient, with torch.autograd.set_detect_anomaly(True, "
          "check_nan=False).");
}

InputMeta meta_of(const TensorImpl& t) { return {t.sizes(), t.dtype(), t.device()}; }

Tensor sum_to(const Tensor& t, const Dims& shape) {
  const Dims& sizes = t->sizes();
  if (sizes == shape) return t;
  int64_t lead = static_cast<int64_t>(sizes.size()) - static_cast<int64_t>(shape.size());
  TN_CHECK(lead >= 0, "sum_to: ", dims_str(sizes), " cannot be reduced to ", dims_str(shape));
  Dims dims;
  for (int64_t i = 0; i < lead; ++i) dims.push_back(i);
  for (int64_t i = lead; i < static_cast<int64_t>(sizes.size()); ++i)
    if (shape[i - lead] == 1 && sizes[i] != 1) dims.push_back(i);
  Tensor r = t;
  if (!dims.empty())
    r = call_tensor("aten::sum.dim_IntList",
                    {Value::of(r), Value::of_ints(dims), Value::of_bool(true)});
  return lead > 0 ? ops::view(r, shape) : r;
}

}  // namespace tn::autograd
