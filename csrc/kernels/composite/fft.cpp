// torch.fft written in door ops as upstream's native/SpectralOps.cpp writes it (its
// CompositeImplicit functions, and the CompositeExplicit fftfreq/rfftfreq): argument handling
// (n and s by zero-padding or slicing, dim defaults, norm strings, dtype promotion) over the
// primitives aten::_fft_r2c, _fft_c2r and _fft_c2c (kernels/cpu/fft.cpp). Error messages are
// upstream's.
#include <algorithm>
#include <numeric>
#include <optional>
#include <string>

#include "core/promotion.h"
#include "kernels/composite/ops.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

using namespace ops;

// upstream's fft_norm_mode values (the primitives' `normalization` argument).
constexpr int64_t kNormNone = 0, kNormByRootN = 1, kNormByN = 2;

std::optional<int64_t> opt_int(const Call& c, size_t i) {
  if (c.arg(i).is_none()) return std::nullopt;
  return c.to_int(i);
}
std::optional<Dims> opt_ints(const Call& c, size_t i) {
  if (c.arg(i).is_none()) return std::nullopt;
  return c.int_list(i);
}
// The out= argument at i, or null for the functional spelling (which has fewer arguments).
const Tensor* opt_out(const Call& c, size_t i) {
  return i < c.args.size() ? &c.tensor(i) : nullptr;
}

// maybe_wrap_dim(..., wrap_scalar=false): a 0-dim tensor has no dim to transform.
int64_t wrap_fft_dim(int64_t d, int64_t ndim) {
  TN_CHECK_KIND(ndim > 0, Index, "Dimension specified as ", d, " but tensor has no dimensions");
  return wrap_dim(d, ndim);
}

// upstream's promote_type_fft: integers to the default float dtype, then (require_complex)
// to the complex type; float16 and others are refused on the CPU.
ScalarType promote_type_fft(ScalarType type, bool require_complex, Device device) {
  if (is_complex(type)) return type;
  if (!is_floating(type)) type = default_float_dtype();
  const bool maybe_half = device.type == DeviceType::Meta;
  TN_CHECK(type == ScalarType::Float || type == ScalarType::Double ||
               (maybe_half && type == ScalarType::Half),
           "Unsupported dtype ", enum_name(type));
  return require_complex ? to_complex_type(type) : type;
}
Tensor promote_tensor_fft(const Tensor& x, bool require_complex) {
  const ScalarType to = promote_type_fft(x->dtype(), require_complex, x->device());
  if (to == x->dtype()) return x;
  return call_tensor("aten::to.dtype", {t(x), Value::of_dtype(to)});
}

// upstream's norm_from_string: numpy's norm names, whose meaning depends on the direction.
int64_t norm_from_string(const Value& norm, bool forward) {
  if (norm.is_none() || norm.str == "backward") return forward ? kNormNone : kNormByN;
  if (norm.str == "forward") return forward ? kNormByN : kNormNone;
  if (norm.str == "ortho") return kNormByRootN;
  TN_FAIL(Runtime, "Invalid normalization mode: \"", norm.str, "\"");
}

// upstream's resize_fft_input: x.size(dims[i]) made sizes[i] by slicing from 0 or by one
// zero-padding (constant_pad_nd) of every dim that grows; -1 leaves a dim as it is.
Tensor resize_fft_input(Tensor x, const Dims& dims, const Dims& sizes) {
  TN_ASSERT(dims.size() == sizes.size());
  bool must_copy = false;
  Dims pad(2 * x->dim(), 0);
  for (size_t i = 0; i < dims.size(); ++i) {
    if (sizes[i] == -1) continue;
    const int64_t have = x->size(dims[i]);
    if (have < sizes[i]) {
      must_copy = true;
      pad[pad.size() - 2 * dims[i] - 1] = sizes[i] - have;
    }
    if (have > sizes[i])
      x = call_tensor("aten::slice.Tensor", {t(x), i64(dims[i]), i64(0), i64(sizes[i]),
                                             i64(1)});
  }
  return must_copy ? call_tensor("aten::constant_pad_nd", {t(x), ints(pad)}) : x;
}

std::string dtype_name(const Tensor& x) { return enum_name(x->dtype()); }

// The primitives, into out= when one is given (upstream's fft_*_maybe_out).
Tensor r2c_maybe_out(const char* fname, const Tensor* out, const Tensor& x, const Dims& dim,
                     int64_t norm, bool onesided) {
  if (out) {
    TN_CHECK(is_complex((*out)->dtype()), fname, " expects a complex output tensor, but got ",
             dtype_name(*out));
    return call_tensor("aten::_fft_r2c.out", {t(x), ints(dim), i64(norm),
                                              Value::of_bool(onesided), t(*out)});
  }
  return call_tensor("aten::_fft_r2c", {t(x), ints(dim), i64(norm), Value::of_bool(onesided)});
}
Tensor c2r_maybe_out(const char* fname, const Tensor* out, const Tensor& x, const Dims& dim,
                     int64_t norm, int64_t last_dim_size) {
  if (out) {
    TN_CHECK(is_floating((*out)->dtype()), fname,
             " expects a floating point output tensor, but got ", dtype_name(*out));
    return call_tensor("aten::_fft_c2r.out", {t(x), ints(dim), i64(norm), i64(last_dim_size),
                                              t(*out)});
  }
  return call_tensor("aten::_fft_c2r", {t(x), ints(dim), i64(norm), i64(last_dim_size)});
}
Tensor c2c_maybe_out(const char* fname, const Tensor* out, const Tensor& x, const Dims& dim,
                     int64_t norm, bool forward) {
  if (out) {
    TN_CHECK(is_complex((*out)->dtype()), fname, " expects a complex output tensor, but got ",
             dtype_name(*out));
    return call_tensor("aten::_fft_c2c.out", {t(x), ints(dim), i64(norm),
                                              Value::of_bool(forward), t(*out)});
  }
  return call_tensor("aten::_fft_c2c", {t(x), ints(dim), i64(norm), Value::of_bool(forward)});
}
Tensor conj_into(const Tensor* out, const Tensor& x) {
  if (out) return call_tensor("aten::conj_physical.out", {t(x), t(*out)});
  return call_tensor("aten::conj", {t(x)});
}

// --- one-dim transforms -----------------------------------------------------------------------
// Each reads (self, n, dim, norm[, out]) as the schemas order them.

// upstream's fft_c2r: hfft (forward) and irfft.
Tensor fft_c2r(const char* fname, const Call& c, bool forward) {
  const Tensor* out = opt_out(c, 4);
  TN_CHECK(!out || is_floating((*out)->dtype()), fname,
           " expects a floating point output tensor, but got ", dtype_name(*out));
  Tensor input = promote_tensor_fft(c.tensor(0), true);
  const int64_t dim = wrap_fft_dim(c.to_int(2), input->dim());
  const std::optional<int64_t> n_opt = opt_int(c, 1);
  const int64_t n = n_opt.value_or(2 * (input->size(dim) - 1));
  TN_CHECK(n >= 1, "Invalid number of data points (", n, ") specified");
  if (n_opt) input = resize_fft_input(input, {dim}, {n / 2 + 1});
  const int64_t norm = norm_from_string(c.arg(3), forward);
  if (forward) input = call_tensor("aten::conj", {t(input)});
  return c2r_maybe_out(fname, out, input, {dim}, norm, n);
}

// upstream's fft_r2c: fft and ifft of real input (two-sided), rfft and ihfft (one-sided).
Tensor fft_r2c(const char* fname, const Call& c, bool forward, bool onesided) {
  const Tensor* out = opt_out(c, 4);
  TN_CHECK(!is_complex(c.tensor(0)->dtype()), fname, " expects a real input tensor, but got ",
           dtype_name(c.tensor(0)));
  TN_CHECK(!out || is_complex((*out)->dtype()), fname,
           " expects a complex output tensor, but got ", dtype_name(*out));
  Tensor input = promote_tensor_fft(c.tensor(0), false);
  const int64_t dim = wrap_fft_dim(c.to_int(2), input->dim());
  const std::optional<int64_t> n_opt = opt_int(c, 1);
  const int64_t n = n_opt.value_or(input->size(dim));
  TN_CHECK(n >= 1, "Invalid number of data points (", n, ") specified");
  if (n_opt) input = resize_fft_input(input, {dim}, {n});
  const int64_t norm = norm_from_string(c.arg(3), forward);
  Tensor ret;
  if (out && forward) {
    ret = call_tensor("aten::_fft_r2c.out", {t(input), ints({dim}), i64(norm),
                                             Value::of_bool(onesided), t(*out)});
  } else {
    ret = call_tensor("aten::_fft_r2c", {t(input), ints({dim}), i64(norm),
                                         Value::of_bool(onesided)});
  }
  // A backward r2c is the conjugate of the forward one.
  return forward ? ret : conj_into(out, ret);
}

// upstream's fft_c2c: fft and ifft of complex input.
Tensor fft_c2c(const char* fname, const Call& c, bool forward) {
  const Tensor* out = opt_out(c, 4);
  Tensor input = c.tensor(0);
  TN_CHECK(is_complex(input->dtype()), fname, " expects a complex input tensor, but got ",
           dtype_name(input));
  const int64_t dim = wrap_fft_dim(c.to_int(2), input->dim());
  const std::optional<int64_t> n_opt = opt_int(c, 1);
  const int64_t n = n_opt.value_or(input->size(dim));
  TN_CHECK(n >= 1, "Invalid number of data points (", n, ") specified");
  if (n_opt) input = resize_fft_input(input, {dim}, {n});
  return c2c_maybe_out(fname, out, input, {dim}, norm_from_string(c.arg(3), forward), forward);
}

void fft_fft(Call& c) {
  c.ret(is_complex(c.tensor(0)->dtype()) ? fft_c2c("fft", c, true)
                                          : fft_r2c("fft", c, true, false));
}
void fft_ifft(Call& c) {
  c.ret(is_complex(c.tensor(0)->dtype()) ? fft_c2c("ifft", c, false)
                                          : fft_r2c("ifft", c, false, false));
}
void fft_rfft(Call& c) { c.ret(fft_r2c("rfft", c, true, true)); }
void fft_irfft(Call& c) { c.ret(fft_c2r("irfft", c, false)); }
void fft_hfft(Call& c) { c.ret(fft_c2r("hfft", c, true)); }
void fft_ihfft(Call& c) { c.ret(fft_r2c("ihfft", c, false, true)); }
// The out= forms return out itself (the primitives' out= kernels wrote it).
template <void (*kFn)(Call&)>
void ret_out(Call& c) {
  kFn(c);
  c.results.clear();
  c.ret(c.tensor(c.args.size() - 1));
}
TN_REGISTER_COMPOSITE("aten::fft_fft", fft_fft);
TN_REGISTER_COMPOSITE("aten::fft_ifft", fft_ifft);
TN_REGISTER_COMPOSITE("aten::fft_rfft", fft_rfft);
TN_REGISTER_COMPOSITE("aten::fft_irfft", fft_irfft);
TN_REGISTER_COMPOSITE("aten::fft_hfft", fft_hfft);
TN_REGISTER_COMPOSITE("aten::fft_ihfft", fft_ihfft);
TN_REGISTER_COMPOSITE("aten::fft_fft.out", ret_out<fft_fft>);
TN_REGISTER_COMPOSITE("aten::fft_ifft.out", ret_out<fft_ifft>);
TN_REGISTER_COMPOSITE("aten::fft_rfft.out", ret_out<fft_rfft>);
TN_REGISTER_COMPOSITE("aten::fft_irfft.out", ret_out<fft_irfft>);
TN_REGISTER_COMPOSITE("aten::fft_hfft.out", ret_out<fft_hfft>);
TN_REGISTER_COMPOSITE("aten::fft_ihfft.out", ret_out<fft_ihfft>);

// --- n-dim transforms -------------------------------------------------------------------------
// Each reads (self, s, dim, norm[, out]); the 2-dim spellings differ only in dim's default.

struct ShapeAndDims {
  Dims shape;
  Dims dim;
};

// upstream's canonicalize_fft_shape_and_dim_args: dims wrapped and unique; s, when given,
// names the last len(s) dims by default and -1 keeps a size; every size at least 1.
ShapeAndDims canonicalize(const Tensor& input, const std::optional<Dims>& shape,
                          const std::optional<Dims>& dim) {
  const int64_t ndim = input->dim();
  ShapeAndDims r;
  if (dim) {
    for (int64_t d : *dim) r.dim.push_back(wrap_fft_dim(d, ndim));
    Dims sorted = r.dim;
    std::sort(sorted.begin(), sorted.end());
    TN_CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end(),
             "FFT dims must be unique");
  }
  if (shape) {
    TN_CHECK(!dim || dim->size() == shape->size(),
             "When given, dim and shape arguments must have the same length");
    TN_CHECK(static_cast<int64_t>(shape->size()) <= ndim, "Got shape with ", shape->size(),
             " values but input tensor only has ", ndim, " dimensions.");
    const int64_t k = static_cast<int64_t>(shape->size());
    if (!dim) {
      r.dim.resize(k);
      std::iota(r.dim.begin(), r.dim.end(), ndim - k);
    }
    for (int64_t i = 0; i < k; ++i)
      r.shape.push_back((*shape)[i] == -1 ? input->size(r.dim[i]) : (*shape)[i]);
  } else if (!dim) {
    r.dim.resize(ndim);
    std::iota(r.dim.begin(), r.dim.end(), int64_t{0});
    r.shape = input->sizes();
  } else {
    for (int64_t d : r.dim) r.shape.push_back(input->size(d));
  }
  for (int64_t n : r.shape)
    TN_CHECK(n > 0, "Invalid number of data points (", n, ") specified");
  return r;
}

// upstream's canonicalize_fft_c2r_shape_and_dim_args: the Hermitian dim's output size
// (last_dim_size), and its input size n/2 + 1 in place of the shape's last entry.
ShapeAndDims canonicalize_c2r(const char* fname, const Tensor& self,
                              const std::optional<Dims>& s, const std::optional<Dims>& dim,
                              int64_t* last_dim_size) {
  ShapeAndDims desc = canonicalize(self, s, dim);
  TN_CHECK(!desc.shape.empty(), fname, " must transform at least one axis");
  *last_dim_size = (!s || s->back() == -1) ? 2 * (self->size(desc.dim.back()) - 1)
                                          : desc.shape.back();
  TN_CHECK(*last_dim_size >= 1, "Invalid number of data points (", *last_dim_size,
           ") specified");
  desc.shape.back() = *last_dim_size / 2 + 1;
  return desc;
}

// fftn and ifftn (upstream's fftn_c2c after promotion to complex).
Tensor fftn_c2c(const Call& c, bool forward) {
  ShapeAndDims desc = canonicalize(c.tensor(0), opt_ints(c, 1), opt_ints(c, 2));
  Tensor input = promote_tensor_fft(c.tensor(0), true);
  Tensor x = resize_fft_input(input, desc.dim, desc.shape);
  return c2c_maybe_out("fftn", opt_out(c, 4), x, desc.dim, norm_from_string(c.arg(3), forward),
                       forward);
}
void fft_fftn(Call& c) { c.ret(fftn_c2c(c, true)); }
void fft_ifftn(Call& c) { c.ret(fftn_c2c(c, false)); }

void fft_rfftn(Call& c) {
  const Tensor& self = c.tensor(0);
  TN_CHECK(!is_complex(self->dtype()), "rfftn expects a real-valued input tensor, but got ",
           dtype_name(self));
  ShapeAndDims desc = canonicalize(self, opt_ints(c, 1), opt_ints(c, 2));
  TN_CHECK(!desc.shape.empty(), "rfftn must transform at least one axis");
  Tensor x = resize_fft_input(promote_tensor_fft(self, false), desc.dim, desc.shape);
  c.ret(r2c_maybe_out("rfftn", opt_out(c, 4), x, desc.dim, norm_from_string(c.arg(3), true),
                      true));
}

void fft_irfftn(Call& c) {
  int64_t last_dim_size = 0;
  ShapeAndDims desc = canonicalize_c2r("irfftn", c.tensor(0), opt_ints(c, 1), opt_ints(c, 2),
                                       &last_dim_size);
  Tensor x = resize_fft_input(promote_tensor_fft(c.tensor(0), true), desc.dim, desc.shape);
  c.ret(c2r_maybe_out("irfftn", opt_out(c, 4), x, desc.dim, norm_from_string(c.arg(3), false),
                      last_dim_size));
}

// hfftn: a forward c2c over all but the last dim, then the conjugate's c2r over the last.
void fft_hfftn(Call& c) {
  int64_t last_dim_size = 0;
  ShapeAndDims desc = canonicalize_c2r("hfftn", c.tensor(0), opt_ints(c, 1), opt_ints(c, 2),
                                       &last_dim_size);
  Tensor x = resize_fft_input(promote_tensor_fft(c.tensor(0), true), desc.dim, desc.shape);
  const int64_t norm = norm_from_string(c.arg(3), true);
  Tensor tmp = x;
  if (desc.dim.size() > 1) {
    tmp = call_tensor("aten::_fft_c2c", {t(x), ints(Dims(desc.dim.begin(), desc.dim.end() - 1)),
                                         i64(norm), Value::of_bool(true)});
  }
  tmp = call_tensor("aten::conj", {t(tmp)});
  c.ret(c2r_maybe_out("hfftn", opt_out(c, 4), tmp, {desc.dim.back()}, norm, last_dim_size));
}

// ihfftn: a one-sided r2c over the last dim, conjugated, then a backward c2c over the others.
void fft_ihfftn(Call& c) {
  ShapeAndDims desc = canonicalize(c.tensor(0), opt_ints(c, 1), opt_ints(c, 2));
  TN_CHECK(!desc.shape.empty(), "ihfftn must transform at least one axis");
  Tensor x = resize_fft_input(promote_tensor_fft(c.tensor(0), false), desc.dim, desc.shape);
  const int64_t norm = norm_from_string(c.arg(3), false);
  const Tensor* out = opt_out(c, 4);
  Tensor tmp = call_tensor("aten::_fft_r2c", {t(x), ints({desc.dim.back()}), i64(norm),
                                              Value::of_bool(true)});
  if (desc.dim.size() == 1) {
    // Upstream 2.13 passes conj_physical_out its arguments swapped here: out is left as it
    // was and returned. Neither that nor the right answer would agree, so this refuses.
    TN_CHECK_KIND(!out, NotImplemented, c.key(), " over a single dim with out= is not "
                  "implemented by torchnative: upstream 2.13 leaves out unwritten there "
                  "(conj_physical_out with its arguments swapped); call fft.ihfft instead");
    c.ret(call_tensor("aten::conj", {t(tmp)}));
    return;
  }
  tmp = call_tensor("aten::conj_physical", {t(tmp)});
  c.ret(c2c_maybe_out("ihfftn", out, tmp, Dims(desc.dim.begin(), desc.dim.end() - 1), norm,
                      false));
}

TN_REGISTER_COMPOSITE("aten::fft_fftn", fft_fftn);
TN_REGISTER_COMPOSITE("aten::fft_ifftn", fft_ifftn);
TN_REGISTER_COMPOSITE("aten::fft_rfftn", fft_rfftn);
TN_REGISTER_COMPOSITE("aten::fft_irfftn", fft_irfftn);
TN_REGISTER_COMPOSITE("aten::fft_hfftn", fft_hfftn);
TN_REGISTER_COMPOSITE("aten::fft_ihfftn", fft_ihfftn);
TN_REGISTER_COMPOSITE("aten::fft_fftn.out", ret_out<fft_fftn>);
TN_REGISTER_COMPOSITE("aten::fft_ifftn.out", ret_out<fft_ifftn>);
TN_REGISTER_COMPOSITE("aten::fft_rfftn.out", ret_out<fft_rfftn>);
TN_REGISTER_COMPOSITE("aten::fft_irfftn.out", ret_out<fft_irfftn>);
TN_REGISTER_COMPOSITE("aten::fft_hfftn.out", ret_out<fft_hfftn>);
TN_REGISTER_COMPOSITE("aten::fft_ihfftn.out", ret_out<fft_ihfftn>);
// The 2-dim spellings are the n-dim ones with dim=[-2, -1] by default (their schemas').
TN_REGISTER_COMPOSITE("aten::fft_fft2", fft_fftn);
TN_REGISTER_COMPOSITE("aten::fft_ifft2", fft_ifftn);
TN_REGISTER_COMPOSITE("aten::fft_rfft2", fft_rfftn);
TN_REGISTER_COMPOSITE("aten::fft_irfft2", fft_irfftn);
TN_REGISTER_COMPOSITE("aten::fft_hfft2", fft_hfftn);
TN_REGISTER_COMPOSITE("aten::fft_ihfft2", fft_ihfftn);
TN_REGISTER_COMPOSITE("aten::fft_fft2.out", ret_out<fft_fftn>);
TN_REGISTER_COMPOSITE("aten::fft_ifft2.out", ret_out<fft_ifftn>);
TN_REGISTER_COMPOSITE("aten::fft_rfft2.out", ret_out<fft_rfftn>);
TN_REGISTER_COMPOSITE("aten::fft_irfft2.out", ret_out<fft_irfftn>);
TN_REGISTER_COMPOSITE("aten::fft_hfft2.out", ret_out<fft_hfftn>);
TN_REGISTER_COMPOSITE("aten::fft_ihfft2.out", ret_out<fft_ihfftn>);

// --- frequencies and shifts -------------------------------------------------------------------

Value int_scalar(int64_t v) { return Value::of_scalar(Scalar::from_int(v)); }

// upstream's fft_fftfreq_out: [0, 1, ..., (n-1)/2, -(n/2), ..., -1] * (1 / (n * d)).
Tensor fftfreq_into(const Tensor& out, int64_t n, double d) {
  TN_CHECK(is_floating(out->dtype()) || is_complex(out->dtype()),
           "fftfreq requires a floating point or complex dtype");
  call("aten::arange.out", {int_scalar(n), t(out)});
  const int64_t split = (n + 1) / 2;
  call("aten::arange.start_out", {int_scalar(-(n / 2)), int_scalar(0), int_scalar(1),
                                  t(narrow(out, 0, split, n - split))});
  return call_tensor("aten::mul_.Scalar", {t(out), Value::of_scalar(Scalar::from_double(
                                                       1.0 / (n * d)))});
}
// upstream's fft_rfftfreq_out: [0, 1, ..., n/2] * (1 / (n * d)).
Tensor rfftfreq_into(const Tensor& out, int64_t n, double d) {
  TN_CHECK(is_floating(out->dtype()) || is_complex(out->dtype()),
           "rfftfreq requires a floating point or complex dtype");
  call("aten::arange.out", {int_scalar(n / 2 + 1), t(out)});
  return call_tensor("aten::mul_.Scalar", {t(out), Value::of_scalar(Scalar::from_double(
                                                       1.0 / (n * d)))});
}
// fft_fftfreq(int n, float d=1.0, *, dtype, layout, device, pin_memory)
Tensor freq_empty(const Call& c, int64_t size) {
  return call_tensor("aten::empty.memory_format", {ints({size}), c.arg(2), c.arg(3), c.arg(4),
                                                   c.arg(5)});
}
void fft_fftfreq(Call& c) {
  const int64_t n = c.to_int(0);
  c.ret(fftfreq_into(freq_empty(c, n), n, c.to_double(1)));
}
void fft_rfftfreq(Call& c) {
  const int64_t n = c.to_int(0);
  c.ret(rfftfreq_into(freq_empty(c, n / 2 + 1), n, c.to_double(1)));
}
void fft_fftfreq_out(Call& c) { c.ret(fftfreq_into(c.tensor(2), c.to_int(0), c.to_double(1))); }
void fft_rfftfreq_out(Call& c) {
  c.ret(rfftfreq_into(c.tensor(2), c.to_int(0), c.to_double(1)));
}
TN_REGISTER_COMPOSITE("aten::fft_fftfreq", fft_fftfreq);
TN_REGISTER_COMPOSITE("aten::fft_rfftfreq", fft_rfftfreq);
TN_REGISTER_COMPOSITE("aten::fft_fftfreq.out", fft_fftfreq_out);
TN_REGISTER_COMPOSITE("aten::fft_rfftfreq.out", fft_rfftfreq_out);

// fftshift / ifftshift(Tensor self, int[1]? dim=None): roll by size/2 (ifftshift: (size+1)/2)
// along the dims given, every dim by default.
template <bool kInverse>
void fft_shift(Call& c) {
  const Tensor& x = c.tensor(0);
  Dims dims;
  if (c.arg(1).is_none()) {
    dims.resize(x->dim());
    std::iota(dims.begin(), dims.end(), int64_t{0});
  } else {
    for (int64_t d : c.int_list(1)) dims.push_back(wrap_fft_dim(d, x->dim()));
  }
  Dims shift;
  for (int64_t d : dims) shift.push_back((x->size(d) + (kInverse ? 1 : 0)) / 2);
  c.ret(call_tensor("aten::roll", {t(x), ints(shift), ints(dims)}));
}
TN_REGISTER_COMPOSITE("aten::fft_fftshift", fft_shift<false>);
TN_REGISTER_COMPOSITE("aten::fft_ifftshift", fft_shift<true>);

}  // namespace
}  // namespace tn
