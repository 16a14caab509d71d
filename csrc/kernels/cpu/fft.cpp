// The FFT primitives: aten::_fft_r2c, _fft_c2r, _fft_c2c and their out= forms, for DenseCPU and
// Meta (a template flag apart: Meta makes the output's geometry alone, with the strides of
// upstream's meta rules). Computed with oneMKL's DFTI, the library upstream's x86 CPU wheel
// computes them with, configured as upstream's mkl/SpectralOps.cpp configures it (Note [FFT
// through DFTI]) so that results carry its bits. With TN_BLAS=openblas they refuse by name.
// The torch.fft functions over these primitives are kernels/composite/fft.cpp.
#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "core/promotion.h"
#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"
#include "kernels/cpu/blas_loader.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/rules/reduce_rules.h"

// Note [FFT through DFTI]
// Upstream builds one DFTI descriptor per call (no plan cache on the CPU): precision from the
// value type, domain REAL for r2c/c2r and COMPLEX for c2c, the signal lengths, out of place,
// the batch dims permuted first (by decreasing input stride), collapsed by reshape into one
// batch of NUMBER_OF_TRANSFORMS with INPUT/OUTPUT_DISTANCE, the signal dims' strides given as
// INPUT/OUTPUT_STRIDES (in elements of each side's type), CONJUGATE_EVEN_STORAGE =
// COMPLEX_COMPLEX when a real domain is involved, and the normalisation as FORWARD_SCALE or
// BACKWARD_SCALE (a double: 1/n or 1/sqrt(n) of the signal's element count). The output is
// allocated contiguous in that permuted, batched order, then viewed back with the matching
// strides. Reproducing each of these (the same strides reach MKL, which picks its kernels from
// them) is what makes the bits agree. A c2r over several dims is a c2c over all but the last
// followed by a one-dim c2r (each scaled by its own part of n); a two-sided r2c computes the
// one-sided half and fills the rest with conjugates (Hermitian symmetry), a copy.
//
// DFTI is reached through the dlopen handle of libmkl_rt (kernels/cpu/blas_loader.h); no MKL
// header is installed, so the enum values below are mkl_dfti.h's, written out.

namespace tn {
namespace {

// mkl_dfti.h: enum DFTI_CONFIG_PARAM and DFTI_CONFIG_VALUE (the members used here).
enum DftiParam : int {
  kDftiForwardScale = 4,
  kDftiBackwardScale = 5,
  kDftiNumberOfTransforms = 7,
  kDftiConjugateEvenStorage = 10,
  kDftiPlacement = 11,
  kDftiInputStrides = 12,
  kDftiOutputStrides = 13,
  kDftiInputDistance = 14,
  kDftiOutputDistance = 15,
};
enum DftiValue : int {
  kDftiComplex = 32,
  kDftiReal = 33,
  kDftiSingle = 35,
  kDftiDouble = 36,
  kDftiComplexComplex = 39,
  kDftiNotInplace = 44,
};
constexpr long kDftiNoError = 0;

// upstream's fft_norm_mode (SpectralOpsUtils.h): the `normalization` argument.
enum class NormMode : int64_t { None = 0, ByRootN = 1, ByN = 2 };

using MklLong = long;  // MKL_LONG: long in both of mkl_rt's interfaces
struct DftiDescriptor;
using DftiHandle = DftiDescriptor*;

// The DFTI entry points of libmkl_rt (the variadic ones as mkl_dfti.h declares them).
struct Dfti {
  MklLong (*create_s_1d)(DftiHandle*, int, ...);
  MklLong (*create_s_md)(DftiHandle*, int, MklLong, ...);
  MklLong (*create_d_1d)(DftiHandle*, int, ...);
  MklLong (*create_d_md)(DftiHandle*, int, MklLong, ...);
  MklLong (*set_value)(DftiHandle, int, ...);
  MklLong (*commit)(DftiHandle);
  MklLong (*compute_forward)(DftiHandle, void*, ...);
  MklLong (*compute_backward)(DftiHandle, void*, ...);
  MklLong (*free_descriptor)(DftiHandle*);
  char* (*error_message)(MklLong);
  MklLong (*error_class)(MklLong, MklLong);
};

template <typename F>
void bind(F& f, void* lib, const char* name) {
  void* p = dlsym(lib, name);
  TN_CHECK(p, "torchnative: ", name, " is missing from the loaded oneMKL (libmkl_rt)");
  f = reinterpret_cast<F>(p);
}

Dfti load_dfti(void* lib) {
  Dfti d{};
  bind(d.create_s_1d, lib, "DftiCreateDescriptor_s_1d");
  bind(d.create_s_md, lib, "DftiCreateDescriptor_s_md");
  bind(d.create_d_1d, lib, "DftiCreateDescriptor_d_1d");
  bind(d.create_d_md, lib, "DftiCreateDescriptor_d_md");
  bind(d.set_value, lib, "DftiSetValue");
  bind(d.commit, lib, "DftiCommitDescriptor");
  bind(d.compute_forward, lib, "DftiComputeForward");
  bind(d.compute_backward, lib, "DftiComputeBackward");
  bind(d.free_descriptor, lib, "DftiFreeDescriptor");
  bind(d.error_message, lib, "DftiErrorMessage");
  bind(d.error_class, lib, "DftiErrorClass");
  return d;
}

// DFTI, or a refusal naming the op when the build's BLAS is not oneMKL.
const Dfti& dfti(const std::string& key) {
  const Blas& b = blas();
  TN_CHECK_KIND(b.handle && std::strcmp(b.name, "mkl") == 0, NotImplemented, key,
                " computes FFTs with oneMKL's DFTI, as upstream's CPU build does; this build "
                "loads ", b.name, " (TN_BLAS=", b.name, "), which has no FFT. Configure with "
                "TN_BLAS=mkl for torch.fft");
  static const Dfti d = load_dfti(b.handle);
  return d;
}

// upstream's MKL_DFTI_CHECK: a failed DFTI call is a RuntimeError with MKL's own message.
void dfti_check(const Dfti& d, MklLong status) {
  if (status != 0 && !d.error_class(status, kDftiNoError))
    TN_FAIL(Runtime, "MKL FFT error: ", d.error_message(status));
}

// Owns one descriptor; freed on every path out (an error thrown between create and free).
struct DescriptorGuard {
  const Dfti& d;
  DftiHandle h = nullptr;
  ~DescriptorGuard() {
    if (h) d.free_descriptor(&h);
  }
};

// --- geometry ---------------------------------------------------------------------------------

// upstream's _sort_dims: dims ordered by decreasing input stride (all but the last when
// exclude_last, for the one-sided dim of r2c). std::sort as upstream's, so ties fall alike.
Dims sort_dims(const Tensor& self, Dims dims, bool exclude_last) {
  const Dims& st = self->strides();
  std::sort(dims.begin(), dims.end() - (exclude_last ? 1 : 0),
            [&](int64_t a, int64_t b) { return st[a] > st[b]; });
  return dims;
}

// upstream's _exec_fft layout: the dim order (batch dims first, by decreasing input stride,
// then the transformed dims as given) and the output's strides, those of a contiguous
// [batch, signal...] tensor viewed back in the original dim order. `stable`: ties keep dim
// order, as the Python meta rule's list sorts do; otherwise std::partition and std::sort as
// upstream's C++ calls them, so that ties (and the strides given to MKL) fall as there.
struct ExecLayout {
  Dims permute;
  int64_t batch_dims = 0;
  Dims out_strides;
  Dims batched_out_sizes;  // [batch, out sizes of the transformed dims]
};

ExecLayout exec_layout(const Dims& sizes, const Dims& strides, const Dims& out_sizes,
                       const Dims& dims, bool stable) {
  const int64_t ndim = static_cast<int64_t>(sizes.size());
  ExecLayout l;
  l.permute.resize(ndim);
  std::iota(l.permute.begin(), l.permute.end(), int64_t{0});
  std::vector<bool> transformed(ndim, false);
  for (int64_t d : dims) transformed[d] = true;
  auto is_batch = [&](int64_t d) { return !transformed[d]; };
  auto by_stride = [&](int64_t a, int64_t b) { return strides[a] > strides[b]; };
  auto batch_end = stable ? std::stable_partition(l.permute.begin(), l.permute.end(), is_batch)
                          : std::partition(l.permute.begin(), l.permute.end(), is_batch);
  if (stable) std::stable_sort(l.permute.begin(), batch_end, by_stride);
  else std::sort(l.permute.begin(), batch_end, by_stride);
  std::copy(dims.begin(), dims.end(), batch_end);
  l.batch_dims = ndim - static_cast<int64_t>(dims.size());

  int64_t batch = 1;
  for (int64_t i = 0; i < l.batch_dims; ++i) batch *= sizes[l.permute[i]];
  l.batched_out_sizes = {batch};
  for (int64_t d : dims) l.batched_out_sizes.push_back(out_sizes[d]);
  const Dims contiguous = contiguous_strides(l.batched_out_sizes);

  l.out_strides.assign(ndim, 0);
  int64_t batch_numel = 1;
  for (int64_t i = l.batch_dims - 1; i >= 0; --i) {
    l.out_strides[l.permute[i]] = batch_numel * contiguous[0];
    batch_numel *= out_sizes[l.permute[i]];
  }
  for (int64_t i = l.batch_dims; i < ndim; ++i)
    l.out_strides[l.permute[i]] = contiguous[1 + (i - l.batch_dims)];
  return l;
}

// --- meta -------------------------------------------------------------------------------------
// Upstream's meta kernels for these ops are Python (torch/_meta_registrations.py), and they
// take a meta tensor for a CUDA one (device_hint), so a meta result has cuFFT's strides:
// transforms staged at most three dims at a time, each stage re-sorted by the working
// tensor's strides. Reproduced here on sizes and strides alone.

struct Geometry {
  Dims sizes, strides;
};
constexpr size_t kCufftMaxNdim = 3;

Geometry meta_exec(const Geometry& in, const Dims& out_sizes, const Dims& dims) {
  return {out_sizes, exec_layout(in.sizes, in.strides, out_sizes, dims, true).out_strides};
}
void stable_sort_by_stride(Dims& dims, const Dims& strides) {
  std::stable_sort(dims.begin(), dims.end(),
                   [&](int64_t a, int64_t b) { return strides[a] > strides[b]; });
}
// The meta rule's use_optimized_cufft_path.
bool cufft_one_stage(const Dims& dims) {
  return !(dims.size() > kCufftMaxNdim || (dims.size() >= 2 && dims[0] == 0 && dims[1] == 1));
}
Geometry contiguous_like(const Geometry& g) { return {g.sizes, contiguous_strides(g.sizes)}; }

// Stages of at most three dims from the end of `dims`, each over the previous stage's output.
Geometry meta_stages(Geometry working, Dims dims, const Dims& out_sizes) {
  while (!dims.empty()) {
    stable_sort_by_stride(dims, working.strides);
    const size_t k = std::min(kCufftMaxNdim, dims.size());
    working = meta_exec(working, out_sizes, Dims(dims.end() - k, dims.end()));
    dims.resize(dims.size() - k);
  }
  return working;
}

Geometry meta_c2c(const Geometry& self, const Dims& dims) {
  return meta_stages(self, dims, self.sizes);
}

Geometry meta_r2c(const Geometry& self, const Dims& dims, bool onesided) {
  const int64_t last = dims.back();
  Dims out_sizes = self.sizes, half_sizes = self.sizes;
  half_sizes[last] = self.sizes[last] / 2 + 1;
  if (onesided) out_sizes[last] = half_sizes[last];
  Geometry out;
  if (cufft_one_stage(dims)) {
    out = meta_exec(self, out_sizes, dims);
  } else {
    out = meta_exec(self, dims.size() == 1 ? out_sizes : half_sizes, {last});
    out = meta_stages(out, Dims(dims.begin(), dims.end() - 1), half_sizes);
  }
  if (!onesided && out.sizes[last] != out_sizes[last]) out = contiguous_like({out_sizes, {}});
  return out;
}

Geometry meta_c2r(const Geometry& self, const Dims& dims, int64_t last_dim_size) {
  Dims out_sizes = self.sizes;
  out_sizes[dims.back()] = last_dim_size;
  if (cufft_one_stage(dims)) return meta_exec(contiguous_like(self), out_sizes, dims);
  Geometry temp = dims.size() > 1 ? meta_c2c(self, Dims(dims.begin(), dims.end() - 1))
                                  : contiguous_like(self);
  return meta_exec(temp, out_sizes, {dims.back()});
}

Geometry geometry(const Tensor& t) { return {t->sizes(), t->strides()}; }
Tensor empty_like_geometry(const Geometry& g, ScalarType dtype, const Tensor& like) {
  return ops::empty_strided(g.sizes, g.strides, dtype, like->device());
}

// --- the transform ----------------------------------------------------------------------------

// Builds and commits upstream's descriptor (_plan_mkl_fft) for a batch of transforms.
// signal: [batch, full signal lengths...]; strides in elements of each side's type.
void plan_and_run(const Dfti& d, const Dims& in_strides, const Dims& out_strides,
                  const Dims& signal, bool complex_in, bool complex_out, NormMode norm,
                  bool forward, ScalarType value_type, void* in, void* out) {
  const int64_t signal_ndim = static_cast<int64_t>(signal.size()) - 1;
  const int domain = (forward ? complex_in : complex_out) ? kDftiComplex : kDftiReal;
  const bool single = value_type == ScalarType::Float;
  std::vector<MklLong> lengths(signal.begin() + 1, signal.end());
  DescriptorGuard g{d};
  if (signal_ndim == 1) {
    dfti_check(d, single ? d.create_s_1d(&g.h, domain, lengths[0])
                         : d.create_d_1d(&g.h, domain, lengths[0]));
  } else {
    dfti_check(d, single ? d.create_s_md(&g.h, domain, MklLong(signal_ndim), lengths.data())
                         : d.create_d_md(&g.h, domain, MklLong(signal_ndim), lengths.data()));
  }
  dfti_check(d, d.set_value(g.h, kDftiPlacement, kDftiNotInplace));
  dfti_check(d, d.set_value(g.h, kDftiNumberOfTransforms, MklLong(signal[0])));
  dfti_check(d, d.set_value(g.h, kDftiInputDistance, MklLong(in_strides[0])));
  dfti_check(d, d.set_value(g.h, kDftiOutputDistance, MklLong(out_strides[0])));
  // The first entry is the offset (0, ignored), then one stride per signal dim.
  std::vector<MklLong> is(1 + signal_ndim, 0), os(1 + signal_ndim, 0);
  for (int64_t i = 1; i <= signal_ndim; ++i) {
    is[i] = in_strides[i];
    os[i] = out_strides[i];
  }
  dfti_check(d, d.set_value(g.h, kDftiInputStrides, is.data()));
  dfti_check(d, d.set_value(g.h, kDftiOutputStrides, os.data()));
  if (!complex_in || !complex_out)
    dfti_check(d, d.set_value(g.h, kDftiConjugateEvenStorage, kDftiComplexComplex));
  if (norm != NormMode::None) {
    double n = 1;
    for (int64_t i = 1; i <= signal_ndim; ++i) n *= static_cast<double>(signal[i]);
    const double scale = norm == NormMode::ByRootN ? 1.0 / std::sqrt(n) : 1.0 / n;
    dfti_check(d, d.set_value(g.h, forward ? kDftiForwardScale : kDftiBackwardScale, scale));
  }
  dfti_check(d, d.commit(g.h));
  dfti_check(d, forward ? d.compute_forward(g.h, in, out) : d.compute_backward(g.h, in, out));
}

// upstream's _exec_fft: out (allocated here, of out_dtype) = the transform of self over dims.
Tensor exec_fft(const Tensor& self, const Dims& out_sizes, const Dims& dims, NormMode norm,
                bool forward, ScalarType out_dtype, const std::string& key) {
  const Dfti& d = dfti(key);
  ExecLayout l = exec_layout(self->sizes(), self->strides(), out_sizes, dims, false);
  Tensor out = ops::empty_strided(out_sizes, l.out_strides, out_dtype, self->device());

  Tensor input = call_tensor("aten::permute", {ops::t(self), ops::ints(l.permute)});
  Dims batched = {-1};
  for (int64_t i = l.batch_dims; i < self->dim(); ++i) batched.push_back(input->size(i));
  input = call_tensor("aten::reshape", {ops::t(input), ops::ints(batched)});
  // oneMKL 2024 refuses transforms whose data overlap (a zero stride, as an expanded tensor
  // has): upstream (pytorch#154477) copies such an input contiguous first.
  if (std::count(input->strides().begin(), input->strides().end(), 0) > 0)
    input = ops::clone_contiguous(input);

  Dims signal = {input->size(0)};
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t in_size = input->size(static_cast<int64_t>(i) + 1);
    const int64_t n = std::max(in_size, out_sizes[dims[i]]);
    TN_ASSERT(in_size == n || in_size == n / 2 + 1);
    TN_ASSERT(out_sizes[dims[i]] == n || out_sizes[dims[i]] == n / 2 + 1);
    signal.push_back(n);
  }
  // An empty batch reaches MKL too, which refuses it as upstream's does.
  plan_and_run(d, input->strides(), contiguous_strides(l.batched_out_sizes), signal,
               is_complex(input->dtype()), is_complex(out_dtype), norm, forward,
               to_real_type(input->dtype()), input->dense_cpu_data(key.c_str()),
               out->dense_cpu_data(key.c_str()));
  return out;
}

// upstream's "MKL FFT doesn't support tensors of type: ..." for what is neither float nor
// double underneath.
void check_fft_dtype(ScalarType t) {
  const ScalarType v = to_real_type(t);
  TN_CHECK(v == ScalarType::Float || v == ScalarType::Double,
           "MKL FFT doesn't support tensors of type: ", enum_name(v));
}

Dims wrapped(const Dims& dims, int64_t ndim) {
  Dims r(dims);
  for (int64_t& d : r) d = wrap_dim(d, ndim);
  return r;
}

// --- conjugate symmetry -----------------------------------------------------------------------

// upstream's _fft_fill_with_conjugate_symmetry_: t holds a two-sided transform of which the
// first n/2 + 1 entries along dims.back() are written; the others are filled as
// t[..., j] = conj(t[mirror(i)..., n - j]), mirror(i) = (size - i) % size on the other
// transformed dims. A copy: no arithmetic but the sign of the imaginary part.
template <typename C>
void fill_conjugate_symmetry(const Tensor& t, const Dims& dims, const std::string& key) {
  const int64_t ndim = t->dim();
  const int64_t last = dims.back();
  const int64_t n = t->size(last);
  if (t->numel() == 0 || n <= 2) return;
  std::vector<bool> mirrored(ndim, false);
  for (int64_t d : dims) mirrored[d] = d != last;
  C* base = data_of<C>(t, key);
  const Dims& sz = t->sizes();
  const Dims& st = t->strides();
  // Walk every index with idx[last] in [n/2 + 1, n), row-major over the other dims.
  Dims idx(ndim, 0);
  const int64_t first = n / 2 + 1;
  Dims others;
  for (int64_t d = 0; d < ndim; ++d)
    if (d != last) others.push_back(d);
  while (true) {
    int64_t dst = 0, src = 0;
    for (int64_t d : others) {
      dst += idx[d] * st[d];
      src += (mirrored[d] ? (sz[d] - idx[d]) % sz[d] : idx[d]) * st[d];
    }
    for (int64_t j = first; j < n; ++j) {
      const C v = base[src + (n - j) * st[last]];
      base[dst + j * st[last]] = C(v.real(), -v.imag());
    }
    int64_t k = static_cast<int64_t>(others.size()) - 1;
    for (; k >= 0; --k) {
      const int64_t d = others[k];
      if (++idx[d] < sz[d]) break;
      idx[d] = 0;
    }
    if (k < 0) break;
  }
}

void fill_conjugate_symmetry(const Tensor& t, const Dims& dims, const std::string& key) {
  if (t->dtype() == ScalarType::ComplexFloat) fill_conjugate_symmetry<cfloat>(t, dims, key);
  else fill_conjugate_symmetry<cdouble>(t, dims, key);
}

// --- the ops ----------------------------------------------------------------------------------

void check_complex_input(const Tensor& self) {
  TN_CHECK(is_complex(self->dtype()), "Only supports complex dtypes, but found: ",
           enum_name(self->dtype()));
}

// The three transforms: kMeta is the Meta kernel (the output's geometry alone).

// upstream's _fft_c2c_mkl (an empty dim list is a copy).
template <bool kMeta>
Tensor fft_c2c(const Tensor& self, const Dims& dim, NormMode norm, bool forward,
               const std::string& key) {
  check_complex_input(self);
  if (dim.empty()) return call_tensor("aten::clone", {ops::t(self)});
  if constexpr (kMeta) {
    return empty_like_geometry(meta_c2c(geometry(self), dim), self->dtype(), self);
  }
  check_fft_dtype(self->dtype());
  return exec_fft(self, self->sizes(), sort_dims(self, dim, false), norm, forward,
                  self->dtype(), key);
}

// upstream's _fft_r2c_mkl.
template <bool kMeta>
Tensor fft_r2c(const Tensor& self, const Dims& dim, NormMode norm, bool onesided,
               const std::string& key) {
  TN_CHECK(is_floating(self->dtype()), "Only supports floating-point dtypes, but found: ",
           enum_name(self->dtype()));
  const ScalarType out_dtype = to_complex_type(self->dtype());
  if constexpr (kMeta) {
    return empty_like_geometry(meta_r2c(geometry(self), dim, onesided), out_dtype, self);
  }
  check_fft_dtype(self->dtype());
  Dims out_sizes = self->sizes();
  const int64_t last = dim.back();
  if (onesided) out_sizes[last] = self->size(last) / 2 + 1;
  Tensor out = exec_fft(self, out_sizes, sort_dims(self, dim, true), norm, true, out_dtype, key);
  if (!onesided) fill_conjugate_symmetry(out, dim, key);
  return out;
}

// upstream's _fft_c2r_mkl: several dims are a c2c over all but the last, then a 1-D c2r.
template <bool kMeta>
Tensor fft_c2r(const Tensor& self, Dims dim, NormMode norm, int64_t last_dim_size,
               const std::string& key) {
  check_complex_input(self);
  const ScalarType out_dtype = to_real_type(self->dtype());
  if constexpr (kMeta) {
    return empty_like_geometry(meta_c2r(geometry(self), dim, last_dim_size), out_dtype, self);
  }
  check_fft_dtype(self->dtype());
  Tensor input = self;
  if (dim.size() > 1) {
    input = fft_c2c<false>(self, Dims(dim.begin(), dim.end() - 1), norm, false, key);
    dim = {dim.back()};
  }
  Dims out_sizes = input->sizes();
  out_sizes[dim.back()] = last_dim_size;
  return exec_fft(input, out_sizes, dim, norm, false, out_dtype, key);
}

// As upstream's _plan_mkl_fft reads it: 0 none, 1 by sqrt(n), any other value by n.
NormMode norm_arg(const Call& c, size_t i) {
  const int64_t v = c.to_int(i);
  return v == 0 ? NormMode::None : v == 1 ? NormMode::ByRootN : NormMode::ByN;
}

// The transformed dims, wrapped. r2c and c2r need one (upstream reads dim.back() unchecked).
Dims fft_dims(const Call& c, size_t i, const Tensor& self, bool allow_empty = false) {
  Dims dims = wrapped(c.int_list(i), self->dim());
  TN_CHECK_KIND(allow_empty || !dims.empty(), NotImplemented, c.key(), " over no dims "
                "(dim=[]) is not implemented by torchnative (upstream reads past the list)");
  return dims;
}

// _fft_r2c(Tensor self, int[] dim, int normalization, bool onesided)
template <bool kMeta>
void fft_r2c_kernel(Call& c) {
  const Tensor& self = c.tensor(0);
  c.ret(fft_r2c<kMeta>(self, fft_dims(c, 1, self), norm_arg(c, 2), c.to_bool(3), c.key()));
}
// _fft_c2r(Tensor self, int[] dim, int normalization, SymInt last_dim_size)
template <bool kMeta>
void fft_c2r_kernel(Call& c) {
  const Tensor& self = c.tensor(0);
  c.ret(fft_c2r<kMeta>(self, fft_dims(c, 1, self), norm_arg(c, 2), c.to_int(3), c.key()));
}
// _fft_c2c(Tensor self, SymInt[] dim, int normalization, bool forward)
template <bool kMeta>
void fft_c2c_kernel(Call& c) {
  const Tensor& self = c.tensor(0);
  c.ret(fft_c2c<kMeta>(self, fft_dims(c, 1, self, true), norm_arg(c, 2), c.to_bool(3),
                       c.key()));
}
TN_REGISTER_KERNEL("aten::_fft_r2c", DenseCPU, fft_r2c_kernel<false>);
TN_REGISTER_KERNEL("aten::_fft_r2c", Meta, fft_r2c_kernel<true>);
TN_REGISTER_KERNEL("aten::_fft_c2r", DenseCPU, fft_c2r_kernel<false>);
TN_REGISTER_KERNEL("aten::_fft_c2r", Meta, fft_c2r_kernel<true>);
TN_REGISTER_KERNEL("aten::_fft_c2c", DenseCPU, fft_c2c_kernel<false>);
TN_REGISTER_KERNEL("aten::_fft_c2c", Meta, fft_c2c_kernel<true>);

// The out= forms, as upstream's _fft_*_mkl_out: the functional result resized into out and
// copied; a two-sided r2c copies the one-sided half, then fills the rest in out itself.
void write_into(const Tensor& out, const Tensor& result) {
  check_out_device(out, result->device());
  resize_out(out, result->sizes());
  ops::copy_(out, result);
}

// _fft_r2c.out(self, dim, normalization, onesided, *, out)
template <bool kMeta>
void fft_r2c_out_kernel(Call& c) {
  const Tensor& self = c.tensor(0);
  const Tensor& out = c.tensor(4);
  const Dims dims = fft_dims(c, 1, self);
  Tensor half = fft_r2c<kMeta>(self, dims, norm_arg(c, 2), true, c.key());
  if (c.to_bool(3)) {
    write_into(out, half);
  } else {
    check_out_device(out, half->device());
    resize_out(out, self->sizes());
    ops::copy_(ops::narrow(out, dims.back(), 0, half->size(dims.back())), half);
    if constexpr (!kMeta) fill_conjugate_symmetry(out, dims, c.key());
  }
  c.ret(out);
}
// _fft_c2r.out(self, dim, normalization, last_dim_size, *, out)
template <bool kMeta>
void fft_c2r_out_kernel(Call& c) {
  const Tensor& self = c.tensor(0);
  write_into(c.tensor(4), fft_c2r<kMeta>(self, fft_dims(c, 1, self), norm_arg(c, 2),
                                         c.to_int(3), c.key()));
  c.ret(c.tensor(4));
}
// _fft_c2c.out(self, dim, normalization, forward, *, out)
template <bool kMeta>
void fft_c2c_out_kernel(Call& c) {
  const Tensor& self = c.tensor(0);
  write_into(c.tensor(4), fft_c2c<kMeta>(self, fft_dims(c, 1, self, true), norm_arg(c, 2),
                                         c.to_bool(3), c.key()));
  c.ret(c.tensor(4));
}
TN_REGISTER_KERNEL("aten::_fft_r2c.out", DenseCPU, fft_r2c_out_kernel<false>);
TN_REGISTER_KERNEL("aten::_fft_r2c.out", Meta, fft_r2c_out_kernel<true>);
TN_REGISTER_KERNEL("aten::_fft_c2r.out", DenseCPU, fft_c2r_out_kernel<false>);
TN_REGISTER_KERNEL("aten::_fft_c2r.out", Meta, fft_c2r_out_kernel<true>);
TN_REGISTER_KERNEL("aten::_fft_c2c.out", DenseCPU, fft_c2c_out_kernel<false>);
TN_REGISTER_KERNEL("aten::_fft_c2c.out", Meta, fft_c2c_out_kernel<true>);

}  // namespace
}  // namespace tn
