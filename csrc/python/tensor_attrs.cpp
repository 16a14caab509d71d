// TensorBase's attributes (getset descriptors, as upstream's): shape, dtype, device, layout,
// requires_grad, is_leaf, grad, grad_fn, data, _version, ndim, the is_<device> predicates, T/mT,
// itemsize, nbytes, _base. Autograd's state is the core's (AutogradMeta); grad_fn is the Python
// face of the node that made the tensor (autograd.cpp).
#include <string>

#include "autograd/node.h"
#include "dispatch/kernel.h"
#include "python/binder.h"
#include "python/device.h"
#include "python/dtype.h"
#include "python/errors.h"
#include "python/size.h"
#include "python/tensor.h"

namespace tn::py {

PyObject* node_face(autograd::Node* n);  // autograd.cpp
PyObject* get_backward_hooks(PyObject* self, void*);
int set_backward_hooks(PyObject* self, PyObject* value, void*);
PyObject* get_post_accumulate_hooks(PyObject* self, void*);
int set_post_accumulate_hooks(PyObject* self, PyObject* value, void*);
PyObject* get_retains_grad(PyObject* self, void*);

namespace {

TensorImpl* T(PyObject* self) { return impl_of(self); }
TensorObject* O(PyObject* self) { return reinterpret_cast<TensorObject*>(self); }

PyObject* get_shape(PyObject* self, void*) { return tensor_size(self); }
PyObject* get_dtype(PyObject* self, void*) { return Py_NewRef(dtype_object(T(self)->dtype())); }
PyObject* get_device(PyObject* self, void*) { return device_object(T(self)->device()); }
PyObject* get_layout(PyObject*, void*) { return Py_NewRef(strided_layout()); }
PyObject* get_ndim(PyObject* self, void*) { return PyLong_FromLongLong(T(self)->dim()); }
PyObject* get_version(PyObject* self, void*) {
  if (T(self)->is_inference()) {
    PyErr_SetString(PyExc_RuntimeError, "Inference tensors do not track version counter.");
    return nullptr;
  }
  return PyLong_FromUnsignedLong(T(self)->version());
}
PyObject* get_itemsize(PyObject* self, void*) { return PyLong_FromLong(T(self)->itemsize()); }
PyObject* get_nbytes(PyObject* self, void*) {
  return PyLong_FromLongLong(T(self)->numel() * T(self)->itemsize());
}
PyObject* get_none(PyObject*, void*) { Py_RETURN_NONE; }
PyObject* get_false(PyObject*, void*) { Py_RETURN_FALSE; }
PyObject* get_zero(PyObject*, void*) { return PyLong_FromLong(0); }
PyObject* get_is_cpu(PyObject* self, void*) {
  return PyBool_FromLong(T(self)->device().type == DeviceType::CPU);
}
PyObject* get_is_meta(PyObject* self, void*) {
  return PyBool_FromLong(T(self)->device().type == DeviceType::Meta);
}
PyObject* get_is_leaf(PyObject* self, void*) { return PyBool_FromLong(T(self)->is_leaf()); }
PyObject* get_grad_fn(PyObject* self, void*) { return node_face(autograd::grad_fn_of(*T(self))); }
PyObject* get_output_nr(PyObject* self, void*) {
  AutogradMeta* m = T(self)->autograd_meta();
  return PyLong_FromLong(m ? m->output_nr : 0);
}

PyObject* get_requires_grad(PyObject* self, void*) {
  return PyBool_FromLong(T(self)->requires_grad());
}

int set_requires_grad(PyObject* self, PyObject* value, void*) {
  if (!value || !PyBool_Check(value)) {
    PyErr_SetString(PyExc_TypeError, "requires_grad must be a bool");
    return -1;
  }
  bool v = value == Py_True;
  if (!T(self)->is_leaf() && !v) {
    PyErr_SetString(PyExc_RuntimeError,
                    "you can only change requires_grad flags of leaf variables. If you want to "
                    "use a computed variable in a subgraph that doesn't require differentiation "
                    "use var_no_grad = var.detach().");
    return -1;
  }
  if (v && !is_floating(T(self)->dtype()) && !is_complex(T(self)->dtype())) {
    PyErr_SetString(PyExc_RuntimeError,
                    "only Tensors of floating point and complex dtype can require gradients");
    return -1;
  }
  if (v && T(self)->is_inference() && !inference_mode_enabled()) {
    PyErr_SetString(PyExc_RuntimeError, "Setting requires_grad=True on inference tensor outside "
                    "InferenceMode is not allowed.");
    return -1;
  }
  T(self)->set_requires_grad(v);
  return 0;
}

// .grad lives in the core (AutogradMeta::grad, where the engine will write it); the object
// cached on the tensor keeps a grad's Python identity and class while it is the same tensor.
PyObject* get_grad(PyObject* self, void*) {
  AutogradMeta* m = T(self)->autograd_meta();
  TensorImpl* g = m ? m->grad.get() : nullptr;
  if (!g) Py_RETURN_NONE;
  PyObject*& face = O(self)->grad;
  if (!face || impl_of(face) != g) {
    PyObject* o = wrap_tensor(Tensor(g));
    if (!o) return nullptr;
    Py_XSETREF(face, o);
  }
  return Py_NewRef(face);
}

int set_grad(PyObject* self, PyObject* value, void*) {
  if (value && value != Py_None && !is_tensor(value)) {
    PyErr_SetString(PyExc_TypeError, "assigned grad expected to be a Tensor or None");
    return -1;
  }
  if (value && value != Py_None) {
    TensorImpl* g = impl_of(value);
    if (g->dtype() != T(self)->dtype() || g->sizes() != T(self)->sizes()) {
      PyErr_SetString(PyExc_RuntimeError,
                      "assigned grad has data of a different type or size than the tensor");
      return -1;
    }
  }
  bool some = value && value != Py_None;
  if (some || T(self)->autograd_meta())
    T(self)->ensure_autograd_meta().grad = some ? Tensor(impl_of(value)) : Tensor();
  Py_XSETREF(O(self)->grad, some ? Py_NewRef(value) : nullptr);
  return 0;
}

// .data: the same bytes seen by a tensor outside autograd (a new version counter, as upstream).
PyObject* get_data(PyObject* self, void*) {
  TensorImpl* t = T(self);
  Tensor d = make<TensorImpl>(t->storage(), t->dtype(), t->sizes(), t->strides(),
                              t->storage_offset(), t->representation());
  d->copy_math_bits(*t);
  return wrap_tensor(d);
}

// x.data = y: x now holds y's bytes, shape and dtype (upstream's set_data).
int set_data(PyObject* self, PyObject* value, void*) {
  if (!value || !is_tensor(value)) {
    PyErr_SetString(PyExc_TypeError, "Variable data has to be a tensor, but got something else");
    return -1;
  }
  TensorImpl* src = impl_of(value);
  TensorImpl* dst = T(self);
  TN_PY_TRY
  Value ok = call("aten::_has_compatible_shallow_copy_type", {Value::of(Tensor(dst)),
                                                              Value::of(Tensor(src))})[0];
  if (!ok.b) {
    PyErr_SetString(PyExc_RuntimeError,
                    "_has_compatible_shallow_copy_type(self, new_data) INTERNAL ASSERT: data "
                    "set to a tensor that requires gradients must be floating point or complex "
                    "dtype, or of a compatible representation");
    return -1;
  }
  TN_PY_CATCH(-1)
  dst->set_storage(src->storage());
  dst->set_representation(src->representation());
  dst->set_dtype(src->dtype());
  dst->set_sizes_strides(src->sizes(), src->strides(), src->storage_offset());
  return 0;
}

PyObject* get_base(PyObject* self, void*) {
  const auto& base = T(self)->view_base();
  if (!base) Py_RETURN_NONE;
  return wrap_tensor(base);
}

PyObject* call_view(PyObject* self, const char* key, std::vector<Value> extra) {
  TN_PY_TRY
  std::vector<Value> args{Value::of(Tensor(T(self)))};
  for (auto& v : extra) args.push_back(std::move(v));
  // (x.T of a tensor that is not a matrix warns, as upstream's numpy_T)
  return emit_kernel_warnings(wrap_tensor(call_tensor(key, std::move(args))));
  TN_PY_CATCH(nullptr)
}

// .T, .mT, .H and .mH: upstream's numpy_T, mT, matrix_H and mH ops (composites of transpose,
// permute and conj: kernels/composite/matrix_views.cpp).
PyObject* get_T(PyObject* self, void*) { return call_view(self, "aten::numpy_T", {}); }
PyObject* get_mT(PyObject* self, void*) { return call_view(self, "aten::mT", {}); }
PyObject* get_H(PyObject* self, void*) { return call_view(self, "aten::matrix_H", {}); }
PyObject* get_mH(PyObject* self, void*) { return call_view(self, "aten::mH", {}); }

// .real / .imag: views (aten::real / aten::imag); assigning copies into them, as upstream.
PyObject* get_real(PyObject* self, void*) { return call_view(self, "aten::real", {}); }
PyObject* get_imag(PyObject* self, void*) { return call_view(self, "aten::imag", {}); }
int set_part(PyObject* self, PyObject* value, const char* part) {
  if (!value) {
    PyErr_Format(PyExc_TypeError, "cannot delete tensor.%s", part + 6);
    return -1;
  }
  PyObject* view = call_view(self, part, {});
  if (!view) return -1;
  PyObject* r = PyObject_CallMethod(view, "copy_", "O", value);
  Py_DECREF(view);
  if (r) {
    Py_DECREF(r);
    return 0;
  }
  if (!PyErr_ExceptionMatches(PyExc_TypeError)) return -1;
  // A Python number: copied in as a 0-dim tensor.
  PyErr_Clear();
  PyObject* torch = PyImport_ImportModule("torch");
  if (!torch) return -1;
  PyObject* t = PyObject_CallMethod(torch, "tensor", "O", value);
  Py_DECREF(torch);
  if (!t) return -1;
  view = call_view(self, part, {});
  if (!view) {
    Py_DECREF(t);
    return -1;
  }
  r = PyObject_CallMethod(view, "copy_", "O", t);
  Py_DECREF(view);
  Py_DECREF(t);
  if (!r) return -1;
  Py_DECREF(r);
  return 0;
}
int set_real(PyObject* self, PyObject* v, void*) { return set_part(self, v, "aten::real"); }
int set_imag(PyObject* self, PyObject* v, void*) { return set_part(self, v, "aten::imag"); }

}  // namespace

PyGetSetDef kTensorGetSet[] = {
    // The instance dict (tp_dictoffset) as an attribute, as a Python class's own would be:
    // torch.Tensor's deepcopy and pickling read and clear entries of it.
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, nullptr, nullptr},
    {"shape", get_shape, nullptr, nullptr, nullptr},
    {"dtype", get_dtype, nullptr, nullptr, nullptr},
    {"device", get_device, nullptr, nullptr, nullptr},
    {"layout", get_layout, nullptr, nullptr, nullptr},
    {"ndim", get_ndim, nullptr, nullptr, nullptr},
    {"_version", get_version, nullptr, nullptr, nullptr},
    {"itemsize", get_itemsize, nullptr, nullptr, nullptr},
    {"nbytes", get_nbytes, nullptr, nullptr, nullptr},
    {"requires_grad", get_requires_grad, set_requires_grad, nullptr, nullptr},
    {"is_leaf", get_is_leaf, nullptr, nullptr, nullptr},
    {"grad", get_grad, set_grad, nullptr, nullptr},
    {"_grad", get_grad, set_grad, nullptr, nullptr},
    {"grad_fn", get_grad_fn, nullptr, nullptr, nullptr},
    {"_backward_hooks", get_backward_hooks, set_backward_hooks, nullptr, nullptr},
    {"_post_accumulate_grad_hooks", get_post_accumulate_hooks, set_post_accumulate_hooks,
     nullptr, nullptr},
    {"retains_grad", get_retains_grad, nullptr, nullptr, nullptr},
    {"_grad_fn", get_grad_fn, nullptr, nullptr, nullptr},
    {"data", get_data, set_data, nullptr, nullptr},
    {"_base", get_base, nullptr, nullptr, nullptr},
    {"output_nr", get_output_nr, nullptr, nullptr, nullptr},
    {"T", get_T, nullptr, nullptr, nullptr},
    {"mT", get_mT, nullptr, nullptr, nullptr},
    {"H", get_H, nullptr, nullptr, nullptr},
    {"mH", get_mH, nullptr, nullptr, nullptr},
    {"real", get_real, set_real, nullptr, nullptr},
    {"imag", get_imag, set_imag, nullptr, nullptr},
    {"is_cpu", get_is_cpu, nullptr, nullptr, nullptr},
    {"is_meta", get_is_meta, nullptr, nullptr, nullptr},
    {"is_cuda", get_false, nullptr, nullptr, nullptr},
    {"is_xpu", get_false, nullptr, nullptr, nullptr},
    {"is_mps", get_false, nullptr, nullptr, nullptr},
    {"is_mtia", get_false, nullptr, nullptr, nullptr},
    {"is_ipu", get_false, nullptr, nullptr, nullptr},
    {"is_xla", get_false, nullptr, nullptr, nullptr},
    {"is_hpu", get_false, nullptr, nullptr, nullptr},
    {"is_maia", get_false, nullptr, nullptr, nullptr},
    {"is_vulkan", get_false, nullptr, nullptr, nullptr},
    {"is_lazy", get_false, nullptr, nullptr, nullptr},
    {"is_sparse", get_false, nullptr, nullptr, nullptr},
    {"is_sparse_csr", get_false, nullptr, nullptr, nullptr},
    {"is_quantized", get_false, nullptr, nullptr, nullptr},
    {"is_mkldnn", get_false, nullptr, nullptr, nullptr},
    {"is_nested", get_false, nullptr, nullptr, nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

}  // namespace tn::py
