// Derivative formulas: one per differentiable op, written beside its family in
// csrc/autograd/derivatives/ with door ops (tn::call), so a formula runs on every back end and,
// under create_graph, is itself recorded (double backward). Each names the node as upstream's
// derivatives.yaml does (MulBackward0...), the schema arguments that get gradients (the node's
// edges, in that order), and what backward reads: only those arguments (and the outputs
// saves_results names) are kept, and each kept tensor's version is checked at backward
// time as upstream's SavedVariable checks it.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "autograd/node.h"
#include "dispatch/value.h"

namespace tn::autograd {

// An input's geometry as it was at the forward call (upstream saves self.sym_sizes() and the
// like apart from the tensor, so a formula that needs only the shape keeps no tensor alive).
struct ArgMeta {
  Dims sizes;
  Dims strides;
  ScalarType dtype = ScalarType::Float;
  Device device;
};

// What a formula sees: the forward call's arguments (schema order; a tensor argument is None
// unless the formula reads it), its kept outputs, and per edge (Formula::inputs order, a tensor
// list giving one edge per element) whether it needs a gradient and its input's geometry.
struct Saved {
  const std::vector<Value>& args;
  const std::vector<Tensor>& results;
  const std::vector<bool>& needs;
  const std::vector<ArgMeta>& metas;

  const Tensor& tensor(size_t i) const { return args[i].tensor; }
  const Value& arg(size_t i) const { return args[i]; }
  int64_t to_int(size_t i) const { return args[i].tag == Value::Tag::Int ? args[i].i : 0; }
  bool to_bool(size_t i) const { return args[i].tag == Value::Tag::Bool && args[i].b; }
  Scalar scalar(size_t i) const;  // a Scalar, int or float argument as a Scalar
  const Dims& ints(size_t i) const { return args[i].ints; }
  const Tensor& result(size_t i) const { return results[i]; }
  bool need(size_t edge) const { return needs[edge]; }
  const ArgMeta& meta(size_t edge) const { return metas[edge]; }
};

using Backward = Grads (*)(const Saved& s, const Grads& grads);

// A tensor argument backward reads: always (for_edge < 0), or only when edge for_edge needs a
// gradient (upstream saves mm's mat2 only when self needs one).
struct Read {
  int arg;
  int for_edge = -1;
};

struct Formula {
  const char* name;            // upstream's node class name
  std::vector<int> inputs;     // schema argument positions that receive gradients
  std::vector<Read> reads;     // tensor arguments backward reads (kept, version-checked)
  uint32_t saves_results = 0;  // bit i: backward reads output i (kept without its history)
  Backward backward = nullptr;  // one gradient (or null) per edge
  uint32_t nondifferentiable_outputs = 0;  // bit i: output i gets no history (upstream's
                                           // output_differentiability False)
  // Tensor arguments (schema positions) with no formula that upstream refuses, under grad
  // mode, to see requiring grad (its check_no_requires_grad: native_batch_norm's running_mean).
  std::vector<int> no_requires_grad = {};
  // Written for complex tensors too (set by TN_COMPLEX_READY, never in the braces above): a
  // recorded call of an op whose formula lacks it refuses by name when a complex tensor
  // requires grad or comes out, rather than run real-valued formulas on complex values.
  bool complex_ready = false;
  // Refuses complex outputs in upstream's words (its generated autograd for ops outside its
  // list of complex-differentiable ones: _conj_copy, view_as_complex_copy); set by
  // TN_COPY_VARIANT's third argument.
  bool refuse_complex_outputs = false;
};

// Registers op_key's formula (at static initialisation, from the derivatives/ files).
struct FormulaRegistrar {
  FormulaRegistrar(const char* op_key, Formula f);
};
#define TN_DERIVATIVE_CONCAT2(a, b) a##b
#define TN_DERIVATIVE_CONCAT(a, b) TN_DERIVATIVE_CONCAT2(a, b)
#define TN_REGISTER_DERIVATIVE(op, ...)                                              \
  static ::tn::autograd::FormulaRegistrar TN_DERIVATIVE_CONCAT(tn_derivative_, __LINE__)( \
      op, ::tn::autograd::Formula __VA_ARGS__)

// Registers a view op's *_copy twin (permute_copy of permute): the view's formula, its node
// named with "_copy" appended, as upstream generates them.
// complex_outputs false: a complex output refuses, as upstream's generated code does for copies
// it does not list as complex-differentiable.
struct CopyVariantRegistrar {
  CopyVariantRegistrar(const char* copy_key, const char* view_key, bool complex_outputs = true);
};
#define TN_COPY_VARIANT(copy, view, ...)                                                   \
  static ::tn::autograd::CopyVariantRegistrar TN_DERIVATIVE_CONCAT(tn_copy_variant_,      \
                                                                    __LINE__)(copy, view, \
                                                                              ##__VA_ARGS__)

// Marks op keys' formulas as written for complex tensors as well, upstream's convention: the
// gradient is the conjugate Wirtinger derivative, so a holomorphic f's is grad * conj(f'(z)), and
// a real input that meets a complex gradient takes its real part (handle_r_to_c; the engine
// does that one step for every formula, engine.cpp's validate).
struct ComplexReadyRegistrar {
  ComplexReadyRegistrar(std::initializer_list<const char*> op_keys);
};
#define TN_COMPLEX_READY(...)                                                              \
  static ::tn::autograd::ComplexReadyRegistrar TN_DERIVATIVE_CONCAT(tn_complex_ready_,  \
                                                                     __LINE__)({__VA_ARGS__})

// op's formula, or null when we have none (recording then makes a node that refuses by name).
const Formula* formula_of(int op_index);

}  // namespace tn::autograd
