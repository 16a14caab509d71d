// The backward engine (see engine.h).
#include "autograd/engine.h"

#include <atomic>
#include <queue>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "autograd/grad_mode.h"
#include "dispatch/kernel.h"

namespace tn::autograd {
namespace {

// Adds g into a node's input slot: the first gradient is kept as it comes, later ones summed.
void accumulate(Tensor& slot, Tensor g) {
  if (!g) return;
  if (!slot) {
    slot = std::move(g);
    return;
  }
  slot = call_tensor("aten::add.Tensor", {Value::of(slot), Value::of(g)});
}

// Anomaly mode's check_nan, in upstream's words.
void check_no_nan(const Node& n, const Grads& out) {
  for (size_t i = 0; i < out.size(); ++i) {
    if (!out[i] || !is_differentiable_type(out[i]->dtype())) continue;
    Tensor nan = call_tensor("aten::isnan", {Value::of(out[i])});
    Tensor any = call_tensor("aten::any", {Value::of(nan)});
    std::vector<Value> r = call("aten::_local_scalar_dense", {Value::of(any)});
    if (r[0].scalar.to_int() != 0)
      TN_FAIL(Runtime, "Function '", n.name(), "' returned nan values in its ", i, "th output.");
  }
}

// Upstream's validate_outputs: a gradient of another shape is reduced to its input's when the
// input's shape expands to it, else refused; another dtype is cast.
Tensor validate(const Node& fn, size_t index, Tensor g, const InputMeta& m) {
  if (!g || m.undefined) return g;
  if (g->sizes() != m.sizes) {
    bool expandable = g->dim() >= static_cast<int64_t>(m.sizes.size());
    for (size_t i = 0; expandable && i < m.sizes.size(); ++i) {
      int64_t want = m.sizes[m.sizes.size() - 1 - i];
      int64_t got = g->sizes()[g->sizes().size() - 1 - i];
      expandable = want == got || want == 1;
    }
    if (!expandable)
      TN_FAIL(Runtime, "Function ", fn.name(), " returned an invalid gradient at index ", index,
              " - got ", dims_str(g->sizes()), " but expected shape compatible with ",
              dims_str(m.sizes));
    g = sum_to(g, m.sizes);
  }
  // A real input's gradient is the real part of a complex one (upstream's formulas say
  // handle_r_to_c each; here it is one step for all of them, before the cast).
  if (is_complex(g->dtype()) && !is_complex(m.dtype))
    g = call_tensor("aten::real", {Value::of(g)});
  if (g->dtype() != m.dtype)
    g = call_tensor("aten::_to_copy", {Value::of(g), Value::of_dtype(m.dtype)});
  if (g->device() != m.device)
    TN_FAIL(Runtime, "Function ", fn.name(), " returned an invalid gradient at index ", index,
            " - expected device ", m.device.str(), " but got ", g->device().str());
  return g;
}

thread_local bool t_checkpoint_valid = true;

// Sets checkpoint_valid() for one backward run, restoring it after.
struct CheckpointValidGuard {
  bool saved;
  explicit CheckpointValidGuard(bool can) : saved(t_checkpoint_valid) {
    t_checkpoint_valid = can && saved;
  }
  ~CheckpointValidGuard() { t_checkpoint_valid = saved; }
};

// The thread's running backward (upstream's GraphTask as seen from a node's code).
struct GraphTask {
  int64_t id;
  bool keep_graph;
  const std::unordered_map<Node*, int>* reached;
  const std::unordered_set<Node*>* needed;  // null unless only some nodes run
  Node* running = nullptr;
  GraphTask* outer;
};
thread_local GraphTask* t_task = nullptr;
std::atomic<int64_t> g_next_task_id{0};

struct TaskGuard {
  GraphTask task;
  TaskGuard(bool keep, const std::unordered_map<Node*, int>* reached,
            const std::unordered_set<Node*>* needed)
      : task{g_next_task_id.fetch_add(1), keep, reached, needed, nullptr, t_task} {
    t_task = &task;
  }
  ~TaskGuard() { t_task = task.outer; }
};

struct ByOrder {
  bool operator()(const Node* a, const Node* b) const {
    return a->sequence_nr() < b->sequence_nr();
  }
};

}  // namespace

bool checkpoint_valid() { return t_checkpoint_valid; }

int64_t current_graph_task_id() { return t_task ? t_task->id : -1; }
bool current_graph_task_keep_graph() { return t_task && t_task->keep_graph; }
Node* current_node() { return t_task ? t_task->running : nullptr; }
bool will_execute(Node* n) {
  TN_CHECK(t_task, "_will_engine_execute_node should only be called during the backward pass");
  if (t_task->needed) return t_task->needed->count(n) > 0;
  return t_task->reached->count(n) > 0;
}

Grads run_backward(const std::vector<Edge>& roots, Grads grads, const std::vector<Edge>& inputs,
                   const BackwardOptions& opt) {
  // Dependencies: how many edges lead into each node from the roots.
  std::unordered_map<Node*, int> deps;
  std::vector<Node*> order;  // every node reached, parents before children
  {
    std::unordered_set<Node*> seen;
    std::vector<Node*> stack;
    for (const Edge& e : roots)
      if (e) {
        ++deps[e.fn.get()];
        if (seen.insert(e.fn.get()).second) stack.push_back(e.fn.get());
      }
    while (!stack.empty()) {
      Node* n = stack.back();
      stack.pop_back();
      order.push_back(n);
      for (const Edge& e : n->next)
        if (e) {
          ++deps[e.fn.get()];
          if (seen.insert(e.fn.get()).second) stack.push_back(e.fn.get());
        }
    }
  }

  // With inputs: which nodes lead to one (only those run), and where gradients are captured.
  std::unordered_map<Node*, std::vector<std::pair<uint32_t, size_t>>> captures;
  std::unordered_set<Node*> needed;
  bool selective = !inputs.empty();
  if (selective) {
    for (size_t k = 0; k < inputs.size(); ++k)
      if (inputs[k]) captures[inputs[k].fn.get()].push_back({inputs[k].input_nr, k});
    // Children come after their parents in `order` only along one path, so iterate to a fixed
    // point (graphs are small next to the work each node does).
    bool changed = true;
    while (changed) {
      changed = false;
      for (Node* n : order) {
        if (needed.count(n)) continue;
        bool need = captures.count(n) && opt.accumulate_grad && dynamic_cast<AccumulateGrad*>(n);
        for (const Edge& e : n->next)
          need = need || (e && (needed.count(e.fn.get()) || captures.count(e.fn.get())));
        if (need) needed.insert(n), changed = true;
      }
    }
  }

  std::unordered_map<Node*, Grads> buffers;
  auto slot = [&](const Edge& e) -> Tensor& {
    Grads& b = buffers[e.fn.get()];
    if (b.size() < e.fn->inputs.size()) b.resize(e.fn->inputs.size());
    if (b.size() <= e.input_nr) b.resize(e.input_nr + 1);
    return b[e.input_nr];
  };
  std::priority_queue<Node*, std::vector<Node*>, ByOrder> ready;
  for (size_t i = 0; i < roots.size(); ++i) {
    const Edge& e = roots[i];
    if (!e) continue;
    Tensor g = i < grads.size() ? grads[i] : Tensor();
    if (g && e.input_nr < e.fn->inputs.size()) g = validate(*e.fn, i, g, e.fn->inputs[e.input_nr]);
    accumulate(slot(e), std::move(g));
    if (--deps[e.fn.get()] == 0) ready.push(e.fn.get());
  }

  Grads captured(inputs.size());
  GradModeGuard mode(opt.create_graph);
  CheckpointValidGuard checkpoint(!selective);
  TaskGuard task(opt.keep_graph, &deps, selective ? &needed : nullptr);
  while (!ready.empty()) {
    Node* n = ready.top();
    ready.pop();
    Grads in = std::move(buffers[n]);
    buffers.erase(n);
    in.resize(n->inputs.size());
    auto hook = [&](const std::vector<std::pair<uint32_t, GradHook>>& hooks) {
      for (const auto& [nr, h] : hooks)
        if (nr < in.size() && in[nr])
          if (Tensor r = h(in[nr])) in[nr] = std::move(r);
    };
    hook(n->tensor_hooks);
    if (auto* acc = dynamic_cast<AccumulateGrad*>(n)) in[0] = run_leaf_hooks(acc->variable(), in[0]);
    hook(n->retain_hooks);
    auto cap = captures.find(n);
    if (cap != captures.end())
      for (const auto& [input_nr, k] : cap->second)
        if (input_nr < in.size()) captured[k] = in[input_nr];
    if (selective && !needed.count(n)) continue;
    if (!opt.accumulate_grad && dynamic_cast<AccumulateGrad*>(n)) continue;
    for (const NodePreHook& h : n->pre_hooks) in = h(std::move(in));
    Grads out;
    task.task.running = n;
    if (n->post_hooks.empty()) {
      out = n->apply(std::move(in));
    } else {
      out = n->apply(Grads(in));
      out.resize(n->next.size());
      for (const NodePostHook& h : n->post_hooks) out = h(std::move(out), in);
    }
    task.task.running = nullptr;
    if (auto* acc = dynamic_cast<AccumulateGrad*>(n)) run_post_accumulate_hooks(acc->variable());
    if (!opt.keep_graph) n->release_saved();
    out.resize(n->next.size());
    if (anomaly_enabled() && anomaly_check_nan()) check_no_nan(*n, out);
    for (size_t i = 0; i < n->next.size(); ++i) {
      const Edge& e = n->next[i];
      if (!e) continue;
      if (selective && !needed.count(e.fn.get()) && !captures.count(e.fn.get())) continue;
      Tensor g = std::move(out[i]);
      if (g && e.input_nr < e.fn->inputs.size()) g = validate(*n, i, g, e.fn->inputs[e.input_nr]);
      accumulate(slot(e), std::move(g));
      if (--deps[e.fn.get()] == 0) ready.push(e.fn.get());
    }
  }
  if (selective && !opt.allow_unreachable)
    for (size_t k = 0; k < captured.size(); ++k)
      if (!captured[k])
        TN_FAIL(Runtime, "The differentiated Tensor at index ", k, " appears to not have been "
                "used in the graph. Set allow_unused=True if this is the desired behavior.");
  return captured;
}

}  // namespace tn::autograd
