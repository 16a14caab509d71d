// Autocast's state (torch.is_autocast_enabled / get_autocast_dtype / autocast_increment_nesting
// and friends), per thread as upstream's. torch.autocast(enabled=False) is everyday code (the
// rotary embeddings of transformers' models, torch.utils.checkpoint's recomputation) and works;
// mixed-precision casting itself is not implemented, so enabling autocast for any device
// refuses by name rather than running in full precision silently.
#include <cstring>
#include <string>

#include "core/error.h"
#include "python/dtype.h"
#include "python/errors.h"
#include "python/init.h"

namespace tn::py {

PyObject* make_builtin(const PyMethodDef& proto, const char* name, PyObject* self);  // state.cpp

namespace {

// Upstream's autocast device types, in _autocast_supported_devices' order, and every device
// type its parser knows (for its error message).
const char* const kAutocastDevices[] = {"cpu", "cuda", "mtia", "maia",          "xpu",
                                        "ipu", "hpu",  "xla",  "privateuseone", "mps"};
constexpr int kNumDevices = sizeof(kAutocastDevices) / sizeof(kAutocastDevices[0]);
const char* const kKnownDevices =
    "cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, lazy, "
    "vulkan, mps, meta, hpu, mtia, privateuseone";
const char* const kAllDevices[] = {"cpu",  "cuda", "ipu", "xpu",  "mkldnn", "opengl", "opencl",
                                   "ideep", "hip", "ve",  "fpga", "maia",   "xla",    "lazy",
                                   "vulkan", "mps", "meta", "hpu", "mtia",   "privateuseone"};

struct State {
  ScalarType dtype[kNumDevices];
  int nesting = 0;
  State() {
    for (int i = 0; i < kNumDevices; ++i)
      dtype[i] = i == 0 ? ScalarType::BFloat16 : ScalarType::Half;
  }
};
thread_local State t_state;

// The device type of a string as upstream parses it ("cuda:0" -> cuda): its index among the
// autocast devices, -1 for a known device type without autocast; unknown ones raise.
int device_index(PyObject* arg) {
  if (!PyUnicode_Check(arg)) {
    PyErr_Format(PyExc_TypeError, "expected a device type string, but got '%s'",
                 Py_TYPE(arg)->tp_name);
    throw PythonErrorSet();
  }
  std::string s = PyUnicode_AsUTF8(arg);
  std::string type = s.substr(0, s.find(':'));
  for (int i = 0; i < kNumDevices; ++i)
    if (type == kAutocastDevices[i]) return i;
  for (const char* d : kAllDevices)
    if (type == d) return -1;
  TN_FAIL(Runtime, "Expected one of ", kKnownDevices, " device type at start of device string: ",
          s);
}

int autocast_device(PyObject* arg, const char* what) {
  int i = device_index(arg);
  TN_CHECK(i >= 0, "User specified an unsupported autocast device_type '",
           PyUnicode_AsUTF8(arg), "' for ", what);
  return i;
}

PyObject* is_available(PyObject*, PyObject* arg) {
  TN_PY_TRY
  return PyBool_FromLong(device_index(arg) >= 0);
  TN_PY_CATCH(nullptr)
}

PyObject* supported_devices(PyObject*, PyObject*) {
  PyObject* l = PyList_New(kNumDevices);
  if (!l) return nullptr;
  for (int i = 0; i < kNumDevices; ++i) PyList_SET_ITEM(l, i, PyUnicode_FromString(kAutocastDevices[i]));
  return l;
}

// Never enabled: enabling refuses (set_enabled).
PyObject* is_enabled(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  TN_PY_TRY
  if (nargs > 0) autocast_device(args[0], "is_autocast_enabled");
  Py_RETURN_FALSE;
  TN_PY_CATCH(nullptr)
}

void refuse_enabling(bool on, const char* device) {
  TN_CHECK_KIND(!on, NotImplemented, "torchnative: autocast (mixed-precision casting of ops, "
                "torch.autocast(\"", device, "\") with enabled=True) is not implemented; "
                "enabled=False works");
}

// set_autocast_enabled(device_type, enabled), or the legacy set_autocast_enabled(enabled) (CUDA).
PyObject* set_enabled(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  TN_PY_TRY
  if (nargs == 1) {
    int on = PyObject_IsTrue(args[0]);
    if (on < 0) return nullptr;
    refuse_enabling(on, "cuda");
    Py_RETURN_NONE;
  }
  TN_CHECK_KIND(nargs == 2, Type, "set_autocast_enabled() takes (device_type, enabled)");
  int i = autocast_device(args[0], "set_autocast_enabled");
  int on = PyObject_IsTrue(args[1]);
  if (on < 0) return nullptr;
  refuse_enabling(on, kAutocastDevices[i]);
  Py_RETURN_NONE;
  TN_PY_CATCH(nullptr)
}

PyObject* get_dtype(PyObject*, PyObject* arg) {
  TN_PY_TRY
  return Py_NewRef(dtype_object(t_state.dtype[autocast_device(arg, "get_autocast_dtype")]));
  TN_PY_CATCH(nullptr)
}

PyObject* set_dtype(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  TN_PY_TRY
  TN_CHECK_KIND(nargs == 2 && is_dtype(args[1]), Type,
                "set_autocast_dtype() takes (device_type: str, dtype: torch.dtype)");
  t_state.dtype[autocast_device(args[0], "set_autocast_dtype")] = dtype_of(args[1]);
  Py_RETURN_NONE;
  TN_PY_CATCH(nullptr)
}

// The legacy per-device spellings: cpu and "gpu" (cuda).
PyObject* legacy_false(PyObject*, PyObject*) { Py_RETURN_FALSE; }
PyObject* set_cpu_enabled(PyObject*, PyObject* arg) {
  TN_PY_TRY
  int on = PyObject_IsTrue(arg);
  if (on < 0) return nullptr;
  refuse_enabling(on, "cpu");
  Py_RETURN_NONE;
  TN_PY_CATCH(nullptr)
}
PyObject* get_cpu_dtype(PyObject*, PyObject*) { return Py_NewRef(dtype_object(t_state.dtype[0])); }
PyObject* get_gpu_dtype(PyObject*, PyObject*) { return Py_NewRef(dtype_object(t_state.dtype[1])); }
PyObject* set_legacy_dtype(int index, PyObject* arg) {
  if (!is_dtype(arg)) {
    PyErr_SetString(PyExc_TypeError, "expected a torch.dtype");
    return nullptr;
  }
  t_state.dtype[index] = dtype_of(arg);
  Py_RETURN_NONE;
}
PyObject* set_cpu_dtype(PyObject*, PyObject* arg) { return set_legacy_dtype(0, arg); }
PyObject* set_gpu_dtype(PyObject*, PyObject* arg) { return set_legacy_dtype(1, arg); }

PyObject* increment_nesting(PyObject*, PyObject*) { return PyLong_FromLong(++t_state.nesting); }
PyObject* decrement_nesting(PyObject*, PyObject*) { return PyLong_FromLong(--t_state.nesting); }
// Nothing is cached: no op is ever cast.
PyObject* clear_cache(PyObject*, PyObject*) { Py_RETURN_NONE; }

PyMethodDef kFunctions[] = {
    {"_is_autocast_available", is_available, METH_O, nullptr},
    {"_autocast_supported_devices", supported_devices, METH_NOARGS, nullptr},
    {"is_autocast_enabled", reinterpret_cast<PyCFunction>(is_enabled), METH_FASTCALL, nullptr},
    {"set_autocast_enabled", reinterpret_cast<PyCFunction>(set_enabled), METH_FASTCALL, nullptr},
    {"get_autocast_dtype", get_dtype, METH_O, nullptr},
    {"set_autocast_dtype", reinterpret_cast<PyCFunction>(set_dtype), METH_FASTCALL, nullptr},
    {"is_autocast_cpu_enabled", legacy_false, METH_NOARGS, nullptr},
    {"_is_any_autocast_enabled", legacy_false, METH_NOARGS, nullptr},
    {"set_autocast_cpu_enabled", set_cpu_enabled, METH_O, nullptr},
    {"get_autocast_cpu_dtype", get_cpu_dtype, METH_NOARGS, nullptr},
    {"get_autocast_gpu_dtype", get_gpu_dtype, METH_NOARGS, nullptr},
    {"set_autocast_cpu_dtype", set_cpu_dtype, METH_O, nullptr},
    {"set_autocast_gpu_dtype", set_gpu_dtype, METH_O, nullptr},
    {"autocast_increment_nesting", increment_nesting, METH_NOARGS, nullptr},
    {"autocast_decrement_nesting", decrement_nesting, METH_NOARGS, nullptr},
    {"clear_autocast_cache", clear_cache, METH_NOARGS, nullptr},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

bool init_autocast() {
  for (PyMethodDef* d = kFunctions; d->ml_name; ++d)
    if (!add("torch._C", d->ml_name, make_builtin(*d, d->ml_name, nullptr))) return false;
  return true;
}

}  // namespace tn::py
