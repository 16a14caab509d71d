// The operator registry: every overload of native_functions.yaml (generated at build time), and
// the kernels registered for it per representation. Pure C++. The door (door.h) looks kernels up
// here; a missing one is refused by name.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tn {

struct OpInfo {
  const char* name;      // "add"
  const char* overload;  // "Tensor" ("" for the default overload)
  const char* schema;    // the schema text as upstream's yaml spells it
  bool is_function;
  bool is_method;
  const char* python_module;  // "", "nn", "fft", "linalg", "special", "nested", "sparse"
};

// All overloads, in yaml order.
const std::vector<OpInfo>& all_ops();

// "aten.add.Tensor" / "aten.gelu.default": the full key used in errors and reports.
std::string op_key(const OpInfo& op);

}  // namespace tn
