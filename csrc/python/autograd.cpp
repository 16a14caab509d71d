// Autograd's Python face: grad_fn objects (one class per node name, e.g. MulBackward0, kept in
// torch._C._functions as upstream's are, so torch.autograd.graph.Node recognises them) and
// torch._C._ImperativeEngine.run_backward, which torch.autograd.backward and grad call. The
// graph and the engine are the core's (csrc/autograd); this file only converts.
#include <cctype>
#include <cstring>
#include <string>
#include <unordered_map>

#include "autograd/engine.h"
#include "autograd/forward_grad.h"
#include "autograd/grad_mode.h"
#include "autograd/node.h"
#include "dispatch/kernel.h"
#include "python/errors.h"
#include "python/init.h"
#include "python/tensor.h"

namespace tn::py {

PyObject* make_builtin(const PyMethodDef& proto, const char* name, PyObject* self);  // state.cpp

PyObject* node_face(autograd::Node* n);
autograd::Node* function_node_of(PyObject* ctx);  // autograd_function.cpp
PyObject* register_node_hook(autograd::Node* n, PyObject* hook, bool pre);
PyObject* add_tensor_hook_dict(autograd::Node* n, PyObject* tensor);

namespace {

// A strong reference that std::function can copy (the GIL is held wherever hooks are made,
// run or dropped: every call into the core from Python holds it).
struct PyRef {
  PyObject* o;
  explicit PyRef(PyObject* p) : o(Py_NewRef(p)) {}
  PyRef(const PyRef& r) : o(Py_NewRef(r.o)) {}
  PyRef& operator=(const PyRef&) = delete;
  ~PyRef() { Py_DECREF(o); }
};

// Calls each hook of a tensor's _backward_hooks dict on grad, in order; a hook's tensor result
// replaces the gradient (upstream's PyFunctionTensorPreHook). Null when none replaced it.
Tensor call_hooks(PyObject* dict, const Tensor& grad) {
  if (!dict || !PyDict_Check(dict) || PyDict_Size(dict) == 0) return Tensor();
  PyObject* hooks = PyDict_Values(dict);  // a copy: a hook may remove itself
  if (!hooks) throw PythonErrorSet();
  Tensor g = grad;
  bool replaced = false;
  for (Py_ssize_t i = 0; i < PyList_GET_SIZE(hooks); ++i) {
    PyObject* arg = wrap_tensor(g);
    PyObject* r = arg ? PyObject_CallOneArg(PyList_GET_ITEM(hooks, i), arg) : nullptr;
    Py_XDECREF(arg);
    if (!r) {
      Py_DECREF(hooks);
      throw PythonErrorSet();
    }
    if (r != Py_None) {
      if (!is_tensor(r)) {
        PyErr_Format(PyExc_TypeError, "expected Variable, but hook returned '%s'",
                     Py_TYPE(r)->tp_name);
        Py_DECREF(r);
        Py_DECREF(hooks);
        throw PythonErrorSet();
      }
      g = Tensor(impl_of(r));
      replaced = true;
    }
    Py_DECREF(r);
  }
  Py_DECREF(hooks);
  return replaced ? g : Tensor();
}

PyObject* hooks_of(PyObject* tensor) {
  PyObject* d = reinterpret_cast<TensorObject*>(tensor)->dict;
  return d ? PyDict_GetItemString(d, "__tn_backward_hooks") : nullptr;  // borrowed
}

// The leaf hook runner (node.h): the hooks of the leaf's Python object.
Tensor run_python_leaf_hooks(const Tensor& leaf, const Tensor& grad) {
  auto* face = static_cast<PyObject*>(leaf->python_object());
  if (!face) return grad;
  Tensor r = call_hooks(hooks_of(face), grad);
  return r ? r : grad;
}

using autograd::Node;

struct NodeObject {
  PyObject_HEAD
  Node* node;          // owned reference (intrusive)
  PyObject* metadata;  // grad_fn.metadata, made at first use
};

void node_dealloc(PyObject* self) {
  auto* o = reinterpret_cast<NodeObject*>(self);
  PyTypeObject* type = Py_TYPE(self);
  o->node->python_face = nullptr;
  Ptr<Node>::adopt(o->node);  // drops the reference
  Py_XDECREF(o->metadata);
  type->tp_free(self);
  Py_DECREF(type);
}

Node* node_of(PyObject* self) { return reinterpret_cast<NodeObject*>(self)->node; }

PyObject* node_name(PyObject* self, PyObject*) {
  return PyUnicode_FromString(node_of(self)->name());
}
PyObject* node_sequence_nr(PyObject* self, PyObject*) {
  return PyLong_FromUnsignedLongLong(node_of(self)->sequence_nr());
}
PyObject* node_register_hook(PyObject* self, PyObject* hook) {
  return register_node_hook(node_of(self), hook, false);
}
PyObject* node_register_prehook(PyObject* self, PyObject* hook) {
  return register_node_hook(node_of(self), hook, true);
}

PyObject* next_functions(PyObject* self, void*) {
  const auto& next = node_of(self)->next;
  PyObject* out = PyTuple_New(static_cast<Py_ssize_t>(next.size()));
  if (!out) return nullptr;
  for (size_t i = 0; i < next.size(); ++i) {
    PyObject* fn = next[i] ? node_face(next[i].fn.get()) : Py_NewRef(Py_None);
    PyObject* pair = fn ? Py_BuildValue("(NI)", fn, next[i].input_nr) : nullptr;
    if (!pair) {
      Py_DECREF(out);
      return nullptr;
    }
    PyTuple_SET_ITEM(out, static_cast<Py_ssize_t>(i), pair);
  }
  return out;
}
PyObject* metadata(PyObject* self, void*) {
  auto* o = reinterpret_cast<NodeObject*>(self);
  if (!o->metadata && !(o->metadata = PyDict_New())) return nullptr;
  return Py_NewRef(o->metadata);
}
// AccumulateGrad.variable: the leaf it accumulates into.
PyObject* variable(PyObject* self, void*) {
  auto* acc = dynamic_cast<autograd::AccumulateGrad*>(node_of(self));
  if (!acc) {
    PyErr_Format(PyExc_AttributeError, "'%s' object has no attribute 'variable'",
                 node_of(self)->class_name());
    return nullptr;
  }
  return wrap_tensor(acc->variable());
}

PyObject* register_hook_dict(PyObject* self, PyObject* tensor) {
  return add_tensor_hook_dict(node_of(self), tensor);
}

PyMethodDef kNodeMethods[] = {
    {"name", node_name, METH_NOARGS, nullptr},
    {"_register_hook_dict", register_hook_dict, METH_O, nullptr},
    {"_sequence_nr", node_sequence_nr, METH_NOARGS, nullptr},
    {"register_hook", node_register_hook, METH_O, nullptr},
    {"register_prehook", node_register_prehook, METH_O, nullptr},
    {nullptr, nullptr, 0, nullptr}};
PyGetSetDef kNodeGetSet[] = {{"next_functions", next_functions, nullptr, nullptr, nullptr},
                             {"metadata", metadata, nullptr, nullptr, nullptr},
                             {"variable", variable, nullptr, nullptr, nullptr},
                             {nullptr, nullptr, nullptr, nullptr, nullptr}};

// The class for a node name, made once and published in torch._C._functions.
PyTypeObject* node_type(const char* name) {
  static std::unordered_map<std::string, PyTypeObject*> types;
  auto it = types.find(name);
  if (it != types.end()) return it->second;
  PyType_Slot slots[] = {{Py_tp_dealloc, reinterpret_cast<void*>(node_dealloc)},
                         {Py_tp_methods, kNodeMethods},
                         {Py_tp_getset, kNodeGetSet},
                         {0, nullptr}};
  // "builtins.<name>": __module__ builtins and the bare name, as upstream's classes have.
  std::string* kept = new std::string(std::string("builtins.") + name);  // outlives the type
  PyType_Spec spec = {kept->c_str(), sizeof(NodeObject), 0, Py_TPFLAGS_DEFAULT, slots};
  auto* type = reinterpret_cast<PyTypeObject*>(PyType_FromSpec(&spec));
  if (!type) return nullptr;
  // Not constructible from Python, as upstream's C++ nodes; printed by the bare name.
  type->tp_new = nullptr;
  type->tp_name = kept->c_str() + std::strlen("builtins.");
  PyObject* functions = module("torch._C._functions");
  if (functions) PyObject_SetAttrString(functions, name, reinterpret_cast<PyObject*>(type));
  types.emplace(name, type);
  return type;
}

// _ImperativeEngine.run_backward(tensors, grad_tensors, keep_graph, create_graph, inputs=(),
// allow_unreachable=False, accumulate_grad=True).
PyObject* run_backward(PyObject*, PyObject* args, PyObject* kwargs) {
  static const char* kw[] = {"self",   "tensors", "grad_tensors", "keep_graph", "create_graph",
                             "inputs", "allow_unreachable", "accumulate_grad", nullptr};
  PyObject *engine, *tensors, *grads, *inputs = nullptr;
  int keep = 0, create = 0, unreachable = 0, accumulate = 1;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOOpp|Opp:run_backward",
                                   const_cast<char**>(kw), &engine, &tensors, &grads, &keep,
                                   &create, &inputs, &unreachable, &accumulate))
    return nullptr;
  TN_PY_TRY
  PyObject* ts = PySequence_Fast(tensors, "tensors must be a sequence");
  if (!ts) return nullptr;
  PyObject* gs = PySequence_Fast(grads, "grad_tensors must be a sequence");
  if (!gs) {
    Py_DECREF(ts);
    return nullptr;
  }
  Py_ssize_t n = PySequence_Fast_GET_SIZE(ts);
  std::vector<autograd::Edge> roots;
  autograd::Grads root_grads;
  std::string error;
  for (Py_ssize_t i = 0; i < n && error.empty(); ++i) {
    PyObject* t = PySequence_Fast_GET_ITEM(ts, i);
    if (!is_tensor(t)) {
      error = "torchnative: run_backward of a GradientEdge is not implemented yet";
      break;
    }
    autograd::Edge e = autograd::gradient_edge(Tensor(impl_of(t)));
    if (!e) {
      PyErr_Format(PyExc_RuntimeError,
                   "element %zd of tensors does not require grad and does not have a grad_fn",
                   i);
      Py_DECREF(ts);
      Py_DECREF(gs);
      return nullptr;
    }
    roots.push_back(std::move(e));
    PyObject* g = i < PySequence_Fast_GET_SIZE(gs) ? PySequence_Fast_GET_ITEM(gs, i) : Py_None;
    root_grads.push_back(is_tensor(g) ? Tensor(impl_of(g)) : Tensor());
  }
  Py_DECREF(ts);
  Py_DECREF(gs);
  if (!error.empty()) {
    PyErr_SetString(PyExc_NotImplementedError, error.c_str());
    return nullptr;
  }
  std::vector<autograd::Edge> wanted;
  if (inputs && inputs != Py_None) {
    PyObject* is = PySequence_Fast(inputs, "inputs must be a sequence");
    if (!is) return nullptr;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(is); ++i) {
      PyObject* t = PySequence_Fast_GET_ITEM(is, i);
      const char* refusal = nullptr;
      autograd::Edge e;
      if (!is_tensor(t)) {
        refusal = "torchnative: run_backward with a GradientEdge input is not implemented yet";
      } else {
        TensorImpl* x = impl_of(t);
        e = autograd::gradient_edge(Tensor(x));
        if (!e) {
          Py_DECREF(is);
          PyErr_SetString(PyExc_RuntimeError,
                          "One of the differentiated Tensors does not require grad");
          return nullptr;
        }
        if (accumulate && !x->is_leaf())
          refusal = "torchnative: backward(inputs=...) with a non-leaf input is not implemented "
                    "yet (autograd, issue 8)";
      }
      if (refusal) {
        Py_DECREF(is);
        PyErr_SetString(PyExc_NotImplementedError, refusal);
        return nullptr;
      }
      wanted.push_back(std::move(e));
    }
    Py_DECREF(is);
  }
  autograd::BackwardOptions opt;
  opt.keep_graph = keep;
  opt.create_graph = create;
  opt.accumulate_grad = accumulate;
  opt.allow_unreachable = unreachable;
  autograd::Grads out = autograd::run_backward(roots, std::move(root_grads), wanted, opt);
  if (accumulate) return PyTuple_New(0);
  PyObject* result = PyTuple_New(static_cast<Py_ssize_t>(out.size()));
  if (!result) return nullptr;
  for (size_t i = 0; i < out.size(); ++i) {
    PyObject* g = out[i] ? wrap_tensor(out[i]) : Py_NewRef(Py_None);
    if (!g) {
      Py_DECREF(result);
      return nullptr;
    }
    PyTuple_SET_ITEM(result, static_cast<Py_ssize_t>(i), g);
  }
  return result;
  TN_PY_CATCH(nullptr)
}
// _ImperativeEngine.is_checkpoint_valid(self).
PyObject* is_checkpoint_valid(PyObject*, PyObject*) {
  return PyBool_FromLong(autograd::checkpoint_valid());
}
PyMethodDef is_checkpoint_valid_def = {"is_checkpoint_valid", is_checkpoint_valid, METH_O,
                                       nullptr};
PyMethodDef run_backward_def = {"run_backward", reinterpret_cast<PyCFunction>(run_backward),
                                METH_VARARGS | METH_KEYWORDS, nullptr};

}  // namespace

// grad_fn._register_hook_dict(tensor): the tensor's _backward_hooks run on the gradient of
// the output it is (Tensor.register_hook's non-leaf case).
PyObject* add_tensor_hook_dict(Node* n, PyObject* tensor) {
  if (!is_tensor(tensor)) {
    PyErr_SetString(PyExc_TypeError, "_register_hook_dict expected a Tensor");
    return nullptr;
  }
  const AutogradMeta* m = impl_of(tensor)->autograd_meta();
  PyObject* dict = hooks_of(tensor);
  if (!dict) Py_RETURN_NONE;
  PyRef held(dict);
  n->tensor_hooks.emplace_back(static_cast<uint32_t>(m ? m->output_nr : 0),
                               [held](const Tensor& g) { return call_hooks(held.o, g); });
  Py_RETURN_NONE;
}

namespace {

// Gradients as Python sees them: a tuple, None where there is none.
PyObject* wrap_grads(const autograd::Grads& g) {
  PyObject* t = PyTuple_New(static_cast<Py_ssize_t>(g.size()));
  if (!t) throw PythonErrorSet();
  for (size_t i = 0; i < g.size(); ++i) {
    PyObject* x = g[i] ? wrap_tensor(g[i]) : Py_NewRef(Py_None);
    if (!x) {
      Py_DECREF(t);
      throw PythonErrorSet();
    }
    PyTuple_SET_ITEM(t, static_cast<Py_ssize_t>(i), x);
  }
  return t;
}
autograd::Grads unwrap_grads(PyObject* t) {
  autograd::Grads g(static_cast<size_t>(PyTuple_GET_SIZE(t)));
  for (size_t i = 0; i < g.size(); ++i) {
    PyObject* x = PyTuple_GET_ITEM(t, static_cast<Py_ssize_t>(i));
    if (x != Py_None) g[i] = Tensor(impl_of(x));
  }
  return g;
}

std::string hook_name(PyObject* hook) {
  PyObject* name = PyObject_GetAttrString(hook, "__name__");
  if (!name) {
    PyErr_Clear();
    return "<unknown>";
  }
  const char* s = PyUnicode_Check(name) ? PyUnicode_AsUTF8(name) : nullptr;
  std::string r = s ? s : "<unknown>";
  Py_DECREF(name);
  return r;
}

// "CPUFloatType": upstream's Tensor::toString.
std::string type_string(const Tensor& t) {
  std::string dev = t->device().str();
  for (char& c : dev) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::string legacy = info(t->dtype()).legacy_name;
  size_t at = legacy.rfind("Tensor");
  if (at != std::string::npos) legacy.erase(at);
  return dev + legacy + "Type";
}

// Upstream's check_single_result / check_variable_result on one replaced gradient.
void check_single(PyObject* original, PyObject* result, PyObject* hook) {
  if (result == Py_None) return;
  if (original == Py_None)
    TN_FAIL(Runtime, "can't replace a None gradient with a non-None value");
  if (!is_tensor(result)) {
    PyErr_Format(PyExc_TypeError, "expected Variable, but hook returned '%s'",
                 Py_TYPE(result)->tp_name);
    throw PythonErrorSet();
  }
  Tensor o(impl_of(original)), r(impl_of(result));
  if (o->dtype() != r->dtype() || o->device() != r->device())
    TN_FAIL(Runtime, "hook '", hook_name(hook), "' has changed the type of value (was ",
            type_string(o), " got ", type_string(r), ")");
  if (o->sizes() != r->sizes())
    TN_FAIL(Runtime, "hook '", hook_name(hook), "' has changed the size of value");
}

// Upstream's _call_hooks: each hook of the dict is called with (current, *rest); None keeps
// the gradients, a tuple of as many replaces them (checked one by one).
PyObject* call_node_hooks(PyObject* dict, PyObject* current, PyObject* rest) {
  PyObject* hooks = PyDict_Values(dict);  // a copy: a hook may remove itself
  if (!hooks) {
    Py_DECREF(current);
    throw PythonErrorSet();
  }
  for (Py_ssize_t i = 0; i < PyList_GET_SIZE(hooks); ++i) {
    PyObject* hook = PyList_GET_ITEM(hooks, i);
    PyObject* r = rest ? PyObject_CallFunctionObjArgs(hook, current, rest, nullptr)
                       : PyObject_CallOneArg(hook, current);
    try {
      if (!r) throw PythonErrorSet();
      if (r == Py_None || r == current) {
        Py_DECREF(r);
        continue;
      }
      if (!PyTuple_Check(r)) {
        PyErr_Format(PyExc_TypeError, "expected tuple, but hook returned '%s'",
                     Py_TYPE(r)->tp_name);
        throw PythonErrorSet();
      }
      Py_ssize_t want = PyTuple_GET_SIZE(current), got = PyTuple_GET_SIZE(r);
      if (want != got)
        TN_FAIL(Runtime, "hook '", hook_name(hook), "' has returned an incorrect number of "
                "values (got ", got, ", but expected ", want, ")");
      for (Py_ssize_t k = 0; k < want; ++k)
        check_single(PyTuple_GET_ITEM(current, k), PyTuple_GET_ITEM(r, k), hook);
    } catch (...) {
      Py_XDECREF(r);
      Py_DECREF(hooks);
      Py_DECREF(current);
      throw;
    }
    Py_DECREF(current);
    current = r;
  }
  Py_DECREF(hooks);
  return current;
}

}  // namespace

// grad_fn.register_prehook(hook) / register_hook(hook): upstream's registerFunctionPreHook /
// registerFunctionHook. The hooks of one kind share a dict (Function._register_hook makes it
// and the RemovableHandle); the first registration installs the node's hook that reads it.
PyObject* register_node_hook(Node* n, PyObject* hook, bool pre) {
  TN_PY_TRY
  int k = pre ? 0 : 1;
  PyObject* dict = n->python_hooks[k] ? static_cast<PyObject*>(n->python_hooks[k]) : Py_None;
  PyObject* fn_mod = PyImport_ImportModule("torch.autograd.function");
  PyObject* function = fn_mod ? PyObject_GetAttrString(fn_mod, "Function") : nullptr;
  Py_XDECREF(fn_mod);
  PyObject* res = function ? PyObject_CallMethod(function, "_register_hook", "OO", dict, hook)
                           : nullptr;
  Py_XDECREF(function);
  if (!res) return nullptr;
  if (!PyTuple_Check(res) || PyTuple_GET_SIZE(res) != 2) {
    Py_DECREF(res);
    PyErr_SetString(PyExc_RuntimeError, "Function._register_hook returned no (dict, handle)");
    return nullptr;
  }
  if (dict == Py_None) {
    PyRef held(PyTuple_GET_ITEM(res, 0));
    n->python_hooks[k] = held.o;
    if (pre) {
      n->pre_hooks.push_back([held](autograd::Grads g) {
        PyObject* r = call_node_hooks(held.o, wrap_grads(g), nullptr);
        autograd::Grads out = unwrap_grads(r);
        Py_DECREF(r);
        return out;
      });
    } else {
      n->post_hooks.push_back([held](autograd::Grads gi, const autograd::Grads& go) {
        PyObject* outs = wrap_grads(go);
        PyObject* r = nullptr;
        try {
          r = call_node_hooks(held.o, wrap_grads(gi), outs);
        } catch (...) {
          Py_DECREF(outs);
          throw;
        }
        Py_DECREF(outs);
        autograd::Grads out = unwrap_grads(r);
        Py_DECREF(r);
        return out;
      });
    }
  }
  PyObject* handle = Py_NewRef(PyTuple_GET_ITEM(res, 1));
  Py_DECREF(res);
  return handle;
  TN_PY_CATCH(nullptr)
}

// The node behind a grad_fn object (ours, or a custom Function's ctx); null for anything else.
Node* node_of_face(PyObject* o) {
  if (Py_TYPE(o)->tp_dealloc == node_dealloc) return node_of(o);
  return function_node_of(o);
}

PyObject* node_face(Node* n) {
  if (!n) Py_RETURN_NONE;
  if (n->python_face) return Py_NewRef(static_cast<PyObject*>(n->python_face));
  PyTypeObject* type = node_type(n->class_name());
  if (!type) return nullptr;
  auto* o = PyObject_New(NodeObject, type);
  if (!o) return nullptr;
  n->incref();
  o->node = n;
  o->metadata = nullptr;
  n->python_face = o;
  return reinterpret_cast<PyObject*>(o);
}

// Tensor._backward_hooks: the dict register_hook fills (kept in the instance dict, under a
// private key); setting it on a leaf tells the engine to run it (AutogradMeta::has_hooks).
PyObject* get_backward_hooks(PyObject* self, void*) {
  PyObject* d = hooks_of(self);
  return Py_NewRef(d ? d : Py_None);
}
int set_backward_hooks(PyObject* self, PyObject* value, void*) {
  auto* o = reinterpret_cast<TensorObject*>(self);
  if (!o->dict && !(o->dict = PyDict_New())) return -1;
  if (!value || value == Py_None) {
    if (PyDict_GetItemString(o->dict, "__tn_backward_hooks") &&
        PyDict_DelItemString(o->dict, "__tn_backward_hooks") != 0)
      return -1;
  } else if (PyDict_SetItemString(o->dict, "__tn_backward_hooks", value) != 0) {
    return -1;
  }
  TensorImpl* t = impl_of(self);
  if (value && value != Py_None) t->ensure_autograd_meta().has_hooks = true;
  else if (AutogradMeta* m = t->autograd_meta()) m->has_hooks = false;
  return 0;
}
// Tensor._post_accumulate_grad_hooks: the dict register_post_accumulate_grad_hook fills; each
// hook is called with the leaf after its .grad is accumulated and must return None.
PyObject* post_hooks_of(PyObject* tensor) {
  PyObject* d = reinterpret_cast<TensorObject*>(tensor)->dict;
  return d ? PyDict_GetItemString(d, "__tn_post_accumulate_hooks") : nullptr;  // borrowed
}
PyObject* get_post_accumulate_hooks(PyObject* self, void*) {
  PyObject* d = post_hooks_of(self);
  return Py_NewRef(d ? d : Py_None);
}
int set_post_accumulate_hooks(PyObject* self, PyObject* value, void*) {
  auto* o = reinterpret_cast<TensorObject*>(self);
  if (!o->dict && !(o->dict = PyDict_New())) return -1;
  const char* key = "__tn_post_accumulate_hooks";
  if (!value || value == Py_None) {
    if (PyDict_GetItemString(o->dict, key) && PyDict_DelItemString(o->dict, key) != 0) return -1;
  } else if (PyDict_SetItemString(o->dict, key, value) != 0) {
    return -1;
  }
  TensorImpl* t = impl_of(self);
  if (value && value != Py_None) t->ensure_autograd_meta().has_post_accumulate_hooks = true;
  else if (AutogradMeta* m = t->autograd_meta()) m->has_post_accumulate_hooks = false;
  return 0;
}
void run_python_post_accumulate_hooks(const Tensor& leaf) {
  auto* face = static_cast<PyObject*>(leaf->python_object());
  PyObject* dict = face ? post_hooks_of(face) : nullptr;
  if (!dict || !PyDict_Check(dict) || PyDict_Size(dict) == 0) return;
  PyObject* hooks = PyDict_Values(dict);  // a copy: a hook may remove itself
  if (!hooks) throw PythonErrorSet();
  for (Py_ssize_t i = 0; i < PyList_GET_SIZE(hooks); ++i) {
    PyObject* r = PyObject_CallOneArg(PyList_GET_ITEM(hooks, i), face);
    if (!r) {
      Py_DECREF(hooks);
      throw PythonErrorSet();
    }
    if (r != Py_None) {
      // upstream's words: a tensor result is refused as such, anything else as not a tensor.
      if (is_tensor(r))
        PyErr_SetString(PyExc_RuntimeError,
                        "Tensor post accumulate grad hooks should return None.");
      else
        PyErr_Format(PyExc_TypeError, "expected Variable, but hook returned '%s'",
                     Py_TYPE(r)->tp_name);
      Py_DECREF(r);
      Py_DECREF(hooks);
      throw PythonErrorSet();
    }
    Py_DECREF(r);
  }
  Py_DECREF(hooks);
}

PyObject* get_retains_grad(PyObject* self, void*) {
  const AutogradMeta* m = impl_of(self)->autograd_meta();
  return PyBool_FromLong(m && m->retains_grad);
}

// Tensor.retain_grad(): a non-leaf keeps the gradient that reaches it in .grad (summed over
// backward calls), after its own hooks, as upstream's; a no-op on a leaf.
PyObject* tensor_retain_grad(PyObject* self, PyObject*) {
  TensorImpl* t = impl_of(self);
  if (!t->requires_grad()) {
    PyErr_SetString(PyExc_RuntimeError,
                    "can't retain_grad on Tensor that has requires_grad=False");
    return nullptr;
  }
  if (t->is_leaf()) Py_RETURN_NONE;
  AutogradMeta& m = t->ensure_autograd_meta();
  if (m.retains_grad) Py_RETURN_NONE;
  Node* fn = autograd::grad_fn_of(*t);
  if (!fn) Py_RETURN_NONE;
  PyObject* weak = PyWeakref_NewRef(self, nullptr);
  if (!weak) return nullptr;
  PyRef held(weak);
  Py_DECREF(weak);
  fn->retain_hooks.emplace_back(static_cast<uint32_t>(m.output_nr), [held](const Tensor& g) {
    PyObject* face = PyWeakref_GetObject(held.o);
    if (face && face != Py_None) {
      AutogradMeta& tm = impl_of(face)->ensure_autograd_meta();
      tm.grad = tm.grad ? call_tensor("aten::add.Tensor", {Value::of(tm.grad), Value::of(g)})
                        : call_tensor("aten::clone", {Value::of(g)});
    }
    return Tensor();
  });
  m.retains_grad = true;
  Py_RETURN_NONE;
}

// set_anomaly_enabled(enabled, check_nan=True), is_anomaly_enabled(),
// is_anomaly_check_nan_enabled(): the switch of torch.autograd.detect_anomaly.
PyObject* set_anomaly_enabled(PyObject*, PyObject* args, PyObject* kwargs) {
  static const char* kw[] = {"enabled", "check_nan", nullptr};
  int enabled = 0, check_nan = 1;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "p|p:set_anomaly_enabled",
                                   const_cast<char**>(kw), &enabled, &check_nan))
    return nullptr;
  set_anomaly(enabled, check_nan);
  Py_RETURN_NONE;
}
PyObject* is_anomaly_enabled(PyObject*, PyObject*) { return PyBool_FromLong(anomaly_enabled()); }
PyObject* is_anomaly_check_nan_enabled(PyObject*, PyObject*) {
  return PyBool_FromLong(anomaly_check_nan());
}
// _enter_dual_level() and _exit_dual_level(level=...): forward AD's one level
// (csrc/autograd/forward_grad.h).
PyObject* enter_dual_level(PyObject*, PyObject*) {
  TN_PY_TRY
  return PyLong_FromLongLong(autograd::enter_dual_level());
  TN_PY_CATCH(nullptr)
}
PyObject* exit_dual_level(PyObject*, PyObject* args, PyObject* kwargs) {
  static const char* kw[] = {"level", nullptr};
  long long level = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "L:_exit_dual_level", const_cast<char**>(kw),
                                   &level))
    return nullptr;
  TN_PY_TRY
  autograd::exit_dual_level(level);
  Py_RETURN_NONE;
  TN_PY_CATCH(nullptr)
}

PyMethodDef kAnomalyFunctions[] = {
    {"_enter_dual_level", enter_dual_level, METH_NOARGS, nullptr},
    {"_exit_dual_level", reinterpret_cast<PyCFunction>(exit_dual_level),
     METH_VARARGS | METH_KEYWORDS, nullptr},
    {"set_anomaly_enabled", reinterpret_cast<PyCFunction>(set_anomaly_enabled),
     METH_VARARGS | METH_KEYWORDS, nullptr},
    {"is_anomaly_enabled", is_anomaly_enabled, METH_NOARGS, nullptr},
    {"is_anomaly_check_nan_enabled", is_anomaly_check_nan_enabled, METH_NOARGS, nullptr},
    {nullptr, nullptr, 0, nullptr}};

bool init_autograd_late() {
  autograd::set_leaf_hook_runner(run_python_leaf_hooks);
  autograd::set_post_accumulate_runner(run_python_post_accumulate_hooks);
  for (PyMethodDef* d = kAnomalyFunctions; d->ml_name; ++d) {
    PyObject* f = make_builtin(*d, d->ml_name, nullptr);
    int rc = f ? PyObject_SetAttrString(module("torch._C"), d->ml_name, f) : -1;
    Py_XDECREF(f);
    if (rc != 0) return false;
  }
  for (const char* name : {"AccumulateGrad", "NotImplemented", "CopySlices"})
    if (!node_type(name)) return false;
  PyObject* engine = PyObject_GetAttrString(module("torch._C"), "_ImperativeEngine");
  if (!engine) return false;
  int rc = 0;
  for (const PyMethodDef* d : {&run_backward_def, &is_checkpoint_valid_def}) {
    PyObject* f = make_builtin(*d, d->ml_name, nullptr);
    PyObject* m = f ? PyInstanceMethod_New(f) : nullptr;
    Py_XDECREF(f);
    rc = m ? PyObject_SetAttrString(engine, d->ml_name, m) : -1;
    Py_XDECREF(m);
    if (rc != 0) break;
  }
  Py_DECREF(engine);
  return rc == 0;
}

}  // namespace tn::py
