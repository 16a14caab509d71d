// Tensor.__getitem__ / __setitem__ as upstream's indexing: ints select, slices slice, None
// unsqueezes, Ellipsis expands, bool/long tensors and sequences index (index.Tensor /
// index_put_). Basic indexing returns views; every step is an operator through the door.
#include <string>
#include <vector>

#include "dispatch/kernel.h"
#include "python/binder.h"
#include "python/errors.h"
#include "python/tensor.h"

namespace tn::py {
namespace {

Value V(const Tensor& t) { return Value::of(t); }

// The index as a sequence of items (upstream treats a non-tuple as a 1-tuple; a list is an
// advanced index, not a tuple of items).
PyObject* index_items(PyObject* index) {
  if (PyTuple_Check(index)) return Py_NewRef(index);
  return PyTuple_Pack(1, index);
}

// Converts a Python index item usable as an advanced index into a tensor (long or bool).
Tensor advanced_index(PyObject* item) {
  if (is_tensor(item)) return Tensor(impl_of(item));
  // A sequence of ints/bools: torch.tensor(item) semantics via the factory op.
  PyObject* torch = PyImport_ImportModule("torch");
  if (!torch) throw PythonErrorSet();
  PyObject* t = PyObject_CallMethod(torch, "tensor", "O", item);
  Py_DECREF(torch);
  if (!t) throw PythonErrorSet();
  Tensor r(impl_of(t));
  Py_DECREF(t);
  return r;
}

// A Python int index or value as int64; ValueError past int64, as upstream's unpacking.
int64_t index_int(PyObject* o) {
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
  if (v == -1 && PyErr_Occurred()) throw PythonErrorSet();
  TN_CHECK_KIND(!overflow, Value, "Overflow when unpacking long long");
  return v;
}

bool is_advanced(PyObject* item) {
  return is_tensor(item) || PyList_Check(item) || PyBool_Check(item);
}

// Applies the basic items; returns the view and fills `adv` with per-dim advanced indices
// (null where a dim is not indexed) when there are any.
Tensor apply_index(const Tensor& self, PyObject* items, std::vector<Tensor>* adv,
                   bool* has_adv, bool skip_full_slices) {
  Tensor cur = self;
  Py_ssize_t n = PyTuple_GET_SIZE(items);
  int64_t consumed = 0;  // items that consume a dimension
  for (Py_ssize_t k = 0; k < n; ++k) {
    PyObject* it = PyTuple_GET_ITEM(items, k);
    if (it != Py_None && it != Py_Ellipsis && !PyBool_Check(it)) ++consumed;
  }
  TN_CHECK_KIND(consumed <= self->dim(), Index, "too many indices for tensor of dimension ",
                self->dim());
  int64_t dim = 0;
  *has_adv = false;
  for (Py_ssize_t k = 0; k < n; ++k) {
    PyObject* it = PyTuple_GET_ITEM(items, k);
    if (PyLong_Check(it) && !PyBool_Check(it)) {
      int64_t i = index_int(it);
      int64_t size = cur->size(dim);
      TN_CHECK_KIND(i >= -size && i < size, Index, "index ", i, " is out of bounds for dimension ",
                    dim, " with size ", size);
      cur = call_tensor("aten::select.int", {V(cur), Value::of_int(dim), Value::of_int(i)});
    } else if (PySlice_Check(it)) {
      Py_ssize_t start, stop, step;
      if (PySlice_Unpack(it, &start, &stop, &step) < 0) throw PythonErrorSet();
      TN_CHECK_KIND(step > 0, Value, "step must be greater than zero");
      // Upstream's slice optimisation, for tuple indices only (x[:, 0:3], x[None, :]): a slice
      // from 0 that covers the dim with step 1 is no slice at all (a dispatch mode sees none).
      if (!(skip_full_slices && start == 0 && stop >= cur->size(dim) && step == 1))
        cur = call_tensor("aten::slice.Tensor", {V(cur), Value::of_int(dim), Value::of_int(start),
                                                 Value::of_int(stop), Value::of_int(step)});
      adv->push_back(Tensor());
      ++dim;
    } else if (it == Py_None) {
      cur = call_tensor("aten::unsqueeze", {V(cur), Value::of_int(dim)});
      adv->push_back(Tensor());
      ++dim;
    } else if (it == Py_Ellipsis) {
      int64_t remaining = 0;
      for (Py_ssize_t j = k + 1; j < n; ++j) {
        PyObject* r = PyTuple_GET_ITEM(items, j);
        if (r != Py_None && r != Py_Ellipsis && !PyBool_Check(r)) ++remaining;
      }
      int64_t skip = cur->dim() - dim - remaining;
      for (int64_t s = 0; s < skip; ++s) adv->push_back(Tensor());
      dim += skip;
    } else if (is_advanced(it)) {
      TN_CHECK_KIND(!PyBool_Check(it), NotImplemented,
                    "indexing with a Python bool is not implemented by torchnative");
      adv->push_back(advanced_index(it));
      *has_adv = true;
      ++dim;
    } else {
      TN_FAIL(Index, "only integers, slices (`:`), ellipsis (`...`), None and long or byte "
              "Variables are valid indices (got ", Py_TYPE(it)->tp_name, ")");
    }
  }
  return cur;
}

// The basic-indexing view of self for a Python index; `adv` gets the advanced indices.
Tensor index_view(PyObject* self, PyObject* index, std::vector<Tensor>* adv, bool* has_adv) {
  PyObject* items = index_items(index);
  if (!items) throw PythonErrorSet();
  try {
    Tensor view = apply_index(Tensor(impl_of(self)), items, adv, has_adv, PyTuple_Check(index));
    Py_DECREF(items);
    return view;
  } catch (...) {
    Py_DECREF(items);
    throw;
  }
}

// Advanced indices as the Tensor?[] argument of index.Tensor / index_put_ (trailing Nones cut).
Value index_list(const std::vector<Tensor>& adv) {
  Value list;
  list.tag = Value::Tag::OptTensorList;
  list.tensors = adv;
  while (!list.tensors.empty() && !list.tensors.back()) list.tensors.pop_back();
  return list;
}

// Upstream hands indexing of a tensor with __torch_function__ (a subclass, a mode) to
// torch.overrides with Tensor.__getitem__ / __setitem__ as the public API, so s[0] of a
// subclass comes back as the subclass. Returns nullptr with no error when not needed.
PyObject* index_torch_function(const char* slot, PyObject* self, PyObject* const* args,
                               Py_ssize_t nargs, bool* handled) {
  *handled = torch_function_needed(self, args, nargs, nullptr);
  if (!*handled) return nullptr;
  PyObject* api = PyObject_GetAttrString(reinterpret_cast<PyObject*>(&TensorBaseType), slot);
  if (!api) return nullptr;
  PyObject* r = handle_torch_function(api, self, args, nargs, nullptr);
  Py_DECREF(api);
  return r;
}

PyObject* getitem(PyObject* self, PyObject* index) {
  bool handled = false;
  PyObject* r = index_torch_function("__getitem__", self, &index, 1, &handled);
  if (handled) return r;
  TN_PY_TRY
  std::vector<Tensor> adv;
  bool has_adv = false;
  Tensor view = index_view(self, index, &adv, &has_adv);
  if (has_adv) {
    view = call_tensor("aten::index.Tensor", {V(view), index_list(adv)});
  } else if (view.get() == impl_of(self)) {
    view = call_tensor("aten::alias", {V(view)});  // x[...] is a new view, as upstream
  }
  return wrap_tensor(view);
  TN_PY_CATCH(nullptr)
}

int setitem(PyObject* self, PyObject* index, PyObject* value) {
  if (!value) {
    PyErr_SetString(PyExc_TypeError, "Tensor does not support deleting items");
    return -1;
  }
  PyObject* args[2] = {index, value};
  bool handled = false;
  PyObject* r = index_torch_function("__setitem__", self, args, 2, &handled);
  if (handled) {
    Py_XDECREF(r);
    return r ? 0 : -1;
  }
  TN_PY_TRY
  std::vector<Tensor> adv;
  bool has_adv = false;
  Tensor view = index_view(self, index, &adv, &has_adv);
  Value v;
  if (is_tensor(value)) {
    v = V(Tensor(impl_of(value)));
  } else if (PyBool_Check(value)) {
    v = Value::of_scalar(Scalar::from_bool(value == Py_True));
  } else if (PyLong_Check(value)) {
    v = Value::of_scalar(Scalar::from_int(index_int(value)));
  } else if (PyFloat_Check(value)) {
    v = Value::of_scalar(Scalar::from_double(PyFloat_AsDouble(value)));
  } else if (PyComplex_Check(value)) {  // upstream's valueToTensor takes a Python complex too
    v = Value::of_scalar(Scalar::from_complex(PyComplex_RealAsDouble(value),
                                              PyComplex_ImagAsDouble(value)));
  } else {
    TN_FAIL(Type, "can't assign a ", Py_TYPE(value)->tp_name, " to a Tensor");
  }
  if (has_adv) {
    if (v.tag != Value::Tag::Tensor)
      v = Value::of(call_tensor("aten::scalar_tensor",
                                {Value::of_scalar(v.scalar), Value::of_dtype(view->dtype())}));
    call("aten::index_put_", {V(view), index_list(adv), v, Value::of_bool(false)});
  } else if (v.tag == Value::Tag::Tensor) {
    call("aten::copy_", {V(view), v});
  } else {
    call("aten::fill_.Scalar", {V(view), v});
  }
  return 0;
  TN_PY_CATCH(-1)
}

}  // namespace

PyMappingMethods kTensorMapping = {nullptr, getitem, setitem};

}  // namespace tn::py
