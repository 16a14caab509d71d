// torch.device (see device.h).
#include "python/device.h"

#include <cstring>
#include <string>
#include <vector>

namespace tn::py {
namespace {

// Upstream's device type names (c10/core/DeviceType.cpp), in its parse order.
const char* const kKnownTypes[] = {"cpu",  "cuda", "ipu",  "xpu",    "mkldnn", "opengl",
                                   "opencl", "ideep", "hip", "ve",   "fpga",   "maia",
                                   "xla",  "lazy", "vulkan", "mps", "meta",   "hpu",
                                   "mtia", "privateuseone"};

bool known_type(const std::string& t) {
  for (const char* k : kKnownTypes)
    if (t == k) return true;
  return false;
}

// "cpu", "cuda:1" -> (type, index); false with RuntimeError as upstream on bad strings.
bool parse_string(const std::string& s, std::string* type, int* index) {
  size_t colon = s.find(':');
  *type = s.substr(0, colon);
  *index = -1;
  if (colon != std::string::npos) {
    std::string idx = s.substr(colon + 1);
    bool digits = !idx.empty() && idx.size() < 10;
    for (char c : idx) digits = digits && c >= '0' && c <= '9';
    if (!digits || (idx.size() > 1 && idx[0] == '0')) {
      PyErr_Format(PyExc_RuntimeError, "Invalid device string: '%s'", s.c_str());
      return false;
    }
    *index = std::stoi(idx);
  }
  if (!known_type(*type)) {
    PyErr_Format(PyExc_RuntimeError,
                 "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, "
                 "fpga, maia, xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type "
                 "at start of device string: %s",
                 s.c_str());
    return false;
  }
  return true;
}

PyObject* make(const std::string& type, int index) {
  auto* d = PyObject_New(DeviceObject, &DeviceType_);
  if (!d) return nullptr;
  d->type = PyUnicode_FromString(type.c_str());
  d->index = index;
  return reinterpret_cast<PyObject*>(d);
}

PyObject* device_new(PyTypeObject*, PyObject* args, PyObject* kwargs) {
  static const char* kw[] = {"type", "index", nullptr};
  PyObject* first = nullptr;
  PyObject* index_obj = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O:device", const_cast<char**>(kw), &first,
                                   &index_obj))
    return nullptr;
  if (is_device(first) && index_obj == Py_None) return Py_NewRef(first);
  if (PyLong_Check(first) && !PyBool_Check(first)) {
    PyErr_SetString(PyExc_NotImplementedError,
                    "torch.device(int) names the current accelerator; torchnative has none");
    return nullptr;
  }
  if (!PyUnicode_Check(first)) {
    PyErr_Format(PyExc_TypeError, "device() received an invalid combination of arguments - got (%s)",
                 Py_TYPE(first)->tp_name);
    return nullptr;
  }
  std::string type;
  int index;
  if (!parse_string(PyUnicode_AsUTF8(first), &type, &index)) return nullptr;
  if (index_obj != Py_None) {
    if (index >= 0) {
      PyErr_Format(PyExc_RuntimeError,
                   "type (string) must not include an index because index was passed explicitly: %s",
                   PyUnicode_AsUTF8(first));
      return nullptr;
    }
    if (!PyLong_Check(index_obj) || PyBool_Check(index_obj)) {
      PyErr_SetString(PyExc_TypeError, "device(): argument 'index' must be int");
      return nullptr;
    }
    int overflow = 0;
    long long i = PyLong_AsLongLongAndOverflow(index_obj, &overflow);
    if (overflow) {
      PyErr_SetString(PyExc_ValueError, "Overflow when unpacking long long");
      return nullptr;
    }
    if (i < 0) {
      PyErr_Format(PyExc_RuntimeError, "Device index must not be negative");
      return nullptr;
    }
    index = static_cast<int>(i);
  }
  return make(type, index);
}

void device_dealloc(PyObject* self) {
  Py_XDECREF(reinterpret_cast<DeviceObject*>(self)->type);
  Py_TYPE(self)->tp_free(self);
}

PyObject* device_repr(PyObject* self) {
  auto* d = reinterpret_cast<DeviceObject*>(self);
  if (d->index >= 0) return PyUnicode_FromFormat("device(type='%U', index=%d)", d->type, d->index);
  return PyUnicode_FromFormat("device(type='%U')", d->type);
}

PyObject* device_str(PyObject* self) {
  auto* d = reinterpret_cast<DeviceObject*>(self);
  if (d->index >= 0) return PyUnicode_FromFormat("%U:%d", d->type, d->index);
  return Py_NewRef(d->type);
}

PyObject* device_richcompare(PyObject* a, PyObject* b, int op) {
  if (!is_device(a) || !is_device(b) || (op != Py_EQ && op != Py_NE))
    Py_RETURN_NOTIMPLEMENTED;
  auto* x = reinterpret_cast<DeviceObject*>(a);
  auto* y = reinterpret_cast<DeviceObject*>(b);
  int eq = PyUnicode_Compare(x->type, y->type) == 0 && x->index == y->index;
  return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

Py_hash_t device_hash(PyObject* self) {
  auto* d = reinterpret_cast<DeviceObject*>(self);
  Py_hash_t h = PyObject_Hash(d->type);
  return h ^ (d->index + 2) * 1000003;
}

PyObject* device_type(PyObject* self, void*) {
  return Py_NewRef(reinterpret_cast<DeviceObject*>(self)->type);
}

PyObject* device_index(PyObject* self, void*) {
  auto* d = reinterpret_cast<DeviceObject*>(self);
  if (d->index < 0) Py_RETURN_NONE;
  return PyLong_FromLong(d->index);
}

PyObject* device_reduce(PyObject* self, PyObject*) {
  auto* d = reinterpret_cast<DeviceObject*>(self);
  PyObject* args = d->index >= 0 ? Py_BuildValue("(Oi)", d->type, d->index)
                                 : Py_BuildValue("(O)", d->type);
  PyObject* torch = PyImport_ImportModule("torch");
  if (!torch) return nullptr;
  PyObject* ctor = PyObject_GetAttrString(torch, "device");
  Py_DECREF(torch);
  PyObject* r = Py_BuildValue("(NN)", ctor, args);
  return r;
}

// `with torch.device(...)`: upstream enters torch.utils._device.DeviceContext, a torch-function
// mode; so do we, through the same Python class. The entered contexts form a per-thread stack.
thread_local std::vector<PyObject*> t_device_contexts;

PyObject* device_enter(PyObject* self, PyObject*) {
  PyObject* mod = PyImport_ImportModule("torch.utils._device");
  if (!mod) return nullptr;
  PyObject* ctx = PyObject_CallMethod(mod, "DeviceContext", "O", self);
  Py_DECREF(mod);
  if (!ctx) return nullptr;
  PyObject* r = PyObject_CallMethod(ctx, "__enter__", nullptr);
  if (!r) {
    Py_DECREF(ctx);
    return nullptr;
  }
  Py_DECREF(r);
  t_device_contexts.push_back(ctx);
  return Py_NewRef(self);
}

PyObject* device_exit(PyObject*, PyObject*) {
  if (t_device_contexts.empty()) {
    PyErr_SetString(PyExc_RuntimeError, "torch.device.__exit__ without a matching __enter__");
    return nullptr;
  }
  PyObject* ctx = t_device_contexts.back();
  t_device_contexts.pop_back();
  PyObject* r = PyObject_CallMethod(ctx, "__exit__", "OOO", Py_None, Py_None, Py_None);
  Py_DECREF(ctx);
  if (!r) return nullptr;
  Py_DECREF(r);
  Py_RETURN_NONE;
}

PyMethodDef device_methods[] = {
    {"__reduce__", device_reduce, METH_NOARGS, nullptr},
    {"__enter__", device_enter, METH_NOARGS, nullptr},
    {"__exit__", device_exit, METH_VARARGS, nullptr},
    {nullptr, nullptr, 0, nullptr}};

PyGetSetDef device_getset[] = {{"type", device_type, nullptr, nullptr, nullptr},
                               {"index", device_index, nullptr, nullptr, nullptr},
                               {nullptr, nullptr, nullptr, nullptr, nullptr}};

}  // namespace

PyTypeObject DeviceType_ = [] {
  PyTypeObject t{PyVarObject_HEAD_INIT(nullptr, 0)};
  t.tp_name = "torch.device";
  t.tp_basicsize = sizeof(DeviceObject);
  t.tp_flags = Py_TPFLAGS_DEFAULT;
  t.tp_new = device_new;
  t.tp_dealloc = device_dealloc;
  t.tp_repr = device_repr;
  t.tp_str = device_str;
  t.tp_richcompare = device_richcompare;
  t.tp_hash = device_hash;
  t.tp_methods = device_methods;
  t.tp_getset = device_getset;
  return t;
}();

PyObject* device_object(const Device& d) { return make(device_type_name(d.type), d.index); }

bool parse_device(PyObject* o, Device* out) {
  std::string type;
  int index = -1;
  if (is_device(o)) {
    auto* d = reinterpret_cast<DeviceObject*>(o);
    type = PyUnicode_AsUTF8(d->type);
    index = d->index;
  } else if (PyUnicode_Check(o)) {
    if (!parse_string(PyUnicode_AsUTF8(o), &type, &index)) return false;
  } else if (PyLong_Check(o) && !PyBool_Check(o)) {
    PyErr_SetString(PyExc_NotImplementedError,
                    "a device given as an int names an accelerator; torchnative has none");
    return false;
  } else {
    PyErr_Format(PyExc_TypeError, "expected a torch.device or str, got %s", Py_TYPE(o)->tp_name);
    return false;
  }
  // The device table (core/device_table.h) names what torchnative has a back end for.
  if (!device_type_of_name(type, &out->type)) {
    PyErr_Format(PyExc_NotImplementedError,
                 "torchnative has no '%s' device yet: it has no back end for it", type.c_str());
    return false;
  }
  out->index = index;
  return true;
}

bool init_device() {
  if (PyType_Ready(&DeviceType_) != 0) return false;
  return PyModule_AddObjectRef(module("torch._C"), "device",
                               reinterpret_cast<PyObject*>(&DeviceType_)) == 0;
}

}  // namespace tn::py
