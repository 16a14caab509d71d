// The backward engine (upstream's Engine::execute, on the calling thread): from root edges and
// their gradients, runs every node the roots reach once all its gradients have arrived, the
// ready ones in upstream's order (the latest-made node first; AccumulateGrad as soon as ready),
// summing gradients that meet at one input in arrival order, so accumulation has upstream's
// bits. Pure C++.
#pragma once

#include <cstdint>
#include <vector>

#include "autograd/node.h"

namespace tn::autograd {

struct BackwardOptions {
  bool keep_graph = false;     // retain_graph: nodes keep what they saved
  bool create_graph = false;   // grad mode on inside nodes: the backward pass is recorded
  bool accumulate_grad = true;  // leaves' .grad (backward) or returned gradients (autograd.grad)
  bool allow_unreachable = false;  // an input no gradient reached gives None (else an error)
};

// Runs backward from roots[i] with gradient grads[i]. With `inputs` (edges of the tensors to
// differentiate with respect to), only what leads to them runs and their gradients are returned
// in order (null where none arrived); without, every leaf reached accumulates its .grad.
// Upstream's is_checkpoint_valid: false inside a backward run for given inputs (autograd.grad),
// where reentrant checkpointing cannot work; true otherwise. Per thread.
bool checkpoint_valid();

// The backward run this thread is inside (upstream's current graph task), for
// torch._C._current_graph_task_id and friends: its id (-1 outside any), whether it keeps the
// graph, the node running now (null between nodes), and whether a node will run in it.
int64_t current_graph_task_id();
bool current_graph_task_keep_graph();
Node* current_node();
bool will_execute(Node* n);  // refuses outside a backward run

Grads run_backward(const std::vector<Edge>& roots, Grads grads, const std::vector<Edge>& inputs,
                   const BackwardOptions& opt);

}  // namespace tn::autograd
