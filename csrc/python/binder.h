// The binder: Python arguments -> one overload's schema-ordered Values, following upstream's
// argument-parsing rules (overloads tried in upstream's order, first fit wins; bool is not an
// int; an int is a float; a 0-dim tensor is a Scalar; int[N] takes a bare int; a lone int-list
// parameter takes varargs; `input` names `self`; out= binds the .out overload; requires_grad is
// a Python-only factory keyword). Results go back as the registered torch.Tensor class, and an
// in-place or out= result is the very Python object that was passed in.
#pragma once

#include <string>
#include <vector>

#include "core/dispatch_key.h"
#include "dispatch/schema.h"
#include "dispatch/value.h"
#include "python/surface.h"

namespace tn::py {

// One Python spelling's overloads, in the order upstream's parser tries them.
struct Overload {
  int base;  // op index of the functional overload
  int out;   // op index of its out= variant, or -1
};

// Overloads of torch.<module>.<name> (module "" for torch) or of Tensor.<name> (is_method).
const std::vector<Overload>& python_overloads(bool is_method, const std::string& module,
                                              const std::string& name);

// Binds and calls. `self` is the tensor for method calls (nullptr for functions). With
// schema_names (torch.ops spellings) arguments use the schema's names (`self`, not `input`).
// With `keys`, the door runs the call on that key set (a redispatch).
PyObject* call_overloads(const char* display_name, const std::vector<Overload>& overloads,
                         PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                         PyObject* kwnames, bool schema_names, const KeySet* keys = nullptr);

// Python value -> Value for one schema argument type; false (no error set) when it does not fit.
// out must be a fresh (None) Value: only the fields of the kind bound are written.
bool to_value(PyObject* obj, const Argument& arg, Value* out);
// Hands the warnings the kernels of a call queued (core/warning.h) to Python's warnings module,
// for bindings that call the door themselves; returns r, or null when a filter raised one.
PyObject* emit_kernel_warnings(PyObject* r);
// A Scalar as the Python number of its kind (int, float, complex, bool).
PyObject* scalar_to_python(const Scalar& s);
// A result Value -> Python object (new reference).
PyObject* to_python(const Value& v);

// dispatch_mode.cpp: drops the objects __torch_dispatch__ returned during this thread's calls
// (the outermost binder call runs it once its results are wrapped). Needs the GIL.
void release_dispatch_results();

// torch_function.cpp: whether a call must go through __torch_function__, and the hand-off.
bool torch_function_needed(PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                           PyObject* kwnames);
PyObject* handle_torch_function(PyObject* public_api, PyObject* self, PyObject* const* args,
                                Py_ssize_t nargs, PyObject* kwnames);

}  // namespace tn::py
