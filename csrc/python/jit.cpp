// The slice of TorchScript's surface that `import torch` and `transformers` execute: source
// ranges and error reports built while parsing @overload bodies, type singletons used in
// annotations, and PYTORCH_JIT=0 so module-level @torch.jit.script stays plain Python. Scripting
// itself is not implemented and refuses through the placeholders.
#include <cstdlib>
#include <string>

#include "python/init.h"

namespace tn::py {

PyObject* make_builtin(const PyMethodDef& proto, const char* name, PyObject* self);

namespace {

PyObject* empty_string(PyObject*, PyObject*) { return PyUnicode_FromString(""); }

// Replaces a placeholder member of class `cls` in `module` with obj (stolen).
bool set_member(const char* mod, const char* cls, const char* name, PyObject* obj) {
  if (!obj) return false;
  PyObject* c = PyObject_GetAttrString(module(mod), cls);
  if (!c) {
    Py_DECREF(obj);
    return false;
  }
  int rc = PyObject_SetAttrString(c, name, obj);
  Py_DECREF(c);
  Py_DECREF(obj);
  return rc == 0;
}

PyObject* staticmethod_of(PyMethodDef* def) {
  PyObject* f = make_builtin(*def, def->ml_name, nullptr);
  if (!f) return nullptr;
  PyObject* sm = PyStaticMethod_New(f);
  Py_DECREF(f);
  return sm;
}

PyMethodDef call_stack_def = {"call_stack", empty_string, METH_NOARGS, nullptr};

// A record class: __init__ stores its positional/keyword arguments under the names the stub
// gives them. `self` of the builtin is the tuple of field names.
PyObject* record_init(PyObject* fields, PyObject* const* args, Py_ssize_t nargs, PyObject* kw) {
  if (nargs < 1) {
    PyErr_SetString(PyExc_TypeError, "__init__ needs self");
    return nullptr;
  }
  PyObject* self = args[0];
  Py_ssize_t nfields = PyTuple_GET_SIZE(fields);
  if (nargs - 1 > nfields) {
    PyErr_Format(PyExc_TypeError, "__init__() takes %zd arguments (%zd given)", nfields,
                 nargs - 1);
    return nullptr;
  }
  for (Py_ssize_t i = 1; i < nargs; ++i)
    if (PyObject_SetAttr(self, PyTuple_GET_ITEM(fields, i - 1), args[i]) != 0) return nullptr;
  if (kw) {
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(kw); ++i)
      if (PyObject_SetAttr(self, PyTuple_GET_ITEM(kw, i), args[nargs + i]) != 0) return nullptr;
  }
  Py_RETURN_NONE;
}

// __new__ of a record class: object.__new__(cls), ignoring the arguments __init__ takes.
PyObject* record_new(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject*) {
  if (nargs < 1 || !PyType_Check(args[0])) {
    PyErr_SetString(PyExc_TypeError, "__new__(cls, ...)");
    return nullptr;
  }
  auto* type = reinterpret_cast<PyTypeObject*>(args[0]);
  return type->tp_alloc(type, 0);
}
PyMethodDef record_new_def = {"__new__", reinterpret_cast<PyCFunction>(record_new),
                              METH_FASTCALL | METH_KEYWORDS, nullptr};

PyMethodDef record_init_def = {"__init__", reinterpret_cast<PyCFunction>(record_init),
                               METH_FASTCALL | METH_KEYWORDS, nullptr};

// Turns placeholder class mod.cls into a record class with the given fields.
bool make_record(const char* mod, const char* cls, const char* fields_csv) {
  PyObject* c = PyObject_GetAttrString(module(mod), cls);
  if (!c) return false;
  PyObject* ftuple = PyTuple_New(0);
  if (fields_csv[0]) {
    PyObject* text = PyUnicode_FromString(fields_csv);
    PyObject* sep = PyUnicode_FromString(",");
    PyObject* fields = PyUnicode_Split(text, sep, -1);
    Py_DECREF(text);
    Py_DECREF(sep);
    Py_DECREF(ftuple);
    ftuple = PySequence_Tuple(fields);
    Py_DECREF(fields);
  }
  // Stub properties of the same names would shadow the stored fields.
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(ftuple); ++i) {
    PyObject* dict = reinterpret_cast<PyTypeObject*>(c)->tp_dict;
    if (PyDict_GetItem(dict, PyTuple_GET_ITEM(ftuple, i)))
      PyObject_DelAttr(c, PyTuple_GET_ITEM(ftuple, i));
  }
  PyObject* f = make_builtin(record_init_def, "__init__", ftuple);
  Py_DECREF(ftuple);
  PyObject* m = PyInstanceMethod_New(f);
  Py_DECREF(f);
  PyObject* nf = make_builtin(record_new_def, "__new__", nullptr);
  PyObject* sm = PyStaticMethod_New(nf);
  Py_DECREF(nf);
  int rc = PyObject_SetAttrString(c, "__new__", sm);
  Py_DECREF(sm);
  if (rc == 0) rc = PyObject_SetAttrString(c, "__init__", m);
  Py_DECREF(m);
  Py_DECREF(c);
  return rc == 0;
}

// SourceRangeFactory.make_raw_range(start, end) -> SourceRange(start, end).
PyObject* make_raw_range(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 3) {
    PyErr_SetString(PyExc_TypeError, "make_raw_range(start, end)");
    return nullptr;
  }
  PyObject* cls = PyObject_GetAttrString(module("torch._C._jit_tree_views"), "SourceRange");
  if (!cls) return nullptr;
  PyObject* r = PyObject_CallFunctionObjArgs(cls, args[1], args[2], nullptr);
  Py_DECREF(cls);
  return r;
}
PyMethodDef make_raw_range_def = {"make_raw_range", reinterpret_cast<PyCFunction>(make_raw_range),
                                  METH_FASTCALL, nullptr};

// Torchbind classes (torch::class_) the core registers. The tree registers fake classes for
// these at import; their methods are placeholders until something implements them.
const char* const kCustomClasses[] = {"aten::OpaqueObject"};

PyObject* custom_class_wrapper(PyObject*, PyObject* args) {
  const char* ns;
  const char* name;
  if (!PyArg_ParseTuple(args, "ss:_get_custom_class_python_wrapper", &ns, &name)) return nullptr;
  std::string qual = std::string(ns) + "::" + name;
  for (const char* known : kCustomClasses)
    if (qual == known) return placeholder(("torch.classes." + std::string(ns) + "." + name).c_str());
  PyErr_Format(PyExc_RuntimeError,
               "Tried to instantiate class '%s.%s', but it does not exist! Ensure that it is "
               "registered via torch::class_",
               ns, name);
  return nullptr;
}
PyMethodDef custom_class_def = {"_get_custom_class_python_wrapper", custom_class_wrapper,
                                METH_VARARGS, nullptr};

struct Record {
  const char* module;
  const char* cls;
  const char* fields;
};
const Record kRecords[] = {
    {"torch._C._jit_tree_views", "SourceRangeFactory",
     "source,filename,file_lineno,leading_whitespace_chars"},
    {"torch._C._jit_tree_views", "SourceRange", "start,end"},
    // Constructible at import; run_backward is autograd.cpp's (init_autograd_late).
    {"torch._C", "_ImperativeEngine", ""},
    {"torch._C", "CompilationUnit", "lang,_frames_up"},
    // A guard object: functorch transforms are not implemented, so there is nothing to disable.
    {"torch._C", "_DisableFuncTorch", ""},
    {"torch._C._dynamo.eval_frame", "_FrameExecStrategy", "cur_action,recursive_action"},
};

}  // namespace

bool init_jit_late() {
  // Module-level @torch.jit.script in the tree and in modeling files then stays Python; a user
  // who set PYTORCH_JIT explicitly keeps their choice.
  setenv("PYTORCH_JIT", "0", 0);
  PyObject* os = PyImport_ImportModule("os");
  if (!os) return false;
  PyObject* environ = PyObject_GetAttrString(os, "environ");
  Py_DECREF(os);
  PyObject* r = PyObject_CallMethod(environ, "setdefault", "ss", "PYTORCH_JIT", "0");
  Py_DECREF(environ);
  if (!r) return false;
  Py_DECREF(r);
  PyObject* c = module("torch._C");
  PyObject* wrapper = make_builtin(custom_class_def, custom_class_def.ml_name, nullptr);
  int rc = wrapper ? PyObject_SetAttrString(c, custom_class_def.ml_name, wrapper) : -1;
  Py_XDECREF(wrapper);
  if (rc != 0) return false;
  for (const Record& r : kRecords)
    if (!make_record(r.module, r.cls, r.fields)) return false;
  PyObject* raw = make_builtin(make_raw_range_def, "make_raw_range", nullptr);
  PyObject* raw_m = PyInstanceMethod_New(raw);
  Py_DECREF(raw);
  if (!set_member("torch._C._jit_tree_views", "SourceRangeFactory", "make_raw_range", raw_m))
    return false;
  return set_member("torch._C", "ErrorReport", "call_stack", staticmethod_of(&call_stack_def));
}

}  // namespace tn::py
