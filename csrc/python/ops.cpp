// The Python spellings of every operator: torch._C._VariableFunctions (torch.X), _nn, _fft,
// _linalg, _special, _nested, _sparse. Each name is one builtin bound to its overload group and
// calls the one door; with no kernel for the call, the door refuses naming op and overloads.
#include <map>
#include <string>
#include <vector>

#include "dispatch/registry.h"
#include "python/init.h"

namespace tn::py {

PyObject* make_builtin(const PyMethodDef& proto, const char* name, PyObject* self);

namespace {

// The overloads of one Python name, by index into all_ops().
struct OpGroup {
  PyObject_HEAD
  std::vector<int>* overloads;
  const char* name;
};

PyTypeObject OpGroupType = [] {
  PyTypeObject t{PyVarObject_HEAD_INIT(nullptr, 0)};
  t.tp_name = "torch._C._TorchnativeOpGroup";
  t.tp_basicsize = sizeof(OpGroup);
  t.tp_flags = Py_TPFLAGS_DEFAULT;
  return t;
}();

// The door for Python-spelled calls. Argument binding and kernels come with the op layer; until
// an overload has a kernel, every call is refused by name.
PyObject* door(PyObject* self, PyObject* const*, Py_ssize_t, PyObject*) {
  auto* g = reinterpret_cast<OpGroup*>(self);
  std::string overloads;
  for (int i : *g->overloads) {
    const OpInfo& op = all_ops()[i];
    if (!overloads.empty()) overloads += ", ";
    overloads += op.overload[0] ? op.overload : "default";
  }
  PyErr_Format(PyExc_NotImplementedError,
               "aten.%s has no kernel in torchnative for dense CPU tensors (overloads: %s)",
               g->name, overloads.c_str());
  return nullptr;
}

PyMethodDef door_def = {"door", reinterpret_cast<PyCFunction>(door),
                        METH_FASTCALL | METH_KEYWORDS, nullptr};

const char* module_for(const OpInfo& op) {
  std::string m = op.python_module;
  if (m.empty()) return "torch._C._VariableFunctions";
  static std::map<std::string, std::string> names;
  auto it = names.emplace(m, "torch._C._" + m).first;
  return it->second.c_str();
}

}  // namespace

bool init_ops() {
  if (PyType_Ready(&OpGroupType) != 0) return false;
  // (module, name) -> overload indices, in yaml order.
  std::map<std::pair<std::string, std::string>, std::vector<int>> groups;
  const auto& ops = all_ops();
  for (size_t i = 0; i < ops.size(); ++i) {
    if (!ops[i].is_function) continue;
    groups[{module_for(ops[i]), ops[i].name}].push_back(static_cast<int>(i));
  }
  for (auto& [key, indices] : groups) {
    auto* g = PyObject_New(OpGroup, &OpGroupType);
    g->overloads = new std::vector<int>(indices);  // lives with the module: the process
    g->name = ops[indices[0]].name;
    PyObject* f = make_builtin(door_def, g->name, reinterpret_cast<PyObject*>(g));
    Py_DECREF(g);
    if (!add(key.first.c_str(), g->name, f)) return false;
  }
  return true;
}

}  // namespace tn::py
