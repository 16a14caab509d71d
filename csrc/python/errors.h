// The one translation table from C++ errors to Python exceptions. Every entry point from Python
// into the core wraps its body in TN_PY_TRY / TN_PY_CATCH(return_value_on_error), so no C++
// exception ever crosses into CPython (which would terminate the process).
#pragma once

#include <exception>

#include "core/error.h"
#include "python/surface.h"

namespace tn::py {

// Thrown where a Python error is already set (a failed C-API call inside C++ code).
struct PythonErrorSet : std::exception {
  const char* what() const noexcept override { return "a Python error is set"; }
};

// torch._C._LinAlgError (torch.linalg.LinAlgError), a subclass of RuntimeError: functions.cpp.
PyObject* linalg_error_type();

inline PyObject* python_type_for(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::LinAlg: return linalg_error_type();
    case ErrorKind::Value: return PyExc_ValueError;
    case ErrorKind::Type: return PyExc_TypeError;
    case ErrorKind::Index: return PyExc_IndexError;
    case ErrorKind::NotImplemented: return PyExc_NotImplementedError;
    case ErrorKind::OutOfMemory: return PyExc_MemoryError;
    case ErrorKind::Runtime:
    case ErrorKind::Internal: return PyExc_RuntimeError;
  }
  return PyExc_RuntimeError;
}

// Sets the Python error for the exception being handled.
inline void set_python_error() {
  try {
    throw;
  } catch (const PythonErrorSet&) {
    // keep the Python error that is already set
  } catch (const Error& e) {
    PyErr_SetString(python_type_for(e.kind), e.what());
  } catch (const std::bad_alloc&) {
    PyErr_NoMemory();
  } catch (const std::exception& e) {
    PyErr_Format(PyExc_RuntimeError, "torchnative internal error: %s", e.what());
  }
}

}  // namespace tn::py

#define TN_PY_TRY try {
#define TN_PY_CATCH(on_error)  \
  }                            \
  catch (...) {                \
    ::tn::py::set_python_error(); \
    return on_error;           \
  }
