// Module-level functions of torch._C that are not operators: _initExtension, _add_docstr, the
// torch-function protocol checks, default dtype. Operators come from the registry (ops.cpp).
#include "python/dtype.h"

#include <structmember.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "kernels/cpu/blas_loader.h"
#include "kernels/cpu/cpu_util.h"
#include "python/device.h"
#include "python/errors.h"
#include "python/init.h"
#include "python/tensor.h"

namespace tn::py {

PyObject* make_builtin(const PyMethodDef& proto, const char* name, PyObject* self);
bool export_legacy_types(PyObject* torch);  // legacy_types.cpp

namespace {

// _initExtension(shm_manager_path): writes dtypes & co. into torch and registers torch.Tensor.
PyObject* init_extension(PyObject*, PyObject*) {
  PyObject* torch = PyImport_ImportModule("torch");
  if (!torch) return nullptr;
  bool ok = export_dtypes(torch) && export_legacy_types(torch);
  PyObject* cls = ok ? PyObject_GetAttrString(torch, "Tensor") : nullptr;
  ok = cls && set_tensor_class(cls);
  Py_XDECREF(cls);
  Py_DECREF(torch);
  if (!ok) return nullptr;
  Py_RETURN_NONE;
}

// _add_docstr(obj, doc): sets the doc of a builtin function, method descriptor, getset/member
// descriptor or placeholder, as upstream's does (it refuses to replace an existing doc).
PyObject* add_docstr(PyObject*, PyObject* args) {
  PyObject* obj;
  PyObject* doc_obj;
  if (!PyArg_ParseTuple(args, "OO!:_add_docstr", &obj, &PyUnicode_Type, &doc_obj)) return nullptr;
  const char* doc = PyUnicode_AsUTF8(doc_obj);
  // Kept alive for the process: docs are attached once at import.
  Py_INCREF(doc_obj);
  if (PyCFunction_Check(obj)) {
    auto* f = reinterpret_cast<PyCFunctionObject*>(obj);
    if (f->m_ml->ml_doc && f->m_ml->ml_doc[0]) {
      PyErr_Format(PyExc_RuntimeError, "function '%s' already has a docstring",
                   f->m_ml->ml_name);
      return nullptr;
    }
    f->m_ml->ml_doc = doc;
  } else if (Py_TYPE(obj) == &PyMethodDescr_Type) {
    auto* m = reinterpret_cast<PyMethodDescrObject*>(obj);
    if (m->d_method->ml_doc && m->d_method->ml_doc[0]) {
      PyErr_Format(PyExc_RuntimeError, "method '%s' already has a docstring",
                   m->d_method->ml_name);
      return nullptr;
    }
    m->d_method->ml_doc = doc;
  } else if (Py_TYPE(obj) == &PyGetSetDescr_Type) {
    auto* g = reinterpret_cast<PyGetSetDescrObject*>(obj);
    if (g->d_getset->doc && g->d_getset->doc[0]) {
      PyErr_Format(PyExc_RuntimeError, "attribute '%s' already has a docstring",
                   g->d_getset->name);
      return nullptr;
    }
    g->d_getset->doc = doc;
  } else if (Py_TYPE(obj) == &PyMemberDescr_Type) {
    auto* m = reinterpret_cast<PyMemberDescrObject*>(obj);
    m->d_member->doc = doc;
  } else if (PyType_Check(obj)) {
    auto* t = reinterpret_cast<PyTypeObject*>(obj);
    if (t->tp_doc && t->tp_doc[0]) {
      PyErr_Format(PyExc_RuntimeError, "Type '%s' already has a docstring", t->tp_name);
      return nullptr;
    }
    // A heap type owns (and frees) its tp_doc: give it only __doc__.
    if (!(t->tp_flags & Py_TPFLAGS_HEAPTYPE)) t->tp_doc = doc;
    if (PyDict_SetItemString(t->tp_dict, "__doc__", doc_obj) != 0) return nullptr;
    PyType_Modified(t);
  } else if (PyObject_SetAttrString(obj, "__doc__", doc_obj) != 0) {
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError,
                 "don't know how to add docstring to type '%s'", Py_TYPE(obj)->tp_name);
    return nullptr;
  }
  return Py_NewRef(obj);
}

PyObject* get_default_dtype(PyObject*, PyObject*) {
  return Py_NewRef(dtype_object(default_dtype()));
}

PyObject* set_default_dtype_py(PyObject*, PyObject* arg) {
  if (!is_dtype(arg)) {
    PyErr_Format(PyExc_TypeError, "invalid dtype object: only floating-point types are supported "
                 "as the default type");
    return nullptr;
  }
  ScalarType t = dtype_of(arg);
  if (!is_floating(t)) {
    PyErr_Format(PyExc_TypeError,
                 "only floating-point types are supported as the default type");
    return nullptr;
  }
  set_default_dtype(t);
  Py_RETURN_NONE;
}

// Upstream returns a capsule of DLPack's C exchange table; we have none yet, and None (rather
// than a capsule pointing at nothing) tells a consumer so without a crash.
PyObject* dlpack_exchange_api(PyObject*, PyObject*) { Py_RETURN_NONE; }

// prctl(PR_SET_PDEATHSIG, signal): the child gets `signal` when its parent dies.
PyObject* prctl_pdeathsig(PyObject*, PyObject* arg) {
  long sig = PyLong_AsLong(arg);
  if (sig == -1 && PyErr_Occurred()) return nullptr;
  if (prctl(PR_SET_PDEATHSIG, sig) != 0) return PyErr_SetFromErrno(PyExc_OSError);
  Py_RETURN_NONE;
}
PyMethodDef prctl_def = {"_prctl_pr_set_pdeathsig", prctl_pdeathsig, METH_O, nullptr};

// _multiprocessing_init(): gives torch.multiprocessing its _prctl_pr_set_pdeathsig.
PyObject* multiprocessing_init(PyObject*, PyObject*) {
  PyObject* mp = PyImport_ImportModule("torch.multiprocessing");
  if (!mp) return nullptr;
  PyObject* f = make_builtin(prctl_def, prctl_def.ml_name, nullptr);
  int rc = PyObject_SetAttrString(mp, prctl_def.ml_name, f);
  Py_DECREF(f);
  Py_DECREF(mp);
  if (rc != 0) return nullptr;
  Py_RETURN_TRUE;
}

// Intra-op threads: set_num_threads sizes our kernels' OpenMP team (kernels/cpu/parallel.h reads
// the count at each parallel_for) and the BLAS's threads (MKL's GNU OpenMP layer, the same
// libgomp, or OpenBLAS's pool), as upstream sizes its OpenMP pool and MKL's. Default: the
// machine's cores.
int g_num_interop_threads = 0;

int hardware_threads() {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<int>(n) : 1;
}

PyObject* get_num_threads(PyObject*, PyObject*) {
  return PyLong_FromLong(tn::intra_op_threads());
}

PyObject* set_num_threads(PyObject*, PyObject* arg) {
  long n = PyLong_AsLong(arg);
  if (n == -1 && PyErr_Occurred()) return nullptr;
  if (n <= 0) {
    PyErr_SetString(PyExc_RuntimeError, "set_num_threads expects a positive integer");
    return nullptr;
  }
  tn::set_intra_op_threads(static_cast<int>(n));
  tn::blas().set_num_threads(static_cast<int>(n));
  Py_RETURN_NONE;
}

PyObject* get_num_interop_threads(PyObject*, PyObject*) {
  return PyLong_FromLong(g_num_interop_threads ? g_num_interop_threads : hardware_threads());
}

PyObject* set_num_interop_threads(PyObject*, PyObject* arg) {
  long n = PyLong_AsLong(arg);
  if (n == -1 && PyErr_Occurred()) return nullptr;
  if (n <= 0) {
    PyErr_SetString(PyExc_RuntimeError, "Expected positive number of threads");
    return nullptr;
  }
  g_num_interop_threads = static_cast<int>(n);
  Py_RETURN_NONE;
}

PyObject* init_num_threads(PyObject*, PyObject*) { Py_RETURN_NONE; }

// _get_default_device(): upstream's C++ default device is always the CPU (torch.device(...)
// contexts work at the Python mode level, not here).
PyObject* default_device(PyObject*, PyObject*) { return PyUnicode_FromString("cpu"); }

// _accelerator_getAccelerator(): the current accelerator's device type, None on a build without
// one (upstream's CPU wheel answers None; no back end of ours is an accelerator yet).
PyObject* get_accelerator(PyObject*, PyObject*) { Py_RETURN_NONE; }

// The privateuseone device keeps upstream's default name (no rename_privateuse1_backend).
PyObject* privateuse1_name(PyObject*, PyObject*) { return PyUnicode_FromString("privateuseone"); }

// _group_tensors_by_device_and_dtype(tensorlistlist, with_indices): the optimizers' and
// clip_grad_norm_'s grouping (upstream's _group_tensors_by_first_tensors_device_and_dtype).
// Index i goes to the group of the first list's i-th tensor's (device, dtype); every list's
// i-th entry (a Tensor or None; an empty list stays empty) joins that group, and a tensor of
// another list must share the key's device and dtype, except float32/float64 ones (optimizer
// steps, which may also be on the CPU) and bfloat16 ones (mixed-precision optimizer states). Returns {(device, dtype): (lists, indices)}, indices empty unless
// asked for. Groups come in order of first appearance; upstream's come in its hash map's order,
// which only shows when tensors of several dtypes or devices are grouped at once.
PyObject* group_tensors_by_device_and_dtype(PyObject*, PyObject* args) {
  PyObject* lists;
  int with_indices = 0;
  if (!PyArg_ParseTuple(args, "O|p:_group_tensors_by_device_and_dtype", &lists, &with_indices))
    return nullptr;
  PyObject* outer = PySequence_Fast(lists, "expected a list of lists of tensors");
  if (!outer) return nullptr;
  struct Holder {
    std::vector<PyObject*> refs;
    ~Holder() { for (PyObject* o : refs) Py_XDECREF(o); }
  } hold;
  hold.refs.push_back(outer);
  Py_ssize_t nlists = PySequence_Fast_GET_SIZE(outer);
  auto fail = [](const char* msg) -> PyObject* {
    PyErr_SetString(PyExc_RuntimeError, msg);
    return nullptr;
  };
  if (nlists == 0) return fail("Expected !nested_tensorlist.empty() to be true, but got false.");
  std::vector<PyObject*> inner(static_cast<size_t>(nlists));
  for (Py_ssize_t l = 0; l < nlists; ++l) {
    inner[l] = PySequence_Fast(PySequence_Fast_GET_ITEM(outer, l),
                               "expected a list of lists of tensors");
    if (!inner[l]) return nullptr;
    hold.refs.push_back(inner[l]);
  }
  Py_ssize_t n = PySequence_Fast_GET_SIZE(inner[0]);
  if (n == 0) return fail("Expected !nested_tensorlist[0].empty() to be true, but got false.");
  for (PyObject* l : inner) {
    Py_ssize_t m = PySequence_Fast_GET_SIZE(l);
    if (m != n && m != 0) return fail("Expected all tensorlists to have the same length");
  }
  auto tensor_at = [&](size_t l, Py_ssize_t i, TensorImpl** t) {
    PyObject* o = PySequence_Fast_GET_ITEM(inner[l], i);
    if (o == Py_None) {
      *t = nullptr;
      return true;
    }
    if (!is_tensor(o)) {
      PyErr_Format(PyExc_TypeError, "_group_tensors_by_device_and_dtype(): expected Tensor or "
                   "None, but got %s", Py_TYPE(o)->tp_name);
      return false;
    }
    *t = impl_of(o);
    return true;
  };
  struct Group {
    Device device;
    ScalarType dtype;
    std::vector<std::vector<PyObject*>> lists;  // borrowed from `inner`
    std::vector<Py_ssize_t> indices;
  };
  std::vector<Group> groups;
  for (Py_ssize_t i = 0; i < n; ++i) {
    TensorImpl* first;
    if (!tensor_at(0, i, &first)) return nullptr;
    if (!first)
      return PyErr_Format(PyExc_RuntimeError, "Tensors of the first list of nested Tensor lists "
                          "are supposed to be defined but the %zd-th Tensor is not.", i);
    Device dev = first->device();
    ScalarType dt = first->dtype();
    for (size_t l = 1; l < inner.size(); ++l) {
      if (PySequence_Fast_GET_SIZE(inner[l]) == 0) continue;
      TensorImpl* t;
      if (!tensor_at(l, i, &t)) return nullptr;
      if (!t) continue;
      ScalarType st = t->dtype();
      bool step = st == ScalarType::Float || st == ScalarType::Double;
      bool ok = t->device() == dev ? (st == dt || step || st == ScalarType::BFloat16)
                                   : (t->device().type == DeviceType::CPU && step);
      if (!ok)
        return fail("Tensors of the same index must be on the same device and the same dtype "
                    "except `step` tensors that can be CPU and float32/64, and optimizer states "
                    "that can be bfloat16 for mixed-precision training");
    }
    Group* g = nullptr;
    for (Group& c : groups)
      if (c.device == dev && c.dtype == dt) g = &c;
    if (!g) {
      groups.push_back({dev, dt, std::vector<std::vector<PyObject*>>(inner.size()), {}});
      g = &groups.back();
    }
    for (size_t l = 0; l < inner.size(); ++l)
      if (PySequence_Fast_GET_SIZE(inner[l]) != 0)
        g->lists[l].push_back(PySequence_Fast_GET_ITEM(inner[l], i));
    if (with_indices) g->indices.push_back(i);
  }
  PyObject* out = PyDict_New();
  if (!out) return nullptr;
  for (const Group& g : groups) {
    PyObject* dev = device_object(g.device);
    PyObject* key = dev ? PyTuple_Pack(2, dev, dtype_object(g.dtype)) : nullptr;
    Py_XDECREF(dev);
    PyObject* ls = PyList_New(static_cast<Py_ssize_t>(g.lists.size()));
    PyObject* idx = PyList_New(static_cast<Py_ssize_t>(g.indices.size()));
    bool ok = key && ls && idx;
    for (size_t l = 0; ok && l < g.lists.size(); ++l) {
      PyObject* one = PyList_New(static_cast<Py_ssize_t>(g.lists[l].size()));
      ok = one != nullptr;
      for (size_t k = 0; ok && k < g.lists[l].size(); ++k)
        PyList_SET_ITEM(one, k, Py_NewRef(g.lists[l][k]));
      if (ok) PyList_SET_ITEM(ls, l, one);
    }
    for (size_t k = 0; ok && k < g.indices.size(); ++k) {
      PyObject* v = PyLong_FromSsize_t(g.indices[k]);
      ok = v != nullptr;
      if (ok) PyList_SET_ITEM(idx, k, v);
    }
    PyObject* val = ok ? PyTuple_Pack(2, ls, idx) : nullptr;
    ok = val && PyDict_SetItem(out, key, val) == 0;
    Py_XDECREF(key);
    Py_XDECREF(ls);
    Py_XDECREF(idx);
    Py_XDECREF(val);
    if (!ok) {
      Py_DECREF(out);
      return nullptr;
    }
  }
  return out;
}

// _has_storage(tensor): whether the tensor has a storage to pickle (every tensor of ours does;
// upstream's sparse and nested tensors, which we have not, do not).
PyObject* has_storage(PyObject*, PyObject* arg) {
  if (!is_tensor(arg)) {
    PyErr_Format(PyExc_TypeError, "_has_storage(): expected a Tensor, got %s",
                 Py_TYPE(arg)->tp_name);
    return nullptr;
  }
  return PyBool_FromLong(impl_of(arg)->storage().get() != nullptr);
}

// _get_tensor_metadata(tensor): the math bits that are set ({"conj": True}, {"neg": True}), as
// upstream's getTensorMetadata; torch.save pickles them beside a tensor.
PyObject* get_tensor_metadata(PyObject*, PyObject* arg) {
  if (!is_tensor(arg)) {
    PyErr_Format(PyExc_TypeError, "_get_tensor_metadata(): expected a Tensor, got %s",
                 Py_TYPE(arg)->tp_name);
    return nullptr;
  }
  PyObject* d = PyDict_New();
  if (!d) return nullptr;
  TensorImpl* t = impl_of(arg);
  if ((t->is_conj() && PyDict_SetItemString(d, "conj", Py_True) < 0) ||
      (t->is_neg() && PyDict_SetItemString(d, "neg", Py_True) < 0)) {
    Py_DECREF(d);
    return nullptr;
  }
  return d;
}

// _set_tensor_metadata(tensor, dict): sets the bits the dict names (torch.load's rebuild).
PyObject* set_tensor_metadata(PyObject*, PyObject* args) {
  PyObject *t, *meta;
  if (!PyArg_ParseTuple(args, "OO!", &t, &PyDict_Type, &meta)) return nullptr;
  if (!is_tensor(t)) {
    PyErr_Format(PyExc_TypeError, "_set_tensor_metadata(): expected a Tensor, got %s",
                 Py_TYPE(t)->tp_name);
    return nullptr;
  }
  PyObject *key, *value;
  Py_ssize_t pos = 0;
  while (PyDict_Next(meta, &pos, &key, &value)) {
    int on = PyObject_IsTrue(value);
    if (on < 0) return nullptr;
    const char* k = PyUnicode_Check(key) ? PyUnicode_AsUTF8(key) : nullptr;
    if (k && std::strcmp(k, "conj") == 0) {
      if (on && !is_complex(impl_of(t)->dtype())) {
        PyErr_SetString(PyExc_RuntimeError, "_set_tensor_metadata: the conjugate bit can only "
                        "be set on complex tensors");
        return nullptr;
      }
      impl_of(t)->set_conj(on != 0);
    } else if (k && std::strcmp(k, "neg") == 0) {
      impl_of(t)->set_neg(on != 0);
    } else {
      PyErr_Format(PyExc_RuntimeError, "Unexpected key `%S` passed to setTensorMetadata.", key);
      return nullptr;
    }
  }
  Py_RETURN_NONE;
}

PyMethodDef kFunctions[] = {
    {"get_num_threads", get_num_threads, METH_NOARGS, nullptr},
    {"set_num_threads", set_num_threads, METH_O, nullptr},
    {"get_num_interop_threads", get_num_interop_threads, METH_NOARGS, nullptr},
    {"set_num_interop_threads", set_num_interop_threads, METH_O, nullptr},
    {"init_num_threads", init_num_threads, METH_NOARGS, nullptr},
    {"_get_privateuse1_backend_name", privateuse1_name, METH_NOARGS, nullptr},
    {"_get_default_device", default_device, METH_NOARGS, nullptr},
    {"_accelerator_getAccelerator", get_accelerator, METH_NOARGS, nullptr},
    {"_multiprocessing_init", multiprocessing_init, METH_NOARGS, nullptr},
    {"_dlpack_exchange_api", dlpack_exchange_api, METH_NOARGS, nullptr},
    {"_initExtension", init_extension, METH_O, nullptr},
    {"_add_docstr", add_docstr, METH_VARARGS, nullptr},
    {"get_default_dtype", get_default_dtype, METH_NOARGS, nullptr},
    {"_set_default_dtype", set_default_dtype_py, METH_O, nullptr},
    {"_group_tensors_by_device_and_dtype", group_tensors_by_device_and_dtype, METH_VARARGS,
     nullptr},
    {"_has_storage", has_storage, METH_O, nullptr},
    {"_get_tensor_metadata", get_tensor_metadata, METH_O, nullptr},
    {"_set_tensor_metadata", set_tensor_metadata, METH_VARARGS, nullptr},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

// Upstream binds these in torch._C._VariableFunctions too (torch.get_default_dtype is there).
const char* const kAlsoInVariableFunctions[] = {
    "get_default_dtype", "is_grad_enabled", "is_inference_mode_enabled", "get_num_threads",
    "set_num_threads", "get_num_interop_threads", "set_num_interop_threads", "init_num_threads"};

PyObject* linalg_error_type() {
  static PyObject* type = PyErr_NewExceptionWithDoc(
      "torch._C._LinAlgError",
      "Error raised by torch.linalg function when the cause of error is a numerical "
      "inconsistency in the data.", PyExc_RuntimeError, nullptr);
  return type;
}

bool init_functions() {
  PyObject* linalg_error = linalg_error_type();
  if (!linalg_error || !add("torch._C", "_LinAlgError", Py_NewRef(linalg_error))) return false;
  for (PyMethodDef* d = kFunctions; d->ml_name; ++d)
    if (!add("torch._C", d->ml_name, make_builtin(*d, d->ml_name, nullptr))) return false;
  for (const char* n : kAlsoInVariableFunctions) {
    PyObject* f = PyObject_GetAttrString(module("torch._C"), n);
    if (!f || !add("torch._C._VariableFunctions", n, f)) return false;
  }
  return true;
}

}  // namespace tn::py
