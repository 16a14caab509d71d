// The dtype table: one X-macro row per dtype torchnative knows; everything else expands from it.
// Pure C++ (no Python). Dtypes named here but not computable (fp8, quantized, the unsigned and sub-byte ones) are kept
// so that torch.<name> exists, and flagged `supported = false` so kernels refuse them by name.
#pragma once

#include <cstdint>
#include <cstring>

namespace tn {

// clang-format off
// X(Enum, torch name, itemsize, is_floating, is_complex, is_signed, supported, legacy type name,
//   abbreviation used by torch.fx printing)
#define TN_FORALL_DTYPES(X)                                         \
  X(Byte, uint8, 1, false, false, false, true, "ByteTensor", "u8")       \
  X(Char, int8, 1, false, false, true, true, "CharTensor", "i8")         \
  X(Short, int16, 2, false, false, true, true, "ShortTensor", "i16")      \
  X(Int, int32, 4, false, false, true, true, "IntTensor", "i32")          \
  X(Long, int64, 8, false, false, true, true, "LongTensor", "i64")        \
  X(Half, float16, 2, true, false, true, true, "HalfTensor", "f16")       \
  X(Float, float32, 4, true, false, true, true, "FloatTensor", "f32")     \
  X(Double, float64, 8, true, false, true, true, "DoubleTensor", "f64")   \
  X(ComplexHalf, complex32, 4, false, true, true, true, "", "c32")        \
  X(ComplexFloat, complex64, 8, false, true, true, true, "", "c64")       \
  X(ComplexDouble, complex128, 16, false, true, true, true, "", "c128")    \
  X(Bool, bool, 1, false, false, false, true, "BoolTensor", "b8")        \
  X(QInt8, qint8, 1, false, false, true, false, "", "qint8")                \
  X(QUInt8, quint8, 1, false, false, false, false, "", "quint8")             \
  X(QInt32, qint32, 4, false, false, true, false, "", "qint32")              \
  X(BFloat16, bfloat16, 2, true, false, true, true, "BFloat16Tensor", "bf16") \
  X(QUInt4x2, quint4x2, 1, false, false, false, false, "", "quint4x2")         \
  X(QUInt2x4, quint2x4, 1, false, false, false, false, "", "quint2x4")         \
  X(Bits1x8, bits1x8, 1, false, false, false, false, "", "b1x8")           \
  X(Bits2x4, bits2x4, 1, false, false, false, false, "", "b2x4")           \
  X(Bits4x2, bits4x2, 1, false, false, false, false, "", "b4x2")           \
  X(Bits8, bits8, 1, false, false, false, false, "", "b8x1")               \
  X(Bits16, bits16, 2, false, false, false, false, "", "b16x1")             \
  X(Float8_e5m2, float8_e5m2, 1, true, false, true, false, "", "f8e5m2")     \
  X(Float8_e4m3fn, float8_e4m3fn, 1, true, false, true, false, "", "f8e4m3fn") \
  X(Float8_e5m2fnuz, float8_e5m2fnuz, 1, true, false, true, false, "", "f8e5m2fnuz") \
  X(Float8_e4m3fnuz, float8_e4m3fnuz, 1, true, false, true, false, "", "f8e4m3fnuz") \
  X(UInt16, uint16, 2, false, false, false, false, "", "u16")             \
  X(UInt32, uint32, 4, false, false, false, false, "", "u32")             \
  X(UInt64, uint64, 8, false, false, false, false, "", "u64")             \
  X(UInt1, uint1, 1, false, false, false, false, "", "uint1")         \
  X(UInt2, uint2, 1, false, false, false, false, "", "uint2")         \
  X(UInt3, uint3, 1, false, false, false, false, "", "uint3")         \
  X(UInt4, uint4, 1, false, false, false, false, "", "uint4")         \
  X(UInt5, uint5, 1, false, false, false, false, "", "uint5")         \
  X(UInt6, uint6, 1, false, false, false, false, "", "uint6")         \
  X(UInt7, uint7, 1, false, false, false, false, "", "uint7")         \
  X(Int1, int1, 1, false, false, true, false, "", "int1")            \
  X(Int2, int2, 1, false, false, true, false, "", "int2")            \
  X(Int3, int3, 1, false, false, true, false, "", "int3")            \
  X(Int4, int4, 1, false, false, true, false, "", "int4")            \
  X(Int5, int5, 1, false, false, true, false, "", "int5")            \
  X(Int6, int6, 1, false, false, true, false, "", "int6")            \
  X(Int7, int7, 1, false, false, true, false, "", "int7")            \
  X(Float8_e8m0fnu, float8_e8m0fnu, 1, true, false, false, false, "", "f8e8m0fnu") \
  X(Float4_e2m1fn_x2, float4_e2m1fn_x2, 1, true, false, true, false, "", "f4e2m1fnx2")
// clang-format on

enum class ScalarType : int8_t {
#define TN_ENUM(E, name, size, fl, cx, sg, ok, legacy, abbr) E,
  TN_FORALL_DTYPES(TN_ENUM)
#undef TN_ENUM
      NumOptions
};

constexpr int kNumScalarTypes = static_cast<int>(ScalarType::NumOptions);

struct ScalarTypeInfo {
  const char* name;  // torch name: "float32"
  int itemsize;
  bool is_floating;
  bool is_complex;
  bool is_signed;
  bool supported;  // our kernels compute it
  const char* legacy_name;
  const char* abbr;
};

extern const ScalarTypeInfo kScalarTypeInfo[kNumScalarTypes];

inline const ScalarTypeInfo& info(ScalarType t) {
  return kScalarTypeInfo[static_cast<int>(t)];
}
inline const char* name(ScalarType t) { return info(t).name; }
inline int itemsize(ScalarType t) { return info(t).itemsize; }
inline bool is_floating(ScalarType t) { return info(t).is_floating; }
// The C++ type name upstream's messages print for a dtype (caffe2::TypeMeta: "long int").
const char* cpp_type_name(ScalarType t);
// The c10::ScalarType name upstream's messages print: "Float", "Long", "Float8_e4m3fn".
const char* enum_name(ScalarType t);
inline bool is_complex(ScalarType t) { return info(t).is_complex; }
// What autograd differentiates (upstream's isDifferentiableType): floating and complex dtypes.
inline bool is_differentiable_type(ScalarType t) { return is_floating(t) || is_complex(t); }
// complex64 -> float32, complex128 -> float64, complex32 -> float16; others are their own.
inline ScalarType to_real_type(ScalarType t) {
  switch (t) {
    case ScalarType::ComplexHalf: return ScalarType::Half;
    case ScalarType::ComplexFloat: return ScalarType::Float;
    case ScalarType::ComplexDouble: return ScalarType::Double;
    default: return t;
  }
}
inline bool is_quantized(ScalarType t) { return info(t).name[0] == 'q'; }
inline bool is_integral(ScalarType t, bool include_bool) {
  return !info(t).is_floating && !info(t).is_complex &&
         (include_bool || t != ScalarType::Bool) && info(t).supported;
}

}  // namespace tn
