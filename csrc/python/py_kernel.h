// torch.library's Python kernels and the dispatcher's Python face (py_kernel.cpp), and the
// conversions between the door's key sets and torch._C.DispatchKeySet (dispatch_keys.cpp).
#pragma once

#include <Python.h>

#include <string>

#include "dispatch/kernel.h"

namespace tn::py {

// A Python callable registered with Library.impl (owned by the library that registered it).
struct PyKernel {
  PyObject* fn;
  bool with_keyset;
};
// The door's kernel calling k (k must outlive its registration).
Kernel python_kernel(const PyKernel* k);
// Upstream's dispatch key name -> the slot it fills here; false for a key this core has no
// layer or back end for (CUDA, Functionalize, Autocast...: recorded, never run).
bool python_kernel_slot(const std::string& key, KernelSlot* slot);

// The door's keys as a torch._C.DispatchKeySet (upstream's names: Autograd shows as the back
// ends' Autograd<backend> keys), and back: the keys of a DispatchKeySet (or DispatchKey) this
// core has. False / nullptr with a Python error.
PyObject* keyset_object(KeySet ks);
bool keyset_of(PyObject* o, KeySet* out);

bool init_py_kernels();

}  // namespace tn::py
