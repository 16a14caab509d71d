// Global and per-thread state of torch._C that must answer truly rather than refuse: grad mode,
// boolean flags with getter/setter pairs, build flags, and functions that are no-ops on a CPU-only
// build. Each is a table row; a row names upstream's spelling and our answer.
#include <string>
#include <vector>

#include "autograd/forward_grad.h"
#include "autograd/grad_mode.h"
#include "core/determinism.h"
#include "core/tensor_impl.h"
#include "kernels/cpu/cpu_isa.h"
#include "python/init.h"

namespace tn::py {
namespace {

// A boolean setting read and written through a getter/setter pair.
struct Flag {
  const char* getter;
  const char* setter;  // nullptr: read-only
  bool value;
  bool per_thread;
};

// clang-format off
std::vector<Flag> g_flags = {
    // grad mode (row 0: held by the core's autograd layer) and friends (per thread, as upstream's)
    {"is_grad_enabled", "_set_grad_enabled", true, true},
    {"is_inference_mode_enabled", nullptr, false, true},
    {"_is_fwd_grad_enabled", "_set_fwd_grad_enabled", true, true},
    {"_is_multithreading_enabled", "_set_multithreading_enabled", true, true},
    {"_is_view_replay_enabled", "_set_view_replay_enabled", false, true},
    {"is_autocast_cache_enabled", "set_autocast_cache_enabled", true, true},
    // backend switches (a CPU-only core has these as settings, not capabilities)
    {"_get_cudnn_enabled", "_set_cudnn_enabled", true, false},
    {"_get_cudnn_benchmark", "_set_cudnn_benchmark", false, false},
    {"_get_cudnn_deterministic", "_set_cudnn_deterministic", false, false},
    {"_get_cudnn_allow_tf32", "_set_cudnn_allow_tf32", true, false},
    {"_get_mkldnn_enabled", "_set_mkldnn_enabled", true, false},
    {"_get_mkldnn_deterministic", "_set_mkldnn_deterministic", false, false},
    // (the core's, core/determinism.h; _set_deterministic_algorithms takes warn_only= too:
    // kFunctions)
    {"_get_deterministic_algorithms", nullptr, false, false},
    {"_get_deterministic_algorithms_warn_only", nullptr, false, false},
    {"_get_deterministic_fill_uninitialized_memory",
     "_set_deterministic_fill_uninitialized_memory", true, false},
    {"_get_warnAlways", "_set_warnAlways", false, false},
    {"_get_cublas_allow_tf32", "_set_cublas_allow_tf32", false, false},
    {"_get_cublas_allow_fp16_reduced_precision_reduction",
     "_set_cublas_allow_fp16_reduced_precision_reduction", true, false},
    {"_get_cublas_allow_bf16_reduced_precision_reduction",
     "_set_cublas_allow_bf16_reduced_precision_reduction", true, false},
    {"_get_flash_sdp_enabled", "_set_sdp_use_flash", true, false},
    {"_get_mem_efficient_sdp_enabled", "_set_sdp_use_mem_efficient", true, false},
    {"_get_math_sdp_enabled", "_set_sdp_use_math", true, false},
    {"_get_overrideable_sdp_enabled", "_set_sdp_use_overrideable", true, false},
    {"_get_math_sdp_allow_fp16_bf16_reduction", "_set_math_sdp_allow_fp16_bf16_reduction",
     false, false},
    {"_get_cudnn_sdp_enabled", "_set_sdp_use_cudnn", true, false},
    {"_get_miopen_immediate", "_set_miopen_immediate", false, false},
    {"_functionalization_reapply_views_tls", nullptr, false, true},
    {"_only_lift_cpu_tensors", "_set_only_lift_cpu_tensors", false, false},
    {"_are_functorch_transforms_active", nullptr, false, true},
    {"_meta_in_tls_dispatch_include", "_set_meta_in_tls_dispatch_include", false, true},
    {"_dispatch_tls_is_dispatch_key_excluded", nullptr, false, true},
    {"_dispatch_tls_is_dispatch_key_included", nullptr, false, true},
};
// clang-format on

// The rows the core holds (torch.use_deterministic_algorithms's state), by getter; else null.
bool* core_flag(size_t i) {
  const std::string g = g_flags[i].getter;
  Determinism& d = determinism();
  if (g == "_get_deterministic_algorithms") return &d.algorithms;
  if (g == "_get_deterministic_algorithms_warn_only") return &d.warn_only;
  if (g == "_get_deterministic_fill_uninitialized_memory") return &d.fill_uninitialized_memory;
  return nullptr;
}

// Per-thread flags start from the row's default on each thread (-1: not yet set here).
thread_local std::vector<signed char> t_values;

bool flag_value(size_t i) {
  if (i == 0) return grad_mode_enabled();  // the core's (csrc/autograd/grad_mode.h)
  if (i == 1) return inference_mode_enabled();  // the core's (core/tensor_impl.h)
  if (i == 2) return autograd::fw_grad_mode_enabled();  // csrc/autograd/forward_grad.h
  if (bool* core = core_flag(i)) return *core;
  if (!g_flags[i].per_thread) return g_flags[i].value;
  if (t_values.size() <= i) t_values.resize(g_flags.size(), -1);
  return t_values[i] < 0 ? g_flags[i].value : t_values[i] != 0;
}

void set_flag_value(size_t i, bool v) {
  if (i == 0) return set_grad_mode(v);
  if (i == 2) return autograd::set_fw_grad_mode(v);
  if (bool* core = core_flag(i)) {
    *core = v;
    return;
  }
  if (!g_flags[i].per_thread) {
    g_flags[i].value = v;
    return;
  }
  if (t_values.size() <= i) t_values.resize(g_flags.size(), -1);
  t_values[i] = v;
}

PyObject* flag_get(PyObject* self, PyObject* const*, Py_ssize_t) {
  return PyBool_FromLong(flag_value(PyLong_AsSize_t(self)));
}

PyObject* flag_set(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs < 1) {
    PyErr_SetString(PyExc_TypeError, "expected a bool argument");
    return nullptr;
  }
  int v = PyObject_IsTrue(args[0]);
  if (v < 0) return nullptr;
  set_flag_value(PyLong_AsSize_t(self), v);
  Py_RETURN_NONE;
}

PyMethodDef flag_get_def = {"flag_get", reinterpret_cast<PyCFunction>(flag_get), METH_FASTCALL,
                            nullptr};
PyMethodDef flag_set_def = {"flag_set", reinterpret_cast<PyCFunction>(flag_set), METH_FASTCALL,
                            nullptr};

// Functions that do nothing, or return a constant, on a CPU-only build with no tracer.
enum class Answer { None, False, True, Zero, MinusOne, EmptyList, EmptyStr };
struct Fixed {
  const char* name;
  Answer answer;
};

// clang-format off
const Fixed kFixed[] = {
    {"_log_api_usage_once", Answer::None},
    {"_log_api_usage_metadata", Answer::None},
    {"_get_tracing_state", Answer::None},
    {"_jit_set_profiling_executor", Answer::False},
    {"_jit_set_profiling_mode", Answer::False},
    {"_jit_set_num_profiled_runs", Answer::None},
    {"_jit_set_fusion_strategy", Answer::EmptyList},
    {"_jit_set_emit_hooks", Answer::None},
    {"_jit_override_can_fuse_on_cpu", Answer::None},
    {"_jit_override_can_fuse_on_gpu", Answer::None},
    {"_jit_can_fuse_on_cpu", Answer::False},
    {"_jit_can_fuse_on_gpu", Answer::False},
    {"_jit_set_texpr_fuser_enabled", Answer::None},
    {"_jit_texpr_fuser_enabled", Answer::False},
    {"_jit_set_te_must_use_llvm_cpu", Answer::None},
    {"_jit_set_llga_enabled", Answer::None},
    {"_jit_llga_enabled", Answer::False},
    {"_jit_set_nvfuser_enabled", Answer::False},
    {"_jit_nvfuser_enabled", Answer::False},
    {"_jit_get_emit_hooks", Answer::None},
    {"_jit_is_script_object", Answer::False},
    {"_jit_set_logging_option", Answer::None},
    {"_jit_get_logging_option", Answer::EmptyStr},
    {"_jit_set_logging_stream", Answer::None},
    {"_jit_clear_class_registry", Answer::None},
    {"_jit_set_inline_everything_mode", Answer::None},
    {"_jit_get_inline_everything_mode", Answer::False},
    {"_set_print_stack_traces_on_fatal_signal", Answer::None},
    {"_show_config", Answer::EmptyStr},
    {"_cxx_flags", Answer::EmptyStr},
    {"_parallel_info", Answer::EmptyStr},
    {"_set_conj", Answer::None},
    {"_set_neg", Answer::None},
    {"_autograd_init", Answer::True},
    {"_jit_init", Answer::True},
    {"_add_cached_tensor", Answer::None},
    {"_set_check_sparse_tensor_invariants", Answer::None},
    {"_check_sparse_tensor_invariants", Answer::False},
    {"_set_default_mobile_cpu_allocator", Answer::None},
    {"_unset_default_mobile_cpu_allocator", Answer::None},
    {"_will_engine_execute_node", Answer::False},
    {"_set_fp32_precision_setter", Answer::None},
    {"_warn_deprecation", Answer::None},
    {"_tracer_warn_use_python", Answer::None},
    {"_is_tracing", Answer::False},  // the JIT tracer is not implemented: never tracing
    // Upstream renames the tp_name of legacy storage classes; heap types print by __module__.
    {"_init_names", Answer::None},
    // torch.manual_seed asks whether MTIA is in a bad fork; there is no MTIA here.
    {"_mtia_isInBadFork", Answer::False},
    {"_mtia_isBuilt", Answer::False},
    // Device queries that upstream's CPU build answers (no such device here either).
    {"_mtia_getDeviceCount", Answer::Zero},
    {"_mps_is_available", Answer::False},
    {"_mps_is_in_bad_fork", Answer::False},
    {"_accelerator_hooks_device_count", Answer::MinusOne},
    {"_has_distributed", Answer::True},
    {"_c10d_init", Answer::True},  // torch.distributed's import asks it once  // c10d is on (Note [torch.distributed in one process])
};
// clang-format on

PyObject* fixed_call(PyObject* self, PyObject* const*, Py_ssize_t, PyObject*) {
  switch (static_cast<Answer>(PyLong_AsLong(self))) {
    case Answer::None: Py_RETURN_NONE;
    case Answer::False: Py_RETURN_FALSE;
    case Answer::True: Py_RETURN_TRUE;
    case Answer::Zero: return PyLong_FromLong(0);
    case Answer::MinusOne: return PyLong_FromLong(-1);
    case Answer::EmptyList: return PyList_New(0);
    case Answer::EmptyStr: return PyUnicode_FromString("");
  }
  Py_RETURN_NONE;
}

PyMethodDef fixed_def = {"fixed", reinterpret_cast<PyCFunction>(fixed_call),
                         METH_FASTCALL | METH_KEYWORDS, nullptr};

// A builtin function named `name` bound to `self`, with an owned PyMethodDef so that
// _add_docstr can give each its own doc.
PyObject* named_builtin(const PyMethodDef& proto, const char* name, PyObject* self) {
  auto* def = new PyMethodDef(proto);  // lives as long as the function: the process
  def->ml_name = name;
  PyObject* modname = PyUnicode_FromString("torch._C");
  PyObject* f = PyCFunction_NewEx(def, self, modname);
  Py_DECREF(modname);
  return f;
}

// functorch's predicates: no functorch transform wraps tensors here, so every answer is False.
const char* const kFunctorchFalse[] = {
    "is_functorch_wrapped_tensor", "is_batchedtensor", "is_legacy_batchedtensor",
    "is_gradtrackingtensor", "is_functionaltensor", "_are_functorch_transforms_active"};

// Build flags: explicit answers, never placeholders (PRIOR_ART.md, wall 8).
const std::pair<const char*, bool> kBuildFlags[] = {
    {"_has_cuda", false},    {"_has_magma", false},      {"_has_xpu", false},
    {"_has_mps", false},     {"_has_mkldnn", false},     {"_has_mkldnn_acl", false},
    {"_has_cudnn", false},   {"_has_cusparselt", false}, {"has_lapack", false},
    {"has_mkl", false},      {"has_openmp", false},      {"has_spectral", false},
    {"_has_kleidiai", false},
};

// Name registries: a register function adds a string, a query function tests for it.
struct Registry {
  const char* add;
  const char* query;
};
const Registry kRegistries[] = {
    {"_register_opaque_type", "_is_opaque_type_registered"},
};

PyObject* registry_add(PyObject* set, PyObject* arg) {
  if (PySet_Add(set, arg) != 0) return nullptr;
  Py_RETURN_NONE;
}
PyObject* registry_query(PyObject* set, PyObject* arg) {
  int r = PySet_Contains(set, arg);
  if (r < 0) return nullptr;
  return PyBool_FromLong(r);
}
PyMethodDef registry_add_def = {"add", registry_add, METH_O, nullptr};
PyMethodDef registry_query_def = {"query", registry_query, METH_O, nullptr};

// _stash_obj_in_tls / _get_obj_in_tls / _is_key_in_tls: a per-thread dict of Python objects
// (upstream keeps it in its Python thread-local state).
PyObject* tls_dict() {
  PyObject* d = PyThreadState_GetDict();  // borrowed, per thread
  if (!d) return nullptr;
  PyObject* mine = PyDict_GetItemString(d, "torch._C.tls_objects");
  if (!mine) {
    mine = PyDict_New();
    PyDict_SetItemString(d, "torch._C.tls_objects", mine);
    Py_DECREF(mine);
  }
  return mine;
}
PyObject* tls_stash(PyObject*, PyObject* args) {
  PyObject *key, *value;
  if (!PyArg_ParseTuple(args, "UO:_stash_obj_in_tls", &key, &value)) return nullptr;
  PyObject* d = tls_dict();
  if (!d || PyDict_SetItem(d, key, value) != 0) return nullptr;
  Py_RETURN_NONE;
}
PyObject* tls_get(PyObject*, PyObject* key) {
  PyObject* d = tls_dict();
  PyObject* v = d ? PyDict_GetItemWithError(d, key) : nullptr;
  if (!v) {
    if (!PyErr_Occurred()) PyErr_Format(PyExc_KeyError, "%S", key);
    return nullptr;
  }
  return Py_NewRef(v);
}
PyObject* tls_has(PyObject*, PyObject* key) {
  PyObject* d = tls_dict();
  if (!d) return nullptr;
  int r = PyDict_Contains(d, key);
  if (r < 0) return nullptr;
  return PyBool_FromLong(r);
}
PyObject* tls_remove(PyObject*, PyObject* key) {
  PyObject* d = tls_dict();
  if (!d) return nullptr;
  if (PyDict_DelItem(d, key) != 0) {
    PyErr_Clear();  // absent is fine
  }
  Py_RETURN_NONE;
}
// _get_cpu_capability: the instruction set our CPU kernels run at, in upstream's spelling.
PyObject* cpu_capability(PyObject*, PyObject*) {
  return PyUnicode_FromString(cpu::isa_name(cpu::isa()));
}

// _set_deterministic_algorithms(bool mode, *, bool warn_only=False): bools only, upstream's
// argument errors.
PyObject* set_deterministic(PyObject*, PyObject* args, PyObject* kwargs) {
  const char* fn = "_set_deterministic_algorithms()";
  const Py_ssize_t n = PyTuple_GET_SIZE(args);
  if (n > 1) {
    PyErr_Format(PyExc_TypeError, "%s takes 1 positional argument but %zd were given", fn, n);
    return nullptr;
  }
  PyObject* mode = n == 1 ? PyTuple_GET_ITEM(args, 0) : nullptr;
  PyObject* warn_only = Py_False;
  if (kwargs) {
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    while (PyDict_Next(kwargs, &pos, &key, &value)) {
      if (PyUnicode_CompareWithASCIIString(key, "warn_only") == 0) {
        warn_only = value;
      } else if (PyUnicode_CompareWithASCIIString(key, "mode") == 0 && !mode) {
        mode = value;
      } else {
        PyErr_Format(PyExc_TypeError, "%s got an unexpected keyword argument '%U'", fn, key);
        return nullptr;
      }
    }
  }
  if (!mode) {
    PyErr_Format(PyExc_TypeError, "%s missing 1 required positional argument: 'mode'", fn);
    return nullptr;
  }
  const char* names[] = {"mode", "warn_only"};
  PyObject* given[] = {mode, warn_only};
  for (int i = 0; i < 2; ++i) {
    if (!PyBool_Check(given[i])) {
      PyErr_Format(PyExc_TypeError, "%s: argument '%s'%s must be bool, not %s",
                   "_set_deterministic_algorithms()", names[i], i == 0 ? " (position 1)" : "",
                   Py_TYPE(given[i])->tp_name);
      return nullptr;
    }
  }
  determinism().algorithms = mode == Py_True;
  determinism().warn_only = warn_only == Py_True;
  Py_RETURN_NONE;
}

PyMethodDef kFunctions[] = {
    {"_get_cpu_capability", cpu_capability, METH_NOARGS, nullptr},
    {"_set_deterministic_algorithms", reinterpret_cast<PyCFunction>(set_deterministic),
     METH_VARARGS | METH_KEYWORDS, nullptr},
    {"_remove_obj_from_tls", tls_remove, METH_O, nullptr},
    {"_stash_obj_in_tls", tls_stash, METH_VARARGS, nullptr},
    {"_get_obj_in_tls", tls_get, METH_O, nullptr},
    {"_is_key_in_tls", tls_has, METH_O, nullptr},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace


PyObject* make_builtin(const PyMethodDef& proto, const char* name, PyObject* self) {
  return named_builtin(proto, name, self);
}

bool init_state() {
  const char* c = "torch._C";
  for (size_t i = 0; i < g_flags.size(); ++i) {
    PyObject* idx = PyLong_FromSize_t(i);
    if (!add(c, g_flags[i].getter, named_builtin(flag_get_def, g_flags[i].getter, idx)))
      return false;
    if (g_flags[i].setter &&
        !add(c, g_flags[i].setter, named_builtin(flag_set_def, g_flags[i].setter, idx)))
      return false;
    Py_DECREF(idx);
  }
  for (const Fixed& f : kFixed) {
    PyObject* a = PyLong_FromLong(static_cast<long>(f.answer));
    if (!add(c, f.name, named_builtin(fixed_def, f.name, a))) return false;
    Py_DECREF(a);
  }
  for (const Registry& r : kRegistries) {
    PyObject* set = PySet_New(nullptr);
    if (!add(c, r.add, named_builtin(registry_add_def, r.add, set)) ||
        !add(c, r.query, named_builtin(registry_query_def, r.query, set)))
      return false;
    Py_DECREF(set);
  }
  // Functionalization wraps no tensor here either (torch._is_functional_tensor and friends).
  for (const char* n : {"_is_functional_tensor", "_is_functional_tensor_base"}) {
    PyObject* a = PyLong_FromLong(static_cast<long>(Answer::False));
    if (!add("torch._C._VariableFunctions", n, named_builtin(fixed_def, n, a))) return false;
    Py_DECREF(a);
  }
  for (const char* n : kFunctorchFalse) {
    PyObject* a = PyLong_FromLong(static_cast<long>(Answer::False));
    if (!add("torch._C._functorch", n, named_builtin(fixed_def, n, a))) return false;
    Py_DECREF(a);
  }
  for (PyMethodDef* d = kFunctions; d->ml_name; ++d)
    if (!add(c, d->ml_name, named_builtin(*d, d->ml_name, nullptr))) return false;
  for (const auto& [name, value] : kBuildFlags)
    if (!add(c, name, PyBool_FromLong(value))) return false;
  return true;
}

}  // namespace tn::py
