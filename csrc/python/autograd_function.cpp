// torch.autograd.Function's core (upstream's THPFunction and PyNode): torch._C._FunctionBase,
// the base of every Function's generated backward class. One instance per call is both the ctx
// that forward/setup_context and backward see and the grad_fn of the call's outputs.
// _FunctionBase.apply(cls, *args) runs forward with grad mode off, then records one node whose
// backward calls ctx.apply (BackwardCFunction.apply, which calls the class's backward). The
// outputs are wrapped as upstream's _wrap_outputs does: an input returned as is becomes a view
// of it, marked-dirty inputs are rebased onto the node, non-differentiable outputs do not
// require grad; saved tensors are version-checked when unpacked.
#include <Python.h>
#include <structmember.h>

#include <string>
#include <unordered_set>
#include <vector>

#include "autograd/grad_mode.h"
#include "autograd/node.h"
#include "autograd/saved_variable.h"
#include "dispatch/kernel.h"
#include "python/errors.h"
#include "python/init.h"
#include "python/tensor.h"

namespace tn::py {

PyObject* node_face(autograd::Node* n);                                      // autograd.cpp
PyObject* register_node_hook(autograd::Node* n, PyObject* hook, bool pre);   // autograd.cpp
PyObject* add_tensor_hook_dict(autograd::Node* n, PyObject* tensor);         // autograd.cpp

namespace {

using autograd::Grads;
using autograd::InputMeta;
using autograd::Node;

// An owned reference, released at scope exit.
struct Owned {
  PyObject* p;
  explicit Owned(PyObject* o = nullptr) : p(o) {}
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  ~Owned() { Py_XDECREF(p); }
  PyObject* get() const { return p; }
  PyObject* release() {
    PyObject* r = p;
    p = nullptr;
    return r;
  }
  explicit operator bool() const { return p != nullptr; }
};

PyObject* checked(PyObject* o) {
  if (!o) throw PythonErrorSet();
  return o;
}

struct FunctionState {
  std::vector<autograd::SavedVariable> saved;  // ctx.save_for_backward's, in order
  std::vector<bool> is_tensor_input;
  std::vector<bool> needs_input_grad;
  std::vector<InputMeta> output_info;  // per forward output; undefined for a non-tensor
  bool has_freed = false;
  bool cleared_on_access = false;
};

struct FunctionObject {
  PyObject_HEAD
  PyObject* dict;
  PyObject* weakrefs;
  Node* node;  // this call's node (non-owning: the node owns this object while it lives)
  PyObject* to_save;
  PyObject* non_differentiable;
  PyObject* dirty_tensors;
  PyObject* saved_for_forward;
  PyObject* needs_input_grad;  // set from Python; else made from state->needs_input_grad
  PyObject* metadata;
  FunctionState* state;
  bool materialize_grads;
  bool materialize_non_diff_grads;
  bool clear_on_access;
};

FunctionObject* fn_of(PyObject* o) { return reinterpret_cast<FunctionObject*>(o); }

// The node of one Function call (upstream's PyNode): owns the ctx; named after its class
// ("ExpBackward" for class Exp), as upstream's.
class PyFunctionNode final : public Node {
 public:
  explicit PyFunctionNode(PyObject* ctx) : ctx_(Py_NewRef(ctx)), name_(Py_TYPE(ctx)->tp_name) {
    python_face = ctx;
  }
  ~PyFunctionNode() override {
    python_face = nullptr;
    fn_of(ctx_)->node = nullptr;
    Py_DECREF(ctx_);
  }
  const char* name() const override { return name_.c_str(); }
  Grads apply(Grads&& grads) override;
  void release_saved() override {
    FunctionState& s = *fn_of(ctx_)->state;
    for (autograd::SavedVariable& v : s.saved) v.release();
    s.has_freed = true;
  }

 private:
  PyObject* ctx_;
  std::string name_;
};

Tensor zeros_of(const InputMeta& m) {
  return call_tensor("aten::zeros", {Value::of_ints(m.sizes), Value::of_dtype(m.dtype), Value{},
                                     Value::of_device(m.device)});
}

Grads PyFunctionNode::apply(Grads&& grads) {
  FunctionObject* f = fn_of(ctx_);
  FunctionState& st = *f->state;
  Owned args(checked(PyTuple_New(static_cast<Py_ssize_t>(grads.size()))));
  for (size_t i = 0; i < grads.size(); ++i) {
    bool undefined_meta = i < inputs.size() && inputs[i].undefined;
    PyObject* a;
    if (grads[i]) {
      a = wrap_tensor(grads[i]);
    } else if (!f->materialize_grads || (undefined_meta && !f->materialize_non_diff_grads) ||
               i >= st.output_info.size() || st.output_info[i].undefined) {
      a = Py_NewRef(Py_None);
    } else {
      a = wrap_tensor(zeros_of(st.output_info[i]));
    }
    PyTuple_SET_ITEM(args.get(), static_cast<Py_ssize_t>(i), checked(a));
  }
  // boxed_grads_call: backward takes the gradients as one mutable list (apply_boxed).
  Owned fwd_cls(checked(PyObject_GetAttrString(ctx_, "_forward_cls")));
  Owned boxed(PyObject_GetAttrString(fwd_cls.get(), "boxed_grads_call"));
  if (!boxed) PyErr_Clear();
  Owned r;
  if (boxed && boxed.get() == Py_True) {
    Owned list(checked(PySequence_List(args.get())));
    r.p = PyObject_CallMethod(ctx_, "apply_boxed", "O", list.get());
  } else {
    Owned apply_fn(checked(PyObject_GetAttrString(ctx_, "apply")));
    r.p = PyObject_Call(apply_fn.get(), args.get(), nullptr);
  }
  checked(r.get());
  if (!PyTuple_Check(r.get())) r.p = checked(PyTuple_Pack(1, Owned(r.release()).get()));
  Py_ssize_t got = PyTuple_GET_SIZE(r.get());
  Py_ssize_t want = static_cast<Py_ssize_t>(st.is_tensor_input.size());
  // More results than inputs is accepted when the extra ones are all None.
  if (got > want) {
    bool all_none = true;
    for (Py_ssize_t i = want; i < got; ++i) all_none = all_none && PyTuple_GET_ITEM(r.get(), i) == Py_None;
    if (all_none) got = want;
  }
  if (got != want)
    TN_FAIL(Runtime, "function ", name_, " returned an incorrect number of gradients (expected ",
            want, ", got ", got, ")");
  Grads out;
  for (Py_ssize_t i = 0; i < got; ++i) {
    PyObject* o = PyTuple_GET_ITEM(r.get(), i);
    if (!st.is_tensor_input[static_cast<size_t>(i)]) {
      TN_CHECK(o == Py_None, "function ", name_, " returned a gradient different than None at "
               "position ", i + 1, ", but the corresponding forward input was not a Variable");
      continue;
    }
    if (o == Py_None) {
      out.emplace_back();
      continue;
    }
    TN_CHECK(is_tensor(o), "expected Variable or None (got ", Py_TYPE(o)->tp_name, ")");
    out.emplace_back(impl_of(o));
  }
  return out;
}

// --- the type --------------------------------------------------------------------------

PyObject* fn_new(PyTypeObject* type, PyObject*, PyObject*) {
  PyObject* o = type->tp_alloc(type, 0);
  if (!o) return nullptr;
  FunctionObject* f = fn_of(o);
  f->state = new FunctionState();
  f->materialize_grads = true;
  f->materialize_non_diff_grads = true;
  return o;
}

int fn_traverse(PyObject* self, visitproc visit, void* arg) {
  FunctionObject* f = fn_of(self);
  Py_VISIT(f->dict);
  Py_VISIT(f->to_save);
  Py_VISIT(f->non_differentiable);
  Py_VISIT(f->dirty_tensors);
  Py_VISIT(f->saved_for_forward);
  Py_VISIT(f->needs_input_grad);
  Py_VISIT(f->metadata);
  Py_VISIT(Py_TYPE(self));
  return 0;
}

int fn_clear(PyObject* self) {
  FunctionObject* f = fn_of(self);
  Py_CLEAR(f->dict);
  Py_CLEAR(f->to_save);
  Py_CLEAR(f->non_differentiable);
  Py_CLEAR(f->dirty_tensors);
  Py_CLEAR(f->saved_for_forward);
  Py_CLEAR(f->needs_input_grad);
  Py_CLEAR(f->metadata);
  return 0;
}

void fn_dealloc(PyObject* self) {
  PyObject_GC_UnTrack(self);
  FunctionObject* f = fn_of(self);
  if (f->weakrefs) PyObject_ClearWeakRefs(self);
  fn_clear(self);
  delete f->state;
  f->state = nullptr;
  PyTypeObject* type = Py_TYPE(self);
  type->tp_free(self);
  Py_DECREF(type);
}

// The node behind a ctx, or the upstream error for one whose node is gone.
Node* live_node(PyObject* self, const char* what) {
  Node* n = fn_of(self)->node;
  if (!n)
    TN_FAIL(Runtime, "Attribute '", what, "' is invalid for this instance of _C._FunctionBase. "
            "Accessing this attribute directly on an instance of autograd.Function is a legacy "
            "access pattern that is no longer supported. For examples on how to use new-style "
            "autograd functions, see https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function ");
  return n;
}

PyObject* fn_name(PyObject* self, PyObject*) {
  TN_PY_TRY
  return PyUnicode_FromString(live_node(self, "name")->name());
  TN_PY_CATCH(nullptr)
}
PyObject* fn_sequence_nr(PyObject* self, PyObject*) {
  TN_PY_TRY
  return PyLong_FromUnsignedLongLong(live_node(self, "_sequence_nr")->sequence_nr());
  TN_PY_CATCH(nullptr)
}
PyObject* fn_register_hook(PyObject* self, PyObject* hook) {
  TN_PY_TRY
  return register_node_hook(live_node(self, "register_hook"), hook, false);
  TN_PY_CATCH(nullptr)
}
PyObject* fn_register_prehook(PyObject* self, PyObject* hook) {
  TN_PY_TRY
  return register_node_hook(live_node(self, "register_prehook"), hook, true);
  TN_PY_CATCH(nullptr)
}
PyObject* fn_register_hook_dict(PyObject* self, PyObject* tensor) {
  TN_PY_TRY
  return add_tensor_hook_dict(live_node(self, "_register_hook_dict"), tensor);
  TN_PY_CATCH(nullptr)
}
PyObject* fn_maybe_clear_saved(PyObject* self, PyObject*) {
  TN_PY_TRY
  live_node(self, "maybe_clear_saved_tensors");
  TN_FAIL(NotImplemented, "torchnative: maybe_clear_saved_tensors (compiled autograd) is not "
          "implemented (autograd, issue 8)");
  TN_PY_CATCH(nullptr)
}

// --- saved tensors ----------------------------------------------------------------------

PyObject* unpack_saved(PyObject* self) {
  FunctionObject* f = fn_of(self);
  FunctionState& st = *f->state;
  TN_CHECK(!st.cleared_on_access, "saved_tensors can only be accessed once when "
           "clear_saved_tensors_on_access=True is set on the autograd.Function. Either access "
           "saved_tensors only once, or set clear_saved_tensors_on_access=False.");
  TN_CHECK(!st.has_freed, autograd::kSavedFreed);
  Owned out(checked(PyTuple_New(static_cast<Py_ssize_t>(st.saved.size()))));
  for (size_t i = 0; i < st.saved.size(); ++i) {
    // An output comes back with this node as its history (upstream's unpack).
    Tensor t = st.saved[i].unpack(f->node);
    PyTuple_SET_ITEM(out.get(), static_cast<Py_ssize_t>(i),
                     checked(t ? wrap_tensor(t) : Py_NewRef(Py_None)));
  }
  if (f->clear_on_access) {
    st.saved.clear();
    st.cleared_on_access = true;
  }
  return out.release();
}

PyObject* get_saved_tensors(PyObject* self, void*) {
  TN_PY_TRY
  FunctionObject* f = fn_of(self);
  if (f->saved_for_forward) return Py_NewRef(f->saved_for_forward);
  return unpack_saved(self);
  TN_PY_CATCH(nullptr)
}
PyObject* get_saved_variables(PyObject* self, void*) {
  if (PyErr_WarnEx(PyExc_DeprecationWarning, "'saved_variables' is deprecated; use "
                   "'saved_tensors'", 0) != 0)
    return nullptr;
  TN_PY_TRY
  return unpack_saved(self);
  TN_PY_CATCH(nullptr)
}
PyObject* get_raw_saved(PyObject*, void*) {
  PyErr_SetString(PyExc_NotImplementedError, "torchnative: grad_fn._raw_saved_tensors "
                  "(SavedTensor objects) is not implemented (autograd, issue 8)");
  return nullptr;
}

template <PyObject* FunctionObject::*field>
PyObject* get_field(PyObject* self, void*) {
  PyObject* v = fn_of(self)->*field;
  return Py_NewRef(v ? v : Py_None);
}
template <PyObject* FunctionObject::*field>
int set_field(PyObject* self, PyObject* value, void*) {
  PyObject*& slot = fn_of(self)->*field;
  PyObject* old = slot;
  slot = value && value != Py_None ? Py_NewRef(value) : nullptr;
  Py_XDECREF(old);
  return 0;
}

PyObject* get_needs_input_grad(PyObject* self, void*) {
  FunctionObject* f = fn_of(self);
  if (f->needs_input_grad) return Py_NewRef(f->needs_input_grad);
  const std::vector<bool>& bits = f->state->needs_input_grad;
  PyObject* t = PyTuple_New(static_cast<Py_ssize_t>(bits.size()));
  if (!t) return nullptr;
  for (size_t i = 0; i < bits.size(); ++i)
    PyTuple_SET_ITEM(t, static_cast<Py_ssize_t>(i), PyBool_FromLong(bits[i]));
  return t;
}

int set_materialize_grads(PyObject* self, PyObject* value, void*) {
  if (!value || !PyBool_Check(value)) {
    PyErr_SetString(PyExc_TypeError, "set_materialize_grads(): argument 1 must be bool");
    return -1;
  }
  fn_of(self)->materialize_grads = value == Py_True;
  return 0;
}
PyObject* get_materialize_non_diff(PyObject* self, void*) {
  return PyBool_FromLong(fn_of(self)->materialize_non_diff_grads);
}
int set_materialize_non_diff(PyObject* self, PyObject* value, void*) {
  if (!value || !PyBool_Check(value)) {
    PyErr_SetString(PyExc_TypeError, "set_materialize_non_diff_grads(): argument 1 must be bool");
    return -1;
  }
  fn_of(self)->materialize_non_diff_grads = value == Py_True;
  return 0;
}

PyObject* get_next_functions(PyObject* self, void*) {
  TN_PY_TRY
  Node* n = live_node(self, "next_functions");
  Owned out(checked(PyTuple_New(static_cast<Py_ssize_t>(n->next.size()))));
  for (size_t i = 0; i < n->next.size(); ++i) {
    PyObject* fn = n->next[i] ? node_face(n->next[i].fn.get()) : Py_NewRef(Py_None);
    PyTuple_SET_ITEM(out.get(), static_cast<Py_ssize_t>(i),
                     checked(Py_BuildValue("(NI)", checked(fn), n->next[i].input_nr)));
  }
  return out.release();
  TN_PY_CATCH(nullptr)
}
PyObject* get_metadata(PyObject* self, void*) {
  TN_PY_TRY
  FunctionObject* f = fn_of(self);
  TN_CHECK(f->node, "You attempted to access the anomaly metadata of a custom autograd function "
           "but the underlying PyNode has already been deallocated.  The most likely reason this "
           "occurred is because you assigned x.grad_fn to a local variable and then let the "
           "original variable get deallocated.  Don't do that!  If you really have no way of "
           "restructuring your code so this is the case, please file an issue reporting that "
           "you are affected by this.");
  if (!f->metadata) f->metadata = checked(PyDict_New());
  return Py_NewRef(f->metadata);
  TN_PY_CATCH(nullptr)
}
PyObject* get_requires_grad(PyObject*, void*) { Py_RETURN_TRUE; }

// --- apply ------------------------------------------------------------------------------

PyObject* base_setup_context() {
  static PyObject* base = [] {
    Owned mod(PyImport_ImportModule("torch.autograd.function"));
    Owned cls(mod ? PyObject_GetAttrString(mod.get(), "_SingleLevelFunction") : nullptr);
    return cls ? PyObject_GetAttrString(cls.get(), "setup_context") : nullptr;
  }();
  return checked(base);
}

// kwargs placed at forward's parameter positions (upstream's resolve_kwargs_to_positional,
// from forward's code object: no *args, **kwargs or defaults).
PyObject* positional_args(PyObject* cls, PyObject* args, PyObject* kwargs, bool has_ctx) {
  if (!kwargs || PyDict_Size(kwargs) == 0) return Py_NewRef(args);
  Owned forward(checked(PyObject_GetAttrString(cls, "forward")));
  Owned code(checked(PyObject_GetAttrString(forward.get(), "__code__")));
  if (!PyCode_Check(code.get())) {
    PyErr_SetString(PyExc_TypeError, "forward().__code__ is not a code object");
    throw PythonErrorSet();
  }
  auto* co = reinterpret_cast<PyCodeObject*>(code.get());
  Py_ssize_t argc = co->co_argcount;
  Owned names(checked(PyCode_GetVarnames(co)));
  Py_ssize_t skip = has_ctx ? 1 : 0;
  Py_ssize_t npos = PyTuple_GET_SIZE(args);
  auto index_of = [&](PyObject* key) -> Py_ssize_t {
    for (Py_ssize_t i = skip; i < argc; ++i)
      if (PyUnicode_Compare(key, PyTuple_GET_ITEM(names.get(), i)) == 0) return i - skip;
    return -1;
  };
  Py_ssize_t last = npos - 1;
  PyObject *key, *value;
  Py_ssize_t pos = 0;
  while (PyDict_Next(kwargs, &pos, &key, &value)) {
    if (!PyUnicode_Check(key)) {
      PyErr_SetString(PyExc_TypeError, "keywords must be strings");
      throw PythonErrorSet();
    }
    Py_ssize_t i = index_of(key);
    if (i < 0) {
      PyErr_Format(PyExc_TypeError, "forward() got an unexpected keyword argument '%U'", key);
      throw PythonErrorSet();
    }
    if (i < npos) {
      PyErr_Format(PyExc_TypeError, "forward() got multiple values for argument '%U'", key);
      throw PythonErrorSet();
    }
    if (i > last) last = i;
  }
  Py_ssize_t total = last + 1;
  if (total > argc - skip) {
    PyErr_Format(PyExc_TypeError, "forward() takes %zd positional arguments but %zd were given",
                 argc - skip, total);
    throw PythonErrorSet();
  }
  Owned out(checked(PyTuple_New(total)));
  for (Py_ssize_t i = 0; i < npos; ++i)
    PyTuple_SET_ITEM(out.get(), i, Py_NewRef(PyTuple_GET_ITEM(args, i)));
  pos = 0;
  while (PyDict_Next(kwargs, &pos, &key, &value))
    PyTuple_SET_ITEM(out.get(), index_of(key), Py_NewRef(value));
  for (Py_ssize_t i = 0; i < total; ++i)
    if (!PyTuple_GET_ITEM(out.get(), i)) {
      PyErr_Format(PyExc_TypeError, "forward() missing required argument: '%U' (position %zd)",
                   PyTuple_GET_ITEM(names.get(), i + skip), i);
      throw PythonErrorSet();
    }
  return out.release();
}

// The tensors of a ctx tuple attribute (mark_dirty, mark_non_differentiable), by impl.
std::unordered_set<TensorImpl*> tensor_set(PyObject*& attr, const char* what) {
  std::unordered_set<TensorImpl*> set;
  if (!attr) return set;
  TN_CHECK(PyTuple_Check(attr), "autograd internal error: ", what, " attribute is expected to "
           "be a tuple but is ", Py_TYPE(attr)->tp_name);
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(attr); ++i) {
    PyObject* t = PyTuple_GET_ITEM(attr, i);
    if (!is_tensor(t)) {
      if (std::string(what) == "dirty_tensors")
        TN_FAIL(Runtime, "mark_dirty can only accept variables, but argument ", i,
                " is of type ", Py_TYPE(t)->tp_name);
      TN_FAIL(Runtime, "mark_non_differentiable only accepts variable arguments, but got ",
              Py_TYPE(t)->tp_name);
    }
    set.insert(impl_of(t));
  }
  Py_CLEAR(attr);
  return set;
}

Tensor view_as_self(const Tensor& t) {
  GradModeGuard off(false);
  return call_tensor("aten::view_as", {Value::of(t), Value::of(t)});
}

void set_edge(const Tensor& t, const Ptr<Node>& node, int output_nr) {
  t->set_requires_grad(true);
  AutogradMeta& m = t->ensure_autograd_meta();
  m.is_leaf = false;
  m.grad_fn = node;
  m.output_nr = output_nr;
  m.grad_accumulator = nullptr;
}

constexpr const char* kReturnedAsIs =
    "A input that has been returned as-is as output is being saved for backward. This is not "
    "supported if you override setup_context. You should return and save a view of the input "
    "instead, e.g. with x.view_as(x) or setup ctx inside the forward function itself.";

// Upstream's process_outputs and _wrap_outputs: each output gets its history.
PyObject* wrap_outputs(FunctionObject* ctx, const Ptr<Node>& node, PyObject* raw_output,
                       const std::unordered_set<TensorImpl*>& input_impls, bool executable,
                       bool overridden_setup_context) {
  FunctionState& st = *ctx->state;
  bool unpack = !PyTuple_Check(raw_output);
  Owned raw(unpack ? checked(PyTuple_Pack(1, raw_output)) : Py_NewRef(raw_output));
  Py_ssize_t n = PyTuple_GET_SIZE(raw.get());

  // What save_for_backward named, checked before the outputs are wrapped.
  std::vector<PyObject*> to_save;  // borrowed from `saving`
  std::unordered_set<TensorImpl*> saved_impls;
  Owned saving(ctx->to_save);
  ctx->to_save = nullptr;
  if (saving) {
    TN_CHECK(PyTuple_Check(saving.get()), "autograd internal error: to_save attribute is "
             "expected to be a tuple but is ", Py_TYPE(saving.get())->tp_name);
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(saving.get()); ++i) {
      PyObject* o = PyTuple_GET_ITEM(saving.get(), i);
      if (o != Py_None && !is_tensor(o)) {
        if (!executable) continue;
        TN_FAIL(Type, "save_for_backward can only save variables, but argument ", i,
                " is of type ", Py_TYPE(o)->tp_name);
      }
      if (o != Py_None && overridden_setup_context) saved_impls.insert(impl_of(o));
      to_save.push_back(o);
    }
  }
  if (ctx->saved_for_forward && overridden_setup_context && PyTuple_Check(ctx->saved_for_forward))
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(ctx->saved_for_forward); ++i) {
      PyObject* o = PyTuple_GET_ITEM(ctx->saved_for_forward, i);
      if (is_tensor(o)) saved_impls.insert(impl_of(o));
    }

  std::unordered_set<TensorImpl*> nondiff =
      tensor_set(ctx->non_differentiable, "non_differentiable");
  std::unordered_set<TensorImpl*> dirty = tensor_set(ctx->dirty_tensors, "dirty_tensors");
  for (TensorImpl* t : dirty) t->bump_version();

  Owned outputs(checked(PyTuple_New(n)));
  std::unordered_set<TensorImpl*> raw_impls;
  InputMeta undefined;
  undefined.undefined = true;
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* obj = PyTuple_GET_ITEM(raw.get(), i);
    int nr = static_cast<int>(i);
    if (!is_tensor(obj)) {
      if (executable) {
        node->inputs.push_back(undefined);
        st.output_info.push_back(undefined);
      }
      PyTuple_SET_ITEM(outputs.get(), i, Py_NewRef(obj));
      continue;
    }
    Tensor var(impl_of(obj));
    TensorImpl* impl = var.get();
    raw_impls.insert(impl);
    bool is_input = input_impls.count(impl) > 0;
    bool is_modified = dirty.count(impl) > 0;
    const ScalarTypeInfo& ti = info(var->dtype());
    bool differentiable = executable && !nondiff.count(impl) && (ti.is_floating || ti.is_complex);
    bool saved_and_setup = saved_impls.count(impl) > 0;
    if (executable) node->inputs.push_back(differentiable ? autograd::meta_of(*var) : undefined);
    if (!differentiable) {
      if (!var->requires_grad()) {
        if (is_input && !is_modified) {
          TN_CHECK(!saved_and_setup, kReturnedAsIs);
          var = view_as_self(var);
        }
      } else if (is_input) {
        var = call_tensor("aten::detach", {Value::of(var)});
      } else if (!var->view_base()) {
        AutogradMeta& m = var->ensure_autograd_meta();
        m.requires_grad = false;
        m.grad_fn = Ptr<RefCounted>();
        m.is_leaf = true;
        m.output_nr = 0;
      }
    } else if (is_modified) {
      TN_CHECK(!(var->is_leaf() && var->requires_grad()),
               "a leaf Variable that requires grad has been used in an in-place operation.");
      if (!is_input &&
          PyErr_WarnEx(PyExc_UserWarning, "Only input Tensors should be given to "
                       "ctx.mark_dirty(). If a Tensor is not an input, there is no need to pass "
                       "it to mark_dirty().", 1) != 0)
        throw PythonErrorSet();
      TN_CHECK(!(var->view_base() && n > 1),
               "If your Function modifies inplace an input that is a view of another Tensor, "
               "your Function cannot return more than one Tensor. This is not supported by the "
               "current autograd engine. You should either make sure the input is not a view "
               "(using .clone() for example) or make your Function only return one Tensor "
               "(potentially splitting it into two Functions: one doing the inplace that "
               "returns a single Tensor and a second one that does the other operations). You "
               "can ask on the forum https://discuss.pytorch.org/ if you need help to do this "
               "change.");
      TN_CHECK_KIND(!var->view_base(), NotImplemented,
                    "torchnative: ctx.mark_dirty of a view (upstream rebases the base's history "
                    "through CopySlices) is not implemented yet (autograd, issue 8)");
      var->ensure_autograd_meta().grad = Ptr<TensorImpl>();
      set_edge(var, node, nr);
    } else if (is_input) {
      TN_CHECK(!saved_and_setup, kReturnedAsIs);
      var = view_as_self(var);
      set_edge(var, node, nr);
    } else {
      set_edge(var, node, nr);
    }
    if (executable) st.output_info.push_back(autograd::meta_of(*var));
    PyTuple_SET_ITEM(outputs.get(), i, checked(wrap_tensor(var)));
  }
  for (TensorImpl* d : dirty)
    TN_CHECK(raw_impls.count(d), "Some elements marked as dirty during the forward method were "
             "not returned as output. The inputs that are modified inplace must all be outputs "
             "of the Function.");

  if (executable) {
    st.saved.clear();
    for (PyObject* o : to_save) {
      if (o == Py_None) {
        st.saved.emplace_back();
        continue;
      }
      TensorImpl* t = impl_of(o);
      int output_nr = -1;
      for (Py_ssize_t i = 0; i < n && output_nr < 0; ++i) {
        PyObject* out = PyTuple_GET_ITEM(outputs.get(), i);
        if (is_tensor(out) && impl_of(out) == t) output_nr = static_cast<int>(i);
      }
      st.saved.emplace_back(Tensor(t), output_nr >= 0, output_nr < 0 ? 0 : output_nr);
    }
  }
  Py_CLEAR(ctx->saved_for_forward);
  if (unpack) return Py_NewRef(PyTuple_GET_ITEM(outputs.get(), 0));
  return outputs.release();
}

PyTypeObject* g_function_type = nullptr;

// _FunctionBase.apply(cls, *args, **kwargs) (upstream's THPFunction_apply).
PyObject* fn_apply(PyObject* cls, PyObject* args, PyObject* kwargs) {
  TN_PY_TRY
  Owned cls_setup(checked(PyObject_GetAttrString(cls, "setup_context")));
  bool overridden = cls_setup.get() != base_setup_context();
  Owned inputs(positional_args(cls, args, kwargs, !overridden));
  Owned backward_cls(checked(PyObject_GetAttrString(cls, "_backward_cls")));
  Owned ctx_obj(checked(PyObject_CallNoArgs(backward_cls.get())));
  TN_CHECK_KIND(PyObject_TypeCheck(ctx_obj.get(), g_function_type), Type,
                "_backward_cls of ", reinterpret_cast<PyTypeObject*>(cls)->tp_name,
                " does not derive from torch._C._FunctionBase");
  FunctionObject* ctx = fn_of(ctx_obj.get());
  FunctionState& st = *ctx->state;
  Ptr<Node> node = make<PyFunctionNode>(ctx_obj.get());
  ctx->node = node.get();

  std::vector<Tensor> tensors;
  std::unordered_set<TensorImpl*> input_impls;
  bool any = false;
  Py_ssize_t nargs = PyTuple_GET_SIZE(inputs.get());
  for (Py_ssize_t i = 0; i < nargs; ++i) {
    PyObject* a = PyTuple_GET_ITEM(inputs.get(), i);
    bool t = is_tensor(a);
    st.is_tensor_input.push_back(t);
    bool rg = t && impl_of(a)->requires_grad();
    st.needs_input_grad.push_back(rg);
    any = any || rg;
    if (t) {
      tensors.emplace_back(impl_of(a));
      input_impls.insert(impl_of(a));
    }
  }
  bool executable = grad_mode_enabled() && any;
  if (executable)
    for (const Tensor& t : tensors) node->next.push_back(autograd::gradient_edge(t));
  Owned clear(checked(PyObject_GetAttrString(cls, "clear_saved_tensors_on_access")));
  TN_CHECK(PyBool_Check(clear.get()), "clear_saved_tensors_on_access must be a bool, got ",
           Py_TYPE(clear.get())->tp_name);
  ctx->clear_on_access = clear.get() == Py_True;

  Owned output;
  {
    GradModeGuard off(false);
    Owned forward(checked(PyObject_GetAttrString(cls, "forward")));
    if (overridden) {
      output.p = checked(PyObject_Call(forward.get(), inputs.get(), nullptr));
      Owned r(checked(PyObject_CallFunctionObjArgs(cls_setup.get(), ctx_obj.get(),
                                                   inputs.get(), output.get(), nullptr)));
    } else {
      Owned with_ctx(checked(PyTuple_New(nargs + 1)));
      PyTuple_SET_ITEM(with_ctx.get(), 0, Py_NewRef(ctx_obj.get()));
      for (Py_ssize_t i = 0; i < nargs; ++i)
        PyTuple_SET_ITEM(with_ctx.get(), i + 1, Py_NewRef(PyTuple_GET_ITEM(inputs.get(), i)));
      output.p = checked(PyObject_Call(forward.get(), with_ctx.get(), nullptr));
    }
  }
  return wrap_outputs(ctx, node, output.get(), input_impls, executable, overridden);
  TN_PY_CATCH(nullptr)
}

PyMethodDef kMethods[] = {
    {"apply", reinterpret_cast<PyCFunction>(fn_apply), METH_CLASS | METH_VARARGS | METH_KEYWORDS,
     nullptr},
    {"name", fn_name, METH_NOARGS, nullptr},
    {"_sequence_nr", fn_sequence_nr, METH_NOARGS, nullptr},
    {"register_hook", fn_register_hook, METH_O, nullptr},
    {"register_prehook", fn_register_prehook, METH_O, nullptr},
    {"_register_hook_dict", fn_register_hook_dict, METH_O, nullptr},
    {"maybe_clear_saved_tensors", fn_maybe_clear_saved, METH_NOARGS, nullptr},
    {nullptr, nullptr, 0, nullptr}};

PyGetSetDef kGetSet[] = {
    {"saved_tensors", get_saved_tensors, nullptr, nullptr, nullptr},
    {"saved_variables", get_saved_variables, nullptr, nullptr, nullptr},
    {"_raw_saved_tensors", get_raw_saved, nullptr, nullptr, nullptr},
    {"next_functions", get_next_functions, nullptr, nullptr, nullptr},
    {"to_save", get_field<&FunctionObject::to_save>, set_field<&FunctionObject::to_save>,
     nullptr, nullptr},
    {"non_differentiable", get_field<&FunctionObject::non_differentiable>,
     set_field<&FunctionObject::non_differentiable>, nullptr, nullptr},
    {"dirty_tensors", get_field<&FunctionObject::dirty_tensors>,
     set_field<&FunctionObject::dirty_tensors>, nullptr, nullptr},
    {"saved_for_forward", get_field<&FunctionObject::saved_for_forward>,
     set_field<&FunctionObject::saved_for_forward>, nullptr, nullptr},
    {"needs_input_grad", get_needs_input_grad, set_field<&FunctionObject::needs_input_grad>,
     nullptr, nullptr},
    {"requires_grad", get_requires_grad, nullptr, nullptr, nullptr},
    {"metadata", get_metadata, nullptr, nullptr, nullptr},
    {"materialize_grads", nullptr, set_materialize_grads, nullptr, nullptr},
    {"_materialize_non_diff_grads", get_materialize_non_diff, set_materialize_non_diff, nullptr,
     nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyMemberDef kMembers[] = {
    {"__dictoffset__", T_PYSSIZET, offsetof(FunctionObject, dict), READONLY, nullptr},
    {"__weaklistoffset__", T_PYSSIZET, offsetof(FunctionObject, weakrefs), READONLY, nullptr},
    {nullptr, 0, 0, 0, nullptr}};

// torch._C._functorch.unwrap_if_dead(t): no functorch wrapper exists here, so t itself.
PyObject* unwrap_if_dead(PyObject*, PyObject* t) { return Py_NewRef(t); }
PyMethodDef unwrap_if_dead_def = {"unwrap_if_dead", unwrap_if_dead, METH_O, nullptr};

}  // namespace

// A custom Function call's node, from its ctx (null for anything else, or once the node died).
Node* function_node_of(PyObject* ctx) {
  if (!g_function_type || !PyObject_TypeCheck(ctx, g_function_type)) return nullptr;
  return fn_of(ctx)->node;
}

bool init_autograd_function() {
  PyType_Slot slots[] = {{Py_tp_new, reinterpret_cast<void*>(fn_new)},
                         {Py_tp_dealloc, reinterpret_cast<void*>(fn_dealloc)},
                         {Py_tp_traverse, reinterpret_cast<void*>(fn_traverse)},
                         {Py_tp_clear, reinterpret_cast<void*>(fn_clear)},
                         {Py_tp_methods, kMethods},
                         {Py_tp_getset, kGetSet},
                         {Py_tp_members, kMembers},
                         {0, nullptr}};
  PyType_Spec spec = {"torch._C._FunctionBase", sizeof(FunctionObject), 0,
                      Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC, slots};
  g_function_type = reinterpret_cast<PyTypeObject*>(PyType_FromSpec(&spec));
  if (!g_function_type) return false;
  Py_INCREF(g_function_type);
  if (!add("torch._C", "_FunctionBase", reinterpret_cast<PyObject*>(g_function_type)))
    return false;
  PyObject* modname = PyUnicode_FromString("torch._C._functorch");
  PyObject* f = modname ? PyCFunction_NewEx(&unwrap_if_dead_def, nullptr, modname) : nullptr;
  Py_XDECREF(modname);
  return f && add("torch._C._functorch", "unwrap_if_dead", f);
}

}  // namespace tn::py
