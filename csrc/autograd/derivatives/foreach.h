// The foreach ops' derivatives (autograd, issue 8), derived element by element from each
// per-tensor op's formula as upstream's torchgen does (gen_foreach_derivativeinfo); the
// Autograd key's foreach path (autograd_layer.cpp) records through these. Pure C++.
#pragma once

#include <cstdint>

#include "autograd/node.h"
#include "dispatch/kernel.h"

namespace tn::autograd {

// One foreach overload's derivative, as tools/gen_ops.py writes it from upstream's torchgen.
struct ForeachDerivative {
  const char* op;    // "aten::_foreach_mul.List"
  // Upstream's node: ForeachMulBackward0List (out of place, one over every element), or the
  // per-tensor op's (MulBackward0, in place, one per element); "" in place where upstream has
  // no formula (its NotImplemented node per element).
  const char* node;
  const char* base;  // the per-tensor op whose formula each element takes; "": the op's own
  uint32_t edges;    // bit p: schema argument p gets gradients
  uint32_t twice;    // bit p: upstream's formula indexes element i of argument p again by i
  // Out of place: the tensor arguments upstream's node saves, in its order (digits, "10":
  // argument 1, then 0); in place, "" (each element's node keeps what its formula reads).
  const char* saved = "";
};

// op's derivative, or null when it is no foreach op upstream's autograd records.
const ForeachDerivative* foreach_derivative(int op_index);

// The node of an out-of-place foreach call about to run: edges in upstream's order (argument
// by argument, element by element), what each element's formula reads kept. Output i (result
// element i) is to get it as grad_fn.
Ptr<Node> foreach_node(const Call& call, const ForeachDerivative& d);

// The node of element i of an in-place foreach call about to run, or null when none of that
// element's arguments requires grad (upstream's ith_requires_grad); self[i]'s history is to be
// rebased onto it (output 0).
Ptr<Node> foreach_element_node(const Call& call, const ForeachDerivative& d, size_t i);

// After the call: node keeps output output_nr (t, which now has node as grad_fn) where its
// formula reads its results.
void foreach_keep_result(Node& node, const Tensor& t, int output_nr);

}  // namespace tn::autograd
