// The dtype table's one definition (see scalar_type.h).
#include "core/scalar_type.h"

namespace tn {

const ScalarTypeInfo kScalarTypeInfo[kNumScalarTypes] = {
#define TN_INFO(E, name, size, fl, cx, sg, ok, legacy, abbr) \
  {#name, size, fl, cx, sg, ok, legacy, abbr},
    TN_FORALL_DTYPES(TN_INFO)
#undef TN_INFO
};

const char* enum_name(ScalarType t) {
  switch (t) {
#define TN_ENUM_NAME(E, n, size, fl, cx, sg, ok, legacy, abbr) \
  case ScalarType::E: return #E;
    TN_FORALL_DTYPES(TN_ENUM_NAME)
#undef TN_ENUM_NAME
    default: return "Undefined";
  }
}

const char* cpp_type_name(ScalarType t) {
  switch (t) {
    case ScalarType::Bool: return "bool";
    case ScalarType::Byte: return "unsigned char";
    case ScalarType::Char: return "signed char";
    case ScalarType::Short: return "short int";
    case ScalarType::Int: return "int";
    case ScalarType::Long: return "long int";
    case ScalarType::Half: return "c10::Half";
    case ScalarType::BFloat16: return "c10::BFloat16";
    case ScalarType::Float: return "float";
    case ScalarType::Double: return "double";
    default: return name(t);
  }
}

}  // namespace tn
