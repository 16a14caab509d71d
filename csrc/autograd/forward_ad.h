// Forward-mode AD's recording (upstream's forward formulas in VariableType): after a call whose
// inputs have tangents at the live dual level, each differentiable output gets its tangent from
// the op's forward formula, and an in-place op updates self's tangent in place. Formulas live
// in csrc/autograd/forward_formulas/, written from derivatives.yaml's `result:` entries with
// door ops. An op without one refuses with upstream's NotImplementedError. Pure C++.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "autograd/formula.h"
#include "autograd/forward_grad.h"
#include "dispatch/kernel.h"

namespace tn::autograd {

// What a forward formula sees: the call's primal arguments (an in-place op's self as it was
// before the write), its primal results, and per argument the tangents (one per tensor, a
// list's per element; null where none).
struct Duals {
  const std::vector<Value>& args;
  const std::vector<Value>& results;
  const std::vector<std::vector<Tensor>>& tangents;

  const Tensor& p(size_t i) const { return args[i].tensor; }
  // Tensor argument i's tangent, or null (upstream's undefined tangent, a zero).
  Tensor t(size_t i) const { return tangents[i].empty() ? Tensor() : tangents[i][0]; }
  // The same, zeros of the primal's shape and dtype where there is none.
  Tensor tz(size_t i) const;
  const Tensor& result(size_t i) const { return results[i].tensor; }
  Scalar scalar(size_t i) const;
};

// One tangent per output, lists flattened (null: no tangent).
using Forward = std::vector<Tensor> (*)(const Duals& d);

enum class ForwardKind : uint8_t {
  Formula,      // `fn` computes the tangents
  Linear,       // upstream's auto_linear: the op itself applied to the tangents of `inputs`
  ElementWise,  // upstream's auto_element_wise: the op's backward with grad = self's tangent
  Manual,       // the op handles tangents itself (_make_dual...): nothing to record
};

struct ForwardFormula {
  ForwardKind kind = ForwardKind::Formula;
  Forward fn = nullptr;
  std::vector<int> inputs = {0};  // Linear: the argument positions given tangents
};

struct ForwardRegistrar {
  ForwardRegistrar(const char* op_key, ForwardFormula f);
};
#define TN_REGISTER_FORWARD(op, ...)                                                      \
  static ::tn::autograd::ForwardRegistrar TN_DERIVATIVE_CONCAT(tn_forward_, __LINE__)( \
      op, ::tn::autograd::ForwardFormula __VA_ARGS__)

// The Autograd layer's one call around the kernel while a dual level is live: before the
// kernel, forward_prepare gathers the call's tangents (null when it has none) and refuses an
// op without a formula; after it, forward_record gives the outputs their tangents.
struct DualCall;
struct DualCallDeleter {
  void operator()(DualCall* d) const;
};
using DualCallPtr = std::unique_ptr<DualCall, DualCallDeleter>;
DualCallPtr forward_prepare(const Call& call);
void forward_record(Call& call, DualCall& d);

}  // namespace tn::autograd
