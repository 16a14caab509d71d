// Saved-tensor hooks and the graph task's Python face: torch.autograd.graph.saved_tensors_hooks
// (torch._C._autograd._push/_pop_saved_tensors_default_hooks and the switch that
// disable_saved_tensors_hooks uses), SavedTensor (_make_saved_tensor, which non-reentrant
// checkpointing keeps its inputs in), and torch._C._current_graph_task_id,
// _current_autograd_node, _will_engine_execute_node and the graph exec group, which
// torch.utils.checkpoint and register_multi_grad_hook read. The hooks' stack is per thread, as
// upstream's; the core (autograd/saved_variable.h) calls back into it when a node saves.
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "autograd/engine.h"
#include "autograd/saved_variable.h"
#include "python/errors.h"
#include "python/init.h"
#include "python/tensor.h"

namespace tn::py {

PyObject* make_builtin(const PyMethodDef& proto, const char* name, PyObject* self);  // state.cpp
PyObject* node_face(autograd::Node* n);                                                // autograd.cpp
autograd::Node* node_of_face(PyObject* o);                                             // autograd.cpp

namespace {

// A strong reference (the GIL is held wherever the core saves, unpacks or releases).
struct Ref {
  PyObject* o = nullptr;
  Ref() = default;
  explicit Ref(PyObject* p) : o(p) {}  // steals
  Ref(Ref&& r) noexcept : o(r.o) { r.o = nullptr; }
  Ref& operator=(Ref&& r) noexcept {
    std::swap(o, r.o);
    return *this;
  }
  ~Ref() {
    if (o && Py_IsInitialized()) Py_DECREF(o);
  }
};
Ref borrowed(PyObject* p) { return Ref(Py_NewRef(p)); }

struct HooksState {
  std::vector<std::pair<Ref, Ref>> stack;  // (pack, unpack), innermost last
  std::optional<std::string> disabled;     // why hooks are disabled, while they are
  bool tracing = false;
};
thread_local HooksState t_hooks;

void refresh_active() {
  autograd::set_default_hooks_active(!t_hooks.stack.empty() && !t_hooks.tracing);
}

// What one pack hook returned, and the unpack hook that turns it back into a tensor.
class PyPacked final : public autograd::PackedTensor {
 public:
  PyPacked(Ref packed, Ref unpack) : packed_(std::move(packed)), unpack_(std::move(unpack)) {}
  Tensor unpack() override {
    PyObject* r = PyObject_CallOneArg(unpack_.o, packed_.o);
    if (!r) throw PythonErrorSet();
    Ref result(r);
    if (!is_tensor(r))
      TN_FAIL(Type, "Output of saved tensor unpack_hook expected to be a Tensor but got result "
              "of type ", Py_TYPE(r)->tp_name);
    return Tensor(impl_of(r));
  }

 private:
  Ref packed_;
  Ref unpack_;
};

std::unique_ptr<autograd::PackedTensor> pack_with(PyObject* pack, PyObject* unpack,
                                                  const Tensor& t) {
  Ref arg(wrap_tensor(t));
  if (!arg.o) throw PythonErrorSet();
  PyObject* packed = PyObject_CallOneArg(pack, arg.o);
  if (!packed) throw PythonErrorSet();
  return std::make_unique<PyPacked>(Ref(packed), borrowed(unpack));
}

std::unique_ptr<autograd::PackedTensor> default_pack(const Tensor& t) {
  if (t_hooks.stack.empty() || t_hooks.tracing) return nullptr;
  // Copies of the references: the hook may push or pop hooks itself.
  Ref pack = borrowed(t_hooks.stack.back().first.o);
  Ref unpack = borrowed(t_hooks.stack.back().second.o);
  return pack_with(pack.o, unpack.o, t);
}

void check_enabled() {
  if (t_hooks.disabled) TN_FAIL(Runtime, *t_hooks.disabled);
}

PyObject* push_hooks(PyObject*, PyObject* const* args, Py_ssize_t n) {
  if (n != 2) {
    PyErr_SetString(PyExc_TypeError, "_push_saved_tensors_default_hooks(): expected "
                    "(pack_hook, unpack_hook)");
    return nullptr;
  }
  TN_PY_TRY
  check_enabled();
  t_hooks.stack.emplace_back(borrowed(args[0]), borrowed(args[1]));
  refresh_active();
  Py_RETURN_NONE;
  TN_PY_CATCH(nullptr)
}

PyObject* pop_hooks(PyObject*, PyObject*) {
  TN_PY_TRY
  TN_CHECK_KIND(!t_hooks.stack.empty(), Internal,
                "_pop_saved_tensors_default_hooks: no saved-tensor hooks to pop");
  t_hooks.stack.pop_back();
  refresh_active();
  Py_RETURN_NONE;
  TN_PY_CATCH(nullptr)
}

// _top_saved_tensors_default_hooks(ignore_is_tracing): (pack, unpack) or None.
PyObject* top_hooks(PyObject*, PyObject* ignore_tracing) {
  int ignore = PyObject_IsTrue(ignore_tracing);
  if (ignore < 0) return nullptr;
  if (t_hooks.stack.empty() || (t_hooks.tracing && !ignore)) Py_RETURN_NONE;
  return PyTuple_Pack(2, t_hooks.stack.back().first.o, t_hooks.stack.back().second.o);
}

PyObject* hooks_is_enabled(PyObject*, PyObject*) {
  return PyBool_FromLong(!t_hooks.disabled.has_value());
}
PyObject* hooks_enable(PyObject*, PyObject*) {
  t_hooks.disabled.reset();
  Py_RETURN_NONE;
}
// _saved_tensors_hooks_disable(message, fail_if_non_empty=True)
PyObject* hooks_disable(PyObject*, PyObject* args, PyObject* kwargs) {
  static const char* kw[] = {"message", "fail_if_non_empty", nullptr};
  const char* message = nullptr;
  int fail_if_non_empty = 1;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "s|p:_saved_tensors_hooks_disable",
                                   const_cast<char**>(kw), &message, &fail_if_non_empty))
    return nullptr;
  TN_PY_TRY
  t_hooks.disabled = std::string(message);
  if (fail_if_non_empty && !t_hooks.stack.empty()) check_enabled();
  Py_RETURN_NONE;
  TN_PY_CATCH(nullptr)
}
PyObject* hooks_disabled_message(PyObject*, PyObject*) {
  if (!t_hooks.disabled) Py_RETURN_NONE;
  return PyUnicode_FromString(t_hooks.disabled->c_str());
}
PyObject* hooks_set_tracing(PyObject*, PyObject* flag) {
  int on = PyObject_IsTrue(flag);
  if (on < 0) return nullptr;
  bool prior = t_hooks.tracing;
  t_hooks.tracing = on;
  refresh_active();
  return PyBool_FromLong(prior);
}

// --- SavedTensor ----------------------------------------------------------------------------

struct SavedTensorObject {
  PyObject_HEAD
  autograd::SavedVariable* saved;
};

PyTypeObject* g_saved_type = nullptr;

void saved_dealloc(PyObject* self) {
  delete reinterpret_cast<SavedTensorObject*>(self)->saved;
  Py_TYPE(self)->tp_free(self);
}

PyObject* saved_unpack(PyObject* self, PyObject*) {
  TN_PY_TRY
  Tensor t = reinterpret_cast<SavedTensorObject*>(self)->saved->unpack(nullptr);
  if (!t) Py_RETURN_NONE;
  return wrap_tensor(t);
  TN_PY_CATCH(nullptr)
}

// SavedTensor.register_hooks(pack_hook, unpack_hook): packs the kept tensor now.
PyObject* saved_register_hooks(PyObject* self, PyObject* const* args, Py_ssize_t n) {
  if (n != 2 || !PyCallable_Check(args[0]) || !PyCallable_Check(args[1])) {
    PyErr_SetString(PyExc_TypeError, "register_hooks(): expected two callables, pack_hook and "
                    "unpack_hook");
    return nullptr;
  }
  TN_PY_TRY
  PyObject* pack = args[0];
  PyObject* unpack = args[1];
  reinterpret_cast<SavedTensorObject*>(self)->saved->register_hooks(
      [pack, unpack](const Tensor& t) { return pack_with(pack, unpack, t); });
  Py_RETURN_NONE;
  TN_PY_CATCH(nullptr)
}

PyMethodDef kSavedMethods[] = {
    {"unpack", saved_unpack, METH_NOARGS, nullptr},
    {"register_hooks", reinterpret_cast<PyCFunction>(saved_register_hooks), METH_FASTCALL,
     nullptr},
    {nullptr, nullptr, 0, nullptr}};

PyObject* saved_new(PyTypeObject*, PyObject*, PyObject*) {
  PyErr_SetString(PyExc_TypeError, "cannot create 'torch._C._autograd.SavedTensor' instances "
                  "directly: use torch._C._autograd._make_saved_tensor");
  return nullptr;
}

// _make_saved_tensor(tensor, is_output, is_inplace_on_view=False)
PyObject* make_saved_tensor(PyObject*, PyObject* args, PyObject* kwargs) {
  static const char* kw[] = {"tensor", "is_output", "is_inplace_on_view", nullptr};
  PyObject* t = nullptr;
  int is_output = 0, inplace_on_view = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Op|p:_make_saved_tensor",
                                   const_cast<char**>(kw), &t, &is_output, &inplace_on_view))
    return nullptr;
  if (!is_tensor(t)) {
    PyErr_Format(PyExc_TypeError, "_make_saved_tensor(): argument 'tensor' must be Tensor, not "
                 "%s", Py_TYPE(t)->tp_name);
    return nullptr;
  }
  TN_PY_TRY
  if (inplace_on_view)
    TN_FAIL(NotImplemented, "torchnative: _make_saved_tensor(is_inplace_on_view=True) is not "
            "implemented (autograd, issue 8)");
  auto* saved = new autograd::SavedVariable(Tensor(impl_of(t)), is_output, 0);
  PyObject* o = g_saved_type->tp_alloc(g_saved_type, 0);
  if (!o) {
    delete saved;
    return nullptr;
  }
  reinterpret_cast<SavedTensorObject*>(o)->saved = saved;
  return o;
  TN_PY_CATCH(nullptr)
}

// --- the graph task ---------------------------------------------------------------------------

PyObject* current_graph_task_id(PyObject*, PyObject*) {
  return PyLong_FromLongLong(autograd::current_graph_task_id());
}
PyObject* current_graph_task_keep_graph(PyObject*, PyObject*) {
  return PyBool_FromLong(autograd::current_graph_task_keep_graph());
}
PyObject* current_autograd_node(PyObject*, PyObject*) {
  TN_PY_TRY
  autograd::Node* n = autograd::current_node();
  if (!n) Py_RETURN_NONE;
  return node_face(n);
  TN_PY_CATCH(nullptr)
}
PyObject* will_engine_execute_node(PyObject*, PyObject* node) {
  TN_PY_TRY
  // A grad_fn object of ours (or a custom Function's ctx) carries its node.
  autograd::Node* n = node_of_face(node);
  TN_CHECK_KIND(n, Type, "_will_engine_execute_node expects a grad_fn, but got ",
                Py_TYPE(node)->tp_name);
  return PyBool_FromLong(autograd::will_execute(n));
  TN_PY_CATCH(nullptr)
}

thread_local Ref t_exec_group;
PyObject* get_graph_exec_group(PyObject*, PyObject*) {
  return Py_NewRef(t_exec_group.o ? t_exec_group.o : Py_None);
}
PyObject* set_graph_exec_group(PyObject*, PyObject* group) {
  t_exec_group = group == Py_None ? Ref() : borrowed(group);
  Py_RETURN_NONE;
}

PyMethodDef kAutogradFunctions[] = {
    {"_push_saved_tensors_default_hooks", reinterpret_cast<PyCFunction>(push_hooks),
     METH_FASTCALL, nullptr},
    {"_pop_saved_tensors_default_hooks", pop_hooks, METH_NOARGS, nullptr},
    {"_top_saved_tensors_default_hooks", top_hooks, METH_O, nullptr},
    {"_saved_tensors_hooks_is_enabled", hooks_is_enabled, METH_NOARGS, nullptr},
    {"_saved_tensors_hooks_enable", hooks_enable, METH_NOARGS, nullptr},
    {"_saved_tensors_hooks_disable", reinterpret_cast<PyCFunction>(hooks_disable),
     METH_VARARGS | METH_KEYWORDS, nullptr},
    {"_saved_tensors_hooks_get_disabled_error_message", hooks_disabled_message, METH_NOARGS,
     nullptr},
    {"_saved_tensors_hooks_set_tracing", hooks_set_tracing, METH_O, nullptr},
    {"_make_saved_tensor", reinterpret_cast<PyCFunction>(make_saved_tensor),
     METH_VARARGS | METH_KEYWORDS, nullptr},
    {"_get_current_graph_task_keep_graph", current_graph_task_keep_graph, METH_NOARGS, nullptr},
    {nullptr, nullptr, 0, nullptr}};

PyMethodDef kTorchCFunctions[] = {
    {"_current_graph_task_id", current_graph_task_id, METH_NOARGS, nullptr},
    {"_current_autograd_node", current_autograd_node, METH_NOARGS, nullptr},
    {"_will_engine_execute_node", will_engine_execute_node, METH_O, nullptr},
    {"_get_graph_exec_group", get_graph_exec_group, METH_NOARGS, nullptr},
    {"_set_graph_exec_group", set_graph_exec_group, METH_O, nullptr},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

bool init_saved_tensors() {
  autograd::set_default_packer(default_pack);
  for (PyMethodDef* d = kAutogradFunctions; d->ml_name; ++d)
    if (!add("torch._C._autograd", d->ml_name, make_builtin(*d, d->ml_name, nullptr)))
      return false;
  for (PyMethodDef* d = kTorchCFunctions; d->ml_name; ++d)
    if (!add("torch._C", d->ml_name, make_builtin(*d, d->ml_name, nullptr))) return false;
  static PyType_Slot slots[] = {{Py_tp_dealloc, reinterpret_cast<void*>(saved_dealloc)},
                                {Py_tp_methods, kSavedMethods},
                                {Py_tp_new, reinterpret_cast<void*>(saved_new)},
                                {0, nullptr}};
  static PyType_Spec spec = {"torch._C._autograd.SavedTensor", sizeof(SavedTensorObject), 0,
                             Py_TPFLAGS_DEFAULT, slots};
  PyObject* type = PyType_FromSpec(&spec);
  if (!type) return false;
  g_saved_type = reinterpret_cast<PyTypeObject*>(type);
  Py_INCREF(type);
  return add("torch._C._autograd", "SavedTensor", type);
}

}  // namespace tn::py
