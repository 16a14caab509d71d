// torch._C._return_types: the named-tuple classes of ops whose returns are named
// (return_types.cpp).
#pragma once

#include <Python.h>

#include "dispatch/schema.h"

namespace tn::py {

// The class for a call of schema s's results (null: they are a plain tuple).
PyTypeObject* return_type_of(const FunctionSchema& s);

}  // namespace tn::py
