// torch.nonzero(input, *, out=None, as_tuple=False) and Tensor.nonzero(*, as_tuple=False),
// bound by hand as upstream binds them (as_tuple picks another op): aten::nonzero (or its
// out= form), or aten::nonzero_numpy's tuple of columns.
#include <cstring>

#include "dispatch/kernel.h"
#include "python/errors.h"
#include "python/init.h"
#include "python/tensor.h"

namespace tn::py {

PyObject* make_builtin(const PyMethodDef& proto, const char* name, PyObject* self);
PyObject* maybe_handle_torch_function(const char* module, const char* name, PyObject* args,
                                      PyObject* kwargs, bool* handled);  // torch_function.cpp

namespace {

PyObject* nonzero_of(PyObject* input, PyObject* out, bool as_tuple) {
  TN_PY_TRY
  Tensor x(impl_of(input));
  if (as_tuple) {
    if (out && out != Py_None) {
      PyErr_SetString(PyExc_TypeError, "nonzero(): out= is not supported with as_tuple=True");
      return nullptr;
    }
    std::vector<Value> r = call("aten::nonzero_numpy", {Value::of(x)});
    const std::vector<Tensor>& cols = r[0].tensors;
    PyObject* tup = PyTuple_New(static_cast<Py_ssize_t>(cols.size()));
    if (!tup) return nullptr;
    for (size_t i = 0; i < cols.size(); ++i) {
      PyObject* o = wrap_tensor(cols[i]);
      if (!o) {
        Py_DECREF(tup);
        return nullptr;
      }
      PyTuple_SET_ITEM(tup, static_cast<Py_ssize_t>(i), o);
    }
    return tup;
  }
  if (out && out != Py_None) {
    if (!is_tensor(out)) {
      PyErr_Format(PyExc_TypeError, "nonzero(): out must be a Tensor, not %s",
                   Py_TYPE(out)->tp_name);
      return nullptr;
    }
    call("aten::nonzero.out", {Value::of(x), Value::of(Tensor(impl_of(out)))});
    return Py_NewRef(out);
  }
  return wrap_tensor(call_tensor("aten::nonzero", {Value::of(x)}));
  TN_PY_CATCH(nullptr)
}

// torch.nonzero(input, *, out=None, as_tuple=False)
PyObject* torch_nonzero(PyObject*, PyObject* args, PyObject* kwargs) {
  bool handled;
  PyObject* r = maybe_handle_torch_function("torch._C._VariableFunctions", "nonzero", args,
                                            kwargs, &handled);
  if (handled) return r;
  static const char* kw[] = {"input", "out", "as_tuple", nullptr};
  PyObject *input, *out = nullptr;
  int as_tuple = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|$Op:nonzero", const_cast<char**>(kw),
                                   &input, &out, &as_tuple))
    return nullptr;
  if (!is_tensor(input)) {
    PyErr_Format(PyExc_TypeError, "nonzero(): argument 'input' (position 1) must be Tensor, not "
                 "%s", Py_TYPE(input)->tp_name);
    return nullptr;
  }
  return nonzero_of(input, out, as_tuple != 0);
}

// Tensor.nonzero(*, as_tuple=False): torch.nonzero with self.
PyObject* tensor_nonzero(PyObject* self, PyObject* args, PyObject* kwargs) {
  static const char* kw[] = {"as_tuple", nullptr};
  int as_tuple = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|$p:nonzero", const_cast<char**>(kw),
                                   &as_tuple))
    return nullptr;
  PyObject* targs = PyTuple_Pack(1, self);
  if (!targs) return nullptr;
  bool handled;
  PyObject* r = maybe_handle_torch_function("torch._C._VariableFunctions", "nonzero", targs,
                                            kwargs, &handled);
  Py_DECREF(targs);
  if (handled) return r;
  return nonzero_of(self, nullptr, as_tuple != 0);
}

PyMethodDef torch_def = {"nonzero", reinterpret_cast<PyCFunction>(torch_nonzero),
                         METH_VARARGS | METH_KEYWORDS, nullptr};
PyMethodDef method_def = {"nonzero", reinterpret_cast<PyCFunction>(tensor_nonzero),
                          METH_VARARGS | METH_KEYWORDS, nullptr};

}  // namespace

bool init_nonzero() {
  if (!add("torch._C._VariableFunctions", "nonzero", make_builtin(torch_def, "nonzero", nullptr)))
    return false;
  PyObject* m = PyDescr_NewMethod(&TensorBaseType, &method_def);
  int rc = PyDict_SetItemString(TensorBaseType.tp_dict, "nonzero", m);
  Py_DECREF(m);
  PyType_Modified(&TensorBaseType);
  return rc == 0;
}

}  // namespace tn::py
