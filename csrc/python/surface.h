// The name surface of torch._C: submodules, placeholders for names that do nothing yet, and the
// helpers hand-written parts use to put real objects in place. Only csrc/python includes Python.h.
#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>

namespace tn::py {

// torch._C, or one of its submodules ("torch._C._nn"), created on first use and registered in
// sys.modules and as an attribute of its parent. Borrowed reference.
PyObject* module(const char* qualname);

// Adds obj (stolen) to module qualname under name; returns false with a Python error set.
bool add(const char* qualname, const char* name, PyObject* obj);

// A placeholder: raises NotImplementedError naming `qualname` when called or tested for truth.
PyObject* placeholder(const char* qualname);

// A placeholder descriptor for a class attribute (reading it on an instance raises).
PyObject* placeholder_attr(const char* qualname);

// Creates a placeholder for every name of the generated table that hand-written code has not
// already supplied. Called last by PyInit__C.
bool build_surface();

bool init_placeholder_types();

}  // namespace tn::py
