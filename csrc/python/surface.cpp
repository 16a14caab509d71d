// Builds torch._C's name surface from the table tools/gen_surface.py generates from the wheel's
// stubs. Hand-written objects are put in place first; this file fills every remaining name with a
// placeholder that names itself when called or tested for truth (PRIOR_ART.md, wall 8). There is no
// catch-all __getattr__: a name the stubs lack and the tree never reads stays absent.
#include "python/surface.h"

#include <cstddef>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

namespace tn::py {
namespace {

enum Kind { kModule, kFunction, kClass, kMethod, kAttr, kValue, kEnum, kMember, kScanned };

struct Entry {
  const char* module;
  const char* cls;
  const char* name;
  int kind;
  const char* extra;
};

const Entry kTable[] = {
#include "surface_table.inc"
};

// --- placeholder objects ---------------------------------------------------------------------

struct Placeholder {
  PyObject_HEAD
  PyObject* qualname;
  PyObject* dict;  // __doc__, __module__ and friends are writable, as on upstream's builtins
};

PyObject* raise_missing(PyObject* qualname) {
  PyErr_Format(PyExc_NotImplementedError,
               "%U is not implemented by torchnative (a placeholder of the torch._C surface)",
               qualname);
  return nullptr;
}

PyObject* placeholder_call(PyObject* self, PyObject*, PyObject*) {
  return raise_missing(reinterpret_cast<Placeholder*>(self)->qualname);
}

int placeholder_bool(PyObject* self) {
  raise_missing(reinterpret_cast<Placeholder*>(self)->qualname);
  return -1;
}

PyObject* placeholder_repr(PyObject* self) {
  return PyUnicode_FromFormat("<torchnative placeholder %U>",
                              reinterpret_cast<Placeholder*>(self)->qualname);
}

void placeholder_dealloc(PyObject* self) {
  auto* p = reinterpret_cast<Placeholder*>(self);
  PyObject_GC_UnTrack(self);
  Py_CLEAR(p->qualname);
  Py_CLEAR(p->dict);
  Py_TYPE(self)->tp_free(self);
}

int placeholder_traverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(reinterpret_cast<Placeholder*>(self)->dict);
  return 0;
}

// Descriptor protocol for placeholder attributes: the class sees the placeholder, an instance
// read raises.
PyObject* attr_get(PyObject* self, PyObject* obj, PyObject*) {
  if (obj == nullptr || obj == Py_None) return Py_NewRef(self);
  return raise_missing(reinterpret_cast<Placeholder*>(self)->qualname);
}

int attr_set(PyObject* self, PyObject*, PyObject*) {
  raise_missing(reinterpret_cast<Placeholder*>(self)->qualname);
  return -1;
}

PyNumberMethods placeholder_number = [] {
  PyNumberMethods m{};
  m.nb_bool = placeholder_bool;
  return m;
}();

PyTypeObject PlaceholderType = [] {
  PyTypeObject t{PyVarObject_HEAD_INIT(nullptr, 0)};
  t.tp_name = "torch._C._TorchnativePlaceholder";
  t.tp_basicsize = sizeof(Placeholder);
  t.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC;
  t.tp_dealloc = placeholder_dealloc;
  t.tp_traverse = placeholder_traverse;
  t.tp_call = placeholder_call;
  t.tp_repr = placeholder_repr;
  t.tp_as_number = &placeholder_number;
  t.tp_dictoffset = offsetof(Placeholder, dict);
  t.tp_getattro = PyObject_GenericGetAttr;
  t.tp_setattro = PyObject_GenericSetAttr;
  return t;
}();

PyTypeObject PlaceholderAttrType = [] {
  PyTypeObject t = PlaceholderType;
  t.tp_name = "torch._C._TorchnativePlaceholderAttribute";
  t.tp_base = &PlaceholderType;
  t.tp_descr_get = attr_get;
  t.tp_descr_set = attr_set;
  return t;
}();

PyObject* make_placeholder(PyTypeObject* type, const char* qualname) {
  auto* p = PyObject_GC_New(Placeholder, type);
  if (!p) return nullptr;
  p->qualname = PyUnicode_FromString(qualname);
  p->dict = PyDict_New();
  if (!p->qualname || !p->dict) {
    Py_DECREF(p);
    return nullptr;
  }
  const char* dot = std::strrchr(qualname, '.');
  PyObject* short_name = PyUnicode_FromString(dot ? dot + 1 : qualname);
  PyDict_SetItemString(p->dict, "__name__", short_name);
  PyDict_SetItemString(p->dict, "__qualname__", short_name);
  Py_DECREF(short_name);
  PyDict_SetItemString(p->dict, "__doc__", Py_None);
  PyObject* modname = dot ? PyUnicode_FromStringAndSize(qualname, dot - qualname)
                          : PyUnicode_FromString("torch._C");
  PyDict_SetItemString(p->dict, "__module__", modname);
  Py_DECREF(modname);
  PyObject_GC_Track(p);
  return reinterpret_cast<PyObject*>(p);
}

// --- modules -------------------------------------------------------------------------------

std::unordered_map<std::string, PyObject*>& modules() {
  static std::unordered_map<std::string, PyObject*> m;
  return m;
}

// Resolves a class's base names from the stubs to Python types.
PyObject* resolve_base(PyObject* mod, const std::string& name) {
  static const std::unordered_map<std::string, PyObject*> builtin = {
      {"Exception", PyExc_Exception}, {"RuntimeError", PyExc_RuntimeError},
      {"tuple", reinterpret_cast<PyObject*>(&PyTuple_Type)},
      {"type", reinterpret_cast<PyObject*>(&PyType_Type)},
      {"object", reinterpret_cast<PyObject*>(&PyBaseObject_Type)},
  };
  auto it = builtin.find(name);
  if (it != builtin.end()) return it->second;
  if (name == "Generic" || name == "Protocol" || name == "NamedTuple") return nullptr;
  PyObject* found = PyObject_GetAttrString(mod, name.c_str());
  if (!found) {
    PyErr_Clear();
    PyObject* root = module("torch._C");
    found = PyObject_GetAttrString(root, name.c_str());
    if (!found) PyErr_Clear();
  }
  if (found && !PyType_Check(found)) Py_CLEAR(found);
  if (found) Py_DECREF(found);  // modules keep it alive
  return found;
}

std::vector<std::string> split(const char* s) {
  std::vector<std::string> out;
  std::string cur;
  for (const char* p = s; *p; ++p) {
    if (*p == ',') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += *p;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

// The metaclass of placeholder classes (a plain subclass of type).
PyObject* placeholder_meta() {
  static PyObject* meta = PyObject_CallFunction(
      reinterpret_cast<PyObject*>(&PyType_Type), "s(O){s:s}", "_TorchnativeClassType",
      reinterpret_cast<PyObject*>(&PyType_Type), "__module__", "torch._C");
  return meta;
}

// A placeholder class: subclassable (the tree defines classes on top of many), constructing it
// raises NotImplementedError naming it.
PyObject* make_class(PyObject* mod, const Entry& e) {
  std::string inner = *e.cls ? std::string(e.cls) + "." + e.name : std::string(e.name);
  std::string qual = std::string(e.module) + "." + inner;
  PyObject* bases_list = PyList_New(0);
  for (const auto& b : split(e.extra)) {
    PyObject* base = resolve_base(mod, b);
    if (base && !PySequence_Contains(bases_list, base)) PyList_Append(bases_list, base);
  }
  PyObject* bases = PyList_AsTuple(bases_list);
  Py_DECREF(bases_list);
  PyObject* dict = PyDict_New();
  PyObject* modname = PyUnicode_FromString(e.module);
  PyDict_SetItemString(dict, "__module__", modname);
  Py_DECREF(modname);
  PyObject* ctor = make_placeholder(&PlaceholderType, (qual + ".__new__").c_str());
  PyDict_SetItemString(dict, "__new__", ctor);
  Py_DECREF(ctor);
  // Upstream's bound classes have their own metaclass (pybind11's), and the tree builds
  // metaclasses from type(torch._C.X) + type(Generic): so ours have one too, except those that
  // upstream defines with plain `type` (PRIOR_ART.md, wall 6) and exception classes.
  static const char* const kPlainType[] = {"_LegacyVariableBase"};
  PyObject* meta = placeholder_meta();
  for (const char* n : kPlainType)
    if (std::strcmp(n, e.name) == 0) meta = reinterpret_cast<PyObject*>(&PyType_Type);
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(bases); ++i) {
    PyObject* b = PyTuple_GET_ITEM(bases, i);
    if (PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(b),
                         reinterpret_cast<PyTypeObject*>(PyExc_BaseException)) ||
        Py_TYPE(b) != reinterpret_cast<PyTypeObject*>(meta))
      meta = reinterpret_cast<PyObject*>(Py_TYPE(b));
  }
  PyDict_SetItemString(dict, "__torchnative_placeholder__", Py_True);
  PyObject* qualname = PyUnicode_FromString(inner.c_str());
  PyDict_SetItemString(dict, "__qualname__", qualname);
  Py_DECREF(qualname);
  PyObject* cls = PyObject_CallFunction(meta, "sOO", e.name, bases, dict);
  Py_DECREF(bases);
  Py_DECREF(dict);
  return cls;
}

PyObject* make_enum(const Entry& e, const std::vector<std::string>& members) {
  PyObject* enum_mod = PyImport_ImportModule("enum");
  if (!enum_mod) return nullptr;
  PyObject* factory = PyObject_GetAttrString(enum_mod, "IntEnum");
  Py_DECREF(enum_mod);
  PyObject* names = PyList_New(0);
  for (size_t i = 0; i < members.size(); ++i) {
    PyObject* pair = Py_BuildValue("(sn)", members[i].c_str(), static_cast<Py_ssize_t>(i));
    PyList_Append(names, pair);
    Py_DECREF(pair);
  }
  PyObject* args = Py_BuildValue("(sO)", e.name, names);
  PyObject* kwargs = Py_BuildValue("{s:s}", "module", e.module);
  PyObject* cls = PyObject_Call(factory, args, kwargs);
  // Marks enums made from the stubs alone (their values are stub order, not upstream's).
  if (cls) PyObject_SetAttrString(cls, "__torchnative_placeholder__", Py_True);
  Py_DECREF(factory);
  Py_DECREF(names);
  Py_DECREF(args);
  Py_DECREF(kwargs);
  return cls;
}

// Names a placeholder must never shadow: they drive class creation, attribute lookup or
// hashing, and a raising placeholder there would break the class itself rather than one use.
bool protocol_name(const char* name) {
  static const char* const kNames[] = {
      "__init__", "__new__", "__getattribute__", "__getattr__", "__setattr__", "__delattr__",
      "__init_subclass__", "__class_getitem__", "__dict__", "__module__", "__doc__",
      "__hash__", "__subclasshook__", "__instancecheck__", "__subclasscheck__", "__get__",
      "__set__", "__delete__", "__slots__", "__annotations__", "__weakref__", "__repr__",
      "__str__", "__reduce__", "__reduce_ex__", "__sizeof__", "__dir__", "__format__",
      "__eq__", "__ne__", "__bool__", "__len__", "__iter__", "__class__"};
  for (const char* n : kNames)
    if (std::strcmp(n, name) == 0) return true;
  return false;
}

// A placeholder *function*: a real builtin (so inspect and torch._dynamo see a function, and
// _add_docstr can document it) whose call raises NotImplementedError naming it.
PyObject* placeholder_function_call(PyObject* qualname, PyObject*, PyObject*) {
  return raise_missing(qualname);
}

PyObject* placeholder_function(const char* module_name, const char* name) {
  auto* def = new PyMethodDef{name, reinterpret_cast<PyCFunction>(placeholder_function_call),
                              METH_VARARGS | METH_KEYWORDS, nullptr};  // lives with the function
  std::string qual = std::string(module_name) + "." + name;
  PyObject* q = PyUnicode_FromString(qual.c_str());
  PyObject* mod = PyUnicode_FromString(module_name);
  PyObject* f = PyCFunction_NewEx(def, q, mod);
  Py_DECREF(q);
  Py_DECREF(mod);
  return f;
}

bool has(PyObject* owner, const char* name) {
  if (PyModule_Check(owner)) return PyDict_GetItemString(PyModule_GetDict(owner), name) != nullptr;
  PyObject* d = reinterpret_cast<PyTypeObject*>(owner)->tp_dict;
  return PyDict_GetItemString(d, name) != nullptr;
}

// Makes the placeholder class e.cls.e.name unless its outer class is missing or already has it.
bool add_nested_class(PyObject* mod, const Entry& e) {
  PyObject* outer = PyObject_GetAttrString(mod, e.cls);
  if (!outer) {
    PyErr_Clear();
    return true;
  }
  bool ok = true;
  if (PyType_Check(outer) && !has(outer, e.name)) {
    PyObject* cls = make_class(mod, e);
    ok = cls && PyObject_SetAttrString(outer, e.name, cls) == 0;
    Py_XDECREF(cls);
  }
  Py_DECREF(outer);
  return ok;
}

}  // namespace

PyObject* placeholder(const char* qualname) { return make_placeholder(&PlaceholderType, qualname); }

PyObject* placeholder_attr(const char* qualname) {
  return make_placeholder(&PlaceholderAttrType, qualname);
}

bool init_placeholder_types() {
  return PyType_Ready(&PlaceholderType) == 0 && PyType_Ready(&PlaceholderAttrType) == 0;
}

PyObject* module(const char* qualname) {
  auto& mods = modules();
  auto it = mods.find(qualname);
  if (it != mods.end()) return it->second;
  std::string q = qualname;
  PyObject* m = nullptr;
  if (q == "torch._C") {
    static PyModuleDef def = {PyModuleDef_HEAD_INIT, "torch._C", nullptr, -1, nullptr};
    m = PyModule_Create(&def);
  } else {
    m = PyModule_New(qualname);
  }
  if (!m) return nullptr;
  mods[q] = m;  // owned by this table for the life of the process
  PyObject* sys_modules = PyImport_GetModuleDict();
  PyDict_SetItemString(sys_modules, qualname, m);
  size_t dot = q.rfind('.');
  if (q != "torch._C" && dot != std::string::npos) {
    PyObject* parent = module(q.substr(0, dot).c_str());
    if (!parent) return nullptr;
    PyModule_AddObjectRef(parent, q.substr(dot + 1).c_str(), m);
  }
  return m;
}

bool add(const char* qualname, const char* name, PyObject* obj) {
  if (!obj) return false;
  PyObject* m = module(qualname);
  if (!m) {
    Py_DECREF(obj);
    return false;
  }
  int rc = PyModule_AddObjectRef(m, name, obj);
  Py_DECREF(obj);
  return rc == 0;
}

bool build_surface() {
  size_t n = sizeof(kTable) / sizeof(kTable[0]);
  // Pass 1: modules. Pass 2: classes and enums (stub order puts bases first). Pass 3: the rest.
  for (size_t i = 0; i < n; ++i)
    if (kTable[i].kind == kModule && !module(kTable[i].module)) return false;
  for (size_t i = 0; i < n; ++i) {
    const Entry& e = kTable[i];
    if (e.kind != kClass && e.kind != kEnum) continue;
    PyObject* mod = module(e.module);
    if (*e.cls) {  // a nested class: an attribute of its (already made) outer class
      if (!add_nested_class(mod, e)) return false;
      continue;
    }
    if (has(mod, e.name)) continue;
    PyObject* cls = nullptr;
    if (e.kind == kEnum) {
      std::vector<std::string> members;
      for (size_t j = 0; j < n; ++j)
        if (kTable[j].kind == kMember && std::strcmp(kTable[j].cls, e.name) == 0 &&
            std::strcmp(kTable[j].module, e.module) == 0)
          members.emplace_back(kTable[j].name);
      cls = make_enum(e, members);
    } else {
      cls = make_class(mod, e);
    }
    if (!add(e.module, e.name, cls)) return false;
  }
  for (size_t i = 0; i < n; ++i) {
    const Entry& e = kTable[i];
    PyObject* mod = module(e.module);
    std::string qual = std::string(e.module) + ".";
    switch (e.kind) {
      case kFunction:
        if (has(mod, e.name)) break;
        if (!add(e.module, e.name, placeholder_function(e.module, e.name))) return false;
        break;
      case kValue:
      case kScanned:
        if (has(mod, e.name)) break;
        if (!add(e.module, e.name, placeholder((qual + e.name).c_str()))) return false;
        break;
      case kMethod:
      case kAttr: {
        PyObject* cls = PyObject_GetAttrString(mod, e.cls);
        if (!cls) {
          PyErr_Clear();
          break;
        }
        if (PyType_Check(cls) && !has(cls, e.name) && !protocol_name(e.name)) {
          std::string q = qual + e.cls + "." + e.name;
          PyObject* ph = e.kind == kAttr ? placeholder_attr(q.c_str()) : placeholder(q.c_str());
          // tp_dict directly: static (hand-written) types refuse setattr.
          PyDict_SetItemString(reinterpret_cast<PyTypeObject*>(cls)->tp_dict, e.name, ph);
          PyType_Modified(reinterpret_cast<PyTypeObject*>(cls));
          Py_DECREF(ph);
        }
        Py_DECREF(cls);
        break;
      }
      default:
        break;
    }
  }
  return !PyErr_Occurred();
}

}  // namespace tn::py
