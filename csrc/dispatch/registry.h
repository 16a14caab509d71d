// The operator registry: every overload of native_functions.yaml (generated at build time), plus
// operators defined at run time (torch.library's DEF/FRAGMENT libraries, C++-registered
// namespaces such as profiler::). Pure C++. The door looks kernels up here; a missing one is
// refused by name.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace tn {

struct OpInfo {
  const char* name;      // "add"
  const char* overload;  // "Tensor" ("" for the default overload)
  const char* schema;    // the schema text, without namespace
  bool is_function;
  bool is_method;
  const char* python_module;  // "", "nn", "fft", "linalg", "special", "nested", "sparse"
  const char* tags;           // "core,pointwise": torch.Tag names
  const char* ns = "aten";
  int library = -1;  // the run-time library that defined it; -1 for built-in ops
  bool removed = false;  // its library was reset
  // Autograd would differentiate it (derivatives.yaml, or a composite of such ops): results of
  // such ops on tensors that require grad require grad too.
  bool differentiable = false;
  // Upstream's kernel is CompositeImplicitAutograd: a composite of ours decomposes at the
  // Autograd key, as upstream's does, so the layers below see only its pieces.
  bool composite_implicit = false;
  // native_functions.yaml's `device_check: NoCheck` (copy_, to...): tensors on several devices
  // may meet in one call; the highest back end's kernel runs.
  bool no_device_check = false;
};

struct FunctionSchema;

// All overloads: the yaml's, in its order, then run-time definitions. References stay valid.
const std::deque<OpInfo>& all_ops();

// The parsed schema of op i (parsed once, on first use).
const FunctionSchema& schema_of(size_t i);
// Index of ns::name.overload ("" for default), or -1.
int find_op(const std::string& ns, const std::string& name, const std::string& overload);
// Index of the op a key spells, "ns::name" or "ns::name.overload", or -1.
int find_op_key(const std::string& key);
// Indices of every live overload of ns::name (empty when unknown).
std::vector<int> overloads_of(const std::string& ns, const std::string& name);

// Defines ns::<schema> for library `library`; returns its index. Throws (Runtime) if an overload
// of that name already exists, as upstream does.
int define_op(const std::string& ns, const std::string& schema_text, const std::string& tags,
              int library);
// Removes every op library defined (Library.reset / its destruction).
void remove_library_ops(int library);

// Problems found while loading the built-in tables (empty when all is well; the tests check).
const std::vector<std::string>& registry_errors();

// "aten.add.Tensor" / "aten.gelu.default": the full key used in errors and reports.
std::string op_key(const OpInfo& op);
// op_key of op i, built once and kept for the process (the per-call path reads it lock-free).
const std::string& op_key_ref(int i);

}  // namespace tn
