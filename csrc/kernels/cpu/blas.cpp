// The matmul family: mm, bmm, addmm, baddbmm, mv, dot (structured: one shape/dtype rule
// shared with meta) and the composites matmul and linear, with out= and in-place spellings.
// Every product goes through gemm() (gemm.h), which hands transposed views to OpenBLAS as is.
#include "core/promotion.h"
#include "dispatch/kernel.h"
#include "kernels/cpu/blas_loader.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/cpu/gemm.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

// Refuses bool (upstream has no bool gemm on CPU) and dtypes we do not compute, by name.
void check_gemm_dtype(const Tensor& t, const std::string& key) {
  check_supported(t, key);
  TN_CHECK_KIND(t->dtype() != ScalarType::Bool, NotImplemented, key,
                " has no kernel for dtype bool (upstream: \"addmm_impl_cpu_\" not implemented "
                "for 'Bool')");
}

void check_mm_operands(const Tensor& a, const Tensor& b, const std::string& key) {
  TN_CHECK(a->dim() == 2, "self must be a matrix");
  TN_CHECK(b->dim() == 2, "mat2 must be a matrix");
  TN_CHECK(a->dtype() == b->dtype(), "expected m1 and m2 to have the same dtype, but got: ",
           cpp_type_name(a->dtype()), " != ", cpp_type_name(b->dtype()));
  TN_CHECK(a->size(1) == b->size(0), "mat1 and mat2 shapes cannot be multiplied (", a->size(0),
           "x", a->size(1), " and ", b->size(0), "x", b->size(1), ")");
  check_gemm_dtype(a, key);
}

// alpha or beta of addmm/baddbmm: complex ones reach c/zgemm as they are; upstream refuses a
// complex factor for a real product ("value cannot be converted to type float without
// overflow").
GemmScale scale_of(const Call& c, size_t i, ScalarType dtype) {
  Scalar s = c.scalar(i);
  if (s.imag() == 0) return GemmScale(s.to_double());
  TN_CHECK(is_complex(dtype), "value cannot be converted to type ", cpp_type_name(dtype),
           " without overflow");
  return GemmScale(s.to_double(), s.imag());
}

// out (m x n, contiguous, out's dtype = a's) = alpha*a·b + beta*out, its BLAS call planned as
// upstream's addmm plans it; as_addmm false: gemm's own plan, which for mv's matrix-by-column
// products gives the bits of upstream's gemv (measured: mv agrees so, and not through addmm's).
void gemm_2d(const Tensor& a, const Tensor& b, const Tensor& out, GemmScale alpha,
             GemmScale beta, const std::string& key, bool as_addmm = true) {
  dispatch_dtype_complex(out->dtype(), key, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (!std::is_same_v<T, bool>) {
      MatRef ra{data_of<T>(a, key), a->stride(0), a->stride(1)};
      MatRef rb{data_of<T>(b, key), b->stride(0), b->stride(1)};
      T* pc = data_of<T>(out, key);
      if (as_addmm)
        gemm_as_addmm<T>(a->size(0), b->size(1), a->size(1), ra, rb, pc, alpha, beta);
      else
        gemm<T>(a->size(0), b->size(1), a->size(1), ra, rb, pc, alpha, beta);
    }
  });
}

// mm(Tensor self, Tensor mat2)
void mm_rule(Call& c) {
  check_mm_operands(c.tensor(0), c.tensor(1), c.key());
  c.ret(new_on(c.tensor(0), {c.tensor(0)->size(0), c.tensor(1)->size(1)}, c.tensor(0)->dtype()));
}
void mm_cpu(Call& c) { gemm_2d(c.tensor(0), c.tensor(1), c.results[0].tensor, 1, 0, c.key()); }
TN_REGISTER_STRUCTURED("aten::mm", mm_rule, mm_cpu);

// addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1): self is
// broadcast to (n, p). Upstream checks self/mat2 dtypes first when self already has the output
// shape, and mat1/mat2 first when it must be broadcast; we keep that order.
void addmm_rule(Call& c) {
  const Tensor &self = c.tensor(0), &m1 = c.tensor(1), &m2 = c.tensor(2);
  TN_CHECK(m1->dim() == 2, "mat1 must be a matrix, got ", m1->dim(), "-D tensor");
  TN_CHECK(m2->dim() == 2, "mat2 must be a matrix, got ", m2->dim(), "-D tensor");
  Dims shape{m1->size(0), m2->size(1)};
  auto self_check = [&] {
    TN_CHECK(self->dtype() == m2->dtype(), "self and mat2 must have the same dtype, but got ",
             enum_name(self->dtype()), " and ", enum_name(m2->dtype()));
  };
  if (self->sizes() == shape) self_check();
  check_mm_operands(m1, m2, c.key());
  self_check();
  expand_view(self, shape);  // the broadcast check, with upstream's message
  c.ret(new_on(m1, shape, m1->dtype()));
}
void addmm_cpu(Call& c) {
  const Tensor& out = c.results[0].tensor;
  GemmScale beta = scale_of(c, 3, out->dtype()), alpha = scale_of(c, 4, out->dtype());
  if (!beta.zero()) copy_cast(out, expand_view(c.tensor(0), out->sizes()), c.key());
  gemm_2d(c.tensor(1), c.tensor(2), out, alpha, beta, c.key());
}
TN_REGISTER_STRUCTURED("aten::addmm", addmm_rule, addmm_cpu);

void check_bmm_operands(const Tensor& a, const Tensor& b, const std::string& key) {
  TN_CHECK(a->dim() == 3, "batch1 must be a 3D tensor");
  TN_CHECK(b->dim() == 3, "batch2 must be a 3D tensor");
  TN_CHECK(a->dtype() == b->dtype(), "expected scalar type ", enum_name(a->dtype()),
           " but found ", enum_name(b->dtype()));
  TN_CHECK(b->size(0) == a->size(0) && b->size(1) == a->size(2),
           "Expected size for first two dimensions of batch2 tensor to be: [", a->size(0), ", ",
           a->size(2), "] but got: [", b->size(0), ", ", b->size(1), "].");
  check_gemm_dtype(a, key);
}

// out (B x m x n, contiguous) = alpha*a[i]·b[i] + beta*out[i] for each batch i (any strides).
void bmm_into(const Tensor& a, const Tensor& b, const Tensor& out, GemmScale alpha,
              GemmScale beta, const std::string& key) {
  int64_t m = a->size(1), k = a->size(2), n = b->size(2);
  dispatch_dtype_complex(out->dtype(), key, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (!std::is_same_v<T, bool>) {
      const T* pa = data_of<T>(a, key);
      const T* pb = data_of<T>(b, key);
      T* pc = data_of<T>(out, key);
      gemm_batched<T>(a->size(0), m, n, k, {pa, a->stride(1), a->stride(2)}, a->stride(0),
                      {pb, b->stride(1), b->stride(2)}, b->stride(0), pc, alpha, beta);
    }
  });
}

// bmm(Tensor self, Tensor mat2)
void bmm_rule(Call& c) {
  const Tensor &a = c.tensor(0), &b = c.tensor(1);
  check_bmm_operands(a, b, c.key());
  c.ret(new_on(a, {a->size(0), a->size(1), b->size(2)}, a->dtype()));
}
// Small products (k * m * n < 400) as upstream's bmm and baddbmm compute them on the CPU (its
// baddbmm_cpu_kernel, not BLAS): each element one in-order sum of products in float or double,
// without fused multiply-adds, so a model's tiny attention matmuls give upstream's bits. With
// `scaled` (baddbmm) the sum s becomes alpha * s where beta is 0, else out * beta + alpha * s
// (out holding self already).
bool bmm_small_in_order(const Tensor& a, const Tensor& b, const Tensor& out,
                        const std::string& key, bool scaled = false, double alpha = 1,
                        double beta = 0) {
  int64_t m = a->size(1), k = a->size(2), n = b->size(2);
  if (k * m * n >= 400 || is_complex(out->dtype())) return false;  // complex: BLAS's c/zgemm
  bool done = false;
  dispatch_dtype(out->dtype(), key, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      const T* pa = data_of<T>(a, key);
      const T* pb = data_of<T>(b, key);
      T* pc = data_of<T>(out, key);
      for (int64_t bi = 0; bi < a->size(0); ++bi)
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j) {
            T acc = 0;
            for (int64_t t = 0; t < k; ++t) {
              volatile T prod = pa[bi * a->stride(0) + i * a->stride(1) + t * a->stride(2)] *
                                pb[bi * b->stride(0) + t * b->stride(1) + j * b->stride(2)];
              acc += prod;  // the product rounded first: no fused multiply-add
            }
            T& r = pc[(bi * m + i) * n + j];
            if (!scaled) {
              r = acc;
            } else if (beta == 0) {
              r = static_cast<T>(alpha) * acc;
            } else {
              volatile T kept = r * static_cast<T>(beta);
              r = kept + static_cast<T>(alpha) * acc;
            }
          }
      done = true;
    }
  });
  return done;
}

void bmm_cpu(Call& c) {
  const Tensor& out = c.results[0].tensor;
  if (bmm_small_in_order(c.tensor(0), c.tensor(1), out, c.key())) return;
  bmm_into(c.tensor(0), c.tensor(1), out, 1, 0, c.key());
}
TN_REGISTER_STRUCTURED("aten::bmm", bmm_rule, bmm_cpu);

// Upstream's Tensor::size(d): IndexError for a 0-dim tensor or a dim out of range.
int64_t size_of(const Tensor& t, int64_t d) {
  TN_CHECK_KIND(t->dim() > 0, Index, "Dimension specified as ", d,
                " but tensor has no dimensions");
  return t->size(wrap_dim(d, t->dim()));
}

// baddbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1): self is
// expanded to the result's sizes before the operands' ranks are checked, as upstream's meta.
void baddbmm_rule(Call& c) {
  const Tensor &self = c.tensor(0), &a = c.tensor(1), &b = c.tensor(2);
  Dims shape{size_of(a, 0), size_of(a, 1), size_of(b, 2)};
  expand_view(self, shape);
  TN_CHECK(a->dim() == 3, "batch1 must be a 3D tensor");
  TN_CHECK(b->dim() == 3, "batch2 must be a 3D tensor");
  check_bmm_operands(a, b, c.key());
  TN_CHECK(self->dtype() == a->dtype(), "expected scalar type ", enum_name(a->dtype()),
           " but found ", enum_name(self->dtype()));
  c.ret(new_on(a, shape, a->dtype()));
}
void baddbmm_cpu(Call& c) {
  const Tensor& out = c.results[0].tensor;
  GemmScale beta = scale_of(c, 3, out->dtype()), alpha = scale_of(c, 4, out->dtype());
  if (!beta.zero()) copy_cast(out, expand_view(c.tensor(0), out->sizes()), c.key());
  if (bmm_small_in_order(c.tensor(1), c.tensor(2), out, c.key(), true, alpha.re, beta.re))
    return;
  bmm_into(c.tensor(1), c.tensor(2), out, alpha, beta, c.key());
}
TN_REGISTER_STRUCTURED("aten::baddbmm", baddbmm_rule, baddbmm_cpu);

// mv(Tensor self, Tensor vec): the vector as a k x 1 matrix.
void mv_rule(Call& c) {
  const Tensor &m = c.tensor(0), &v = c.tensor(1);
  size_of(m, 0);  // upstream's mv allocates {self.size(0)} before addmv checks
  TN_CHECK(m->dim() == 2 && v->dim() == 1, "vector + matrix @ vector expected, got 1, ",
           m->dim(), ", ", v->dim());
  TN_CHECK(m->size(1) == v->size(0), "size mismatch, got input (", m->size(0), "), mat (",
           m->size(0), "x", m->size(1), "), vec (", v->size(0), ")");
  // Upstream's meta decomposes mv into mul and sum, whose device check a meta vec next to a
  // CPU matrix meets (the door lets the two devices reach Meta's rule).
  TN_CHECK(m->device().type == v->device().type, "Tensor on device ", v->device().str(),
           " is not on the expected device ", m->device().str(), "!");
  TN_CHECK(m->dtype() == v->dtype(), "addmv input tensors must have the same dtype, but got ",
           enum_name(v->dtype()), ", ", enum_name(m->dtype()), ", and ", enum_name(v->dtype()));
  check_gemm_dtype(m, c.key());
  c.ret(new_on(m, {m->size(0)}, m->dtype()));
}
// ?gemv as upstream's addmv_impl_cpu calls it (beta 0): the matrix as it lies column-major
// ('n'), or transposed ('t'), or a contiguous copy transposed; a single column's leading dim is
// its length; positive increments only (upstream's own loops otherwise, ours gemm below).
void gemv_call(char trans, int m, int n, const float* a, int lda, const float* x, int incx,
               float* y, int incy) {
  blas().sgemv(CblasColMajor, trans == 'n' ? CblasNoTrans : CblasTrans, m, n, 1.f, a, lda, x,
               incx, 0.f, y, incy);
}
void gemv_call(char trans, int m, int n, const double* a, int lda, const double* x, int incx,
               double* y, int incy) {
  blas().dgemv(CblasColMajor, trans == 'n' ? CblasNoTrans : CblasTrans, m, n, 1.0, a, lda, x,
               incx, 0.0, y, incy);
}
void gemv_call(char trans, int m, int n, const cfloat* a, int lda, const cfloat* x, int incx,
               cfloat* y, int incy) {
  const cfloat one(1.f, 0.f), zero(0.f, 0.f);
  blas().cgemv(CblasColMajor, trans == 'n' ? CblasNoTrans : CblasTrans, m, n, &one, a, lda, x,
               incx, &zero, y, incy);
}
void gemv_call(char trans, int m, int n, const cdouble* a, int lda, const cdouble* x, int incx,
               cdouble* y, int incy) {
  const cdouble one(1.0, 0.0), zero(0.0, 0.0);
  blas().zgemv(CblasColMajor, trans == 'n' ? CblasNoTrans : CblasTrans, m, n, &one, a, lda, x,
               incx, &zero, y, incy);
}
template <typename T>
bool mv_by_gemv(const Tensor& mat, const Tensor& vec, const Tensor& out, const std::string& key) {
  const int64_t rows = mat->size(0), cols = mat->size(1), s0 = mat->stride(0),
                s1 = mat->stride(1);
  auto lda_ok = [](int64_t m, int64_t n, int64_t lda) {
    return n == 1 || lda >= std::max<int64_t>(1, m);
  };
  const T* a = data_of<T>(mat, key);
  Tensor copy;
  char trans = 't';
  int64_t m = cols, n = rows, lda = s0;
  if (s0 == 1 && lda_ok(rows, cols, s1)) {
    trans = 'n', m = rows, n = cols, lda = s1;
  } else if (!(s1 == 1 && lda_ok(cols, rows, s0))) {
    copy = contiguous(mat, key);
    a = data_of<T>(copy, key);
    lda = copy->stride(0);
  }
  if (n == 1) lda = m;
  const int64_t incx = vec->stride(0), incy = out->stride(0), kMax = (1LL << 31) - 1;
  if (m > kMax || n > kMax || lda > kMax || incx <= 0 || incx > kMax || incy <= 0 ||
      incy > kMax)
    return false;
  gemv_call(trans, static_cast<int>(m), static_cast<int>(n), a, static_cast<int>(lda),
            data_of<T>(vec, key), static_cast<int>(incx), data_of<T>(out, key),
            static_cast<int>(incy));
  return true;
}

void mv_cpu(Call& c) {
  const Tensor &mat = c.tensor(0), &v = c.tensor(1), &out = c.results[0].tensor;
  const std::string& key = c.key();
  bool done = false;
  if (mat->numel() > 0 && out->numel() > 0) {
    dispatch_dtype_complex(out->dtype(), key, [&](auto zero) {
      using T = decltype(zero);
      if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> ||
                    std::is_same_v<T, cfloat> || std::is_same_v<T, cdouble>)
        done = mv_by_gemv<T>(mat, v, out, key);
    });
  }
  if (done) return;
  Tensor col = make_view(v, {v->size(0), 1}, {v->stride(0), 1}, v->storage_offset());
  gemm_2d(mat, col, out, 1, 0, key, false);
}
TN_REGISTER_STRUCTURED("aten::mv", mv_rule, mv_cpu);

// dot(Tensor self, Tensor tensor): a 1 x k by k x 1 product (BLAS for float types).
void dot_rule(Call& c) {
  const Tensor &a = c.tensor(0), &b = c.tensor(1);
  TN_CHECK(a->dim() == 1 && b->dim() == 1, "1D tensors expected, but got ", a->dim(), "D and ",
           b->dim(), "D tensors");
  TN_CHECK(a->dtype() == b->dtype(), "dot : expected both vectors to have same dtype, but found ",
           enum_name(a->dtype()), " and ", enum_name(b->dtype()));
  TN_CHECK(a->size(0) == b->size(0), "inconsistent tensor size, expected tensor [", a->size(0),
           "] and src [", b->size(0), "] to have the same number of elements, but got ",
           a->size(0), " and ", b->size(0), " elements respectively");
  check_gemm_dtype(a, c.key());
  c.ret(new_on(a, {}, a->dtype()));
}
// float32/float64 call BLAS's dot and complex ?dotu (upstream's dot does: with MKL the bits are
// upstream's, zero strides included); other dtypes and huge strides run as a 1 x k by k x 1
// product.
// dot and vdot see their arguments' conjugate bits (the Conjugate layer lets them through, as
// upstream's fallback does) and rewrite as upstream's: dot(conj a, b) = vdot(a, b),
// dot(a, conj b) = vdot(b, a), dot(conj a, conj b) = conj(dot(a, b)); vdot(conj a, b) = dot(a, b),
// vdot(a, conj b) = conj(dot(a, b)), vdot(conj a, conj b) = vdot(b, a); a conj() there is the
// result's conjugate bit.
template <bool is_vdot>
void dot_cpu(Call& c) {
  Tensor a = c.tensor(0), b = c.tensor(1);
  const std::string& key = c.key();
  const Tensor& out = c.results[0].tensor;
  int64_t n = a->size(0), sa = n == 1 ? 1 : a->stride(0), sb = n == 1 ? 1 : b->stride(0);
  const bool strides_ok = n > 0 && n < (1LL << 31) && sa >= 0 && sb >= 0 &&
                          sa < (1LL << 31) && sb < (1LL << 31);
  const bool cplx = is_complex(a->dtype());
  if (cplx && strides_ok) {
    const bool ca = a->is_conj(), cb = b->is_conj();
    bool use_dotc = is_vdot, conj_result = false;
    if (ca && cb) {  // vdot: vdot(b, a) (measured: upstream's result has no conjugate bit)
      conj_result = !is_vdot;
      if (is_vdot) std::swap(a, b), std::swap(sa, sb);
    } else if (ca) {
      use_dotc = !is_vdot;
    } else if (cb) {
      use_dotc = !is_vdot;
      conj_result = is_vdot;
      if (!is_vdot) std::swap(a, b), std::swap(sa, sb);
    }
    int ni = static_cast<int>(n), ia = static_cast<int>(sa), ib = static_cast<int>(sb);
    if (a->dtype() == ScalarType::ComplexFloat)
      (use_dotc ? blas().cdotc : blas().cdotu)(ni, data_of<cfloat>(a, key), ia,
                                               data_of<cfloat>(b, key), ib,
                                               data_of<cfloat>(out, key));
    else
      (use_dotc ? blas().zdotc : blas().zdotu)(ni, data_of<cdouble>(a, key), ia,
                                               data_of<cdouble>(b, key), ib,
                                               data_of<cdouble>(out, key));
    if (conj_result) out->set_conj(true);
    return;
  }
  if (cplx) {  // empty or huge strides: the bits resolved, vdot as dot of the conjugate
    a = call_tensor(is_vdot ? "aten::conj_physical" : "aten::resolve_conj", {Value::of(a)});
    b = call_tensor("aten::resolve_conj", {Value::of(b)});
  }
  if (strides_ok && (a->dtype() == ScalarType::Float || a->dtype() == ScalarType::Double)) {
    int ni = static_cast<int>(n), ia = static_cast<int>(sa), ib = static_cast<int>(sb);
    if (a->dtype() == ScalarType::Float)
      *data_of<float>(out, key) = blas().sdot(ni, data_of<float>(a, key), ia,
                                              data_of<float>(b, key), ib);
    else
      *data_of<double>(out, key) = blas().ddot(ni, data_of<double>(a, key), ia,
                                               data_of<double>(b, key), ib);
    return;
  }
  Tensor row = make_view(a, {1, a->size(0)}, {a->size(0), a->stride(0)}, a->storage_offset());
  Tensor col = make_view(b, {b->size(0), 1}, {b->stride(0), 1}, b->storage_offset());
  gemm_2d(row, col, make_view(out, {1, 1}, {1, 1}, 0), 1, 0, key);
}
TN_REGISTER_STRUCTURED("aten::dot", dot_rule, dot_cpu<false>);
// vdot(Tensor self, Tensor other): dot's checks and messages (upstream's dot_check); complex
// self conjugated (?dotc), real ones dot itself.
TN_REGISTER_STRUCTURED("aten::vdot", dot_rule, dot_cpu<true>);


}  // namespace
}  // namespace tn
