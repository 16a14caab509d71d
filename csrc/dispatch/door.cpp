// The door: kernel tables and dispatch (see kernel.h). Every operator call, whatever its Python
// spelling, arrives at dispatch() with bound arguments.
#include <array>
#include <atomic>
#include <cstring>
#include <cstdlib>
#include <mutex>
#include <sstream>
#include <unordered_map>

#include "dispatch/kernel.h"

namespace tn {
namespace {

struct Entry {
  std::array<KernelFn, 3> slots{};  // DenseCPU, Meta, Composite
  KernelFn meta_rule = nullptr;     // structured: shared shape/dtype rule
  KernelFn structured_cpu = nullptr;
};

struct Pending {
  const char* key;
  KernelSlot slot;
  KernelFn fn;
  KernelFn meta_rule;
  KernelFn cpu;
};

std::vector<Pending>& pending() {
  static auto* p = new std::vector<Pending>;
  return *p;
}

struct Table {
  std::unordered_map<int, Entry> by_op;
  size_t resolved = 0;  // how many of pending() are in by_op
  std::atomic<bool> all_resolved{false};
  std::mutex mutex;
  std::vector<std::string> errors;
};

Table& table() {
  static auto* t = new Table;
  return *t;
}

// "aten::add.Tensor" -> op index, or -1.
int resolve_key(const std::string& key) {
  size_t sep = key.find("::");
  if (sep == std::string::npos) return -1;
  std::string rest = key.substr(sep + 2);
  size_t dot = rest.find('.');
  return find_op(key.substr(0, sep), rest.substr(0, dot),
                 dot == std::string::npos ? "" : rest.substr(dot + 1));
}

// Moves registrations made at static-init time into the table (once, lazily).
Table& resolved_table() {
  Table& t = table();
  // Registrations happen at static initialisation only; once all are resolved (the usual case
  // on the per-call path) the table is read without the lock.
  if (t.all_resolved.load(std::memory_order_acquire)) return t;
  std::lock_guard<std::mutex> lock(t.mutex);
  auto& p = pending();
  for (; t.resolved < p.size(); ++t.resolved) {
    const Pending& r = p[t.resolved];
    int i = resolve_key(r.key);
    if (i < 0) {
      t.errors.push_back(std::string("kernel registered for unknown op ") + r.key);
      continue;
    }
    Entry& e = t.by_op[i];
    if (r.meta_rule) {
      e.meta_rule = r.meta_rule;
      e.structured_cpu = r.cpu;
    } else {
      e.slots[static_cast<int>(r.slot)] = r.fn;
    }
  }
  t.all_resolved.store(true, std::memory_order_release);
  return t;
}

const Entry* entry_of(int op) {
  Table& t = resolved_table();
  auto it = t.by_op.find(op);
  return it == t.by_op.end() ? nullptr : &it->second;
}

Representation rep_of_device(const Device& d) {
  return d.type == DeviceType::Meta ? Representation::Meta : Representation::DenseCPU;
}

// The representation a call runs on: its tensors' (all the same), else its device argument's.
Representation choose_representation(const Call& call, ScalarType* dtype_for_errors) {
  const Tensor* first = nullptr;
  auto consider = [&](const Tensor& t) {
    if (!t) return;
    if (!first) {
      first = &t;
      return;
    }
    if (t->representation() != (*first)->representation()) {
      TN_FAIL(Runtime, "Expected all tensors to be on the same device, but found at least two "
              "devices, ", (*first)->device().str(), " and ", t->device().str(), "! (when ",
              "calling ", call.key(), ")");
    }
  };
  // copy_ moves bytes between representations: it runs on self's (upstream's cross-device copy).
  if (std::strcmp(call.op->name, "copy_") == 0 && call.args[0].tag == Value::Tag::Tensor) {
    *dtype_for_errors = call.args[0].tensor->dtype();
    return call.args[0].tensor->representation();
  }
  for (const Value& v : call.args) {
    if (v.tag == Value::Tag::Tensor) consider(v.tensor);
    if (v.tag == Value::Tag::TensorList || v.tag == Value::Tag::OptTensorList)
      for (const Tensor& t : v.tensors) consider(t);
  }
  if (first) {
    *dtype_for_errors = (*first)->dtype();
    return (*first)->representation();
  }
  for (size_t i = 0; i < call.args.size(); ++i)
    if (call.args[i].tag == Value::Tag::Device) return rep_of_device(call.args[i].device);
  return Representation::DenseCPU;
}

[[noreturn]] void refuse(const Call& call, Representation rep, ScalarType dtype, bool has_dtype) {
  std::ostringstream os;
  os << call.key() << " has no kernel in torchnative for " << representation_name(rep)
     << " tensors";
  if (has_dtype) os << " of dtype " << name(dtype);
  throw Error(ErrorKind::NotImplemented, os.str());
}

}  // namespace

KernelRegistrar::KernelRegistrar(const char* op_key, KernelSlot slot, KernelFn fn) {
  pending().push_back({op_key, slot, fn, nullptr, nullptr});
}

KernelRegistrar::KernelRegistrar(const char* op_key, KernelFn meta_rule, KernelFn cpu) {
  pending().push_back({op_key, KernelSlot::DenseCPU, nullptr, meta_rule, cpu});
}

bool has_kernel(int op, Representation rep) {
  const Entry* e = entry_of(op);
  if (!e) return false;
  if (e->meta_rule || e->slots[static_cast<int>(KernelSlot::Composite)]) return true;
  return e->slots[rep == Representation::Meta ? 1 : 0] != nullptr;
}

std::vector<std::string> implemented_ops() {
  std::vector<std::string> out;
  Table& t = resolved_table();
  for (const auto& [op, e] : t.by_op) out.push_back(op_key(all_ops()[op]));
  return out;
}

const std::vector<std::string>& kernel_registration_errors() { return resolved_table().errors; }

namespace {
std::vector<Value> run(Call& call);
}  // namespace

std::vector<Value> dispatch(int op_index, std::vector<Value> args) {
  Call call;
  call.op_index = op_index;
  call.op = &all_ops()[op_index];
  call.schema = &schema_of(op_index);
  call.args = std::move(args);
  return run(call);
}

std::vector<Value> dispatch_lent(int op_index, std::vector<Value>& args) {
  Call call;
  call.op_index = op_index;
  call.op = &all_ops()[op_index];
  call.schema = &schema_of(op_index);
  call.args.swap(args);
  struct GiveBack {  // also when the kernel throws
    Call& call;
    std::vector<Value>& to;
    ~GiveBack() {
      call.args.clear();
      to.swap(call.args);
    }
  } give_back{call, args};
  return run(call);
}

namespace {
std::vector<Value> run(Call& call) {
  ScalarType dtype = ScalarType::Float;
  Representation rep = choose_representation(call, &dtype);
  int op_index = call.op_index;
  bool has_dtype = false;
  for (const Value& v : call.args) has_dtype = has_dtype || v.tag == Value::Tag::Tensor;
  const Entry* e = entry_of(op_index);
  if (!e) refuse(call, rep, dtype, has_dtype);
  if (e->meta_rule) {
    e->meta_rule(call);  // allocates the outputs on the call's device
    if (rep == Representation::DenseCPU) {
      if (!e->structured_cpu) refuse(call, rep, dtype, has_dtype);
      e->structured_cpu(call);
    }
    return std::move(call.results);
  }
  KernelFn fn = e->slots[rep == Representation::Meta ? 1 : 0];
  if (!fn) fn = e->slots[static_cast<int>(KernelSlot::Composite)];
  if (!fn) refuse(call, rep, dtype, has_dtype);
  fn(call);
  return std::move(call.results);
}
}  // namespace

// resolve_key for call(): remembered per key pointer (composites pass string literals), checked
// against the text so that a reused pointer to other text is resolved afresh.
int resolve_call_key(const char* key) {
  struct Known {
    std::string text;
    int op = -1;
  };
  static thread_local std::unordered_map<const char*, Known> known;
  Known& k = known[key];
  if (k.op >= 0 && k.text == key && !all_ops()[k.op].removed) return k.op;
  k.text = key;
  k.op = resolve_key(key);
  return k.op;
}

std::vector<Value> call(const char* key, std::vector<Value> args) {
  int i = resolve_call_key(key);
  TN_CHECK_KIND(i >= 0, Internal, "torchnative: no operator ", key);
  fill_defaults(schema_of(i), args);
  return dispatch(i, std::move(args));
}

Tensor call_tensor(const char* key, std::vector<Value> args) {
  std::vector<Value> r = call(key, std::move(args));
  TN_CHECK_KIND(!r.empty() && r[0].tag == Value::Tag::Tensor, Internal, key,
                " did not return a tensor");
  return r[0].tensor;
}

// --- Call accessors ----------------------------------------------------------------------

namespace {
[[noreturn]] void wrong(const Call& c, size_t i, const char* want) {
  TN_FAIL(Internal, "torchnative internal error: ", c.key(), " argument ", i, " is not ", want);
}
}  // namespace

const Tensor& Call::tensor(size_t i) const {
  if (args[i].tag != Value::Tag::Tensor || !args[i].tensor) wrong(*this, i, "a tensor");
  return args[i].tensor;
}
const Tensor* Call::optional_tensor(size_t i) const {
  if (args[i].tag == Value::Tag::None) return nullptr;
  return &tensor(i);
}
int64_t Call::to_int(size_t i) const {
  const Value& v = args[i];
  if (v.tag == Value::Tag::Int) return v.i;
  if (v.tag == Value::Tag::Bool) return v.b;
  if (v.tag == Value::Tag::Scalar) return v.scalar.to_int();
  wrong(*this, i, "an int");
}
double Call::to_double(size_t i) const {
  const Value& v = args[i];
  if (v.tag == Value::Tag::Double) return v.d;
  if (v.tag == Value::Tag::Int) return static_cast<double>(v.i);
  if (v.tag == Value::Tag::Scalar) return v.scalar.to_double();
  wrong(*this, i, "a float");
}
bool Call::to_bool(size_t i) const {
  const Value& v = args[i];
  if (v.tag == Value::Tag::Bool) return v.b;
  if (v.tag == Value::Tag::Int) return v.i != 0;
  wrong(*this, i, "a bool");
}
Scalar Call::scalar(size_t i) const {
  const Value& v = args[i];
  if (v.tag == Value::Tag::Scalar) return v.scalar;
  if (v.tag == Value::Tag::Int) return Scalar::from_int(v.i);
  if (v.tag == Value::Tag::Double) return Scalar::from_double(v.d);
  if (v.tag == Value::Tag::Bool) return Scalar::from_bool(v.b);
  wrong(*this, i, "a Scalar");
}
const std::vector<int64_t>& Call::int_list(size_t i) const {
  if (args[i].tag != Value::Tag::IntList) wrong(*this, i, "an int list");
  return args[i].ints;
}
const std::vector<Tensor>& Call::tensor_list(size_t i) const {
  if (args[i].tag != Value::Tag::TensorList && args[i].tag != Value::Tag::OptTensorList)
    wrong(*this, i, "a tensor list");
  return args[i].tensors;
}
std::optional<ScalarType> Call::optional_dtype(size_t i) const {
  if (args[i].tag == Value::Tag::None) return std::nullopt;
  if (args[i].tag != Value::Tag::Dtype) wrong(*this, i, "a dtype");
  return args[i].dtype;
}

// --- defaults ------------------------------------------------------------------------------

namespace {

std::vector<std::string> split_list(const std::string& text) {  // "[1, 2]" -> {"1", "2"}
  std::vector<std::string> out;
  std::string inner = text.substr(1, text.size() - 2);
  size_t start = 0;
  while (start < inner.size()) {
    size_t comma = inner.find(',', start);
    std::string item = inner.substr(start, comma == std::string::npos ? std::string::npos
                                                                      : comma - start);
    while (!item.empty() && item[0] == ' ') item.erase(0, 1);
    if (!item.empty()) out.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

}  // namespace

Value default_value(const Argument& a) {
  const std::string& t = *a.default_text;
  const std::string& base = a.type.base;
  if (t == "None") return Value{};
  if (a.type.is_list) {
    Value v;
    auto items = split_list(t);
    if (base == "float") {
      v.tag = Value::Tag::DoubleList;
      for (auto& s : items) v.doubles.push_back(std::strtod(s.c_str(), nullptr));
    } else if (base == "bool") {
      v.tag = Value::Tag::BoolList;
      for (auto& s : items) v.bools.push_back(s == "True");
    } else if (base == "Tensor") {
      v.tag = Value::Tag::TensorList;
    } else {
      v.tag = Value::Tag::IntList;
      for (auto& s : items) v.ints.push_back(std::strtoll(s.c_str(), nullptr, 10));
    }
    return v;
  }
  if (t == "True" || t == "False") return Value::of_bool(t == "True");
  if (base == "str") {
    Value v;
    v.tag = Value::Tag::String;
    v.str = t.substr(1, t.size() - 2);
    return v;
  }
  bool is_float_text = t.find_first_of(".e") != std::string::npos && t.find("inf") == std::string::npos;
  if (base == "float") return Value::of_double(std::strtod(t.c_str(), nullptr));
  if (base == "Scalar")
    return Value::of_scalar(is_float_text ? Scalar::from_double(std::strtod(t.c_str(), nullptr))
                                          : Scalar::from_int(std::strtoll(t.c_str(), nullptr, 10)));
  if (base == "ScalarType") return Value::of_dtype(static_cast<ScalarType>(std::atoi(t.c_str())));
  if (base == "MemoryFormat") {
    Value v;
    v.tag = Value::Tag::MemoryFormat;
    int code = std::atoi(t.c_str());  // upstream's enum: 0 contiguous, 1 preserve, 2 channels_last
    v.memory_format = code == 1 ? MemoryFormatKind::Preserve
                      : code == 2 ? MemoryFormatKind::ChannelsLast : MemoryFormatKind::Contiguous;
    return v;
  }
  return Value::of_int(std::strtoll(t.c_str(), nullptr, 10));
}

void fill_defaults(const FunctionSchema& schema, std::vector<Value>& args) {
  if (args.size() >= schema.arguments.size()) return;
  // Each schema's defaults are parsed once (per thread) and copied from then on.
  static thread_local std::unordered_map<const FunctionSchema*, std::vector<Value>> parsed;
  std::vector<Value>& defaults = parsed[&schema];
  if (defaults.empty()) {
    defaults.resize(schema.arguments.size());
    for (size_t i = 0; i < schema.arguments.size(); ++i)
      if (schema.arguments[i].default_text) defaults[i] = default_value(schema.arguments[i]);
  }
  args.reserve(schema.arguments.size());
  for (size_t i = args.size(); i < schema.arguments.size(); ++i) {
    const Argument& a = schema.arguments[i];
    TN_CHECK_KIND(a.default_text.has_value(), Type, schema.str(), " missing required argument '",
                  a.name, "' (position ", i, ")");
    args.push_back(defaults[i]);
  }
}

}  // namespace tn
