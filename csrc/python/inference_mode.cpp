// torch._C._InferenceMode: the guard behind torch.inference_mode. As upstream's (a guard made at
// construction, released by __exit__ or when the object dies): on, it turns inference mode on
// and grad mode off; off (inference_mode(False) inside one), the reverse. Inference mode itself,
// and the inference tensors made under it, are the core's (core/tensor_impl.h).
#include "autograd/grad_mode.h"
#include "core/tensor_impl.h"
#include "python/init.h"

namespace tn::py {
namespace {

struct InferenceModeObject {
  PyObject_HEAD
  bool active;
  bool prev_inference;
  bool prev_grad;
};

InferenceModeObject* im(PyObject* o) { return reinterpret_cast<InferenceModeObject*>(o); }

void release(InferenceModeObject* g) {
  if (!g->active) return;
  g->active = false;
  set_inference_mode(g->prev_inference);
  set_grad_mode(g->prev_grad);
}

int im_init(PyObject* self, PyObject* args, PyObject* kwargs) {
  static const char* kw[] = {"enabled", nullptr};
  int enabled = 1;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "p:_InferenceMode", const_cast<char**>(kw),
                                   &enabled))
    return -1;
  InferenceModeObject* g = im(self);
  release(g);
  g->prev_inference = inference_mode_enabled();
  g->prev_grad = grad_mode_enabled();
  g->active = true;
  set_inference_mode(enabled);
  set_grad_mode(!enabled);
  return 0;
}

void im_dealloc(PyObject* self) {
  release(im(self));
  Py_TYPE(self)->tp_free(self);
}

PyObject* im_enter(PyObject* self, PyObject*) { return Py_NewRef(self); }
PyObject* im_exit(PyObject* self, PyObject*) {
  release(im(self));
  Py_RETURN_NONE;
}

PyMethodDef kMethods[] = {{"__enter__", im_enter, METH_NOARGS, nullptr},
                          {"__exit__", im_exit, METH_VARARGS, nullptr},
                          {nullptr, nullptr, 0, nullptr}};

}  // namespace

bool init_inference_mode() {
  static PyType_Slot slots[] = {{Py_tp_init, reinterpret_cast<void*>(im_init)},
                                {Py_tp_new, reinterpret_cast<void*>(PyType_GenericNew)},
                                {Py_tp_dealloc, reinterpret_cast<void*>(im_dealloc)},
                                {Py_tp_methods, kMethods},
                                {0, nullptr}};
  static PyType_Spec spec = {"torch._C._InferenceMode", sizeof(InferenceModeObject), 0,
                             Py_TPFLAGS_DEFAULT, slots};
  PyObject* type = PyType_FromSpec(&spec);
  return add("torch._C", "_InferenceMode", type);
}

}  // namespace tn::py
