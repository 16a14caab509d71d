// torch.Generator (CPU) and torch._C.default_generator over the core's MT19937 generator.
// get_state/set_state carry upstream's byte layout (core/generator.h).
#include "core/generator.h"

#include "kernels/composite/ops.h"
#include "python/device.h"
#include "python/errors.h"
#include "python/init.h"
#include "python/tensor.h"

namespace tn::py {

PyObject* make_builtin(const PyMethodDef& proto, const char* name, PyObject* self);

namespace {

struct GeneratorObject {
  PyObject_HEAD
  Generator* gen;  // owned reference (intrusive)
};

extern PyTypeObject GeneratorType;

Generator& gen_of(PyObject* self) { return *reinterpret_cast<GeneratorObject*>(self)->gen; }

PyObject* wrap(Generator* g) {
  auto* o = reinterpret_cast<GeneratorObject*>(GeneratorType.tp_alloc(&GeneratorType, 0));
  if (!o) return nullptr;
  g->incref();
  o->gen = g;
  return reinterpret_cast<PyObject*>(o);
}

PyObject* gen_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  static const char* kw[] = {"device", nullptr};
  PyObject* device = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O:Generator", const_cast<char**>(kw), &device))
    return nullptr;
  if (device != Py_None) {
    Device d;
    if (!parse_device(device, &d)) return nullptr;
    if (d.type != DeviceType::CPU) {
      PyErr_Format(PyExc_NotImplementedError,
                   "torch.Generator on device '%s' is not implemented by torchnative",
                   device_type_name(d.type));
      return nullptr;
    }
  }
  auto* o = reinterpret_cast<GeneratorObject*>(type->tp_alloc(type, 0));
  if (!o) return nullptr;
  o->gen = new Generator(kDefaultSeed);
  o->gen->incref();
  return reinterpret_cast<PyObject*>(o);
}

void gen_dealloc(PyObject* self) {
  auto* o = reinterpret_cast<GeneratorObject*>(self);
  if (o->gen) o->gen->decref();
  Py_TYPE(self)->tp_free(self);
}

PyObject* gen_manual_seed(PyObject* self, PyObject* seed) {
  if (!PyLong_Check(seed) || PyBool_Check(seed)) {
    PyErr_Format(PyExc_RuntimeError,
                 "manual_seed expected a long, but got %s", Py_TYPE(seed)->tp_name);
    return nullptr;
  }
  // As upstream: a seed in [0, 2**64) as unsigned, else one in [-2**63, 0) wrapped to 64 bits;
  // anything wider is refused (ValueError), never masked.
  unsigned long long s = PyLong_AsUnsignedLongLong(seed);
  if (s == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
    PyErr_Clear();
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(seed, &overflow);
    if (v == -1 && PyErr_Occurred()) return nullptr;
    if (overflow) {
      PyErr_SetString(PyExc_ValueError, "Overflow when unpacking long long");
      return nullptr;
    }
    s = static_cast<unsigned long long>(v);
  }
  std::lock_guard<std::mutex> lock(gen_of(self).mutex);
  gen_of(self).manual_seed(s);
  return Py_NewRef(self);
}

PyObject* gen_seed(PyObject* self, PyObject*) {
  uint64_t s = nondeterministic_seed();
  std::lock_guard<std::mutex> lock(gen_of(self).mutex);
  gen_of(self).manual_seed(s);
  return PyLong_FromUnsignedLongLong(s);
}

PyObject* gen_initial_seed(PyObject* self, PyObject*) {
  return PyLong_FromUnsignedLongLong(gen_of(self).initial_seed());
}

PyObject* gen_device(PyObject*, void*) { return device_object(Device{DeviceType::CPU, -1}); }

// get_state(): a new torch.uint8 tensor of upstream's layout (Generator::get_state).
PyObject* gen_get_state(PyObject* self, PyObject*) {
  TN_PY_TRY
  Tensor t = ops::empty({static_cast<int64_t>(Generator::kStateBytes)}, ScalarType::Byte,
                        Device{DeviceType::CPU, -1});
  std::lock_guard<std::mutex> lock(gen_of(self).mutex);
  gen_of(self).get_state(static_cast<uint8_t*>(t->data_unchecked()));
  return wrap_tensor(t);
  TN_PY_CATCH(nullptr)
}

// set_state(new_state): a contiguous CPU torch.uint8 tensor of either of upstream's layouts.
PyObject* gen_set_state(PyObject* self, PyObject* state) {
  if (!is_tensor(state)) {
    PyErr_Format(PyExc_TypeError, "expected a torch.ByteTensor, but got %s",
                 Py_TYPE(state)->tp_name);
    return nullptr;
  }
  TN_PY_TRY
  TensorImpl* t = impl_of(state);
  TN_CHECK_KIND(t->dtype() == ScalarType::Byte && t->device().type == DeviceType::CPU &&
                    t->representation() == Representation::DenseCPU,
                Type, "RNG state must be a torch.ByteTensor");
  TN_CHECK(t->is_contiguous(), "RNG state must be contiguous");
  std::lock_guard<std::mutex> lock(gen_of(self).mutex);
  gen_of(self).set_state(static_cast<const uint8_t*>(t->data_unchecked()),
                         static_cast<size_t>(t->numel()));
  return Py_NewRef(self);
  TN_PY_CATCH(nullptr)
}

PyMethodDef gen_methods[] = {
    {"manual_seed", gen_manual_seed, METH_O, nullptr},
    {"seed", gen_seed, METH_NOARGS, nullptr},
    {"initial_seed", gen_initial_seed, METH_NOARGS, nullptr},
    {"get_state", gen_get_state, METH_NOARGS, nullptr},
    {"set_state", gen_set_state, METH_O, nullptr},
    {nullptr, nullptr, 0, nullptr}};

PyGetSetDef gen_getset[] = {{"device", gen_device, nullptr, nullptr, nullptr},
                            {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyTypeObject GeneratorType = [] {
  PyTypeObject t{PyVarObject_HEAD_INIT(nullptr, 0)};
  t.tp_name = "torch._C.Generator";
  t.tp_basicsize = sizeof(GeneratorObject);
  t.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE;
  t.tp_new = gen_new;
  t.tp_dealloc = gen_dealloc;
  t.tp_methods = gen_methods;
  t.tp_getset = gen_getset;
  return t;
}();

// _set_generator_metaclass(meta): torch/_prims/rng_prims.py makes Generator's metaclass
// torch._opaque_base.OpaqueBaseMeta after import, as upstream allows.
PyObject* set_generator_metaclass(PyObject*, PyObject* meta) {
  if (!PyType_Check(meta) ||
      !PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(meta), &PyType_Type)) {
    PyErr_SetString(PyExc_TypeError, "_set_generator_metaclass expects a metaclass");
    return nullptr;
  }
  Py_INCREF(meta);  // the type now refers to it for the life of the process
  Py_SET_TYPE(&GeneratorType, reinterpret_cast<PyTypeObject*>(meta));
  PyType_Modified(&GeneratorType);
  Py_RETURN_NONE;
}

PyMethodDef set_meta_def = {"_set_generator_metaclass", set_generator_metaclass, METH_O, nullptr};

}  // namespace

// A new torch.Generator object over g (the binder's results and a dispatch mode's arguments).
PyObject* generator_object(const Ptr<Generator>& g) { return wrap(g.get()); }

// A torch.Generator's core generator (for the binder); false when obj is not one.
bool generator_of(PyObject* obj, Ptr<Generator>* out) {
  if (!PyObject_TypeCheck(obj, &GeneratorType)) return false;
  *out = Ptr<Generator>(reinterpret_cast<GeneratorObject*>(obj)->gen);
  return true;
}

bool init_generator() {
  if (PyType_Ready(&GeneratorType) != 0) return false;
  return add("torch._C", "Generator", Py_NewRef(reinterpret_cast<PyObject*>(&GeneratorType))) &&
         add("torch._C", "default_generator", wrap(&default_generator())) &&
         add("torch._C", set_meta_def.ml_name,
             make_builtin(set_meta_def, set_meta_def.ml_name, nullptr));
}

}  // namespace tn::py
