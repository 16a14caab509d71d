// torch._C._dynamo.eval_frame's state cells. TorchDynamo's frame evaluation is not implemented:
// installing a real frame callback (torch.compile) refuses by name; setting None/False (what
// torch._dynamo.disable does around torch.manual_seed and friends) is a plain get-and-set.
#include <string>

#include "python/init.h"

namespace tn::py {

PyObject* make_builtin(const PyMethodDef& proto, const char* name, PyObject* self);

namespace {

// One process-wide cell per setting (upstream keeps these per thread or per interpreter).
struct Cell {
  const char* setter;
  const char* getter;    // nullptr: none
  bool returns_previous;  // the setter returns the old value (else None)
  PyObject* value;
  const char* module = "torch._C._dynamo.eval_frame";
};

Cell g_cells[] = {
    {"set_eval_frame", "get_eval_frame_callback", true, nullptr},
    {"set_skip_guard_eval_unsafe", nullptr, true, nullptr},
    {"set_guard_error_hook", nullptr, false, nullptr},
    {"set_guard_complete_hook", nullptr, true, nullptr},
    {"set_c_recursion_limit", "get_c_recursion_limit", false, nullptr},
    {"set_bytecode_debugger_callback", "get_bytecode_debugger_callback", false, nullptr},
    {"set_fullgraph_compiled_frame_count", nullptr, true, nullptr},
    {"set_fullgraph_error_on_nested_compile", nullptr, true, nullptr},
    {"set_eval_frame_isolate_recompiles_id", "get_eval_frame_isolate_recompiles_id", true,
     nullptr},
    // TorchDispatchMode.__enter__/__exit__ record whether a mode is active for dynamo's guards.
    {"set_is_in_mode_without_ignore_compile_internals", nullptr, false, nullptr,
     "torch._C._dynamo.guards"},
};

PyObject* cell_set(PyObject* self, PyObject* arg) {
  Cell& c = g_cells[PyLong_AsSize_t(self)];
  if (std::string(c.setter) == "set_eval_frame" && arg != Py_None && arg != Py_False) {
    PyErr_SetString(PyExc_NotImplementedError,
                    "torch._C._dynamo.eval_frame.set_eval_frame: TorchDynamo frame evaluation "
                    "(torch.compile) is not implemented by torchnative");
    return nullptr;
  }
  PyObject* old = c.value ? c.value : Py_None;
  c.value = Py_NewRef(arg);
  if (!c.returns_previous) {
    Py_XDECREF(old == Py_None ? nullptr : old);
    Py_RETURN_NONE;
  }
  return old == Py_None ? Py_NewRef(Py_None) : old;  // the cell's reference passes on
}

PyObject* cell_get(PyObject* self, PyObject*) {
  Cell& c = g_cells[PyLong_AsSize_t(self)];
  return Py_NewRef(c.value ? c.value : Py_None);
}

// set_code_exec_strategy(code, strategy): with no frame evaluation there is nothing to steer.
PyObject* set_code_exec_strategy(PyObject*, PyObject*) { Py_RETURN_NONE; }
PyMethodDef strategy_def = {"set_code_exec_strategy", set_code_exec_strategy, METH_VARARGS,
                            nullptr};

PyMethodDef set_def = {"set", cell_set, METH_O, nullptr};
PyMethodDef get_def = {"get", cell_get, METH_NOARGS, nullptr};

}  // namespace

bool init_dynamo() {
  const char* mod = "torch._C._dynamo.eval_frame";  // set_code_exec_strategy's
  // Defaults as upstream's: no callback, guards evaluated, recursion limit 10000, ids 0.
  g_cells[1].value = Py_NewRef(Py_False);
  g_cells[4].value = PyLong_FromLong(10000);
  g_cells[6].value = PyLong_FromLong(0);
  g_cells[7].value = Py_NewRef(Py_False);
  g_cells[8].value = PyLong_FromLong(0);
  if (!add(mod, strategy_def.ml_name, make_builtin(strategy_def, strategy_def.ml_name, nullptr)))
    return false;
  for (size_t i = 0; i < sizeof(g_cells) / sizeof(g_cells[0]); ++i) {
    PyObject* idx = PyLong_FromSize_t(i);
    const char* where = g_cells[i].module;
    bool ok = add(where, g_cells[i].setter, make_builtin(set_def, g_cells[i].setter, idx));
    if (ok && g_cells[i].getter)
      ok = add(where, g_cells[i].getter, make_builtin(get_def, g_cells[i].getter, idx));
    Py_DECREF(idx);
    if (!ok) return false;
  }
  return true;
}

}  // namespace tn::py
