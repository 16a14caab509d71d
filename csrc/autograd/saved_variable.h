// What a node keeps of a tensor for its backward (upstream's SavedVariable): the tensor, or,
// under saved-tensor hooks (torch.autograd.graph.saved_tensors_hooks), whatever the pack hook
// made of it; the version it had, to refuse a later in-place change; and enough of its history
// to give the unpacked tensor its grad_fn back, so double backward reaches through it. Formula
// nodes and custom Functions (csrc/python/autograd_function.cpp) both keep tensors this way.
// Pure C++: the hooks themselves are installed by csrc/python (saved_tensors.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "autograd/node.h"

namespace tn::autograd {

// What a pack hook returned for one saved tensor; unpack() runs the unpack hook on it.
class PackedTensor {
 public:
  virtual ~PackedTensor() = default;
  virtual Tensor unpack() = 0;
};

// Runs a pack hook on t: what it returned, to keep instead of t.
using Packer = std::function<std::unique_ptr<PackedTensor>(const Tensor& t)>;

// The default hooks (saved_tensors_hooks contexts, a stack per thread, kept by csrc/python):
// `packer` packs with the innermost pair and returns null when the thread has none open; it is
// consulted only while the thread's flag is set, so saving costs nothing without hooks.
void set_default_packer(std::unique_ptr<PackedTensor> (*packer)(const Tensor& t));
void set_default_hooks_active(bool active);  // per thread

class SavedVariable {
 public:
  SavedVariable() = default;
  // Keeps t (null: a None was saved). is_output: t is an output of the node that keeps it, so
  // what is kept must not hold t's history (that would be a cycle through the node).
  SavedVariable(const Tensor& t, bool is_output, int output_nr);
  SavedVariable(SavedVariable&&) noexcept = default;
  SavedVariable& operator=(SavedVariable&&) noexcept = default;

  bool is_none() const { return none_; }
  // The tensor again. saved_for: the node that keeps it (an output's history). with_history:
  // an output comes back with that history (else its bytes alone do; inputs always keep
  // theirs). Refuses once released, and (without hooks) when t was changed in place since.
  Tensor unpack(Node* saved_for, bool with_history = true) const;
  // Drops what was kept (after a backward without retain_graph); unpack then refuses.
  void release();
  bool released() const { return released_; }
  // SavedTensor.register_hooks: packs the kept tensor now through p (only one pair of hooks).
  void register_hooks(const Packer& pack);

 private:
  Tensor data_;                               // the tensor (an output: its alias, no history)
  std::unique_ptr<PackedTensor> packed_;       // under hooks, instead of data_
  Ptr<RefCounted> grad_fn_;                    // under hooks: a non-leaf input's grad_fn
  Ptr<RefCounted> grad_accumulator_;           // under hooks: a leaf's AccumulateGrad
  uint32_t version_ = 0;
  int output_nr_ = 0;
  bool none_ = true;
  bool is_output_ = false;
  bool is_leaf_ = true;
  bool requires_grad_ = false;
  bool released_ = false;
};

}  // namespace tn::autograd
