// What the door's Python-side kernels share (dispatch_mode.cpp): the Python key's handler and
// torch.library's Python kernels (py_kernel.cpp) both call Python code with a call's arguments
// and read its results back. All of these need the GIL.
#pragma once

#include <Python.h>

#include "dispatch/kernel.h"

namespace tn::py {

// torch.ops.<ns>.<name>.<overload> for op i (borrowed; cached for the process), or nullptr with
// a Python error.
PyObject* op_overload(int op);
// A call's arguments as upstream hands them to Python: positional ones up to the last that
// differs from its default, keyword-only ones that differ from their defaults. False with a
// Python error.
bool python_args(const Call& call, PyObject** args, PyObject** kwargs);
// A Python result -> the call's results, typed by the schema's returns; `who` names the Python
// code in the error ("__torch_dispatch__", "the Python kernel"). Keeps `r` alive until the
// outermost binder call has wrapped its results (a returned subclass instance must come back
// as that very object).
void take_python_results(Call& call, PyObject* r, const char* who);

struct Gil {
  PyGILState_STATE state = PyGILState_Ensure();
  ~Gil() { PyGILState_Release(state); }
};

}  // namespace tn::py
