// torch.Size: a tuple of ints whose slices, sums and products stay torch.Size; repr
// "torch.Size([2, 3])" as upstream's.
#include "python/size.h"

namespace tn::py {
namespace {

PyObject* wrap(PyObject* tuple) {
  if (!tuple) return nullptr;
  PyObject* pack = PyTuple_Pack(1, tuple);
  Py_DECREF(tuple);
  if (!pack) return nullptr;
  PyObject* r = PyTuple_Type.tp_new(&SizeType, pack, nullptr);
  Py_DECREF(pack);
  return r;
}

// Converts one element to an int as upstream does: ints, objects with __index__, and 0-dim
// tensors; anything else is a TypeError.
PyObject* as_index(PyObject* item) {
  if (PyLong_Check(item) && !PyBool_Check(item)) return Py_NewRef(item);
  PyObject* r = PyNumber_Index(item);
  if (!r) {
    PyErr_Format(PyExc_TypeError,
                 "torch.Size() takes an iterable of 'int' (item 0 is '%s')",
                 Py_TYPE(item)->tp_name);
  }
  return r;
}

PyObject* size_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  PyObject* seq = nullptr;
  if (!PyArg_ParseTuple(args, "|O:Size", &seq)) return nullptr;
  PyObject* items = seq ? PySequence_Tuple(seq) : PyTuple_New(0);
  if (!items) return nullptr;
  Py_ssize_t n = PyTuple_GET_SIZE(items);
  PyObject* ints = PyTuple_New(n);
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* v = as_index(PyTuple_GET_ITEM(items, i));
    if (!v) {
      Py_DECREF(items);
      Py_DECREF(ints);
      return nullptr;
    }
    PyTuple_SET_ITEM(ints, i, v);
  }
  Py_DECREF(items);
  PyObject* pack = PyTuple_Pack(1, ints);
  Py_DECREF(ints);
  PyObject* r = PyTuple_Type.tp_new(type, pack, nullptr);
  Py_DECREF(pack);
  return r;
}

PyObject* size_repr(PyObject* self) {
  Py_ssize_t n = PyTuple_GET_SIZE(self);
  PyObject* parts = PyList_New(n);
  for (Py_ssize_t i = 0; i < n; ++i) PyList_SET_ITEM(parts, i, PyObject_Repr(PyTuple_GET_ITEM(self, i)));
  PyObject* sep = PyUnicode_FromString(", ");
  PyObject* body = PyUnicode_Join(sep, parts);
  Py_DECREF(sep);
  Py_DECREF(parts);
  PyObject* r = PyUnicode_FromFormat("torch.Size([%U])", body);
  Py_DECREF(body);
  return r;
}

PyObject* size_subscript(PyObject* self, PyObject* key) {
  PyObject* r = PyTuple_Type.tp_as_mapping->mp_subscript(self, key);
  if (r && PySlice_Check(key)) return wrap(r);
  return r;
}

PyObject* size_concat(PyObject* a, PyObject* b) {
  if (!PyTuple_Check(a) || !PyTuple_Check(b)) Py_RETURN_NOTIMPLEMENTED;
  return wrap(PySequence_Concat(a, b));
}

PyObject* size_repeat(PyObject* self, Py_ssize_t n) {
  return wrap(PyTuple_Type.tp_as_sequence->sq_repeat(self, n));
}

// As upstream: each size must fit int64 (ValueError), and the product wraps as upstream's does.
PyObject* size_numel(PyObject* self, PyObject*) {
  uint64_t n = 1;
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(self); ++i) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(PyTuple_GET_ITEM(self, i), &overflow);
    if (v == -1 && PyErr_Occurred()) return nullptr;
    if (overflow) {
      PyErr_SetString(PyExc_ValueError, "Overflow when unpacking long long");
      return nullptr;
    }
    n *= static_cast<uint64_t>(v);
  }
  return PyLong_FromLongLong(static_cast<long long>(n));
}

PyObject* size_reduce(PyObject* self, PyObject*) {
  PyObject* plain = PySequence_Tuple(self);
  return Py_BuildValue("(O(N))", reinterpret_cast<PyObject*>(&SizeType), plain);
}

PyMethodDef size_methods[] = {{"numel", size_numel, METH_NOARGS, nullptr},
                              {"__reduce__", size_reduce, METH_NOARGS, nullptr},
                              {nullptr, nullptr, 0, nullptr}};

PyMappingMethods size_mapping = [] {
  PyMappingMethods m{};
  m.mp_subscript = size_subscript;
  return m;
}();

PySequenceMethods size_sequence;
PyNumberMethods size_number;

}  // namespace

PyTypeObject SizeType = [] {
  PyTypeObject t{PyVarObject_HEAD_INIT(nullptr, 0)};
  t.tp_name = "torch.Size";
  t.tp_basicsize = sizeof(PyTupleObject) - sizeof(PyObject*);
  t.tp_itemsize = sizeof(PyObject*);
  t.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_TUPLE_SUBCLASS;
  t.tp_new = size_new;
  t.tp_repr = size_repr;
  t.tp_methods = size_methods;
  t.tp_as_mapping = &size_mapping;
  return t;
}();

// Allocated as the Size itself (a tuple subclass's items live in the object), without the
// plain tuple that wrap() copies: x.size() is on every model's per-call path.
PyObject* size_object(const Dims& dims) {
  PyObject* t = SizeType.tp_alloc(&SizeType, static_cast<Py_ssize_t>(dims.size()));
  if (!t) return nullptr;
  for (size_t i = 0; i < dims.size(); ++i) {
    PyObject* v = PyLong_FromLongLong(dims[i]);
    if (!v) {
      Py_DECREF(t);
      return nullptr;
    }
    PyTuple_SET_ITEM(t, i, v);
  }
  return t;
}

bool init_size() {
  SizeType.tp_base = &PyTuple_Type;
  size_sequence = *PyTuple_Type.tp_as_sequence;
  size_sequence.sq_concat = nullptr;
  size_sequence.sq_repeat = size_repeat;
  SizeType.tp_as_sequence = &size_sequence;
  size_number.nb_add = size_concat;
  SizeType.tp_as_number = &size_number;
  if (PyType_Ready(&SizeType) != 0) return false;
  return PyModule_AddObjectRef(module("torch._C"), "Size",
                               reinterpret_cast<PyObject*>(&SizeType)) == 0;
}

}  // namespace tn::py
