// The hand-written parts of torch._C, each with one init function run by PyInit__C in this order
// (later parts may use objects earlier ones registered). Each returns false with a Python error.
#pragma once

#include "python/surface.h"

namespace tn::py {

bool init_dtypes();     // dtype.cpp: torch.dtype, layout, memory_format, qscheme objects
bool init_device();     // device.cpp: torch.device
bool init_size();       // size.cpp: torch.Size
bool init_tensor();     // tensor.cpp: _TensorMeta, TensorBase
bool init_state();      // state.cpp: grad mode, flags and getters that must answer truly
bool init_functions();  // functions.cpp: module functions that are not operators
bool init_ops();        // ops.cpp: torch.X / _nn / _fft / ... operator spellings
bool init_schema();     // schema.cpp: FunctionSchema, Argument and the registry functions
bool init_library();    // library.cpp: _dispatch_library and Python kernels
bool init_typeinfo();   // typeinfo.cpp: torch.finfo, torch.iinfo
bool init_generator();  // generator.cpp: torch.Generator, default_generator
bool init_torch_function();  // torch_function.cpp: __torch_function__ state and mode stack
bool init_tensor_new();      // tensor_new.cpp: torch.tensor, as_tensor, from_numpy, .numpy()
bool init_storage();         // storage.cpp: StorageBase, from_file, untyped_storage()
bool init_dynamo();          // dynamo.cpp: eval_frame state cells
bool init_tensor_convert();  // tensor_convert.cpp: Tensor.to, float(), ..., type()
bool init_file_reader();     // file_reader.cpp: PyTorchFileReader (torch.load's archives)
bool init_file_writer();     // file_writer.cpp: PyTorchFileWriter (torch.save's archives)
bool init_nonzero();         // nonzero.cpp: torch.nonzero and Tensor.nonzero (as_tuple=)
bool init_backends();        // backends.cpp: _tn_ queries of the back-end contract
bool init_dispatch_mode();   // dispatch_mode.cpp: the Python key, TorchDispatchMode's stack
bool init_py_kernels();      // py_kernel.cpp: torch.library's Python kernels, redispatch, key guards
bool init_script_object();   // script_object.cpp: torch.ScriptObject (torch.classes instances)
bool init_autograd_function();  // autograd_function.cpp: _FunctionBase (torch.autograd.Function)
bool init_autocast();        // autocast.cpp: autocast's state (enabling it refuses)
bool init_saved_tensors();   // saved_tensors.cpp: saved-tensor hooks, SavedTensor, graph task
bool init_inference_mode();  // inference_mode.cpp: torch._C._InferenceMode
bool init_return_types();    // return_types.cpp: torch._C._return_types' named tuples
bool init_distributed();     // distributed.cpp: c10d's ReduceOp, DebugLevel, debug-level functions
bool init_placements();      // placement.cpp: torch._C._distributed's DTensor placements

// Run after the placeholders exist: parts that replace members of placeholder classes.
bool init_jit_late();             // jit.cpp
bool init_dispatch_keys_late();   // dispatch_keys.cpp
bool init_schema_late();          // schema.cpp: JIT type objects
bool init_autograd_late();        // autograd.cpp: grad_fn classes, _ImperativeEngine.run_backward
bool init_distributed_late();     // distributed.cpp: ProcessGroup.BackendType

// torch._opaque_base.OpaqueBaseMeta (new reference), the metaclass upstream binds ProcessGroup
// and DTensor's placements with; plain `type` when _C is loaded without the torch package.
PyObject* opaque_base_meta();  // distributed.cpp

using InitFn = bool (*)();
inline constexpr InitFn kInitFunctions[] = {
    init_dtypes, init_device, init_size, init_tensor, init_state, init_functions, init_ops, init_schema,
    init_library, init_typeinfo, init_generator,
    init_torch_function, init_tensor_new, init_storage,
    init_dynamo, init_tensor_convert, init_file_reader, init_file_writer, init_nonzero, init_backends, init_dispatch_mode, init_py_kernels,
    init_script_object, init_autograd_function, init_autocast, init_saved_tensors,
    init_inference_mode, init_return_types, init_distributed,
    init_placements,
};
inline constexpr InitFn kLateInitFunctions[] = {init_jit_late, init_dispatch_keys_late,
                                                  init_schema_late, init_autograd_late,
                                                  init_distributed_late};

}  // namespace tn::py
