// torch._C._distributed: DTensor's placement values (Placement, Shard, StridedShard, Replicate,
// Partial) that torch.distributed.tensor subclasses and builds at import. Plain values with
// upstream's equality, read-only fields and pickling state; no communication happens here.
#include "python/init.h"

namespace tn::py {
namespace {

constexpr const char* kModule = "torch._C._distributed";

struct PlacementObject {
  PyObject_HEAD
  long dim;            // Shard, StridedShard
  long split_factor;   // StridedShard
  PyObject* reduce_op;  // Partial (a str)
};

extern PyTypeObject PlacementType, ShardType, StridedShardType, ReplicateType, PartialType;

PlacementObject* as(PyObject* o) { return reinterpret_cast<PlacementObject*>(o); }
bool is(PyObject* o, PyTypeObject* t) { return PyObject_TypeCheck(o, t); }

void placement_dealloc(PyObject* self) {
  Py_CLEAR(as(self)->reduce_op);
  Py_TYPE(self)->tp_free(self);
}

PyObject* placement_false(PyObject*, PyObject*, PyObject*) { Py_RETURN_FALSE; }

// Shard.is_shard(dim=None): any dim, or this one.
PyObject* shard_is_shard(PyObject* self, PyObject* args, PyObject* kwargs) {
  static const char* kw[] = {"dim", nullptr};
  PyObject* dim = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O:is_shard", const_cast<char**>(kw), &dim))
    return nullptr;
  if (dim == Py_None) Py_RETURN_TRUE;
  long d = PyLong_AsLong(dim);
  if (d == -1 && PyErr_Occurred()) return nullptr;
  return PyBool_FromLong(d == as(self)->dim);
}

PyObject* replicate_is_replicate(PyObject*, PyObject*) { Py_RETURN_TRUE; }

// Partial.is_partial(reduce_op=None): any op, or this one.
PyObject* partial_is_partial(PyObject* self, PyObject* args, PyObject* kwargs) {
  static const char* kw[] = {"reduce_op", nullptr};
  PyObject* op = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O:is_partial", const_cast<char**>(kw), &op))
    return nullptr;
  if (op == Py_None) Py_RETURN_TRUE;
  return PyObject_RichCompare(as(self)->reduce_op, op, Py_EQ);
}

int shard_init(PyObject* self, PyObject* args, PyObject* kwargs) {
  static const char* kw[] = {"dim", nullptr};
  return PyArg_ParseTupleAndKeywords(args, kwargs, "l:Shard", const_cast<char**>(kw),
                                     &as(self)->dim) ? 0 : -1;
}

int strided_init(PyObject* self, PyObject* args, PyObject* kwargs) {
  static const char* kw[] = {"dim", "split_factor", nullptr};
  return PyArg_ParseTupleAndKeywords(args, kwargs, "l$l:StridedShard", const_cast<char**>(kw),
                                     &as(self)->dim, &as(self)->split_factor) ? 0 : -1;
}

int replicate_init(PyObject*, PyObject* args, PyObject* kwargs) {
  return PyArg_ParseTuple(args, ":Replicate") && (!kwargs || PyDict_Size(kwargs) == 0) ? 0 : -1;
}

int partial_init(PyObject* self, PyObject* args, PyObject* kwargs) {
  static const char* kw[] = {"reduce_op", nullptr};
  PyObject* op = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O:Partial", const_cast<char**>(kw), &op))
    return -1;
  if (op == Py_None) op = PyUnicode_FromString("sum");
  else if (PyUnicode_Check(op)) Py_INCREF(op);
  else {
    PyErr_SetString(PyExc_TypeError, "Partial(): reduce_op must be a str or None");
    return -1;
  }
  Py_XSETREF(as(self)->reduce_op, op);
  return 0;
}

// Equality: same placement kind (by C base) and same fields; others are NotImplemented.
PyObject* placement_richcompare(PyObject* a, PyObject* b, int op) {
  if (op != Py_EQ && op != Py_NE) Py_RETURN_NOTIMPLEMENTED;
  PyTypeObject* kinds[] = {&ShardType, &StridedShardType, &ReplicateType, &PartialType};
  PyTypeObject* kind = nullptr;
  for (PyTypeObject* t : kinds)
    if (is(a, t)) kind = t;
  if (!kind || !is(b, kind)) Py_RETURN_NOTIMPLEMENTED;
  int eq = 1;
  if (kind == &ShardType || kind == &StridedShardType) eq = as(a)->dim == as(b)->dim;
  if (kind == &StridedShardType) eq = eq && as(a)->split_factor == as(b)->split_factor;
  if (kind == &PartialType) {
    eq = PyObject_RichCompareBool(as(a)->reduce_op, as(b)->reduce_op, Py_EQ);
    if (eq < 0) return nullptr;
  }
  return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

// __getstate__: the fields as a dict ({'dim': 1}); __setstate__ takes the same dict back.
PyObject* placement_getstate(PyObject* self, PyObject*) {
  if (is(self, &StridedShardType))
    return Py_BuildValue("{s:l,s:l}", "dim", as(self)->dim, "split_factor",
                         as(self)->split_factor);
  if (is(self, &ShardType)) return Py_BuildValue("{s:l}", "dim", as(self)->dim);
  if (is(self, &PartialType)) return Py_BuildValue("{s:O}", "reduce_op", as(self)->reduce_op);
  return PyDict_New();
}

PyObject* placement_setstate(PyObject* self, PyObject* state) {
  if (!PyDict_Check(state)) {
    PyErr_Format(PyExc_TypeError, "__setstate__(): expected a dict, got %s",
                 Py_TYPE(state)->tp_name);
    return nullptr;
  }
  PyObject* empty = PyTuple_New(0);
  initproc init = is(self, &StridedShardType) ? strided_init
                  : is(self, &ShardType)      ? shard_init
                  : is(self, &PartialType)    ? partial_init
                                              : replicate_init;
  int rc = empty ? init(self, empty, state) : -1;
  Py_XDECREF(empty);
  if (rc != 0) return nullptr;
  Py_RETURN_NONE;
}

PyObject* get_dim(PyObject* self, void*) { return PyLong_FromLong(as(self)->dim); }
PyObject* get_split(PyObject* self, void*) { return PyLong_FromLong(as(self)->split_factor); }
PyObject* get_op(PyObject* self, void*) { return Py_NewRef(as(self)->reduce_op); }

#define TN_KW(f) reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(f))
PyMethodDef kPlacementMethods[] = {
    {"is_partial", TN_KW(placement_false), METH_VARARGS | METH_KEYWORDS, nullptr},
    {"is_replicate", TN_KW(placement_false), METH_VARARGS | METH_KEYWORDS, nullptr},
    {"is_shard", TN_KW(placement_false), METH_VARARGS | METH_KEYWORDS, nullptr},
    {nullptr, nullptr, 0, nullptr}};
PyMethodDef kStateMethods[] = {
    {"__getstate__", placement_getstate, METH_NOARGS, nullptr},
    {"__setstate__", placement_setstate, METH_O, nullptr},
    {nullptr, nullptr, 0, nullptr}};
PyMethodDef kShardMethods[] = {
    {"is_shard", TN_KW(shard_is_shard), METH_VARARGS | METH_KEYWORDS, nullptr},
    kStateMethods[0], kStateMethods[1], {nullptr, nullptr, 0, nullptr}};
PyMethodDef kReplicateMethods[] = {
    {"is_replicate", replicate_is_replicate, METH_NOARGS, nullptr},
    kStateMethods[0], kStateMethods[1], {nullptr, nullptr, 0, nullptr}};
PyMethodDef kPartialMethods[] = {
    {"is_partial", TN_KW(partial_is_partial), METH_VARARGS | METH_KEYWORDS, nullptr},
    kStateMethods[0], kStateMethods[1], {nullptr, nullptr, 0, nullptr}};
#undef TN_KW

PyGetSetDef kShardGetSet[] = {{"dim", get_dim, nullptr, nullptr, nullptr},
                              {nullptr, nullptr, nullptr, nullptr, nullptr}};
PyGetSetDef kStridedGetSet[] = {{"dim", get_dim, nullptr, nullptr, nullptr},
                                {"split_factor", get_split, nullptr, nullptr, nullptr},
                                {nullptr, nullptr, nullptr, nullptr, nullptr}};
PyGetSetDef kPartialGetSet[] = {{"reduce_op", get_op, nullptr, nullptr, nullptr},
                                {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyTypeObject make_type(const char* name, PyTypeObject* base, PyMethodDef* methods,
                       PyGetSetDef* getset, initproc init) {
  PyTypeObject t{PyVarObject_HEAD_INIT(nullptr, 0)};
  t.tp_name = name;
  t.tp_basicsize = sizeof(PlacementObject);
  t.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE;
  t.tp_dealloc = placement_dealloc;
  t.tp_new = PyType_GenericNew;
  t.tp_base = base;
  t.tp_methods = methods;
  t.tp_getset = getset;
  t.tp_init = init;
  if (base) {
    t.tp_richcompare = placement_richcompare;
    t.tp_hash = PyObject_HashNotImplemented;  // upstream's bases are unhashable too
  }
  return t;
}

int placement_init(PyObject*, PyObject*, PyObject*) { return 0; }

PyTypeObject PlacementType = make_type("torch._C._distributed.Placement", nullptr,
                                       kPlacementMethods, nullptr, placement_init);
PyTypeObject ShardType = make_type("torch._C._distributed.Shard", &PlacementType, kShardMethods,
                                   kShardGetSet, shard_init);
PyTypeObject StridedShardType = make_type("torch._C._distributed.StridedShard", &PlacementType,
                                          kStateMethods, kStridedGetSet, strided_init);
PyTypeObject ReplicateType = make_type("torch._C._distributed.Replicate", &PlacementType,
                                       kReplicateMethods, nullptr, replicate_init);
PyTypeObject PartialType = make_type("torch._C._distributed.Partial", &PlacementType,
                                     kPartialMethods, kPartialGetSet, partial_init);

}  // namespace

// The types take the tree's torch._opaque_base.OpaqueBaseMeta as metaclass, as upstream's do
// (register_opaque_type requires it), set before they are readied.
bool init_placements() {
  PyObject* meta = opaque_base_meta();
  if (!meta) return false;
  const std::pair<const char*, PyTypeObject*> kTypes[] = {
      {"Placement", &PlacementType}, {"Shard", &ShardType}, {"StridedShard", &StridedShardType},
      {"Replicate", &ReplicateType}, {"Partial", &PartialType}};
  for (const auto& [name, t] : kTypes) {
    Py_INCREF(meta);  // each type holds its metaclass
    Py_SET_TYPE(t, reinterpret_cast<PyTypeObject*>(meta));
    if (PyType_Ready(t) != 0) return false;
    // Upstream's are mutable (pybind11 heap types): the tree rewrites their __module__.
    t->tp_flags &= ~Py_TPFLAGS_IMMUTABLETYPE;
    if (!add(kModule, name, Py_NewRef(reinterpret_cast<PyObject*>(t)))) return false;
  }
  Py_DECREF(meta);
  return true;
}

}  // namespace tn::py
