// The back-end contract's Python face, ours only (upstream has no such functions, hence the _tn_
// prefix): _tn_device_availability(type) -> (available, probe, reason) and
// _tn_transfer_counts(type) -> {to_device, to_host, bytes_to_device, bytes_to_host}, with
// _tn_reset_transfer_counts(type), so tests prove what crossed between host and device.
#include "core/backend.h"
#include "python/init.h"

namespace tn::py {
namespace {

bool device_type_arg(PyObject* arg, DeviceType* out) {
  const char* s = PyUnicode_Check(arg) ? PyUnicode_AsUTF8(arg) : nullptr;
  if (!s) {
    PyErr_SetString(PyExc_TypeError, "expected a device type name such as 'cpu'");
    return false;
  }
  if (!device_type_of_name(s, out)) {
    PyErr_Format(PyExc_ValueError, "torchnative's device table has no '%s' row", s);
    return false;
  }
  return true;
}

PyObject* device_availability(PyObject*, PyObject* arg) {
  DeviceType t;
  if (!device_type_arg(arg, &t)) return nullptr;
  Availability a = availability(t);
  return Py_BuildValue("(Nss)", PyBool_FromLong(a.available), a.probe.c_str(), a.reason.c_str());
}

PyObject* transfer_counts_of(PyObject*, PyObject* arg) {
  DeviceType t;
  if (!device_type_arg(arg, &t)) return nullptr;
  TransferCounts c = transfer_counts(t);
  return Py_BuildValue("{sKsKsKsK}", "to_device", c.to_device, "to_host", c.to_host,
                       "bytes_to_device", c.bytes_to_device, "bytes_to_host", c.bytes_to_host);
}

PyObject* reset_counts(PyObject*, PyObject* arg) {
  DeviceType t;
  if (!device_type_arg(arg, &t)) return nullptr;
  reset_transfer_counts(t);
  Py_RETURN_NONE;
}

PyMethodDef kFunctions[] = {
    {"_tn_device_availability", device_availability, METH_O, nullptr},
    {"_tn_transfer_counts", transfer_counts_of, METH_O, nullptr},
    {"_tn_reset_transfer_counts", reset_counts, METH_O, nullptr},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

bool init_backends() {
  for (PyMethodDef* d = kFunctions; d->ml_name; ++d)
    if (!add("torch._C", d->ml_name, PyCFunction_New(d, nullptr))) return false;
  return true;
}

}  // namespace tn::py
