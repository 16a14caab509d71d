// The binder (see binder.h): parsing Python calls against upstream's schemas and converting
// results back. No Python frame runs between the call and the kernel.
#include "python/binder.h"
#include "python/return_types.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>

#include "core/half.h"
#include "core/warning.h"
#include "dispatch/kernel.h"
#include "dispatch/registry.h"
#include "dispatch/schema.h"
#include "python/device.h"
#include "python/dtype.h"
#include "python/errors.h"
#include "python/tensor.h"

namespace tn::py {

bool generator_of(PyObject* obj, Ptr<Generator>* out);  // generator.cpp
PyObject* generator_object(const Ptr<Generator>& g);     // generator.cpp
PyObject* storage_object(const Storage& s);              // storage.cpp
bool is_storage(PyObject* o);                           // storage.cpp
bool custom_object_of(PyObject* o, Ptr<CustomObject>* out);  // jit.cpp
PyObject* script_object(const Ptr<CustomObject>& obj);       // jit.cpp
Storage storage_of(PyObject* o);

namespace {

struct SigRow {
  bool is_method;
  const char* module;
  const char* name;
  const char* base;
  const char* out;
};

const SigRow kSigRows[] = {
#include "py_signatures.inc"
};

int resolve(const char* key) {
  std::string k = key;
  size_t sep = k.find("::");
  std::string rest = k.substr(sep + 2);
  size_t dot = rest.find('.');
  return find_op(k.substr(0, sep), rest.substr(0, dot),
                 dot == std::string::npos ? "" : rest.substr(dot + 1));
}

using SigKey = std::tuple<bool, std::string, std::string>;

const std::map<SigKey, std::vector<Overload>>& sig_table() {
  static const auto* table = [] {
    auto* t = new std::map<SigKey, std::vector<Overload>>;
    for (const SigRow& r : kSigRows) {
      int base = resolve(r.base);
      if (base < 0) continue;
      int out = r.out[0] ? resolve(r.out) : -1;
      (*t)[{r.is_method, r.module, r.name}].push_back({base, out});
    }
    return t;
  }();
  return *table;
}

// Note [Ints past int64]: upstream's parser picks an overload by an argument's Python type, then
// unpacks it, so an int too wide for int64 selects the overload and fails there: OverflowError
// "int too big to convert" for a Scalar, ValueError "Overflow when unpacking long long" for an
// int, TypeError "...failed to unpack the object at pos N..." inside an int list. The binder
// matches by value, so a too-wide int matches as 0 and records here what to raise once its
// overload is chosen (reset per binding attempt, read by call_overloads).
// torch.ops spellings bind through upstream's JIT schema matcher instead, which refuses such an
// int or int list with RuntimeError "aten::sum() Expected a value of type 'Optional[List[int]]'
// for argument 'dim' but instead found type 'list'." (a Scalar still raises OverflowError).
enum class WideInt { None, Int, Scalar, InList };
struct WideIntSeen {
  WideInt kind = WideInt::None;
  const char* arg = "";               // the list argument's name (InList)
  size_t pos = 0;                     // 1-based position in that list (InList)
  const Argument* where = nullptr;    // the schema argument it came in
  PyObject* value = nullptr;          // what was passed there (borrowed: alive for the call)
};
thread_local WideIntSeen t_wide;

void note_wide(WideInt k) {
  if (t_wide.kind == WideInt::None) t_wide.kind = k;
}

// The JIT's name for a schema type in its matcher's messages: int-like bases are 'int'.
std::string jit_type_name(const SchemaType& t) {
  std::string s = t.base == "float" || t.base == "SymFloat" ? "float" : "int";
  if (t.is_list) s = "List[" + s + "]";
  return t.optional ? "Optional[" + s + "]" : s;
}

// torch.ops' refusal of a too-wide int (Note [Ints past int64]), in upstream's words.
PyObject* raise_wide_int_jit(const FunctionSchema& s) {
  const Argument& a = *t_wide.where;
  PyObject* repr = PyObject_Repr(t_wide.value);
  if (!repr) return nullptr;
  const char* type = Py_TYPE(t_wide.value)->tp_name;
  PyErr_Format(PyExc_RuntimeError,
               "%s() Expected a value of type '%s' for argument '%s' but instead found type "
               "'%s'.\nPosition: %zd\nValue: %U\nDeclaration: %s\nCast error details: Unable to "
               "cast Python instance of type <class '%s'> to C++ type '?' (#define "
               "PYBIND11_DETAILED_ERROR_MESSAGES or compile in debug mode for details)",
               s.name.c_str(), jit_type_name(a.type).c_str(), a.name.c_str(), type,
               static_cast<Py_ssize_t>(&a - s.arguments.data()), repr, s.str().c_str(), type);
  Py_DECREF(repr);
  return nullptr;
}

// Raises what upstream raises for the recorded too-wide int (Note [Ints past int64]).
PyObject* raise_wide_int(const char* display_name, const FunctionSchema& s, bool schema_names) {
  if (schema_names && t_wide.kind != WideInt::Scalar && t_wide.where)
    return raise_wide_int_jit(s);
  switch (t_wide.kind) {
    case WideInt::Scalar: PyErr_SetString(PyExc_OverflowError, "int too big to convert"); break;
    case WideInt::Int:
      PyErr_SetString(PyExc_ValueError, "Overflow when unpacking long long");
      break;
    default:
      PyErr_Format(PyExc_TypeError,
                   "%s(): argument '%s' failed to unpack the object at pos %zu with error "
                   "\"Overflow when unpacking long long\"",
                   display_name, t_wide.arg, t_wide.pos);
  }
  return nullptr;
}

bool is_int_like(PyObject* o) {
  if (PyBool_Check(o)) return false;
  if (PyLong_Check(o)) return true;
  if (PyFloat_Check(o) || is_tensor(o)) return false;
  return PyIndex_Check(o);
}

bool as_int(PyObject* o, int64_t* v) {
  if (PyLong_CheckExact(o)) {  // the common case: a plain int
    int overflow = 0;
    long long r = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow) note_wide(WideInt::Int);
    *v = overflow ? 0 : r;
    return true;
  }
  if (PyBool_Check(o) || PyFloat_Check(o)) return false;
  if (is_tensor(o)) {  // a 0-dim integral tensor counts (upstream: THPUtils_checkIndex)
    TensorImpl* t = impl_of(o);
    if (t->dim() != 0 || is_floating(t->dtype()) || t->dtype() == ScalarType::Bool) return false;
  }
  if (!PyLong_Check(o) && !PyIndex_Check(o)) return false;
  PyObject* idx = PyNumber_Index(o);
  if (!idx) {
    PyErr_Clear();
    return false;
  }
  int overflow = 0;
  long long r = PyLong_AsLongLongAndOverflow(idx, &overflow);
  Py_DECREF(idx);
  if (overflow || (r == -1 && PyErr_Occurred())) {
    PyErr_Clear();
    return false;
  }
  *v = r;
  return true;
}

// Reads one element of a 0-dim dense CPU tensor as a Scalar of its dtype's kind.
bool tensor_scalar(TensorImpl* t, Scalar* s) {
  if (t->dim() != 0 || t->representation() != Representation::DenseCPU) return false;
  if (t->requires_grad() || !t->storage_holds()) return false;  // the kernel then refuses it
  const void* p = t->data_unchecked();
  switch (t->dtype()) {
    case ScalarType::Bool: *s = Scalar::from_bool(*static_cast<const bool*>(p)); return true;
    case ScalarType::Byte: *s = Scalar::from_int(*static_cast<const uint8_t*>(p)); return true;
    case ScalarType::Char: *s = Scalar::from_int(*static_cast<const int8_t*>(p)); return true;
    case ScalarType::Short: *s = Scalar::from_int(*static_cast<const int16_t*>(p)); return true;
    case ScalarType::Int: *s = Scalar::from_int(*static_cast<const int32_t*>(p)); return true;
    case ScalarType::Long: *s = Scalar::from_int(*static_cast<const int64_t*>(p)); return true;
    case ScalarType::Half:
      *s = Scalar::from_double(*static_cast<const Half*>(p));
      return true;
    case ScalarType::BFloat16:
      *s = Scalar::from_double(*static_cast<const BFloat16*>(p));
      return true;
    case ScalarType::Float: *s = Scalar::from_double(*static_cast<const float*>(p)); return true;
    case ScalarType::Double: *s = Scalar::from_double(*static_cast<const double*>(p)); return true;
    case ScalarType::ComplexFloat: {
      const float* z = static_cast<const float*>(p);
      *s = Scalar::from_complex(z[0], z[1]);
      return true;
    }
    case ScalarType::ComplexDouble: {
      const double* z = static_cast<const double*>(p);
      *s = Scalar::from_complex(z[0], z[1]);
      return true;
    }
    default: return false;
  }
}

bool as_double(PyObject* o, double* v) {
  if (PyFloat_Check(o)) {
    *v = PyFloat_AS_DOUBLE(o);
    return true;
  }
  if (PyLong_Check(o)) {  // bool included, as upstream's THPUtils_checkDouble
    *v = PyLong_AsDouble(o);
    if (*v == -1 && PyErr_Occurred()) {
      PyErr_Clear();
      return false;
    }
    return true;
  }
  if (is_tensor(o)) {
    Scalar s;
    if (!tensor_scalar(impl_of(o), &s)) return false;
    *v = s.to_double();
    return true;
  }
  return false;
}

// A numpy scalar (numpy.int64, numpy.float32, numpy.bool, numpy.complex64...) as the Python
// number of its kind, as upstream's argument parser takes them (its is_numpy_scalar). numpy's
// float64 and complex128 already are Python floats and complexes (complex64 is read as its real
// part, as upstream does); the rest are recognised by their type's name, so numpy need not be
// imported.
bool numpy_scalar(PyObject* o, Scalar* s) {
  const char* name = Py_TYPE(o)->tp_name;
  if (std::strncmp(name, "numpy.", 6) != 0) return false;
  const char* kind = name + 6;
  if (std::strncmp(kind, "bool", 4) == 0) {
    int truth = PyObject_IsTrue(o);
    if (truth < 0) return PyErr_Clear(), false;
    *s = Scalar::from_bool(truth != 0);
    return true;
  }
  if (std::strncmp(kind, "int", 3) == 0 || std::strncmp(kind, "uint", 4) == 0) {
    PyObject* i = PyNumber_Index(o);
    if (!i) return PyErr_Clear(), false;
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(i, &overflow);
    Py_DECREF(i);
    if (overflow || (v == -1 && PyErr_Occurred())) return PyErr_Clear(), false;
    *s = Scalar::from_int(v);
    return true;
  }
  if (std::strncmp(kind, "float", 5) == 0 || std::strncmp(kind, "longdouble", 10) == 0) {
    double v = PyFloat_AsDouble(o);
    if (v == -1.0 && PyErr_Occurred()) return PyErr_Clear(), false;
    *s = Scalar::from_double(v);
    return true;
  }
  if (std::strncmp(kind, "complex", 7) == 0 || std::strncmp(kind, "clongdouble", 11) == 0) {
    // Upstream reads these as a double: their real part, with numpy's own ComplexWarning.
    double v = PyFloat_AsDouble(o);
    if (v == -1.0 && PyErr_Occurred()) return PyErr_Clear(), false;
    *s = Scalar::from_double(v);
    return true;
  }
  return false;
}

bool as_scalar(PyObject* o, Scalar* s) {
  if (PyBool_Check(o)) {
    *s = Scalar::from_bool(o == Py_True);
    return true;
  }
  if (PyLong_Check(o)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow) note_wide(WideInt::Scalar);
    *s = Scalar::from_int(overflow ? 0 : v);
    return true;
  }
  if (PyFloat_Check(o)) {
    *s = Scalar::from_double(PyFloat_AS_DOUBLE(o));
    return true;
  }
  if (PyComplex_Check(o)) {
    *s = Scalar::from_complex(PyComplex_RealAsDouble(o), PyComplex_ImagAsDouble(o));
    return true;
  }
  if (is_tensor(o)) return tensor_scalar(impl_of(o), s);
  return numpy_scalar(o, s);
}

bool is_sequence(PyObject* o) { return PyTuple_Check(o) || PyList_Check(o); }

// n Python ints as an int list, into a fresh slot.
bool ints_value(PyObject* const* items, Py_ssize_t n, Value* v) {
  v->ints.resize(static_cast<size_t>(n));
  for (Py_ssize_t i = 0; i < n; ++i) {
    WideInt before = t_wide.kind;
    if (!as_int(items[i], &v->ints[i])) return false;
    if (before == WideInt::None && t_wide.kind == WideInt::Int) {
      t_wide.kind = WideInt::InList;
      t_wide.pos = static_cast<size_t>(i) + 1;
    }
  }
  v->tag = Value::Tag::IntList;
  return true;
}

bool list_value(PyObject* o, const SchemaType& t, Value* v) {
  if (t.extra_list_depth > 0) return false;  // lists of lists: not bindable yet
  if (t.kind == TypeKind::Int) {
    int64_t single;
    if (!is_sequence(o) && t.list_size > 0 && as_int(o, &single)) {  // int[N] takes a bare int
      *v = Value::of_ints(std::vector<int64_t>(t.list_size, single));
      return true;
    }
    if (!is_sequence(o)) return false;
    return ints_value(PySequence_Fast_ITEMS(o), PySequence_Fast_GET_SIZE(o), v);
  }
  if (!is_sequence(o)) return false;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
  if (t.kind == TypeKind::Tensor) {
    Value r;
    r.tag = t.elem_optional ? Value::Tag::OptTensorList : Value::Tag::TensorList;
    r.tensors.reserve(static_cast<size_t>(n));
    for (Py_ssize_t i = 0; i < n; ++i) {
      PyObject* e = PySequence_Fast_GET_ITEM(o, i);
      if (e == Py_None && t.elem_optional) {
        r.tensors.emplace_back();
      } else if (is_tensor(e)) {
        r.tensors.emplace_back(impl_of(e));
      } else {
        return false;
      }
    }
    *v = std::move(r);
    return true;
  }
  if (t.kind == TypeKind::Float) {
    Value r;
    r.tag = Value::Tag::DoubleList;
    r.doubles.reserve(static_cast<size_t>(n));
    for (Py_ssize_t i = 0; i < n; ++i) {
      double d;
      if (!as_double(PySequence_Fast_GET_ITEM(o, i), &d)) return false;
      r.doubles.push_back(d);
    }
    *v = std::move(r);
    return true;
  }
  if (t.kind == TypeKind::Scalar) {
    Value r;
    r.tag = Value::Tag::ScalarList;
    r.scalars.reserve(static_cast<size_t>(n));
    for (Py_ssize_t i = 0; i < n; ++i) {
      Scalar sc;
      if (!as_scalar(PySequence_Fast_GET_ITEM(o, i), &sc)) return false;
      r.scalars.push_back(sc);
    }
    *v = std::move(r);
    return true;
  }
  if (t.kind == TypeKind::Bool) {
    Value r;
    r.tag = Value::Tag::BoolList;
    for (Py_ssize_t i = 0; i < n; ++i) {
      PyObject* e = PySequence_Fast_GET_ITEM(o, i);
      if (!PyBool_Check(e)) return false;
      r.bools.push_back(e == Py_True);
    }
    *v = std::move(r);
    return true;
  }
  return false;
}

}  // namespace

namespace {

// Ops whose Tensor parameters also take Python numbers (as upstream's parser allows for them).
bool allows_numbers_as_tensors(const char* op_name) {
  static const char* const kNames[] = {
      "add", "add_", "div", "div_", "divide", "divide_", "mul", "mul_", "multiply", "multiply_",
      "sub", "sub_", "subtract", "subtract_", "true_divide", "true_divide_", "floor_divide",
      "floor_divide_", "copy_", "_to_copy", "to", "_conj"};
  for (const char* n : kNames)
    if (std::strcmp(n, op_name) == 0) return true;
  return false;
}

// A Python number as a 0-dim wrapped-number tensor: int -> int64, float -> float64, bool.
Tensor wrapped_number(PyObject* o) {
  Scalar s;
  if (!as_scalar(o, &s)) return Tensor();
  Tensor t = empty_tensor({}, s.default_dtype(), Device{});
  void* p = t->data_unchecked();
  if (s.is_complex()) {
    static_cast<double*>(p)[0] = s.d;
    static_cast<double*>(p)[1] = s.im;
  } else if (s.is_floating()) *static_cast<double*>(p) = s.d;
  else if (s.is_bool()) *static_cast<bool*>(p) = s.b;
  else *static_cast<int64_t*>(p) = s.i;
  t->set_wrapped_number(true);
  return t;
}

thread_local const char* t_binding_op = "";  // the op whose schema is being bound
// Note [Enums are ints in torch.ops]: upstream's JIT types ScalarType, Layout and MemoryFormat as
// int, so torch.ops spellings take a plain int (or bool) for them beside the torch objects and
// return ScalarType results as ints (torch.ops.aten.promote_types.default(6, 4) is 6). Set while
// binding a torch.ops call. An int outside an enum's range does not fit (upstream's build reads
// past its tables there; ours refuses with the matcher's RuntimeError).
thread_local bool t_enums_as_ints = false;

// An int naming an enum value in torch.ops (Note [Enums are ints in torch.ops]).
bool enum_int(PyObject* o, long long limit, long long* out) {
  if (!t_enums_as_ints || !PyLong_Check(o)) return false;
  int overflow = 0;
  long long x = PyLong_AsLongLongAndOverflow(o, &overflow);
  if (overflow || x < 0 || x >= limit) {
    PyErr_Clear();
    return false;
  }
  *out = x;
  return true;
}

// upstream's c10::MemoryFormat numbering: Contiguous 0, Preserve 1, ChannelsLast 2, 3d 3.
MemoryFormatKind memory_format_of_int(long long x) {
  switch (x) {
    case 0: return MemoryFormatKind::Contiguous;
    case 1: return MemoryFormatKind::Preserve;
    case 2: return MemoryFormatKind::ChannelsLast;
    default: return MemoryFormatKind::ChannelsLast3d;
  }
}

}  // namespace

static bool to_value_of(PyObject* o, const Argument& arg, Value* v);

// v is a fresh (None) slot: the kinds below set only their own fields. Also records the argument
// a too-wide int first came in (Note [Ints past int64]).
// torch.storage.TypedStorage (borrowed; cached once torch.storage is imported), or null.
PyObject* typed_storage_class() {
  static PyObject* cls = nullptr;
  if (cls) return cls;
  PyObject* mod = PyImport_ImportModule("torch.storage");
  if (!mod) {
    PyErr_Clear();
    return nullptr;
  }
  cls = PyObject_GetAttrString(mod, "TypedStorage");
  Py_DECREF(mod);
  if (!cls) PyErr_Clear();
  return cls;
}

bool to_value(PyObject* o, const Argument& arg, Value* v) {
  WideInt before = t_wide.kind;
  bool ok = to_value_of(o, arg, v);
  if (before == WideInt::None && t_wide.kind != WideInt::None) {
    t_wide.where = &arg;
    t_wide.value = o;
  }
  return ok;
}

static bool to_value_of(PyObject* o, const Argument& arg, Value* v) {
  const SchemaType& t = arg.type;
  if (o == Py_None) {
    if (!t.optional) return false;
    v->tag = Value::Tag::None;  // v is a fresh slot: only the tag says what it holds
    return true;
  }
  if (t.is_list) {
    WideInt before = t_wide.kind;
    if (!list_value(o, t, v)) return false;
    if (before == WideInt::None && t_wide.kind == WideInt::InList) t_wide.arg = arg.name.c_str();
    return true;
  }
  switch (t.kind) {
    case TypeKind::Tensor: {
    if (!is_tensor(o)) {
      Scalar ignored;
      if (PyLong_Check(o) || PyFloat_Check(o) || PyComplex_Check(o) ||  // bool: an int
          numpy_scalar(o, &ignored)) {
        if (!allows_numbers_as_tensors(t_binding_op)) return false;
        Tensor w = wrapped_number(o);
        if (!w) return false;
        v->tag = Value::Tag::Tensor;
        v->tensor = std::move(w);
        return true;
      }
      return false;
    }
    v->tag = Value::Tag::Tensor;
    v->tensor = Tensor(impl_of(o));
    return true;
  }
    case TypeKind::Scalar: {
    Scalar s;
    if (!as_scalar(o, &s)) return false;
    v->tag = Value::Tag::Scalar;
    v->scalar = s;
    return true;
  }
    case TypeKind::Int: {
    int64_t x;
    if (!as_int(o, &x)) return false;
    v->tag = Value::Tag::Int;
    v->i = x;
    return true;
  }
    case TypeKind::Float: {
    double d;
    if (!as_double(o, &d)) return false;
    v->tag = Value::Tag::Double;
    v->d = d;
    return true;
  }
    case TypeKind::Bool: {
    if (!PyBool_Check(o)) return false;
    v->tag = Value::Tag::Bool;
    v->b = o == Py_True;
    return true;
  }
    case TypeKind::Str: {
    if (!PyUnicode_Check(o)) return false;
    v->tag = Value::Tag::String;
    v->str = PyUnicode_AsUTF8(o);
    return true;
  }
    case TypeKind::ScalarType: {
    ScalarType st;
    long long x;
    if (enum_int(o, kNumScalarTypes, &x)) st = static_cast<ScalarType>(x);
    else if (!as_dtype(o, &st)) return false;
    *v = Value::of_dtype(st);
    return true;
  }
    case TypeKind::Layout: {
    long long x;
    // c10::Layout: Strided 0, then the sparse and mkldnn layouts (which ours refuses later).
    if (enum_int(o, 8, &x)) {
      v->tag = Value::Tag::Layout;
      v->i = x == 0 ? 0 : 1;
      return true;
    }
    if (Py_TYPE(o) != &LayoutType) return false;
    v->tag = Value::Tag::Layout;
    v->i = o == strided_layout() ? 0 : 1;
    return true;
  }
    case TypeKind::MemoryFormat: {
    long long x;
    if (enum_int(o, 4, &x)) {
      v->tag = Value::Tag::MemoryFormat;
      v->memory_format = memory_format_of_int(x);
      return true;
    }
    if (!is_memory_format(o)) return false;
    v->tag = Value::Tag::MemoryFormat;
    v->memory_format = static_cast<MemoryFormatKind>(memory_format_of(o));
    return true;
  }
    case TypeKind::Device: {
    if (!is_device(o) && !PyUnicode_Check(o) && !(PyLong_Check(o) && !PyBool_Check(o)))
      return false;
    Device d;
    if (!parse_device(o, &d)) throw PythonErrorSet();
    *v = Value::of_device(d);
    return true;
  }
    case TypeKind::Generator: {
    Ptr<Generator> g;
    if (!generator_of(o, &g)) return false;
    v->tag = Value::Tag::Generator;
    v->generator = g;
    return true;
  }
    case TypeKind::Storage: {
    // A torch.TypedStorage (what Tensor.__deepcopy__ and the legacy loaders pass) binds as the
    // untyped storage it wraps, as upstream's parser takes it.
    if (!is_storage(o)) {
      PyObject* typed = typed_storage_class();
      if (!typed || PyObject_IsInstance(o, typed) != 1) {
        PyErr_Clear();
        return false;
      }
      PyObject* u = PyObject_GetAttrString(o, "_untyped_storage");
      bool ok = u && is_storage(u);
      if (ok) v->storage = storage_of(u);
      Py_XDECREF(u);
      if (!ok) {
        PyErr_Clear();
        return false;
      }
      v->tag = Value::Tag::Storage;
      return true;
    }
    v->tag = Value::Tag::Storage;
    v->storage = storage_of(o);
    return true;
  }
    case TypeKind::Object: {
    // Only an object of the class the schema names: a kernel casts it to that class.
    Ptr<CustomObject> obj;
    if (!custom_object_of(o, &obj) || t.base != obj->qualified_name()) return false;
    v->tag = Value::Tag::Object;
    v->object = std::move(obj);
    return true;
  }
    case TypeKind::Other:
      break;
  }
  return false;  // Dimname, Stream, ...: not bindable yet
}

namespace {

// The Python-visible name of argument a (functions call `self` `input`).
// A keyword names argument a: its schema name, or (Python-facing) upstream's spellings: self
// as `input` when it comes first, and numpy's names (dim as axis, keepdim as keepdims, input as
// x, a or x1, other as x2).
bool name_matches(const Argument& a, const char* kw, bool schema_names, bool is_first) {
  if (std::strcmp(a.name.c_str(), kw) == 0) return true;
  if (schema_names) return false;
  const bool input = a.name == "input" || (is_first && a.name == "self");
  if (is_first && a.name == "self" && std::strcmp(kw, "input") == 0) return true;
  if (a.name == "dim") return std::strcmp(kw, "axis") == 0;
  if (a.name == "keepdim") return std::strcmp(kw, "keepdims") == 0;
  if (a.name == "other") return std::strcmp(kw, "x2") == 0;
  return input && (std::strcmp(kw, "x") == 0 || std::strcmp(kw, "a") == 0 ||
                   std::strcmp(kw, "x1") == 0);
}

struct Bound {
  std::vector<Value> values;
  // The Python object each value came from (or nullptr); inline for schemas of up to 32
  // arguments (all of upstream's but a handful), so that binding allocates nothing.
  PyObject* sources_local[32];
  std::vector<PyObject*> sources_heap;
  PyObject** sources = sources_local;
  bool values_dirty = false;  // an earlier binding attempt left values in `values`

  void clear_sources(size_t n) {
    if (n > 32) {
      sources_heap.assign(n, nullptr);
      sources = sources_heap.data();
      return;
    }
    sources = sources_local;
    for (size_t i = 0; i < n; ++i) sources_local[i] = nullptr;
  }
  bool requires_grad = false;
  // A factory's tensor options given beside out= (torch.zeros(3, dtype=..., out=t)): upstream's
  // signature has them, the .out schema does not; they must match out (check_out_options).
  std::optional<ScalarType> out_dtype;
  std::optional<Device> out_device;
  std::optional<bool> out_layout_strided;
};

// Takes dtype/layout/device/pin_memory given with out= to an .out schema that lacks them.
// False when the value is not of its kind (the call does not fit).
bool take_out_option(const char* kw, PyObject* val, Bound* b) {
  if (val == Py_None) return true;
  if (std::strcmp(kw, "dtype") == 0) {
    ScalarType t;
    if (!as_dtype(val, &t)) return false;
    b->out_dtype = t;
    return true;
  }
  if (std::strcmp(kw, "layout") == 0) {
    if (Py_TYPE(val) != &LayoutType) return false;
    b->out_layout_strided = val == strided_layout();
    return true;
  }
  if (std::strcmp(kw, "device") == 0) {
    if (!is_device(val) && !PyUnicode_Check(val) && !(PyLong_Check(val) && !PyBool_Check(val)))
      return false;
    Device d;
    if (!parse_device(val, &d)) throw PythonErrorSet();
    b->out_device = d;
    return true;
  }
  return PyBool_Check(val);  // pin_memory: upstream ignores it beside out=
}

bool is_out_option(const char* kw) {
  return std::strcmp(kw, "dtype") == 0 || std::strcmp(kw, "layout") == 0 ||
         std::strcmp(kw, "device") == 0 || std::strcmp(kw, "pin_memory") == 0;
}



// Upstream's check_out_type_matches: the options given beside out= must describe out.
void check_out_options(const FunctionSchema& s, const Bound& b) {
  if (!b.out_dtype && !b.out_device && !b.out_layout_strided) return;
  const TensorImpl* out = nullptr;
  for (size_t i = 0; i < s.arguments.size(); ++i)
    if (s.arguments[i].is_out && b.values[i].tag == Value::Tag::Tensor) out = b.values[i].tensor.get();
  if (!out) return;
  if (b.out_dtype && *b.out_dtype != out->dtype())
    TN_FAIL(Runtime, "dtype ", enum_name(*b.out_dtype), " does not match dtype of out "
            "parameter (", enum_name(out->dtype()), ")");
  if (b.out_layout_strided && !*b.out_layout_strided)
    TN_FAIL(Runtime, "layout Sparse does not match layout of out parameter (Strided)");
  if (b.out_device && b.out_device->type != out->device().type)
    TN_FAIL(Runtime, "device type ", device_type_name(b.out_device->type), " does not match device "
            "type of out parameter (", device_type_name(out->device().type), ")");
}

bool names_argument(const FunctionSchema& s, const char* kw) {
  for (const Argument& a : s.arguments)
    if (a.name == kw) return true;
  return false;
}

// Note [Binding plans]: what binding needs to know of a schema beyond the call itself (where a
// method's self goes, which parameters take positional arguments, the out= arguments, the
// defaults as ready Values) is worked out the first time its op is bound and kept per op index,
// so the per-call path does no name compares and no schema walks. Plans are built and read with
// the GIL held (every binding holds it): one table serves every thread.
struct BindPlan {
  const FunctionSchema* schema = nullptr;
  bool has_out = false;
  size_t self_at = 0;                       // where a method's self binds: `self`, else the first
  std::vector<uint16_t> positional;         // parameters before the keyword-only marker
  std::vector<uint16_t> positional_method;  // the same without self_at
  std::vector<uint16_t> outs;               // the out= arguments, in order
  bool defaults_ready = false;              // `defaults` filled (the first time one is needed)
  std::vector<Value> defaults;              // parsed from the schema text; None where none
};

std::unique_ptr<BindPlan> make_plan(const FunctionSchema& s) {
  auto p = std::make_unique<BindPlan>();
  p->schema = &s;
  size_t n = s.arguments.size();
  for (size_t i = 0; i < n; ++i)
    if (s.arguments[i].name == "self") {
      p->self_at = i;
      break;
    }
  for (size_t i = 0; i < n; ++i) {
    const Argument& a = s.arguments[i];
    if (a.is_out) p->has_out = true, p->outs.push_back(static_cast<uint16_t>(i));
    if (a.kwarg_only) continue;
    p->positional.push_back(static_cast<uint16_t>(i));
    if (i != p->self_at) p->positional_method.push_back(static_cast<uint16_t>(i));
  }
  return p;
}

BindPlan& plan_of(int op) {
  static std::vector<std::unique_ptr<BindPlan>> plans;
  const FunctionSchema& s = schema_of(op);
  if (static_cast<size_t>(op) >= plans.size())
    plans.resize(std::max(all_ops().size(), static_cast<size_t>(op) + 1));
  std::unique_ptr<BindPlan>& p = plans[op];
  if (!p || p->schema != &s) p = make_plan(s);
  return *p;
}

const std::vector<Value>& plan_defaults(BindPlan& p) {
  if (!p.defaults_ready) {
    const FunctionSchema& s = *p.schema;
    p.defaults.resize(s.arguments.size());
    for (size_t k = 0; k < s.arguments.size(); ++k)
      if (s.arguments[k].default_text) p.defaults[k] = default_value(s.arguments[k]);
    p.defaults_ready = true;
  }
  return p.defaults;
}

// Puts a default into a fresh (None) slot: nothing for None, the plain fields for the kinds
// that have no heap part, a full copy otherwise.
void put_default(const Value& d, Value* v) {
  switch (d.tag) {
    case Value::Tag::None: return;
    case Value::Tag::Int: case Value::Tag::Double: case Value::Tag::Bool:
    case Value::Tag::Scalar: case Value::Tag::Dtype: case Value::Tag::Device:
    case Value::Tag::Layout: case Value::Tag::MemoryFormat:
      v->tag = d.tag, v->i = d.i, v->d = d.d, v->b = d.b, v->scalar = d.scalar;
      v->dtype = d.dtype, v->device = d.device, v->memory_format = d.memory_format;
      return;
    default: *v = d;
  }
}

// A small array on the stack, on the heap past N elements (a schema's argument count).
template <typename T, size_t N>
struct Scratch {
  T local[N];
  std::vector<T> heap;
  T* p;
  explicit Scratch(size_t n) : p(local) {
    if (n > N) heap.resize(n), p = heap.data();
  }
  T& operator[](size_t i) { return p[i]; }
};

// Tries to bind one schema; false when the call does not fit it.
bool bind_schema(BindPlan& plan, PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                 PyObject* kwnames, bool schema_names, Bound* b) {
  const FunctionSchema& s = *plan.schema;
  size_t n = s.arguments.size();
  b->values.resize(n);
  if (b->values_dirty)
    for (Value& v : b->values) v.reset();  // every slot None (they come lent that way)
  b->values_dirty = true;
  b->out_dtype.reset(), b->out_device.reset(), b->out_layout_strided.reset();
  b->clear_sources(n);
  Scratch<uint8_t, 32> filled(n);
  for (size_t i = 0; i < n; ++i) filled[i] = false;
  // A method's self binds the argument named self (where.self(Tensor condition, Tensor self,
  // Tensor other): x.where(c, y) is where(c, x, y)), else the first.
  constexpr size_t kNone = static_cast<size_t>(-1);
  size_t self_at = kNone;
  if (self) {
    self_at = plan.self_at;
    if (n == 0 || s.arguments[self_at].type.kind != TypeKind::Tensor) return false;
    b->values[self_at].tag = Value::Tag::Tensor;
    b->values[self_at].tensor = Tensor(impl_of(self));
    b->sources[self_at] = self;
    filled[self_at] = true;
  }
  // Positional parameters: those before the keyword-only marker.
  const std::vector<uint16_t>& positional = self ? plan.positional_method : plan.positional;
  size_t npositional = positional.size();
  Py_ssize_t used = 0;
  // A lone int-list parameter takes the positional ints themselves: x.view(2, 3).
  if (npositional == 1 && nargs >= 1 && s.arguments[positional[0]].type.is_list &&
      s.arguments[positional[0]].type.kind == TypeKind::Int &&
      is_int_like(args[0])) {
    if (s.arguments[positional[0]].type.extra_list_depth > 0 ||
        !ints_value(args, nargs, &b->values[positional[0]]))
      return false;
    filled[positional[0]] = true;
    used = nargs;
  }
  for (; used < nargs; ++used) {
    if (static_cast<size_t>(used) >= npositional) return false;
    size_t i = positional[used];
    if (!to_value(args[used], s.arguments[i], &b->values[i])) return false;
    b->sources[i] = args[used];
    filled[i] = true;
  }
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t k = 0; k < nkw; ++k) {
    const char* kw = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, k));
    PyObject* val = args[nargs + k];
    if (std::strcmp(kw, "requires_grad") == 0 && !schema_names) {
      if (!PyBool_Check(val)) return false;
      b->requires_grad = val == Py_True;
      continue;
    }
    if (std::strcmp(kw, "out") == 0 && !schema_names) {
      const std::vector<uint16_t>& outs = plan.outs;
      if (outs.empty()) {
        if (val == Py_None) continue;
        return false;
      }
      if (outs.size() == 1 && s.arguments[outs[0]].type.is_list) {  // one Tensor[] out
        if (!to_value(val, s.arguments[outs[0]], &b->values[outs[0]])) return false;
        b->sources[outs[0]] = val;
        filled[outs[0]] = true;
        continue;
      }
      if (outs.size() == 1) {
        if (!is_tensor(val)) return false;
        b->values[outs[0]] = Value::of(Tensor(impl_of(val)));
        b->sources[outs[0]] = val;
        filled[outs[0]] = true;
        continue;
      }
      if (!is_sequence(val) || PySequence_Fast_GET_SIZE(val) != static_cast<Py_ssize_t>(outs.size()))
        return false;
      for (size_t j = 0; j < outs.size(); ++j) {
        PyObject* e = PySequence_Fast_GET_ITEM(val, j);
        if (!is_tensor(e)) return false;
        b->values[outs[j]] = Value::of(Tensor(impl_of(e)));
        b->sources[outs[j]] = e;
        filled[outs[j]] = true;
      }
      continue;
    }
    if (!schema_names && is_out_option(kw) && plan.has_out && !names_argument(s, kw)) {
      if (!take_out_option(kw, val, b)) return false;
      continue;
    }
    bool found = false;
    for (size_t i = 0; i < n; ++i) {
      if (i == self_at) continue;
      if (!name_matches(s.arguments[i], kw, schema_names, i == 0)) continue;
      if (filled[i] || (s.arguments[i].is_out && !schema_names)) return false;
      if (!to_value(val, s.arguments[i], &b->values[i])) return false;
      b->sources[i] = val;
      filled[i] = true;
      found = true;
      break;
    }
    if (!found) return false;
  }
  // Defaults for what was not given; a missing required argument means no fit.
  const std::vector<Value>* defaults = nullptr;
  for (size_t i = 0; i < n; ++i) {
    if (filled[i]) continue;
    if (!s.arguments[i].default_text) return false;
    if (!defaults) defaults = &plan_defaults(plan);
    put_default((*defaults)[i], &b->values[i]);
  }
  return true;
}

// Why a torch.ops call (schema names, one overload) does not fit its schema, in the words of
// upstream's JIT argument matcher (a RuntimeError there, not the TypeError of torch.X).
std::string schema_mismatch(const FunctionSchema& s, const OpInfo& op, PyObject* const* args,
                            Py_ssize_t nargs, PyObject* kwnames) {
  std::string qual = std::string(op.ns) + "::" + op.name;
  std::string decl = s.str();
  size_t n = s.arguments.size(), npositional = 0;
  for (const Argument& a : s.arguments) npositional += !a.kwarg_only;
  if (static_cast<size_t>(nargs) > n)
    return qual + "() expected at most " + std::to_string(n) + " argument(s) but received " +
           std::to_string(nargs) + " argument(s). Declaration: " + decl;
  if (static_cast<size_t>(nargs) > npositional)
    return qual + "() takes " + std::to_string(npositional) + " positional argument(s) but " +
           std::to_string(nargs) + " was/were given.  Declaration: " + decl;
  auto mismatch = [&](const Argument& a, PyObject* v, size_t position) {
    std::string type = a.type.kind == TypeKind::Scalar && !a.type.is_list ? "number" : a.type.str();
    bool enum_kind = a.type.kind == TypeKind::ScalarType || a.type.kind == TypeKind::Layout ||
                     a.type.kind == TypeKind::MemoryFormat;
    if (enum_kind && !a.type.is_list) type = a.type.optional ? "Optional[int]" : "int";
    if (enum_kind && !a.type.is_list && PyLong_Check(v)) {  // an int past the enum's range
      PyObject* r = PyObject_Repr(v);
      std::string value = r ? PyUnicode_AsUTF8(r) : "?";
      Py_XDECREF(r);
      PyErr_Clear();
      const char* kind = a.type.kind == TypeKind::ScalarType ? "ScalarType"
                         : a.type.kind == TypeKind::Layout  ? "Layout"
                                                            : "MemoryFormat";
      return qual + "(): argument '" + a.name + "' is " + value + ", which names no " + kind +
             " (upstream's matcher takes it unchecked).\nPosition: " +
             std::to_string(position) + "\nDeclaration: " + decl;
    }
    PyObject* r = PyObject_Repr(v);
    std::string value = r ? PyUnicode_AsUTF8(r) : "?";
    Py_XDECREF(r);
    PyErr_Clear();
    return qual + "() Expected a value of type '" + type + "' for argument '" + a.name +
           "' but instead found type '" + Py_TYPE(v)->tp_name + "'.\nPosition: " +
           std::to_string(position) + "\nValue: " + value + "\nDeclaration: " + decl;
  };
  std::vector<bool> given(n, false);
  for (Py_ssize_t i = 0; i < nargs; ++i) {
    Value v;
    given[i] = true;
    if (!to_value(args[i], s.arguments[i], &v)) return mismatch(s.arguments[i], args[i], i);
  }
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t k = 0; k < nkw; ++k) {
    const char* kw = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, k));
    size_t i = 0;
    while (i < n && s.arguments[i].name != kw) ++i;
    if (i == n)
      return "Unknown keyword argument '" + std::string(kw) + "' for operator '" + qual +
             "'. Schema: " + decl;
    Value v;
    given[i] = true;
    if (!to_value(args[nargs + k], s.arguments[i], &v))
      return mismatch(s.arguments[i], args[nargs + k], i);
  }
  for (size_t i = 0; i < n; ++i)
    if (!given[i] && !s.arguments[i].default_text)
      return qual + "() is missing value for argument '" + s.arguments[i].name +
             "'. Declaration: " + decl;
  return qual + "() could not bind its arguments. Declaration: " + decl;
}

std::string describe_call(PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                          PyObject* kwnames) {
  std::string s = "(";
  auto type_name = [](PyObject* o) {
    if (is_tensor(o)) return std::string("Tensor");
    return std::string(Py_TYPE(o)->tp_name);
  };
  bool any = false;
  if (self) {
    s += "Tensor self";
    any = true;
  }
  for (Py_ssize_t k = 0; k < nargs; ++k) {
    s += (any ? ", " : "") + type_name(args[k]);
    any = true;
  }
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t k = 0; k < nkw; ++k) {
    s += (any ? ", " : "") + std::string(PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, k))) + "=" +
         type_name(args[nargs + k]);
    any = true;
  }
  return s + ")";
}

bool out_given(PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t k = 0; k < nkw; ++k)
    if (std::strcmp(PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, k)), "out") == 0 &&
        args[nargs + k] != Py_None)
      return true;
  return false;
}

// Finds the Python object a write-aliased result came from (in-place self, out=).
PyObject* aliased_source(const FunctionSchema& s, size_t ret, const Bound& b) {
  const auto& alias = s.returns[ret].type.alias;
  if (!alias || !alias->is_write) return nullptr;
  for (size_t i = 0; i < s.arguments.size(); ++i) {
    const auto& a = s.arguments[i].type.alias;
    if (a && a->before == alias->before && b.sources[i]) return b.sources[i];
  }
  return nullptr;
}

// Tensor[] results: torch.X and Tensor.X give tuples, torch.ops.aten.X.overload (schema_names)
// gives lists, as upstream's two paths do.
PyObject* tensor_list_to_list(const Value& v) {
  PyObject* l = PyList_New(static_cast<Py_ssize_t>(v.tensors.size()));
  if (!l) return nullptr;
  for (size_t k = 0; k < v.tensors.size(); ++k) {
    PyObject* o = v.tensors[k] ? wrap_tensor(v.tensors[k]) : Py_NewRef(Py_None);
    if (!o) {
      Py_DECREF(l);
      return nullptr;
    }
    PyList_SET_ITEM(l, k, o);
  }
  return l;
}

PyObject* result_to_python(const Value& v, bool schema_names) {
  if (schema_names && v.tag == Value::Tag::Dtype)  // Note [Enums are ints in torch.ops]
    return PyLong_FromLong(static_cast<long>(v.dtype));
  bool list = v.tag == Value::Tag::TensorList || v.tag == Value::Tag::OptTensorList;
  return schema_names && list ? tensor_list_to_list(v) : to_python(v);
}

PyObject* results_to_python(const FunctionSchema& s, std::vector<Value>& results, const Bound& b,
                            bool schema_names) {
  if (results.empty()) Py_RETURN_NONE;
  if (results.size() == 1) {
    if (PyObject* src = aliased_source(s, 0, b)) return Py_NewRef(src);
    return result_to_python(results[0], schema_names);
  }
  // Named returns come back as torch.return_types' named tuple, but to torch.ops spellings.
  PyTypeObject* named = schema_names ? nullptr : return_type_of(s);
  PyObject* tuple = named ? PyStructSequence_New(named)
                          : PyTuple_New(static_cast<Py_ssize_t>(results.size()));
  if (!tuple) return nullptr;
  for (size_t k = 0; k < results.size(); ++k) {
    PyObject* src = k < s.returns.size() ? aliased_source(s, k, b) : nullptr;
    PyObject* o = src ? Py_NewRef(src) : result_to_python(results[k], schema_names);
    if (!o) {
      Py_DECREF(tuple);
      return nullptr;
    }
    if (named) PyStructSequence_SET_ITEM(tuple, static_cast<Py_ssize_t>(k), o);
    else PyTuple_SET_ITEM(tuple, k, o);
  }
  return tuple;
}

}  // namespace

PyObject* emit_kernel_warnings(PyObject* r) {
  // As upstream's: a warnings filter that makes one an error discards the result and raises it.
  if (any_warnings())
    for (const std::string& w : take_warnings())
      if (r && PyErr_WarnEx(PyExc_UserWarning, w.c_str(), 1) < 0) Py_CLEAR(r);
  return r;
}

PyObject* scalar_to_python(const Scalar& s) {
  if (s.is_complex()) return PyComplex_FromDoubles(s.d, s.im);
  if (s.is_floating()) return PyFloat_FromDouble(s.d);
  if (s.is_bool()) return PyBool_FromLong(s.b);
  return PyLong_FromLongLong(s.i);
}

PyObject* to_python(const Value& v) {
  switch (v.tag) {
    case Value::Tag::None: Py_RETURN_NONE;
    case Value::Tag::Tensor: return wrap_tensor(v.tensor);
    case Value::Tag::Int: return PyLong_FromLongLong(v.i);
    case Value::Tag::Double: return PyFloat_FromDouble(v.d);
    case Value::Tag::Bool: return PyBool_FromLong(v.b);
    case Value::Tag::Scalar: return scalar_to_python(v.scalar);
    case Value::Tag::String: return PyUnicode_FromString(v.str.c_str());
    case Value::Tag::IntList: {
      PyObject* l = PyList_New(static_cast<Py_ssize_t>(v.ints.size()));
      for (size_t k = 0; k < v.ints.size(); ++k) PyList_SET_ITEM(l, k, PyLong_FromLongLong(v.ints[k]));
      return l;
    }
    case Value::Tag::TensorList:
    case Value::Tag::OptTensorList: {
      // Upstream returns Tensor[] results as tuples (split, unbind, ...).
      PyObject* t = PyTuple_New(static_cast<Py_ssize_t>(v.tensors.size()));
      for (size_t k = 0; k < v.tensors.size(); ++k)
        PyTuple_SET_ITEM(t, k, v.tensors[k] ? wrap_tensor(v.tensors[k]) : Py_NewRef(Py_None));
      return t;
    }
    case Value::Tag::Dtype: return Py_NewRef(dtype_object(v.dtype));
    case Value::Tag::Device: return device_object(v.device);
    case Value::Tag::MemoryFormat:
      return Py_NewRef(memory_format_object(static_cast<MemoryFormat>(v.memory_format)));
    case Value::Tag::Layout:
      if (v.i == 0) return Py_NewRef(strided_layout());
      break;
    case Value::Tag::DoubleList: {
      PyObject* l = PyList_New(static_cast<Py_ssize_t>(v.doubles.size()));
      for (size_t k = 0; k < v.doubles.size(); ++k)
        PyList_SET_ITEM(l, k, PyFloat_FromDouble(v.doubles[k]));
      return l;
    }
    case Value::Tag::BoolList: {
      PyObject* l = PyList_New(static_cast<Py_ssize_t>(v.bools.size()));
      for (size_t k = 0; k < v.bools.size(); ++k) PyList_SET_ITEM(l, k, PyBool_FromLong(v.bools[k]));
      return l;
    }
    case Value::Tag::Generator: return generator_object(v.generator);
    case Value::Tag::Storage: return storage_object(v.storage);
    case Value::Tag::Object: return script_object(v.object);
    case Value::Tag::ScalarList: {
      PyObject* l = PyList_New(static_cast<Py_ssize_t>(v.scalars.size()));
      for (size_t k = 0; k < v.scalars.size(); ++k) {
        PyList_SET_ITEM(l, k, scalar_to_python(v.scalars[k]));
      }
      return l;
    }
    default: break;
  }
  PyErr_SetString(PyExc_NotImplementedError, "torchnative cannot return this value kind yet");
  return nullptr;
}

const std::vector<Overload>& python_overloads(bool is_method, const std::string& module,
                                              const std::string& name) {
  static const std::vector<Overload> none;
  auto it = sig_table().find({is_method, module, name});
  return it == sig_table().end() ? none : it->second;
}

namespace {

// Note [The GIL around small calls]
// Upstream releases the GIL for every operator call; releasing and taking it back costs about
// 400 instructions, half of what a small call costs here. A call whose arguments are all small
// (tensors, lists and numbers below kSmallWork elements) finishes in about a microsecond, so it
// keeps the GIL: no other thread could have done anything useful in that time. Anything larger
// (a big tensor, a factory's large size, arange's far end) releases it as upstream's does.
// Kernels that call Python (the Python key, torch.library kernels) take the GIL themselves.
constexpr int64_t kSmallWork = 1 << 15;

bool worth_releasing_the_gil(const std::vector<Value>& args) {
  for (const Value& v : args) {
    switch (v.tag) {
      case Value::Tag::Tensor:
        if (v.tensor && v.tensor->numel() >= kSmallWork) return true;
        break;
      case Value::Tag::TensorList:
      case Value::Tag::OptTensorList: {
        int64_t n = 0;
        for (const Tensor& t : v.tensors) n += t ? t->numel() : 0;
        if (n >= kSmallWork) return true;
        break;
      }
      case Value::Tag::IntList: {
        int64_t n = 1;
        for (int64_t d : v.ints)
          if (d >= kSmallWork || (n *= std::max<int64_t>(d, 1)) >= kSmallWork) return true;
        break;
      }
      case Value::Tag::Int:
        if (v.i >= kSmallWork || v.i <= -kSmallWork) return true;
        break;
      case Value::Tag::Double:
        if (!(std::abs(v.d) < kSmallWork)) return true;
        break;
      case Value::Tag::Scalar:
        if (!(std::abs(v.scalar.to_double()) < kSmallWork)) return true;
        break;
      case Value::Tag::Storage:
      case Value::Tag::Generator:
        return true;
      default:
        break;
    }
  }
  return false;
}

// The binder's per-thread state, reached once per call: the argument and result vectors lent
// to the door, one pair per nesting depth (a kernel may call back into Python, which binds
// again), reused from call to call with their capacity.
struct BinderState {
  struct Lent {
    std::vector<Value> args, results;
  };
  std::vector<Lent> lent;
  size_t depth = 0;
};
thread_local BinderState t_binder;

}  // namespace

PyObject* call_overloads(const char* display_name, const std::vector<Overload>& overloads,
                         PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                         PyObject* kwnames, bool schema_names, const KeySet* keys) {
  bool with_out = out_given(args, nargs, kwnames);
  BinderState& st = t_binder;
  Bound b;
  if (st.lent.size() <= st.depth) st.lent.emplace_back();
  // Taken out of the table for the call (a nested call may grow it).
  std::vector<Value> results;
  b.values.swap(st.lent[st.depth].args);
  results.swap(st.lent[st.depth].results);
  struct Keep {
    BinderState& st;
    Bound& b;
    std::vector<Value>& results;
    ~Keep() {
      --st.depth;
      // Nothing held past the call; capacity kept. The door has reset the arguments it ran.
      if (b.values_dirty)
        for (Value& v : b.values) v.reset();
      results.clear();
      b.values.swap(st.lent[st.depth].args);
      results.swap(st.lent[st.depth].results);
      if (st.depth == 0) release_dispatch_results();
    }
  } keep{st, b, results};
  ++st.depth;
  int chosen = -1;
  TN_PY_TRY
  WideIntSeen& wide = t_wide;
  struct EnumsAsInts {  // Note [Enums are ints in torch.ops]; restored for nested calls
    bool saved;
    explicit EnumsAsInts(bool on) : saved(t_enums_as_ints) { t_enums_as_ints = on; }
    ~EnumsAsInts() { t_enums_as_ints = saved; }
  } enums_as_ints(schema_names);
  for (const Overload& o : overloads) {
    int op = with_out && !schema_names ? o.out : o.base;
    if (op < 0) continue;
    BindPlan& plan = plan_of(op);
    if (!schema_names && !with_out && plan.has_out) continue;
    t_binding_op = all_ops()[op].name;
    wide = WideIntSeen{};
    bool ok = bind_schema(plan, self, args, nargs, kwnames, schema_names, &b);
    if (PyErr_Occurred()) return nullptr;
    if (ok) {
      chosen = op;
      break;
    }
  }
  if (chosen >= 0 && t_wide.kind != WideInt::None)
    return raise_wide_int(display_name, schema_of(chosen), schema_names);
  if (chosen < 0 && schema_names) {
    std::string msg;
    for (const Overload& o : overloads) {
      std::string why = schema_mismatch(schema_of(o.base), all_ops()[o.base], args, nargs, kwnames);
      msg += overloads.size() == 1 ? why : why + "\n\n";
    }
    if (overloads.size() > 1)
      msg = "Overloaded torch operator invoked from Python failed to match any schema:\n" + msg;
    PyErr_SetString(PyExc_RuntimeError, msg.c_str());
    return nullptr;
  }
  if (chosen < 0) {
    std::string msg = std::string(display_name) + "() received an invalid combination of "
                      "arguments - got " + describe_call(self, args, nargs, kwnames) +
                      ", but expected one of:";
    for (const Overload& o : overloads) {
      int op = o.base >= 0 ? o.base : o.out;
      msg += "\n * " + schema_of(op).str();
    }
    PyErr_SetString(PyExc_TypeError, msg.c_str());
    return nullptr;
  }
  const FunctionSchema& s = schema_of(chosen);
  check_out_options(s, b);
  if (any_warnings()) take_warnings();  // none left from a call that raised
  b.values_dirty = false;  // the door resets the arguments, also when the kernel throws
  if (worth_releasing_the_gil(b.values)) {
    // The kernel runs without the GIL.
    PyThreadState* state = PyEval_SaveThread();
    try {
      dispatch_lent(chosen, b.values, results, keys);
    } catch (...) {
      PyEval_RestoreThread(state);
      throw;
    }
    PyEval_RestoreThread(state);
  } else {
    dispatch_lent(chosen, b.values, results, keys);
  }
  PyObject* r = results_to_python(s, results, b, schema_names);
  if (r && b.requires_grad && is_tensor(r)) impl_of(r)->set_requires_grad(true);
  return emit_kernel_warnings(r);
  TN_PY_CATCH(nullptr)
}

}  // namespace tn::py
