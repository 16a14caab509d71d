// torch.dtype, torch.layout, torch.memory_format, torch.qscheme: the Python objects and their
// mapping to and from the core's enums.
#pragma once

#include "core/scalar_type.h"
#include "python/surface.h"

namespace tn::py {

struct DtypeObject {
  PyObject_HEAD
  ScalarType scalar_type;
};

extern PyTypeObject DtypeType;
extern PyTypeObject LayoutType;
extern PyTypeObject MemoryFormatType;

enum class MemoryFormat : int8_t { Contiguous, ChannelsLast, ChannelsLast3d, Preserve };

inline bool is_dtype(PyObject* o) { return Py_TYPE(o) == &DtypeType; }
inline ScalarType dtype_of(PyObject* o) { return reinterpret_cast<DtypeObject*>(o)->scalar_type; }
// A dtype argument as upstream's parser reads one: a torch.dtype, or Python's own types
// (float -> float64, int -> int64, bool -> bool).
inline bool as_dtype(PyObject* o, ScalarType* t) {
  if (is_dtype(o)) *t = dtype_of(o);
  else if (o == reinterpret_cast<PyObject*>(&PyFloat_Type)) *t = ScalarType::Double;
  else if (o == reinterpret_cast<PyObject*>(&PyLong_Type)) *t = ScalarType::Long;
  else if (o == reinterpret_cast<PyObject*>(&PyBool_Type)) *t = ScalarType::Bool;
  else return false;
  return true;
}
PyObject* dtype_object(ScalarType t);  // borrowed
PyObject* strided_layout();            // borrowed
PyObject* memory_format_object(MemoryFormat f);  // borrowed
bool is_memory_format(PyObject* o);
MemoryFormat memory_format_of(PyObject* o);

// Writes dtype/layout/memory_format/qscheme objects into module m (torch, at _initExtension).
bool export_dtypes(PyObject* m);

// The default floating dtype (torch.set_default_dtype); process-wide, as upstream's.
ScalarType default_dtype();
void set_default_dtype(ScalarType t);

}  // namespace tn::py
