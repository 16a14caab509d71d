// Loading OpenBLAS with a kernel family chosen from the CPU's features (see blas_loader.h).
#include "kernels/cpu/blas_loader.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

#include "core/error.h"

namespace tn {
namespace {

// OpenBLAS's name for the widest kernel family this CPU runs, or nullptr to let it detect.
const char* coretype_for_this_cpu() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq"))
    return "SkylakeX";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "Haswell";
  return nullptr;
}

template <typename F>
F symbol(void* lib, const char* name) {
  void* p = dlsym(lib, name);
  TN_CHECK(p, "torchnative: ", name, " is missing from ", TN_OPENBLAS_PATH);
  return reinterpret_cast<F>(p);
}

}  // namespace

const Blas& blas() {
  static Blas b;
  static std::once_flag once;
  std::call_once(once, [] {
    if (const char* core = coretype_for_this_cpu()) setenv("OPENBLAS_CORETYPE", core, 0);
    void* lib = dlopen(TN_OPENBLAS_PATH, RTLD_NOW | RTLD_LOCAL);
    TN_CHECK(lib, "torchnative: cannot load OpenBLAS from ", TN_OPENBLAS_PATH, ": ", dlerror());
    b.sgemm = symbol<decltype(b.sgemm)>(lib, "cblas_sgemm");
    b.dgemm = symbol<decltype(b.dgemm)>(lib, "cblas_dgemm");
    b.set_num_threads = symbol<void (*)(int)>(lib, "openblas_set_num_threads");
  });
  return b;
}

}  // namespace tn
