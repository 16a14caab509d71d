// Tensor.to and the conversion shorthands (float, double, half, bfloat16, long, int, short, char,
// byte, bool, cpu, type), bound by hand as upstream's are: `to` returns self itself when nothing
// changes, otherwise one aten::_to_copy through the door.
#include <cstring>
#include <string>

#include "dispatch/kernel.h"
#include "python/binder.h"
#include "python/device.h"
#include "python/dtype.h"
#include "python/errors.h"
#include "python/init.h"
#include "python/tensor.h"

namespace tn::py {
namespace {

struct Target {
  std::optional<ScalarType> dtype;
  std::optional<Device> device;
  bool copy = false;
  bool non_blocking = false;
  MemoryFormat format = MemoryFormat::Preserve;  // memory_format= (None: preserve)
};

// Upstream's suggest_memory_format() for t, in the Python enum.
MemoryFormat suggested_format(const TensorImpl& t) {
  if (!suggests_channels_last(t)) return MemoryFormat::Contiguous;
  return t.dim() == 4 ? MemoryFormat::ChannelsLast : MemoryFormat::ChannelsLast3d;
}

// Upstream's to(): self itself when dtype and device already are what is asked, no copy is
// asked for, and the memory format asked is preserve or the one self's strides suggest
// (suggests_channels_last), else a _to_copy.
PyObject* convert(PyObject* self, const Target& t) {
  TensorImpl* impl = impl_of(self);
  ScalarType dt = t.dtype.value_or(impl->dtype());
  Device dev = t.device.value_or(impl->device());
  if (!t.copy && dt == impl->dtype() && dev.type == impl->device().type &&
      (t.format == MemoryFormat::Preserve || t.format == suggested_format(*impl)))
    return Py_NewRef(self);
  TN_PY_TRY
  Value mf;
  if (t.format != MemoryFormat::Preserve) {
    mf.tag = Value::Tag::MemoryFormat;
    mf.memory_format = static_cast<MemoryFormatKind>(static_cast<int8_t>(t.format));
  }
  std::vector<Value> args{Value::of(Tensor(impl)), Value::of_dtype(dt), Value{},
                          Value::of_device(dev), Value{}, Value::of_bool(t.non_blocking), mf};
  return emit_kernel_warnings(wrap_tensor(call_tensor("aten::_to_copy", std::move(args))));
  TN_PY_CATCH(nullptr)
}

bool is_device_like(PyObject* o) {
  return is_device(o) || PyUnicode_Check(o) || (PyLong_Check(o) && !PyBool_Check(o));
}

// to(dtype, non_blocking=False, copy=False, *, memory_format=None)
// to(device=None, dtype=None, non_blocking=False, copy=False, *, memory_format=None)
// to(other, non_blocking=False, copy=False, *, memory_format=None)
// Parses to()'s arguments into t; *memory_format (borrowed) is the one given, or None.
bool parse_to_args(PyObject* args, PyObject* kwargs, Target& t, PyObject** memory_format) {
  *memory_format = Py_None;
  Py_ssize_t n = PyTuple_GET_SIZE(args);
  Py_ssize_t i = 0;
  auto bad = [&](const char* why) {
    PyErr_Format(PyExc_TypeError, "to() received an invalid combination of arguments: %s", why);
    return false;
  };
  if (i < n && is_tensor(PyTuple_GET_ITEM(args, i))) {
    TensorImpl* other = impl_of(PyTuple_GET_ITEM(args, i++));
    t.dtype = other->dtype();
    t.device = other->device();
  } else {
    // to(device=None, dtype=None, ...): either may be passed as None positionally
    // (nn.Module.to converts parameters with t.to(device, None, non_blocking)).
    bool device_slot = false;
    if (i < n && is_device_like(PyTuple_GET_ITEM(args, i))) {
      Device d;
      if (!parse_device(PyTuple_GET_ITEM(args, i++), &d)) return false;
      t.device = d;
      device_slot = true;
    } else if (i < n && PyTuple_GET_ITEM(args, i) == Py_None) {  // to(None): no device
      ++i;
      device_slot = true;
    }
    ScalarType positional;
    if (i < n && as_dtype(PyTuple_GET_ITEM(args, i), &positional)) {
      t.dtype = positional;
      ++i;
    } else if (device_slot && i < n && PyTuple_GET_ITEM(args, i) == Py_None) {
      ++i;
    } else if (device_slot && i < n) {  // after a device, the second place is the dtype's
      return bad("expected a dtype (or None) after the device");
    }
  }
  for (bool* flag : {&t.non_blocking, &t.copy}) {
    if (i < n) {
      PyObject* b = PyTuple_GET_ITEM(args, i++);
      if (!PyBool_Check(b)) return bad("expected a bool for non_blocking/copy");
      *flag = b == Py_True;
    }
  }
  if (i < n) return bad("too many positional arguments");
  if (kwargs) {
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    while (PyDict_Next(kwargs, &pos, &key, &value)) {
      const char* k = PyUnicode_AsUTF8(key);
      if (std::strcmp(k, "dtype") == 0) {
        if (value == Py_None) continue;
        ScalarType named;
        if (!as_dtype(value, &named)) return bad("dtype must be a torch.dtype");
        t.dtype = named;
      } else if (std::strcmp(k, "device") == 0) {
        if (value == Py_None) continue;
        Device d;
        if (!parse_device(value, &d)) return false;
        t.device = d;
      } else if (std::strcmp(k, "non_blocking") == 0 || std::strcmp(k, "copy") == 0) {
        if (!PyBool_Check(value)) return bad("non_blocking and copy must be bools");
        (k[0] == 'c' ? t.copy : t.non_blocking) = value == Py_True;
      } else if (std::strcmp(k, "memory_format") == 0) {
        if (value != Py_None && !is_memory_format(value)) {
          PyErr_SetString(PyExc_TypeError, "to(): memory_format must be a torch.memory_format");
          return false;
        }
        if (value != Py_None) t.format = memory_format_of(value);
        *memory_format = value;  // channels_last is refused by the caller (supported_format)
      } else {
        PyErr_Format(PyExc_TypeError, "to() got an unexpected keyword argument '%s'", k);
        return false;
      }
    }
  }
  return true;
}

// False (an error set) for a channels_last memory format that self (if given) has the wrong
// rank for: upstream's RuntimeError.
bool supported_format(PyObject* mf, const TensorImpl* self) {
  if (mf == Py_None) return true;
  MemoryFormat f = memory_format_of(mf);
  if (f == MemoryFormat::Preserve || f == MemoryFormat::Contiguous || !self) return true;
  const bool is_3d = f == MemoryFormat::ChannelsLast3d;
  if (self->dim() == (is_3d ? 5 : 4)) return true;
  PyErr_Format(PyExc_RuntimeError, "required rank %d tensor to use %s format", is_3d ? 5 : 4,
               is_3d ? "channels_last_3d" : "channels_last");
  return false;
}

PyObject* m_to(PyObject* self, PyObject* args, PyObject* kwargs) {
  Target t;
  PyObject* mf;
  if (!parse_to_args(args, kwargs, t, &mf)) return nullptr;
  if (!supported_format(mf, impl_of(self))) return nullptr;
  return convert(self, t);
}

// torch._C._nn._parse_to(*args, **kwargs) -> (device, dtype, non_blocking, memory_format), the
// parse nn.Module.to() does before converting each parameter (Tensor.to's signatures).
PyObject* parse_to(PyObject*, PyObject* args, PyObject* kwargs) {
  Target t;
  PyObject* mf;
  if (!parse_to_args(args, kwargs, t, &mf) || !supported_format(mf, nullptr)) return nullptr;
  PyObject* device = t.device ? device_object(*t.device) : Py_NewRef(Py_None);
  if (!device) return nullptr;
  PyObject* dtype = t.dtype ? Py_NewRef(dtype_object(*t.dtype)) : Py_NewRef(Py_None);
  return Py_BuildValue("(NNON)", device, dtype, t.non_blocking ? Py_True : Py_False,
                       Py_NewRef(mf));
}

// Tensor.float(memory_format=torch.preserve_format) and the other dtype methods.
template <ScalarType T>
PyObject* m_as(PyObject* self, PyObject* args, PyObject* kwargs) {
  static const char* kw[] = {"memory_format", nullptr};
  PyObject* mf = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O", const_cast<char**>(kw), &mf)) return nullptr;
  Target t;
  t.dtype = T;
  if (mf != Py_None && !is_memory_format(mf)) {
    PyErr_SetString(PyExc_TypeError, "memory_format must be a torch.memory_format");
    return nullptr;
  }
  if (!supported_format(mf, impl_of(self))) return nullptr;
  if (mf != Py_None) t.format = memory_format_of(mf);
  return convert(self, t);
}

PyObject* m_cpu(PyObject* self, PyObject*, PyObject*) {
  Target t;
  t.device = Device{};
  return convert(self, t);
}

PyObject* m_cuda(PyObject*, PyObject*, PyObject*) {
  PyErr_SetString(PyExc_NotImplementedError, "Tensor.cuda(): torchnative has no CUDA device yet");
  return nullptr;
}

// type(): 'torch.FloatTensor'; type(dtype or 'torch.LongTensor'): a conversion.
PyObject* m_type(PyObject* self, PyObject* args, PyObject* kwargs) {
  static const char* kw[] = {"dtype", "non_blocking", nullptr};
  PyObject* dtype = nullptr;
  int nb = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|Op:type", const_cast<char**>(kw), &dtype, &nb))
    return nullptr;
  TensorImpl* impl = impl_of(self);
  if (!dtype || dtype == Py_None) {
    // Upstream's type_to_string: the c10 name and "Tensor", for every dtype.
    return PyUnicode_FromFormat("torch.%sTensor", enum_name(impl->dtype()));
  }
  Target t;
  if (is_dtype(dtype)) {
    t.dtype = dtype_of(dtype);
  } else if (PyUnicode_Check(dtype)) {
    // A legacy type name: "torch.FloatTensor" and the like (CPU only here).
    const std::string want = PyUnicode_AsUTF8(dtype);
    bool found = false;
    for (int k = 0; k < static_cast<int>(ScalarType::NumOptions) && !found; ++k) {
      const ScalarType st = static_cast<ScalarType>(k);
      if (want == std::string("torch.") + enum_name(st) + "Tensor") {
        t.dtype = st;
        found = true;
      }
    }
    if (!found) {
      if (want.rfind("torch.cuda.", 0) == 0)
        PyErr_Format(PyExc_NotImplementedError, "torchnative: Tensor.type('%s') (a CUDA tensor "
                     "type) is not implemented", want.c_str());
      else
        PyErr_Format(PyExc_ValueError, "invalid type: '%s'", want.c_str());
      return nullptr;
    }
  } else if (PyType_Check(dtype)) {
    PyObject* dt = PyObject_GetAttrString(dtype, "dtype");
    if (!dt || !is_dtype(dt)) {
      Py_XDECREF(dt);
      PyErr_Clear();
      PyErr_SetString(PyExc_TypeError, "type(): expected a dtype, a tensor type or its name");
      return nullptr;
    }
    t.dtype = dtype_of(dt);
    Py_DECREF(dt);
  } else {
    PyErr_SetString(PyExc_TypeError, "type(): expected a dtype");
    return nullptr;
  }
  return convert(self, t);
}

using Fn = PyCFunction;
PyMethodDef kMethods[] = {
    {"to", reinterpret_cast<Fn>(m_to), METH_VARARGS | METH_KEYWORDS, nullptr},
    {"float", reinterpret_cast<Fn>(m_as<ScalarType::Float>), METH_VARARGS | METH_KEYWORDS, nullptr},
    {"double", reinterpret_cast<Fn>(m_as<ScalarType::Double>), METH_VARARGS | METH_KEYWORDS,
     nullptr},
    {"half", reinterpret_cast<Fn>(m_as<ScalarType::Half>), METH_VARARGS | METH_KEYWORDS, nullptr},
    {"bfloat16", reinterpret_cast<Fn>(m_as<ScalarType::BFloat16>), METH_VARARGS | METH_KEYWORDS,
     nullptr},
    {"long", reinterpret_cast<Fn>(m_as<ScalarType::Long>), METH_VARARGS | METH_KEYWORDS, nullptr},
    {"int", reinterpret_cast<Fn>(m_as<ScalarType::Int>), METH_VARARGS | METH_KEYWORDS, nullptr},
    {"short", reinterpret_cast<Fn>(m_as<ScalarType::Short>), METH_VARARGS | METH_KEYWORDS, nullptr},
    {"char", reinterpret_cast<Fn>(m_as<ScalarType::Char>), METH_VARARGS | METH_KEYWORDS, nullptr},
    {"byte", reinterpret_cast<Fn>(m_as<ScalarType::Byte>), METH_VARARGS | METH_KEYWORDS, nullptr},
    {"bool", reinterpret_cast<Fn>(m_as<ScalarType::Bool>), METH_VARARGS | METH_KEYWORDS, nullptr},
    {"cfloat", reinterpret_cast<Fn>(m_as<ScalarType::ComplexFloat>), METH_VARARGS | METH_KEYWORDS,
     nullptr},
    {"cdouble", reinterpret_cast<Fn>(m_as<ScalarType::ComplexDouble>),
     METH_VARARGS | METH_KEYWORDS, nullptr},
    {"chalf", reinterpret_cast<Fn>(m_as<ScalarType::ComplexHalf>), METH_VARARGS | METH_KEYWORDS,
     nullptr},
    {"cpu", reinterpret_cast<Fn>(m_cpu), METH_VARARGS | METH_KEYWORDS, nullptr},
    {"cuda", reinterpret_cast<Fn>(m_cuda), METH_VARARGS | METH_KEYWORDS, nullptr},
    {"type", reinterpret_cast<Fn>(m_type), METH_VARARGS | METH_KEYWORDS, nullptr},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

PyMethodDef kParseTo = {"_parse_to", reinterpret_cast<PyCFunction>(parse_to),
                        METH_VARARGS | METH_KEYWORDS, nullptr};

bool init_tensor_convert() {
  if (!add("torch._C._nn", "_parse_to", PyCFunction_New(&kParseTo, nullptr))) return false;
  for (PyMethodDef* d = kMethods; d->ml_name; ++d) {
    PyObject* m = PyDescr_NewMethod(&TensorBaseType, d);
    int rc = PyDict_SetItemString(TensorBaseType.tp_dict, d->ml_name, m);
    Py_DECREF(m);
    if (rc != 0) return false;
  }
  PyType_Modified(&TensorBaseType);
  return true;
}

}  // namespace tn::py
