// The foreach ops' nodes (foreach.h): each element's gradient is its per-tensor op's formula
// (the one TN_REGISTER_DERIVATIVE gave that op) run on the element's arguments, so its bits are
// the per-tensor op's; a foreach op whose formula upstream writes apart (derivatives.yaml's
// _foreach_maximum.Scalar) has it here. The table of which op derives from which is generated
// from upstream's torchgen (tools/gen_ops.py's foreach_derivatives). Where the formula is
// missing, the node refuses by name at backward, as every formula-less op's does.
#include "autograd/derivatives/foreach.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "autograd/derivatives/helpers.h"
#include "autograd/formula.h"
#include "autograd/grad_mode.h"
#include "autograd/saved_variable.h"

namespace tn::autograd {
namespace {

using namespace d;

const ForeachDerivative kTable[] = {
#include "foreach_derivatives.inc"
};

// derivatives.yaml's own _foreach_maximum/minimum.Scalar(List) formula, element i:
// where(self == scalar, grad / 2, grad).masked_fill_(self <loses> scalar, 0).
Tensor max_min_scalar_grad(const Saved& s, const Tensor& grad, const char* loses) {
  const Tensor& self = s.tensor(0);
  Value scalar = S(s.scalar(1));
  Tensor shared = call_tensor(
      "aten::where.self", {V(call_tensor("aten::eq.Scalar", {V(self), scalar})),
                           V(div(grad, Scalar::from_int(2))), V(grad)});
  return call_tensor("aten::masked_fill.Scalar",
                     {V(shared), V(call_tensor(loses, {V(self), scalar})), S(Scalar::from_int(0))});
}
Grads maximum_scalar_backward(const Saved& s, const Grads& g) {
  return {max_min_scalar_grad(s, g[0], "aten::lt.Scalar")};
}
Grads minimum_scalar_backward(const Saved& s, const Grads& g) {
  return {max_min_scalar_grad(s, g[0], "aten::gt.Scalar")};
}

// self.sgn(): sign for a real tensor (upstream's sgn takes sign's kernel there).
Tensor sgn(const Tensor& t) {
  return call_tensor(info(t->dtype()).is_complex ? "aten::sgn" : "aten::sign", {V(t)});
}
Tensor where_zero(const Tensor& t, const Tensor& mask) {
  return call_tensor("aten::masked_fill.Scalar", {V(t), V(mask), S(Scalar::from_int(0))});
}
Tensor is_zero(const Tensor& t) {
  return call_tensor("aten::eq.Scalar", {V(t), S(Scalar::from_int(0))});
}

// derivatives.yaml's _foreach_norm.Scalar: norm_backward(grads[i], self[i], ord, result[i]),
// upstream's FunctionsManual norm_backward over every dim (keepdim), branch by ord:
// 0: none; 1: sgn(self) grad; 2: grad (self / norm), 0 where norm is 0; inf: sgn(self) grad
// shared among the elements of largest |self| (or NaN); other p: self's |self|^(p-1) scaled by
// grad / norm^(p-1) (p < 1: grad norm^(1-p), 0 where self is 0; else 0 where norm is 0).
Grads norm_backward(const Saved& s, const Grads& g) {
  const Tensor& grad = g[0];
  const Tensor& self = s.tensor(0);
  const Tensor& norm = s.result(0);
  double p = s.arg(1).is_none() ? 2.0 : s.scalar(1).to_double();
  if (p == 0.0) return {Tensor()};
  if (p == 1.0) return {mul(sgn(self), grad)};
  if (p == 2.0) return {mul(grad, where_zero(div(self, norm), is_zero(norm)))};
  Tensor self_abs = call_tensor("aten::abs", {V(self)});
  if (std::isinf(p)) {
    Tensor mask = call_tensor("aten::logical_or",
                              {V(call_tensor("aten::eq.Tensor", {V(self_abs), V(norm)})),
                               V(call_tensor("aten::isnan", {V(self_abs)}))});
    Tensor count = call_tensor("aten::sum.dim_IntList",
                               {V(mask), Value::of_ints({}), Value::of_bool(true)});
    return {mul(sgn(self), mul(div(grad, count), mask))};
  }
  if (p < 1.0) {
    Tensor scaled = mul(sgn(self), where_zero(pow(self_abs, Scalar::from_double(p - 1)),
                                              is_zero(self)));
    return {mul(mul(scaled, grad), pow(norm, Scalar::from_double(1 - p)))};
  }
  Tensor scaled = p < 2.0 ? mul(sgn(self), pow(self_abs, Scalar::from_double(p - 1)))
                          : mul(self, pow(self_abs, Scalar::from_double(p - 2)));
  Tensor scale = where_zero(div(grad, pow(norm, Scalar::from_double(p - 1))), is_zero(norm));
  return {mul(scaled, scale)};
}

// The element formulas upstream writes for a foreach op itself (no per-tensor op), by op key.
const Formula* own_formula(const std::string& op) {
  static const std::unordered_map<std::string, Formula> own = [] {
    Formula maximum{"", {0}, {{0}}, 0, maximum_scalar_backward};
    Formula minimum{"", {0}, {{0}}, 0, minimum_scalar_backward};
    return std::unordered_map<std::string, Formula>{
        {"aten::_foreach_maximum.Scalar", maximum},
        {"aten::_foreach_maximum.ScalarList", maximum},
        {"aten::_foreach_minimum.Scalar", minimum},
        {"aten::_foreach_minimum.ScalarList", minimum},
        {"aten::_foreach_norm.Scalar", Formula{"", {0}, {{0}}, 1, norm_backward}},
    };
  }();
  auto it = own.find(op);
  return it == own.end() ? nullptr : &it->second;
}

// The formula each element of d's op takes: its per-tensor op's, or the op's own; null: none.
const Formula* element_formula(const ForeachDerivative& d) {
  if (!d.base[0]) return own_formula(d.op);
  int base = find_op_key(d.base);
  return base >= 0 ? formula_of(base) : nullptr;
}

// Element i's arguments for its formula: element i of each list, the rest as given, padded
// with None to `count` (add.Scalar's alpha, which _foreach_add.Scalar lacks).
std::vector<Value> element_args(const Call& call, size_t i, size_t count) {
  std::vector<Value> a(std::max(count, call.args.size()));
  for (size_t p = 0; p < call.args.size(); ++p) {
    const Value& v = call.args[p];
    if (v.tag == Value::Tag::TensorList) {
      a[p] = Value::of(i < v.tensors.size() ? v.tensors[i] : Tensor());
    } else if (v.tag == Value::Tag::ScalarList) {
      a[p] = Value::of_scalar(i < v.scalars.size() ? v.scalars[i] : Scalar::from_int(1));
    } else {
      a[p] = v;
    }
  }
  return a;
}

bool differentiable(const Tensor& t) {
  if (!t || !t->requires_grad()) return false;
  // The per-element formulas are the real ones: a complex element is refused by name rather
  // than left without history.
  TN_CHECK_KIND(!is_complex(t->dtype()), NotImplemented, "the derivatives of the _foreach ops "
                "for complex tensors are not implemented by torchnative (an element is ",
                name(t->dtype()), ")");
  return is_floating(t->dtype());
}

ArgMeta arg_meta(const Tensor& t) {
  if (!t) return {};
  return {t->sizes(), t->strides(), t->dtype(), t->device()};
}

// A recorded foreach call (out of place: every element; in place: one element). Element k's
// gradient is its formula on element k's arguments, given grads[k] (upstream leaves an element
// whose gradient is undefined without one).
class ForeachNode final : public Node {
 public:
  ForeachNode(const char* name, const Formula* f, uint32_t twice)
      : name_(name), f_(f), twice_(twice) {}
  const char* name() const override { return name_; }
  const Formula* formula() const { return f_; }

  struct Element {
    size_t index = 0;          // its position in the call's lists
    std::vector<Value> args;   // the formula's arguments; kept tensors are in `kept` instead
    std::vector<std::pair<size_t, SavedVariable>> kept;
    std::vector<ArgMeta> metas;  // per formula edge
    std::vector<int> edges;      // per formula edge: its edge in `next`, or -1
    SavedVariable result;
    bool has_result = false;
  };
  std::vector<Element> elements;
  // Edges of an argument that is one tensor for every element (_foreach_mul.Tensor's other):
  // upstream's copy_range refuses a gradient list of more than one element for them.
  std::vector<size_t> shared;

  void keep(Element& el, size_t arg) {
    el.kept.emplace_back(arg, SavedVariable(el.args[arg].tensor, false, 0));
    el.args[arg].tensor = Tensor();
    has_saved_ = true;
  }
  // Keeps argument arg, one tensor for every element, once (upstream's other_).
  void keep_shared(size_t arg, const Tensor& t) {
    shared_kept_.emplace_back(arg, SavedVariable(t, false, 0));
    for (auto& el : elements) el.args[arg].tensor = Tensor();
    has_saved_ = true;
  }
  void keep_result(size_t k, const Tensor& t, int output_nr) {
    elements[k].result = SavedVariable(t, true, output_nr);
    elements[k].has_result = true;
    has_saved_ = true;
  }

  Grads apply(Grads&& grads) override {
    Grads out(next.size());
    bool any = false;
    for (const Tensor& g : grads) any = any || static_cast<bool>(g);
    if (!any) return out;
    if (released_ && has_saved_) TN_FAIL(Runtime, kSavedFreed);
    for (size_t e : shared)
      if (next[e] && elements.size() != 1)
        TN_FAIL(Runtime, "inconsistent range for TensorList output");
    bool history = grad_mode_enabled();
    std::vector<std::pair<size_t, Tensor>> shared_args;
    for (const auto& [i, v] : shared_kept_) shared_args.emplace_back(i, v.unpack(this));
    for (size_t k = 0; k < elements.size() && k < grads.size(); ++k) {
      if (!grads[k]) continue;
      const Element& el = elements[k];
      std::vector<Value> a = el.args;
      for (const auto& [i, v] : el.kept) a[i].tensor = v.unpack(this);
      for (const auto& [i, t] : shared_args) a[i].tensor = t;
      std::vector<Tensor> r;
      if (el.has_result) r.push_back(el.result.unpack(this, history));
      std::vector<bool> needs(el.edges.size());
      for (size_t e = 0; e < el.edges.size(); ++e)
        needs[e] = el.edges[e] >= 0 && next[static_cast<size_t>(el.edges[e])];
      check_twice(a, needs, el.index);
      Saved s{a, r, needs, el.metas};
      Grads g = f_->backward(s, {grads[k]});
      for (size_t e = 0; e < el.edges.size() && e < g.size(); ++e)
        if (needs[e] && g[e]) out[static_cast<size_t>(el.edges[e])] = g[e];
    }
    return out;
  }

  void release_saved() override {
    released_ = true;
    for (auto& el : elements) {
      for (auto& [i, v] : el.kept) v.release();
      if (el.has_result) el.result.release();
    }
    for (auto& [i, v] : shared_kept_) v.release();
  }

 private:
  // Upstream's formula for _foreach_addcdiv reads tensor2[i][i].scalar_type(): element i of
  // tensor2 indexed again by i, which refuses (IndexError) where that element has no row i.
  void check_twice(const std::vector<Value>& a, const std::vector<bool>& needs,
                   size_t i) const {
    if (!twice_) return;
    for (size_t e = 0; e < f_->inputs.size(); ++e) {
      size_t p = static_cast<size_t>(f_->inputs[e]);
      if (!needs[e] || p >= 32 || !(twice_ >> p & 1u) || !a[p].tensor) continue;
      call_tensor("aten::select.int", {V(a[p].tensor), Value::of_int(0),
                                       Value::of_int(static_cast<int64_t>(i))});
    }
  }

  const char* name_;
  const Formula* f_;
  uint32_t twice_;
  std::vector<std::pair<size_t, SavedVariable>> shared_kept_;
  bool released_ = false;
  bool has_saved_ = false;
};

// The positions of d's edge mask, in schema order (upstream's order of edges).
std::vector<int> edge_positions(const ForeachDerivative& d) {
  std::vector<int> ps;
  for (int p = 0; p < 32; ++p)
    if (d.edges >> p & 1u) ps.push_back(p);
  return ps;
}

// The edges of elements [first, first + count) of the call: argument by argument (schema
// order), a list's elements in turn, one edge for a single tensor. `slot(p, k, edge)` is told
// the edge of element k of argument p.
template <class F>
void lay_edges(const Call& call, const std::vector<int>& positions, size_t first, size_t count,
               Node& node, F&& slot) {
  for (int p : positions) {
    const Value& v = call.args[static_cast<size_t>(p)];
    if (v.tag == Value::Tag::TensorList) {
      for (size_t k = 0; k < count; ++k) {
        const Tensor& t = first + k < v.tensors.size() ? v.tensors[first + k] : Tensor();
        slot(p, k, node.next.size());
        node.next.push_back(differentiable(t) ? gradient_edge(t) : Edge{});
      }
    } else if (v.tag == Value::Tag::Tensor) {
      for (size_t k = 0; k < count; ++k) slot(p, k, node.next.size());
      node.next.push_back(differentiable(v.tensor) ? gradient_edge(v.tensor) : Edge{});
    }
  }
}

// "torchnative: the derivative for 'aten::_foreach_acos' is not implemented ...".
std::string missing(const ForeachDerivative& d) {
  std::string why = std::string("torchnative: the derivative for '") + d.op +
                    "' is not implemented (autograd, issue 8): ";
  if (!d.base[0]) return why + "upstream's formula for it is not written here";
  return why + "it takes '" + d.base + "''s formula element by element, and '" + d.base +
         "' has none in torchnative";
}

// Out of place, what upstream's node saves (d.saved: its saved inputs, by name), list by
// list and element by element, a single tensor once, whether or not backward will read it;
// then anything else our formula reads. The rest of each element's tensors is dropped.
void keep_as_upstream(const Call& call, const ForeachDerivative& d, const Formula& f,
                      ForeachNode& node) {
  std::vector<size_t> order;
  for (const char* c = d.saved; *c; ++c) order.push_back(static_cast<size_t>(*c - '0'));
  for (const Read& r : f.reads)
    if (std::find(order.begin(), order.end(), static_cast<size_t>(r.arg)) == order.end())
      order.push_back(static_cast<size_t>(r.arg));
  std::vector<bool> kept(call.args.size(), false);
  for (size_t p : order) {
    if (p >= call.args.size() || kept[p]) continue;
    const Value& v = call.args[p];
    if (v.tag == Value::Tag::Tensor) {
      node.keep_shared(p, v.tensor);
    } else if (v.tag == Value::Tag::TensorList) {
      for (auto& el : node.elements) node.keep(el, p);
    } else {
      continue;
    }
    kept[p] = true;
  }
  for (auto& el : node.elements)
    for (size_t i = 0; i < el.args.size(); ++i)
      if (el.args[i].tag == Value::Tag::Tensor && !(i < kept.size() && kept[i]))
        el.args[i].tensor = Tensor();
}

// A node for elements [first, first + count): formula-derived, or refusing by name.
Ptr<Node> make_node(const Call& call, const ForeachDerivative& d, const char* name,
                    size_t first, size_t count, bool in_place) {
  const Formula* f = element_formula(d);
  std::vector<int> positions = edge_positions(d);
  bool matches = f && f->inputs.size() == positions.size();
  for (int p : f ? f->inputs : std::vector<int>{})
    matches = matches && p < 32 && (d.edges >> p & 1u);
  if (!matches) {
    auto node = make<Unsupported>(name, name, missing(d));
    lay_edges(call, positions, first, count, *node, [](int, size_t, size_t) {});
    return node;
  }
  auto node = make<ForeachNode>(name, f, d.twice);
  size_t nargs = d.base[0] ? schema_of(static_cast<size_t>(find_op_key(d.base))).arguments.size()
                           : call.args.size();
  node->elements.resize(count);
  for (size_t k = 0; k < count; ++k) {
    auto& el = node->elements[k];
    el.index = first + k;
    el.args = element_args(call, first + k, nargs);
    el.edges.assign(f->inputs.size(), -1);
    el.metas.resize(f->inputs.size());
  }
  lay_edges(call, positions, first, count, *node, [&](int p, size_t k, size_t edge) {
    size_t e = 0;
    while (f->inputs[e] != p) ++e;
    auto& el = node->elements[k];
    el.edges[e] = static_cast<int>(edge);
    el.metas[e] = arg_meta(el.args[static_cast<size_t>(p)].tensor);
    if (call.args[static_cast<size_t>(p)].tag == Value::Tag::Tensor && k == 0)
      node->shared.push_back(edge);
  });
  if (!in_place) {
    keep_as_upstream(call, d, *f, *node);
    return node;
  }
  // In place, what each element's formula reads, kept as the per-tensor op keeps it; an
  // argument the op overwrites is kept as a copy made before the write (original_selfs[i]).
  const auto& schema = call.schema->arguments;
  for (auto& el : node->elements) {
    std::vector<bool> read(el.args.size(), false);
    for (const Read& r : f->reads) {
      size_t i = static_cast<size_t>(r.arg);
      bool needed = r.for_edge < 0 ||
                    (static_cast<size_t>(r.for_edge) < el.edges.size() &&
                     el.edges[static_cast<size_t>(r.for_edge)] >= 0 &&
                     node->next[static_cast<size_t>(el.edges[static_cast<size_t>(r.for_edge)])]);
      if (!needed || i >= el.args.size() || read[i] || el.args[i].tag != Value::Tag::Tensor)
        continue;
      read[i] = true;
      bool written = i < schema.size() && schema[i].type.alias && schema[i].type.alias->is_write;
      if (written && el.args[i].tensor)
        el.args[i].tensor = call_tensor("aten::clone", {V(el.args[i].tensor)});
      node->keep(el, i);
    }
    for (size_t i = 0; i < el.args.size(); ++i)
      if (el.args[i].tag == Value::Tag::Tensor && !read[i]) el.args[i].tensor = Tensor();
  }
  return node;
}

}  // namespace

const ForeachDerivative* foreach_derivative(int op_index) {
  static const std::vector<const ForeachDerivative*> by_op = [] {
    std::vector<const ForeachDerivative*> t(all_ops().size(), nullptr);
    for (const ForeachDerivative& d : kTable) {
      int i = find_op_key(d.op);
      if (i >= 0) t[static_cast<size_t>(i)] = &d;
    }
    return t;
  }();
  return op_index >= 0 && static_cast<size_t>(op_index) < by_op.size() ? by_op[op_index]
                                                                        : nullptr;
}

Ptr<Node> foreach_node(const Call& call, const ForeachDerivative& d) {
  size_t n = 0;
  for (const Value& v : call.args)
    if (v.tag == Value::Tag::TensorList) n = std::max(n, v.tensors.size());
  return make_node(call, d, d.node, 0, n, false);
}

Ptr<Node> foreach_element_node(const Call& call, const ForeachDerivative& d, size_t i) {
  if (!d.node[0]) {
    // Upstream's NotImplemented node for element i: edges to self[i] and to every tensor of
    // the other arguments; its message names the op without its overload.
    std::string op = d.op;
    op = op.substr(op.find("::") + 2);
    op = op.substr(0, op.find('.'));
    auto node = make<Unsupported>("NotImplemented", "torch::autograd::NotImplemented",
                                  "derivative for " + op + " is not implemented", true);
    bool any = false;
    for (int p : edge_positions(d)) {
      const Value& v = call.args[static_cast<size_t>(p)];
      std::vector<Tensor> ts;
      if (v.tag == Value::Tag::TensorList && p == 0 && i < v.tensors.size())
        ts.push_back(v.tensors[i]);
      else if (v.tag == Value::Tag::TensorList)
        ts = v.tensors;
      else if (v.tag == Value::Tag::Tensor)
        ts.push_back(v.tensor);
      for (const Tensor& t : ts) {
        any = any || (t && t->requires_grad());
        node->next.push_back(t && t->requires_grad() ? gradient_edge(t) : Edge{});
      }
    }
    return any ? Ptr<Node>(node) : Ptr<Node>();
  }
  bool any = false;
  for (int p : edge_positions(d)) {
    const Value& v = call.args[static_cast<size_t>(p)];
    if (v.tag == Value::Tag::TensorList && i < v.tensors.size())
      any = any || (v.tensors[i] && v.tensors[i]->requires_grad());
    else if (v.tag == Value::Tag::Tensor)
      any = any || (v.tensor && v.tensor->requires_grad());
  }
  if (!any) return Ptr<Node>();
  return make_node(call, d, d.node, i, 1, true);
}

void foreach_keep_result(Node& node, const Tensor& t, int output_nr) {
  auto* fnode = dynamic_cast<ForeachNode*>(&node);
  if (!fnode || !t || !(fnode->formula()->saves_results & 1u)) return;
  size_t k = fnode->elements.size() == 1 ? 0 : static_cast<size_t>(output_nr);
  if (k < fnode->elements.size()) fnode->keep_result(k, t, output_nr);
}

}  // namespace tn::autograd
