// TensorBase's hand-written methods (as upstream's python_variable_methods): metadata queries
// (size, stride, dim, numel, ...), conversions to Python (item, tolist, __bool__, __int__, ...),
// requires_grad_, _make_subclass. Operator methods come from the registry (ops.cpp).
#include <cstring>
#include <string>

#include "core/half.h"
#include "dispatch/kernel.h"
#include "python/binder.h"
#include "python/dtype.h"
#include "python/errors.h"
#include "python/size.h"
#include "python/tensor.h"

namespace tn::py {

bool wrap_dim(int64_t dim, int64_t ndim, int64_t* out) {
  int64_t n = ndim == 0 ? 1 : ndim;  // a scalar accepts dims -1 and 0, as upstream
  if (dim < -n || dim >= n) {
    PyErr_Format(PyExc_IndexError,
                 "Dimension out of range (expected to be in range of [%lld, %lld], but got %lld)",
                 static_cast<long long>(-n), static_cast<long long>(n - 1),
                 static_cast<long long>(dim));
    return false;
  }
  *out = dim < 0 ? dim + n : dim;
  return true;
}

PyObject* tensor_retain_grad(PyObject* self, PyObject*);  // autograd.cpp

namespace {

TensorImpl* T(PyObject* self) { return impl_of(self); }

// size(dim=None) / stride(dim=None), parsed without building a tuple (the per-call path of
// x.size() in every model's forward).
PyObject* size_or_stride(PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                         PyObject* kwnames, bool stride) {
  const char* fn = stride ? "stride" : "size";
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  if (nargs > 1) {
    PyErr_Format(PyExc_TypeError, "%s() takes from 0 to 1 positional arguments but %zd were given",
                 fn, nargs);
    return nullptr;
  }
  if (nargs + nkw > 1 ||
      (nkw == 1 && PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, 0), "dim") != 0)) {
    PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument", fn);
    return nullptr;
  }
  PyObject* dim = nargs + nkw == 1 ? args[0] : Py_None;
  const Dims& v = stride ? T(self)->strides() : T(self)->sizes();
  if (dim == Py_None) {
    if (!stride) return tensor_size(self);
    PyObject* t = PyTuple_New(static_cast<Py_ssize_t>(v.size()));
    for (size_t k = 0; k < v.size(); ++k) PyTuple_SET_ITEM(t, k, PyLong_FromLongLong(v[k]));
    return t;
  }
  if (!PyLong_Check(dim) || PyBool_Check(dim)) {
    PyErr_Format(PyExc_TypeError, "%s(): argument 'dim'%s must be int, not %s", fn,
                 nargs == 1 ? " (position 1)" : "", Py_TYPE(dim)->tp_name);
    return nullptr;
  }
  int overflow = 0;
  long long given = PyLong_AsLongLongAndOverflow(dim, &overflow);
  if (given == -1 && PyErr_Occurred()) return nullptr;
  if (overflow) {
    PyErr_SetString(PyExc_ValueError, "Overflow when unpacking long long");
    return nullptr;
  }
  int64_t d;
  if (!wrap_dim(given, T(self)->dim(), &d)) return nullptr;
  if (T(self)->dim() == 0) {  // a scalar's size(0)/stride(0) is out of range upstream too
    PyErr_Format(PyExc_IndexError, "Dimension specified as %lld but tensor has no dimensions",
                 PyLong_AsLongLong(dim));
    return nullptr;
  }
  return PyLong_FromLongLong(v[d]);
}

PyObject* m_size(PyObject* self, PyObject* const* args, Py_ssize_t n, PyObject* kw) {
  return size_or_stride(self, args, n, kw, false);
}
PyObject* m_stride(PyObject* self, PyObject* const* args, Py_ssize_t n, PyObject* kw) {
  return size_or_stride(self, args, n, kw, true);
}
PyObject* m_dim(PyObject* self, PyObject*) { return PyLong_FromLongLong(T(self)->dim()); }
PyObject* m_numel(PyObject* self, PyObject*) { return PyLong_FromLongLong(T(self)->numel()); }
PyObject* m_element_size(PyObject* self, PyObject*) { return PyLong_FromLong(T(self)->itemsize()); }
PyObject* m_storage_offset(PyObject* self, PyObject*) {
  return PyLong_FromLongLong(T(self)->storage_offset());
}
PyObject* m_is_floating(PyObject* self, PyObject*) {
  return PyBool_FromLong(is_floating(T(self)->dtype()));
}
PyObject* m_is_complex(PyObject* self, PyObject*) {
  return PyBool_FromLong(info(T(self)->dtype()).is_complex);
}
PyObject* m_is_signed(PyObject* self, PyObject*) {
  return PyBool_FromLong(info(T(self)->dtype()).is_signed);
}
PyObject* m_data_ptr(PyObject* self, PyObject*) {
  TensorImpl* t = T(self);
  if (!t->storage()->data()) return PyLong_FromLong(0);
  return PyLong_FromVoidPtr(t->data_unchecked());
}
PyObject* m_is_view(PyObject* self, PyObject*) {
  return PyBool_FromLong(static_cast<bool>(T(self)->view_base()));
}
PyObject* m_get_device(PyObject*, PyObject*) { return PyLong_FromLong(-1); }
PyObject* m_fix_weakref(PyObject*, PyObject*) { Py_RETURN_NONE; }

// is_contiguous(memory_format=torch.contiguous_format)
PyObject* m_is_contiguous(PyObject* self, PyObject* args, PyObject* kwargs) {
  static const char* kw[] = {"memory_format", nullptr};
  PyObject* mf = nullptr;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O:is_contiguous", const_cast<char**>(kw), &mf))
    return nullptr;
  if (mf && !is_memory_format(mf)) {
    PyErr_SetString(PyExc_TypeError, "is_contiguous(): argument 'memory_format' must be "
                    "torch.memory_format");
    return nullptr;
  }
  MemoryFormat f = mf ? memory_format_of(mf) : MemoryFormat::Contiguous;
  if (f == MemoryFormat::Preserve) {
    PyErr_SetString(PyExc_RuntimeError, "is_contiguous: unsupported memory format "
                    "torch.preserve_format");
    return nullptr;
  }
  if (f == MemoryFormat::Contiguous) return PyBool_FromLong(T(self)->is_contiguous());
  // channels_last asks a 4-d tensor, channels_last_3d a 5-d one; other ranks are false.
  int64_t want = f == MemoryFormat::ChannelsLast ? 4 : 5;
  return PyBool_FromLong(T(self)->dim() == want && is_channels_last_contiguous(*T(self)));
}

PyObject* m_requires_grad_(PyObject* self, PyObject* args, PyObject* kwargs) {
  static const char* kw[] = {"requires_grad", nullptr};
  int v = 1;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|p:requires_grad_", const_cast<char**>(kw), &v))
    return nullptr;
  PyObject* b = PyBool_FromLong(v);
  int rc = PyObject_SetAttrString(self, "requires_grad", b);
  Py_DECREF(b);
  if (rc != 0) return nullptr;
  return Py_NewRef(self);
}

// One element at `offset` (elements from the storage start) as a Python number.
PyObject* element(TensorImpl* t, int64_t offset) {
  const char* base = static_cast<const char*>(t->storage()->data()) + offset * t->itemsize();
  switch (t->dtype()) {
    case ScalarType::Bool: return PyBool_FromLong(*reinterpret_cast<const bool*>(base));
    case ScalarType::Byte: return PyLong_FromLong(*reinterpret_cast<const uint8_t*>(base));
    case ScalarType::Char: return PyLong_FromLong(*reinterpret_cast<const int8_t*>(base));
    case ScalarType::Short: return PyLong_FromLong(*reinterpret_cast<const int16_t*>(base));
    case ScalarType::Int: return PyLong_FromLong(*reinterpret_cast<const int32_t*>(base));
    case ScalarType::Long: return PyLong_FromLongLong(*reinterpret_cast<const int64_t*>(base));
    case ScalarType::Half:
      return PyFloat_FromDouble(static_cast<float>(*reinterpret_cast<const Half*>(base)));
    case ScalarType::BFloat16:
      return PyFloat_FromDouble(static_cast<float>(*reinterpret_cast<const BFloat16*>(base)));
    case ScalarType::Float: return PyFloat_FromDouble(*reinterpret_cast<const float*>(base));
    case ScalarType::Double: return PyFloat_FromDouble(*reinterpret_cast<const double*>(base));
    case ScalarType::ComplexFloat: {
      const float* z = reinterpret_cast<const float*>(base);
      return PyComplex_FromDoubles(z[0], z[1]);
    }
    case ScalarType::ComplexDouble: {
      const double* z = reinterpret_cast<const double*>(base);
      return PyComplex_FromDoubles(z[0], z[1]);
    }
    case ScalarType::ComplexHalf: {
      const Half* z = reinterpret_cast<const Half*>(base);
      return PyComplex_FromDoubles(static_cast<float>(z[0]), static_cast<float>(z[1]));
    }
    default:
      PyErr_Format(PyExc_NotImplementedError,
                   "reading elements of dtype %s is not implemented by torchnative",
                   name(t->dtype()));
      return nullptr;
  }
}

// The tensor whose bytes Python reads: t itself on the CPU; another device's tensor copied to
// the host through its back end (aten::_to_copy, so the readback is counted); meta refused as
// upstream's tolist() refuses it, and a tensor its storage no longer covers as upstream's.
Tensor on_host(TensorImpl* t) {
  if (t->representation() == Representation::DenseCPU) {
    TN_CHECK(t->storage_holds(), "tolist() shouldn't be called on a tensor with unallocated "
             "storage");
    t->data_of(Representation::DenseCPU, "aten.tolist");  // refuses a storage without bytes
    return Tensor(t);
  }
  TN_CHECK_KIND(t->representation() != Representation::Meta, NotImplemented,
                "Cannot copy out of meta tensor; no data!");
  return call_tensor("aten::_to_copy", {Value::of(Tensor(t)), Value{}, Value{},
                                        Value::of_device(Device{})});
}

// item() is aten::_local_scalar_dense through the door, as upstream's (a dispatch mode sees it;
// another device's kernel reads the element back through its contract).
PyObject* m_item(PyObject* self, PyObject*) {
  TensorImpl* t = T(self);
  if (t->numel() != 1) {
    PyErr_Format(PyExc_RuntimeError,
                 "a Tensor with %lld elements cannot be converted to Scalar",
                 static_cast<long long>(t->numel()));
    return nullptr;
  }
  TN_PY_TRY
  PyThreadState* state = PyEval_SaveThread();
  std::vector<Value> r;
  try {
    r = call("aten::_local_scalar_dense", {Value::of(Tensor(t))});
  } catch (...) {
    PyEval_RestoreThread(state);
    throw;
  }
  PyEval_RestoreThread(state);
  return to_python(r.at(0));
  TN_PY_CATCH(nullptr)
}

PyObject* tolist_dim(TensorImpl* t, int64_t dim, int64_t offset) {
  if (dim == t->dim()) return element(t, offset);
  PyObject* list = PyList_New(t->size(dim));
  for (int64_t k = 0; k < t->size(dim); ++k) {
    PyObject* e = tolist_dim(t, dim + 1, offset + k * t->stride(dim));
    if (!e) {
      Py_DECREF(list);
      return nullptr;
    }
    PyList_SET_ITEM(list, k, e);
  }
  return list;
}

PyObject* m_tolist(PyObject* self, PyObject*) {
  TN_PY_TRY
  Tensor h = on_host(T(self));
  // The values a conjugate or negative view reads as, as upstream's tolist resolves them.
  if (h->is_conj()) h = call_tensor("aten::resolve_conj", {Value::of(h)});
  if (h->is_neg()) h = call_tensor("aten::resolve_neg", {Value::of(h)});
  return tolist_dim(h.get(), 0, h->storage_offset());
  TN_PY_CATCH(nullptr)
}

PyObject* m_bool(PyObject* self, PyObject*) {
  TensorImpl* t = T(self);
  if (t->numel() != 1) {
    PyErr_SetString(PyExc_RuntimeError,
                    t->numel() == 0 ? "Boolean value of Tensor with no values is ambiguous"
                                    : "Boolean value of Tensor with more than one value is "
                                      "ambiguous");
    return nullptr;
  }
  PyObject* v = m_item(self, nullptr);
  if (!v) return nullptr;
  int truth = PyObject_IsTrue(v);
  Py_DECREF(v);
  if (truth < 0) return nullptr;
  return PyBool_FromLong(truth);
}

// int() and float() of a complex element: its real part, refused as upstream's item<T>() refuses
// a non-zero imaginary part.
PyObject* real_of_complex(PyObject* v, const char* cpp_type) {
  if (!v || !PyComplex_Check(v)) return v;
  double re = PyComplex_RealAsDouble(v), im = PyComplex_ImagAsDouble(v);
  Py_DECREF(v);
  if (im != 0) {
    PyErr_Format(PyExc_RuntimeError, "value cannot be converted to type %s without overflow",
                 cpp_type);
    return nullptr;
  }
  return PyFloat_FromDouble(re);
}

PyObject* m_int(PyObject* self, PyObject*) {
  PyObject* v = real_of_complex(m_item(self, nullptr), "int64_t");
  if (!v) return nullptr;
  PyObject* r = PyNumber_Long(v);
  Py_DECREF(v);
  return r;
}

PyObject* m_complex(PyObject* self, PyObject*) {
  PyObject* v = m_item(self, nullptr);
  if (!v || PyComplex_Check(v)) return v;
  double re = PyFloat_AsDouble(v);
  Py_DECREF(v);
  if (re == -1.0 && PyErr_Occurred()) return nullptr;
  return PyComplex_FromDoubles(re, 0.0);
}

PyObject* m_float(PyObject* self, PyObject*) {
  PyObject* v = real_of_complex(m_item(self, nullptr), "double");
  if (!v) return nullptr;
  PyObject* r = PyNumber_Float(v);
  Py_DECREF(v);
  return r;
}

// __index__: only integer tensors with one element, as upstream.
PyObject* m_index(PyObject* self, PyObject*) {
  TensorImpl* t = T(self);
  if (!is_integral(t->dtype(), true) || t->numel() != 1) {
    PyErr_SetString(PyExc_TypeError,
                    "only integer tensors of a single element can be converted to an index");
    return nullptr;
  }
  return m_int(self, nullptr);
}

PyObject* m_len(PyObject* self, PyObject*) {
  if (T(self)->dim() == 0) {
    PyErr_SetString(PyExc_TypeError, "len() of a 0-d tensor");
    return nullptr;
  }
  return PyLong_FromLongLong(T(self)->size(0));
}

// _make_subclass(cls, data, require_grad=False, ...): a cls instance over data's bytes (used by
// nn.Parameter and tensor subclasses). The new object shares storage with data.
PyObject* m_make_subclass(PyObject*, PyObject* args, PyObject* kwargs) {
  static const char* kw[] = {"cls", "data", "require_grad", "dispatch_strides",
                             "dispatch_device", "dispatch_layout", "_extra_dispatch_keys",
                             "storage_size", nullptr};
  PyObject* cls;
  PyObject* data;
  int require_grad = 0;
  PyObject* ignore[5] = {nullptr, nullptr, nullptr, nullptr, nullptr};
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|pOOOOO:_make_subclass",
                                   const_cast<char**>(kw), &cls, &data, &require_grad, &ignore[0],
                                   &ignore[1], &ignore[2], &ignore[3], &ignore[4]))
    return nullptr;
  if (!PyType_Check(cls) ||
      !PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(cls), &TensorBaseType) || !is_tensor(data)) {
    PyErr_SetString(PyExc_TypeError, "_make_subclass(cls, data): cls must be a Tensor subclass "
                                     "and data a Tensor");
    return nullptr;
  }
  TensorImpl* d = impl_of(data);
  Tensor alias = make<TensorImpl>(d->storage(), d->dtype(), d->sizes(), d->strides(),
                                  d->storage_offset(), d->representation());
  alias->share_version(*d);
  alias->copy_math_bits(*d);
  if (require_grad && !is_floating(d->dtype()) && !is_complex(d->dtype())) {
    PyErr_SetString(PyExc_RuntimeError,
                    "Only Tensors of floating point and complex dtype can require gradients");
    return nullptr;
  }
  alias->set_requires_grad(require_grad);
  return wrap_tensor(alias, reinterpret_cast<PyTypeObject*>(cls));
}

// as_subclass(cls): the same tensor seen as a cls instance (shares storage and version).
PyObject* m_as_subclass(PyObject* self, PyObject* cls) {
  if (!PyType_Check(cls) ||
      !PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(cls), &TensorBaseType)) {
    PyErr_SetString(PyExc_TypeError, "as_subclass: cls must be a subclass of torch.Tensor");
    return nullptr;
  }
  TensorImpl* d = T(self);
  Tensor alias = make<TensorImpl>(d->storage(), d->dtype(), d->sizes(), d->strides(),
                                  d->storage_offset(), d->representation());
  alias->share_version(*d);
  alias->copy_math_bits(*d);
  alias->set_requires_grad(d->requires_grad());
  return wrap_tensor(alias, reinterpret_cast<PyTypeObject*>(cls));
}

}  // namespace

PyMethodDef kTensorMethods[] = {
    {"as_subclass", m_as_subclass, METH_O, nullptr},
    {"retain_grad", tensor_retain_grad, METH_NOARGS, nullptr},
    {"size", reinterpret_cast<PyCFunction>(m_size), METH_FASTCALL | METH_KEYWORDS, nullptr},
    {"stride", reinterpret_cast<PyCFunction>(m_stride), METH_FASTCALL | METH_KEYWORDS, nullptr},
    {"dim", m_dim, METH_NOARGS, nullptr},
    {"ndimension", m_dim, METH_NOARGS, nullptr},
    {"numel", m_numel, METH_NOARGS, nullptr},
    {"nelement", m_numel, METH_NOARGS, nullptr},
    {"element_size", m_element_size, METH_NOARGS, nullptr},
    {"storage_offset", m_storage_offset, METH_NOARGS, nullptr},
    {"is_floating_point", m_is_floating, METH_NOARGS, nullptr},
    {"is_complex", m_is_complex, METH_NOARGS, nullptr},
    {"is_signed", m_is_signed, METH_NOARGS, nullptr},
    {"is_contiguous", reinterpret_cast<PyCFunction>(m_is_contiguous),
     METH_VARARGS | METH_KEYWORDS, nullptr},
    {"data_ptr", m_data_ptr, METH_NOARGS, nullptr},
    {"_is_view", m_is_view, METH_NOARGS, nullptr},
    {"get_device", m_get_device, METH_NOARGS, nullptr},
    {"_fix_weakref", m_fix_weakref, METH_NOARGS, nullptr},
    {"requires_grad_", reinterpret_cast<PyCFunction>(m_requires_grad_),
     METH_VARARGS | METH_KEYWORDS, nullptr},
    {"item", m_item, METH_NOARGS, nullptr},
    {"__complex__", m_complex, METH_NOARGS, nullptr},
    {"tolist", m_tolist, METH_NOARGS, nullptr},
    {"__bool__", m_bool, METH_NOARGS, nullptr},
    {"__int__", m_int, METH_NOARGS, nullptr},
    {"__float__", m_float, METH_NOARGS, nullptr},
    {"__index__", m_index, METH_NOARGS, nullptr},
    {"__len__", m_len, METH_NOARGS, nullptr},
    {"_make_subclass", reinterpret_cast<PyCFunction>(m_make_subclass),
     METH_VARARGS | METH_KEYWORDS | METH_STATIC, nullptr},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace tn::py
