// Operator schemas: parsed from native_functions.yaml's text and printed back exactly as
// upstream's str(FunctionSchema) prints them (defaults normalised: int[2] stride=1 -> [1, 1],
// float eps=1e-05 -> 1.0000000000000001e-05, int reduction=Mean -> 1, strings double-quoted).
// Pure C++.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tn {

// "Tensor(a!)": the alias set a value belongs to and whether the op writes it.
struct AliasInfo {
  std::string before;  // "a"
  std::string after;   // "*" for "a -> *", else equal to before
  bool is_write = false;
};

// The kinds of base type the binder and the door act on, read once from the base name when a
// schema is parsed (a switch per argument, not string compares per call).
enum class TypeKind : uint8_t {
  Tensor, Scalar, Int, Float, Bool, Str, ScalarType, Layout, MemoryFormat, Device, Generator,
  Storage, Object, Other
};
TypeKind type_kind(const std::string& base);

// A schema type: base [ (alias) ] [ ? ] [ [N] ] [ ? ]. Container types of the JIT registry carry
// their element types: Dict(K, V), Future(T), RRef(T), Await(T), Union(A, B), and tuples (A, B)
// (base "()").
struct SchemaType {
  std::string base;  // "Tensor", "int", "SymInt", "Scalar", ... (DeviceIndex printed as int)
  TypeKind kind = TypeKind::Other;  // type_kind(base); SymInt is Int, SymFloat Float...
  std::vector<SchemaType> args;  // element types of containers
  std::optional<AliasInfo> alias;  // on the base (the element, for lists)
  bool elem_optional = false;      // "Tensor?[]"
  bool is_list = false;
  int list_size = -1;  // int[2] -> 2
  int extra_list_depth = 0;  // int[][] -> 1 (lists of lists)
  std::optional<AliasInfo> list_alias;  // "t[](a!)": on the list itself
  bool optional = false;
  std::string str() const;  // as in the schema: "Tensor(a!)", "int[2]", "Tensor?[]"
};

// A default value, already normalised to upstream's printing.
struct Argument {
  std::string name;
  SchemaType type;
  std::optional<std::string> default_text;  // printed form, e.g. "[1, 1]", "1.", "\"fro\""
  bool kwarg_only = false;
  bool is_out = false;
};

struct FunctionSchema {
  std::string name;      // "aten::add"
  std::string overload;  // "Tensor"
  std::vector<Argument> arguments;
  std::vector<Argument> returns;
  bool returns_tuple = false;  // written with parentheses
  bool is_vararg = false;
  bool is_varret = false;
  std::string str() const;
  bool is_mutable() const;
};

// Parses "add.Tensor(Tensor self, ...) -> Tensor"; ns is prefixed to the name ("aten").
// Throws tn::Error (Runtime) naming the position on bad input.
FunctionSchema parse_schema(const std::string& text, const std::string& ns = "aten");

// Formats a double as upstream's schema printer does (%.17g, "." appended when integral).
std::string format_schema_float(double v);

}  // namespace tn
