// How kernels are written and registered, and the C++ entry of the door (docs/ARCHITECTURE.md,
// "The door in layers" and "Adding an op").
//
// A kernel is `void fn(Call& call)`: it reads its arguments (one Value per schema argument, in
// schema order, defaults already filled in) and appends its results (one Value per schema return).
// Each op has one kernel slot per dispatch key (dispatch/keys.h): the back ends' keys, and the
// layers above them (Autograd, ADInplaceOrView, Python, Capture), which do their work and
// re-dispatch below themselves (redispatch_below). Kernels register for a back end, or as
// Composite (written in door ops through tn::call(), so valid for every back end; placed where
// upstream places the op: CompositeImplicitAutograd ops decompose at the Autograd key, before
// the Python key sees them, the others run at each back end's key). Structured ops register one
// shape/dtype/checks rule shared by every back end plus one compute per back end; the rule
// allocates the outputs on the call's device and the compute receives them. On Meta the rule
// alone runs; a back end without a compute refuses by name.
//
//   TN_REGISTER_KERNEL("aten::mm", DenseCPU, mm_cpu);
//   TN_REGISTER_COMPOSITE("aten::linear", linear);
//   TN_REGISTER_STRUCTURED("aten::add.Tensor", binary_rule, add_cpu);
//   TN_REGISTER_COMPUTE("aten::addmm", <a back end>, addmm_on_that_device);
//
// An op key is "ns::name" (the default overload) or "ns::name.overload".
#pragma once

#include <new>
#include <string>
#include <vector>

#include "core/device.h"
#include "core/error.h"
#include "dispatch/keys.h"
#include "dispatch/registry.h"
#include "dispatch/schema.h"
#include "dispatch/value.h"

namespace tn {

struct Call {
  int op_index;
  const OpInfo* op;
  const FunctionSchema* schema;
  std::vector<Value> args;
  std::vector<Value> results;
  KeySet keys = 0;                      // what the call dispatches on (its tensors' and the thread's)
  DispatchKey running = DispatchKey::CPU;  // the key whose kernel is running
  Device device;                        // where new outputs go: the chosen back end's device
  const Tensor* mixed[2] = {nullptr, nullptr};  // two tensors on different devices, if any
  const void* context = nullptr;        // the running kernel's context (a Python callable...)

  const std::string& key() const { return op_key_ref(op_index); }
  const Value& arg(size_t i) const { return args[i]; }
  // Typed accessors; each refuses (Internal) when the binder gave something else.
  const Tensor& tensor(size_t i) const;
  const Tensor* optional_tensor(size_t i) const;  // nullptr for None
  int64_t to_int(size_t i) const;
  double to_double(size_t i) const;
  bool to_bool(size_t i) const;
  Scalar scalar(size_t i) const;
  const Dims& int_list(size_t i) const;
  const std::vector<Tensor>& tensor_list(size_t i) const;
  std::optional<ScalarType> optional_dtype(size_t i) const;
  void ret(Tensor t) {  // in place: no temporary Value made, moved and destroyed
    Value& v = results.emplace_back();
    v.tag = Value::Tag::Tensor;
    v.tensor = std::move(t);
  }
  void ret(Value v) { results.push_back(std::move(v)); }

  // What a structured op's rule hands its compute (an elementwise rule's EwSpec: operands,
  // dtypes, shape), so that the compute receives the rule's result instead of deriving it again.
  // Kept in the call itself (no allocation); rule_state<T>() is null when none of type T was kept.
  template <class T>
  void keep_rule_state(T v) {
    static_assert(sizeof(T) <= kRuleStateBytes && alignof(T) <= 16, "rule state too large");
    drop_rule_state();
    new (state_) T(std::move(v));
    state_destroy_ = [](void* p) { static_cast<T*>(p)->~T(); };
    state_type_ = type_tag<T>();
  }
  template <class T>
  const T* rule_state() const {
    return state_type_ == type_tag<T>() ? reinterpret_cast<const T*>(state_) : nullptr;
  }

  Call() = default;
  Call(const Call&) = delete;
  Call& operator=(const Call&) = delete;
  ~Call() { drop_rule_state(); }

 private:
  static constexpr size_t kRuleStateBytes = 192;
  template <class T>
  static const void* type_tag() {
    static const char tag = 0;
    return &tag;
  }
  void drop_rule_state() {
    if (state_destroy_) state_destroy_(state_);
    state_destroy_ = nullptr;
    state_type_ = nullptr;
  }
  alignas(16) unsigned char state_[kRuleStateBytes];
  void (*state_destroy_)(void*) = nullptr;
  const void* state_type_ = nullptr;
};

using KernelFn = void (*)(Call&);

// One slot's kernel: a function, with the context it was registered with; `rule` is a
// structured op's shared rule, run first (a Meta slot holds the rule alone).
struct Kernel {
  KernelFn fn = nullptr;
  KernelFn rule = nullptr;
  const void* context = nullptr;
  // Set by the door on a back end's own kernels: the calls they make run below Autograd and
  // ADInplaceOrView (upstream's AutoDispatchBelowADInplaceOrView), so a factory that fills its
  // result, or a kernel built from other ops, bumps no version and records nothing.
  bool below_layers = false;
  // A composite (its pieces check devices themselves; the door checks for the others).
  bool composite = false;
  bool empty() const { return !fn && !rule; }
};

// Where a static registration goes: a back end's key, a layer's key, or Composite.
enum class KernelSlot : int8_t {
#define TN_BACKEND_SLOT(e, name, rep_name) e,
  TN_FORALL_BACKENDS(TN_BACKEND_SLOT)
#undef TN_BACKEND_SLOT
  DenseCPU = CPU,
  CompositeImplicit = 8,  // upstream's CompositeImplicitAutograd: decomposes at Autograd
  CompositeExplicit,      // upstream's CompositeExplicitAutograd: every back end's key
  Python,
  Negative,
  Conjugate,
  ADInplaceOrView,
  Autograd,
  Capture,
  Composite,  // static registrations: implicit or explicit as upstream's op is
};
constexpr int kNumKernelSlots = static_cast<int>(KernelSlot::Capture) + 1;

// Registration (at static-initialisation time; resolved against the registry on first dispatch).
struct KernelRegistrar {
  KernelRegistrar(const char* op_key, KernelSlot slot, KernelFn fn);
  KernelRegistrar(const char* op_key, KernelFn rule, KernelFn cpu_compute);  // structured
  // Another back end's compute of a structured op (its rule is registered with the CPU compute).
  KernelRegistrar(const char* op_key, KernelFn compute, KernelSlot backend, bool);
};

#define TN_CONCAT_(a, b) a##b
#define TN_CONCAT(a, b) TN_CONCAT_(a, b)
#define TN_REGISTER_KERNEL(op, slot, fn)                                   \
  static ::tn::KernelRegistrar TN_CONCAT(tn_kernel_reg_, __LINE__)(op, \
                                                                    ::tn::KernelSlot::slot, fn)
#define TN_REGISTER_COMPOSITE(op, fn) TN_REGISTER_KERNEL(op, Composite, fn)
#define TN_REGISTER_STRUCTURED(op, rule, cpu_compute) \
  static ::tn::KernelRegistrar TN_CONCAT(tn_kernel_reg_, __LINE__)(op, rule, cpu_compute)
#define TN_REGISTER_COMPUTE(op, backend, compute)                       \
  static ::tn::KernelRegistrar TN_CONCAT(tn_kernel_reg_, __LINE__)(op, compute, \
                                                                    ::tn::KernelSlot::backend, true)

// Registration after start-up (torch.library's Python kernels): puts k in op's slot for key
// (or, for KernelSlot::Composite, where upstream places the op's composite). `source` names
// where it came from; a slot that already holds a kernel is an error naming both sources.
void register_kernel(int op_index, KernelSlot slot, Kernel k, const std::string& source);
// Empties a slot register_kernel filled.
void deregister_kernel(int op_index, KernelSlot slot);
// torch.library's registration (Library.impl): as upstream's dispatcher, a kernel already in
// the slot is hidden, not refused (`hidden` gets its source, empty when the slot was empty, so
// the caller can warn as upstream does), and comes back when this one is removed. On a
// structured op's back-end slot the kernel replaces rule and compute. Returns the handle for
// remove_kernel (Library.reset / the library's destruction).
int override_kernel(int op_index, KernelSlot slot, Kernel k, const std::string& source,
                    std::string* hidden);
void remove_kernel(int op_index, KernelSlot slot, int handle);
// A layer's kernel for every op that `applies` selects (the Autograd layer's marking, the
// ADInplaceOrView layer's version bumps, the Python key's handler). An op's own kernel for that
// key wins over the fallback.
void set_key_fallback(DispatchKey key, Kernel k, bool (*applies)(int op_index));
// Does op i run a kernel of its own (not a fallback) at this key? (torch.library's queries.)
bool has_kernel_for_key(int op_index, KernelSlot slot);

// Runs the kernel of the highest key below `below` in call.keys (a layer's "call the rest").
void redispatch_below(Call& call, DispatchKey below);

// Does op i have a kernel usable for representation rep (its own, structured, or composite)?
// This is the back-end contract's "supports(op)"; dtypes are refused by name inside kernels.
bool has_kernel(int op_index, Representation rep);
// Every op key with at least one kernel (for the coverage report and tests).
std::vector<std::string> implemented_ops();
// Registrations naming ops the registry lacks (our bug; the C++ tests require none).
const std::vector<std::string>& kernel_registration_errors();

// The door, from C++: runs op i on bound arguments and returns its results. Dispatches on the
// key set of the tensor arguments (their back end, or the device argument of factories, plus
// the layers they and the thread ask for); refuses with NotImplementedError naming op,
// overload, representation and dtype when the chosen back end has no kernel.
std::vector<Value> dispatch(int op_index, std::vector<Value> args);
// The same, with the vectors lent rather than given: `args` comes back with every Value reset
// to None (Value::reset: references dropped, capacity kept) and `results` (emptied first) holds
// the results, so a caller that binds many calls (the Python binder) allocates both once.
// With `keys`, the call runs on that key set instead of its tensors' and the thread's (a
// Python kernel's OpOverload.redispatch(keyset, ...)).
void dispatch_lent(int op_index, std::vector<Value>& args, std::vector<Value>& results,
                   const KeySet* keys = nullptr);
// Convenience for composites: tn::call("aten::mm", {Value::of(a), Value::of(b)}) fills in
// defaults for missing trailing arguments from the schema.
std::vector<Value> call(const char* op_key, std::vector<Value> args);
Tensor call_tensor(const char* op_key, std::vector<Value> args);

// The value of an argument's schema default (the argument must have one).
Value default_value(const Argument& a);
// Fills missing trailing arguments with the schema's defaults (the binder does this for Python).
void fill_defaults(const FunctionSchema& schema, std::vector<Value>& args);

}  // namespace tn
