// The Autograd key's kernel for differentiable ops that are not CompositeImplicit (those
// decompose at this key instead, and their pieces pass through here). Under grad mode, for a
// call with an input that requires grad, it records one node (node.h): the op's formula
// (formula.h) with what backward reads, the edges to its inputs' history, and each floating
// output becomes a non-leaf with the node as its grad_fn. An op without a formula gets a node
// that refuses at backward time, naming the op. Grad mode off, or no such input: straight
// through (the key is in a call's set only when one of its tensors requires grad, so ordinary
// calls never reach this function).
#include <atomic>
#include <cstring>
#include <string>
#include <unordered_map>

#include "autograd/formula.h"
#include "autograd/grad_mode.h"
#include "dispatch/kernel.h"

namespace tn {
namespace autograd {
namespace {

thread_local bool t_grad_mode = true;

// op key -> formula, filled at static initialisation; resolved by op index at first use.
std::unordered_map<std::string, Formula>& pending_formulas() {
  static std::unordered_map<std::string, Formula> m;
  return m;
}

// A kept tensor and the version it had when kept (upstream's SavedVariable).
struct Kept {
  Tensor t;
  uint32_t version = 0;
  bool is_output = false;
  int output_nr = 0;
};

// A recorded call of an op with a formula.
class FormulaNode final : public Node {
 public:
  FormulaNode(const Formula* f) : f_(f) {}
  const char* name() const override { return f_->name; }
  const Formula* formula() const { return f_; }

  Grads apply(Grads&& grads) override {
    bool any = false;
    for (const Tensor& g : grads) any = any || static_cast<bool>(g);
    if (!any) return Grads(next.size());
    if (released_ && has_saved_) TN_FAIL(Runtime, kSavedFreed);
    for (const Kept& k : kept_) check_version(k);
    // A missing gradient of one of several outputs is zeros of that output's shape.
    for (size_t i = 0; i < grads.size(); ++i)
      if (!grads[i])
        grads[i] = call_tensor("aten::zeros",
                               {Value::of_ints(inputs[i].sizes), Value::of_dtype(inputs[i].dtype),
                                Value{}, Value::of_device(inputs[i].device)});
    std::vector<bool> needs(next.size());
    for (size_t e = 0; e < next.size(); ++e) needs[e] = static_cast<bool>(next[e]);
    // Under create_graph, a kept output comes back with this node as its history (upstream's
    // SavedVariable::unpack), so the backward of the backward reaches through it.
    std::vector<Tensor> with_history;
    if (grad_mode_enabled() && !results.empty()) {
      with_history.resize(results.size());
      for (size_t i = 0; i < results.size(); ++i) {
        if (!results[i]) continue;
        Tensor a = alias_without_history(results[i]);
        a->set_requires_grad(true);
        AutogradMeta& m = a->ensure_autograd_meta();
        m.is_leaf = false;
        m.grad_fn = Ptr<RefCounted>(this);
        m.output_nr = static_cast<int>(i);
        with_history[i] = std::move(a);
      }
    }
    Saved s{args, with_history.empty() ? results : with_history, needs, metas};
    Grads out = f_->backward(s, grads);
    out.resize(next.size());
    return out;
  }

  void release_saved() override {
    released_ = true;
    for (Value& v : args)
      if (v.tag == Value::Tag::Tensor) v.tensor = Tensor();
    results.clear();
    kept_.clear();
  }

  void keep(const Tensor& t, bool is_output, int output_nr) {
    kept_.push_back({t, t->version(), is_output, output_nr});
    has_saved_ = true;
  }

  std::vector<Value> args;
  std::vector<Tensor> results;
  std::vector<ArgMeta> metas;

 private:
  // A kept output names this node; a kept non-leaf input, the node that now makes it.
  void check_version(const Kept& k) const {
    const Node* by = k.is_output ? this : grad_fn_of(*k.t);
    const AutogradMeta* m = k.t->autograd_meta();
    check_saved_version(k.t, k.version, by, k.is_output ? k.output_nr : (m ? m->output_nr : 0));
  }

  const Formula* f_;
  std::vector<Kept> kept_;
  bool released_ = false;
  bool has_saved_ = false;
};

bool any_requires_grad(const Call& call) {
  for (const Value& v : call.args) {
    if (v.tag == Value::Tag::Tensor && v.tensor && v.tensor->requires_grad()) return true;
    if (v.tag == Value::Tag::TensorList || v.tag == Value::Tag::OptTensorList)
      for (const Tensor& t : v.tensors)
        if (t && t->requires_grad()) return true;
  }
  return false;
}

bool writes(const Call& call, size_t i) {
  const auto& args = call.schema->arguments;
  return i < args.size() && args[i].type.alias && args[i].type.alias->is_write;
}

// Upstream's refusals before recording a call that writes in place into a tensor that takes
// part in autograd.
void check_writes(const Call& call) {
  const auto& args = call.schema->arguments;
  for (size_t i = 0; i < args.size() && i < call.args.size(); ++i) {
    const Value& v = call.args[i];
    if (!writes(call, i) || v.tag != Value::Tag::Tensor || !v.tensor) continue;
    if (args[i].is_out)
      TN_FAIL(Runtime, call.schema->name.substr(call.schema->name.find("::") + 2),
              "(): functions with out=... arguments don't support automatic differentiation, "
              "but one of the arguments requires grad.");
    const Tensor& t = v.tensor;
    if (t->requires_grad() && t->is_leaf())
      TN_FAIL(Runtime, "a leaf Variable that requires grad is being used in an in-place "
              "operation.");
    const Ptr<TensorImpl>& base = t->view_base();
    if (base && base->requires_grad() && base->is_leaf())
      TN_FAIL(Runtime, "a view of a leaf Variable that requires grad is being used in an "
              "in-place operation.");
  }
}

// The differentiable tensors at schema position p: one for a Tensor, each element of a list.
template <class F>
void each_input(const Call& call, int p, F&& f) {
  const Value& v = call.args[static_cast<size_t>(p)];
  if (v.tag == Value::Tag::Tensor) {
    f(v.tensor);
  } else if (v.tag == Value::Tag::TensorList || v.tag == Value::Tag::OptTensorList) {
    for (const Tensor& t : v.tensors) f(t);
  } else {
    f(Tensor());
  }
}

ArgMeta arg_meta(const Tensor& t) {
  if (!t) return {};
  return {t->sizes(), t->strides(), t->dtype(), t->device()};
}

// The node for a call about to run: its edges and what its formula reads, taken before the op
// runs (an in-place op changes its input's history and version). `base_key` is the op's key
// without a trailing underscore for in-place spellings (mul_.Tensor reads mul.Tensor's formula).
Ptr<Node> prepare(const Call& call, const Formula* f, const std::string& op_key, bool in_place) {
  if (!f) {
    auto node = make<Unsupported>("NotImplemented", "torch::autograd::NotImplemented",
                                  "torchnative: the derivative for '" + op_key +
                                      "' is not implemented (autograd, issue 8)");
    for (size_t i = 0; i < call.args.size(); ++i)
      each_input(call, static_cast<int>(i), [&](const Tensor& t) {
        if (t && t->requires_grad()) node->next.push_back(gradient_edge(t));
      });
    return node;
  }
  auto node = make<FormulaNode>(f);
  for (int p : f->inputs)
    each_input(call, p, [&](const Tensor& t) {
      bool differentiable = t && t->requires_grad() && is_floating(t->dtype());
      node->next.push_back(differentiable ? gradient_edge(t) : Edge{});
      node->metas.push_back(arg_meta(t));
    });
  // The edge index of each input position, for Read::for_edge.
  node->args.assign(call.args.begin(), call.args.end());
  std::vector<bool> read(call.args.size(), false);
  for (const Read& r : f->reads) {
    bool needed = r.for_edge < 0 || (static_cast<size_t>(r.for_edge) < node->next.size() &&
                                     node->next[static_cast<size_t>(r.for_edge)]);
    if (needed) read[static_cast<size_t>(r.arg)] = true;
  }
  for (size_t i = 0; i < node->args.size(); ++i) {
    Value& v = node->args[i];
    if (v.tag != Value::Tag::Tensor) continue;
    if (!read[i]) {
      v.tensor = Tensor();
      continue;
    }
    if (in_place && writes(call, i))
      return make<Unsupported>(f->name, f->name,
                               "torchnative: backward of the in-place '" + op_key +
                                   "' reads the input it overwrites (not implemented yet, "
                                   "autograd issue 8)");
    node->keep(v.tensor, false, 0);
  }
  return node;
}

void set_history(Tensor& t, const Ptr<Node>& node, int output_nr) {
  if (!t || !is_floating(t->dtype())) return;
  t->set_requires_grad(true);
  AutogradMeta& m = t->ensure_autograd_meta();
  m.is_leaf = false;
  m.grad_fn = node;
  m.output_nr = output_nr;
  m.grad_accumulator = nullptr;
  node->inputs.push_back(meta_of(*t));
}

// A write in place into a view whose base has a history: upstream rebases the base's history
// (CopySlices); until that exists here, the base's backward refuses by name.
void poison_base_of(const Tensor& t) {
  const Ptr<TensorImpl>& base = t->view_base();
  if (!base || !is_floating(base->dtype())) return;
  auto node = make<Unsupported>("CopySlices", "torch::autograd::CopySlices",
                                "torchnative: backward through an in-place operation on a view "
                                "(upstream's CopySlices) is not implemented yet (autograd, "
                                "issue 8)");
  node->next.push_back(gradient_edge(base));
  Tensor b = base;
  set_history(b, node, 0);
}

// "aten::mul_.Tensor": the op as upstream's messages name it.
std::string pretty_name(const OpInfo& op) {
  std::string s = std::string(op.ns) + "::" + op.name;
  if (op.overload[0]) s += std::string(".") + op.overload;
  return s;
}

void autograd_kernel(Call& call) {
  bool record = t_grad_mode && any_requires_grad(call);
  bool in_place = false;
  Ptr<Node> node;
  if (record) {
    check_writes(call);
    for (size_t i = 0; i < call.args.size(); ++i) in_place = in_place || writes(call, i);
    node = prepare(call, formula_of(call.op_index), pretty_name(*call.op), in_place);
  }
  {
    // What the kernels below call inside is not differentiated again, nor version-bumped.
    ExcludeKeys below(key_bit(DispatchKey::Autograd) | key_bit(DispatchKey::ADInplaceOrView));
    redispatch_below(call, DispatchKey::Autograd);
  }
  if (!record) return;
  int output_nr = 0;
  auto* fnode = dynamic_cast<FormulaNode*>(node.get());
  for (Value& v : call.results) {
    if (v.tag == Value::Tag::Tensor) {
      if (in_place && v.tensor && v.tensor->view_base()) poison_base_of(v.tensor);
      bool nondiff = fnode && output_nr < 32 &&
                     (fnode->formula()->nondifferentiable_outputs >> output_nr & 1u);
      if (nondiff) {
        node->inputs.push_back(meta_of(*v.tensor));  // keeps output_nr numbering
      } else {
        set_history(v.tensor, node, output_nr);
      }
      if (fnode && fnode->results.size() <= static_cast<size_t>(output_nr))
        fnode->results.resize(static_cast<size_t>(output_nr) + 1);
      if (fnode && v.tensor && output_nr < 32 &&
          (fnode->formula()->saves_results >> output_nr & 1u)) {
        fnode->results[static_cast<size_t>(output_nr)] = alias_without_history(v.tensor);
        fnode->keep(fnode->results[static_cast<size_t>(output_nr)], true, output_nr);
      }
      ++output_nr;
    } else if (v.tag == Value::Tag::TensorList) {
      for (Tensor& t : v.tensors) set_history(t, node, output_nr++);
    }
  }
}

bool differentiable(int op) {
  const OpInfo& info = all_ops()[op];
  return info.differentiable && !info.composite_implicit;
}

const bool kInstalled = [] {
  set_key_fallback(DispatchKey::Autograd, Kernel{autograd_kernel, nullptr, nullptr},
                   differentiable);
  return true;
}();

}  // namespace

FormulaRegistrar::FormulaRegistrar(const char* op_key, Formula f) {
  pending_formulas().emplace(op_key, std::move(f));
}

const Formula* formula_of(int op_index) {
  static const std::vector<const Formula*> table = [] {
    const auto& ops = all_ops();
    std::vector<const Formula*> t(ops.size(), nullptr);
    for (const auto& [key, f] : pending_formulas()) {
      int i = find_op_key(key);
      TN_CHECK_KIND(i >= 0, Internal, "a derivative names an unknown op: ", key);
      t[static_cast<size_t>(i)] = &f;
    }
    // An in-place spelling without a formula of its own takes its functional op's
    // (mul_.Tensor takes mul.Tensor's), resolved here once rather than per call.
    for (size_t i = 0; i < ops.size(); ++i) {
      size_t len = std::strlen(ops[i].name);
      if (t[i] || len < 2 || ops[i].name[len - 1] != '_') continue;
      int functional = find_op(ops[i].ns, std::string(ops[i].name, len - 1), ops[i].overload);
      if (functional >= 0) t[i] = t[static_cast<size_t>(functional)];
    }
    return t;
  }();
  return op_index >= 0 && static_cast<size_t>(op_index) < table.size() ? table[op_index]
                                                                        : nullptr;
}

Scalar Saved::scalar(size_t i) const {
  const Value& v = args[i];
  switch (v.tag) {
    case Value::Tag::Scalar: return v.scalar;
    case Value::Tag::Int: return Scalar::from_int(v.i);
    case Value::Tag::Double: return Scalar::from_double(v.d);
    case Value::Tag::Bool: return Scalar::from_bool(v.b);
    default: return Scalar::from_int(1);
  }
}

}  // namespace autograd

bool grad_mode_enabled() { return autograd::t_grad_mode; }
void set_grad_mode(bool enabled) { autograd::t_grad_mode = enabled; }

namespace {
std::atomic<bool> g_anomaly{false};
std::atomic<bool> g_anomaly_nan{true};
}  // namespace
bool anomaly_enabled() { return g_anomaly.load(std::memory_order_relaxed); }
bool anomaly_check_nan() { return g_anomaly_nan.load(std::memory_order_relaxed); }
void set_anomaly(bool enabled, bool check_nan) {
  g_anomaly.store(enabled, std::memory_order_relaxed);
  g_anomaly_nan.store(check_nan, std::memory_order_relaxed);
}

}  // namespace tn
