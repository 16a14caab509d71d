// The forward-formula table and the recording of tangents around a call (forward_ad.h).
#include "autograd/forward_ad.h"

#include <cstring>
#include <string>
#include <unordered_map>

namespace tn::autograd {
namespace {

std::unordered_map<std::string, ForwardFormula>& pending() {
  static std::unordered_map<std::string, ForwardFormula> m;
  return m;
}

// op's forward formula; an in-place spelling without its own takes its functional op's.
const ForwardFormula* forward_formula_of(int op_index) {
  static const std::vector<const ForwardFormula*> table = [] {
    const auto& ops = all_ops();
    std::vector<const ForwardFormula*> t(ops.size(), nullptr);
    for (const auto& [key, f] : pending()) {
      int i = find_op_key(key);
      TN_CHECK_KIND(i >= 0, Internal, "a forward formula names an unknown op: ", key);
      t[static_cast<size_t>(i)] = &f;
    }
    for (size_t i = 0; i < ops.size(); ++i) {
      size_t len = std::strlen(ops[i].name);
      if (t[i] || len < 2 || ops[i].name[len - 1] != '_') continue;
      int functional = find_op(ops[i].ns, std::string(ops[i].name, len - 1), ops[i].overload);
      if (functional >= 0) t[i] = t[static_cast<size_t>(functional)];
    }
    return t;
  }();
  return static_cast<size_t>(op_index) < table.size() ? table[op_index] : nullptr;
}

bool is_in_place(const Call& call) {
  const auto& args = call.schema->arguments;
  return !args.empty() && args[0].type.alias && args[0].type.alias->is_write && !args[0].is_out;
}

// t without its tangent: an alias that reads none (upstream's _fw_primal).
Tensor primal_of(const Tensor& t) {
  return call_tensor("aten::_fw_primal", {Value::of(t), Value::of_int(0)});
}

Tensor zeros_like(const Tensor& t) {
  return call_tensor("aten::zeros_like", {Value::of(t)});
}

// Upstream's auto_linear: the op run again with each differentiable argument replaced by its
// tangent (zeros where it has none).
std::vector<Value> run_linear(const Call& call, const ForwardFormula& f, const Duals& d) {
  std::vector<Value> args = d.args;
  for (int p : f.inputs) {
    Value& v = args[static_cast<size_t>(p)];
    if (v.tag == Value::Tag::Tensor && v.tensor) {
      v.tensor = d.tz(static_cast<size_t>(p));
    } else if (v.tag == Value::Tag::TensorList || v.tag == Value::Tag::OptTensorList) {
      for (size_t k = 0; k < v.tensors.size(); ++k) {
        const Tensor& tk = d.tangents[static_cast<size_t>(p)][k];
        if (v.tensors[k]) v.tensors[k] = tk ? tk : zeros_like(v.tensors[k]);
      }
    }
  }
  int op = call.op_index;
  if (is_in_place(call)) {  // the functional op (the tangent is written into self's after)
    const OpInfo& info = *call.op;
    op = find_op(info.ns, std::string(info.name, std::strlen(info.name) - 1), info.overload);
    TN_CHECK_KIND(op >= 0, Internal, "no functional op for ", call.key());
  }
  return dispatch(op, std::move(args));
}

// Upstream's auto_element_wise: the backward formula with self's tangent as the gradient.
std::vector<Tensor> run_element_wise(const Call& call, const Duals& d) {
  const Formula* b = formula_of(call.op_index);
  TN_CHECK_KIND(b && b->backward, Internal, "no backward formula for ", call.key());
  std::vector<Tensor> results;
  for (const Value& v : d.results) results.push_back(v.tag == Value::Tag::Tensor ? v.tensor
                                                                                 : Tensor());
  std::vector<bool> needs(b->inputs.size(), false);
  std::vector<ArgMeta> metas(b->inputs.size());
  for (size_t e = 0; e < b->inputs.size(); ++e) {
    const Value& v = d.args[static_cast<size_t>(b->inputs[e])];
    if (v.tag == Value::Tag::Tensor && v.tensor)
      metas[e] = {v.tensor->sizes(), v.tensor->strides(), v.tensor->dtype(), v.tensor->device()};
    needs[e] = e == 0;
  }
  Saved s{d.args, results, needs, metas};
  Grads g = b->backward(s, Grads{d.t(0)});
  return {g.empty() ? Tensor() : g[0]};
}

std::vector<Tensor> flatten(const std::vector<Value>& vs) {
  std::vector<Tensor> out;
  for (const Value& v : vs) {
    if (v.tag == Value::Tag::Tensor) out.push_back(v.tensor);
    if (v.tag == Value::Tag::TensorList)
      for (const Tensor& t : v.tensors) out.push_back(t);
  }
  return out;
}

}  // namespace

struct DualCall {
  const ForwardFormula* f = nullptr;
  std::vector<std::vector<Tensor>> tangents;  // per argument
  std::vector<Value> args;                    // primal arguments (self's original if in place)
  Tensor self_tangent;                        // an in-place op's self's tangent before it
  bool in_place = false;
};
void DualCallDeleter::operator()(DualCall* d) const { delete d; }

ForwardRegistrar::ForwardRegistrar(const char* op_key, ForwardFormula f) {
  pending().emplace(op_key, std::move(f));
}

Tensor Duals::tz(size_t i) const {
  Tensor x = t(i);
  return x ? x : zeros_like(p(i));
}

Scalar Duals::scalar(size_t i) const {
  const Value& v = args[i];
  switch (v.tag) {
    case Value::Tag::Scalar: return v.scalar;
    case Value::Tag::Int: return Scalar::from_int(v.i);
    case Value::Tag::Double: return Scalar::from_double(v.d);
    case Value::Tag::Bool: return Scalar::from_bool(v.b);
    default: return Scalar::from_int(1);
  }
}

DualCallPtr forward_prepare(const Call& call) {
  if (!fw_grad_mode_enabled() || inference_mode_enabled()) return nullptr;
  std::vector<std::vector<Tensor>> tangents(call.args.size());
  bool any = false;
  for (size_t i = 0; i < call.args.size(); ++i) {
    const Value& v = call.args[i];
    if (v.tag == Value::Tag::Tensor && v.tensor) {
      Tensor t = fw_grad(v.tensor, 0);
      any = any || static_cast<bool>(t);
      tangents[i].push_back(std::move(t));
    } else if (v.tag == Value::Tag::TensorList || v.tag == Value::Tag::OptTensorList) {
      for (const Tensor& x : v.tensors) {
        Tensor t = x ? fw_grad(x, 0) : Tensor();
        any = any || static_cast<bool>(t);
        tangents[i].push_back(std::move(t));
      }
    }
  }
  if (!any) return nullptr;
  const ForwardFormula* f = forward_formula_of(call.op_index);
  if (f && f->kind == ForwardKind::Manual) return nullptr;
  for (const Argument& a : call.schema->arguments)
    TN_CHECK_KIND(!a.is_out, NotImplemented, "Trying to use forward AD with ", call.op->name,
                  "_out that does not support it because it is an out= function");
  TN_CHECK_KIND(f, NotImplemented, "Trying to use forward AD with ", call.op->name,
                " that does not support it because it has not been implemented yet.\nPlease "
                "file an issue to PyTorch at https://github.com/pytorch/pytorch/issues/new?"
                "template=feature-request.yml so that we can prioritize its implementation or "
                "submit a PR adding the implementation to derivatives.yaml");
  for (const auto& ts : tangents)
    for (const Tensor& t : ts)
      TN_CHECK_KIND(!t || !info(t->dtype()).is_complex, NotImplemented,
                    "torchnative: forward AD of ", call.key(), " with a complex tangent is not "
                    "implemented (autograd, issue 8)");
  DualCallPtr d(new DualCall);
  d->f = f;
  d->tangents = std::move(tangents);
  d->args.assign(call.args.begin(), call.args.end());
  // The formulas read primals without tangents (upstream's self_p), so the door ops they call
  // record nothing at this level.
  for (size_t i = 0; i < d->args.size(); ++i) {
    Value& v = d->args[i];
    if (v.tag == Value::Tag::Tensor && v.tensor && d->tangents[i][0]) v.tensor = primal_of(v.tensor);
    if (v.tag == Value::Tag::TensorList || v.tag == Value::Tag::OptTensorList)
      for (size_t k = 0; k < v.tensors.size(); ++k)
        if (d->tangents[i][k]) v.tensors[k] = primal_of(v.tensors[k]);
  }
  d->in_place = is_in_place(call);
  if (d->in_place) {
    d->self_tangent = d->tangents[0].empty() ? Tensor() : d->tangents[0][0];
    d->args[0].tensor = call_tensor("aten::clone", {Value::of(d->args[0].tensor)});
  }
  return d;
}

void forward_record(Call& call, DualCall& d) {
  Duals duals{d.args, call.results, d.tangents};
  std::vector<Tensor> out;
  if (d.f->kind == ForwardKind::Linear) {
    out = flatten(run_linear(call, *d.f, duals));
  } else if (d.f->kind == ForwardKind::ElementWise) {
    out = run_element_wise(call, duals);
  } else {
    out = d.f->fn(duals);
  }
  std::vector<Tensor> primal = flatten(call.results);
  const Formula* b = formula_of(call.op_index);
  uint32_t nondiff = b ? b->nondifferentiable_outputs : 0;
  if (d.in_place) {
    Tensor nt = out.empty() ? Tensor() : out[0];
    const Tensor& self = call.args[0].tensor;
    if (!nt) nt = zeros_like(self);
    if (nt->sizes() != self->sizes()) nt = call_tensor("aten::expand",
                                                       {Value::of(nt), Value::of_ints(self->sizes())});
    if (d.self_tangent) {
      tn::call("aten::copy_", {Value::of(d.self_tangent), Value::of(nt)});
    } else {
      set_fw_grad(self, nt, 0, true);
    }
    return;
  }
  for (size_t k = 0; k < primal.size() && k < out.size(); ++k) {
    const Tensor& r = primal[k];
    Tensor t = out[k];
    if (!r || !t || !is_floating(r->dtype()) || (k < 32 && (nondiff >> k & 1u))) continue;
    if (t->sizes() != r->sizes())  // a broadcast whose zero terms were left out
      t = call_tensor("aten::expand", {Value::of(t), Value::of_ints(r->sizes())});
    set_fw_grad(r, t, 0, false);
  }
}

}  // namespace tn::autograd
