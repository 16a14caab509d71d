// torch.Size: a tuple subclass of ints.
#pragma once

#include "core/tensor_impl.h"
#include "python/surface.h"

namespace tn::py {

extern PyTypeObject SizeType;
PyObject* size_object(const Dims& dims);  // new reference

}  // namespace tn::py
