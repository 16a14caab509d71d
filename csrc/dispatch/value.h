// Value: one argument or result of an operator call, as the schema types it (Tensor, int, float,
// bool, Scalar, str, int[], float[], bool[], Tensor[], Tensor?[], ScalarType, Device, Layout,
// MemoryFormat, Generator, or None). The binder (csrc/python/binder.cpp) builds them from Python
// objects; kernels read them through Call (kernel.h). Pure C++.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/generator.h"
#include "core/tensor_impl.h"

namespace tn {

// A number whose Python type matters for promotion (int / float / complex / bool), as upstream's
// Scalar. A complex number keeps its real part in `d` and its imaginary part in `im`.
struct Scalar {
  enum class Kind : uint8_t { Int, Double, Bool, Complex };
  int64_t i = 0;
  double d = 0;
  double im = 0;
  Kind kind = Kind::Int;  // after the numbers: 32 bytes in all, as before complex numbers
  bool b = false;

  static Scalar from_int(int64_t v) { Scalar s; s.kind = Kind::Int; s.i = v; return s; }
  static Scalar from_double(double v) { Scalar s; s.kind = Kind::Double; s.d = v; return s; }
  static Scalar from_bool(bool v) { Scalar s; s.kind = Kind::Bool; s.b = v; return s; }
  static Scalar from_complex(double re, double imag) {
    Scalar s;
    s.kind = Kind::Complex;
    s.d = re;
    s.im = imag;
    return s;
  }
  // The real part of a complex number (callers that may see one check is_complex first).
  double to_double() const {
    return kind == Kind::Double || kind == Kind::Complex ? d : kind == Kind::Int ? double(i) : b;
  }
  int64_t to_int() const {
    return kind == Kind::Int ? i
           : kind == Kind::Double || kind == Kind::Complex ? static_cast<int64_t>(d) : b;
  }
  // The imaginary part (0 for real numbers).
  double imag() const { return kind == Kind::Complex ? im : 0.0; }
  bool is_floating() const { return kind == Kind::Double; }
  bool is_complex() const { return kind == Kind::Complex; }
  bool is_bool() const { return kind == Kind::Bool; }
  bool is_integral() const { return kind == Kind::Int; }
  // The dtype upstream gives a 0-dim tensor made from this number (int64 / float64 /
  // complex128 / bool).
  ScalarType default_dtype() const {
    return kind == Kind::Double    ? ScalarType::Double
           : kind == Kind::Int     ? ScalarType::Long
           : kind == Kind::Complex ? ScalarType::ComplexDouble
                                   : ScalarType::Bool;
  }
};

enum class MemoryFormatKind : int8_t { Contiguous, ChannelsLast, ChannelsLast3d, Preserve };

// An instance of a class the core registers under torch.classes (upstream's torchbind objects:
// the profiler's _RecordFunction handle). Opaque to the door; Python sees a torch.ScriptObject.
class CustomObject : public RefCounted {
 public:
  // "__torch__.torch.classes.profiler._RecordFunction", as the schema types it.
  virtual const char* qualified_name() const = 0;
};

struct Value {
  enum class Tag : uint8_t {
    None, Tensor, Int, Double, Bool, Scalar, String, IntList, DoubleList, BoolList, TensorList,
    OptTensorList, Dtype, Device, Layout, MemoryFormat, Generator, Storage, Object, ScalarList
  };
  Tag tag = Tag::None;
  Tensor tensor;
  int64_t i = 0;
  double d = 0;
  bool b = false;
  Scalar scalar;
  std::string str;
  Dims ints;
  std::vector<double> doubles;
  std::vector<bool> bools;
  std::vector<Scalar> scalars;  // ScalarList (Scalar[]: each keeps its int/float/bool kind)
  std::vector<Tensor> tensors;  // TensorList; OptTensorList uses null Ptrs for None
  ScalarType dtype = ScalarType::Float;
  Device device;
  MemoryFormatKind memory_format = MemoryFormatKind::Contiguous;
  Ptr<Generator> generator;
  tn::Storage storage;
  Ptr<CustomObject> object;

  bool is_none() const { return tag == Tag::None; }
  // Back to None, dropping what it refers to but keeping its vectors' capacity: the binder's
  // argument vector is reused from call to call (a fresh Value costs more to make and destroy
  // than most calls spend on their arguments). The plain fields keep stale bits; the tag says
  // which field holds the value.
  void reset() {
    tag = Tag::None;
    if (tensor) tensor = Tensor();
    if (!ints.empty()) ints.clear();
    if (!tensors.empty()) tensors.clear();
    if (!str.empty()) str.clear();
    if (!doubles.empty()) doubles.clear();
    if (!bools.empty()) bools.clear();
    if (!scalars.empty()) scalars.clear();
    if (generator) generator = Ptr<Generator>();
    if (storage) storage = tn::Storage();
    if (object) object = Ptr<CustomObject>();
  }
  static Value of(Tensor t) { Value v; v.tag = Tag::Tensor; v.tensor = std::move(t); return v; }
  static Value of_int(int64_t x) { Value v; v.tag = Tag::Int; v.i = x; return v; }
  static Value of_double(double x) { Value v; v.tag = Tag::Double; v.d = x; return v; }
  static Value of_bool(bool x) { Value v; v.tag = Tag::Bool; v.b = x; return v; }
  static Value of_string(std::string x) {
    Value v; v.tag = Tag::String; v.str = std::move(x); return v;
  }
  static Value of_scalar(Scalar s) { Value v; v.tag = Tag::Scalar; v.scalar = s; return v; }
  static Value of_ints(Dims x) {
    Value v; v.tag = Tag::IntList; v.ints = std::move(x); return v;
  }
  static Value of_tensors(std::vector<Tensor> x) {
    Value v; v.tag = Tag::TensorList; v.tensors = std::move(x); return v;
  }
  static Value of_dtype(ScalarType t) { Value v; v.tag = Tag::Dtype; v.dtype = t; return v; }
  static Value of_device(Device d) { Value v; v.tag = Tag::Device; v.device = d; return v; }
};

}  // namespace tn
