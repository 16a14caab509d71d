// The __torch_function__ protocol's C++ side: the per-thread state (enabled / subclasses
// disabled / all disabled), the mode stack (with torch.device(...) pushes a mode here), the
// _has_torch_function* checks, DisableTorchFunction(Subclass), and the door's hook that hands
// calls with overriding arguments or an active mode to torch.overrides.handle_torch_function.
#include <vector>

#include "python/init.h"
#include "python/tensor.h"

namespace tn::py {

PyObject* make_builtin(const PyMethodDef& proto, const char* name, PyObject* self);

namespace {

enum State : int { kEnabled = 0, kSubclassesDisabled = 1, kAllDisabled = 2 };
thread_local int t_state = kEnabled;
thread_local std::vector<PyObject*> t_modes;  // owned references, innermost last
PyObject* g_disabled_impl = nullptr;          // torch._C._disabled_torch_function_impl
PyObject* g_state_enum = nullptr;             // torch._C._TorchFunctionState

bool is_basic(PyObject* o) {
  return o == Py_None || PyBool_Check(o) || PyLong_Check(o) || PyFloat_Check(o) ||
         PyUnicode_Check(o) || PyComplex_Check(o) || PyType_Check(o);
}

// Does obj bring its own __torch_function__ (exact torch.Tensor does not count)?
bool overrides(PyObject* o) {
  if (is_basic(o)) return false;
  PyTypeObject* type = Py_TYPE(o);
  if (type == tensor_class() || type == &TensorBaseType) return false;
  if (t_state == kSubclassesDisabled && is_tensor(o)) return false;
  PyObject* attr = _PyType_Lookup(type, PyUnicode_InternFromString("__torch_function__"));
  return attr && attr != g_disabled_impl;
}

bool mode_active() { return t_state != kAllDisabled && !t_modes.empty(); }

bool any_overrides_in(PyObject* o) {
  if (overrides(o)) return true;
  if (PyTuple_Check(o) || PyList_Check(o)) {
    Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
    for (Py_ssize_t i = 0; i < n; ++i)
      if (overrides(PySequence_Fast_GET_ITEM(o, i))) return true;
  }
  return false;
}

PyObject* has_torch_function(PyObject*, PyObject* iterable) {
  if (t_state == kAllDisabled) Py_RETURN_FALSE;
  if (mode_active()) Py_RETURN_TRUE;
  PyObject* seq = PySequence_Fast(iterable, "expected a sequence of arguments");
  if (!seq) return nullptr;
  bool found = false;
  for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq) && !found; ++i)
    found = overrides(PySequence_Fast_GET_ITEM(seq, i));
  Py_DECREF(seq);
  return PyBool_FromLong(found);
}

PyObject* has_torch_function_unary(PyObject*, PyObject* obj) {
  if (t_state == kAllDisabled) Py_RETURN_FALSE;
  return PyBool_FromLong(mode_active() || overrides(obj));
}

PyObject* has_torch_function_variadic(PyObject*, PyObject* const* args, Py_ssize_t n) {
  if (t_state == kAllDisabled) Py_RETURN_FALSE;
  if (mode_active()) Py_RETURN_TRUE;
  for (Py_ssize_t i = 0; i < n; ++i)
    if (overrides(args[i])) Py_RETURN_TRUE;
  Py_RETURN_FALSE;
}

PyObject* push_mode(PyObject*, PyObject* mode) {
  t_modes.push_back(Py_NewRef(mode));
  Py_RETURN_NONE;
}

PyObject* pop_mode(PyObject*, PyObject*) {
  if (t_modes.empty()) {
    PyErr_SetString(PyExc_RuntimeError, "Tried to pop from an empty stack.");
    return nullptr;
  }
  PyObject* m = t_modes.back();
  t_modes.pop_back();
  return m;  // the stack's reference passes to the caller
}

PyObject* len_modes(PyObject*, PyObject*) { return PyLong_FromSize_t(t_modes.size()); }

PyObject* mode_at(PyObject*, PyObject* idx) {
  Py_ssize_t i = PyLong_AsSsize_t(idx);
  if (i == -1 && PyErr_Occurred()) return nullptr;
  Py_ssize_t n = static_cast<Py_ssize_t>(t_modes.size());
  if (i < 0) i += n;
  if (i < 0 || i >= n) {
    PyErr_SetString(PyExc_IndexError, "torch function mode stack index out of range");
    return nullptr;
  }
  return Py_NewRef(t_modes[i]);
}

PyObject* state_member(int s) { return PyObject_CallFunction(g_state_enum, "i", s); }

PyObject* get_state(PyObject*, PyObject*) { return state_member(t_state); }

PyObject* set_state(PyObject*, PyObject* s) {
  long v = PyLong_AsLong(s);
  if (v == -1 && PyErr_Occurred()) return nullptr;
  t_state = static_cast<int>(v);
  Py_RETURN_NONE;
}

PyObject* is_enabled(PyObject*, PyObject*) { return PyBool_FromLong(t_state == kEnabled); }
PyObject* is_all_disabled(PyObject*, PyObject*) { return PyBool_FromLong(t_state == kAllDisabled); }
PyObject* is_mode_enabled(PyObject*, PyObject*) { return PyBool_FromLong(mode_active()); }

// _disabled_torch_function_impl(func, types, args=(), kwargs=None): run func with subclass
// overrides off (nn.Parameter's __torch_function__).
PyObject* disabled_impl(PyObject*, PyObject* args) {
  PyObject *func, *types, *fargs = nullptr, *fkwargs = nullptr;
  if (!PyArg_ParseTuple(args, "OO|OO", &func, &types, &fargs, &fkwargs)) return nullptr;
  int old = t_state;
  if (t_state == kEnabled) t_state = kSubclassesDisabled;
  PyObject* tuple = fargs ? PySequence_Tuple(fargs) : PyTuple_New(0);
  PyObject* r = tuple ? PyObject_Call(func, tuple, fkwargs == Py_None ? nullptr : fkwargs)
                      : nullptr;
  Py_XDECREF(tuple);
  t_state = old;
  return r;
}

PyObject* disabled_dispatch_impl(PyObject*, PyObject*) {
  PyErr_SetString(PyExc_NotImplementedError,
                  "torch._C._disabled_torch_dispatch_impl: __torch_dispatch__ is not "
                  "implemented by torchnative");
  return nullptr;
}

// DisableTorchFunctionSubclass() / DisableTorchFunction(): context managers over the state.
struct GuardObject {
  PyObject_HEAD
  int target;
  int saved;
};

PyObject* guard_enter(PyObject* self, PyObject*) {
  auto* g = reinterpret_cast<GuardObject*>(self);
  g->saved = t_state;
  if (g->target > t_state) t_state = g->target;
  Py_RETURN_NONE;
}
PyObject* guard_exit(PyObject* self, PyObject*) {
  t_state = reinterpret_cast<GuardObject*>(self)->saved;
  Py_RETURN_NONE;
}
PyMethodDef guard_methods[] = {{"__enter__", guard_enter, METH_NOARGS, nullptr},
                               {"__exit__", guard_exit, METH_VARARGS, nullptr},
                               {nullptr, nullptr, 0, nullptr}};

template <int Target>
PyObject* guard_new(PyTypeObject* type, PyObject*, PyObject*) {
  auto* g = reinterpret_cast<GuardObject*>(type->tp_alloc(type, 0));
  if (g) g->target = Target;
  return reinterpret_cast<PyObject*>(g);
}

PyTypeObject make_guard(const char* name, newfunc fn) {
  PyTypeObject t{PyVarObject_HEAD_INIT(nullptr, 0)};
  t.tp_name = name;
  t.tp_basicsize = sizeof(GuardObject);
  t.tp_flags = Py_TPFLAGS_DEFAULT;
  t.tp_new = fn;
  t.tp_methods = guard_methods;
  return t;
}
PyTypeObject SubclassGuardType =
    make_guard("torch._C.DisableTorchFunctionSubclass", guard_new<kSubclassesDisabled>);
PyTypeObject AllGuardType = make_guard("torch._C.DisableTorchFunction", guard_new<kAllDisabled>);

PyMethodDef kFunctions[] = {
    {"_has_torch_function", has_torch_function, METH_O, nullptr},
    {"_has_torch_function_unary", has_torch_function_unary, METH_O, nullptr},
    {"_has_torch_function_variadic", reinterpret_cast<PyCFunction>(has_torch_function_variadic),
     METH_FASTCALL, nullptr},
    {"_push_on_torch_function_stack", push_mode, METH_O, nullptr},
    {"_pop_torch_function_stack", pop_mode, METH_NOARGS, nullptr},
    {"_len_torch_function_stack", len_modes, METH_NOARGS, nullptr},
    {"_get_function_stack_at", mode_at, METH_O, nullptr},
    {"_get_torch_function_state", get_state, METH_NOARGS, nullptr},
    {"_set_torch_function_state", set_state, METH_O, nullptr},
    {"_is_torch_function_enabled", is_enabled, METH_NOARGS, nullptr},
    {"_is_torch_function_all_disabled", is_all_disabled, METH_NOARGS, nullptr},
    {"_is_torch_function_mode_enabled", is_mode_enabled, METH_NOARGS, nullptr},
    {"_disabled_torch_function_impl", disabled_impl, METH_VARARGS, nullptr},
    {"_disabled_torch_dispatch_impl", disabled_dispatch_impl, METH_VARARGS, nullptr},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

bool torch_function_needed(PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                           PyObject* kwnames) {
  if (t_state == kAllDisabled) return false;
  if (mode_active()) return true;
  if (self && overrides(self)) return true;
  Py_ssize_t total = nargs + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0);
  for (Py_ssize_t i = 0; i < total; ++i)
    if (any_overrides_in(args[i])) return true;
  return false;
}

// Hands the call to torch.overrides.handle_torch_function(public_api, relevant_args, ...).
PyObject* handle_torch_function(PyObject* public_api, PyObject* self, PyObject* const* args,
                                Py_ssize_t nargs, PyObject* kwnames) {
  PyObject* overrides_mod = PyImport_ImportModule("torch.overrides");
  if (!overrides_mod) return nullptr;
  PyObject* handler = PyObject_GetAttrString(overrides_mod, "handle_torch_function");
  Py_DECREF(overrides_mod);
  if (!handler) return nullptr;
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  PyObject* relevant = PyList_New(0);
  if (self) PyList_Append(relevant, self);
  for (Py_ssize_t i = 0; i < nargs + nkw; ++i) {
    PyObject* a = args[i];
    if (PyTuple_Check(a) || PyList_Check(a)) {
      for (Py_ssize_t k = 0; k < PySequence_Fast_GET_SIZE(a); ++k)
        if (!is_basic(PySequence_Fast_GET_ITEM(a, k)))
          PyList_Append(relevant, PySequence_Fast_GET_ITEM(a, k));
    } else if (!is_basic(a)) {
      PyList_Append(relevant, a);
    }
  }
  Py_ssize_t lead = self ? 3 : 2;
  PyObject* call_args = PyTuple_New(lead + nargs);
  PyTuple_SET_ITEM(call_args, 0, Py_NewRef(public_api));
  PyTuple_SET_ITEM(call_args, 1, relevant);
  if (self) PyTuple_SET_ITEM(call_args, 2, Py_NewRef(self));
  for (Py_ssize_t i = 0; i < nargs; ++i) PyTuple_SET_ITEM(call_args, lead + i, Py_NewRef(args[i]));
  PyObject* kwargs = nullptr;
  if (nkw) {
    kwargs = PyDict_New();
    for (Py_ssize_t k = 0; k < nkw; ++k)
      PyDict_SetItem(kwargs, PyTuple_GET_ITEM(kwnames, k), args[nargs + k]);
  }
  PyObject* r = PyObject_Call(handler, call_args, kwargs);
  Py_DECREF(handler);
  Py_DECREF(call_args);
  Py_XDECREF(kwargs);
  return r;
}

// For hand-written functions taking (args, kwargs): hands the call to
// torch.overrides.handle_torch_function when a mode is active or an argument overrides.
// Returns nullptr with no error set when the call should proceed normally.
PyObject* maybe_handle_torch_function(const char* module, const char* name, PyObject* args,
                                      PyObject* kwargs, bool* handled) {
  *handled = false;
  if (t_state == kAllDisabled) return nullptr;
  bool needed = mode_active();
  for (Py_ssize_t i = 0; !needed && i < PyTuple_GET_SIZE(args); ++i)
    needed = any_overrides_in(PyTuple_GET_ITEM(args, i));
  if (!needed) return nullptr;
  *handled = true;
  PyObject* api = PyObject_GetAttrString(tn::py::module(module), name);
  if (!api) return nullptr;
  Py_ssize_t n = PyTuple_GET_SIZE(args);
  std::vector<PyObject*> flat;
  for (Py_ssize_t i = 0; i < n; ++i) flat.push_back(PyTuple_GET_ITEM(args, i));
  PyObject* kwnames = nullptr;
  if (kwargs && PyDict_Size(kwargs)) {
    kwnames = PyTuple_New(PyDict_Size(kwargs));
    PyObject *k, *v;
    Py_ssize_t pos = 0, j = 0;
    while (PyDict_Next(kwargs, &pos, &k, &v)) {
      PyTuple_SET_ITEM(kwnames, j++, Py_NewRef(k));
      flat.push_back(v);
    }
  }
  PyObject* r = handle_torch_function(api, nullptr, flat.data(), n, kwnames);
  Py_XDECREF(kwnames);
  Py_DECREF(api);
  return r;
}

bool init_torch_function() {
  if (PyType_Ready(&SubclassGuardType) != 0 || PyType_Ready(&AllGuardType) != 0) return false;
  PyObject* enum_mod = PyImport_ImportModule("enum");
  if (!enum_mod) return false;
  g_state_enum = PyObject_CallMethod(enum_mod, "IntEnum", "s[(si)(si)(si)]", "_TorchFunctionState",
                                     "ENABLED", 0, "SUBCLASSES_DISABLED", 1, "ALL_DISABLED", 2);
  Py_DECREF(enum_mod);
  if (!g_state_enum) return false;
  PyObject_SetAttrString(g_state_enum, "__module__", PyUnicode_FromString("torch._C"));
  const char* c = "torch._C";
  if (!add(c, "_TorchFunctionState", Py_NewRef(g_state_enum)) ||
      !add(c, "DisableTorchFunctionSubclass",
           Py_NewRef(reinterpret_cast<PyObject*>(&SubclassGuardType))) ||
      !add(c, "DisableTorchFunction", Py_NewRef(reinterpret_cast<PyObject*>(&AllGuardType))))
    return false;
  for (PyMethodDef* d = kFunctions; d->ml_name; ++d) {
    PyObject* f = make_builtin(*d, d->ml_name, nullptr);
    if (std::string(d->ml_name) == "_disabled_torch_function_impl") g_disabled_impl = f;
    if (!add(c, d->ml_name, Py_NewRef(f))) return false;
    Py_DECREF(f);
  }
  return true;
}

}  // namespace tn::py
