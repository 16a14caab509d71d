// PyInit__C: creates torch._C and its submodules, runs each hand-written part's init, then fills
// the rest of the name surface with placeholders (surface.cpp).
#include "python/init.h"
#include "python/surface.h"

PyMODINIT_FUNC PyInit__C() {
  using namespace tn::py;
  PyObject* m = module("torch._C");
  if (!m) return nullptr;
  if (!init_placeholder_types()) return nullptr;
  for (InitFn fn : kInitFunctions) {
    if (!fn()) return nullptr;
  }
  if (!build_surface()) return nullptr;
  for (InitFn fn : kLateInitFunctions) {
    if (!fn()) return nullptr;
  }
  return Py_NewRef(m);
}
