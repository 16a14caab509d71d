// Loading the configured BLAS (see blas_loader.h).
#include "kernels/cpu/blas_loader.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <string>

#include "core/error.h"

namespace tn {
namespace {

template <typename F>
F symbol(void* lib, const char* name, const char* path) {
  void* p = dlsym(lib, name);
  TN_CHECK(p, "torchnative: ", name, " is missing from ", path);
  return reinterpret_cast<F>(p);
}

#if defined(TN_MKL_RT_PATH)

// MKL's threading layers (mkl_service.h): 3 is GNU OpenMP.
constexpr int kMklThreadingGnu = 3;

void load(Blas& b) {
  const char* path = std::getenv("TN_MKL_RT");
  if (!path || !*path) path = TN_MKL_RT_PATH;
  // libmkl_gnu_thread expects libgomp's symbols in the global namespace (MKL's link line for
  // the GNU layer names -lgomp); libmkl_rt finds its other parts beside itself.
  void* gomp = dlopen("libgomp.so.1", RTLD_NOW | RTLD_GLOBAL);
  TN_CHECK(gomp, "torchnative: cannot load libgomp.so.1 (Debian's libgomp1), which MKL's GNU "
           "OpenMP layer needs: ", dlerror());
  void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  TN_CHECK(lib, "torchnative: cannot load oneMKL from ", path, " (the `mkl` wheel of "
           "tools/setup/requirements.txt; `make setup` installs it, TN_MKL_RT overrides the "
           "path): ", dlerror());
  auto set_layer = symbol<int (*)(int)>(lib, "MKL_Set_Threading_Layer", path);
  TN_CHECK(set_layer(kMklThreadingGnu) == kMklThreadingGnu,
           "torchnative: oneMKL refused its GNU OpenMP threading layer (", path, ")");
  b.name = "mkl";
  b.sgemm = symbol<decltype(b.sgemm)>(lib, "cblas_sgemm", path);
  b.dgemm = symbol<decltype(b.dgemm)>(lib, "cblas_dgemm", path);
  b.sdot = symbol<decltype(b.sdot)>(lib, "cblas_sdot", path);
  b.ddot = symbol<decltype(b.ddot)>(lib, "cblas_ddot", path);
  b.cdotu = symbol<decltype(b.cdotu)>(lib, "cblas_cdotu_sub", path);
  b.zdotu = symbol<decltype(b.zdotu)>(lib, "cblas_zdotu_sub", path);
  b.cdotc = symbol<decltype(b.cdotc)>(lib, "cblas_cdotc_sub", path);
  b.zdotc = symbol<decltype(b.zdotc)>(lib, "cblas_zdotc_sub", path);
  b.sgemv = symbol<decltype(b.sgemv)>(lib, "cblas_sgemv", path);
  b.dgemv = symbol<decltype(b.dgemv)>(lib, "cblas_dgemv", path);
  b.cgemv = symbol<decltype(b.cgemv)>(lib, "cblas_cgemv", path);
  b.zgemv = symbol<decltype(b.zgemv)>(lib, "cblas_zgemv", path);
  b.strsm = symbol<decltype(b.strsm)>(lib, "cblas_strsm", path);
  b.dtrsm = symbol<decltype(b.dtrsm)>(lib, "cblas_dtrsm", path);
  b.ctrsm = symbol<decltype(b.ctrsm)>(lib, "cblas_ctrsm", path);
  b.ztrsm = symbol<decltype(b.ztrsm)>(lib, "cblas_ztrsm", path);
  b.cgemm = symbol<decltype(b.cgemm)>(lib, "cblas_cgemm", path);
  b.zgemm = symbol<decltype(b.zgemm)>(lib, "cblas_zgemm", path);
  b.handle = lib;
  b.set_num_threads = symbol<void (*)(int)>(lib, "MKL_Set_Num_Threads", path);
  b.sgemm_batch = symbol<Blas::SgemmBatch>(lib, "cblas_sgemm_batch", path);
  b.dgemm_batch = symbol<Blas::DgemmBatch>(lib, "cblas_dgemm_batch", path);
  static const char* const kVml[] = {"Sqrt", "Exp", "Ln",  "Log2", "Log10",
                                     "Sin",  "Cos", "Tan", "Tanh", "Erf",
                                     "Acos", "Asin", "Atan", "Erfc", "ErfInv"};
  static_assert(sizeof(kVml) / sizeof(kVml[0]) == static_cast<size_t>(VmlFn::kCount));
  for (size_t i = 0; i < sizeof(kVml) / sizeof(kVml[0]); ++i) {
    b.vml_s[i] = symbol<VmlS>(lib, (std::string("vms") + kVml[i]).c_str(), path);
    b.vml_d[i] = symbol<VmlD>(lib, (std::string("vmd") + kVml[i]).c_str(), path);
  }
}

#else

// OpenBLAS's name for the widest kernel family this CPU runs, or nullptr to let it detect.
const char* coretype_for_this_cpu() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq"))
    return "SkylakeX";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "Haswell";
  return nullptr;
}

void load(Blas& b) {
  const char* path = TN_OPENBLAS_PATH;
  if (const char* core = coretype_for_this_cpu()) setenv("OPENBLAS_CORETYPE", core, 0);
  void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  TN_CHECK(lib, "torchnative: cannot load OpenBLAS from ", path, ": ", dlerror());
  b.name = "openblas";
  b.sgemm = symbol<decltype(b.sgemm)>(lib, "cblas_sgemm", path);
  b.dgemm = symbol<decltype(b.dgemm)>(lib, "cblas_dgemm", path);
  b.sdot = symbol<decltype(b.sdot)>(lib, "cblas_sdot", path);
  b.ddot = symbol<decltype(b.ddot)>(lib, "cblas_ddot", path);
  b.cdotu = symbol<decltype(b.cdotu)>(lib, "cblas_cdotu_sub", path);
  b.zdotu = symbol<decltype(b.zdotu)>(lib, "cblas_zdotu_sub", path);
  b.cdotc = symbol<decltype(b.cdotc)>(lib, "cblas_cdotc_sub", path);
  b.zdotc = symbol<decltype(b.zdotc)>(lib, "cblas_zdotc_sub", path);
  b.sgemv = symbol<decltype(b.sgemv)>(lib, "cblas_sgemv", path);
  b.dgemv = symbol<decltype(b.dgemv)>(lib, "cblas_dgemv", path);
  b.cgemv = symbol<decltype(b.cgemv)>(lib, "cblas_cgemv", path);
  b.zgemv = symbol<decltype(b.zgemv)>(lib, "cblas_zgemv", path);
  b.strsm = symbol<decltype(b.strsm)>(lib, "cblas_strsm", path);
  b.dtrsm = symbol<decltype(b.dtrsm)>(lib, "cblas_dtrsm", path);
  b.ctrsm = symbol<decltype(b.ctrsm)>(lib, "cblas_ctrsm", path);
  b.ztrsm = symbol<decltype(b.ztrsm)>(lib, "cblas_ztrsm", path);
  b.cgemm = symbol<decltype(b.cgemm)>(lib, "cblas_cgemm", path);
  b.zgemm = symbol<decltype(b.zgemm)>(lib, "cblas_zgemm", path);
  b.handle = lib;
  b.set_num_threads = symbol<void (*)(int)>(lib, "openblas_set_num_threads", path);
}

#endif

}  // namespace

const Blas& blas() {
  static Blas b;
  static std::once_flag once;
  std::call_once(once, [] { load(b); });
  return b;
}

}  // namespace tn
