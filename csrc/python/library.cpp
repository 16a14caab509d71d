// torch.library's door into the registry: _dispatch_library returns a _DispatchModule whose
// define() adds operators and impl() puts Python kernels in the door's slot for a dispatch key
// (py_kernel.cpp calls them); reset() and the library's end take them out again, bringing back
// what they hid. The _dispatch_has_kernel* queries answer from the door's tables.
#include <map>
#include <string>
#include <vector>

#include "core/error.h"
#include "dispatch/kernel.h"
#include "dispatch/registry.h"
#include "dispatch/schema.h"
#include "core/warning.h"
#include "python/init.h"
#include "python/py_kernel.h"

namespace tn::py {

PyObject* make_builtin(const PyMethodDef& proto, const char* name, PyObject* self);
PyObject* op_callable(const std::vector<int>& overloads, const char* name);  // ops.cpp

namespace {

// Python kernels: op index -> dispatch key -> callable (owned).
std::map<int, std::map<std::string, PyObject*>>& py_kernels() {
  static auto* m = new std::map<int, std::map<std::string, PyObject*>>;
  return *m;
}

// One impl() registration: recorded by key name, and (for a key this core has) in the door.
struct Impl {
  int op;
  std::string key;
  bool in_door;
  KernelSlot slot;
  int handle;
  PyKernel* kernel;  // owned
};

struct LibraryObject {
  PyObject_HEAD
  int id;
  std::string* kind;  // "DEF", "FRAGMENT", "IMPL"
  std::string* ns;
  std::string* dispatch;
  std::string* source;       // "file:line" where the Library was made (upstream's "registered at")
  std::vector<Impl>* impls;  // what impl() registered, for reset()
};

int g_next_library = 0;

// Resolves "name.overload" or "ns::name.overload" in this library's namespace to an op index.
int resolve(LibraryObject* lib, const std::string& qual) {
  std::string ns = *lib->ns;
  std::string rest = qual;
  size_t sep = qual.find("::");
  if (sep != std::string::npos) {
    ns = qual.substr(0, sep);
    rest = qual.substr(sep + 2);
  }
  size_t dot = rest.find('.');
  std::string name = rest.substr(0, dot);
  std::string overload = dot == std::string::npos ? "" : rest.substr(dot + 1);
  if (overload == "default") overload = "";
  return find_op(ns, name, overload);
}

PyObject* lib_define(PyObject* self, PyObject* args, PyObject* kwargs) {
  static const char* kw[] = {"schema", "alias", "tags", nullptr};
  const char* schema;
  const char* alias = "";
  PyObject* tags = nullptr;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "s|sO:define", const_cast<char**>(kw), &schema,
                                   &alias, &tags))
    return nullptr;
  auto* lib = reinterpret_cast<LibraryObject*>(self);
  std::string tag_csv;
  if (tags && tags != Py_None) {
    PyObject* seq = PySequence_Tuple(tags);
    if (!seq) return nullptr;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(seq); ++i) {
      PyObject* name = PyObject_GetAttrString(PyTuple_GET_ITEM(seq, i), "name");
      if (!name) {
        Py_DECREF(seq);
        return nullptr;
      }
      tag_csv += (tag_csv.empty() ? "" : ",") + std::string(PyUnicode_AsUTF8(name));
      Py_DECREF(name);
    }
    Py_DECREF(seq);
  }
  try {
    int i = define_op(*lib->ns, schema, tag_csv, lib->id);
    const OpInfo& op = all_ops()[i];
    std::string result = std::string(op.name) + (op.overload[0] ? "." : "") + op.overload;
    return PyUnicode_FromString(result.c_str());
  } catch (const Error& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
    return nullptr;
  }
}

PyObject* lib_def(PyObject* self, PyObject* args) {
  PyObject* r = lib_define(self, args, nullptr);
  if (!r) return nullptr;
  Py_DECREF(r);
  return Py_NewRef(self);
}

PyObject* lib_impl(PyObject* self, PyObject* args, PyObject* kwargs) {
  static const char* kw[] = {"name", "dispatch", "func", "with_keyset", "allow_override", nullptr};
  const char* name;
  PyObject* dispatch;
  PyObject* func;
  int with_keyset = 0;
  int allow_override = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "sOO|pp:impl", const_cast<char**>(kw), &name,
                                   &dispatch, &func, &with_keyset, &allow_override))
    return nullptr;
  auto* lib = reinterpret_cast<LibraryObject*>(self);
  int i = resolve(lib, name);
  if (i < 0) {
    PyErr_Format(PyExc_RuntimeError,
                 "impl: operator %s::%s has no schema; define it before registering a kernel",
                 lib->ns->c_str(), name);
    return nullptr;
  }
  PyObject* key_str = PyUnicode_Check(dispatch) ? Py_NewRef(dispatch)
                                                 : PyObject_GetAttrString(dispatch, "name");
  if (!key_str) return nullptr;
  std::string key = PyUnicode_AsUTF8(key_str);
  Py_DECREF(key_str);
  if (key.empty()) key = lib->dispatch->empty() ? "CompositeImplicitAutograd" : *lib->dispatch;
  Impl impl{i, key, false, KernelSlot::CPU, 0, new PyKernel{Py_NewRef(func), with_keyset != 0}};
  // Recorded only, never run (docs/ARCHITECTURE.md, "Python kernels"):
  // - BackendSelect: the door picks a factory's back end from its device argument already,
  //   which is what custom_op's BackendSelect kernel does;
  // - Meta for an aten operator: torch/_meta_registrations.py registers Python meta functions
  //   for some 1,300 aten ops at import, which upstream runs in place of its C++ ones. Ours is
  //   the shared rule (the one CPU runs, so Meta raises what CPU raises, at C++ speed), and an
  //   aten op we do not implement refuses on Meta by name as it does on CPU.
  bool record_only = key == "BackendSelect" ||
                     (key == "Meta" && std::string(all_ops()[i].ns) == "aten");
  if (!record_only && python_kernel_slot(key, &impl.slot)) {
    std::string hidden;
    try {
      impl.handle = override_kernel(i, impl.slot, python_kernel(impl.kernel), *lib->source,
                                    &hidden);
    } catch (const Error& e) {
      Py_DECREF(impl.kernel->fn);
      delete impl.kernel;
      PyErr_SetString(PyExc_RuntimeError, e.what());
      return nullptr;
    }
    impl.in_door = true;
    static bool warned = false;  // upstream warns once for all operators, and never for Meta
    if (!hidden.empty() && !warned && impl.slot != KernelSlot::Meta) {
      warned = true;
      std::string msg =
          "Warning only once for all operators,  other operators may also be overridden.\n"
          "  Overriding a previously registered kernel for the same operator and the same "
          "dispatch key\n  operator: " + schema_of(i).str() + "\n  dispatch key: " + key +
          "\n  previous kernel: registered at " + hidden +
          "\n       new kernel: registered at " + *lib->source;
      if (PyErr_WarnEx(PyExc_UserWarning, msg.c_str(), 1) < 0) {
        lib->impls->push_back(impl);
        return nullptr;
      }
    }
  }
  PyObject*& slot = py_kernels()[i][key];
  Py_XDECREF(slot);
  slot = Py_NewRef(func);
  lib->impls->push_back(impl);
  Py_RETURN_NONE;
}

// m.register_ad_inplace_or_view_fallback(name): ours is every op's already (the layer's
// version bumps are derived from each schema's alias annotations, run-time ops' included).
PyObject* lib_inplace_or_view_fallback(PyObject*, PyObject*) { Py_RETURN_NONE; }

PyObject* lib_fallback(PyObject* self, PyObject*, PyObject*) { Py_RETURN_NONE; }
PyObject* lib_fallthrough(PyObject* self, PyObject*, PyObject*) { return Py_NewRef(self); }

// Takes out everything this library registered (newest first), then its operators.
void undo_library(LibraryObject* lib) {
  for (auto it = lib->impls->rbegin(); it != lib->impls->rend(); ++it) {
    if (it->in_door) remove_kernel(it->op, it->slot, it->handle);
    auto& table = py_kernels()[it->op];
    auto k = table.find(it->key);
    if (k != table.end()) {
      Py_DECREF(k->second);
      table.erase(k);
    }
    Py_DECREF(it->kernel->fn);
    delete it->kernel;
  }
  lib->impls->clear();
  remove_library_ops(lib->id);
}

PyObject* lib_reset(PyObject* self, PyObject*) {
  undo_library(reinterpret_cast<LibraryObject*>(self));
  Py_RETURN_NONE;
}

void lib_dealloc(PyObject* self) {
  auto* lib = reinterpret_cast<LibraryObject*>(self);
  undo_library(lib);
  delete lib->source;
  delete lib->kind;
  delete lib->ns;
  delete lib->dispatch;
  delete lib->impls;
  Py_TYPE(self)->tp_free(self);
}

PyMethodDef lib_methods[] = {
    {"define", reinterpret_cast<PyCFunction>(lib_define), METH_VARARGS | METH_KEYWORDS, nullptr},
    {"def_", lib_def, METH_VARARGS, nullptr},
    {"impl", reinterpret_cast<PyCFunction>(lib_impl), METH_VARARGS | METH_KEYWORDS, nullptr},
    {"fallback", reinterpret_cast<PyCFunction>(lib_fallback), METH_VARARGS | METH_KEYWORDS,
     nullptr},
    {"fallback_fallthrough", reinterpret_cast<PyCFunction>(lib_fallthrough),
     METH_VARARGS | METH_KEYWORDS, nullptr},
    {"reset", lib_reset, METH_NOARGS, nullptr},
    {"register_ad_inplace_or_view_fallback", lib_inplace_or_view_fallback, METH_VARARGS,
     nullptr},
    {nullptr, nullptr, 0, nullptr}};

PyTypeObject LibraryType = [] {
  PyTypeObject t{PyVarObject_HEAD_INIT(nullptr, 0)};
  t.tp_name = "torch._C._DispatchModule";
  t.tp_basicsize = sizeof(LibraryObject);
  t.tp_flags = Py_TPFLAGS_DEFAULT;
  t.tp_dealloc = lib_dealloc;
  t.tp_methods = lib_methods;
  return t;
}();

PyObject* dispatch_library(PyObject*, PyObject* args, PyObject* kwargs) {
  static const char* kw[] = {"kind", "name", "dispatch", "file", "linenum", nullptr};
  const char* kind;
  const char* ns;
  const char* dispatch = "";
  const char* file = "";
  PyObject* line = nullptr;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "ss|ssO:_dispatch_library",
                                   const_cast<char**>(kw), &kind, &ns, &dispatch, &file, &line))
    return nullptr;
  std::string where = file;
  if (line && line != Py_None) {
    PyObject* text = PyObject_Str(line);
    if (!text) return nullptr;
    where += std::string(":") + PyUnicode_AsUTF8(text);
    Py_DECREF(text);
  }
  auto* lib = PyObject_New(LibraryObject, &LibraryType);
  if (!lib) return nullptr;
  lib->id = g_next_library++;
  lib->kind = new std::string(kind);
  lib->ns = new std::string(ns);
  lib->dispatch = new std::string(dispatch);
  lib->impls = new std::vector<Impl>;
  lib->source = new std::string(where);
  return reinterpret_cast<PyObject*>(lib);
}

// "ns::name" or "ns::name.overload" -> op index, or -1.
int op_of(PyObject* qual) {
  const char* s = PyUnicode_AsUTF8(qual);
  if (!s) {
    PyErr_Clear();
    return -1;
  }
  return find_op_key(s);
}

std::string key_name(PyObject* key) {
  if (PyUnicode_Check(key)) return PyUnicode_AsUTF8(key);
  PyObject* n = PyObject_GetAttrString(key, "name");
  if (!n) {
    PyErr_Clear();
    return "";
  }
  std::string r = PyUnicode_AsUTF8(n);
  Py_DECREF(n);
  return r;
}

PyObject* has_kernel_for_key(PyObject*, PyObject* args) {
  PyObject* name;
  PyObject* key;
  if (!PyArg_ParseTuple(args, "OO", &name, &key)) return nullptr;
  int i = op_of(name);
  if (i < 0) Py_RETURN_FALSE;
  std::string k = key_name(key);
  auto it = py_kernels().find(i);
  if (it != py_kernels().end() && it->second.count(k)) Py_RETURN_TRUE;
  // CompositeImplicitAutograd answers from upstream's category (read from its yaml): ours
  // decomposes as upstream's where we implement it.
  if (k == "CompositeImplicitAutograd" && all_ops()[i].composite_implicit) Py_RETURN_TRUE;
  KernelSlot slot;
  return PyBool_FromLong(python_kernel_slot(k, &slot) && tn::has_kernel_for_key(i, slot));
}

PyObject* has_kernel(PyObject*, PyObject* name) { return PyBool_FromLong(op_of(name) >= 0); }

PyObject* always_false(PyObject*, PyObject*) { Py_RETURN_FALSE; }

// _tn_implemented_ops(): every op key with a kernel of ours ("aten::add.Tensor"), composite
// kernels included; ours only (upstream has no such function), read by the agreement harness.
PyObject* implemented_op_keys(PyObject*, PyObject*) {
  std::vector<std::string> keys = implemented_ops();
  PyObject* out = PyList_New(static_cast<Py_ssize_t>(keys.size()));
  if (!out) return nullptr;
  for (size_t i = 0; i < keys.size(); ++i) {
    PyObject* s = PyUnicode_FromString(keys[i].c_str());
    if (!s) {
      Py_DECREF(out);
      return nullptr;
    }
    PyList_SET_ITEM(out, static_cast<Py_ssize_t>(i), s);
  }
  return out;
}

// _SafeKernelFunction: the kernel an op would run for a key; call_boxed(keyset, *args) enters the
// door for that overload (ours has one kernel table, so the keyset is not consulted).
struct KernelObject {
  PyObject_HEAD
  PyObject* op;  // the door-bound callable of the overload
};

PyObject* kernel_call_boxed(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kw) {
  Py_ssize_t n = PyVectorcall_NARGS(nargsf);
  if (n < 1) {
    PyErr_SetString(PyExc_TypeError, "call_boxed(keyset, *args, **kwargs)");
    return nullptr;
  }
  return PyObject_Vectorcall(reinterpret_cast<KernelObject*>(self)->op, args + 1, n - 1, kw);
}

void kernel_dealloc(PyObject* self) {
  Py_XDECREF(reinterpret_cast<KernelObject*>(self)->op);
  Py_TYPE(self)->tp_free(self);
}

PyMethodDef kernel_methods[] = {
    {"call_boxed", reinterpret_cast<PyCFunction>(kernel_call_boxed),
     METH_FASTCALL | METH_KEYWORDS, nullptr},
    {nullptr, nullptr, 0, nullptr}};

PyTypeObject KernelType = [] {
  PyTypeObject t{PyVarObject_HEAD_INIT(nullptr, 0)};
  t.tp_name = "torch._C._SafeKernelFunction";
  t.tp_basicsize = sizeof(KernelObject);
  t.tp_flags = Py_TPFLAGS_DEFAULT;
  t.tp_dealloc = kernel_dealloc;
  t.tp_methods = kernel_methods;
  return t;
}();

PyObject* computed_kernel(PyObject*, PyObject* args) {
  PyObject* name;
  PyObject* key;
  if (!PyArg_ParseTuple(args, "OO", &name, &key)) return nullptr;
  int i = op_of(name);
  if (i < 0) {
    PyErr_Format(PyExc_RuntimeError, "could not find operator %S", name);
    return nullptr;
  }
  auto* k = PyObject_New(KernelObject, &KernelType);
  if (!k) return nullptr;
  k->op = op_callable({i}, all_ops()[i].name);
  if (!k->op) {
    Py_DECREF(k);
    return nullptr;
  }
  return reinterpret_cast<PyObject*>(k);
}

PyMethodDef kFunctions[] = {
    {"_dispatch_library", reinterpret_cast<PyCFunction>(dispatch_library),
     METH_VARARGS | METH_KEYWORDS, nullptr},
    {"_dispatch_has_kernel_for_dispatch_key", has_kernel_for_key, METH_VARARGS, nullptr},
    {"_dispatch_has_kernel", has_kernel, METH_O, nullptr},
    {"_dispatch_get_computed_kernel_for_dispatch_key", computed_kernel, METH_VARARGS, nullptr},
    {"_dispatch_kernel_for_dispatch_key_is_fallthrough", always_false, METH_VARARGS, nullptr},
    {"_dispatch_has_backend_fallback", always_false, METH_VARARGS, nullptr},
    {"_tn_implemented_ops", implemented_op_keys, METH_NOARGS, nullptr},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

bool init_library() {
  if (PyType_Ready(&LibraryType) != 0 || PyType_Ready(&KernelType) != 0) return false;
  if (!add("torch._C", "_DispatchModule", Py_NewRef(reinterpret_cast<PyObject*>(&LibraryType))) ||
      !add("torch._C", "_SafeKernelFunction", Py_NewRef(reinterpret_cast<PyObject*>(&KernelType))))
    return false;
  for (PyMethodDef* d = kFunctions; d->ml_name; ++d)
    if (!add("torch._C", d->ml_name, make_builtin(*d, d->ml_name, nullptr))) return false;
  return true;
}

}  // namespace tn::py
