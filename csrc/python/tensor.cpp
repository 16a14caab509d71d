// _TensorMeta and TensorBase: the type objects, allocation and the few members that are not
// operators (those come from the op registry, csrc/python/methods.cpp).
#include "python/tensor.h"

#include "python/dtype.h"
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

// TensorBase(...) directly is not how tensors are made; torch.Tensor(...) legacy constructors are
// handled by the op layer. Subclasses reach here through _make_subclass.
PyObject* tensor_new(PyTypeObject* type, PyObject*, PyObject*) {
  PyErr_Format(PyExc_NotImplementedError,
               "torchnative: constructing %s directly (legacy torch.Tensor(...) constructor) is "
               "not implemented",
               type->tp_name);
  return nullptr;
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
