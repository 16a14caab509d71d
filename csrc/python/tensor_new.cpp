// Tensors from Python data and back: torch.tensor / as_tensor / asarray (nested sequences,
// numbers, tensors, anything with the buffer protocol such as numpy arrays), torch.from_numpy
// (shares memory through the buffer protocol), Tensor.numpy() (numpy sees our bytes through a
// buffer exporter). Dtype inference as upstream: bool < int64 < default float.
#include <cstring>
#include <string>
#include <vector>

#include "core/half.h"
#include "core/promotion.h"
#include "dispatch/kernel.h"
#include "dispatch/keys.h"
#include "kernels/dtype_dispatch.h"
#include "kernels/rules/elementwise.h"
#include "kernels/rules/reduce_rules.h"
#include "python/binder.h"
#include "python/device.h"
#include "python/dtype.h"
#include "python/errors.h"
#include "python/tensor.h"

namespace tn::py {

PyObject* make_builtin(const PyMethodDef& proto, const char* name, PyObject* self);
bool is_storage(PyObject* o);      // storage.cpp
Storage storage_of(PyObject* o);

PyObject* maybe_handle_torch_function(const char* module, const char* name, PyObject* args,
                                      PyObject* kwargs, bool* handled);  // torch_function.cpp

// torch.tensor & co. are device constructors: `with torch.device(...)` intercepts them through
// the torch-function mode stack, as upstream's do.
#define TN_TORCH_FUNCTION_HOOK(name)                                                        \
  do {                                                                                      \
    bool handled;                                                                           \
    PyObject* r = maybe_handle_torch_function("torch._C._VariableFunctions", name, args,    \
                                              kwargs, &handled);                            \
    if (handled) return r;                                                                  \
  } while (0)

namespace {

// --- buffer formats ------------------------------------------------------------------------

bool dtype_of_format(const char* fmt, Py_ssize_t itemsize, ScalarType* t) {
  std::string f = fmt ? fmt : "B";
  if (!f.empty() && (f[0] == '<' || f[0] == '=' || f[0] == '@' || f[0] == '|')) f = f.substr(1);
  if (f == "d") *t = ScalarType::Double;
  else if (f == "f") *t = ScalarType::Float;
  else if (f == "e") *t = ScalarType::Half;
  else if ((f == "q" || f == "l") && itemsize == 8) *t = ScalarType::Long;
  else if ((f == "i" || f == "l") && itemsize == 4) *t = ScalarType::Int;
  else if (f == "h") *t = ScalarType::Short;
  else if (f == "b") *t = ScalarType::Char;
  else if (f == "B") *t = ScalarType::Byte;
  else if (f == "?") *t = ScalarType::Bool;
  else if (f == "Zf") *t = ScalarType::ComplexFloat;
  else if (f == "Zd") *t = ScalarType::ComplexDouble;
  else return false;
  return true;
}

const char* format_of(ScalarType t) {
  switch (t) {
    case ScalarType::Double: return "d";
    case ScalarType::Float: return "f";
    case ScalarType::Half: return "e";
    case ScalarType::Long: return "q";
    case ScalarType::Int: return "i";
    case ScalarType::Short: return "h";
    case ScalarType::Char: return "b";
    case ScalarType::Byte: return "B";
    case ScalarType::Bool: return "?";
    case ScalarType::ComplexFloat: return "Zf";
    case ScalarType::ComplexDouble: return "Zd";
    default: return nullptr;
  }
}

// A tensor over a buffer's memory; the buffer (and its owner) live as long as the storage.
Tensor tensor_from_buffer(PyObject* obj, bool* ok) {
  *ok = false;
  auto* view = new Py_buffer;
  // Writable when the exporter allows (from_numpy shares memory both ways), else read-only.
  if (PyObject_GetBuffer(obj, view, PyBUF_RECORDS) != 0) {
    PyErr_Clear();
    if (PyObject_GetBuffer(obj, view, PyBUF_RECORDS_RO) != 0) {
      delete view;
      return Tensor();
    }
  }
  ScalarType t;
  if (!dtype_of_format(view->format, view->itemsize, &t)) {
    std::string fmt = view->format ? view->format : "?";
    PyBuffer_Release(view);
    delete view;
    TN_FAIL(Type, "can't convert np.ndarray of type with buffer format '", fmt,
            "'. The only supported types are: float64, float32, float16, complex64, complex128, "
            "int64, int32, int16, int8, uint8, and bool.");
  }
  Dims sizes(view->ndim), strides(view->ndim);
  for (int d = 0; d < view->ndim; ++d) {
    sizes[d] = view->shape[d];
    Py_ssize_t st = view->strides ? view->strides[d] : 0;
    if (st < 0) {
      PyBuffer_Release(view);
      delete view;
      TN_FAIL(Value, "At least one stride in the given numpy array is negative, and tensors with "
              "negative strides are not currently supported. (You can probably work around "
              "this by making a copy of your array  with array.copy().) ");
    }
    TN_CHECK_KIND(st % view->itemsize == 0, Value, "given numpy array strides not a multiple of "
                  "the element byte size. Copy the numpy array to reallocate the memory.");
    strides[d] = st / view->itemsize;
  }
  if (!view->strides) strides = contiguous_strides(sizes);
  size_t nbytes = storage_bytes_needed(sizes, strides, 0, static_cast<int>(view->itemsize));
  Storage st = make<StorageImpl>(
      view->buf, nbytes, Device{}, [view](void*) {
        PyGILState_STATE g = PyGILState_Ensure();
        PyBuffer_Release(view);
        PyGILState_Release(g);
        delete view;
      },
      false);
  *ok = true;
  return make<TensorImpl>(st, t, sizes, strides, 0, Representation::DenseCPU);
}

// --- nested Python data -----------------------------------------------------------------------

struct Inferred {
  Dims sizes;
  bool has_float = false, has_int = false, has_bool = false, has_complex = false;
  bool has_tensor_dtype = false;
  ScalarType tensor_dtype = ScalarType::Bool;
};

bool is_seq(PyObject* o) { return PyList_Check(o) || PyTuple_Check(o); }

// Upstream's compute_sizes: the shape read along first elements, at most kMaxTensorDims deep
// (ValueError "too many dimensions 'list'"); run before infer, so a list nested without end
// is refused before anything recurses into it.
constexpr size_t kMaxTensorDims = 128;
void check_depth(PyObject* data) {
  size_t nd = 0;
  for (PyObject* cur = data; is_seq(cur); cur = PySequence_Fast_GET_ITEM(cur, 0)) {
    TN_CHECK_KIND(++nd <= kMaxTensorDims, Value, "too many dimensions '", Py_TYPE(cur)->tp_name,
                  "'");
    if (PySequence_Fast_GET_SIZE(cur) == 0) break;
  }
}

void infer(PyObject* o, size_t depth, Inferred* inf) {
  if (is_seq(o)) {
    Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
    TN_CHECK_KIND(depth < kMaxTensorDims, Value, "too many dimensions '", Py_TYPE(o)->tp_name,
                  "'");
    for (Py_ssize_t i = 0; i < n; ++i)
      TN_CHECK_KIND(PySequence_Fast_GET_ITEM(o, i) != o, Type,
                    "new(): self-referential lists are incompatible");
    if (depth == inf->sizes.size()) {
      inf->sizes.push_back(n);
    } else {
      TN_CHECK_KIND(depth < inf->sizes.size() && inf->sizes[depth] == n, Value,
                    "expected sequence of length ", depth < inf->sizes.size() ? inf->sizes[depth] : 0,
                    " at dim ", depth, " (got ", n, ")");
    }
    for (Py_ssize_t i = 0; i < n; ++i) infer(PySequence_Fast_GET_ITEM(o, i), depth + 1, inf);
    return;
  }
  TN_CHECK_KIND(depth == inf->sizes.size(), Value, "expected sequence of length ",
                depth < inf->sizes.size() ? inf->sizes[depth] : 0, " at dim ", depth,
                " (got a scalar)");
  if (PyBool_Check(o)) inf->has_bool = true;
  else if (PyLong_Check(o)) inf->has_int = true;
  else if (PyFloat_Check(o)) inf->has_float = true;
  else if (is_tensor(o) && impl_of(o)->dim() == 0) {
    ScalarType t = impl_of(o)->dtype();
    inf->tensor_dtype = inf->has_tensor_dtype ? promote_types(inf->tensor_dtype, t) : t;
    inf->has_tensor_dtype = true;
  } else if (PyComplex_Check(o)) {
    inf->has_complex = true;
  } else {
    TN_FAIL(Type, "new(): invalid data type '", Py_TYPE(o)->tp_name, "'");
  }
}

ScalarType inferred_dtype(const Inferred& inf) {
  ScalarType t = inf.has_complex ? default_complex_dtype()
                 : inf.has_float ? default_float_dtype()
                 : inf.has_int   ? ScalarType::Long
                                 : ScalarType::Bool;
  bool has_number = inf.has_complex || inf.has_float || inf.has_int || inf.has_bool;
  if (!has_number && !inf.has_tensor_dtype) return default_float_dtype();  // an empty list
  if (inf.has_tensor_dtype) t = has_number ? promote_types(t, inf.tensor_dtype) : inf.tensor_dtype;
  return t;
}

// Upstream's names for the checked conversions of torch.tensor's elements.
const char* element_type_name(ScalarType t) {
  switch (t) {
    case ScalarType::Byte: return "uint8";
    case ScalarType::Char: return "int8";
    case ScalarType::Short: return "int16";
    case ScalarType::Int: return "int32";
    default: return "int64";
  }
}

// One Python number into an element of type T, refusing what upstream's unpacking refuses: an
// int past int64 (ValueError) and, for integer types, a value out of range (RuntimeError;
// negative values wrap into unsigned types, as upstream). Floating types take any value.
template <typename T>
void store(T* out, PyObject* o) {
  if (is_tensor(o)) {
    PyObject* v = PyObject_CallMethod(o, "item", nullptr);
    if (!v) throw PythonErrorSet();
    store(out, v);
    Py_DECREF(v);
    return;
  }
  constexpr bool kIntegral = std::is_integral_v<T> && !std::is_same_v<T, bool>;
  Scalar s;
  if constexpr (is_complex_v<T>) {
    using R = typename T::value_type;
    if (PyComplex_Check(o)) {
      *out = T(static_cast<R>(PyComplex_RealAsDouble(o)), static_cast<R>(PyComplex_ImagAsDouble(o)));
    } else {
      double d = PyFloat_Check(o) ? PyFloat_AS_DOUBLE(o) : PyLong_AsDouble(o);
      if (d == -1.0 && PyErr_Occurred()) throw PythonErrorSet();
      *out = T(static_cast<R>(d), R(0));
    }
    return;
  } else if (PyComplex_Check(o)) {  // into a real dtype: Python's own unpacking errors
    TN_FAIL(Type, kIntegral || std::is_same_v<T, bool>
                      ? "'complex' object cannot be interpreted as an integer"
                      : "must be real number, not complex");
  } else if (PyFloat_Check(o)) {
    s = Scalar::from_double(PyFloat_AS_DOUBLE(o));
  } else if (!kIntegral && !std::is_same_v<T, bool>) {
    double d = PyLong_AsDouble(o);  // OverflowError past double's range, as upstream
    if (d == -1.0 && PyErr_Occurred()) throw PythonErrorSet();
    *out = static_cast<T>(d);
    return;
  } else {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (v == -1 && PyErr_Occurred()) throw PythonErrorSet();
    TN_CHECK_KIND(!overflow, Value, "Overflow when unpacking long long");
    s = Scalar::from_int(v);
  }
  if constexpr (kIntegral) {
    ScalarType t = std::is_same_v<T, uint8_t>   ? ScalarType::Byte
                   : std::is_same_v<T, int8_t>  ? ScalarType::Char
                   : std::is_same_v<T, int16_t> ? ScalarType::Short
                   : std::is_same_v<T, int32_t> ? ScalarType::Int
                                                : ScalarType::Long;
    TN_CHECK(!scalar_overflows(s, t), "value cannot be converted to type ", element_type_name(t),
             " without overflow");
  }
  *out = s.is_floating() ? static_cast<T>(s.d) : static_cast<T>(s.i);
}

template <typename T>
void fill_from(PyObject* o, T*& out) {
  if (is_seq(o)) {
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(o); ++i)
      fill_from(PySequence_Fast_GET_ITEM(o, i), out);
    return;
  }
  store(out++, o);
}

Tensor from_nested(PyObject* data, std::optional<ScalarType> dtype) {
  Inferred inf;
  check_depth(data);
  infer(data, 0, &inf);
  ScalarType t = dtype.value_or(inferred_dtype(inf));
  Tensor r = empty_tensor(inf.sizes, t, Device{});
  if (r->numel() == 0) return r;
  void* p = r->dense_cpu_data("aten.tensor");
  switch (t) {
    case ScalarType::Bool: { auto* q = static_cast<bool*>(p); fill_from(data, q); break; }
    case ScalarType::Byte: { auto* q = static_cast<uint8_t*>(p); fill_from(data, q); break; }
    case ScalarType::Char: { auto* q = static_cast<int8_t*>(p); fill_from(data, q); break; }
    case ScalarType::Short: { auto* q = static_cast<int16_t*>(p); fill_from(data, q); break; }
    case ScalarType::Int: { auto* q = static_cast<int32_t*>(p); fill_from(data, q); break; }
    case ScalarType::Long: { auto* q = static_cast<int64_t*>(p); fill_from(data, q); break; }
    case ScalarType::Float: { auto* q = static_cast<float*>(p); fill_from(data, q); break; }
    case ScalarType::Double: { auto* q = static_cast<double*>(p); fill_from(data, q); break; }
    case ScalarType::ComplexFloat: { auto* q = static_cast<cfloat*>(p); fill_from(data, q); break; }
    case ScalarType::ComplexDouble: { auto* q = static_cast<cdouble*>(p); fill_from(data, q); break; }
    case ScalarType::Half: {
      // Through double, as upstream: a Python float rounds once, to half.
      std::vector<double> tmp(r->numel());
      double* q = tmp.data();
      fill_from(data, q);
      auto* h = static_cast<Half*>(p);
      for (size_t k = 0; k < tmp.size(); ++k) h[k] = Half(static_cast<float>(tmp[k]));
      break;
    }
    case ScalarType::ComplexHalf: {
      // Through complex<double> then complex<float>, as upstream: each part rounds to float first.
      std::vector<cdouble> tmp(r->numel());
      cdouble* q = tmp.data();
      fill_from(data, q);
      auto* h = static_cast<chalf*>(p);
      for (size_t k = 0; k < tmp.size(); ++k)
        h[k] = chalf(Half(static_cast<float>(tmp[k].real())),
                     Half(static_cast<float>(tmp[k].imag())));
      break;
    }
    case ScalarType::BFloat16: {
      std::vector<double> tmp(r->numel());
      double* q = tmp.data();
      fill_from(data, q);
      auto* h = static_cast<BFloat16*>(p);
      for (size_t k = 0; k < tmp.size(); ++k) h[k] = BFloat16(static_cast<float>(tmp[k]));
      break;
    }
    default:
      TN_FAIL(NotImplemented, "torch.tensor with dtype ", name(t), " is not implemented");
  }
  return r;
}

// Converts t to dtype/device through the door (a copy only when needed, unless forced).
Tensor convert(const Tensor& t, std::optional<ScalarType> dtype, std::optional<Device> device,
               bool force_copy) {
  ScalarType dt = dtype.value_or(t->dtype());
  Device dev = device.value_or(t->device());
  if (!force_copy && dt == t->dtype() && dev == t->device()) return t;
  std::vector<Value> args{Value::of(t), Value::of_dtype(dt), Value{}, Value::of_device(dev)};
  return call_tensor("aten::_to_copy", std::move(args));
}

struct Options {
  std::optional<ScalarType> dtype;
  std::optional<Device> device;
  bool requires_grad = false;
};

bool parse_options(PyObject* dtype, PyObject* device, PyObject* requires_grad, Options* o) {
  if (dtype && dtype != Py_None) {
    ScalarType t;
    if (!as_dtype(dtype, &t)) {
      PyErr_Format(PyExc_TypeError, "dtype must be a torch.dtype, not %s", Py_TYPE(dtype)->tp_name);
      return false;
    }
    o->dtype = t;
  }
  if (device && device != Py_None) {
    Device d;
    if (!parse_device(device, &d)) return false;
    o->device = d;
  }
  if (requires_grad) o->requires_grad = PyObject_IsTrue(requires_grad) == 1;
  return true;
}

// aten::lift_fresh(t) as upstream's constructors call it: below autograd (the op has no
// autograd kernel; a fresh tensor requires no grad yet), where a dispatch mode sees it.
Tensor lift_fresh(const Tensor& t) {
  ExcludeKeys below(key_bit(DispatchKey::Autograd) | key_bit(DispatchKey::ADInplaceOrView));
  return call_tensor("aten::lift_fresh", {Value::of(t)});
}

// A tensor from nested sequences or one number, as upstream's internal_new_from_data: built
// below the Python key and autograd, so no mode sees its allocation, the reads of tensors among
// the elements or the move to the device; then lifted (aten::lift_fresh), which modes see.
// Upstream returns a meta tensor straight from its allocation, unlifted.
Tensor from_sequence(PyObject* data, const Options& o) {
  PyObject* seq = is_seq(data) ? Py_NewRef(data) : PyTuple_Pack(1, data);
  if (!seq) throw PythonErrorSet();
  Tensor t;
  try {
    ExcludeKeys hidden(key_bit(DispatchKey::Python) | key_bit(DispatchKey::Autograd) |
                       key_bit(DispatchKey::ADInplaceOrView));
    if (is_seq(data)) {
      t = from_nested(data, o.dtype);
    } else {
      Tensor one = from_nested(seq, o.dtype);
      t = make_view(one, {}, {}, 0);  // the 0-dim scalar
      t->set_view_base(Tensor());
    }
    t = convert(t, std::nullopt, o.device, false);
  } catch (...) {
    Py_DECREF(seq);
    throw;
  }
  Py_DECREF(seq);
  if (t->device().type == DeviceType::Meta) return t;
  return lift_fresh(t);
}

// The tensor for `data` (copy = always copy; as_tensor shares when it can). A tensor is detached
// before it is copied and an exported buffer is lifted before it is converted, as upstream's
// (both steps visible to a dispatch mode).
Tensor make_tensor(PyObject* data, const Options& o, bool copy) {
  if (is_tensor(data)) {
    Tensor t(impl_of(data));
    if (copy) t = call_tensor("aten::detach", {Value::of(t)});
    return convert(t, o.dtype, o.device, copy);
  }
  // Upstream refuses bytes and str, and reads a bytearray as a sequence of Python ints.
  TN_CHECK_KIND(!PyBytes_Check(data) && !PyUnicode_Check(data), Type,
                "new(): invalid data type '", Py_TYPE(data)->tp_name, "'");
  if (PyByteArray_Check(data)) {
    PyObject* list = PySequence_List(data);
    if (!list) throw PythonErrorSet();
    try {
      Tensor t = make_tensor(list, o, copy);
      Py_DECREF(list);
      return t;
    } catch (...) {
      Py_DECREF(list);
      throw;
    }
  }
  if (!is_seq(data) && !PyLong_Check(data) && !PyFloat_Check(data) && !PyBool_Check(data) &&
      PyObject_CheckBuffer(data)) {
    bool ok;
    Tensor t = tensor_from_buffer(data, &ok);
    if (!ok) throw PythonErrorSet();
    return convert(lift_fresh(t), o.dtype, o.device, copy);
  }
  return from_sequence(data, o);
}

PyObject* finish(Tensor t, const Options& o) {
  if (o.requires_grad) {
    TN_CHECK(is_floating(t->dtype()) || is_complex(t->dtype()),
             "Only Tensors of floating point and complex dtype can require gradients");
    t->set_requires_grad(true);
  }
  // Warnings the core queued while building it (complex32's "experimental" note).
  return emit_kernel_warnings(wrap_tensor(t));
}

// torch.tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False)
PyObject* torch_tensor(PyObject*, PyObject* args, PyObject* kwargs) {
  TN_TORCH_FUNCTION_HOOK("tensor");
  static const char* kw[] = {"data", "dtype", "device", "requires_grad", "pin_memory", nullptr};
  PyObject *data, *dtype = nullptr, *device = nullptr, *rg = nullptr, *pin = nullptr;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|$OOOO:tensor", const_cast<char**>(kw), &data,
                                   &dtype, &device, &rg, &pin))
    return nullptr;
  Options o;
  if (!parse_options(dtype, device, rg, &o)) return nullptr;
  TN_PY_TRY
  if (is_tensor(data)) {
    PyErr_WarnEx(PyExc_UserWarning,
                 "To copy construct from a tensor, it is recommended to use "
                 "sourceTensor.detach().clone() or sourceTensor.detach().clone()."
                 "requires_grad_(True), rather than torch.tensor(sourceTensor).", 1);
  }
  return finish(make_tensor(data, o, true), o);
  TN_PY_CATCH(nullptr)
}

// Tensor.new_tensor(data, *, dtype=None, device=None, requires_grad=False, layout=None,
// pin_memory=False): torch.tensor with self's dtype and device as the defaults.
PyObject* tensor_new_tensor(PyObject* self, PyObject* args, PyObject* kwargs) {
  static const char* kw[] = {"data", "dtype", "device", "requires_grad", "layout", "pin_memory",
                             nullptr};
  PyObject *data, *dtype = nullptr, *device = nullptr, *rg = nullptr, *layout = nullptr,
                  *pin = nullptr;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|$OOOOO:new_tensor", const_cast<char**>(kw),
                                   &data, &dtype, &device, &rg, &layout, &pin))
    return nullptr;
  Options o;
  if (!parse_options(dtype, device, rg, &o)) return nullptr;
  TN_PY_TRY
  if (!o.dtype) o.dtype = impl_of(self)->dtype();
  if (!o.device) o.device = impl_of(self)->device();
  if (is_tensor(data)) {
    PyErr_WarnEx(PyExc_UserWarning,
                 "To copy construct from a tensor, it is recommended to use "
                 "sourceTensor.detach().clone() or sourceTensor.detach().clone()."
                 "requires_grad_(True), rather than tensor.new_tensor(sourceTensor).", 1);
  }
  return finish(make_tensor(data, o, true), o);
  TN_PY_CATCH(nullptr)
}

// torch.frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False): a 1-d tensor
// over the buffer's own memory (kept alive with the tensor), from `offset` bytes, `count`
// elements (-1: the rest). A read-only buffer is used anyway, with upstream's warning.
PyObject* torch_frombuffer(PyObject*, PyObject* args, PyObject* kwargs) {
  static const char* kw[] = {"buffer", "dtype", "count", "offset", "requires_grad", nullptr};
  PyObject *buffer, *dtype, *rg = nullptr;
  long long count = -1, offset = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|$OLLO:frombuffer", const_cast<char**>(kw),
                                   &buffer, &dtype, &count, &offset, &rg))
    return nullptr;
  Options o;
  if (!parse_options(dtype, nullptr, rg, &o)) return nullptr;
  if (!o.dtype) {
    PyErr_SetString(PyExc_TypeError, "frombuffer() missing required keyword argument 'dtype'");
    return nullptr;
  }
  auto* view = new Py_buffer;
  if (PyObject_GetBuffer(buffer, view, PyBUF_WRITABLE) != 0) {
    PyErr_Clear();
    if (PyObject_GetBuffer(buffer, view, PyBUF_SIMPLE) != 0) {
      delete view;
      PyErr_SetString(PyExc_ValueError, "object does not implement Python buffer protocol.");
      return nullptr;
    }
    static bool warned = false;  // upstream's TORCH_WARN_ONCE
    if (!warned) {
      warned = true;
      if (PyErr_WarnEx(PyExc_UserWarning, "The given buffer is not writable, and PyTorch does "
                       "not support non-writable tensors. This means you can write to the "
                       "underlying (supposedly non-writable) buffer using the tensor. You may "
                       "want to copy the buffer to protect its data or make it writable before "
                       "converting it to a tensor. This type of warning will be suppressed for "
                       "the rest of this program.", 1) != 0) {
        PyBuffer_Release(view);
        delete view;
        return nullptr;
      }
    }
  }
  auto fail = [&](const std::string& msg) -> PyObject* {
    PyBuffer_Release(view);
    delete view;
    PyErr_SetString(PyExc_ValueError, msg.c_str());
    return nullptr;
  };
  const long long len = static_cast<long long>(view->len);
  const long long item = static_cast<long long>(itemsize(*o.dtype));
  if (len == 0 || count == 0)
    return fail("both buffer length (" + std::to_string(len) + ") and count (" +
                std::to_string(count) + ") must not be 0");
  if (offset < 0 || offset >= len)
    return fail("offset (" + std::to_string(offset) + " bytes) must be non-negative and no "
                "greater than buffer length (" + std::to_string(len) + " bytes) minus 1");
  long long actual = count;
  if (count < 0) {
    if ((len - offset) % item != 0)
      return fail("buffer length (" + std::to_string(len - offset) + " bytes) after offset (" +
                  std::to_string(offset) + " bytes) must be a multiple of element size (" +
                  std::to_string(item) + ")");
    actual = (len - offset) / item;
  } else if (offset + count * item > len) {
    return fail("requested buffer length (" + std::to_string(count) + " * " +
                std::to_string(item) + " bytes) after offset (" + std::to_string(offset) +
                " bytes) must not be greater than actual buffer length (" + std::to_string(len) +
                " bytes)");
  }
  TN_PY_TRY
  char* base = static_cast<char*>(view->buf) + offset;
  const size_t nbytes = static_cast<size_t>(actual * item);
  Storage st = make<StorageImpl>(base, nbytes, Device{}, [view](void*) {
    PyGILState_STATE gil = PyGILState_Ensure();
    PyBuffer_Release(view);
    PyGILState_Release(gil);
    delete view;
  }, false);
  Tensor t = make<TensorImpl>(st, *o.dtype, Dims{static_cast<int64_t>(actual)}, Dims{1}, 0,
                              Representation::DenseCPU);
  return finish(std::move(t), o);
  TN_PY_CATCH(nullptr)
}

// torch.as_tensor(data, dtype=None, device=None): shares data when no conversion is needed.
PyObject* torch_as_tensor(PyObject*, PyObject* args, PyObject* kwargs) {
  TN_TORCH_FUNCTION_HOOK("as_tensor");
  static const char* kw[] = {"data", "dtype", "device", nullptr};
  PyObject *data, *dtype = nullptr, *device = nullptr;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OO:as_tensor", const_cast<char**>(kw), &data,
                                   &dtype, &device))
    return nullptr;
  Options o;
  if (!parse_options(dtype, device, nullptr, &o)) return nullptr;
  TN_PY_TRY
  if (is_tensor(data)) {
    Tensor t = convert(Tensor(impl_of(data)), o.dtype, o.device, false);
    if (t.get() == impl_of(data)) return Py_NewRef(data);
    return wrap_tensor(t);
  }
  return wrap_tensor(make_tensor(data, o, false));
  TN_PY_CATCH(nullptr)
}

// The buffer protocol exports an empty array with contiguous strides where the array's own are
// numpy's (0 on every dim of an empty array); upstream reads the array's, so from_numpy does too.
// Only strides of a zero-size tensor change: the bytes are the same (none).
void use_array_strides(PyObject* array, const Tensor& t) {
  PyObject* st = PyObject_GetAttrString(array, "strides");
  if (!st || !PyTuple_Check(st) || PyTuple_GET_SIZE(st) != t->dim()) {
    Py_XDECREF(st);
    PyErr_Clear();
    return;
  }
  Dims strides(t->dim());
  for (int64_t d = 0; d < t->dim(); ++d)
    strides[d] = PyLong_AsLongLong(PyTuple_GET_ITEM(st, d)) / t->itemsize();
  Py_DECREF(st);
  if (PyErr_Occurred()) return PyErr_Clear();
  t->set_sizes_strides(t->sizes(), strides, t->storage_offset());
}

PyObject* torch_from_numpy(PyObject*, PyObject* array) {
  TN_PY_TRY
  bool ok;
  Tensor t = tensor_from_buffer(array, &ok);
  if (!ok) {
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError, "expected np.ndarray (got %s)", Py_TYPE(array)->tp_name);
    return nullptr;
  }
  if (t->numel() == 0) use_array_strides(array, t);
  return wrap_tensor(lift_fresh(t));
  TN_PY_CATCH(nullptr)
}

// --- Tensor.numpy(): a buffer exporter over our bytes --------------------------------------

struct Exporter {
  PyObject_HEAD
  TensorImpl* impl;  // owned
  Py_ssize_t shape[64];
  Py_ssize_t strides[64];
};

int exporter_getbuffer(PyObject* self, Py_buffer* view, int) {
  auto* e = reinterpret_cast<Exporter*>(self);
  TensorImpl* t = e->impl;
  view->buf = t->data_unchecked();
  view->obj = Py_NewRef(self);
  view->len = t->numel() * t->itemsize();
  view->readonly = 0;
  view->itemsize = t->itemsize();
  view->format = const_cast<char*>(format_of(t->dtype()));
  view->ndim = static_cast<int>(t->dim());
  for (int64_t d = 0; d < t->dim(); ++d) {
    e->shape[d] = t->size(d);
    e->strides[d] = t->stride(d) * t->itemsize();
  }
  view->shape = e->shape;
  view->strides = e->strides;
  view->suboffsets = nullptr;
  view->internal = nullptr;
  return 0;
}

void exporter_dealloc(PyObject* self) {
  reinterpret_cast<Exporter*>(self)->impl->decref();
  Py_TYPE(self)->tp_free(self);
}

PyBufferProcs exporter_buffer = {exporter_getbuffer, nullptr};

PyTypeObject ExporterType = [] {
  PyTypeObject t{PyVarObject_HEAD_INIT(nullptr, 0)};
  t.tp_name = "torch._C._TorchnativeBuffer";
  t.tp_basicsize = sizeof(Exporter);
  t.tp_flags = Py_TPFLAGS_DEFAULT;
  t.tp_dealloc = exporter_dealloc;
  t.tp_as_buffer = &exporter_buffer;
  return t;
}();

PyObject* tensor_numpy(PyObject* self, PyObject* args, PyObject* kwargs) {
  static const char* kw[] = {"force", nullptr};
  int force = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|$p:numpy", const_cast<char**>(kw), &force))
    return nullptr;
  TensorImpl* t = impl_of(self);
  if (t->representation() != Representation::DenseCPU) {
    PyErr_Format(PyExc_TypeError, "can't convert %s tensor to numpy.",
                 device_type_name(t->device().type));
    return nullptr;
  }
  if (t->requires_grad() && !force) {
    PyErr_SetString(PyExc_RuntimeError,
                    "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                    "instead.");
    return nullptr;
  }
  if (!format_of(t->dtype()) || t->dim() > 64) {
    PyErr_Format(PyExc_TypeError, "Got unsupported ScalarType %s", enum_name(t->dtype()));
    return nullptr;
  }
  // The math bits: refused, or with force the values read through them (a resolved copy).
  Tensor resolved;
  if (t->is_conj() || t->is_neg()) {
    if (!force) {
      PyErr_SetString(PyExc_RuntimeError,
                      t->is_conj() ? "Can't call numpy() on Tensor that has conjugate bit set. "
                                     "Use tensor.resolve_conj().numpy() instead."
                                   : "Can't call numpy() on Tensor that has negative bit set. "
                                     "Use tensor.resolve_neg().numpy() instead.");
      return nullptr;
    }
    TN_PY_TRY
    resolved = call_tensor("aten::clone", {Value::of(Tensor(t)), Value{}});
    TN_PY_CATCH(nullptr)
    t = resolved.get();
  }
  PyObject* np = PyImport_ImportModule("numpy");
  if (!np) return nullptr;
  auto* e = PyObject_New(Exporter, &ExporterType);
  t->incref();
  e->impl = t;
  PyObject* arr = PyObject_CallMethod(np, "asarray", "O", e);
  Py_DECREF(e);
  Py_DECREF(np);
  return arr;
}

// torch.asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False): shares obj's
// memory when it can. A storage is read as dtype (int64 when not given, as upstream).
PyObject* torch_asarray(PyObject*, PyObject* args, PyObject* kwargs) {
  TN_TORCH_FUNCTION_HOOK("asarray");
  static const char* kw[] = {"obj", "dtype", "device", "copy", "requires_grad", nullptr};
  PyObject *data, *dtype = nullptr, *device = nullptr, *copy = Py_None, *rg = nullptr;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|$OOOO:asarray", const_cast<char**>(kw), &data,
                                   &dtype, &device, &copy, &rg))
    return nullptr;
  Options o;
  if (!parse_options(dtype, device, rg, &o)) return nullptr;
  TN_PY_TRY
  if (is_storage(data)) {
    Storage st = storage_of(data);
    ScalarType t = o.dtype.value_or(ScalarType::Long);
    int64_t n = static_cast<int64_t>(st->nbytes()) / itemsize(t);
    Representation rep = st->device().type == DeviceType::Meta ? Representation::Meta
                                                               : Representation::DenseCPU;
    Tensor r = make<TensorImpl>(st, t, Dims{n}, Dims{1}, 0, rep);
    if (copy == Py_True) r = convert(r, std::nullopt, std::nullopt, true);
    return finish(r, o);
  }
  bool force = copy == Py_True;
  if (is_tensor(data)) {
    Tensor src(impl_of(data));
    bool same = o.dtype.value_or(src->dtype()) == src->dtype() &&
                o.device.value_or(src->device()) == src->device();
    // A forced copy that converts nothing is a clone upstream, else a conversion.
    Tensor t = force && same ? call_tensor("aten::clone", {Value::of(src)})
                             : convert(src, o.dtype, o.device, force);
    if (t.get() == impl_of(data) && !o.requires_grad) return Py_NewRef(data);
    return finish(t, o);
  }
  return finish(make_tensor(data, o, force), o);
  TN_PY_CATCH(nullptr)
}

PyMethodDef kFunctions[] = {
    {"asarray", reinterpret_cast<PyCFunction>(torch_asarray), METH_VARARGS | METH_KEYWORDS,
     nullptr},
    {"tensor", reinterpret_cast<PyCFunction>(torch_tensor), METH_VARARGS | METH_KEYWORDS, nullptr},
    {"as_tensor", reinterpret_cast<PyCFunction>(torch_as_tensor), METH_VARARGS | METH_KEYWORDS,
     nullptr},
    {"from_numpy", torch_from_numpy, METH_O, nullptr},
    {"frombuffer", reinterpret_cast<PyCFunction>(torch_frombuffer), METH_VARARGS | METH_KEYWORDS,
     nullptr},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

PyMethodDef kNumpyMethod = {"numpy", reinterpret_cast<PyCFunction>(tensor_numpy),
                            METH_VARARGS | METH_KEYWORDS, nullptr};
PyMethodDef kNewTensorMethod = {"new_tensor", reinterpret_cast<PyCFunction>(tensor_new_tensor),
                                METH_VARARGS | METH_KEYWORDS, nullptr};

bool init_tensor_new() {
  if (PyType_Ready(&ExporterType) != 0) return false;
  for (PyMethodDef* d = kFunctions; d->ml_name; ++d)
    if (!add("torch._C._VariableFunctions", d->ml_name, make_builtin(*d, d->ml_name, nullptr)))
      return false;
  for (PyMethodDef* d : {&kNumpyMethod, &kNewTensorMethod}) {
    PyObject* m = PyDescr_NewMethod(&TensorBaseType, d);
    int rc = PyDict_SetItemString(TensorBaseType.tp_dict, d->ml_name, m);
    Py_DECREF(m);
    if (rc != 0) return false;
  }
  PyType_Modified(&TensorBaseType);
  return true;
}

}  // namespace tn::py
