// torch.device: a device type name and an optional index. Any upstream device type can be named;
// only those the core has (cpu, meta) can hold tensors, and asking for another refuses by name.
#pragma once

#include "core/device.h"
#include "python/surface.h"

namespace tn::py {

struct DeviceObject {
  PyObject_HEAD
  PyObject* type;  // str
  int index;       // -1 when absent
};

extern PyTypeObject DeviceType_;

inline bool is_device(PyObject* o) { return Py_TYPE(o) == &DeviceType_; }
PyObject* device_object(const Device& d);  // new reference
// Parses a torch.device, a str ("cpu", "meta:0") or an int into a core device. Refuses device
// types the core lacks with NotImplementedError naming them. Returns false with an error set.
bool parse_device(PyObject* o, Device* out);

}  // namespace tn::py
