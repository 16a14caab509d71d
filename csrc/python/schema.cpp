// Python views of operator schemas (torch.FunctionSchema, torch.Argument, torch._C._AliasInfo),
// the JIT type objects their arguments carry, and the registry functions torch/_ops.py calls:
// _jit_get_operation, _get_operation_overload, _get_schema, parse_schema, _jit_get_all_schemas.
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/error.h"
#include "dispatch/registry.h"
#include "dispatch/schema.h"
#include "python/init.h"

namespace tn::py {

PyObject* make_builtin(const PyMethodDef& proto, const char* name, PyObject* self);
PyObject* op_callable(const std::vector<int>& overloads, const char* name);  // ops.cpp

namespace {

using SchemaPtr = std::shared_ptr<const FunctionSchema>;

// --- JIT types: instances of the stub classes (TensorType, ListType, ...) -----------------------

PyObject* stub_class(const char* name) {
  return PyObject_GetAttrString(module("torch._C"), name);  // new ref
}

// One JIT type object per printed form, created on first use and kept for the process.
PyObject* jit_type_named(const std::string& cls_name, const std::string& str,
                         const std::string& kind, PyObject* elem) {
  static std::unordered_map<std::string, PyObject*> cache;
  auto it = cache.find(str);
  if (it != cache.end()) return Py_NewRef(it->second);
  PyObject* cls = stub_class(cls_name.c_str());
  if (!cls) return nullptr;
  auto* type = reinterpret_cast<PyTypeObject*>(cls);
  PyObject* obj = type->tp_alloc(type, 0);
  Py_DECREF(cls);
  if (!obj) return nullptr;
  PyObject* s = PyUnicode_FromString(str.c_str());
  PyObject* k = PyUnicode_FromString(kind.c_str());
  PyObject_SetAttrString(obj, "_tn_str", s);
  PyObject_SetAttrString(obj, "_tn_kind", k);
  PyObject_SetAttrString(obj, "_tn_elem", elem ? elem : Py_None);
  Py_DECREF(s);
  Py_DECREF(k);
  cache[str] = obj;
  return Py_NewRef(obj);
}

// Schema base type -> (stub class, printed name), as upstream's real types.
struct BaseType {
  const char* base;
  const char* cls;
  const char* str;
  const char* kind;
};
const BaseType kBaseTypes[] = {
    {"Tensor", "TensorType", "Tensor", "TensorType"},
    {"int", "IntType", "int", "IntType"},
    {"SymInt", "IntType", "int", "IntType"},
    {"ScalarType", "IntType", "int", "IntType"},
    {"Layout", "IntType", "int", "IntType"},
    {"MemoryFormat", "IntType", "int", "IntType"},
    {"float", "FloatType", "float", "FloatType"},
    {"SymFloat", "FloatType", "float", "FloatType"},
    {"bool", "BoolType", "bool", "BoolType"},
    {"SymBool", "BoolType", "bool", "BoolType"},
    {"str", "StringType", "str", "StringType"},
    {"Dimname", "StringType", "str", "StringType"},
    {"Scalar", "NumberType", "number", "NumberType"},
    {"Device", "DeviceObjType", "Device", "DeviceObjType"},
    {"Generator", "_GeneratorType", "Generator", "GeneratorType"},
    {"Stream", "StreamObjType", "Stream", "StreamObjType"},
    {"Storage", "Type", "Storage", "StorageType"},
    {"QScheme", "Type", "QScheme", "QSchemeType"},
    {"complex", "ComplexType", "complex", "ComplexType"},
    {"Any", "AnyType", "Any", "AnyType"},
};

PyObject* jit_type(const SchemaType& t) {
  const BaseType* b = nullptr;
  for (const BaseType& bt : kBaseTypes)
    if (t.base == bt.base) b = &bt;
  bool is_class = t.base.rfind("__torch__.", 0) == 0;  // a torchbind class
  std::string cls = b ? b->cls : (is_class ? "ClassType" : "AnyType");
  std::string str = b ? b->str : t.base;
  std::string kind = b ? b->kind : (is_class ? "ClassType" : "AnyType");
  PyObject* elem = jit_type_named(cls, str, kind, nullptr);
  if (!elem) return nullptr;
  if (t.is_list) {
    if (t.elem_optional) {
      PyObject* opt = jit_type_named("OptionalType", "Optional[" + str + "]", "OptionalType", elem);
      Py_DECREF(elem);
      elem = opt;
      str = "Optional[" + str + "]";
    }
    for (int depth = 0; depth <= t.extra_list_depth; ++depth) {
      PyObject* list = jit_type_named("ListType", "List[" + str + "]", "ListType", elem);
      Py_DECREF(elem);
      elem = list;
      str = "List[" + str + "]";
    }
  }
  if (t.optional) {
    PyObject* opt = jit_type_named("OptionalType", "Optional[" + str + "]", "OptionalType", elem);
    Py_DECREF(elem);
    elem = opt;
  }
  return elem;
}

PyObject* attr(PyObject* self, const char* name) { return PyObject_GetAttrString(self, name); }

// Installed as instance methods (PyInstanceMethod), so the instance arrives as the argument:
// one-argument methods are METH_O, two-argument ones METH_FASTCALL.
PyObject* jt_str(PyObject*, PyObject* self) { return attr(self, "_tn_str"); }
PyObject* jt_kind(PyObject*, PyObject* self) { return attr(self, "_tn_kind"); }
PyObject* jt_elem(PyObject*, PyObject* self) { return attr(self, "_tn_elem"); }
PyObject* jt_contained(PyObject*, PyObject* self) {
  PyObject* e = attr(self, "_tn_elem");
  if (!e) return nullptr;
  if (e == Py_None) {
    Py_DECREF(e);
    return PyList_New(0);
  }
  PyObject* list = PyList_New(1);
  PyList_SET_ITEM(list, 0, e);
  return list;
}
PyObject* jt_eq_impl(PyObject* self, PyObject* other) {
  PyObject* a = attr(self, "_tn_str");
  PyObject* b = PyObject_GetAttrString(other, "_tn_str");
  if (!b) {
    PyErr_Clear();
    Py_XDECREF(a);
    Py_RETURN_FALSE;
  }
  int eq = PyObject_RichCompareBool(a, b, Py_EQ);
  Py_DECREF(a);
  Py_DECREF(b);
  return PyBool_FromLong(eq);
}
PyObject* jt_hash(PyObject*, PyObject* self) {
  PyObject* s = attr(self, "_tn_str");
  Py_hash_t h = PyObject_Hash(s);
  Py_DECREF(s);
  return PyLong_FromSsize_t(h);
}
// a.isSubtypeOf(b): equal, b is Any, or b is Optional[T] with a a subtype of T (or None).
PyObject* jt_subtype_impl(PyObject* self, PyObject* other) {
  PyObject* eq = jt_eq_impl(self, other);
  if (eq == Py_True) return eq;
  Py_DECREF(eq);
  PyObject* kind = PyObject_GetAttrString(other, "_tn_kind");
  if (!kind) {
    PyErr_Clear();
    Py_RETURN_FALSE;
  }
  std::string k = PyUnicode_AsUTF8(kind);
  Py_DECREF(kind);
  if (k == "AnyType") Py_RETURN_TRUE;
  if (k == "OptionalType") {
    PyObject* e = attr(other, "_tn_elem");
    PyObject* r = jt_subtype_impl(self, e);
    Py_DECREF(e);
    return r;
  }
  Py_RETURN_FALSE;
}

PyObject* jt_eq(PyObject*, PyObject* const* args, Py_ssize_t n) {
  if (n != 2) {
    PyErr_SetString(PyExc_TypeError, "expected one argument");
    return nullptr;
  }
  return jt_eq_impl(args[0], args[1]);
}
PyObject* jt_subtype(PyObject*, PyObject* const* args, Py_ssize_t n) {
  if (n != 2) {
    PyErr_SetString(PyExc_TypeError, "isSubtypeOf(other)");
    return nullptr;
  }
  return jt_subtype_impl(args[0], args[1]);
}

bool install_jit_type_methods() {
  static PyMethodDef defs[] = {
      {"__str__", jt_str, METH_O, nullptr},
      {"__repr__", jt_str, METH_O, nullptr},
      {"annotation_str", jt_str, METH_O, nullptr},
      {"str", jt_str, METH_O, nullptr},
      {"kind", jt_kind, METH_O, nullptr},
      {"containedTypes", jt_contained, METH_O, nullptr},
      {"__eq__", reinterpret_cast<PyCFunction>(jt_eq), METH_FASTCALL, nullptr},
      {"__hash__", jt_hash, METH_O, nullptr},
      {"isSubtypeOf", reinterpret_cast<PyCFunction>(jt_subtype), METH_FASTCALL, nullptr},
  };
  PyObject* base = stub_class("Type");  // upstream's base of every JIT type class
  if (!base) return false;
  for (PyMethodDef& d : defs) {
    PyObject* f = make_builtin(d, d.ml_name, nullptr);
    PyObject* m = PyInstanceMethod_New(f);
    Py_DECREF(f);
    if (PyObject_SetAttrString(base, d.ml_name, m) != 0) return false;
    Py_DECREF(m);
  }
  Py_DECREF(base);
  static PyMethodDef elem_def = {"getElementType", jt_elem, METH_O, nullptr};
  for (const char* c : {"ListType", "OptionalType"}) {
    PyObject* cls = stub_class(c);
    PyObject* f = make_builtin(elem_def, elem_def.ml_name, nullptr);
    PyObject* m = PyInstanceMethod_New(f);
    Py_DECREF(f);
    int rc = cls ? PyObject_SetAttrString(cls, elem_def.ml_name, m) : -1;
    Py_DECREF(m);
    Py_XDECREF(cls);
    if (rc != 0) return false;
  }
  return true;
}

PyObject* return_self(PyObject* self, PyObject*) { return Py_NewRef(self); }

// OptionalType(T) and ListType(T): `self` of the builtin names the container.
PyObject* container_new(PyObject* which, PyObject* const* args, Py_ssize_t n) {
  // args: (cls, T) when called as cls(T) through __new__.
  if (n != 2) {
    PyErr_SetString(PyExc_TypeError, "expected one element type");
    return nullptr;
  }
  PyObject* elem_str = PyObject_GetAttrString(args[1], "_tn_str");
  if (!elem_str) return nullptr;
  std::string kind = PyUnicode_AsUTF8(which);
  std::string prefix = kind == "OptionalType" ? "Optional[" : "List[";
  std::string str = prefix + PyUnicode_AsUTF8(elem_str) + "]";
  Py_DECREF(elem_str);
  return jit_type_named(kind, str, kind, args[1]);
}

bool install_container_constructors() {
  static PyMethodDef new_def = {"__new__", reinterpret_cast<PyCFunction>(container_new),
                                METH_FASTCALL, nullptr};
  for (const char* c : {"OptionalType", "ListType"}) {
    PyObject* which = PyUnicode_FromString(c);
    PyObject* f = make_builtin(new_def, "__new__", which);
    Py_DECREF(which);
    PyObject* sm = PyStaticMethod_New(f);
    Py_DECREF(f);
    PyObject* cls = stub_class(c);
    int rc = cls ? PyObject_SetAttrString(cls, "__new__", sm) : -1;
    Py_XDECREF(cls);
    Py_DECREF(sm);
    if (rc != 0) return false;
  }
  // The named shorthands upstream offers.
  struct Short {
    const char* cls;
    const char* name;
    SchemaType type;
  };
  SchemaType tensor{"Tensor"};
  SchemaType opt_tensor = tensor;
  opt_tensor.optional = true;
  SchemaType tensors = tensor;
  tensors.is_list = true;
  SchemaType ints{"int"};
  ints.is_list = true;
  static PyMethodDef get_def = {"get", return_self, METH_NOARGS, nullptr};
  for (const Short& sh : {Short{"OptionalType", "ofTensor", opt_tensor},
                          Short{"ListType", "ofTensors", tensors},
                          Short{"ListType", "ofInts", ints}}) {
    PyObject* inst = jit_type(sh.type);
    if (!inst) return false;
    PyObject* f = make_builtin(get_def, sh.name, inst);
    Py_DECREF(inst);
    PyObject* sm = PyStaticMethod_New(f);
    Py_DECREF(f);
    PyObject* cls = stub_class(sh.cls);
    int rc = cls ? PyObject_SetAttrString(cls, sh.name, sm) : -1;
    Py_XDECREF(cls);
    Py_DECREF(sm);
    if (rc != 0) return false;
  }
  return true;
}

// X.get() for the singleton types: self of the builtin is the instance to return.

bool install_singleton_getters() {
  static PyMethodDef get_def = {"get", return_self, METH_NOARGS, nullptr};
  for (const BaseType& b : kBaseTypes) {
    if (std::string(b.cls) == "Type") continue;
    PyObject* inst = jit_type_named(b.cls, b.str, b.kind, nullptr);
    if (!inst) return false;
    PyObject* f = make_builtin(get_def, "get", inst);
    PyObject* sm = PyStaticMethod_New(f);
    Py_DECREF(f);
    Py_DECREF(inst);
    PyObject* cls = stub_class(b.cls);
    int rc = cls ? PyObject_SetAttrString(cls, "get", sm) : -1;
    Py_XDECREF(cls);
    Py_DECREF(sm);
    if (rc != 0) return false;
  }
  return true;
}

// --- FunctionSchema, Argument, _AliasInfo ----------------------------------------------------

struct SchemaObject {
  PyObject_HEAD
  SchemaPtr schema;
};
struct ArgumentObject {
  PyObject_HEAD
  SchemaPtr schema;
  int index;
  bool is_return;
};
struct AliasObject {
  PyObject_HEAD
  AliasInfo alias;
};

extern PyTypeObject SchemaType_;
extern PyTypeObject ArgumentType_;
extern PyTypeObject AliasType_;

template <typename T>
void dealloc(PyObject* self) {
  reinterpret_cast<T*>(self)->~T();
  Py_TYPE(self)->tp_free(self);
}

PyObject* wrap_schema(SchemaPtr s) {
  auto* o = PyObject_New(SchemaObject, &SchemaType_);
  if (!o) return nullptr;
  new (&o->schema) SchemaPtr(std::move(s));
  return reinterpret_cast<PyObject*>(o);
}

const Argument& arg_of(PyObject* self) {
  auto* a = reinterpret_cast<ArgumentObject*>(self);
  return a->is_return ? a->schema->returns[a->index] : a->schema->arguments[a->index];
}

PyObject* args_list(PyObject* self, bool returns) {
  const SchemaPtr& s = reinterpret_cast<SchemaObject*>(self)->schema;
  size_t n = returns ? s->returns.size() : s->arguments.size();
  PyObject* list = PyList_New(static_cast<Py_ssize_t>(n));
  for (size_t i = 0; i < n; ++i) {
    auto* a = PyObject_New(ArgumentObject, &ArgumentType_);
    new (&a->schema) SchemaPtr(s);
    a->index = static_cast<int>(i);
    a->is_return = returns;
    PyList_SET_ITEM(list, i, reinterpret_cast<PyObject*>(a));
  }
  return list;
}

PyObject* fs_name(PyObject* self, void*) {
  return PyUnicode_FromString(reinterpret_cast<SchemaObject*>(self)->schema->name.c_str());
}
PyObject* fs_overload(PyObject* self, void*) {
  return PyUnicode_FromString(reinterpret_cast<SchemaObject*>(self)->schema->overload.c_str());
}
PyObject* fs_arguments(PyObject* self, void*) { return args_list(self, false); }
PyObject* fs_returns(PyObject* self, void*) { return args_list(self, true); }
PyObject* fs_is_mutable(PyObject* self, void*) {
  return PyBool_FromLong(reinterpret_cast<SchemaObject*>(self)->schema->is_mutable());
}
// FunctionSchema(name, overload_name, arguments, returns, is_vararg, is_varret): built from
// Argument objects (torch/_higher_order_ops/schema.py subclasses it this way).
PyObject* fs_new(PyTypeObject* type, PyObject*, PyObject*) {
  PyObject* o = type->tp_alloc(type, 0);
  if (o) new (&reinterpret_cast<SchemaObject*>(o)->schema) SchemaPtr();
  return o;
}

bool collect_args(PyObject* seq, std::vector<Argument>* out) {
  PyObject* items = PySequence_Fast(seq, "arguments must be a sequence of torch.Argument");
  if (!items) return false;
  for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(items); ++i) {
    PyObject* a = PySequence_Fast_GET_ITEM(items, i);
    if (Py_TYPE(a) != &ArgumentType_) {
      Py_DECREF(items);
      PyErr_SetString(PyExc_TypeError, "arguments must be torch.Argument objects");
      return false;
    }
    out->push_back(arg_of(a));
  }
  Py_DECREF(items);
  return true;
}

int fs_init(PyObject* self, PyObject* args, PyObject* kwargs) {
  static const char* kw[] = {"name", "overload_name", "arguments", "returns", "is_vararg",
                             "is_varret", nullptr};
  const char* name;
  const char* overload;
  PyObject* arguments;
  PyObject* returns;
  int is_vararg = 0, is_varret = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "ssOO|pp:FunctionSchema", const_cast<char**>(kw),
                                   &name, &overload, &arguments, &returns, &is_vararg, &is_varret))
    return -1;
  auto f = std::make_shared<FunctionSchema>();
  f->name = name;
  f->overload = overload;
  f->is_vararg = is_vararg;
  f->is_varret = is_varret;
  if (!collect_args(arguments, &f->arguments) || !collect_args(returns, &f->returns)) return -1;
  reinterpret_cast<SchemaObject*>(self)->schema = std::move(f);
  return 0;
}
PyObject* fs_str(PyObject* self) {
  return PyUnicode_FromString(reinterpret_cast<SchemaObject*>(self)->schema->str().c_str());
}
Py_hash_t fs_hash(PyObject* self) {
  return static_cast<Py_hash_t>(
      std::hash<std::string>()(reinterpret_cast<SchemaObject*>(self)->schema->str()) & 0x7fffffff);
}
PyObject* fs_richcompare(PyObject* a, PyObject* b, int op) {
  if (Py_TYPE(b) != &SchemaType_ || (op != Py_EQ && op != Py_NE)) Py_RETURN_NOTIMPLEMENTED;
  bool eq = reinterpret_cast<SchemaObject*>(a)->schema->str() ==
            reinterpret_cast<SchemaObject*>(b)->schema->str();
  return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

// A view op: some argument aliases the output without being written.
PyObject* fs_is_view_op(PyObject* self, PyObject*) {
  for (const Argument& a : reinterpret_cast<SchemaObject*>(self)->schema->arguments)
    if (a.type.alias && !a.type.alias->is_write) Py_RETURN_TRUE;
  Py_RETURN_FALSE;
}
PyMethodDef fs_methods[] = {{"_is_view_op", fs_is_view_op, METH_NOARGS, nullptr},
                            {nullptr, nullptr, 0, nullptr}};

PyGetSetDef fs_getset[] = {
    {"name", fs_name, nullptr, nullptr, nullptr},
    {"overload_name", fs_overload, nullptr, nullptr, nullptr},
    {"arguments", fs_arguments, nullptr, nullptr, nullptr},
    {"returns", fs_returns, nullptr, nullptr, nullptr},
    {"is_mutable", fs_is_mutable, nullptr, nullptr, nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyObject* arg_name(PyObject* self, void*) { return PyUnicode_FromString(arg_of(self).name.c_str()); }
PyObject* arg_type(PyObject* self, void*) { return jit_type(arg_of(self).type); }
PyObject* arg_kwarg_only(PyObject* self, void*) { return PyBool_FromLong(arg_of(self).kwarg_only); }
PyObject* arg_is_out(PyObject* self, void*) { return PyBool_FromLong(arg_of(self).is_out); }
PyObject* arg_N(PyObject* self, void*) {
  const Argument& a = arg_of(self);
  if (!a.type.is_list || a.type.list_size < 0) Py_RETURN_NONE;
  return PyLong_FromLong(a.type.list_size);
}
PyObject* arg_alias(PyObject* self, void*) {
  const Argument& a = arg_of(self);
  const auto& alias = a.type.list_alias ? a.type.list_alias : a.type.alias;
  if (!alias) Py_RETURN_NONE;
  auto* o = PyObject_New(AliasObject, &AliasType_);
  new (&o->alias) AliasInfo(*alias);
  return reinterpret_cast<PyObject*>(o);
}

// The default as a Python value: literals evaluated (True/False/None/numbers/strings/lists).
PyObject* arg_default(PyObject* self, void*) {
  const Argument& a = arg_of(self);
  if (!a.default_text) Py_RETURN_NONE;
  std::string text = *a.default_text;
  if (!text.empty() && text.back() == '.') text += "0";
  PyObject* ast = PyImport_ImportModule("ast");
  if (!ast) return nullptr;
  PyObject* r = PyObject_CallMethod(ast, "literal_eval", "s", text.c_str());
  Py_DECREF(ast);
  return r;
}
// Argument.has_default_value(): whether the schema gives a default (DTensor's strategies ask).
PyObject* arg_has_default(PyObject* self, PyObject*) {
  return PyBool_FromLong(arg_of(self).default_text.has_value());
}
PyMethodDef arg_methods[] = {{"has_default_value", arg_has_default, METH_NOARGS, nullptr},
                             {nullptr, nullptr, 0, nullptr}};

PyObject* arg_str(PyObject* self) {
  const Argument& a = arg_of(self);
  std::string s = a.type.str() + (a.name.empty() ? "" : " " + a.name);
  if (a.default_text) s += "=" + *a.default_text;
  return PyUnicode_FromString(s.c_str());
}

PyGetSetDef arg_getset[] = {
    {"name", arg_name, nullptr, nullptr, nullptr},
    {"type", arg_type, nullptr, nullptr, nullptr},
    {"real_type", arg_type, nullptr, nullptr, nullptr},
    {"default_value", arg_default, nullptr, nullptr, nullptr},
    {"kwarg_only", arg_kwarg_only, nullptr, nullptr, nullptr},
    {"is_out", arg_is_out, nullptr, nullptr, nullptr},
    {"N", arg_N, nullptr, nullptr, nullptr},
    {"alias_info", arg_alias, nullptr, nullptr, nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyObject* set_of(const std::string& s) {
  PyObject* set = PySet_New(nullptr);
  size_t start = 0;
  while (start <= s.size()) {
    size_t bar = s.find('|', start);
    std::string part = s.substr(start, bar == std::string::npos ? std::string::npos : bar - start);
    if (!part.empty()) {
      PyObject* p = PyUnicode_FromString(part.c_str());
      PySet_Add(set, p);
      Py_DECREF(p);
    }
    if (bar == std::string::npos) break;
    start = bar + 1;
  }
  return set;
}
PyObject* alias_is_write(PyObject* self, void*) {
  return PyBool_FromLong(reinterpret_cast<AliasObject*>(self)->alias.is_write);
}
PyObject* alias_before(PyObject* self, void*) {
  return set_of(reinterpret_cast<AliasObject*>(self)->alias.before);
}
PyObject* alias_after(PyObject* self, void*) {
  return set_of(reinterpret_cast<AliasObject*>(self)->alias.after);
}
PyGetSetDef alias_getset[] = {
    {"is_write", alias_is_write, nullptr, nullptr, nullptr},
    {"before_set", alias_before, nullptr, nullptr, nullptr},
    {"after_set", alias_after, nullptr, nullptr, nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyTypeObject make_type(const char* name, size_t size, destructor d, PyGetSetDef* getset) {
  PyTypeObject t{PyVarObject_HEAD_INIT(nullptr, 0)};
  t.tp_name = name;
  t.tp_basicsize = static_cast<Py_ssize_t>(size);
  t.tp_flags = Py_TPFLAGS_DEFAULT;
  t.tp_dealloc = d;
  t.tp_getset = getset;
  return t;
}

// --- the registry functions ----------------------------------------------------------------

// "aten::add" -> ("aten", "add").
bool split_qualname(PyObject* q, std::string* ns, std::string* name) {
  const char* s = PyUnicode_AsUTF8(q);
  if (!s) return false;
  std::string qual = s;
  size_t sep = qual.find("::");
  if (sep == std::string::npos) {
    PyErr_Format(PyExc_RuntimeError, "expected a qualified operator name ns::name, got %s", s);
    return false;
  }
  *ns = qual.substr(0, sep);
  *name = qual.substr(sep + 2);
  return true;
}

SchemaPtr schema_ptr(int i) {
  static std::unordered_map<int, SchemaPtr> cache;
  auto it = cache.find(i);
  if (it != cache.end()) return it->second;
  // Shares the registry's parsed schema; the registry outlives every Python object.
  SchemaPtr p(&schema_of(static_cast<size_t>(i)), [](const FunctionSchema*) {});
  cache[i] = p;
  return p;
}

PyObject* jit_get_operation(PyObject*, PyObject* q) {
  std::string ns, name;
  if (!split_qualname(q, &ns, &name)) return nullptr;
  std::vector<int> ovs = overloads_of(ns, name);
  if (ovs.empty()) {
    PyErr_Format(PyExc_RuntimeError, "No such operator %s::%s", ns.c_str(), name.c_str());
    return nullptr;
  }
  PyObject* op = op_callable(ovs, all_ops()[ovs[0]].name);
  if (!op) return nullptr;
  PyObject* names = PyList_New(0);
  for (int i : ovs) {
    PyObject* n = PyUnicode_FromString(all_ops()[i].overload);
    PyList_Append(names, n);
    Py_DECREF(n);
  }
  return Py_BuildValue("(NN)", op, names);
}

PyObject* tags_of(int i) {
  PyObject* list = PyList_New(0);
  PyObject* tag_cls = PyObject_GetAttrString(module("torch._C"), "Tag");
  if (!tag_cls) return nullptr;
  std::string tags = all_ops()[i].tags;
  size_t start = 0;
  while (start < tags.size()) {
    size_t comma = tags.find(',', start);
    std::string t = tags.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    PyObject* member = PyObject_GetAttrString(tag_cls, t.c_str());
    if (!member) {
      Py_DECREF(tag_cls);
      Py_DECREF(list);
      return nullptr;
    }
    PyList_Append(list, member);
    Py_DECREF(member);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  Py_DECREF(tag_cls);
  return list;
}

PyObject* get_operation_overload(PyObject*, PyObject* args) {
  PyObject* q;
  const char* overload;
  if (!PyArg_ParseTuple(args, "Us:_get_operation_overload", &q, &overload)) return nullptr;
  std::string ns, name;
  if (!split_qualname(q, &ns, &name)) return nullptr;
  int i = find_op(ns, name, overload);
  if (i < 0) Py_RETURN_NONE;
  std::vector<int> one{i};
  PyObject* op = op_callable(one, all_ops()[i].name);
  if (!op) return nullptr;
  std::string dk_name = op_key(all_ops()[i]) + " (called with a dispatch key)";
  PyObject* op_dk = placeholder(dk_name.c_str());
  return Py_BuildValue("(NNN)", op, op_dk, tags_of(i));
}

PyObject* get_schema(PyObject*, PyObject* args) {
  PyObject* q;
  const char* overload;
  if (!PyArg_ParseTuple(args, "Us:_get_schema", &q, &overload)) return nullptr;
  std::string ns, name;
  if (!split_qualname(q, &ns, &name)) return nullptr;
  int i = find_op(ns, name, overload);
  if (i < 0) {
    PyErr_Format(PyExc_RuntimeError, "Cannot find schema for %s::%s.%s", ns.c_str(), name.c_str(),
                 overload);
    return nullptr;
  }
  return wrap_schema(schema_ptr(i));
}

PyObject* parse_schema_py(PyObject*, PyObject* args) {
  const char* text;
  if (!PyArg_ParseTuple(args, "s|p:parse_schema", &text, nullptr)) return nullptr;
  try {
    return wrap_schema(std::make_shared<FunctionSchema>(parse_schema(text, "")));
  } catch (const Error& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
    return nullptr;
  }
}

PyObject* all_schemas(PyObject*, PyObject*) {
  PyObject* list = PyList_New(0);
  for (size_t i = 0; i < all_ops().size(); ++i) {
    if (all_ops()[i].removed) continue;
    PyObject* s = wrap_schema(schema_ptr(static_cast<int>(i)));
    PyList_Append(list, s);
    Py_DECREF(s);
  }
  return list;
}

PyObject* schemas_for(PyObject*, PyObject* q) {
  std::string ns, name;
  if (!split_qualname(q, &ns, &name)) {
    PyErr_Clear();
    return PyList_New(0);
  }
  PyObject* list = PyList_New(0);
  for (int i : overloads_of(ns, name)) {
    PyObject* s = wrap_schema(schema_ptr(i));
    PyList_Append(list, s);
    Py_DECREF(s);
  }
  return list;
}

PyMethodDef kFunctions[] = {
    {"_jit_get_operation", jit_get_operation, METH_O, nullptr},
    {"_get_operation_overload", get_operation_overload, METH_VARARGS, nullptr},
    {"_get_schema", get_schema, METH_VARARGS, nullptr},
    {"parse_schema", parse_schema_py, METH_VARARGS, nullptr},
    {"_jit_get_all_schemas", all_schemas, METH_NOARGS, nullptr},
    {"_jit_get_schemas_for_operator", schemas_for, METH_O, nullptr},
    {nullptr, nullptr, 0, nullptr}};

PyTypeObject SchemaType_ = [] {
  PyTypeObject t = make_type("torch.FunctionSchema", sizeof(SchemaObject), dealloc<SchemaObject>,
                             fs_getset);
  t.tp_str = fs_str;
  t.tp_repr = fs_str;
  t.tp_hash = fs_hash;
  t.tp_richcompare = fs_richcompare;
  t.tp_flags |= Py_TPFLAGS_BASETYPE;
  t.tp_methods = fs_methods;
  t.tp_new = fs_new;
  t.tp_init = fs_init;
  return t;
}();
PyTypeObject ArgumentType_ = [] {
  PyTypeObject t = make_type("torch.Argument", sizeof(ArgumentObject), dealloc<ArgumentObject>,
                             arg_getset);
  t.tp_str = arg_str;
  t.tp_methods = arg_methods;
  return t;
}();
PyTypeObject AliasType_ = make_type("torch._C._AliasInfo", sizeof(AliasObject),
                                    dealloc<AliasObject>, alias_getset);

}  // namespace

bool init_schema() {
  for (PyTypeObject* t : {&SchemaType_, &ArgumentType_, &AliasType_})
    if (PyType_Ready(t) != 0) return false;
  if (!add("torch._C", "FunctionSchema", Py_NewRef(reinterpret_cast<PyObject*>(&SchemaType_))) ||
      !add("torch._C", "Argument", Py_NewRef(reinterpret_cast<PyObject*>(&ArgumentType_))) ||
      !add("torch._C", "_AliasInfo", Py_NewRef(reinterpret_cast<PyObject*>(&AliasType_))))
    return false;
  for (PyMethodDef* d = kFunctions; d->ml_name; ++d)
    if (!add("torch._C", d->ml_name, make_builtin(*d, d->ml_name, nullptr))) return false;
  return true;
}

// After the surface exists: the JIT type classes are generated from the stubs.
bool init_schema_late() {
  return install_jit_type_methods() && install_singleton_getters() &&
         install_container_constructors();
}

}  // namespace tn::py
