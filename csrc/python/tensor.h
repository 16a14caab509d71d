// TensorBase: the Python object around a core TensorImpl. Results of ops are instances of the
// Python class torch.Tensor registered at _initExtension (PRIOR_ART.md, section 3).
#pragma once

#include "core/tensor_impl.h"
#include "python/surface.h"

namespace tn::py {

struct TensorObject {
  PyObject_HEAD
  TensorImpl* impl;  // owned reference (intrusive)
  PyObject* dict;
  PyObject* weakrefs;
  PyObject* grad;  // the Python face of the core's .grad (AutogradMeta::grad), or nullptr
  PyObject* size;  // the torch.Size last returned by size() or .shape, or nullptr (see tensor_size)
};

// x.size() and x.shape: the torch.Size last made for this tensor while it still equals the
// tensor's sizes, else a new one (kept for the next call). Sizes are compared, not versioned, so
// every in-place change of geometry (resize_, set_, squeeze_, x.data = y) is seen. New reference.
PyObject* tensor_size(PyObject* self);

extern PyTypeObject TensorMetaType;
extern PyTypeObject TensorBaseType;

inline bool is_tensor(PyObject* o) { return PyObject_TypeCheck(o, &TensorBaseType); }
inline TensorImpl* impl_of(PyObject* o) { return reinterpret_cast<TensorObject*>(o)->impl; }

// Wraps t as an instance of torch.Tensor (or of type, when given). New reference.
PyObject* wrap_tensor(Tensor t, PyTypeObject* type = nullptr);

// Records the Python class torch.Tensor (called by _initExtension).
bool set_tensor_class(PyObject* cls);
PyTypeObject* tensor_class();

// Dimension wrapping with upstream's IndexError text; false with the error set.
bool wrap_dim(int64_t dim, int64_t ndim, int64_t* out);

}  // namespace tn::py
