// torch.library's Python kernels in the door (docs/ARCHITECTURE.md, "Python kernels"), and the
// pieces of the dispatcher's Python face they stand on:
// - Library.impl(name, fn, key) puts fn in the op's slot for key (library.cpp calls
//   python_kernel_slot and the door's override_kernel); the door calls it like any kernel, with
//   the call's arguments as upstream boxes them (and, with_keyset, the call's DispatchKeySet
//   first), and reads its results back by the schema;
// - OpOverload.redispatch(keyset, *args) -> _DispatchOperatorHandle.redispatch_boxed: the door
//   on that key set (custom_op's Autograd and ADInplaceOrView kernels call the rest this way);
// - the thread's key guards (_AutoDispatchBelowAutograd, _ExcludeDispatchKeyGuard, ...) and
//   _dispatch_key_for_device, _dispatch_keys, _after_autograd_keyset.
#include <cstring>
#include <string>
#include <vector>

#include "autograd/grad_mode.h"
#include "core/backend.h"
#include "python/binder.h"
#include "python/dispatch_mode.h"
#include "python/errors.h"
#include "python/init.h"
#include "python/py_kernel.h"
#include "python/tensor.h"

namespace tn::py {

PyObject* make_builtin(const PyMethodDef& proto, const char* name, PyObject* self);

bool python_kernel_slot(const std::string& key, KernelSlot* slot) {
  if (key == "CompositeImplicitAutograd") {
    *slot = KernelSlot::CompositeImplicit;
    return true;
  }
  if (key == "CompositeExplicitAutograd" || key == "CompositeExplicitAutogradNonFunctional") {
    *slot = KernelSlot::CompositeExplicit;
    return true;
  }
  if (key == "Python") {
    *slot = KernelSlot::Python;
    return true;
  }
  if (key == "ADInplaceOrView") {
    *slot = KernelSlot::ADInplaceOrView;
    return true;
  }
  // One Autograd key serves every back end here (upstream has one per back end).
  if (key == "Autograd" || key == "AutogradOther" || key == "AutogradFunctionality") {
    *slot = KernelSlot::Autograd;
    return true;
  }
  for (int d = 0; d < kNumDeviceTypes; ++d) {
    const char* name = dispatch_key_name(static_cast<DispatchKey>(d));
    if (key == name) {
      *slot = static_cast<KernelSlot>(d);
      return true;
    }
    if (key.compare(0, 8, "Autograd") == 0 && key.substr(8) == name) {
      *slot = KernelSlot::Autograd;
      return true;
    }
  }
  return false;
}

namespace {

// The door's kernel for a Python callable (its context is the PyKernel).
void run_python_kernel(Call& call) {
  const auto* k = static_cast<const PyKernel*>(call.context);
  Gil gil;
  PyObject *args = nullptr, *kwargs = nullptr;
  if (!python_args(call, &args, &kwargs)) throw PythonErrorSet();
  if (k->with_keyset) {
    // The keys from the running one down, as upstream passes them (the kernel masks them with
    // _after_autograd_keyset or the like before it redispatches).
    KeySet here = static_cast<KeySet>(call.keys & (keys_below(call.running) |
                                                   key_bit(call.running)));
    PyObject* ks = keyset_object(here);
    if (!ks) {
      Py_DECREF(args);
      Py_DECREF(kwargs);
      throw PythonErrorSet();
    }
    Py_ssize_t n = PyTuple_GET_SIZE(args);
    PyObject* with = PyTuple_New(n + 1);
    PyTuple_SET_ITEM(with, 0, ks);
    for (Py_ssize_t i = 0; i < n; ++i)
      PyTuple_SET_ITEM(with, i + 1, Py_NewRef(PyTuple_GET_ITEM(args, i)));
    Py_DECREF(args);
    args = with;
  }
  PyObject* r = PyObject_Call(k->fn, args, kwargs);
  Py_DECREF(args);
  Py_DECREF(kwargs);
  if (!r) throw PythonErrorSet();
  struct Drop {
    PyObject* o;
    ~Drop() { Py_DECREF(o); }
  } drop{r};
  take_python_results(call, r, "the Python kernel");
}

// --- _DispatchOperatorHandle -----------------------------------------------------------

struct HandleObject {
  PyObject_HEAD
  int op;
};

extern PyTypeObject HandleType;

// One overload list per op, for the binder (kept for the process, as op objects are).
const std::vector<Overload>& only(int op) {
  static std::vector<std::vector<Overload>*> lists;
  if (lists.size() <= static_cast<size_t>(op)) lists.resize(all_ops().size() + 64, nullptr);
  if (!lists[op]) lists[op] = new std::vector<Overload>{{op, -1}};
  return *lists[op];
}

// redispatch_boxed(keyset, *args, **kwargs): binds by the schema's names and runs the door on
// keyset (ours: its keys this core has), not on the tensors' and the thread's.
PyObject* handle_redispatch(PyObject* self, PyObject* const* args, size_t nargsf,
                            PyObject* kwnames) {
  Py_ssize_t n = PyVectorcall_NARGS(nargsf);
  if (n < 1) {
    PyErr_SetString(PyExc_TypeError, "redispatch_boxed(keyset, *args, **kwargs)");
    return nullptr;
  }
  KeySet keys = 0;
  if (!keyset_of(args[0], &keys)) return nullptr;
  int op = reinterpret_cast<HandleObject*>(self)->op;
  return call_overloads(all_ops()[op].name, only(op), nullptr, args + 1, n - 1, kwnames, true,
                        &keys);
}

PyObject* handle_schema(PyObject* self, PyObject*) {
  const OpInfo& info = all_ops()[reinterpret_cast<HandleObject*>(self)->op];
  std::string q = std::string(info.ns) + "::" + info.name;
  return PyObject_CallMethod(module("torch._C"), "_get_schema", "ss", q.c_str(), info.overload);
}

PyObject* handle_debug(PyObject* self, PyObject*) {
  return PyUnicode_FromString(op_key_ref(reinterpret_cast<HandleObject*>(self)->op).c_str());
}

PyMethodDef handle_methods[] = {
    {"redispatch_boxed", reinterpret_cast<PyCFunction>(handle_redispatch),
     METH_FASTCALL | METH_KEYWORDS, nullptr},
    {"schema", handle_schema, METH_NOARGS, nullptr},
    {"debug", handle_debug, METH_NOARGS, nullptr},
    {nullptr, nullptr, 0, nullptr}};

PyTypeObject HandleType = [] {
  PyTypeObject t{PyVarObject_HEAD_INIT(nullptr, 0)};
  t.tp_name = "torch._C._DispatchOperatorHandle";
  t.tp_basicsize = sizeof(HandleObject);
  t.tp_flags = Py_TPFLAGS_DEFAULT;
  t.tp_methods = handle_methods;
  return t;
}();

// _dispatch_find_schema_or_throw(name, overload_name)
PyObject* find_schema_or_throw(PyObject*, PyObject* args) {
  const char* q;
  const char* overload;
  if (!PyArg_ParseTuple(args, "ss:_dispatch_find_schema_or_throw", &q, &overload)) return nullptr;
  std::string qual = q;
  size_t sep = qual.find("::");
  int op = sep == std::string::npos
               ? -1
               : find_op(qual.substr(0, sep), qual.substr(sep + 2),
                         std::strcmp(overload, "default") == 0 ? "" : overload);
  if (op < 0) {
    PyErr_Format(PyExc_RuntimeError, "Could not find schema for %s.%s", q, overload);
    return nullptr;
  }
  auto* h = PyObject_New(HandleObject, &HandleType);
  if (h) h->op = op;
  return reinterpret_cast<PyObject*>(h);
}

// --- the thread's key guards -----------------------------------------------------------

// A context manager over the thread's keys: on entry excludes `exclude` and includes
// `include`; on exit puts back what was there.
struct GuardObject {
  PyObject_HEAD
  KeySet exclude;
  KeySet include;
  LocalKeys saved;
  bool entered;
};

PyObject* guard_enter(PyObject* self, PyObject*) {
  auto* g = reinterpret_cast<GuardObject*>(self);
  LocalKeys& local = local_keys();
  g->saved = local;
  g->entered = true;
  local.excluded |= g->exclude;
  local.included |= g->include;
  Py_RETURN_NONE;
}

PyObject* guard_exit(PyObject* self, PyObject*) {
  auto* g = reinterpret_cast<GuardObject*>(self);
  if (g->entered) local_keys() = g->saved;
  g->entered = false;
  Py_RETURN_NONE;
}

PyMethodDef guard_methods[] = {{"__enter__", guard_enter, METH_NOARGS, nullptr},
                               {"__exit__", guard_exit, METH_VARARGS, nullptr},
                               {nullptr, nullptr, 0, nullptr}};

constexpr KeySet kAutograd = key_bit(DispatchKey::Autograd);
constexpr KeySet kBelowView = key_bit(DispatchKey::Autograd) |
                              key_bit(DispatchKey::ADInplaceOrView);

template <KeySet Exclude>
PyObject* fixed_guard_new(PyTypeObject* type, PyObject*, PyObject*) {
  auto* g = reinterpret_cast<GuardObject*>(type->tp_alloc(type, 0));
  if (g) {
    g->exclude = Exclude;
    g->include = 0;
  }
  return reinterpret_cast<PyObject*>(g);
}

// _ExcludeDispatchKeyGuard(keyset) / _IncludeDispatchKeyGuard(key)
template <bool Exclude>
PyObject* keyed_guard_new(PyTypeObject* type, PyObject* args, PyObject*) {
  PyObject* k;
  if (!PyArg_ParseTuple(args, "O", &k)) return nullptr;
  KeySet ks = 0;
  if (!keyset_of(k, &ks)) return nullptr;
  auto* g = reinterpret_cast<GuardObject*>(type->tp_alloc(type, 0));
  if (g) {
    g->exclude = Exclude ? ks : 0;
    g->include = Exclude ? 0 : ks;
  }
  return reinterpret_cast<PyObject*>(g);
}

PyTypeObject make_guard(const char* name, newfunc fn) {
  PyTypeObject t{PyVarObject_HEAD_INIT(nullptr, 0)};
  t.tp_name = name;
  t.tp_basicsize = sizeof(GuardObject);
  t.tp_flags = Py_TPFLAGS_DEFAULT;
  t.tp_new = fn;
  t.tp_methods = guard_methods;
  return t;
}

PyTypeObject BelowAutogradType =
    make_guard("torch._C._AutoDispatchBelowAutograd", fixed_guard_new<kAutograd>);
PyTypeObject BelowViewType =
    make_guard("torch._C._AutoDispatchBelowADInplaceOrView", fixed_guard_new<kBelowView>);
PyTypeObject ExcludeGuardType =
    make_guard("torch._C._ExcludeDispatchKeyGuard", keyed_guard_new<true>);
PyTypeObject IncludeGuardType =
    make_guard("torch._C._IncludeDispatchKeyGuard", keyed_guard_new<false>);

// --- functions ---------------------------------------------------------------------------

// _dispatch_key_for_device("cpu") -> "CPU": the device table's key name; another device type
// upstream knows gets upstream's key name (no back end here has it).
PyObject* key_for_device(PyObject*, PyObject* arg) {
  const char* type = PyUnicode_AsUTF8(arg);
  if (!type) return nullptr;
  for (int d = 0; d < kNumDeviceTypes; ++d)
    if (std::strcmp(device_type_name(static_cast<DeviceType>(d)), type) == 0)
      return PyUnicode_FromString(dispatch_key_name(static_cast<DispatchKey>(d)));
  static const char* const kOthers[][2] = {
      {"cuda", "CUDA"}, {"hip", "HIP"}, {"xla", "XLA"}, {"mps", "MPS"}, {"ipu", "IPU"},
      {"xpu", "XPU"}, {"hpu", "HPU"}, {"ve", "VE"}, {"lazy", "Lazy"}, {"mtia", "MTIA"},
      {"maia", "MAIA"}, {"fpga", "FPGA"}, {"vulkan", "Vulkan"}};
  for (const auto& row : kOthers)
    if (std::strcmp(row[0], type) == 0) return PyUnicode_FromString(row[1]);
  PyErr_Format(PyExc_RuntimeError, "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, "
               "ideep, hip, ve, fpga, maia, xla, lazy, vulkan, mps, meta, hpu, mtia, "
               "privateuseone device type at start of device string: %s", type);
  return nullptr;
}

// _dispatch_keys(tensor): the keys its calls dispatch on. As upstream's, every tensor shows
// ADInplaceOrView and its back end's Autograd key (ours enters Autograd only while it requires
// grad: the layer has nothing to do otherwise).
PyObject* tensor_keys(PyObject*, PyObject* arg) {
  if (!is_tensor(arg)) {
    PyErr_SetString(PyExc_TypeError, "_dispatch_keys(): expected a Tensor");
    return nullptr;
  }
  TensorImpl* t = impl_of(arg);
  KeySet ks = static_cast<KeySet>(t->key_set() | key_bit(backend_key(t->device().type)) |
                                  key_bit(DispatchKey::ADInplaceOrView) |
                                  key_bit(DispatchKey::Autograd));
  return keyset_object(ks);
}

bool any_requires_grad_in(PyObject* o) {
  if (is_tensor(o)) return impl_of(o)->requires_grad();
  if (PyTuple_Check(o) || PyList_Check(o)) {
    PyObject* seq = PySequence_Fast(o, "");
    bool any = false;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq) && !any; ++i)
      any = any_requires_grad_in(PySequence_Fast_GET_ITEM(seq, i));
    Py_DECREF(seq);
    return any;
  }
  return false;
}

// _any_requires_grad(*args, **kwargs): a tensor among them (or in their lists) requires grad.
PyObject* any_requires_grad(PyObject*, PyObject* args, PyObject* kwargs) {
  if (any_requires_grad_in(args)) Py_RETURN_TRUE;
  if (kwargs) {
    PyObject *k, *v;
    Py_ssize_t pos = 0;
    while (PyDict_Next(kwargs, &pos, &k, &v))
      if (any_requires_grad_in(v)) Py_RETURN_TRUE;
  }
  Py_RETURN_FALSE;
}

// The storages of the tensors in o: a tensor, or a list of tensors (one level, as upstream's).
void storages_of(PyObject* o, std::vector<const StorageImpl*>& out) {
  if (is_tensor(o)) {
    out.push_back(impl_of(o)->storage().get());
  } else if (PyList_Check(o)) {
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(o); ++i)
      if (is_tensor(PyList_GET_ITEM(o, i)))
        out.push_back(impl_of(PyList_GET_ITEM(o, i))->storage().get());
  }
}

bool contains(const std::vector<const StorageImpl*>& v, const StorageImpl* s) {
  for (const StorageImpl* x : v)
    if (x == s) return true;
  return false;
}

// _any_output_is_alias_to_input_or_output(args, kwargs, outputs): does a tensor of the outputs
// tuple share a storage with an input (args' and kwargs' tensors and tensor lists) or with
// another output? (custom_op's check that a kernel returned fresh tensors.)
PyObject* any_output_aliases(PyObject*, PyObject* args) {
  PyObject *in_args, *in_kwargs, *outputs;
  if (!PyArg_ParseTuple(args, "OOO", &in_args, &in_kwargs, &outputs)) return nullptr;
  std::vector<const StorageImpl*> inputs;
  if (PyTuple_Check(in_args))
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(in_args); ++i)
      storages_of(PyTuple_GET_ITEM(in_args, i), inputs);
  if (PyDict_Check(in_kwargs)) {
    PyObject *k, *v;
    Py_ssize_t pos = 0;
    while (PyDict_Next(in_kwargs, &pos, &k, &v)) storages_of(v, inputs);
  }
  if (!PyTuple_Check(outputs)) Py_RETURN_FALSE;
  std::vector<const StorageImpl*> outs;
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(outputs); ++i) {
    std::vector<const StorageImpl*> these;
    storages_of(PyTuple_GET_ITEM(outputs, i), these);
    for (const StorageImpl* s : these) {
      if (contains(inputs, s) || contains(outs, s)) Py_RETURN_TRUE;
      outs.push_back(s);
    }
  }
  Py_RETURN_FALSE;
}

// _increment_version(tensors): one version bump for each tensor of the sequence. Upstream's
// takes a list, and a tensor passed instead is read as the list of its rows (views sharing its
// version counter): a bump per row.
PyObject* increment_version(PyObject*, PyObject* arg) {
  if (is_tensor(arg) && impl_of(arg)->dim() > 0) {
    for (int64_t i = 0; i < impl_of(arg)->sizes()[0]; ++i) impl_of(arg)->bump_version();
    Py_RETURN_NONE;
  }
  constexpr const char* kWant = "increment_version expect a Iterable[Tensor] as input";
  PyObject* seq = is_tensor(arg) ? nullptr : PySequence_Fast(arg, kWant);
  if (!seq) {
    PyErr_SetString(PyExc_RuntimeError, kWant);
    return nullptr;
  }
  for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); ++i)
    if (!is_tensor(PySequence_Fast_GET_ITEM(seq, i))) {
      Py_DECREF(seq);
      PyErr_SetString(PyExc_RuntimeError, kWant);
      return nullptr;
    }
  for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); ++i)
    impl_of(PySequence_Fast_GET_ITEM(seq, i))->bump_version();
  Py_DECREF(seq);
  Py_RETURN_NONE;
}

PyMethodDef kFunctions[] = {
    {"_any_output_is_alias_to_input_or_output", any_output_aliases, METH_VARARGS, nullptr},
    {"_increment_version", increment_version, METH_O, nullptr},
    {"_dispatch_find_schema_or_throw", find_schema_or_throw, METH_VARARGS, nullptr},
    {"_dispatch_key_for_device", key_for_device, METH_O, nullptr},
    {"_dispatch_keys", tensor_keys, METH_O, nullptr},
    {"_any_requires_grad", reinterpret_cast<PyCFunction>(any_requires_grad),
     METH_VARARGS | METH_KEYWORDS, nullptr},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

Kernel python_kernel(const PyKernel* k) {
  Kernel kernel;
  kernel.fn = run_python_kernel;
  kernel.context = k;
  return kernel;
}

bool init_py_kernels() {
  PyTypeObject* types[] = {&HandleType, &BelowAutogradType, &BelowViewType, &ExcludeGuardType,
                           &IncludeGuardType};
  for (PyTypeObject* t : types) {
    if (PyType_Ready(t) != 0) return false;
    const char* dot = std::strrchr(t->tp_name, '.');
    if (!add("torch._C", dot + 1, Py_NewRef(reinterpret_cast<PyObject*>(t)))) return false;
  }
  for (PyMethodDef* d = kFunctions; d->ml_name; ++d)
    if (!add("torch._C", d->ml_name, make_builtin(*d, d->ml_name, nullptr))) return false;
  return true;
}

}  // namespace tn::py
