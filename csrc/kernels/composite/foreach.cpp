// The _foreach_* ops (the optimizers' foreach path and clip_grad_norm_): every overload as
// upstream's CPU "slow path" runs it, the per-tensor op applied to each element in list order
// (_foreach_add_.Scalar(ts, s) is t.add_(s) for each t). One kernel serves all of them: the
// per-tensor op is derived from the foreach op's name and overload (foreach_plan), and each
// element's arguments are the foreach arguments with every list replaced by its i-th entry.
// Upstream's CUDA fast path (one fused launch) has no CPU counterpart, so none is needed here.
#include <cstring>
#include <deque>
#include <mutex>
#include <string>
#include <unordered_map>

#include "dispatch/registry.h"
#include "kernels/composite/ops.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

// How one foreach overload runs.
struct ForeachPlan {
  int per_tensor = -1;     // the per-tensor op (its in-place form for an in-place foreach op)
  bool copy_back = false;  // in place without a per-tensor in-place op: compute, then copy_
  bool out = false;        // an out= overload: the functional results written into `out`
  bool norm = false;       // linalg_vector_norm takes dim and keepdim after ord
  std::string why;         // non-empty: the overload is refused, in these words
};

// The per-tensor op's name and overload for foreach op `name` (no prefix, no trailing '_') and
// overload family `ov` (its overload without _out): upstream's slow-path mapping.
std::pair<std::string, std::string> per_tensor_of(const std::string& name, const std::string& ov) {
  bool scalar = ov == "Scalar" || ov == "ScalarList";
  if (name == "norm") return {"linalg_vector_norm", ""};
  if (name == "powsum") return {"linalg__powsum", ""};
  // maximum/minimum with numbers are clamp_min/clamp_max, as upstream's slow path runs them.
  if ((name == "maximum" || name == "minimum") && scalar)
    return {name == "maximum" ? "clamp_min" : "clamp_max", ""};
  if (name == "pow") {
    if (scalar) return {"pow", "Tensor_Scalar"};
    if (ov == "List") return {"pow", "Tensor_Tensor"};
    return {"pow", "Scalar"};  // ScalarAndTensor
  }
  if (ov.empty()) return {name, ""};
  if (name == "addcmul" || name == "addcdiv" || name == "clamp_min" || name == "clamp_max")
    return {name, scalar || ov == "Tensor" ? "" : "Tensor"};
  if (name == "maximum" || name == "minimum") return {name, ""};
  if (name == "lerp") return {name, scalar ? "Scalar" : "Tensor"};
  return {name, scalar ? "Scalar" : "Tensor"};  // add, sub, mul, div
}

ForeachPlan make_plan(const OpInfo& op) {
  ForeachPlan p;
  std::string name = op.name + std::strlen("_foreach_");
  bool in_place = !name.empty() && name.back() == '_';
  if (in_place) name.pop_back();
  std::string ov = op.overload;
  if (ov == "out") {
    ov.clear();
    p.out = true;
  } else if (ov.size() > 4 && ov.compare(ov.size() - 4, 4, "_out") == 0) {
    ov.resize(ov.size() - 4);
    p.out = true;
  }
  // _foreach_norm and _foreach_powsum: linalg_vector_norm and linalg__powsum of each tensor
  p.norm = name == "norm" || name == "powsum";
  auto [fn, fov] = per_tensor_of(name, ov);
  if (in_place) {
    // pow's in-place overloads are named after the exponent alone.
    std::string iov = fn == "pow" ? (fov == "Tensor_Scalar" ? "Scalar" : "Tensor") : fov;
    p.per_tensor = find_op("aten", fn + "_", iov);
    if (p.per_tensor < 0) p.copy_back = true;
  }
  if (p.per_tensor < 0) p.per_tensor = find_op("aten", fn, fov);
  if (p.per_tensor < 0)
    p.why = "torchnative: no per-tensor operator aten::" + fn + (fov.empty() ? "" : "." + fov) +
            " for aten::" + op.name + (op.overload[0] ? std::string(".") + op.overload : "");
  return p;
}

const ForeachPlan& plan_of(const Call& c) {
  static std::mutex mu;
  static std::unordered_map<int, ForeachPlan> plans;
  std::lock_guard<std::mutex> lock(mu);
  auto it = plans.find(c.op_index);
  if (it == plans.end()) it = plans.emplace(c.op_index, make_plan(*c.op)).first;
  return it->second;
}

bool is_tensor_list(const Argument& a) { return a.type.is_list && a.type.kind == TypeKind::Tensor; }
bool is_scalar_list(const Argument& a) { return a.type.is_list && a.type.kind == TypeKind::Scalar; }

// A packed scalar list (addcmul's and addcdiv's `Tensor scalars`), element by element, with
// upstream's checks.
std::vector<Scalar> unpack_scalars(const Tensor& t, size_t n) {
  TN_CHECK(t->device().type == DeviceType::CPU, "Expected scalars to be on CPU, got ",
           t->device().str(), " instead.");
  TN_CHECK(t->is_contiguous(), "Expected scalars to be contiguous.");
  TN_CHECK(t->dim() == 1, "Expected packed scalar Tensor to be of dimension 1. Got ", t->dim(),
           " instead.");
  TN_CHECK(static_cast<size_t>(t->sizes()[0]) == n,
           "Expected length of scalars to match input of length ", n, " but got ",
           t->sizes()[0], " instead.");
  std::vector<Scalar> out;
  for (size_t i = 0; i < n; ++i) {
    Tensor e = call_tensor("aten::select.int", {Value::of(t), Value::of_int(0),
                                                Value::of_int(static_cast<int64_t>(i))});
    std::vector<Value> r = call("aten::_local_scalar_dense", {Value::of(e)});
    out.push_back(r[0].tag == Value::Tag::Scalar ? r[0].scalar : Scalar::from_double(r[0].d));
  }
  return out;
}

// Upstream's check_foreach_api_restrictions: lists non-empty and of one length.
void check_lists(const Call& c, size_t* n_out) {
  const auto& args = c.schema->arguments;
  size_t n = 0, lists = 0, scalars = SIZE_MAX;
  for (size_t j = 0; j < args.size() && j < c.args.size(); ++j) {
    if (args[j].is_out) continue;
    if (is_tensor_list(args[j])) {
      size_t m = c.args[j].tensors.size();
      TN_CHECK(m > 0, "Tensor list must have at least one tensor.");
      if (lists++ == 0) n = m;
      TN_CHECK(m == n, "Tensor lists must have the same number of tensors, got ", n, " and ", m);
    } else if (is_scalar_list(args[j])) {
      scalars = c.args[j].scalars.size();
    }
  }
  TN_CHECK(scalars == SIZE_MAX || scalars == n,
           "Tensor list must have same number of elements as scalar list.");
  *n_out = n;
}

void foreach_kernel(Call& c) {
  const ForeachPlan& p = plan_of(c);
  TN_CHECK_KIND(p.why.empty(), NotImplemented, p.why);
  size_t n = 0;
  check_lists(c, &n);
  const auto& args = c.schema->arguments;
  std::vector<Scalar> packed;
  const std::vector<Tensor>* out = nullptr;
  for (size_t j = 0; j < args.size() && j < c.args.size(); ++j) {
    if (args[j].is_out) out = &c.args[j].tensors;
    if (args[j].name == "scalars" && !args[j].type.is_list && c.args[j].tag == Value::Tag::Tensor)
      packed = unpack_scalars(c.args[j].tensor, n);
  }
  // A single `Tensor other` (add/mul/div.Tensor) is a scalar in a tensor: 0-dim only.
  for (size_t j = 0; j < args.size() && j < c.args.size(); ++j)
    if (args[j].name == "other" && !args[j].type.is_list && c.args[j].tag == Value::Tag::Tensor)
      TN_CHECK(c.args[j].tensor->dim() == 0, "scalar tensor expected to be 0 dim but it has ",
               c.args[j].tensor->dim(), " dimensions and ", c.args[j].tensor->numel(),
               " elements.");
  if (out) TN_CHECK(out->size() == n, "Tensor lists must have the same number of tensors, got ",
                    n, " and ", out->size());
  const FunctionSchema& target = schema_of(p.per_tensor);
  std::vector<Tensor> results;
  for (size_t i = 0; i < n; ++i) {
    std::vector<Value> a;
    for (size_t j = 0; j < args.size() && j < c.args.size(); ++j) {
      const Value& v = c.args[j];
      if (args[j].is_out) continue;
      if (is_tensor_list(args[j])) {
        a.push_back(Value::of(v.tensors[i]));
      } else if (is_scalar_list(args[j])) {
        a.push_back(Value::of_scalar(v.scalars[i]));
      } else if (!packed.empty() && args[j].name == "scalars") {
        a.push_back(Value::of_scalar(packed[i]));
      } else {
        a.push_back(v);
      }
      // linalg_vector_norm / linalg__powsum(self, ord, dim=None, keepdim=False, *, dtype):
      // _foreach_norm and _foreach_powsum have no dim or keepdim.
      if (p.norm && j == 1) {
        a.push_back(Value{});
        a.push_back(Value::of_bool(false));
      }
    }
    fill_defaults(target, a);
    std::vector<Value> r = dispatch(p.per_tensor, std::move(a));
    if (p.copy_back) ops::copy_(c.args[0].tensors[i], r[0].tensor);
    else if (!r.empty() && r[0].tag == Value::Tag::Tensor &&
             (out || c.schema->returns.size() == 1))
      results.push_back(r[0].tensor);
  }
  if (out) {
    // Upstream's generated out= spelling of a foreach op: every result first, then each out
    // tensor resized (resize_out_helper), then each checked and written (copy_arg): the same
    // dtype and device as its result, no cast.
    for (size_t i = 0; i < results.size(); ++i) resize_out((*out)[i], results[i]->sizes());
    for (size_t i = 0; i < results.size(); ++i) {
      const Tensor& o = (*out)[i];
      const Tensor& r = results[i];
      TN_CHECK(o->dtype() == r->dtype(), "Expected out tensor to have dtype ",
               cpp_type_name(r->dtype()), ", but got ", cpp_type_name(o->dtype()), " instead");
      TN_CHECK(o->device() == r->device(), "Expected out tensor to have device ",
               r->device().str(), ", but got ", o->device().str(), " instead");
      ops::copy_(o, r);
    }
    return;
  }
  if (!c.schema->returns.empty() && c.schema->returns[0].type.is_list)
    c.ret(Value::of_tensors(std::move(results)));
}

// Registers foreach_kernel for every _foreach_ overload of the registry, at first dispatch of
// any op (the registry's static table is complete by then).
const bool kRegistered = [] {
  const auto& ops = all_ops();
  for (size_t i = 0; i < ops.size(); ++i) {
    if (std::strncmp(ops[i].name, "_foreach_", 9) != 0 || std::strcmp(ops[i].ns, "aten") != 0)
      continue;
    std::string key = std::string("aten::") + ops[i].name +
                      (ops[i].overload[0] ? std::string(".") + ops[i].overload : "");
    static std::deque<std::string> keys;  // KernelRegistrar keeps the pointer
    keys.push_back(key);
    new KernelRegistrar(keys.back().c_str(), KernelSlot::CompositeExplicit, foreach_kernel);
  }
  return true;
}();

}  // namespace
}  // namespace tn
