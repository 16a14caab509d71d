// torch.finfo and torch.iinfo: the limits of a dtype, with upstream's attributes and repr
// (%g-formatted fields). finfo of a float8/float4 dtype refuses by name.
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>

#include "python/dtype.h"
#include "python/init.h"

namespace tn::py {
namespace {

struct FInfo {
  PyObject_HEAD
  ScalarType dtype;
  int bits;
  double max, eps, tiny, resolution;
  bool unsigned_format;  // float8_e8m0fnu: min is the smallest positive value
};

struct IInfo {
  PyObject_HEAD
  ScalarType dtype;
  int bits;
  long long min;
  unsigned long long max;
};

extern PyTypeObject FInfoType;
extern PyTypeObject IInfoType;

// Floating formats: (bits, max, eps, smallest normal, decimal digits).
bool float_limits(ScalarType t, FInfo* f) {
  switch (t) {
    case ScalarType::Float:
      f->bits = 32, f->max = FLT_MAX, f->eps = FLT_EPSILON, f->tiny = FLT_MIN;
      f->resolution = 1e-6;
      return true;
    case ScalarType::Double:
      f->bits = 64, f->max = DBL_MAX, f->eps = DBL_EPSILON, f->tiny = DBL_MIN;
      f->resolution = 1e-15;
      return true;
    case ScalarType::Half:
      f->bits = 16, f->max = 65504.0, f->eps = std::ldexp(1.0, -10), f->tiny = std::ldexp(1.0, -14);
      f->resolution = 1e-3;
      return true;
    // float8 formats (OCP and the "fnuz" variants): ldexp keeps every value exact.
    case ScalarType::Float8_e4m3fn:
      f->bits = 8, f->max = 448.0, f->eps = 0.125, f->tiny = std::ldexp(1.0, -6);
      f->resolution = 1.0;
      return true;
    case ScalarType::Float8_e5m2:
      f->bits = 8, f->max = 57344.0, f->eps = 0.25, f->tiny = std::ldexp(1.0, -14);
      f->resolution = 1.0;
      return true;
    case ScalarType::Float8_e4m3fnuz:
      f->bits = 8, f->max = 240.0, f->eps = 0.125, f->tiny = std::ldexp(1.0, -7);
      f->resolution = 1.0;
      return true;
    case ScalarType::Float8_e5m2fnuz:
      f->bits = 8, f->max = 57344.0, f->eps = 0.125, f->tiny = std::ldexp(1.0, -15);
      f->resolution = 1.0;
      return true;
    case ScalarType::Float8_e8m0fnu:
      f->bits = 8, f->max = std::ldexp(1.0, 127), f->eps = 1.0, f->tiny = std::ldexp(1.0, -127);
      f->resolution = 1.0;
      f->unsigned_format = true;
      return true;
    case ScalarType::BFloat16:
      // 8 exponent bits, 7 mantissa bits: max = (2 - 2^-7) * 2^127.
      f->bits = 16, f->max = (2.0 - std::ldexp(1.0, -7)) * std::ldexp(1.0, 127);
      f->eps = std::ldexp(1.0, -7), f->tiny = std::ldexp(1.0, -126);
      f->resolution = 1e-2;
      return true;
    default:
      return false;
  }
}

ScalarType dtype_arg(PyObject* args, bool* ok) {
  PyObject* d = nullptr;
  *ok = PyArg_ParseTuple(args, "|O", &d);
  if (!*ok) return ScalarType::Float;
  if (!d) return default_dtype();
  if (!is_dtype(d)) {
    PyErr_Format(PyExc_TypeError, "expected a torch.dtype, got %s", Py_TYPE(d)->tp_name);
    *ok = false;
    return ScalarType::Float;
  }
  return dtype_of(d);
}

PyObject* finfo_new(PyTypeObject* type, PyObject* args, PyObject*) {
  bool ok;
  ScalarType t = dtype_arg(args, &ok);
  if (!ok) return nullptr;
  if (t == ScalarType::ComplexFloat) t = ScalarType::Float;
  if (t == ScalarType::ComplexDouble) t = ScalarType::Double;
  if (t == ScalarType::ComplexHalf) t = ScalarType::Half;
  if (!is_floating(t)) {
    PyErr_SetString(PyExc_TypeError,
                    "torch.finfo() requires a floating point input type. Use torch.iinfo to "
                    "handle 'torch.finfo'");
    return nullptr;
  }
  auto* f = reinterpret_cast<FInfo*>(type->tp_alloc(type, 0));
  if (!f) return nullptr;
  f->unsigned_format = false;
  if (!float_limits(t, f)) {
    Py_DECREF(f);
    // upstream's own refusal for the packed float4 format
    PyErr_Format(PyExc_NotImplementedError, "\"max\" not implemented for '%s'",
                 t == ScalarType::Float4_e2m1fn_x2 ? "Float4_e2m1fn_x2" : name(t));
    return nullptr;
  }
  f->dtype = t;
  return reinterpret_cast<PyObject*>(f);
}

PyObject* iinfo_new(PyTypeObject* type, PyObject* args, PyObject*) {
  bool ok;
  ScalarType t = dtype_arg(args, &ok);
  if (!ok) return nullptr;
  int bits = itemsize(t) * 8;
  if (t == ScalarType::Bool) {
    PyErr_SetString(PyExc_TypeError, "torch.bool is not supported by torch.iinfo");
    return nullptr;
  }
  if (!is_integral(t, false) && t != ScalarType::UInt16 && t != ScalarType::UInt32 &&
      t != ScalarType::UInt64) {
    PyErr_SetString(PyExc_TypeError, "torch.iinfo() requires an integer input type. Use "
                                     "torch.finfo to handle 'torch.iinfo'");
    return nullptr;
  }
  auto* i = reinterpret_cast<IInfo*>(type->tp_alloc(type, 0));
  if (!i) return nullptr;
  i->dtype = t;
  i->bits = bits;
  if (info(t).is_signed) {
    i->min = bits == 64 ? std::numeric_limits<long long>::min() : -(1LL << (bits - 1));
    i->max = bits == 64 ? static_cast<unsigned long long>(std::numeric_limits<long long>::max())
                        : (1ULL << (bits - 1)) - 1;
  } else {
    i->min = 0;
    i->max = bits == 64 ? std::numeric_limits<unsigned long long>::max() : (1ULL << bits) - 1;
  }
  return reinterpret_cast<PyObject*>(i);
}

std::string g(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%g", v);
  return buf;
}

PyObject* finfo_repr(PyObject* self) {
  auto* f = reinterpret_cast<FInfo*>(self);
  double min = f->unsigned_format ? f->tiny : -f->max;
  std::string s = "finfo(resolution=" + g(f->resolution) + ", min=" + g(min) + ", max=" +
                  g(f->max) + ", eps=" + g(f->eps) + ", smallest_normal=" + g(f->tiny) +
                  ", tiny=" + g(f->tiny) + ", dtype=" + name(f->dtype) + ")";
  return PyUnicode_FromString(s.c_str());
}

PyObject* iinfo_repr(PyObject* self) {
  auto* i = reinterpret_cast<IInfo*>(self);
  std::string s = "iinfo(min=" + g(static_cast<double>(i->min)) + ", max=" +
                  g(static_cast<double>(i->max)) + ", dtype=" + name(i->dtype) + ")";
  return PyUnicode_FromString(s.c_str());
}

PyObject* f_bits(PyObject* s, void*) { return PyLong_FromLong(reinterpret_cast<FInfo*>(s)->bits); }
PyObject* f_max(PyObject* s, void*) { return PyFloat_FromDouble(reinterpret_cast<FInfo*>(s)->max); }
PyObject* f_min(PyObject* s, void*) {
  auto* f = reinterpret_cast<FInfo*>(s);
  return PyFloat_FromDouble(f->unsigned_format ? f->tiny : -f->max);
}
PyObject* f_eps(PyObject* s, void*) { return PyFloat_FromDouble(reinterpret_cast<FInfo*>(s)->eps); }
PyObject* f_tiny(PyObject* s, void*) { return PyFloat_FromDouble(reinterpret_cast<FInfo*>(s)->tiny); }
PyObject* f_res(PyObject* s, void*) {
  return PyFloat_FromDouble(reinterpret_cast<FInfo*>(s)->resolution);
}
PyObject* f_dtype(PyObject* s, void*) {
  return PyUnicode_FromString(name(reinterpret_cast<FInfo*>(s)->dtype));
}
PyObject* i_bits(PyObject* s, void*) { return PyLong_FromLong(reinterpret_cast<IInfo*>(s)->bits); }
PyObject* i_min(PyObject* s, void*) { return PyLong_FromLongLong(reinterpret_cast<IInfo*>(s)->min); }
PyObject* i_max(PyObject* s, void*) {
  return PyLong_FromUnsignedLongLong(reinterpret_cast<IInfo*>(s)->max);
}
PyObject* i_dtype(PyObject* s, void*) {
  return PyUnicode_FromString(name(reinterpret_cast<IInfo*>(s)->dtype));
}

PyGetSetDef finfo_getset[] = {
    {"bits", f_bits, nullptr, nullptr, nullptr},      {"max", f_max, nullptr, nullptr, nullptr},
    {"min", f_min, nullptr, nullptr, nullptr},        {"eps", f_eps, nullptr, nullptr, nullptr},
    {"tiny", f_tiny, nullptr, nullptr, nullptr},
    {"smallest_normal", f_tiny, nullptr, nullptr, nullptr},
    {"resolution", f_res, nullptr, nullptr, nullptr}, {"dtype", f_dtype, nullptr, nullptr, nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};
PyGetSetDef iinfo_getset[] = {
    {"bits", i_bits, nullptr, nullptr, nullptr}, {"min", i_min, nullptr, nullptr, nullptr},
    {"max", i_max, nullptr, nullptr, nullptr},   {"dtype", i_dtype, nullptr, nullptr, nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

template <typename T>
PyObject* info_richcompare(PyObject* a, PyObject* b, int op) {
  if (Py_TYPE(a) != Py_TYPE(b) || (op != Py_EQ && op != Py_NE)) Py_RETURN_NOTIMPLEMENTED;
  bool eq = reinterpret_cast<T*>(a)->dtype == reinterpret_cast<T*>(b)->dtype;
  return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

PyTypeObject make_info_type(const char* name, size_t size) {
  PyTypeObject t{PyVarObject_HEAD_INIT(nullptr, 0)};
  t.tp_name = name;
  t.tp_basicsize = static_cast<Py_ssize_t>(size);
  t.tp_flags = Py_TPFLAGS_DEFAULT;
  return t;
}

PyTypeObject FInfoType = [] {
  PyTypeObject t = make_info_type("torch.finfo", sizeof(FInfo));
  t.tp_new = finfo_new;
  t.tp_repr = finfo_repr;
  t.tp_getset = finfo_getset;
  t.tp_richcompare = info_richcompare<FInfo>;
  return t;
}();
PyTypeObject IInfoType = [] {
  PyTypeObject t = make_info_type("torch.iinfo", sizeof(IInfo));
  t.tp_new = iinfo_new;
  t.tp_repr = iinfo_repr;
  t.tp_getset = iinfo_getset;
  t.tp_richcompare = info_richcompare<IInfo>;
  return t;
}();

}  // namespace

bool init_typeinfo() {
  if (PyType_Ready(&FInfoType) != 0 || PyType_Ready(&IInfoType) != 0) return false;
  return add("torch._C", "finfo", Py_NewRef(reinterpret_cast<PyObject*>(&FInfoType))) &&
         add("torch._C", "iinfo", Py_NewRef(reinterpret_cast<PyObject*>(&IInfoType)));
}

}  // namespace tn::py
