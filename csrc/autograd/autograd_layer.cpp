// The Autograd key's kernel for differentiable ops that are not CompositeImplicit (those
// decompose at this key instead, and their pieces pass through here). Under grad mode, for a
// call with an input that requires grad, it records one node (node.h): the op's formula
// (formula.h) with what backward reads, the edges to its inputs' history, and each floating
// output becomes a non-leaf with the node as its grad_fn. An op without a formula gets a node
// that refuses at backward time, naming the op. Grad mode off, or no such input: straight
// through (the key is in a call's set only when one of its tensors requires grad, so ordinary
// calls never reach this function).
#include <atomic>
#include <deque>
#include <cstring>
#include <string>
#include <unordered_map>

#include "autograd/derivatives/foreach.h"
#include "autograd/formula.h"
#include "autograd/forward_ad.h"
#include "autograd/grad_mode.h"
#include "autograd/saved_variable.h"
#include "autograd/view_history.h"
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
std::vector<const char*>& pending_complex_ready() {
  static std::vector<const char*> v;
  return v;
}
struct CopyVariant {
  const char *copy, *view;
  bool complex_outputs;
};
std::vector<CopyVariant>& pending_copy_variants() {
  static std::vector<CopyVariant> v;
  return v;
}

// A recorded call of an op with a formula. What backward reads is kept as SavedVariables
// (saved_variable.h), so saved-tensor hooks see it and in-place changes are refused.
class FormulaNode final : public Node {
 public:
  FormulaNode(const Formula* f) : f_(f) {}
  const char* name() const override { return f_->name; }
  // "torch::autograd::CopyBackwards" is class CopyBackwards, as upstream's; Identity, which
  // upstream's Python binds no class of its own for, is its generic CppFunction.
  const char* class_name() const override {
    if (std::strcmp(f_->name, "torch::autograd::Identity") == 0) return "CppFunction";
    const char* colon = std::strrchr(f_->name, ':');
    return colon ? colon + 1 : f_->name;
  }
  const Formula* formula() const { return f_; }

  Grads apply(Grads&& grads) override {
    bool any = false;
    for (const Tensor& g : grads) any = any || static_cast<bool>(g);
    if (!any) return Grads(next.size());
    if (released_ && has_saved_) TN_FAIL(Runtime, kSavedFreed);
    // Under create_graph, a kept output comes back with this node as its history (upstream's
    // SavedVariable::unpack), so the backward of the backward reaches through it.
    bool history = grad_mode_enabled();
    std::vector<Value> a = args;
    for (const auto& [i, v] : saved_args_) a[i].tensor = v.unpack(this);
    std::vector<Tensor> r(results_size_);
    for (const auto& [i, v] : saved_results_) r[i] = v.unpack(this, history);
    // A missing gradient of one of several outputs is zeros of that output's shape; an
    // integer output (max_pool2d's indices) never has one, and no formula reads it, so it stays
    // missing rather than a fresh tensor of zeros per backward.
    for (size_t i = 0; i < grads.size(); ++i)
      if (!grads[i] && is_differentiable_type(inputs[i].dtype))
        grads[i] = call_tensor("aten::zeros",
                               {Value::of_ints(inputs[i].sizes), Value::of_dtype(inputs[i].dtype),
                                Value{}, Value::of_device(inputs[i].device)});
    std::vector<bool> needs(next.size());
    for (size_t e = 0; e < next.size(); ++e) needs[e] = static_cast<bool>(next[e]);
    Saved s{a, r, needs, metas};
    Grads out = f_->backward(s, grads);
    out.resize(next.size());
    return out;
  }

  void release_saved() override {
    released_ = true;
    for (auto& [i, v] : saved_args_) v.release();
    for (auto& [i, v] : saved_results_) v.release();
  }

  // Keeps argument i (its tensor leaves `args`: backward gets it back by unpacking).
  void keep_arg(size_t i) {
    saved_args_.emplace_back(i, SavedVariable(args[i].tensor, false, 0));
    args[i].tensor = Tensor();
    has_saved_ = true;
  }
  // Keeps output output_nr (the tensor itself, with its history: a pack hook sees it so).
  void keep_result(const Tensor& t, int output_nr) {
    saved_results_.emplace_back(static_cast<size_t>(output_nr),
                                SavedVariable(t, true, output_nr));
    has_saved_ = true;
  }
  void count_result(int output_nr) {
    if (results_size_ <= static_cast<size_t>(output_nr))
      results_size_ = static_cast<size_t>(output_nr) + 1;
  }

  std::vector<Value> args;  // the call's arguments; kept tensors are in saved_args_ instead
  std::vector<ArgMeta> metas;

 private:
  const Formula* f_;
  std::vector<std::pair<size_t, SavedVariable>> saved_args_;
  std::vector<std::pair<size_t, SavedVariable>> saved_results_;
  size_t results_size_ = 0;
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

std::string pretty_name(const OpInfo& op);

// The in-place view ops: what they write is self's sizes and strides, not its elements.
bool geometry_only(const OpInfo& op) {
  static const char* const kOps[] = {"squeeze_", "unsqueeze_", "transpose_", "t_",
                                     "as_strided_", "swapaxes_", "swapdims_"};
  for (const char* n : kOps)
    if (std::strcmp(op.name, n) == 0) return true;
  return false;
}

// A complex input that requires grad: true, with its dtype in *t.
bool complex_grad_input(const Call& call, ScalarType* t) {
  auto complex_leaf = [&](const Tensor& x) {
    if (!x || !x->requires_grad() || !is_complex(x->dtype())) return false;
    *t = x->dtype();
    return true;
  };
  for (const Value& v : call.args) {
    if (v.tag == Value::Tag::Tensor && complex_leaf(v.tensor)) return true;
    if (v.tag == Value::Tag::TensorList || v.tag == Value::Tag::OptTensorList)
      for (const Tensor& x : v.tensors)
        if (complex_leaf(x)) return true;
  }
  return false;
}

// A formula not written for complex tensors meets one (formula.h's complex_ready).
[[noreturn]] void refuse_complex(const Call& call, ScalarType t) {
  TN_FAIL(NotImplemented, pretty_name(*call.op), ": its derivative for complex tensors is not "
          "implemented by torchnative (a ", name(t), " tensor takes part in a call that "
          "records autograd history)");
}

bool writes(const Call& call, size_t i) {
  const auto& args = call.schema->arguments;
  return i < args.size() && args[i].type.alias && args[i].type.alias->is_write;
}

const char* upstream_no_derivative_name(const std::string& op_key);

// Upstream's refusals before recording a call that writes in place into a tensor that takes
// part in autograd.
void check_writes(const Call& call) {
  const auto& args = call.schema->arguments;
  for (size_t i = 0; i < args.size() && i < call.args.size(); ++i) {
    const Value& v = call.args[i];
    if (writes(call, i) && v.tag == Value::Tag::TensorList) {  // the in-place foreach ops
      for (const Tensor& t : v.tensors)
        if (t && t->requires_grad() && t->is_leaf())
          TN_FAIL(Runtime, "a leaf Variable that requires grad is being used in an in-place "
                  "operation.");
      for (const Tensor& t : v.tensors)
        TN_CHECK_KIND(!t || !t->requires_grad(), NotImplemented, "torchnative: ",
                      pretty_name(*call.op), " writing in place into tensors that require "
                      "grad is not implemented (autograd, issue 8)");
      continue;
    }
    if (!writes(call, i) || v.tag != Value::Tag::Tensor || !v.tensor) continue;
    if (args[i].is_out) {
      // An op whose inputs are all non_differentiable (a formula with no edges) writes its out=
      // whatever requires grad: upstream's generated code checks only the inputs it
      // differentiates.
      const Formula* f = formula_of(call.op_index);
      if (f && f->inputs.empty()) continue;
      // Upstream's generated code refuses any out= call that records; its NotImplemented
      // fallback (an op it has no derivative for) refuses only an out tensor that is a leaf
      // requiring grad, naming the operator, and gives the others its node.
      const char* fallback = upstream_no_derivative_name(pretty_name(*call.op));
      if (fallback && std::strncmp(fallback, "aten::", 6) == 0) {
        if (v.tensor->requires_grad() && v.tensor->is_leaf())
          TN_FAIL(Runtime, fallback, "(): functions with out=... arguments don't support "
                  "automatic differentiation, but one of the arguments requires grad.");
        continue;
      }
      TN_FAIL(Runtime, call.schema->name.substr(call.schema->name.find("::") + 2),
              "(): functions with out=... arguments don't support automatic differentiation, "
              "but one of the arguments requires grad.");
    }
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

// Upstream's check_no_requires_grad, before recording: an argument the op is not
// differentiable with respect to must not require grad. The message names the function as
// upstream's does (the op's name without its overload).
void check_no_requires_grad(const Call& call, const Formula* f) {
  if (!f) return;
  for (int p : f->no_requires_grad) {
    size_t i = static_cast<size_t>(p);
    if (i >= call.args.size() || call.args[i].tag != Value::Tag::Tensor) continue;
    const Tensor& t = call.args[i].tensor;
    if (!t || !t->requires_grad()) continue;
    TN_FAIL(Runtime, "The function '", call.op->name, "' is not differentiable with respect to "
            "argument '", call.schema->arguments[i].name, "'. This input cannot have "
            "requires_grad True.");
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

// The ops upstream's autograd gives its NotImplemented node (tools/gen_ops.py's
// upstream_no_derivative), each with the name that node's message gives: "aten::heaviside" ->
// "aten::heaviside", "aten::set_.source_Tensor" -> "set_". Null where upstream has a derivative.
const char* upstream_no_derivative_name(const std::string& op_key) {
  static const std::unordered_map<std::string, const char*> names = {
#include "no_derivative.inc"
  };
  auto it = names.find(op_key);
  return it == names.end() ? nullptr : it->second;
}
bool upstream_has_no_derivative(const std::string& op_key) {
  return upstream_no_derivative_name(op_key) != nullptr;
}

// The node for a call about to run: its edges and what its formula reads, taken before the op
// runs (an in-place op changes its input's history and version). `base_key` is the op's key
// without a trailing underscore for in-place spellings (mul_.Tensor reads mul.Tensor's formula).
Ptr<Node> prepare(const Call& call, const Formula* f, const std::string& op_key, bool in_place) {
  if (!f) {
    // Upstream's own NotImplemented node where upstream has no derivative either (its message
    // names the op without its overload); ours, by name, where upstream has one.
    const char* upstream_name = upstream_no_derivative_name(op_key);
    bool upstream_has_none = upstream_name != nullptr;
    std::string why = upstream_has_none
                          ? std::string("derivative for ") + upstream_name + " is not implemented"
                          : "torchnative: the derivative for '" + op_key +
                                "' is not implemented (autograd, issue 8)";
    auto node = make<Unsupported>("NotImplemented", "torch::autograd::NotImplemented",
                                  std::move(why), upstream_has_none);
    // The fallback's node has an edge per input that requires grad; the generated code's
    // (set_'s, whose message names the C++ function) one per floating input, empty where it
    // does not.
    bool every_input = upstream_has_none && std::strncmp(upstream_name, "aten::", 6) != 0;
    for (size_t i = 0; i < call.args.size(); ++i)
      each_input(call, static_cast<int>(i), [&](const Tensor& t) {
        if (t && t->requires_grad()) node->next.push_back(gradient_edge(t));
        else if (every_input && t && is_differentiable_type(t->dtype()))
          node->next.push_back(Edge{});
      });
    return node;
  }
  auto node = make<FormulaNode>(f);
  for (int p : f->inputs)
    each_input(call, p, [&](const Tensor& t) {
      bool differentiable = t && t->requires_grad() && is_differentiable_type(t->dtype());
      node->next.push_back(differentiable ? gradient_edge(t) : Edge{});
      node->metas.push_back(arg_meta(t));
    });
  node->args.assign(call.args.begin(), call.args.end());
  std::vector<bool> read(call.args.size(), false);
  std::vector<size_t> order;  // kept in the formula's order (upstream's order of saving)
  for (const Read& r : f->reads) {
    bool needed = r.for_edge < 0 || (static_cast<size_t>(r.for_edge) < node->next.size() &&
                                     node->next[static_cast<size_t>(r.for_edge)]);
    size_t i = static_cast<size_t>(r.arg);
    if (!needed || read[i]) continue;
    read[i] = true;
    if (node->args[i].tag == Value::Tag::Tensor) order.push_back(i);
  }
  for (size_t i = 0; i < node->args.size(); ++i)
    if (node->args[i].tag == Value::Tag::Tensor && !read[i]) node->args[i].tensor = Tensor();
  // An input the op overwrites that backward reads (mul_'s self, for other's gradient): kept
  // as a copy made before the write, through the door so that the copy has the input's history
  // (CloneBackward0), as upstream's generated code saves self.clone().
  for (size_t i : order)
    if (in_place && writes(call, i))
      node->args[i].tensor = call_tensor("aten::clone", {Value::of(node->args[i].tensor)});
  for (size_t i : order) node->keep_arg(i);
  return node;
}

void set_history(Tensor& t, const Ptr<Node>& node, int output_nr) {
  if (!t || !is_differentiable_type(t->dtype())) return;
  t->set_requires_grad(true);
  AutogradMeta& m = t->ensure_autograd_meta();
  m.is_leaf = false;
  m.grad_fn = node;
  m.output_nr = output_nr;
  m.grad_accumulator = nullptr;
  if (t->view_base()) m.view_version = t->version();
  node->inputs.push_back(meta_of(*t));
}

// "aten::mul_.Tensor": the op as upstream's messages name it.
std::string pretty_name(const OpInfo& op) {
  std::string s = std::string(op.ns) + "::" + op.name;
  if (op.overload[0]) s += std::string(".") + op.overload;
  return s;
}

// Upstream's check_inplace for each element of an in-place foreach call that needs a node
// (one of its arguments requires grad): a leaf, or a view of one, refuses.
void check_foreach_writes(const Call& call, const std::vector<Ptr<Node>>& nodes) {
  const std::vector<Tensor>& selfs = call.args[0].tensors;
  for (size_t i = 0; i < selfs.size() && i < nodes.size(); ++i) {
    const Tensor& t = selfs[i];
    if (!nodes[i] || !t) continue;
    const Ptr<TensorImpl>& base = t->view_base();
    if (base && base->requires_grad() && base->is_leaf())
      TN_FAIL(Runtime, "a view of a leaf Variable that requires grad is being used in an "
              "in-place operation.");
    if (t->requires_grad() && t->is_leaf())
      TN_FAIL(Runtime, "a leaf Variable that requires grad is being used in an in-place "
              "operation.");
  }
}

// A foreach call (derivatives/foreach.h). Out of place: one node over every element, result
// element i its output i. In place: a node per element that needs one, onto which that
// element's history is rebased (through CopySlices for a view), as upstream's generated code
// does for each self[i].
void foreach_kernel(Call& call, const ForeachDerivative& d) {
  bool record = t_grad_mode && !inference_mode_enabled() && any_requires_grad(call);
  bool in_place = !call.args.empty() && writes(call, 0) &&
                  call.args[0].tag == Value::Tag::TensorList;
  Ptr<Node> node;
  std::vector<Ptr<Node>> element_nodes;
  if (record && in_place) {
    for (size_t i = 0; i < call.args[0].tensors.size(); ++i)
      element_nodes.push_back(foreach_element_node(call, d, i));
    check_foreach_writes(call, element_nodes);
  } else if (record) {
    node = foreach_node(call, d);
  }
  DualCallPtr dual = dual_level_live() ? forward_prepare(call) : nullptr;
  {
    ExcludeKeys below(key_bit(DispatchKey::Autograd) | key_bit(DispatchKey::ADInplaceOrView));
    redispatch_below(call, DispatchKey::Autograd);
  }
  if (dual) forward_record(call, *dual);
  if (!record) return;
  if (!in_place) {
    int output_nr = 0;
    for (Value& v : call.results) {
      if (v.tag != Value::Tag::TensorList) continue;
      for (Tensor& t : v.tensors) {
        if (t && is_differentiable_type(t->dtype())) {
          set_history(t, node, output_nr);
          foreach_keep_result(*node, t, output_nr);
        }
        ++output_nr;
      }
    }
    return;
  }
  std::vector<Tensor>& selfs = call.args[0].tensors;
  for (size_t i = 0; i < selfs.size() && i < element_nodes.size(); ++i) {
    Tensor& t = selfs[i];
    if (!element_nodes[i] || !t || !is_differentiable_type(t->dtype())) continue;
    set_history(t, element_nodes[i], 0);
    foreach_keep_result(*element_nodes[i], t, 0);
    if (t->view_base()) rebase_view_history(t, element_nodes[i]);
  }
}

void autograd_kernel(Call& call) {
  if (const ForeachDerivative* d = foreach_derivative(call.op_index)) {
    foreach_kernel(call, *d);
    return;
  }
  bool record = t_grad_mode && !inference_mode_enabled() && any_requires_grad(call);
  bool in_place = false;
  Ptr<Node> node;
  if (record) {
    check_writes(call);
    check_no_requires_grad(call, formula_of(call.op_index));
    for (size_t i = 0; i < call.args.size(); ++i) in_place = in_place || writes(call, i);
    const Formula* f = formula_of(call.op_index);
    if (f && !f->complex_ready) {
      ScalarType t;
      if (complex_grad_input(call, &t)) refuse_complex(call, t);
    }
    node = prepare(call, f, pretty_name(*call.op), in_place);
  }
  // Forward AD (forward_ad.h): the one check a call pays while no dual level is live.
  DualCallPtr dual = dual_level_live() ? forward_prepare(call) : nullptr;
  {
    // What the kernels below call inside is not differentiated again, nor version-bumped.
    ExcludeKeys below(key_bit(DispatchKey::Autograd) | key_bit(DispatchKey::ADInplaceOrView));
    redispatch_below(call, DispatchKey::Autograd);
  }
  if (dual) forward_record(call, *dual);
  if (!record) return;
  int output_nr = 0;
  auto* fnode = dynamic_cast<FormulaNode*>(node.get());
  if (fnode && !fnode->formula()->complex_ready) {
    for (const Value& v : call.results)
      if (v.tag == Value::Tag::Tensor && v.tensor && is_complex(v.tensor->dtype()))
        refuse_complex(call, v.tensor->dtype());
  }
  if (fnode && fnode->formula()->refuse_complex_outputs) {
    for (const Value& v : call.results)
      TN_CHECK(!(v.tag == Value::Tag::Tensor && v.tensor && is_complex(v.tensor->dtype())),
               call.op->name, " does not support automatic differentiation for outputs with "
               "complex dtype.");
  }
  for (Value& v : call.results) {
    if (v.tag == Value::Tag::Tensor) {
      bool nondiff = fnode && output_nr < 32 &&
                     (fnode->formula()->nondifferentiable_outputs >> output_nr & 1u);
      if (nondiff) {
        node->inputs.push_back(meta_of(*v.tensor));  // keeps output_nr numbering
      } else {
        set_history(v.tensor, node, output_nr);
      }
      if (fnode) fnode->count_result(output_nr);
      if (fnode && v.tensor && output_nr < 32 &&
          (fnode->formula()->saves_results >> output_nr & 1u))
        fnode->keep_result(v.tensor, output_nr);
      ++output_nr;
    } else if (v.tag == Value::Tag::TensorList) {
      for (Tensor& t : v.tensors) set_history(t, node, output_nr++);
    }
  }
  // An in-place write into a view: the base's history goes through the op (CopySlices). The
  // in-place view ops (squeeze_, transpose_...) change self's geometry, not its values: self
  // keeps viewing its base and takes the op's node as it is.
  if (in_place && !call.results.empty() && call.results[0].tag == Value::Tag::Tensor &&
      !geometry_only(*call.op)) {
    const Tensor& view = call.results[0].tensor;
    if (!view || !view->view_base() ||
        !is_differentiable_type(view->dtype()))
      return;
    bool self_first = !fnode || (!fnode->formula()->inputs.empty() &&
                                 fnode->formula()->inputs[0] == 0);
    if (!self_first)
      node = make<Unsupported>("CopySlices", "torch::autograd::CopySlices",
                               "torchnative: an in-place write into a view by '" +
                                   pretty_name(*call.op) + "', whose formula does not take self "
                                   "first, is not implemented (autograd, issue 8)");
    rebase_view_history(view, node);
  }
}

// An op upstream gives its NotImplemented node records at the Autograd key even where it also
// has a CompositeImplicitAutograd kernel (silu_backward: upstream's CPU kernel runs, not the
// decomposition); where ours registers a decomposition, that still runs in its place.
bool differentiable(int op) {
  const OpInfo& info = all_ops()[op];
  return info.differentiable &&
         (!info.composite_implicit || upstream_has_no_derivative(pretty_name(info)));
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

CopyVariantRegistrar::CopyVariantRegistrar(const char* copy_key, const char* view_key,
                                           bool complex_outputs) {
  pending_copy_variants().push_back({copy_key, view_key, complex_outputs});
}

ComplexReadyRegistrar::ComplexReadyRegistrar(std::initializer_list<const char*> op_keys) {
  for (const char* k : op_keys) pending_complex_ready().push_back(k);
}

const Formula* formula_of(int op_index) {
  static const std::vector<const Formula*> table = [] {
    const auto& ops = all_ops();
    std::vector<const Formula*> t(ops.size(), nullptr);
    for (const char* key : pending_complex_ready()) {
      auto it = pending_formulas().find(key);
      TN_CHECK_KIND(it != pending_formulas().end(), Internal,
                    "TN_COMPLEX_READY names an op without a formula: ", key);
      it->second.complex_ready = true;
    }
    // A view op's *_copy twin: the view's formula under its node name with "_copy" appended
    // (upstream's generated PermuteBackward0_copy), complex-readiness included.
    static std::deque<std::string> copy_names;
    for (const CopyVariant& v : pending_copy_variants()) {
      auto it = pending_formulas().find(v.view);
      TN_CHECK_KIND(it != pending_formulas().end(), Internal,
                    "TN_COPY_VARIANT names a view without a formula: ", v.view);
      Formula f = it->second;
      f.name = copy_names.emplace_back(std::string(f.name) + "_copy").c_str();
      f.refuse_complex_outputs = !v.complex_outputs;
      pending_formulas().emplace(v.copy, std::move(f));
    }
    for (const auto& [key, f] : pending_formulas()) {
      int i = find_op_key(key);
      TN_CHECK_KIND(i >= 0, Internal, "a derivative names an unknown op: ", key);
      t[static_cast<size_t>(i)] = &f;
    }
    // An in-place spelling without a formula of its own takes the functional op's that
    // upstream's autograd matches to it by signature (tools/gen_ops.py's inplace_formulas:
    // pow_.Scalar takes pow.Tensor_Scalar's, not pow.Scalar's), else the functional op of its
    // name (mul_.Tensor takes mul.Tensor's); resolved here once rather than per call.
    static const std::pair<const char*, const char*> matched[] = {
#include "inplace_formulas.inc"
    };
    for (const auto& [inplace, functional] : matched) {
      int i = find_op_key(inplace), j = find_op_key(functional);
      if (i >= 0 && j >= 0 && !t[static_cast<size_t>(i)])
        t[static_cast<size_t>(i)] = t[static_cast<size_t>(j)];
    }
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
