// Gather and scatter along one dim on dense CPU tensors (upstream's ScatterGatherKernel.cpp and
// index_add_cpu_out): gather, scatter (.src, .value, the deprecated .reduce/.value_reduce with
// add/multiply), scatter_add, scatter_reduce.two and index_add, functional and in place, and
// embedding_dense_backward, with
// upstream's checks and messages. Each is structured, so Meta runs the checks and shapes alone.
// Not here: take_along_dim (a composite over gather, composite/index2.cpp) and the
// derivatives (autograd/derivatives/index.cpp).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <unordered_map>

#include "dispatch/kernel.h"
#include "kernels/composite/shape_util.h"
#include "kernels/cpu/copy.h"
#include "kernels/cpu/cpu_isa.h"
#include "kernels/rules/elementwise.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

// Upstream's ensure_nonempty_dim / ensure_nonempty_size: a 0-dim tensor counts as one element
// of one dim.
int64_t nonempty_dim(const Tensor& t) { return std::max<int64_t>(t->dim(), 1); }
int64_t nonempty_size(const Tensor& t, int64_t d) { return t->dim() == 0 ? 1 : t->size(d); }
Dims nonempty_strides(const Tensor& t) { return t->dim() == 0 ? Dims{1} : t->strides(); }
Dims nonempty_sizes(const Tensor& t) { return t->dim() == 0 ? Dims{1} : t->sizes(); }

bool is_index_dtype(ScalarType t) { return t == ScalarType::Long || t == ScalarType::Int; }

// gather_shape_check: as many dims as self, and no larger than self apart from dim.
void gather_shape_check(const Tensor& self, int64_t dim, const Tensor& index) {
  TN_CHECK(nonempty_dim(self) == nonempty_dim(index),
           "Index tensor must have the same number of dimensions as input tensor");
  for (int64_t i = 0; i < nonempty_dim(self); ++i)
    TN_CHECK(i == dim || nonempty_size(index, i) <= nonempty_size(self, i),
             "Size does not match at dimension ", i, " expected index ",
             dims_str(index->sizes()), " to be no larger than self ", dims_str(self->sizes()),
             " apart from dimension ", dim);
}

// scatter_gather_dtype_check and scatter_shape_check for scatter's family (src may be null).
void scatter_checks(const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src) {
  if (index->numel() != 0)
    TN_CHECK(is_index_dtype(index->dtype()), "scatter(): Expected dtype int32/int64 for index");
  TN_CHECK(!src || (*src)->dtype() == self->dtype(),
           "scatter(): Expected self.dtype to be equal to src.dtype");
  if (index->numel() == 0) return;
  TN_CHECK(nonempty_dim(self) == nonempty_dim(index),
           "Index tensor must have the same number of dimensions as self tensor");
  bool wrong = false;
  for (int64_t d = 0; d < nonempty_dim(self) && !wrong; ++d)
    wrong = d != dim && nonempty_size(index, d) > nonempty_size(self, d);
  for (int64_t d = 0; src && d < nonempty_dim(self) && !wrong; ++d)
    wrong = nonempty_size(index, d) > nonempty_size(*src, d);
  if (src)
    TN_CHECK(!wrong, "Expected index ", dims_str(index->sizes()), " to be no larger than self ",
             dims_str(self->sizes()), " apart from dimension ", dim,
             " and to be no larger size than src ", dims_str((*src)->sizes()));
  TN_CHECK(!wrong, "Expected index ", dims_str(index->sizes()), " to be no larger than self ",
           dims_str(self->sizes()), " apart from dimension ", dim);
}

// The index's values as int64, in row-major order of its own shape.
std::vector<int64_t> index_values(const Tensor& index, const char* key) {
  std::vector<int64_t> out;
  out.reserve(static_cast<size_t>(index->numel()));
  const Dims sizes = nonempty_sizes(index), strides = nonempty_strides(index);
  dispatch_dtype(index->dtype(), key, [&](auto z) {
    using I = decltype(z);
    if constexpr (std::is_same_v<I, int64_t> || std::is_same_v<I, int32_t>) {
      const I* p = static_cast<const I*>(index->dense_cpu_data(key));
      for_each_offset(sizes, strides, 0, [&](int64_t o) { out.push_back(int64_t(p[o])); });
    }
  });
  return out;
}

// Upstream's loop over index positions p (row-major, the dim `dim` innermost per position of
// the others as its cpu_scatter_gather_base_kernel walks them, which gives every destination
// its contributions in increasing p[dim]): f(moved, plain) gets the offset of p with p[dim]
// replaced by index[p] in the tensor of strides `moved` and of p itself in that of `plain`.
template <typename F>
void walk(const Tensor& index, int64_t dim, const Dims& moved, const Dims& plain, int64_t bound,
          const char* key, F&& f) {
  std::vector<int64_t> idx = index_values(index, key);
  Dims sizes = nonempty_sizes(index);
  int64_t nd = static_cast<int64_t>(sizes.size());
  Dims at(static_cast<size_t>(nd), 0);
  for (int64_t k : idx) {
    TN_CHECK(k >= 0 && k < bound, "index ", k, " is out of bounds for dimension ", dim,
             " with size ", bound);
    int64_t a = 0, b = 0;
    for (int64_t d = 0; d < nd; ++d) {
      a += (d == dim ? k : at[d]) * moved[d];
      b += at[d] * plain[d];
    }
    f(a, b);
    for (int64_t d = nd - 1; d >= 0; --d) {
      if (++at[d] < sizes[d]) break;
      at[d] = 0;
    }
  }
}

// gather(self, dim, index, *, sparse_grad=False) -> out[p] = self[p with p[dim] = index[p]]
void gather_rule(Call& c) {
  const Tensor &self = c.tensor(0), &index = c.tensor(2);
  int64_t dim = wrap_dim(c.to_int(1), self->dim());
  c.ret(new_on(self, index->sizes(), self->dtype()));
  if (index->numel() == 0) return;
  TN_CHECK(is_index_dtype(index->dtype()), "gather(): Expected dtype int32/int64 for index");
  gather_shape_check(self, dim, index);
}
void gather_cpu(Call& c) {
  const std::string& key = c.key();
  const Tensor &self = c.tensor(0), &index = c.tensor(2), &out = c.results[0].tensor;
  if (index->numel() == 0) return;
  int64_t dim = wrap_dim(c.to_int(1), self->dim());
  dispatch_dtype_complex(self->dtype(), key, [&](auto z) {
    using T = decltype(z);
    const T* ps = static_cast<const T*>(self->dense_cpu_data(key.c_str()));
    T* po = static_cast<T*>(out->dense_cpu_data(key.c_str()));
    walk(index, dim, nonempty_strides(self), nonempty_strides(out), nonempty_size(self, dim),
         key.c_str(), [&](int64_t s, int64_t o) { po[o] = ps[s]; });
  });
}
TN_REGISTER_STRUCTURED("aten::gather", gather_rule, gather_cpu);

// How a scatter combines a source value into its destination.
enum class Combine { Assign, Add, Multiply, Mean, Max, Min };

Combine combine_of_deprecated(const std::string& reduce) {
  if (reduce == "add") return Combine::Add;
  TN_CHECK(reduce == "multiply", "reduce argument must be either add or multiply.");
  return Combine::Multiply;
}
Combine combine_of_two(const std::string& reduce) {
  if (reduce == "sum") return Combine::Add;
  if (reduce == "prod") return Combine::Multiply;
  if (reduce == "mean") return Combine::Mean;
  if (reduce == "amax") return Combine::Max;
  TN_CHECK(reduce == "amin", "reduce argument must be either sum, prod, mean, amax or amin, got ",
           reduce);
  return Combine::Min;
}

// Computes in T's accumulation type and rounds each step to T, as upstream's scalar loops do.
template <typename T>
T combine(Combine how, T dst, T v) {
  if constexpr (is_complex_v<T>) {  // sums and products; upstream orders no complex numbers
    switch (how) {
      case Combine::Assign: return v;
      case Combine::Add:
      case Combine::Mean: return T(dst.real() + v.real(), dst.imag() + v.imag());
      case Combine::Multiply:
        return T(dst.real() * v.real() - dst.imag() * v.imag(),
                 dst.real() * v.imag() + dst.imag() * v.real());
      default:
        TN_FAIL(NotImplemented, "scatter_reduce with amax or amin of complex tensors is not "
                "implemented by torchnative");
    }
  } else {
  using A = acc_t<T>;
  A a = static_cast<A>(dst), b = static_cast<A>(v);
  switch (how) {
    case Combine::Assign: return v;
    case Combine::Add:
    case Combine::Mean:
      if constexpr (std::is_same_v<T, bool>) return dst || v;
      else return T(a + b);
    case Combine::Multiply:
      if constexpr (std::is_same_v<T, bool>) return dst && v;
      else return T(a * b);
    // Upstream's: a NaN source wins, else std::max / std::min (a NaN destination stays).
    case Combine::Max:
      if constexpr (is_float_like_v<T>) { if (b != b) return v; }
      return a < b ? v : dst;
    case Combine::Min:
      if constexpr (is_float_like_v<T>) { if (b != b) return v; }
      return b < a ? v : dst;
  }
  return v;
  }
}

// scatter_reduce.two's starting value for a destination when include_self is False.
template <typename T>
T identity_of(Combine how) {
  if constexpr (is_complex_v<T>) return T(how == Combine::Multiply ? 1 : 0);
  using A = acc_t<T>;
  if (how == Combine::Multiply) return T(A(1));
  if constexpr (is_float_like_v<T>) {
    if (how == Combine::Max) return T(-std::numeric_limits<A>::infinity());
    if (how == Combine::Min) return T(std::numeric_limits<A>::infinity());
  } else {  // bool too: amin starts at true, amax at false
    if (how == Combine::Max) return std::numeric_limits<T>::lowest();
    if (how == Combine::Min) return std::numeric_limits<T>::max();
  }
  return T(A(0));
}

// Runs body on out's elements as upstream's kernels combine them: float16 and bfloat16 in a
// float copy rounded back once at the end (several values reaching one destination are summed
// or multiplied in float), the other dtypes in place. body gets a W* at out's element 0 whose
// offsets are out's.
template <typename T, typename Body>
void with_work(const Tensor& out, const std::string& key, Body&& body) {
  T* po = static_cast<T*>(out->dense_cpu_data(key.c_str()));
  if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
    if (out->numel() == 0) return;
    Dims sizes = nonempty_sizes(out), strides = nonempty_strides(out);
    int64_t span = 1;
    for (size_t d = 0; d < sizes.size(); ++d) span += (sizes[d] - 1) * strides[d];
    std::vector<float> work(static_cast<size_t>(span));
    for_each_offset(sizes, strides, 0, [&](int64_t o) { work[size_t(o)] = float(po[o]); });
    body(work.data());
    for_each_offset(sizes, strides, 0, [&](int64_t o) { po[o] = T(work[size_t(o)]); });
  } else {
    body(po);
  }
}

// Upstream's self.add_(other, alpha) on one element, as its CPU kernel rounds it: float and
// double by one fused multiply-add (the vector body's fmadd; the AVX2/AVX-512 builds contract
// the scalar tail to the same); float16/bfloat16 with alpha rounded to T first, then an fma in
// float in the vector body, but T's own arithmetic (product rounded, then sum) in the scalar
// tail. `lane` says which: element j of a contiguous run of n is in the vector body when
// j < n - n % block (block = two vectors of T: 32 elements, 64 on AVX-512).
template <typename T>
T add_scaled(T a, T b, double alpha, bool lane) {
  using A = acc_t<T>;
  if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
    float al = float(T(alpha));
    if (lane) return T(std::fma(float(b), al, float(a)));
    return T(float(a) + float(T(float(b) * al)));
  } else if constexpr (std::is_floating_point_v<T>) {
    return T(std::fma(b, static_cast<A>(alpha), a));
  } else {
    return combine(Combine::Add, a, combine(Combine::Multiply, b, scalar_to<T>(
                                                Scalar::from_double(alpha))));
  }
}
int64_t vector_block_16bit() { return cpu::isa() == cpu::Isa::Avx512 ? 64 : 32; }

// The argument layout of each scatter spelling: where src (or value) and reduce sit.
struct ScatterForm {
  bool value;      // a Scalar value instead of a src tensor
  int reduce_arg;  // position of `str reduce`, or -1
  bool two;        // scatter_reduce.two (its reduce names, include_self at 5)
};
constexpr ScatterForm kSrc{false, -1, false}, kValue{true, -1, false}, kReduce{false, 4, false},
    kValueReduce{true, 4, false}, kTwo{false, 4, true};

template <const ScatterForm& F>
Combine combine_of(const Call& c, Combine plain) {
  if (F.reduce_arg < 0) return plain;
  const std::string& r = c.arg(F.reduce_arg).str;
  return F.two ? combine_of_two(r) : combine_of_deprecated(r);
}

// One rule for every spelling: checks, then self itself (in place) or a new tensor.
template <const ScatterForm& F, bool InPlace, Combine Plain>
void scatter_rule(Call& c) {
  const Tensor &self = c.tensor(0), &index = c.tensor(2);
  int64_t dim = wrap_dim(c.to_int(1), self->dim());
  scatter_checks(self, dim, index, F.value ? nullptr : &c.tensor(3));
  combine_of<F>(c, Plain);
  c.ret(InPlace ? self : new_on(self, self->sizes(), self->dtype()));
}

template <const ScatterForm& F, bool InPlace, Combine Plain>
void scatter_cpu(Call& c) {
  const std::string& key = c.key();
  const Tensor &self = c.tensor(0), &index = c.tensor(2), &out = c.results[0].tensor;
  if (!InPlace) copy_dense_cpu(out, self, key.c_str());
  if (index->numel() == 0) return;
  int64_t dim = wrap_dim(c.to_int(1), self->dim());
  Combine how = combine_of<F>(c, Plain);
  bool include_self = !F.two || c.to_bool(5);
  dispatch_dtype_complex(self->dtype(), key, [&](auto z) {
    using T = decltype(z);
    with_work<T>(out, key, [&](auto* po) {
      using W = std::remove_pointer_t<decltype(po)>;
      Dims os = nonempty_strides(out);
      int64_t bound = nonempty_size(self, dim);
      // scatter_reduce.two: without include_self a destination reached starts from the
      // reduction's identity; mean divides each by the number of values it combined.
      std::unordered_map<int64_t, int64_t> counts;
      if (F.two)
        walk(index, dim, os, os, bound, key.c_str(), [&](int64_t o, int64_t) {
          counts[o] = include_self ? 1 : 0;
          if (!include_self) po[o] = identity_of<W>(how);
        });
      auto put = [&](int64_t o, W v) {
        po[o] = combine(how, po[o], v);
        if (F.two) ++counts[o];
      };
      if constexpr (F.value) {
        W v = W(scalar_to<T>(c.scalar(3)));
        walk(index, dim, os, os, bound, key.c_str(), [&](int64_t o, int64_t) { put(o, v); });
      } else {
        const Tensor& src = c.tensor(3);
        const T* ps = static_cast<const T*>(src->dense_cpu_data(key.c_str()));
        walk(index, dim, os, nonempty_strides(src), bound, key.c_str(),
             [&](int64_t o, int64_t s) { put(o, W(ps[s])); });
      }
      if (!F.two || how != Combine::Mean) return;
      for (const auto& [o, n] : counts) {
        if constexpr (std::is_same_v<W, bool>) {
          TN_FAIL(Runtime, "scatter_reduce(): mean of bool is not supported");
        } else if constexpr (is_complex_v<W>) {
          using R = typename W::value_type;
          po[o] = W(po[o].real() / R(n), po[o].imag() / R(n));
        } else if constexpr (std::is_floating_point_v<W>) {
          po[o] = po[o] / W(n);
        } else {  // upstream divides integers with rounding_mode="floor"
          W q = W(po[o] / W(n));
          po[o] = (po[o] % W(n) != 0 && ((po[o] < 0) != (n < 0))) ? W(q - 1) : q;
        }
      }
    });
  });
}

#define TN_SCATTER(op, form, plain)                                                   \
  TN_REGISTER_STRUCTURED("aten::" #op, (scatter_rule<form, false, plain>),            \
                         (scatter_cpu<form, false, plain>))
#define TN_SCATTER_(op, form, plain)                                                  \
  TN_REGISTER_STRUCTURED("aten::" #op, (scatter_rule<form, true, plain>),             \
                         (scatter_cpu<form, true, plain>))
TN_SCATTER(scatter.src, kSrc, Combine::Assign);
TN_SCATTER_(scatter_.src, kSrc, Combine::Assign);
TN_SCATTER(scatter.value, kValue, Combine::Assign);
TN_SCATTER_(scatter_.value, kValue, Combine::Assign);
TN_SCATTER(scatter.reduce, kReduce, Combine::Assign);
TN_SCATTER_(scatter_.reduce, kReduce, Combine::Assign);
TN_SCATTER(scatter.value_reduce, kValueReduce, Combine::Assign);
TN_SCATTER_(scatter_.value_reduce, kValueReduce, Combine::Assign);
TN_SCATTER(scatter_add, kSrc, Combine::Add);
TN_SCATTER_(scatter_add_, kSrc, Combine::Add);
TN_SCATTER(scatter_reduce.two, kTwo, Combine::Assign);
TN_SCATTER_(scatter_reduce_.two, kTwo, Combine::Assign);

// index_add(self, dim, index, source, *, alpha=1): upstream's index_func_meta_impl checks.
template <bool InPlace>
void index_add_rule(Call& c) {
  const Tensor &self = c.tensor(0), &index = c.tensor(2), &source = c.tensor(3);
  int64_t dim = wrap_dim(c.to_int(1), self->dim());
  TN_CHECK_KIND(index->dim() <= 1, Index, "index_add_(): Index is supposed to be a vector, but "
                "got dim: ", index->dim(), " with type: ", enum_name(index->dtype()),
                " and size: ", dims_str(index->sizes()));
  TN_CHECK(is_index_dtype(index->dtype()), "index_add_(): Expected dtype int32/int64 for index "
           "but got: ", enum_name(index->dtype()));
  TN_CHECK(self->dtype() == source->dtype(), "index_add_(): self (", enum_name(self->dtype()),
           ") and source (", enum_name(source->dtype()), ") must have the same scalar type");
  TN_CHECK(dim == 0 || dim < source->dim(), "index_add_(): Indexing dim ", dim,
           " is out of bounds of the source tensor with dim ", source->dim());
  int64_t n = source->dim() == 0 ? 1 : source->size(dim);
  TN_CHECK(index->numel() == n, "index_add_(): Number of indices (", index->numel(),
           ") should be equal to source.size(dim): (", n, "), for dim: ", dim);
  Dims ss = self->sizes(), cs = source->sizes();
  if (self->dim() != 0 && source->dim() != 0) {
    ss.erase(ss.begin() + dim);
    cs.erase(cs.begin() + dim);
  }
  TN_CHECK(ss == cs, "source tensor shape must match self tensor shape, excluding the specified "
           "dimension. Got self.shape = ", dims_str(self->sizes()), " source.shape = ",
           dims_str(source->sizes()));
  c.ret(InPlace ? self : new_on(self, self->sizes(), self->dtype()));
}

// out.select(dim, index[i]) += source.select(dim, i) * alpha, for i in order, on upstream's
// three paths (its index_add_cpu_out), each rounding as it does:
//   2+ dims, alpha 1: scatter_add (16-bit floats summed in float, rounded once; RuntimeError);
//   2+ dims, alpha != 1: slice.add_(source slice, alpha), one fused multiply-add per element
//     (its vector body), rounded each step (IndexError);
//   0 or 1 dim: the scalar loop `self += source * alpha`, product rounded, then sum (IndexError).
template <bool InPlace>
void index_add_cpu(Call& c) {
  const std::string& key = c.key();
  const Tensor &self = c.tensor(0), &index = c.tensor(2), &source = c.tensor(3);
  const Tensor& out = c.results[0].tensor;
  if (!InPlace) copy_dense_cpu(out, self, key.c_str());
  int64_t dim = wrap_dim(c.to_int(1), self->dim());
  std::vector<int64_t> idx = index_values(index, key.c_str());
  int64_t bound = nonempty_size(out, dim);
  bool one = c.scalar(4).to_double() == 1.0 && c.scalar(4).imag() == 0.0;
  bool scatter_path = out->dim() > 1 && one;
  // Upstream's scatter_add has no complex32 kernel; its scalar loop and add_ have.
  TN_CHECK_KIND(!(scatter_path && self->dtype() == ScalarType::ComplexHalf), NotImplemented,
                "\"scatter_gather_tensor_cpu\" not implemented for 'ComplexHalf'");
  for (int64_t k : idx) {
    TN_CHECK_KIND(scatter_path || (k >= 0 && k < bound), Index, "index out of range in self");
    TN_CHECK(k >= 0 && k < bound, "index ", k, " is out of bounds for dimension ", dim,
             " with size ", bound);
  }
  Dims slice = nonempty_sizes(out), os = nonempty_strides(out), ss = nonempty_strides(source);
  int64_t ostep = os[dim], sstep = ss[dim];
  slice.erase(slice.begin() + dim);
  os.erase(os.begin() + dim);
  ss.erase(ss.begin() + dim);
  dispatch_dtype_complex32(self->dtype(), key, [&](auto z) {
    using T = decltype(z);
    const T* ps = static_cast<const T*>(source->dense_cpu_data(key.c_str()));
    T* pt = static_cast<T*>(out->dense_cpu_data(key.c_str()));
    auto each = [&](auto&& f) {
      for (size_t i = 0; i < idx.size(); ++i)
        for_each_offset_pair(slice, os, idx[i] * ostep, ss, int64_t(i) * sstep, f);
    };
    if (scatter_path) {
      with_work<T>(out, key, [&](auto* po) {
        using W = std::remove_pointer_t<decltype(po)>;
        each([&](int64_t o, int64_t s) { po[o] = combine(Combine::Add, po[o], W(ps[s])); });
      });
    } else if (out->dim() > 1 && !is_complex_v<T>) {
      // TensorIterator runs a slice as one contiguous run when both slices are dense rows;
      // otherwise element by element (the scalar body).
      double alpha = c.scalar(4).to_double();
      bool dense = non_overlapping_and_dense(slice, os) && os == ss &&
                   os == contiguous_strides(slice);
      int64_t n = numel_of(slice), body = n - n % vector_block_16bit();
      for (size_t i = 0; i < idx.size(); ++i) {
        int64_t j = 0;
        for_each_offset_pair(slice, os, idx[i] * ostep, ss, int64_t(i) * sstep,
                             [&](int64_t o, int64_t s) {
                               pt[o] = add_scaled(pt[o], ps[s], alpha, dense && j++ < body);
                             });
      }
    } else {
      T alpha = scalar_to<T>(c.scalar(4));
      each([&](int64_t o, int64_t s) {
        pt[o] = combine(Combine::Add, pt[o], combine(Combine::Multiply, ps[s], alpha));
      });
    }
  });
}
TN_REGISTER_STRUCTURED("aten::index_add", index_add_rule<false>, index_add_cpu<false>);
TN_REGISTER_STRUCTURED("aten::index_add_", index_add_rule<true>, index_add_cpu<true>);

// embedding_dense_backward(grad_output, indices, num_weights, padding_idx, scale_grad_by_freq):
// zeros of (num_weights, D), then for each index i in order (but padding_idx) row
// indices[i] += grad[i] * scale, scale 1/count(indices[i]) under scale_grad_by_freq, each row
// by upstream's add_(grad[i], scale) (add_scaled's rounding).
void embedding_dense_backward_rule(Call& c) {
  const Tensor &grad = c.tensor(0), &indices = c.tensor(1);
  TN_CHECK(is_index_dtype(indices->dtype()), "Expected tensor for argument #1 'indices' to have "
           "one of the following scalar types: Long, Int; but got torch.",
           info(indices->dtype()).legacy_name, " instead (while checking arguments for "
           "embedding_backward)");
  int64_t d = grad->dim() > 0 ? grad->size(grad->dim() - 1) : 1;
  TN_CHECK(grad->numel() == indices->numel() * d, "embedding_dense_backward: grad_output of "
           "shape ", dims_str(grad->sizes()), " does not match indices of shape ",
           dims_str(indices->sizes()));
  c.ret(new_on(grad, {c.to_int(2), d}, grad->dtype()));
}
void embedding_dense_backward_cpu(Call& c) {
  const std::string& key = c.key();
  const Tensor& gw = c.results[0].tensor;
  int64_t rows = gw->size(0), d = gw->size(1), pad = c.to_int(3);
  std::vector<int64_t> idx = index_values(c.tensor(1), key.c_str());
  for (int64_t k : idx)
    TN_CHECK_KIND(k >= 0 && k < rows, Index, "index out of range in self");
  std::vector<int64_t> counts(c.to_bool(4) ? static_cast<size_t>(rows) : 0, 0);
  for (int64_t k : idx)
    if (!counts.empty()) ++counts[static_cast<size_t>(k)];
  const Tensor& g = c.tensor(0);
  const bool dense = g->is_contiguous();
  std::vector<int64_t> at;  // grad's element offsets, row-major: element (i, j) at i * d + j
  if (!dense) {
    at.reserve(static_cast<size_t>(g->numel()));
    for_each_offset(g->sizes(), g->strides(), 0, [&](int64_t o) { at.push_back(o); });
  }
  dispatch_dtype(gw->dtype(), key, [&](auto z) {
    using T = decltype(z);
    if constexpr (is_float_like_v<T>) {
      using A = acc_t<T>;
      T* pw = static_cast<T*>(gw->dense_cpu_data(key.c_str()));
      const T* pg = static_cast<const T*>(g->dense_cpu_data(key.c_str()));
      std::fill(pw, pw + gw->numel(), T(A(0)));
      if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
        // Scale 1 in float or double: add_scaled's fma(g, 1, w) is w + g, one rounding (a
        // plain add the compiler vectorises, not libm's fma per element).
        if (counts.empty() && dense) {
          for (size_t i = 0; i < idx.size(); ++i) {
            int64_t k = idx[i];
            if (k == pad) continue;
            T* w = pw + k * d;
            const T* row = pg + static_cast<int64_t>(i) * d;
            for (int64_t j = 0; j < d; ++j) w[j] = w[j] + row[j];
          }
          return;
        }
      }
      if (dense) {  // the general path reads through the offsets
        at.resize(static_cast<size_t>(g->numel()));
        for (size_t o = 0; o < at.size(); ++o) at[o] = static_cast<int64_t>(o);
      }
      int64_t body = d - d % vector_block_16bit();
      for (size_t i = 0; i < idx.size(); ++i) {
        int64_t k = idx[i];
        if (k == pad) continue;
        double scale = counts.empty() ? 1.0 : 1.0 / static_cast<double>(counts[size_t(k)]);
        for (int64_t j = 0; j < d; ++j) {
          T& w = pw[k * d + j];
          w = add_scaled(w, pg[at[i * size_t(d) + size_t(j)]], scale, j < body);
        }
      }
    } else {
      TN_FAIL(NotImplemented, "\"embedding_dense_backward_cpu\" not implemented for '",
              c10_dtype_name(gw->dtype()), "'");
    }
  });
}
TN_REGISTER_STRUCTURED("aten::embedding_dense_backward", embedding_dense_backward_rule,
                       embedding_dense_backward_cpu);

}  // namespace
}  // namespace tn
