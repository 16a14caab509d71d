// _TensorMeta and TensorBase: the type objects, allocation and the few members that are not
// operators (those come from the op registry, csrc/python/methods.cpp).
#include "python/tensor.h"

#include <string>

#include "dispatch/kernel.h"
#include "python/dtype.h"
#include "python/errors.h"
#include "python/size.h"

namespace tn::py {

extern PyGetSetDef kTensorGetSet[];     // tensor_attrs.cpp
extern PyMethodDef kTensorMethods[];    // tensor_methods.cpp
extern PyMappingMethods kTensorMapping;  // tensor_index.cpp

namespace {

PyTypeObject* g_tensor_class = nullptr;

PyObject* tensor_alloc(PyTypeObject* type, Tensor t) {
  PyObject* o = type->tp_alloc(type, 0);
  if (!o) return nullptr;
  t->set_python_object(o);
  reinterpret_cast<TensorObject*>(o)->impl = t.release();
  return o;
}

void tensor_dealloc(PyObject* self) {
  PyObject_GC_UnTrack(self);
  auto* t = reinterpret_cast<TensorObject*>(self);
  if (t->weakrefs) PyObject_ClearWeakRefs(self);
  Py_CLEAR(t->dict);
  Py_CLEAR(t->grad);
  Py_CLEAR(t->size);
  if (t->impl) {
    if (t->impl->python_object() == self) t->impl->set_python_object(nullptr);
    t->impl->decref();
  }
  t->impl = nullptr;
  Py_TYPE(self)->tp_free(self);
}

int tensor_traverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(reinterpret_cast<TensorObject*>(self)->dict);
  Py_VISIT(reinterpret_cast<TensorObject*>(self)->grad);
  Py_VISIT(Py_TYPE(self));
  return 0;
}

int tensor_clear(PyObject* self) {
  Py_CLEAR(reinterpret_cast<TensorObject*>(self)->dict);
  Py_CLEAR(reinterpret_cast<TensorObject*>(self)->grad);
  return 0;
}

// torch.Tensor(...), the legacy constructor (upstream's base_tensor_ctor), in the default
// dtype on the CPU: () an empty tensor; (other) other itself as an alias; (storage) a tensor
// over the storage's bytes; (*sizes) or (torch.Size) an uninitialised tensor of that shape;
// (sequence) the data; device= may only name the CPU. A subclass gets an instance of itself.
PyObject* call_torch(const char* fn, PyObject* args, PyObject* kwargs) {
  PyObject* torch = PyImport_ImportModule("torch");
  if (!torch) return nullptr;
  PyObject* f = PyObject_GetAttrString(torch, fn);
  Py_DECREF(torch);
  if (!f) return nullptr;
  PyObject* r = PyObject_Call(f, args, kwargs);
  Py_DECREF(f);
  return r;
}

PyObject* legacy_ctor(PyObject* args, PyObject* kwargs) {
  const Py_ssize_t n = PyTuple_GET_SIZE(args);
  if (kwargs && PyDict_Size(kwargs)) {
    PyObject* device = PyDict_GetItemString(kwargs, "device");
    if (!device || PyDict_Size(kwargs) != 1) {
      PyErr_SetString(PyExc_TypeError, "new() received an invalid combination of arguments: "
                      "only device= is a keyword argument");
      return nullptr;
    }
    if (device != Py_None) {
      PyObject* d = PyObject_Str(device);
      if (!d) return nullptr;
      std::string name = PyUnicode_AsUTF8(d);
      Py_DECREF(d);
      std::string type = name.substr(0, name.find(':'));
      if (type != "cpu") {
        PyErr_Format(PyExc_RuntimeError, "legacy constructor expects device type: cpu but "
                     "device type: %s was passed", type.c_str());
        return nullptr;
      }
    }
  }
  PyObject* dt = dtype_object(default_dtype());
  // On the CPU always: a `with torch.device(...)` mode does not move legacy constructors.
  PyObject* kw = Py_BuildValue("{s:O,s:s}", "dtype", dt, "device", "cpu");
  if (!kw) return nullptr;
  PyObject* r = nullptr;
  PyObject* first = n > 0 ? PyTuple_GET_ITEM(args, 0) : nullptr;
  bool all_ints = n > 0;
  for (Py_ssize_t i = 0; i < n; ++i)
    all_ints = all_ints && PyLong_Check(PyTuple_GET_ITEM(args, i));
  if (n == 0) {
    PyObject* a = Py_BuildValue("(i)", 0);
    r = a ? call_torch("empty", a, kw) : nullptr;
    Py_XDECREF(a);
  } else if (n == 1 && is_tensor(first)) {
    try {
      r = wrap_tensor(call_tensor("aten::alias", {Value::of(Tensor(impl_of(first)))}));
    } catch (...) {
      Py_DECREF(kw);
      throw;
    }
  } else if (all_ints || (n == 1 && PyObject_TypeCheck(first, &SizeType))) {
    PyObject* a = PyTuple_Pack(1, all_ints ? args : first);
    r = a ? call_torch("empty", a, kw) : nullptr;
    Py_XDECREF(a);
  } else if (n == 1 && PyObject_HasAttrString(first, "nbytes") &&
             PyObject_HasAttrString(first, "_new_shared")) {  // a storage
    PyObject* a = Py_BuildValue("(i)", 0);
    PyObject* empty = a ? call_torch("empty", a, kw) : nullptr;
    Py_XDECREF(a);
    if (empty) {
      r = PyObject_CallMethod(empty, "set_", "O", first);
      Py_DECREF(empty);
    }
  } else if (n == 1) {
    if (!PySequence_Check(first) || PyUnicode_Check(first) || PyBytes_Check(first)) {
      PyErr_Format(PyExc_TypeError, "new(): data must be a sequence (got %s)",
                   Py_TYPE(first)->tp_name);
    } else {
      PyObject* a = PyTuple_Pack(1, first);
      r = a ? call_torch("tensor", a, kw) : nullptr;
      Py_XDECREF(a);
    }
  } else {
    PyErr_SetString(PyExc_TypeError, "new() received an invalid combination of arguments: "
                    "expected (), (Tensor other), (Storage storage), (tuple of ints size) or "
                    "(object data)");
  }
  Py_DECREF(kw);
  return r;
}

PyObject* tensor_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  TN_PY_TRY
  PyObject* r = legacy_ctor(args, kwargs);
  if (!r || !is_tensor(r) || Py_TYPE(r) == type) return r;
  // A subclass of torch.Tensor: the same tensor as an instance of that class.
  Tensor t(impl_of(r));
  Py_DECREF(r);
  return wrap_tensor(std::move(t), type);
  TN_PY_CATCH(nullptr)
}

}  // namespace

PyTypeObject TensorMetaType = [] {
  PyTypeObject t{PyVarObject_HEAD_INIT(nullptr, 0)};
  t.tp_name = "torch._C._TensorMeta";
  t.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE;  // GC and traverse inherit from type
  return t;
}();

PyTypeObject TensorBaseType = [] {
  PyTypeObject t{PyVarObject_HEAD_INIT(nullptr, 0)};
  t.tp_name = "torch._C.TensorBase";
  t.tp_basicsize = sizeof(TensorObject);
  t.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC;
  t.tp_dealloc = tensor_dealloc;
  t.tp_traverse = tensor_traverse;
  t.tp_clear = tensor_clear;
  t.tp_new = tensor_new;
  t.tp_dictoffset = offsetof(TensorObject, dict);
  t.tp_getset = kTensorGetSet;
  t.tp_methods = kTensorMethods;
  t.tp_as_mapping = &kTensorMapping;
  t.tp_weaklistoffset = offsetof(TensorObject, weakrefs);
  return t;
}();

PyObject* tensor_size(PyObject* self) {
  auto* t = reinterpret_cast<TensorObject*>(self);
  const Dims& dims = t->impl->sizes();
  if (PyObject* kept = t->size) {
    // Items are PyLongs the size object made itself; PyLong_AsLongLong cannot fail on them.
    bool same = PyTuple_GET_SIZE(kept) == static_cast<Py_ssize_t>(dims.size());
    for (size_t i = 0; same && i < dims.size(); ++i)
      same = PyLong_AsLongLong(PyTuple_GET_ITEM(kept, i)) == dims[i];
    if (same) return Py_NewRef(kept);
  }
  PyObject* made = size_object(dims);
  if (made) Py_XSETREF(t->size, Py_NewRef(made));
  return made;
}

PyObject* wrap_tensor(Tensor t, PyTypeObject* type) {
  // The same tensor comes back as the same Python object while that object is alive.
  if (!type && t->python_object()) return Py_NewRef(static_cast<PyObject*>(t->python_object()));
  if (!type) type = g_tensor_class ? g_tensor_class : &TensorBaseType;
  return tensor_alloc(type, std::move(t));
}

bool set_tensor_class(PyObject* cls) {
  if (!PyType_Check(cls) ||
      !PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(cls), &TensorBaseType)) {
    PyErr_SetString(PyExc_TypeError, "torch.Tensor must be a subclass of torch._C.TensorBase");
    return false;
  }
  Py_INCREF(cls);
  g_tensor_class = reinterpret_cast<PyTypeObject*>(cls);
  return true;
}

PyTypeObject* tensor_class() { return g_tensor_class; }

bool init_tensor() {
  TensorMetaType.tp_base = &PyType_Type;
  if (PyType_Ready(&TensorMetaType) != 0) return false;
  Py_SET_TYPE(&TensorBaseType, &TensorMetaType);
  if (PyType_Ready(&TensorBaseType) != 0) return false;
  PyObject* c = module("torch._C");
  return PyModule_AddObjectRef(c, "_TensorMeta", reinterpret_cast<PyObject*>(&TensorMetaType)) ==
             0 &&
         PyModule_AddObjectRef(c, "TensorBase", reinterpret_cast<PyObject*>(&TensorBaseType)) == 0;
}

}  // namespace tn::py
