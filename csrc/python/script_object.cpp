// torch.ScriptObject: how Python holds an instance of a class the core registers under
// torch.classes (a CustomObject, dispatch/value.h), as upstream's torchbind objects are held.
// Only the core makes them (an op returns one); Python passes them back to ops unchanged.
#include <string>

#include "dispatch/value.h"
#include "python/init.h"

namespace tn::py {
namespace {

struct ScriptObjectPy {
  PyObject_HEAD
  CustomObject* obj;  // one reference, owned
};

void script_object_dealloc(PyObject* self) {
  auto* s = reinterpret_cast<ScriptObjectPy*>(self);
  if (s->obj) Ptr<CustomObject>::adopt(s->obj);  // drops the reference
  s->obj = nullptr;
  Py_TYPE(self)->tp_free(self);
}

PyObject* script_object_repr(PyObject* self) {
  auto* s = reinterpret_cast<ScriptObjectPy*>(self);
  return PyUnicode_FromFormat("ScriptObject <%s>", s->obj ? s->obj->qualified_name() : "?");
}

PyObject* script_object_new_py(PyTypeObject*, PyObject*, PyObject*) {
  PyErr_SetString(PyExc_TypeError, "torch.ScriptObject: No constructor defined");
  return nullptr;
}

PyTypeObject ScriptObjectType = [] {
  PyTypeObject t{PyVarObject_HEAD_INIT(nullptr, 0)};
  t.tp_name = "torch.ScriptObject";
  t.tp_basicsize = sizeof(ScriptObjectPy);
  t.tp_dealloc = script_object_dealloc;
  t.tp_repr = script_object_repr;
  // Subclassable: the stubs' ScriptModule derives from it.
  t.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE;
  t.tp_new = script_object_new_py;
  return t;
}();

}  // namespace

bool custom_object_of(PyObject* o, Ptr<CustomObject>* out) {
  if (!PyObject_TypeCheck(o, &ScriptObjectType)) return false;
  CustomObject* obj = reinterpret_cast<ScriptObjectPy*>(o)->obj;
  if (!obj) return false;
  *out = Ptr<CustomObject>(obj);
  return true;
}

PyObject* script_object(const Ptr<CustomObject>& obj) {
  auto* s = PyObject_New(ScriptObjectPy, &ScriptObjectType);
  if (!s) return nullptr;
  s->obj = Ptr<CustomObject>(obj).release();
  return reinterpret_cast<PyObject*>(s);
}

bool init_script_object() {
  if (PyType_Ready(&ScriptObjectType) < 0) return false;
  Py_INCREF(&ScriptObjectType);
  return add("torch._C", "ScriptObject", reinterpret_cast<PyObject*>(&ScriptObjectType));
}

}  // namespace tn::py
