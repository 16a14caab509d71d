// The legacy tensor type objects torch.FloatTensor, torch.LongTensor, ... (instances of
// torch.tensortype): isinstance(x, torch.FloatTensor) tests x's dtype and device, as upstream's.
// Calling one (the legacy constructor) builds a tensor of that dtype through torch.tensor /
// torch.empty semantics.
#include "python/dtype.h"
#include "python/init.h"
#include "python/tensor.h"

namespace tn::py {
namespace {

struct TypeEntry {
  PyObject* cls;
  ScalarType dtype;
};
std::vector<TypeEntry> g_types;

ScalarType dtype_of_class(PyObject* cls, bool* found) {
  for (const TypeEntry& e : g_types)
    if (e.cls == cls) {
      *found = true;
      return e.dtype;
    }
  *found = false;
  return ScalarType::Float;
}

// tensortype.__instancecheck__(cls, obj)
PyObject* instancecheck(PyObject*, PyObject* const* args, Py_ssize_t n) {
  if (n != 2) {
    PyErr_SetString(PyExc_TypeError, "__instancecheck__(cls, obj)");
    return nullptr;
  }
  bool found;
  ScalarType t = dtype_of_class(args[0], &found);
  if (!found || !is_tensor(args[1])) Py_RETURN_FALSE;
  TensorImpl* impl = impl_of(args[1]);
  return PyBool_FromLong(impl->dtype() == t && impl->device().type == DeviceType::CPU);
}

// tensortype.__call__(cls, *args): torch.FloatTensor([1, 2]) / torch.FloatTensor(2, 3).
PyObject* construct(PyObject*, PyObject* const* args, Py_ssize_t n, PyObject* kwnames) {
  bool found;
  ScalarType t = dtype_of_class(args[0], &found);
  PyObject* torch = PyImport_ImportModule("torch");
  if (!torch) return nullptr;
  PyObject* r = nullptr;
  PyObject* kwargs = PyDict_New();
  PyDict_SetItemString(kwargs, "dtype", dtype_object(t));
  bool sizes = n == 1 || (n >= 2 && PyLong_Check(args[1]));
  if (kwnames && PyTuple_GET_SIZE(kwnames)) {
    PyErr_SetString(PyExc_NotImplementedError,
                    "legacy tensor constructors with keyword arguments are not implemented");
  } else if (sizes) {
    PyObject* tuple = PyTuple_New(n - 1);
    for (Py_ssize_t i = 1; i < n; ++i) PyTuple_SET_ITEM(tuple, i - 1, Py_NewRef(args[i]));
    PyObject* empty = PyObject_GetAttrString(torch, "empty");
    PyObject* pack = PyTuple_Pack(1, tuple);
    r = PyObject_Call(empty, n == 1 ? PyTuple_Pack(1, PyTuple_New(0)) : pack, kwargs);
    Py_DECREF(empty);
    Py_DECREF(pack);
    Py_DECREF(tuple);
  } else if (n == 2) {
    PyObject* tensor = PyObject_GetAttrString(torch, "tensor");
    PyObject* pack = PyTuple_Pack(1, args[1]);
    r = PyObject_Call(tensor, pack, kwargs);
    Py_DECREF(tensor);
    Py_DECREF(pack);
  } else {
    PyErr_SetString(PyExc_TypeError, "legacy tensor constructor: expected sizes or a sequence");
  }
  Py_DECREF(kwargs);
  Py_DECREF(torch);
  return r;
}

PyMethodDef instancecheck_def = {"__instancecheck__", reinterpret_cast<PyCFunction>(instancecheck),
                                 METH_FASTCALL, nullptr};
PyMethodDef call_def = {"__call__", reinterpret_cast<PyCFunction>(construct),
                        METH_FASTCALL | METH_KEYWORDS, nullptr};

}  // namespace

PyObject* make_builtin(const PyMethodDef& proto, const char* name, PyObject* self);

// Creates torch.tensortype and the legacy classes in module torch (called by _initExtension).
bool export_legacy_types(PyObject* torch) {
  if (!g_types.empty()) return true;
  PyObject* ns = PyDict_New();
  PyObject* f1 = make_builtin(instancecheck_def, "__instancecheck__", nullptr);
  PyObject* f2 = make_builtin(call_def, "__call__", nullptr);
  PyDict_SetItemString(ns, "__instancecheck__", PyInstanceMethod_New(f1));
  PyDict_SetItemString(ns, "__call__", PyInstanceMethod_New(f2));
  PyDict_SetItemString(ns, "__module__", PyUnicode_FromString("torch"));
  Py_DECREF(f1);
  Py_DECREF(f2);
  PyObject* meta = PyObject_CallFunction(reinterpret_cast<PyObject*>(&PyType_Type), "s(O)O",
                                         "tensortype", &PyType_Type, ns);
  Py_DECREF(ns);
  if (!meta || PyModule_AddObjectRef(torch, "tensortype", meta) != 0) return false;
  for (int i = 0; i < kNumScalarTypes; ++i) {
    const char* legacy = kScalarTypeInfo[i].legacy_name;
    if (!legacy[0]) continue;
    PyObject* d = PyDict_New();
    PyDict_SetItemString(d, "__module__", PyUnicode_FromString("torch"));
    PyDict_SetItemString(d, "dtype", dtype_object(static_cast<ScalarType>(i)));
    PyDict_SetItemString(d, "is_cuda", Py_False);
    PyDict_SetItemString(d, "is_sparse", Py_False);
    PyObject* cls = PyObject_CallFunction(meta, "s()O", legacy, d);
    Py_DECREF(d);
    if (!cls || PyModule_AddObjectRef(torch, legacy, cls) != 0) return false;
    g_types.push_back({cls, static_cast<ScalarType>(i)});  // kept for the process
  }
  Py_DECREF(meta);
  return true;
}

}  // namespace tn::py
