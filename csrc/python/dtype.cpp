// torch.dtype and its siblings (layout, memory_format, qscheme): one immortal object per value,
// compared by identity, repr "torch.<name>", pickled by name (as upstream's).
#include "python/dtype.h"

#include "core/promotion.h"

#include <cstring>
#include <string>
#include <vector>

namespace tn::py {
namespace {

struct NamedObject {
  PyObject_HEAD
  const char* name;
  int value;
};

PyObject* dtype_objects[kNumScalarTypes];

PyObject* dtype_repr(PyObject* self) {
  return PyUnicode_FromFormat("torch.%s", name(dtype_of(self)));
}

PyObject* dtype_reduce(PyObject* self, PyObject*) {
  return PyUnicode_FromString(name(dtype_of(self)));
}

PyObject* dtype_is_floating(PyObject* self, void*) {
  return PyBool_FromLong(info(dtype_of(self)).is_floating);
}
PyObject* dtype_is_complex(PyObject* self, void*) {
  return PyBool_FromLong(info(dtype_of(self)).is_complex);
}
PyObject* dtype_is_signed(PyObject* self, void*) {
  if (std::strncmp(name(dtype_of(self)), "bits", 4) == 0) {
    PyErr_SetString(PyExc_RuntimeError, "Bits types are undefined");
    return nullptr;
  }
  return PyBool_FromLong(info(dtype_of(self)).is_signed);
}
PyObject* dtype_itemsize(PyObject* self, void*) {
  return PyLong_FromLong(itemsize(dtype_of(self)));
}

PyObject* dtype_abbr(PyObject* self, void*) {
  return PyUnicode_FromString(info(dtype_of(self)).abbr);
}

// The sub-byte integer placeholders (uint1..uint7, int1..int7): dtypes upstream names but leaves
// out of _get_all_dtypes.
bool is_sub_byte_int(ScalarType t) {
  return (t >= ScalarType::UInt1 && t <= ScalarType::UInt7) ||
         (t >= ScalarType::Int1 && t <= ScalarType::Int7);
}

// _get_all_dtypes(): every dtype but the quantized and sub-byte ones, in enum order (as
// upstream's).
PyObject* get_all_dtypes(PyObject*, PyObject*) {
  PyObject* list = PyList_New(0);
  for (int i = 0; i < kNumScalarTypes; ++i) {
    ScalarType t = static_cast<ScalarType>(i);
    if (!is_quantized(t) && !is_sub_byte_int(t)) PyList_Append(list, dtype_objects[i]);
  }
  return list;
}

PyObject* dtype_to_real(PyObject* self, PyObject*) {
  switch (dtype_of(self)) {
    case ScalarType::ComplexHalf: return Py_NewRef(dtype_object(ScalarType::Half));
    case ScalarType::ComplexFloat: return Py_NewRef(dtype_object(ScalarType::Float));
    case ScalarType::ComplexDouble: return Py_NewRef(dtype_object(ScalarType::Double));
    default: return Py_NewRef(self);
  }
}

PyObject* dtype_to_complex(PyObject* self, PyObject*) {
  switch (dtype_of(self)) {
    case ScalarType::Half: return Py_NewRef(dtype_object(ScalarType::ComplexHalf));
    case ScalarType::Float: return Py_NewRef(dtype_object(ScalarType::ComplexFloat));
    case ScalarType::Double: return Py_NewRef(dtype_object(ScalarType::ComplexDouble));
    default:
      if (info(dtype_of(self)).is_complex) return Py_NewRef(self);
      PyErr_Format(PyExc_RuntimeError, "Unknown Complex ScalarType for %s",
                   name(dtype_of(self)));
      return nullptr;
  }
}

PyMethodDef dtype_methods[] = {
    {"__reduce__", dtype_reduce, METH_NOARGS, nullptr},
    {"to_real", dtype_to_real, METH_NOARGS, nullptr},
    {"to_complex", dtype_to_complex, METH_NOARGS, nullptr},
    {nullptr, nullptr, 0, nullptr}};

PyGetSetDef dtype_getset[] = {
    {"is_floating_point", dtype_is_floating, nullptr, nullptr, nullptr},
    {"is_complex", dtype_is_complex, nullptr, nullptr, nullptr},
    {"is_signed", dtype_is_signed, nullptr, nullptr, nullptr},
    {"itemsize", dtype_itemsize, nullptr, nullptr, nullptr},
    {"abbr", dtype_abbr, nullptr, nullptr, nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyObject* named_repr(PyObject* self) {
  return PyUnicode_FromFormat("torch.%s", reinterpret_cast<NamedObject*>(self)->name);
}
PyObject* named_reduce(PyObject* self, PyObject*) {
  return PyUnicode_FromString(reinterpret_cast<NamedObject*>(self)->name);
}
PyMethodDef named_methods[] = {{"__reduce__", named_reduce, METH_NOARGS, nullptr},
                               {nullptr, nullptr, 0, nullptr}};

PyTypeObject make_named_type(const char* tp_name) {
  PyTypeObject t{PyVarObject_HEAD_INIT(nullptr, 0)};
  t.tp_name = tp_name;
  t.tp_basicsize = sizeof(NamedObject);
  t.tp_flags = Py_TPFLAGS_DEFAULT;
  t.tp_repr = named_repr;
  t.tp_methods = named_methods;
  return t;
}

PyTypeObject QSchemeType = make_named_type("torch.qscheme");

struct NamedValue {
  PyTypeObject* type;
  const char* name;
  int value;
  PyObject* object;
};

std::vector<NamedValue>& named_values() {
  static std::vector<NamedValue> v = {
      {&LayoutType, "strided", 0, nullptr},
      {&LayoutType, "sparse_coo", 1, nullptr},
      {&LayoutType, "sparse_csr", 2, nullptr},
      {&LayoutType, "sparse_csc", 3, nullptr},
      {&LayoutType, "sparse_bsr", 4, nullptr},
      {&LayoutType, "sparse_bsc", 5, nullptr},
      {&LayoutType, "_mkldnn", 6, nullptr},
      {&LayoutType, "jagged", 7, nullptr},
      {&MemoryFormatType, "contiguous_format", 0, nullptr},
      {&MemoryFormatType, "channels_last", 1, nullptr},
      {&MemoryFormatType, "channels_last_3d", 2, nullptr},
      {&MemoryFormatType, "preserve_format", 3, nullptr},
      {&QSchemeType, "per_tensor_affine", 0, nullptr},
      {&QSchemeType, "per_channel_affine", 1, nullptr},
      {&QSchemeType, "per_tensor_symmetric", 2, nullptr},
      {&QSchemeType, "per_channel_symmetric", 3, nullptr},
      {&QSchemeType, "per_channel_affine_float_qparams", 4, nullptr},
  };
  return v;
}

// Upstream's aliases (torch.float is torch.float32, ...).
const char* const kAliases[][2] = {
    {"float", "float32"}, {"double", "float64"}, {"half", "float16"}, {"short", "int16"},
    {"int", "int32"},     {"long", "int64"},     {"cfloat", "complex64"},
    {"cdouble", "complex128"}, {"chalf", "complex32"}, {"bit", "uint1"},
};

}  // namespace

PyTypeObject DtypeType = [] {
  PyTypeObject t{PyVarObject_HEAD_INIT(nullptr, 0)};
  t.tp_name = "torch.dtype";
  t.tp_basicsize = sizeof(DtypeObject);
  t.tp_flags = Py_TPFLAGS_DEFAULT;
  t.tp_repr = dtype_repr;
  t.tp_methods = dtype_methods;
  t.tp_getset = dtype_getset;
  return t;
}();
PyTypeObject LayoutType = make_named_type("torch.layout");
PyTypeObject MemoryFormatType = make_named_type("torch.memory_format");

PyObject* dtype_object(ScalarType t) { return dtype_objects[static_cast<int>(t)]; }

PyObject* strided_layout() { return named_values()[0].object; }

PyObject* memory_format_object(MemoryFormat f) {
  return named_values()[8 + static_cast<int>(f)].object;
}
bool is_memory_format(PyObject* o) { return Py_TYPE(o) == &MemoryFormatType; }
MemoryFormat memory_format_of(PyObject* o) {
  return static_cast<MemoryFormat>(reinterpret_cast<NamedObject*>(o)->value);
}

ScalarType default_dtype() { return default_float_dtype(); }
void set_default_dtype(ScalarType t) { set_default_float_dtype(t); }

bool export_dtypes(PyObject* m) {
  for (int i = 0; i < kNumScalarTypes; ++i)
    if (PyModule_AddObjectRef(m, kScalarTypeInfo[i].name, dtype_objects[i]) != 0) return false;
  for (const auto& a : kAliases) {
    PyObject* target = PyObject_GetAttrString(m, a[1]);
    if (!target || PyModule_AddObject(m, a[0], target) != 0) return false;
  }
  for (const auto& v : named_values())
    if (PyModule_AddObjectRef(m, v.name, v.object) != 0) return false;
  return true;
}

bool init_dtypes() {
  for (PyTypeObject* t : {&DtypeType, &LayoutType, &MemoryFormatType, &QSchemeType})
    if (PyType_Ready(t) != 0) return false;
  for (int i = 0; i < kNumScalarTypes; ++i) {
    auto* o = PyObject_New(DtypeObject, &DtypeType);
    o->scalar_type = static_cast<ScalarType>(i);
    dtype_objects[i] = reinterpret_cast<PyObject*>(o);  // immortal: never released
  }
  for (auto& v : named_values()) {
    auto* o = PyObject_New(NamedObject, v.type);
    o->name = v.name;
    o->value = v.value;
    v.object = reinterpret_cast<PyObject*>(o);
  }
  PyObject* c = module("torch._C");
  for (PyTypeObject* t : {&DtypeType, &LayoutType, &MemoryFormatType, &QSchemeType}) {
    const char* short_name = std::string(t->tp_name).rfind('.') == std::string::npos
                                 ? t->tp_name
                                 : std::strrchr(t->tp_name, '.') + 1;
    if (PyModule_AddObjectRef(c, short_name, reinterpret_cast<PyObject*>(t)) != 0) return false;
  }
  static PyMethodDef all_def = {"_get_all_dtypes", get_all_dtypes, METH_NOARGS, nullptr};
  if (!add("torch._C", all_def.ml_name, PyCFunction_New(&all_def, nullptr))) return false;
  return true;  // the dtype objects themselves go into torch, at _initExtension
}

}  // namespace tn::py
