// torch._C._return_types (which torch.return_types re-exports): a named-tuple class
// (PyStructSequence) per op whose returns are all named, e.g. max -> (values, indices), and
// "<name>_out" for its out= overloads, as upstream's generated bindings make them. Python API
// calls of such ops (torch.max(x, 0), x.sort()) return an instance; torch.ops spellings return
// a plain tuple, as upstream's.
#include "python/return_types.h"

#include <structmember.h>

#include <string>
#include <unordered_map>
#include <vector>

#include "dispatch/registry.h"
#include "dispatch/schema.h"
#include "python/init.h"

namespace tn::py {
namespace {

std::unordered_map<std::string, PyTypeObject*>& types() {
  static std::unordered_map<std::string, PyTypeObject*> t;
  return t;
}

bool ends_with(const std::string& s, const char* tail) {
  std::string t = tail;
  return s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0;
}
// Ops upstream's generator gives no Python binding (its skip list: *_forward, *_backward,
// *_functional and *_overrideable kernels, the functional forms of the fused optimizer and AMP
// kernels, fake_quantize's cachemask variants), so no named tuple either.
bool unbound(const std::string& name) {
  static const char* const kSkipped[] = {
      "_fused_adam", "_fused_adamw", "_fused_sgd", "_fused_adagrad",
      "_amp_foreach_non_finite_check_and_unscale", "fake_quantize_per_channel_affine_cachemask",
      "fake_quantize_per_tensor_affine_cachemask"};
  for (const char* s : kSkipped)
    if (name == s) return true;
  for (const char* tail : {"_forward", "_backward", "_functional", "_overrideable"})
    if (ends_with(name, tail)) return true;
  return false;
}

// The class name for schema s, or "" when its returns are not all named (or fewer than two),
// or upstream binds it to no Python function (another namespace, or unbound()).
std::string type_name(const FunctionSchema& s) {
  if (s.returns.size() < 2 || s.name.compare(0, 6, "aten::") != 0) return "";
  for (const Argument& r : s.returns)
    if (r.name.empty()) return "";
  std::string name = s.name.substr(s.name.find("::") + 2);
  if (unbound(name)) return "";
  bool out = false;
  for (const Argument& a : s.arguments) out = out || a.is_out;
  return out ? name + "_out" : name;
}

// repr as upstream's: "torch.return_types.max(\nvalues=...,\nindices=...)", a field per line.
PyObject* fields_repr(PyObject* self) {
  PyTypeObject* type = Py_TYPE(self);
  std::string out = std::string(type->tp_name) + "(";
  const Py_ssize_t n = PyTuple_GET_SIZE(self);
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* r = PyObject_Repr(PyTuple_GET_ITEM(self, i));
    if (!r) return nullptr;
    const char* text = PyUnicode_AsUTF8(r);
    if (!text) {
      Py_DECREF(r);
      return nullptr;
    }
    out += "\n";
    out += type->tp_members[i].name;
    out += "=";
    out += text;
    if (i + 1 < n) out += ",";
    Py_DECREF(r);
  }
  out += ")";
  return PyUnicode_FromStringAndSize(out.data(), static_cast<Py_ssize_t>(out.size()));
}

PyTypeObject* make_type(const std::string& name, const FunctionSchema& s) {
  // The field names and the type's name must outlive the type.
  auto* fields = new std::vector<PyStructSequence_Field>();
  for (const Argument& r : s.returns)
    fields->push_back({(new std::string(r.name))->c_str(), nullptr});
  fields->push_back({nullptr, nullptr});
  auto* qualname = new std::string("torch.return_types." + name);
  auto* desc = new PyStructSequence_Desc{qualname->c_str(), nullptr, fields->data(),
                                         static_cast<int>(s.returns.size())};
  PyTypeObject* t = PyStructSequence_NewType(desc);
  if (t) {
    t->tp_repr = fields_repr;
    PyType_Modified(t);
  }
  return t;
}

}  // namespace

PyTypeObject* return_type_of(const FunctionSchema& s) {
  std::string name = type_name(s);
  if (name.empty()) return nullptr;
  auto it = types().find(name);
  return it == types().end() ? nullptr : it->second;
}

bool init_return_types() {
  PyObject* m = module("torch._C._return_types");
  if (!m) return false;
  for (size_t i = 0; i < all_ops().size(); ++i) {
    const FunctionSchema& s = schema_of(i);
    std::string name = type_name(s);
    if (name.empty() || types().count(name)) continue;
    PyTypeObject* t = make_type(name, s);
    if (!t || PyModule_AddObjectRef(m, name.c_str(), reinterpret_cast<PyObject*>(t)) != 0)
      return false;
    types().emplace(name, t);
  }
  return true;
}

}  // namespace tn::py
