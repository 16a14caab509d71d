// How kernels are written and registered, and the C++ entry of the door.
//
// A kernel is `void fn(Call& call)`: it reads its arguments (one Value per schema argument, in
// schema order, defaults already filled in) and appends its results (one Value per schema return).
// Kernels register for a representation (DenseCPU, Meta) or as Composite (written in terms of
// other ops through tn::call(), so valid for every representation). Structured ops register one
// shape/dtype rule shared by every back end plus a compute function per back end: on Meta the rule
// alone runs (ARCHITECTURE.md: "the meta rule is shared, not re-derived per back end").
//
//   TN_REGISTER_KERNEL("aten::mm", DenseCPU, mm_cpu);
//   TN_REGISTER_COMPOSITE("aten::linear", linear);
//   TN_REGISTER_STRUCTURED("aten::add.Tensor", binary_meta, add_cpu);
//
// An op key is "ns::name" (the default overload) or "ns::name.overload".
#pragma once

#include <string>
#include <vector>

#include "core/device.h"
#include "core/error.h"
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

  const std::string& key() const { return op_key_ref(op_index); }
  const Value& arg(size_t i) const { return args[i]; }
  // Typed accessors; each refuses (Internal) when the binder gave something else.
  const Tensor& tensor(size_t i) const;
  const Tensor* optional_tensor(size_t i) const;  // nullptr for None
  int64_t to_int(size_t i) const;
  double to_double(size_t i) const;
  bool to_bool(size_t i) const;
  Scalar scalar(size_t i) const;
  const std::vector<int64_t>& int_list(size_t i) const;
  const std::vector<Tensor>& tensor_list(size_t i) const;
  std::optional<ScalarType> optional_dtype(size_t i) const;
  void ret(Tensor t) { results.push_back(Value::of(std::move(t))); }
  void ret(Value v) { results.push_back(std::move(v)); }
};

using KernelFn = void (*)(Call&);

enum class KernelSlot : int8_t { DenseCPU = 0, Meta = 1, Composite = 2 };

// Registration (at static-initialisation time; resolved against the registry on first dispatch).
struct KernelRegistrar {
  KernelRegistrar(const char* op_key, KernelSlot slot, KernelFn fn);
  KernelRegistrar(const char* op_key, KernelFn meta_rule, KernelFn cpu_compute);  // structured
};

#define TN_CONCAT_(a, b) a##b
#define TN_CONCAT(a, b) TN_CONCAT_(a, b)
#define TN_REGISTER_KERNEL(op, slot, fn)                                   \
  static ::tn::KernelRegistrar TN_CONCAT(tn_kernel_reg_, __LINE__)(op, \
                                                                    ::tn::KernelSlot::slot, fn)
#define TN_REGISTER_COMPOSITE(op, fn) TN_REGISTER_KERNEL(op, Composite, fn)
#define TN_REGISTER_STRUCTURED(op, meta_rule, cpu_compute) \
  static ::tn::KernelRegistrar TN_CONCAT(tn_kernel_reg_, __LINE__)(op, meta_rule, cpu_compute)

// Does op i have a kernel usable for representation rep (its own, structured, or composite)?
bool has_kernel(int op_index, Representation rep);
// Every op key with at least one kernel (for the coverage report and tests).
std::vector<std::string> implemented_ops();
// Registrations naming ops the registry lacks (our bug; the C++ tests require none).
const std::vector<std::string>& kernel_registration_errors();

// The door, from C++: runs op i on bound arguments and returns its results. Chooses the kernel
// by the representation of the tensor arguments (or the device argument of factories); refuses
// with NotImplementedError naming op, overload, representation and dtype when there is none.
std::vector<Value> dispatch(int op_index, std::vector<Value> args);
// The same, with the arguments' vector lent rather than given: it comes back empty but with its
// capacity, so a caller that binds many calls (the Python binder) allocates it once.
std::vector<Value> dispatch_lent(int op_index, std::vector<Value>& args);
// Convenience for composites: tn::call("aten::mm", {Value::of(a), Value::of(b)}) fills in
// defaults for missing trailing arguments from the schema.
std::vector<Value> call(const char* op_key, std::vector<Value> args);
Tensor call_tensor(const char* op_key, std::vector<Value> args);

// The value of an argument's schema default (the argument must have one).
Value default_value(const Argument& a);
// Fills missing trailing arguments with the schema's defaults (the binder does this for Python).
void fill_defaults(const FunctionSchema& schema, std::vector<Value>& args);

}  // namespace tn
