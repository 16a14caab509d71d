// Autograd's graph (docs/ARCHITECTURE.md, "Autograd"): the Autograd key records one Node per
// differentiable call that has an input requiring grad, under grad mode. A node's inputs are the
// gradients of its forward call's outputs (by output_nr); its outputs are the gradients of the
// forward call's differentiable inputs, each sent along an Edge to the node that made that input
// (its grad_fn) or, for a leaf, to the leaf's AccumulateGrad. The engine (engine.h) runs the
// nodes in upstream's order. Pure C++: csrc/python gives nodes their Python faces.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "core/tensor_impl.h"

namespace tn::autograd {

class Node;

// Where a gradient goes: input `input_nr` of `fn`. An empty edge: that input needs no gradient.
struct Edge {
  Ptr<Node> fn;
  uint32_t input_nr = 0;
  explicit operator bool() const { return static_cast<bool>(fn); }
};

// A null Tensor is "no gradient" (upstream's undefined tensor), taken as zeros where needed.
using Grads = std::vector<Tensor>;

// A hook on the gradient arriving at one of a node's inputs (a tensor's register_hook, or its
// retain_grad): returns the gradient to use instead, or null to keep it.
using GradHook = std::function<Tensor(const Tensor&)>;

// What a gradient for one of a node's inputs must look like (one per forward output), so the
// engine can reduce a broadcast gradient, cast its dtype, or refuse it as upstream does.
struct InputMeta {
  Dims sizes;
  ScalarType dtype = ScalarType::Float;
  Device device;
  bool undefined = false;  // a forward output that is no tensor (or not differentiable)
};

// Hooks on a node itself (grad_fn.register_prehook / register_hook): a pre-hook sees the
// gradients arriving at the node and returns those to use; a post-hook sees what the node
// computed (its "grad_inputs") and what it was given ("grad_outputs"), and returns the
// gradients to send on.
using NodePreHook = std::function<Grads(Grads grad_outputs)>;
using NodePostHook = std::function<Grads(Grads grad_inputs, const Grads& grad_outputs)>;

class Node : public RefCounted {
 public:
  Node();
  ~Node() override;
  // What upstream's grad_fn.name() says (MulBackward0, torch::autograd::AccumulateGrad...).
  virtual const char* name() const = 0;
  // The Python class of its grad_fn object (MulBackward0, AccumulateGrad...).
  virtual const char* class_name() const { return name(); }
  // Gradients for this node's outputs (one per edge in `next`) from those of its inputs.
  virtual Grads apply(Grads&& grads) = 0;
  // Drops what the node saved for backward (after a backward without retain_graph).
  virtual void release_saved() {}
  // The order upstream's engine runs ready nodes in: later-made nodes first; AccumulateGrad
  // nodes take the highest number, as upstream's do, so they run as soon as they are ready.
  uint64_t sequence_nr() const { return seq_; }

  std::vector<Edge> next;
  std::vector<InputMeta> inputs;
  // Run by the engine on input input_nr's gradient before the node (upstream's tensor
  // pre-hooks: register_hook's first, retain_grad's last).
  std::vector<std::pair<uint32_t, GradHook>> tensor_hooks;
  std::vector<std::pair<uint32_t, GradHook>> retain_hooks;
  std::vector<NodePreHook> pre_hooks;
  std::vector<NodePostHook> post_hooks;
  void* python_face = nullptr;  // csrc/python's object for the node, if alive (non-owning)
  // The dicts behind the node's Python pre-hooks [0] and hooks [1] (non-owning: the hook in
  // pre_hooks / post_hooks that reads each dict holds it).
  void* python_hooks[2] = {nullptr, nullptr};

 protected:
  explicit Node(uint64_t seq) : seq_(seq) {}

 private:
  uint64_t seq_;
};

// A leaf's sink: adds the gradient into the leaf's .grad (upstream's accumulation rules). Owns
// the leaf; the leaf points back without owning (AutogradMeta::grad_accumulator).
class AccumulateGrad final : public Node {
 public:
  explicit AccumulateGrad(Tensor leaf);
  ~AccumulateGrad() override;
  const char* name() const override { return "torch::autograd::AccumulateGrad"; }
  const char* class_name() const override { return "AccumulateGrad"; }
  Grads apply(Grads&& grads) override;
  const Tensor& variable() const { return variable_; }

 private:
  Tensor variable_;
};

// A node that refuses at backward time, naming what is missing (an op without a derivative, or
// a history we cannot yet replay): forward runs, backward through it raises NotImplementedError;
// or, where upstream itself has no derivative (its NotImplemented node), upstream's RuntimeError.
class Unsupported final : public Node {
 public:
  // class_name: the Python class; name: what name() says (upstream's for that node).
  Unsupported(const char* class_name, const char* name, std::string why,
              bool as_upstream = false)
      : class_name_(class_name), name_(name), why_(std::move(why)), as_upstream_(as_upstream) {}
  const char* name() const override { return name_; }
  const char* class_name() const override { return class_name_; }
  Grads apply(Grads&& grads) override;

 private:
  const char* class_name_;
  const char* name_;
  std::string why_;
  bool as_upstream_;
};

// A leaf's own hooks (register_hook on a tensor without grad_fn) live with the leaf, not its
// AccumulateGrad: csrc/python installs the runner, which the engine calls on every gradient
// arriving at a leaf whose AutogradMeta::has_hooks is set.
using LeafHookRunner = Tensor (*)(const Tensor& leaf, const Tensor& grad);
void set_leaf_hook_runner(LeafHookRunner run);
Tensor run_leaf_hooks(const Tensor& leaf, const Tensor& grad);
// The leaf's post-accumulate-grad hooks (register_post_accumulate_grad_hook), run with the leaf
// once its .grad holds the new sum, when AutogradMeta::has_post_accumulate_hooks is set.
using PostAccumulateRunner = void (*)(const Tensor& leaf);
void set_post_accumulate_runner(PostAccumulateRunner run);
void run_post_accumulate_hooks(const Tensor& leaf);

// The edge a gradient for t takes: its grad_fn's output, its (shared) AccumulateGrad if it is a
// leaf requiring grad, else empty.
Edge gradient_edge(const Tensor& t);

// The node that made t, or null (leaves, and tensors that do not require grad).
Node* grad_fn_of(const TensorImpl& t);

// A tensor sharing t's bytes and version counter but none of its history: what a node keeps of
// its own outputs (keeping the output itself would make a cycle through its grad_fn).
Tensor alias_without_history(const Tensor& t);

// Upstream's words for reading what a node saved after backward freed it (formula nodes and
// custom Functions alike).
extern const char* const kSavedFreed;

// Upstream's SavedVariable check: t, kept at version `kept`, must still be at it; else the
// RuntimeError naming t and, when `by` is given, which output of which node it is.
void check_saved_version(const Tensor& t, uint32_t kept, const Node* by, int output_nr);

// t's shape, dtype and device, as a gradient for it must have.
InputMeta meta_of(const TensorImpl& t);

// t reduced by summation to `shape` (upstream's sum_to: leading dims summed away, dims of size
// one in shape summed with keepdim), through door ops. t itself when nothing needs summing.
Tensor sum_to(const Tensor& t, const Dims& shape);

}  // namespace tn::autograd
