// The door's Python key: TorchDispatchMode's stack and the handler that calls a mode's (or a
// tensor subclass's) __torch_dispatch__(func, types, args, kwargs) with func the op's
// torch.ops OpOverload, below Autograd as upstream places it (docs/ARCHITECTURE.md, "The door in
// layers"). The stack is per thread, as upstream's; while it holds a mode, the thread includes
// the Python key in every call's key set. The running mode is popped while its
// __torch_dispatch__ runs, so what it calls goes to the modes below it, then to the kernels.
#include <string>
#include <vector>

#include "dispatch/kernel.h"
#include "python/binder.h"
#include "python/device.h"
#include "python/dispatch_mode.h"
#include "python/dtype.h"
#include "python/errors.h"
#include "python/init.h"
#include "python/tensor.h"

namespace tn::py {
namespace {

// User modes in push order (the last runs first); upstream's infrastructure modes
// (_TorchDispatchModeKey FAKE, PROXY, FUNCTIONAL) sit below them, one slot each.
constexpr int kInfraModes = 3;
struct ModeStack {
  std::vector<PyObject*> user;  // owned
  PyObject* infra[kInfraModes] = {nullptr, nullptr, nullptr};
  size_t size() const {
    size_t n = user.size();
    for (PyObject* m : infra) n += m != nullptr;
    return n;
  }
};
thread_local ModeStack t_modes;

// The thread's Python key follows the stack: included while any mode is on it.
void sync_key() {
  KeySet bit = key_bit(DispatchKey::Python);
  LocalKeys& k = local_keys();
  k.included = t_modes.size() ? k.included | bit : k.included & ~bit;
}

// _TorchDispatchModeKey -> slot (its int value), or -1 with an error.
int infra_slot(PyObject* key) {
  PyObject* v = PyNumber_Index(key);
  if (!v) {
    PyErr_Clear();
    PyObject* value = PyObject_GetAttrString(key, "value");
    if (!value) return -1;
    v = PyNumber_Index(value);
    Py_DECREF(value);
    if (!v) return -1;
  }
  long slot = PyLong_AsLong(v);
  Py_DECREF(v);
  if (slot < 0 || slot >= kInfraModes) {
    PyErr_SetString(PyExc_ValueError, "unknown _TorchDispatchModeKey");
    return -1;
  }
  return static_cast<int>(slot);
}

int mode_key_slot(PyObject* mode) {  // a mode's _mode_key attribute, or -1 (no error) if none
  PyObject* key = PyObject_GetAttrString(mode, "_mode_key");
  if (!key || key == Py_None) {
    PyErr_Clear();
    Py_XDECREF(key);
    return -1;
  }
  int slot = infra_slot(key);
  Py_DECREF(key);
  return slot;
}

PyObject* push(PyObject*, PyObject* mode) {
  int slot = mode_key_slot(mode);
  if (slot < 0 && PyErr_Occurred()) return nullptr;
  if (slot >= 0) {
    Py_XSETREF(t_modes.infra[slot], Py_NewRef(mode));
  } else {
    t_modes.user.push_back(Py_NewRef(mode));
  }
  sync_key();
  Py_RETURN_NONE;
}

// _pop_torch_dispatch_stack(mode_key): the given infra mode, or (None) the top user mode, else
// the highest infra mode.
PyObject* pop_key(PyObject* key) {
  PyObject* mode = nullptr;
  if (key != Py_None) {
    int slot = infra_slot(key);
    if (slot < 0) return nullptr;
    mode = t_modes.infra[slot];
    t_modes.infra[slot] = nullptr;
  } else if (!t_modes.user.empty()) {
    mode = t_modes.user.back();
    t_modes.user.pop_back();
  } else {
    for (int s = kInfraModes - 1; s >= 0 && !mode; --s) {
      mode = t_modes.infra[s];
      t_modes.infra[s] = nullptr;
    }
  }
  sync_key();
  if (!mode) {
    PyErr_SetString(PyExc_RuntimeError, "Tried to pop from an empty stack.");
    return nullptr;
  }
  return mode;  // the stack's reference passes to the caller
}

PyObject* pop(PyObject*, PyObject* key) { return pop_key(key); }

PyObject* len(PyObject*, PyObject*) { return PyLong_FromSize_t(t_modes.size()); }

// Index 0 is the bottom: infra modes first (FUNCTIONAL, PROXY, FAKE order of priority), then
// user modes in push order.
PyObject* at(PyObject*, PyObject* index) {
  Py_ssize_t i = PyNumber_AsSsize_t(index, PyExc_IndexError);
  if (i == -1 && PyErr_Occurred()) return nullptr;
  std::vector<PyObject*> all;
  for (int s = kInfraModes - 1; s >= 0; --s)
    if (t_modes.infra[s]) all.push_back(t_modes.infra[s]);
  all.insert(all.end(), t_modes.user.begin(), t_modes.user.end());
  if (i < 0 || i >= static_cast<Py_ssize_t>(all.size())) {
    PyErr_SetString(PyExc_IndexError, "torch dispatch mode stack index out of range");
    return nullptr;
  }
  return Py_NewRef(all[static_cast<size_t>(i)]);
}

PyObject* get_mode(PyObject*, PyObject* key) {
  int slot = infra_slot(key);
  if (slot < 0) return nullptr;
  return Py_NewRef(t_modes.infra[slot] ? t_modes.infra[slot] : Py_None);
}

PyObject* unset_mode(PyObject*, PyObject* key) {
  int slot = infra_slot(key);
  if (slot < 0) return nullptr;
  PyObject* m = t_modes.infra[slot];
  t_modes.infra[slot] = nullptr;
  sync_key();
  return m ? m : Py_NewRef(Py_None);
}

PyObject* set_mode(PyObject*, PyObject* args) {
  PyObject* mode;
  if (!PyArg_ParseTuple(args, "O", &mode)) return nullptr;
  if (mode == Py_None) Py_RETURN_NONE;
  int slot = mode_key_slot(mode);
  if (slot < 0) {
    if (!PyErr_Occurred())
      PyErr_SetString(PyExc_AssertionError, "_set_dispatch_mode needs a mode with a _mode_key");
    return nullptr;
  }
  Py_XSETREF(t_modes.infra[slot], Py_NewRef(mode));
  sync_key();
  Py_RETURN_NONE;
}

// --- the handler ------------------------------------------------------------------------

// What __torch_dispatch__ returned, kept alive until the outermost binder call has wrapped its
// results (release_dispatch_results): a returned subclass instance is the object the caller
// must get back (with its __dict__), and nothing else holds it meanwhile.
thread_local std::vector<PyObject*> t_returned;

bool equals_default(const Argument& a, const Value& v) {
  if (!a.default_text) return false;
  Value d = default_value(a);
  if (d.tag != v.tag) return false;
  switch (v.tag) {
    case Value::Tag::None: return true;
    case Value::Tag::Int: return d.i == v.i;
    case Value::Tag::Bool: return d.b == v.b;
    case Value::Tag::Double: return d.d == v.d;
    case Value::Tag::IntList: return d.ints == v.ints;
    case Value::Tag::String: return d.str == v.str;
    case Value::Tag::Scalar: return d.scalar.to_double() == v.scalar.to_double();
    default: return false;
  }
}

// The tensors whose class dispatches (their Python objects, in argument order) and their types.
void overloaded(const Call& call, std::vector<PyObject*>& objects, PyObject* types) {
  auto consider = [&](const Tensor& t) {
    if (!t || !(t->key_set() & key_bit(DispatchKey::Python))) return;
    auto* o = static_cast<PyObject*>(t->python_object());
    if (!o) return;
    objects.push_back(o);
    PyObject* type = reinterpret_cast<PyObject*>(Py_TYPE(o));
    if (PySequence_Contains(types, type) == 0) PyList_Append(types, type);
  };
  for (const Value& v : call.args) {
    if (v.tag == Value::Tag::Tensor) consider(v.tensor);
    if (v.tag == Value::Tag::TensorList || v.tag == Value::Tag::OptTensorList)
      for (const Tensor& t : v.tensors) consider(t);
  }
}

void python_key(Call& call) {
  Gil gil;
  PyObject* func = op_overload(call.op_index);
  if (!func) throw PythonErrorSet();
  PyObject *args = nullptr, *kwargs = nullptr;
  if (!python_args(call, &args, &kwargs)) throw PythonErrorSet();
  PyObject* types = PyList_New(0);
  std::vector<PyObject*> objects;
  overloaded(call, objects, types);
  PyObject* types_tuple = PyList_AsTuple(types);
  Py_DECREF(types);
  PyObject* result = nullptr;
  if (t_modes.size()) {
    // The mode runs popped: what it calls reaches the modes below it (upstream's
    // _pop_mode_temporarily), and it is pushed back whatever happens.
    PyObject* mode = pop_key(Py_None);
    if (mode) {
      result = PyObject_CallMethod(mode, "__torch_dispatch__", "OOOO", func, types_tuple, args,
                                   kwargs);
      PyObject *type, *value, *tb;
      PyErr_Fetch(&type, &value, &tb);
      PyObject* ok = push(nullptr, mode);
      Py_XDECREF(ok);
      Py_DECREF(mode);
      PyErr_Restore(type, value, tb);
    }
  } else {
    for (PyObject* o : objects) {
      PyObject* impl = PyObject_GetAttrString(reinterpret_cast<PyObject*>(Py_TYPE(o)),
                                              "__torch_dispatch__");
      if (!impl) break;
      result = PyObject_CallFunctionObjArgs(impl, func, types_tuple, args, kwargs, nullptr);
      Py_DECREF(impl);
      if (result != Py_NotImplemented) break;
      Py_DECREF(result);
      result = nullptr;
    }
    if (!result && !PyErr_Occurred())
      PyErr_Format(PyExc_TypeError, "Multiple dispatch failed for '%s'; all "
                   "__torch_dispatch__ handlers returned NotImplemented", call.key().c_str());
  }
  Py_DECREF(args);
  Py_DECREF(kwargs);
  Py_DECREF(types_tuple);
  if (!result) throw PythonErrorSet();
  struct Drop {
    PyObject* o;
    ~Drop() { Py_DECREF(o); }
  } drop{result};
  take_python_results(call, result, "__torch_dispatch__");
}

// Every op has the handler at the Python key, except where a CompositeImplicit kernel of ours
// decomposes above it (the door skips the fallback there): an op upstream decomposes but we
// run as one kernel (scaled_dot_product_attention) is still seen by a mode, as itself.
bool handles(int) { return true; }

// --- wrapper subclasses ---------------------------------------------------------------

bool int_list(PyObject* o, Dims* out, const char* what) {
  PyObject* seq = PySequence_Fast(o, what);
  if (!seq) return false;
  out->clear();
  for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); ++i) {
    long long v = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(seq, i));
    if (v == -1 && PyErr_Occurred()) {
      Py_DECREF(seq);
      return false;
    }
    out->push_back(v);
  }
  Py_DECREF(seq);
  return true;
}

// TensorBase._make_wrapper_subclass(cls, size, *, strides=None, storage_offset=None,
// memory_format=None, dtype=None, layout=torch.strided, device=None, pin_memory=False,
// requires_grad=False, ...): a cls instance with this metadata and no bytes of its own (its
// storage holds none: reading its data refuses), carrying the Python key, so every op on it
// goes to cls.__torch_dispatch__.
PyObject* make_wrapper_subclass(PyObject*, PyObject* args, PyObject* kwargs) {
  static const char* kw[] = {"cls", "size", "strides", "storage_offset", "memory_format",
                             "dtype", "layout", "device", "pin_memory", "requires_grad",
                             "dispatch_sizes_strides_policy", "dispatch_device",
                             "dispatch_layout", "_extra_dispatch_keys", "storage_size", nullptr};
  PyObject *cls, *size, *strides = Py_None, *offset = Py_None, *mf = Py_None, *dtype = Py_None;
  PyObject *layout = Py_None, *device = Py_None, *policy = Py_None, *extra = Py_None;
  PyObject* storage_size = Py_None;
  int pin = 0, requires_grad = 0, dispatch_device = 0, dispatch_layout = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|$OOOOOOppOppOO:_make_wrapper_subclass",
                                   const_cast<char**>(kw), &cls, &size, &strides, &offset, &mf,
                                   &dtype, &layout, &device, &pin, &requires_grad, &policy,
                                   &dispatch_device, &dispatch_layout, &extra, &storage_size))
    return nullptr;
  if (!PyType_Check(cls) ||
      !PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(cls), &TensorBaseType)) {
    PyErr_SetString(PyExc_TypeError, "_make_wrapper_subclass: cls must be a Tensor subclass");
    return nullptr;
  }
  if (policy != Py_None || dispatch_device || dispatch_layout || extra != Py_None || pin) {
    PyErr_SetString(PyExc_NotImplementedError,
                    "_make_wrapper_subclass: dispatch_sizes_strides_policy, dispatch_device, "
                    "dispatch_layout, _extra_dispatch_keys and pin_memory are not implemented "
                    "by torchnative");
    return nullptr;
  }
  Dims sizes, st;
  if (!int_list(size, &sizes, "size must be a sequence of ints")) return nullptr;
  if (strides != Py_None && !int_list(strides, &st, "strides must be a sequence of ints"))
    return nullptr;
  if (strides == Py_None) st = contiguous_strides(sizes);
  long long off = offset == Py_None ? 0 : PyLong_AsLongLong(offset);
  if (off == -1 && PyErr_Occurred()) return nullptr;
  ScalarType dt = dtype == Py_None ? ScalarType::Float : dtype_of(dtype);
  if (dtype != Py_None && !is_dtype(dtype)) {
    PyErr_SetString(PyExc_TypeError, "_make_wrapper_subclass: dtype must be a torch.dtype");
    return nullptr;
  }
  Device dev;
  if (device != Py_None && !parse_device(device, &dev)) return nullptr;
  TN_PY_TRY
  TN_CHECK(st.size() == sizes.size(), "_make_wrapper_subclass: mismatch in length of strides "
           "and shape");
  size_t nbytes = storage_bytes_needed(sizes, st, off, itemsize(dt));
  // No bytes: the storage is a size on the device, like a meta storage (data stays null).
  Storage storage = make<StorageImpl>(nullptr, nbytes, dev, StorageImpl::Deleter{}, false);
  Tensor t = make<TensorImpl>(storage, dt, sizes, st, off, representation_of(dev.type));
  t->set_python_dispatch(true);
  if (requires_grad) t->set_requires_grad(true);
  return wrap_tensor(t, reinterpret_cast<PyTypeObject*>(cls));
  TN_PY_CATCH(nullptr)
}

PyMethodDef kWrapperSubclass = {"_make_wrapper_subclass",
                                reinterpret_cast<PyCFunction>(make_wrapper_subclass),
                                METH_VARARGS | METH_KEYWORDS | METH_STATIC, nullptr};

PyMethodDef kFunctions[] = {
    {"_len_torch_dispatch_stack", len, METH_NOARGS, nullptr},
    {"_get_dispatch_mode", get_mode, METH_O, nullptr},
    {"_unset_dispatch_mode", unset_mode, METH_O, nullptr},
    {"_push_on_torch_dispatch_stack", push, METH_O, nullptr},
    {"_set_dispatch_mode", set_mode, METH_VARARGS, nullptr},
    {"_pop_torch_dispatch_stack", pop, METH_O, nullptr},
    {"_get_dispatch_stack_at", at, METH_O, nullptr},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

PyObject* op_overload(int op) {
  static std::vector<PyObject*> cache;  // owned, for the process
  if (cache.size() <= static_cast<size_t>(op)) cache.resize(all_ops().size() + 64, nullptr);
  if (cache[op]) return cache[op];
  const OpInfo& info = all_ops()[op];
  PyObject* torch = PyImport_ImportModule("torch");
  if (!torch) return nullptr;
  PyObject* obj = PyObject_GetAttrString(torch, "ops");
  Py_DECREF(torch);
  for (const char* part : {info.ns, info.name, info.overload[0] ? info.overload : "default"}) {
    if (!obj) return nullptr;
    PyObject* next = PyObject_GetAttrString(obj, part);
    Py_DECREF(obj);
    obj = next;
  }
  cache[op] = obj;
  return obj;
}

bool python_args(const Call& call, PyObject** args_out, PyObject** kwargs_out) {
  const auto& schema = call.schema->arguments;
  size_t n = std::min(schema.size(), call.args.size());
  size_t positional_end = 0;
  for (size_t i = 0; i < n; ++i)
    if (!schema[i].kwarg_only && !equals_default(schema[i], call.args[i])) positional_end = i + 1;
  PyObject* args = PyTuple_New(static_cast<Py_ssize_t>(positional_end));
  PyObject* kwargs = PyDict_New();
  if (!args || !kwargs) return false;
  for (size_t i = 0; i < n; ++i) {
    bool positional = !schema[i].kwarg_only;
    if (positional && i >= positional_end) continue;
    if (!positional && equals_default(schema[i], call.args[i])) continue;
    PyObject* o = to_python(call.args[i]);
    if (!o) return false;
    if (positional) {
      PyTuple_SET_ITEM(args, static_cast<Py_ssize_t>(i), o);
    } else {
      int rc = PyDict_SetItemString(kwargs, schema[i].name.c_str(), o);
      Py_DECREF(o);
      if (rc != 0) return false;
    }
  }
  *args_out = args;
  *kwargs_out = kwargs;
  return true;
}

void take_python_results(Call& call, PyObject* r, const char* who) {
  t_returned.push_back(Py_NewRef(r));  // released by release_dispatch_results
  const auto& returns = call.schema->returns;
  if (returns.empty()) return;
  if (returns.size() == 1) {
    Value v;
    if (!to_value(r, returns[0], &v)) {
      if (PyErr_Occurred()) throw PythonErrorSet();
      TN_FAIL(Type, call.key(), ": ", who, " returned ", Py_TYPE(r)->tp_name,
              " where the schema returns ", returns[0].type.str());
    }
    call.results.push_back(std::move(v));
    return;
  }
  TN_CHECK_KIND(PyTuple_Check(r) || PyList_Check(r), Type, call.key(),
                ": ", who, " must return a tuple of ", returns.size(), " values");
  PyObject* seq = PySequence_Fast(r, "");
  for (size_t k = 0; k < returns.size(); ++k) {
    Value v;
    if (static_cast<Py_ssize_t>(k) >= PySequence_Fast_GET_SIZE(seq) ||
        !to_value(PySequence_Fast_GET_ITEM(seq, k), returns[k], &v)) {
      Py_DECREF(seq);
      if (PyErr_Occurred()) throw PythonErrorSet();
      TN_FAIL(Type, call.key(), ": ", who, " result ", k, " is not a ",
              returns[k].type.str());
    }
    call.results.push_back(std::move(v));
  }
  Py_DECREF(seq);
}

void release_dispatch_results() {
  if (t_returned.empty()) return;
  std::vector<PyObject*> done;
  done.swap(t_returned);
  for (PyObject* o : done) Py_DECREF(o);
}

bool init_dispatch_mode() {
  set_key_fallback(DispatchKey::Python, Kernel{python_key, nullptr, nullptr}, handles);
  PyObject* fn = PyCFunction_New(&kWrapperSubclass, nullptr);
  PyObject* sm = fn ? PyStaticMethod_New(fn) : nullptr;
  Py_XDECREF(fn);
  if (!sm || PyDict_SetItemString(TensorBaseType.tp_dict, "_make_wrapper_subclass", sm) != 0) {
    Py_XDECREF(sm);
    return false;
  }
  Py_DECREF(sm);
  PyType_Modified(&TensorBaseType);
  for (PyMethodDef* d = kFunctions; d->ml_name; ++d)
    if (!add("torch._C", d->ml_name, PyCFunction_New(d, nullptr))) return false;
  return true;
}

}  // namespace tn::py
