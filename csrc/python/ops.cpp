// The Python spellings of every operator: torch._C._VariableFunctions (torch.X), _nn, _fft,
// _linalg, _special, _nested, _sparse. Each name is one builtin bound to its overload group and
// calls the one door; with no kernel for the call, the door refuses naming op and overloads.
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "dispatch/registry.h"
#include "python/binder.h"
#include "python/init.h"
#include "python/tensor.h"

namespace tn::py {

PyObject* make_builtin(const PyMethodDef& proto, const char* name, PyObject* self);

namespace {

// The overloads of one Python spelling, in the order the binder tries them.
struct OpGroup {
  PyObject_HEAD
  PyObject* func;  // the builtin wrapping this group (borrowed: it owns the group)
  const std::vector<Overload>* overloads;
  const char* name;
  bool schema_names;  // torch.ops spellings bind by schema names (self, not input)
};

PyTypeObject OpGroupType = [] {
  PyTypeObject t{PyVarObject_HEAD_INIT(nullptr, 0)};
  t.tp_name = "torch._C._TorchnativeOpGroup";
  t.tp_basicsize = sizeof(OpGroup);
  t.tp_flags = Py_TPFLAGS_DEFAULT;
  return t;
}();

// The door for Python-spelled calls: bind, dispatch, convert (binder.cpp).
PyObject* door(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  auto* g = reinterpret_cast<OpGroup*>(self);
  if (!g->schema_names && torch_function_needed(nullptr, args, nargs, kwnames))
    return handle_torch_function(g->func, nullptr, args, nargs, kwnames);
  return call_overloads(g->name, *g->overloads, nullptr, args, nargs, kwnames, g->schema_names);
}

PyMethodDef door_def = {"door", reinterpret_cast<PyCFunction>(door),
                        METH_FASTCALL | METH_KEYWORDS, nullptr};

// Tensor.X for ops with a method variant: a method descriptor (Py_TPFLAGS_METHOD_DESCRIPTOR), so
// `x.add(y)` calls straight through with x as the first argument and no bound-method object.
struct OpMethod {
  PyObject_HEAD
  vectorcallfunc vectorcall;
  const std::vector<Overload>* overloads;
  const char* name;
  PyObject* dict;  // __doc__ (set by torch/_tensor_docs.py), __name__
};

PyObject* method_door(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  auto* m = reinterpret_cast<OpMethod*>(self);
  Py_ssize_t n = PyVectorcall_NARGS(nargsf);
  if (n < 1 || !is_tensor(args[0])) {
    PyErr_Format(PyExc_TypeError,
                 "descriptor '%s' of 'torch._C.TensorBase' object needs a Tensor argument",
                 m->name);
    return nullptr;
  }
  if (torch_function_needed(args[0], args + 1, n - 1, kwnames))
    return handle_torch_function(self, args[0], args + 1, n - 1, kwnames);
  return call_overloads(m->name, *m->overloads, args[0], args + 1, n - 1, kwnames, false);
}

PyObject* method_get(PyObject* self, PyObject* obj, PyObject*) {
  if (obj == nullptr || obj == Py_None) return Py_NewRef(self);
  return PyMethod_New(self, obj);
}

void method_dealloc(PyObject* self) {
  Py_CLEAR(reinterpret_cast<OpMethod*>(self)->dict);
  Py_TYPE(self)->tp_free(self);
}

PyTypeObject OpMethodType = [] {
  PyTypeObject t{PyVarObject_HEAD_INIT(nullptr, 0)};
  t.tp_name = "torch._C._TorchnativeMethod";
  t.tp_basicsize = sizeof(OpMethod);
  t.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_METHOD_DESCRIPTOR | Py_TPFLAGS_HAVE_VECTORCALL;
  t.tp_vectorcall_offset = offsetof(OpMethod, vectorcall);
  t.tp_call = PyVectorcall_Call;
  t.tp_descr_get = method_get;
  t.tp_dealloc = method_dealloc;
  t.tp_dictoffset = offsetof(OpMethod, dict);
  t.tp_getattro = PyObject_GenericGetAttr;
  t.tp_setattro = PyObject_GenericSetAttr;
  return t;
}();

OpMethod* new_method(const char* name, const std::vector<Overload>* ovs) {
  auto* m = PyObject_New(OpMethod, &OpMethodType);
  m->vectorcall = method_door;
  m->overloads = ovs;
  m->name = name;
  m->dict = PyDict_New();
  PyObject* n = PyUnicode_FromString(name);
  PyDict_SetItemString(m->dict, "__name__", n);
  PyDict_SetItemString(m->dict, "__doc__", Py_None);
  Py_DECREF(n);
  return m;
}

bool add_methods() {
  std::map<std::string, std::vector<int>> groups;
  const auto& ops = all_ops();
  for (size_t i = 0; i < ops.size(); ++i)
    if (ops[i].is_method) groups[ops[i].name].push_back(static_cast<int>(i));
  PyObject* dict = TensorBaseType.tp_dict;
  for (auto& [name, indices] : groups) {
    const auto& ovs = python_overloads(true, "", name);
    if (ovs.empty()) continue;  // not bound as a method upstream
    if (PyDict_GetItemString(dict, name.c_str())) continue;  // hand-written (tensor_methods.cpp)
    OpMethod* m = new_method(ops[indices[0]].name, &ovs);
    int rc = PyDict_SetItemString(dict, name.c_str(), reinterpret_cast<PyObject*>(m));
    Py_DECREF(m);
    if (rc != 0) return false;
  }
  PyType_Modified(&TensorBaseType);
  return true;
}

// Methods upstream binds by hand (python_variable_methods.cpp) or as operator dunders: each
// names the Python spelling whose overloads it shares, or "aten::" op keys bound by schema.
struct MethodAlias {
  const char* method;
  const char* target;  // a Tensor method name, or a comma-separated list of op keys
};
const MethodAlias kMethodAliases[] = {
    {"__add__", "add"}, {"__radd__", "add"}, {"__iadd__", "add_"},
    {"__sub__", "sub"}, {"__isub__", "sub_"},
    {"__mul__", "mul"}, {"__rmul__", "mul"}, {"__imul__", "mul_"},
    {"__truediv__", "div"}, {"__div__", "div"}, {"__idiv__", "div_"},
    {"__floordiv__", "floor_divide"}, {"__ifloordiv__", "floor_divide_"},
    {"__mod__", "remainder"}, {"__imod__", "remainder_"},
    {"__matmul__", "matmul"},
    {"__eq__", "eq"}, {"__ne__", "ne"}, {"__lt__", "lt"}, {"__le__", "le"}, {"__gt__", "gt"},
    {"__ge__", "ge"},
    {"__invert__", "bitwise_not"},
    {"__rand__", "__and__"}, {"__ror__", "__or__"}, {"__rxor__", "__xor__"},
    {"contiguous", "aten::contiguous"},
    {"copy_", "aten::copy_"},
    {"set_", "aten::set_.source_Storage_storage_offset,aten::set_.source_Storage,"
             "aten::set_.source_Tensor,aten::set_"},
};

std::vector<Overload>* overloads_for_keys(const std::string& csv) {
  auto* list = new std::vector<Overload>;  // kept for the process, as the method is
  size_t start = 0;
  while (start < csv.size()) {
    size_t comma = csv.find(',', start);
    std::string key = csv.substr(start, comma == std::string::npos ? std::string::npos
                                                                    : comma - start);
    std::string rest = key.substr(key.find("::") + 2);
    size_t dot = rest.find('.');
    int i = find_op(key.substr(0, key.find("::")), rest.substr(0, dot),
                    dot == std::string::npos ? "" : rest.substr(dot + 1));
    if (i >= 0) list->push_back({i, -1});
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return list;
}

bool add_method_aliases() {
  PyObject* dict = TensorBaseType.tp_dict;
  for (const MethodAlias& a : kMethodAliases) {
    if (PyDict_GetItemString(dict, a.method)) continue;
    std::string target = a.target;
    const std::vector<Overload>* ovs = target.find("::") != std::string::npos
                                           ? overloads_for_keys(target)
                                           : &python_overloads(true, "", target);
    if (ovs->empty()) continue;
    OpMethod* m = new_method(a.method, ovs);
    int rc = PyDict_SetItemString(dict, a.method, reinterpret_cast<PyObject*>(m));
    Py_DECREF(m);
    if (rc != 0) return false;
  }
  PyType_Modified(&TensorBaseType);
  return true;
}

const char* module_for(const OpInfo& op) {
  std::string m = op.python_module;
  if (m.empty()) return "torch._C._VariableFunctions";
  static std::map<std::string, std::string> names;
  auto it = names.emplace(m, "torch._C._" + m).first;
  return it->second.c_str();
}

}  // namespace

PyObject* group_callable(const std::vector<Overload>* overloads, const char* name,
                         bool schema_names) {
  auto* g = PyObject_New(OpGroup, &OpGroupType);
  if (!g) return nullptr;
  g->overloads = overloads;
  g->name = name;
  g->schema_names = schema_names;
  PyObject* f = make_builtin(door_def, name, reinterpret_cast<PyObject*>(g));
  g->func = f;
  Py_DECREF(g);
  return f;
}

// A builtin calling the door for the given overloads by schema (torch.ops packets/overloads).
PyObject* op_callable(const std::vector<int>& overloads, const char* name) {
  auto* list = new std::vector<Overload>;  // kept for the process, as the op object is
  for (int i : overloads) list->push_back({i, -1});
  return group_callable(list, name, true);
}

bool init_ops() {
  if (PyType_Ready(&OpGroupType) != 0 || PyType_Ready(&OpMethodType) != 0) return false;
  if (!add_methods() || !add_method_aliases()) return false;
  // (module, name) -> overload indices, in yaml order.
  std::map<std::pair<std::string, std::string>, std::vector<int>> groups;
  const auto& ops = all_ops();
  for (size_t i = 0; i < ops.size(); ++i) {
    if (!ops[i].is_function) continue;
    groups[{module_for(ops[i]), ops[i].name}].push_back(static_cast<int>(i));
  }
  for (auto& [key, indices] : groups) {
    const char* name = ops[indices[0]].name;
    std::string module = ops[indices[0]].python_module;
    const auto& ovs = python_overloads(false, module, name);
    if (ovs.empty()) continue;  // upstream binds no Python spelling for it
    if (!add(key.first.c_str(), name, group_callable(&ovs, name, false))) return false;
  }
  return true;
}

}  // namespace tn::py
