// The hand-written part of torch._C._distributed_c10d: what torch.distributed reads with real
// semantics at import and in one process (ReduceOp, DebugLevel, ProcessGroup.BackendType, the
// bucket constant). Every other name of the module is a placeholder of the surface that refuses
// by name; there is no backend and no store here (Note [torch.distributed in one process]).
#include <cctype>
#include <cstdlib>
#include <string>

#include "python/init.h"

namespace tn::py {

PyObject* make_builtin(const PyMethodDef& proto, const char* name, PyObject* self);

namespace {

constexpr const char* kC10d = "torch._C._distributed_c10d";

// Upstream's c10d::ReduceOp::RedOpType values (PREMUL_SUM is 8; UNUSED is not exposed).
const char* const kRedOps[] = {"SUM", "AVG", "PRODUCT", "MIN", "MAX",
                               "BAND", "BOR", "BXOR", "PREMUL_SUM"};
constexpr long kPremulSum = 8;
const char* const kDebugLevels[] = {"OFF", "INFO", "DETAIL"};
// ProcessGroup::BackendType, in upstream's declaration order (XCCL's value is 5).
const std::pair<const char*, int> kBackendTypes[] = {
    {"UNDEFINED", 0}, {"GLOO", 1}, {"NCCL", 2}, {"XCCL", 5}, {"UCC", 3}, {"MPI", 4},
    {"CUSTOM", 6}};

PyObject* g_red_op_type = nullptr;  // ReduceOp.RedOpType
PyObject* g_reduce_op = nullptr;    // ReduceOp
PyObject* g_debug_level = nullptr;  // DebugLevel
long g_level = 0;                   // c10d's process-wide debug level

// An int-valued enum that prints as upstream's bound enums do ("RedOpType.SUM", not "0").
// `members` is a list of (name, value) pairs, stolen.
PyObject* make_enum(const char* name, const char* qualname, PyObject* members) {
  PyObject* enum_mod = PyImport_ImportModule("enum");
  if (!enum_mod || !members) return nullptr;
  PyObject* factory = PyObject_GetAttrString(enum_mod, "IntEnum");
  PyObject* base = PyObject_GetAttrString(enum_mod, "Enum");
  Py_DECREF(enum_mod);
  PyObject* args = Py_BuildValue("(sN)", name, members);
  PyObject* kwargs = Py_BuildValue("{s:s,s:s}", "module", kC10d, "qualname", qualname);
  PyObject* cls = factory && base && args && kwargs ? PyObject_Call(factory, args, kwargs)
                                                    : nullptr;
  PyObject* str = cls ? PyObject_GetAttrString(base, "__str__") : nullptr;
  bool ok = str && PyObject_SetAttrString(cls, "__str__", str) == 0 &&
            PyObject_SetAttrString(cls, "__format__", str) == 0;
  Py_XDECREF(str);
  Py_XDECREF(factory);
  Py_XDECREF(base);
  Py_XDECREF(args);
  Py_XDECREF(kwargs);
  if (!ok) Py_CLEAR(cls);
  return cls;
}

PyObject* member(PyObject* enum_cls, long value) {
  return PyObject_CallFunction(enum_cls, "l", value);
}

// --- ReduceOp ------------------------------------------------------------------------------

bool is_red_op_type(PyObject* o) { return PyObject_TypeCheck(o, (PyTypeObject*)g_red_op_type); }

// ReduceOp(op: RedOpType); PREMUL_SUM needs a factor (_make_nccl_premul_sum), as upstream says.
PyObject* reduce_op_init(PyObject*, PyObject* args, PyObject* kwargs) {
  PyObject* self = nullptr;
  PyObject* op = nullptr;
  if (kwargs || !PyArg_ParseTuple(args, "O|O", &self, &op) || !op || !is_red_op_type(op)) {
    PyErr_Clear();
    PyErr_SetString(PyExc_TypeError,
                    "__init__(): incompatible constructor arguments. The following argument "
                    "types are supported:\n    1. torch._C._distributed_c10d.ReduceOp(arg0: "
                    "c10d::ReduceOp::RedOpType)\n");
    return nullptr;
  }
  if (PyLong_AsLong(op) == kPremulSum) {
    PyErr_SetString(PyExc_RuntimeError,
                    "op_ != PREMUL_SUM INTERNAL ASSERT FAILED: Use "
                    "`torch.distributed._make_nccl_premul_sum` to create an instance of "
                    "ReduceOp with PREMUL_SUM");
    return nullptr;
  }
  if (PyObject_SetAttrString(self, "op", op) != 0) return nullptr;
  Py_RETURN_NONE;
}

// The RedOpType of a ReduceOp or RedOpType, new reference; nullptr (no error) for others.
PyObject* op_of(PyObject* o) {
  if (is_red_op_type(o)) return Py_NewRef(o);
  if (!PyObject_TypeCheck(o, (PyTypeObject*)g_reduce_op)) return nullptr;
  return PyObject_GetAttrString(o, "op");
}

// ReduceOp == ReduceOp or RedOpType compares the ops (upstream's __eq__ overloads).
PyObject* reduce_op_eq(PyObject*, PyObject* args) {
  PyObject *self, *other;
  if (!PyArg_ParseTuple(args, "OO", &self, &other)) return nullptr;
  PyObject* a = op_of(self);
  PyObject* b = a ? op_of(other) : nullptr;
  if (PyErr_Occurred() || !a || !b) {
    Py_XDECREF(a);
    if (PyErr_Occurred()) return nullptr;
    Py_RETURN_NOTIMPLEMENTED;
  }
  PyObject* r = PyObject_RichCompare(a, b, Py_EQ);
  Py_DECREF(a);
  Py_DECREF(b);
  return r;
}

PyObject* reduce_op_hash(PyObject*, PyObject* args) {
  PyObject* self;
  if (!PyArg_ParseTuple(args, "O", &self)) return nullptr;
  PyObject* op = op_of(self);
  if (!op) return nullptr;
  Py_hash_t h = PyObject_Hash(op);
  Py_DECREF(op);
  return h == -1 ? nullptr : PyLong_FromSsize_t(h);
}

// _ReduceOpMeta.__instancecheck__: a RedOpType member counts as a ReduceOp, as upstream's does.
PyObject* meta_instancecheck(PyObject*, PyObject* args) {
  PyObject *cls, *obj;
  if (!PyArg_ParseTuple(args, "OO", &cls, &obj)) return nullptr;
  if (is_red_op_type(obj)) Py_RETURN_TRUE;
  return PyBool_FromLong(PyObject_TypeCheck(obj, (PyTypeObject*)cls));
}

PyMethodDef kReduceOpInit = {"__init__", reinterpret_cast<PyCFunction>(reduce_op_init),
                             METH_VARARGS | METH_KEYWORDS, nullptr};
PyMethodDef kReduceOpEq = {"__eq__", reduce_op_eq, METH_VARARGS, nullptr};
PyMethodDef kReduceOpHash = {"__hash__", reduce_op_hash, METH_VARARGS, nullptr};
PyMethodDef kInstanceCheck = {"__instancecheck__", meta_instancecheck, METH_VARARGS, nullptr};

// Puts a function into a class dict as a method (bound to the instance it is read from).
bool set_method(PyObject* dict, const PyMethodDef& def) {
  PyObject* f = make_builtin(def, def.ml_name, nullptr);
  PyObject* m = f ? PyInstanceMethod_New(f) : nullptr;
  Py_XDECREF(f);
  int rc = m ? PyDict_SetItemString(dict, def.ml_name, m) : -1;
  Py_XDECREF(m);
  return rc == 0;
}

// Builds ReduceOp (a heap class, so the tree can rewrite its __module__) with its metaclass.
PyObject* make_reduce_op() {
  PyObject* meta_dict = Py_BuildValue("{s:s}", "__module__", kC10d);
  if (!meta_dict || !set_method(meta_dict, kInstanceCheck)) return nullptr;
  PyObject* meta = PyObject_CallFunction((PyObject*)&PyType_Type, "s(O)N", "_ReduceOpMeta",
                                         (PyObject*)&PyType_Type, meta_dict);
  if (!meta || PyModule_AddObjectRef(module(kC10d), "_ReduceOpMeta", meta) != 0) return nullptr;
  PyObject* dict = Py_BuildValue("{s:s,s:O}", "__module__", kC10d, "RedOpType", g_red_op_type);
  bool ok = dict && set_method(dict, kReduceOpInit) && set_method(dict, kReduceOpEq) &&
            set_method(dict, kReduceOpHash);
  for (size_t i = 0; ok && i < sizeof(kRedOps) / sizeof(kRedOps[0]); ++i) {
    PyObject* m = member(g_red_op_type, static_cast<long>(i));
    ok = m && PyDict_SetItemString(dict, kRedOps[i], m) == 0;
    Py_XDECREF(m);
  }
  PyObject* cls = ok ? PyObject_CallFunction(meta, "s(O)O", "ReduceOp",
                                             (PyObject*)&PyBaseObject_Type, dict)
                     : nullptr;
  Py_XDECREF(dict);
  Py_DECREF(meta);
  return cls;
}

// --- debug level ---------------------------------------------------------------------------

PyObject* get_debug_level(PyObject*, PyObject*) { return member(g_debug_level, g_level); }

PyObject* set_debug_level(PyObject*, PyObject* level) {
  if (!PyObject_TypeCheck(level, (PyTypeObject*)g_debug_level)) {
    PyErr_SetString(PyExc_TypeError,
                    "set_debug_level(): incompatible function arguments. The following argument "
                    "types are supported:\n    1. (arg0: torch._C._distributed_c10d.DebugLevel)"
                    " -> None\n");
    return nullptr;
  }
  g_level = PyLong_AsLong(level);
  Py_RETURN_NONE;
}

// Reads TORCH_DISTRIBUTED_DEBUG (OFF, INFO or DETAIL, any case), as c10d does at import.
PyObject* set_debug_level_from_env(PyObject*, PyObject*) {
  const char* env = std::getenv("TORCH_DISTRIBUTED_DEBUG");
  if (!env) {
    g_level = 0;
    Py_RETURN_NONE;
  }
  std::string v = env;
  for (char& c : v) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (long i = 0; i < 3; ++i) {
    if (v == kDebugLevels[i]) {
      g_level = i;
      Py_RETURN_NONE;
    }
  }
  PyErr_SetString(PyExc_ValueError,
                  "The value of TORCH_DISTRIBUTED_DEBUG must be OFF, INFO, or DETAIL.");
  return nullptr;
}

const PyMethodDef kFunctions[] = {
    {"get_debug_level", get_debug_level, METH_NOARGS, nullptr},
    {"set_debug_level", set_debug_level, METH_O, nullptr},
    {"set_debug_level_from_env", set_debug_level_from_env, METH_NOARGS, nullptr},
};

PyObject* pairs(const char* const* names, size_t n) {
  PyObject* list = PyList_New(0);
  for (size_t i = 0; list && i < n; ++i) {
    PyObject* p = Py_BuildValue("(sn)", names[i], static_cast<Py_ssize_t>(i));
    if (!p || PyList_Append(list, p) != 0) Py_CLEAR(list);
    Py_XDECREF(p);
  }
  return list;
}

}  // namespace

PyObject* opaque_base_meta() {
  // _C loaded alone (tests of the bare surface) has no torch package to import it from.
  if (!PyDict_GetItemString(PyImport_GetModuleDict(), "torch"))
    return Py_NewRef(reinterpret_cast<PyObject*>(&PyType_Type));
  PyObject* base = PyImport_ImportModule("torch._opaque_base");
  PyObject* meta = base ? PyObject_GetAttrString(base, "OpaqueBaseMeta") : nullptr;
  Py_XDECREF(base);
  return meta;
}

bool init_distributed() {
  if (!module(kC10d)) return false;
  g_red_op_type = make_enum("RedOpType", "ReduceOp.RedOpType", pairs(kRedOps, 9));
  g_debug_level = make_enum("DebugLevel", "DebugLevel", pairs(kDebugLevels, 3));
  if (!g_red_op_type || !g_debug_level) return false;
  g_reduce_op = make_reduce_op();
  if (!g_reduce_op || !add(kC10d, "ReduceOp", Py_NewRef(g_reduce_op)) ||
      !add(kC10d, "DebugLevel", Py_NewRef(g_debug_level)))
    return false;
  for (const PyMethodDef& d : kFunctions)
    if (!add(kC10d, d.ml_name, make_builtin(d, d.ml_name, nullptr))) return false;
  // c10d's first DDP bucket cap (dist::kDefaultFirstBucketBytes, 1 MiB).
  return add(kC10d, "_DEFAULT_FIRST_BUCKET_BYTES", PyLong_FromLong(1024 * 1024));
}

// Upstream binds ProcessGroup with the tree's torch._opaque_base.OpaqueBaseMeta as metaclass
// (register_opaque_type requires it); our placeholder class gets it by __class__ assignment,
// as both metaclasses are plain subclasses of type.
bool adopt_opaque_meta() {
  static const std::pair<const char*, const char*> kOpaque[] = {{kC10d, "ProcessGroup"}};
  PyObject* meta = opaque_base_meta();
  if (meta == reinterpret_cast<PyObject*>(&PyType_Type)) {  // no torch package: keep ours
    Py_DECREF(meta);
    return true;
  }
  bool ok = meta != nullptr;
  for (const auto& [mod, name] : kOpaque) {
    PyObject* cls = ok ? PyObject_GetAttrString(module(mod), name) : nullptr;
    ok = cls && PyObject_SetAttrString(cls, "__class__", meta) == 0;
    Py_XDECREF(cls);
  }
  Py_XDECREF(meta);
  return ok;
}

// After the placeholders: ProcessGroup is a placeholder class; its BackendType enum is real.
bool init_distributed_late() {
  if (!adopt_opaque_meta()) return false;
  // The stubs declare ReduceOp.UNUSED; upstream does not bind it, so the surface's placeholder
  // for it goes.
  if (PyObject_HasAttrString(g_reduce_op, "UNUSED") &&
      PyObject_DelAttrString(g_reduce_op, "UNUSED") != 0)
    return false;
  PyObject* pg = PyObject_GetAttrString(module(kC10d), "ProcessGroup");
  if (!pg) return false;
  PyObject* list = PyList_New(0);
  for (const auto& [name, value] : kBackendTypes) {
    PyObject* p = Py_BuildValue("(si)", name, value);
    if (!list || !p || PyList_Append(list, p) != 0) Py_CLEAR(list);
    Py_XDECREF(p);
  }
  PyObject* bt = make_enum("BackendType", "ProcessGroup.BackendType", list);
  int rc = bt ? PyObject_SetAttrString(pg, "BackendType", bt) : -1;
  Py_XDECREF(bt);
  Py_DECREF(pg);
  return rc == 0;
}

}  // namespace tn::py
