// DispatchKeySet and the _dispatch_keyset_* functions the tree's operator machinery (torch/_ops.py)
// uses at import. A set is a bitmask over torch._C.DispatchKey's values (stub order). Our door
// does not dispatch by these keys; the sets exist so the Python side can do its bookkeeping.
#include <bitset>
#include <map>
#include <string>

#include "core/dispatch_key.h"
#include "python/init.h"
#include "python/py_kernel.h"

namespace tn::py {

PyObject* make_builtin(const PyMethodDef& proto, const char* name, PyObject* self);

namespace {

constexpr int kMaxKeys = 256;
using Mask = std::bitset<kMaxKeys>;

struct KeySetObject {
  PyObject_HEAD
  Mask mask;
};

extern PyTypeObject KeySetType;

PyObject* new_set(const Mask& m) {
  auto* o = PyObject_New(KeySetObject, &KeySetType);
  if (!o) return nullptr;
  new (&o->mask) Mask(m);
  return reinterpret_cast<PyObject*>(o);
}

Mask& mask_of(PyObject* o) { return reinterpret_cast<KeySetObject*>(o)->mask; }

int key_count() {
  static int n = [] {
    PyObject* cls = PyObject_GetAttrString(module("torch._C"), "DispatchKey");
    Py_ssize_t len = cls ? PyObject_Length(cls) : -1;
    Py_XDECREF(cls);
    PyErr_Clear();
    return static_cast<int>(len);
  }();
  return n;
}

// A DispatchKey (enum member) or an int to its index; -1 with TypeError set.
int key_index(PyObject* k) {
  PyObject* v = PyNumber_Index(k);
  if (!v) {
    PyErr_Format(PyExc_TypeError, "expected a torch._C.DispatchKey, got %s", Py_TYPE(k)->tp_name);
    return -1;
  }
  long i = PyLong_AsLong(v);
  Py_DECREF(v);
  if (i < 0 || i >= kMaxKeys) {
    PyErr_Format(PyExc_ValueError, "dispatch key %ld out of range", i);
    return -1;
  }
  return static_cast<int>(i);
}

PyObject* key_object(int i) {
  PyObject* cls = PyObject_GetAttrString(module("torch._C"), "DispatchKey");
  if (!cls) return nullptr;
  PyObject* r = PyObject_CallFunction(cls, "i", i);
  Py_DECREF(cls);
  return r;
}

PyObject* keyset_new(PyTypeObject*, PyObject* args, PyObject*) {
  PyObject* k;
  if (!PyArg_ParseTuple(args, "O:DispatchKeySet", &k)) return nullptr;
  if (Py_TYPE(k) == &KeySetType) return new_set(mask_of(k));
  int i = key_index(k);
  if (i < 0) return nullptr;
  Mask m;
  if (i != 0) m.set(i);  // Undefined is the empty set
  return new_set(m);
}

PyObject* binop(PyObject* a, PyObject* b, char op) {
  if (Py_TYPE(a) != &KeySetType || Py_TYPE(b) != &KeySetType) Py_RETURN_NOTIMPLEMENTED;
  const Mask& x = mask_of(a);
  const Mask& y = mask_of(b);
  switch (op) {
    case '|': return new_set(x | y);
    case '&': return new_set(x & y);
    default: return new_set(x & ~y);
  }
}
PyObject* ks_or(PyObject* a, PyObject* b) { return binop(a, b, '|'); }
PyObject* ks_and(PyObject* a, PyObject* b) { return binop(a, b, '&'); }
PyObject* ks_sub(PyObject* a, PyObject* b) { return binop(a, b, '-'); }

PyObject* ks_has(PyObject* self, PyObject* k) {
  int i = key_index(k);
  if (i < 0) return nullptr;
  return PyBool_FromLong(mask_of(self).test(i));
}
PyObject* ks_add(PyObject* self, PyObject* k) {
  int i = key_index(k);
  if (i < 0) return nullptr;
  Mask m = mask_of(self);
  m.set(i);
  return new_set(m);
}
PyObject* ks_remove(PyObject* self, PyObject* k) {
  int i = key_index(k);
  if (i < 0) return nullptr;
  Mask m = mask_of(self);
  m.reset(i);
  return new_set(m);
}
PyObject* ks_highest(PyObject* self, PyObject*) {
  for (int i = kMaxKeys - 1; i > 0; --i)
    if (mask_of(self).test(i)) return key_object(i);
  return key_object(0);
}
PyObject* ks_raw(PyObject* self, PyObject*) {
  PyObject* r = PyLong_FromLong(0);
  for (int i = kMaxKeys - 1; i >= 0; --i) {
    PyObject* shifted = PyNumber_Lshift(r, PyLong_FromLong(1));
    Py_DECREF(r);
    r = PyNumber_Or(shifted, PyLong_FromLong(mask_of(self).test(i)));
    Py_DECREF(shifted);
  }
  return r;
}

PyObject* ks_repr(PyObject* self) {
  std::string s = "DispatchKeySet(";
  bool first = true;
  for (int i = 1; i < kMaxKeys; ++i) {
    if (!mask_of(self).test(i)) continue;
    PyObject* k = key_object(i);
    PyObject* name = k ? PyObject_GetAttrString(k, "name") : nullptr;
    Py_XDECREF(k);
    if (!name) return nullptr;
    s += (first ? "" : ", ") + std::string(PyUnicode_AsUTF8(name));
    Py_DECREF(name);
    first = false;
  }
  return PyUnicode_FromString((s + ")").c_str());
}

PyObject* ks_richcompare(PyObject* a, PyObject* b, int op) {
  if (Py_TYPE(a) != &KeySetType || Py_TYPE(b) != &KeySetType || (op != Py_EQ && op != Py_NE))
    Py_RETURN_NOTIMPLEMENTED;
  bool eq = mask_of(a) == mask_of(b);
  return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

PyMethodDef ks_methods[] = {
    {"has", ks_has, METH_O, nullptr},
    {"add", ks_add, METH_O, nullptr},
    {"remove", ks_remove, METH_O, nullptr},
    {"highestPriorityTypeId", ks_highest, METH_NOARGS, nullptr},
    {"raw_repr", ks_raw, METH_NOARGS, nullptr},
    {nullptr, nullptr, 0, nullptr}};

PyNumberMethods ks_number = [] {
  PyNumberMethods m{};
  m.nb_or = ks_or;
  m.nb_and = ks_and;
  m.nb_subtract = ks_sub;
  return m;
}();

PyTypeObject KeySetType = [] {
  PyTypeObject t{PyVarObject_HEAD_INIT(nullptr, 0)};
  t.tp_name = "torch.DispatchKeySet";
  t.tp_basicsize = sizeof(KeySetObject);
  t.tp_flags = Py_TPFLAGS_DEFAULT;
  t.tp_new = keyset_new;
  t.tp_repr = ks_repr;
  t.tp_richcompare = ks_richcompare;
  t.tp_methods = ks_methods;
  t.tp_as_number = &ks_number;
  return t;
}();

Mask full_mask(int after) {
  Mask m;
  for (int i = after + 1; i < key_count(); ++i) m.set(i);
  return m;
}

PyObject* keyset_full(PyObject*, PyObject*) { return new_set(full_mask(0)); }
PyObject* keyset_full_after(PyObject*, PyObject* k) {
  int i = key_index(k);
  if (i < 0) return nullptr;
  return new_set(full_mask(i));
}
PyObject* keyset_empty(PyObject*, PyObject*) { return new_set(Mask()); }
PyObject* keyset_to_string(PyObject*, PyObject* s) {
  if (Py_TYPE(s) != &KeySetType) {
    PyErr_SetString(PyExc_TypeError, "expected a DispatchKeySet");
    return nullptr;
  }
  return ks_repr(s);
}

// _parse_dispatch_key("CPU") -> DispatchKey.CPU, or None for an unknown name.
PyObject* parse_dispatch_key(PyObject*, PyObject* name) {
  PyObject* cls = PyObject_GetAttrString(module("torch._C"), "DispatchKey");
  if (!cls) return nullptr;
  PyObject* members = PyObject_GetAttrString(cls, "__members__");
  Py_DECREF(cls);
  if (!members) return nullptr;
  PyObject* key = PyObject_GetItem(members, name);
  Py_DECREF(members);
  if (!key) {
    PyErr_Clear();
    Py_RETURN_NONE;
  }
  return key;
}

PyMethodDef kFunctions[] = {
    {"_parse_dispatch_key", parse_dispatch_key, METH_O, nullptr},
    {"_dispatch_keyset_full", keyset_full, METH_NOARGS, nullptr},
    {"_dispatch_keyset_full_after", keyset_full_after, METH_O, nullptr},
    {"_dispatch_tls_local_include_set", keyset_empty, METH_NOARGS, nullptr},
    {"_dispatch_tls_local_exclude_set", keyset_empty, METH_NOARGS, nullptr},
    {"_dispatch_keyset_to_string", keyset_to_string, METH_O, nullptr},
    {nullptr, nullptr, 0, nullptr}};

// The enum index of an upstream key name, or -1 (looked up once per name).
int index_named(const std::string& name) {
  static std::map<std::string, int>* cache = new std::map<std::string, int>;
  auto it = cache->find(name);
  if (it != cache->end()) return it->second;
  int i = -1;
  PyObject* n = PyUnicode_FromString(name.c_str());
  PyObject* k = n ? parse_dispatch_key(nullptr, n) : nullptr;
  Py_XDECREF(n);
  if (k && k != Py_None) i = key_index(k);
  Py_XDECREF(k);
  PyErr_Clear();
  (*cache)[name] = i;
  return i;
}

void set_named(Mask& m, const std::string& name) {
  int i = index_named(name);
  if (i > 0) m.set(i);
}

bool test_named(const Mask& m, const std::string& name) {
  int i = index_named(name);
  return i > 0 && m.test(i);
}

// Upstream's _after_ADInplaceOrView_keyset: every key of lower priority than ADInplaceOrView.
// Read off the enum: all but the functionality-only names (Dense, Sparse...: not runtime keys)
// and the keys at or above ADInplaceOrView (autograd, autocast, functorch's front, tracing,
// the alias keys).
Mask after_inplace_or_view() {
  static const char* const kAbovePrefixes[] = {"Autograd", "Autocast", "Composite",
                                               "TESTING_ONLY_", "FuncTorch"};
  static const char* const kExcluded[] = {
      "Undefined", "Dense", "Quantized", "Sparse", "SparseCsr", "NestedTensor", "Tracer",
      "Batched", "VmapMode", "BatchedNestedTensor", "PythonTLSSnapshot", "PreDispatch", "Named",
      "MKLDNN", "OpenGL", "OpenCL", "IDEEP", "ADInplaceOrView"};
  Mask m;
  PyObject* cls = PyObject_GetAttrString(module("torch._C"), "DispatchKey");
  PyObject* members = cls ? PyObject_GetAttrString(cls, "__members__") : nullptr;
  Py_XDECREF(cls);
  PyObject* items = members ? PyMapping_Items(members) : nullptr;
  Py_XDECREF(members);
  if (!items) {
    PyErr_Clear();
    return m;
  }
  for (Py_ssize_t i = 0; i < PyList_GET_SIZE(items); ++i) {
    PyObject* item = PyList_GET_ITEM(items, i);
    std::string name = PyUnicode_AsUTF8(PyTuple_GET_ITEM(item, 0));
    bool out = false;
    for (const char* p : kAbovePrefixes)
      out = out || (name.rfind(p, 0) == 0 && name != "FuncTorchDynamicLayerBackMode");
    for (const char* e : kExcluded) out = out || name == e;
    if (!out) set_named(m, name);
  }
  Py_DECREF(items);
  return m;
}

}  // namespace

PyObject* keyset_object(KeySet ks) {
  Mask m;
  bool any_backend = false;
  for (int d = 0; d < kNumDeviceTypes; ++d) {
    auto k = static_cast<DispatchKey>(d);
    if (!(ks & key_bit(k))) continue;
    any_backend = true;
    set_named(m, dispatch_key_name(k));
    if (ks & key_bit(DispatchKey::Autograd))
      set_named(m, std::string("Autograd") + dispatch_key_name(k));
  }
  if ((ks & key_bit(DispatchKey::Autograd)) && !any_backend) set_named(m, "AutogradFunctionality");
  if (ks & key_bit(DispatchKey::ADInplaceOrView)) set_named(m, "ADInplaceOrView");
  if (ks & key_bit(DispatchKey::Python)) set_named(m, "Python");
  if (ks & key_bit(DispatchKey::Conjugate)) set_named(m, "Conjugate");
  if (ks & key_bit(DispatchKey::Negative)) set_named(m, "Negative");
  return new_set(m);
}

bool keyset_of(PyObject* o, KeySet* out) {
  Mask m;
  if (Py_TYPE(o) == &KeySetType) {
    m = mask_of(o);
  } else {
    int i = key_index(o);
    if (i < 0) return false;
    if (i > 0) m.set(i);
  }
  KeySet ks = 0;
  bool autograd = test_named(m, "AutogradFunctionality") || test_named(m, "AutogradOther") ||
                  test_named(m, "Autograd");
  for (int d = 0; d < kNumDeviceTypes; ++d) {
    auto k = static_cast<DispatchKey>(d);
    if (test_named(m, dispatch_key_name(k))) ks |= key_bit(k);
    if (test_named(m, std::string("Autograd") + dispatch_key_name(k))) autograd = true;
  }
  if (autograd) ks |= key_bit(DispatchKey::Autograd);
  if (test_named(m, "ADInplaceOrView")) ks |= key_bit(DispatchKey::ADInplaceOrView);
  if (test_named(m, "Python")) ks |= key_bit(DispatchKey::Python);
  if (test_named(m, "Conjugate")) ks |= key_bit(DispatchKey::Conjugate);
  if (test_named(m, "Negative")) ks |= key_bit(DispatchKey::Negative);
  *out = ks;
  return true;
}

// Runs after the surface exists: DispatchKey is a generated enum.
bool init_dispatch_keys_late() {
  if (PyType_Ready(&KeySetType) != 0) return false;
  PyObject* c = module("torch._C");
  if (PyObject_SetAttrString(c, "DispatchKeySet", reinterpret_cast<PyObject*>(&KeySetType)))
    return false;
  for (PyMethodDef* d = kFunctions; d->ml_name; ++d) {
    PyObject* f = make_builtin(*d, d->ml_name, nullptr);
    if (!f || PyObject_SetAttrString(c, d->ml_name, f) != 0) return false;
    Py_DECREF(f);
  }
  // Wrapper subclasses propagate no extra keys in a core without those back ends.
  PyObject* empty = new_set(Mask());
  int rc = PyObject_SetAttrString(c, "_additional_keys_to_prop_for_wrapper_tensors", empty);
  Py_DECREF(empty);
  PyObject* empty2 = new_set(Mask());
  rc |= PyObject_SetAttrString(c, "_dispatch_autogradother_backends", empty2);
  Py_DECREF(empty2);
  // The key sets custom_op's kernels redispatch on (torch/_library/custom_ops.py, autograd.py).
  Mask below_view = after_inplace_or_view();
  Mask below_autograd = below_view;
  set_named(below_autograd, "ADInplaceOrView");
  PyObject* a = new_set(below_autograd);
  PyObject* v = new_set(below_view);
  rc |= PyObject_SetAttrString(c, "_after_autograd_keyset", a);
  rc |= PyObject_SetAttrString(c, "_after_ADInplaceOrView_keyset", v);
  Py_XDECREF(a);
  Py_XDECREF(v);
  return rc == 0;
}

}  // namespace tn::py
