// View ops: each result is make_view(self, sizes, strides, offset), sharing storage and version
// counter, with upstream's sizes/strides/storage_offset. Only metadata is computed, so one
// kernel (registered as Composite) serves every back end, meta included. These are the only
// kernels that build views; composites (kernels/composite/) call them through the door, and so
// do the view ops upstream defines as CompositeImplicit (narrow, chunk, expand_as, ...), after
// their checks, so that a dispatch mode sees the view op they decompose into.
#include "dispatch/kernel.h"
#include "kernels/composite/shape_util.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

Tensor same_view(const Tensor& t) {
  return make_view(t, t->sizes(), t->strides(), t->storage_offset());
}

// The view of self as `shape` (one -1 allowed), or upstream's error when strides forbid it.
Tensor view_as_shape(const Tensor& self, const Dims& shape) {
  Dims sizes = infer_size(shape, self->numel());
  auto strides = view_strides(self->sizes(), self->strides(), sizes);
  TN_CHECK(strides.has_value(), "view size is not compatible with input tensor's size and stride "
           "(at least one dimension spans across two contiguous subspaces). Use .reshape(...) "
           "instead.");
  return make_view(self, sizes, *strides, self->storage_offset());
}

// view(Tensor(a) self, SymInt[] size) -> Tensor(a)
void view(Call& c) { c.ret(view_as_shape(c.tensor(0), c.int_list(1))); }
TN_REGISTER_COMPOSITE("aten::view", view);

// _unsafe_view(Tensor self, SymInt[] size) -> Tensor: view's geometry over the same bytes, but
// not a view (no base, its own version counter): composites use it on results they made.
void unsafe_view(Call& c) {
  const Tensor& self = c.tensor(0);
  Tensor v = view_as_shape(self, c.int_list(1));
  c.ret(make<TensorImpl>(v->storage(), v->dtype(), v->sizes(), v->strides(), v->storage_offset(),
                         v->representation()));
}
TN_REGISTER_COMPOSITE("aten::_unsafe_view", unsafe_view);

// _reshape_alias(Tensor(a) self, SymInt[] size, SymInt[] stride): a view with given geometry.
void reshape_alias(Call& c) {
  const Tensor& self = c.tensor(0);
  const Dims& sizes = c.int_list(1);
  const Dims& strides = c.int_list(2);
  TN_CHECK(sizes.size() == strides.size(), "dimensionality of sizes (", sizes.size(),
           ") must match dimensionality of strides (", strides.size(), ")");
  c.ret(make_view(self, sizes, strides, self->storage_offset()));
}
TN_REGISTER_COMPOSITE("aten::_reshape_alias", reshape_alias);

// view_as(Tensor(a) self, Tensor other) -> Tensor(a): CompositeImplicit upstream, a call of view.
void view_as(Call& c) {
  c.ret(call_tensor("aten::view",
                    {Value::of(c.tensor(0)), Value::of_ints(c.tensor(1)->sizes())}));
}
TN_REGISTER_COMPOSITE("aten::view_as", view_as);

// view.dtype(Tensor(a) self, ScalarType dtype): reinterprets bytes; with a different itemsize
// the last dim (stride 1) is rescaled, as upstream.
void view_dtype(Call& c) {
  const Tensor& self = c.tensor(0);
  ScalarType to = *c.optional_dtype(1);
  int from_size = self->itemsize(), to_size = itemsize(to);
  Dims sizes = self->sizes(), strides = self->strides();
  const char *from_name = enum_name(self->dtype()), *to_name = enum_name(to);  // "Float"
  int64_t offset = self->storage_offset();
  if (from_size != to_size) {
    TN_CHECK(self->dim() > 0, "self.dim() cannot be 0 to view ", from_name, " as ",
             to_name, " (different element sizes)");
    TN_CHECK(strides.back() == 1, "self.stride(-1) must be 1 to view ", from_name,
             " as ", to_name, " (different element sizes), but got ", strides.back());
    if (from_size > to_size) {
      int64_t r = from_size / to_size;
      for (size_t d = 0; d + 1 < strides.size(); ++d) strides[d] *= r;
      sizes.back() *= r;
      offset *= r;
    } else {
      int64_t r = to_size / from_size;
      TN_CHECK(sizes.back() % r == 0, "self.size(-1) must be divisible by ", r, " to view ",
               from_name, " as ", to_name, " (different element sizes), but got ",
               sizes.back());
      TN_CHECK(offset % r == 0, "self.storage_offset() must be divisible by ", r, " to view ",
               from_name, " as ", to_name, " (different element sizes), but got ",
               offset);
      for (size_t d = 0; d + 1 < strides.size(); ++d) {
        TN_CHECK(strides[d] % r == 0, "self.stride(", d, ") must be divisible by ", r,
                 " to view ", from_name, " as ", to_name,
                 " (different element sizes), but got ", strides[d]);
        strides[d] /= r;
      }
      sizes.back() /= r;
      offset /= r;
    }
  }
  // A non-differentiable view (Note [Non-differentiable views], dispatch/inplace_or_view.cpp):
  // self's bytes and version counter, but no _base.
  Tensor v = make_view(self, sizes, strides, offset, to);
  v->set_view_base(Tensor());
  c.ret(v);
}
TN_REGISTER_COMPOSITE("aten::view.dtype", view_dtype);

// as_strided(Tensor(a) self, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None)
void as_strided(Call& c) {
  const Tensor& self = c.tensor(0);
  const Dims& sizes = c.int_list(1);
  const Dims& strides = c.int_list(2);
  int64_t offset = c.arg(3).is_none() ? self->storage_offset() : c.to_int(3);
  TN_CHECK(sizes.size() == strides.size(), "mismatch in length of strides and shape");
  for (int64_t s : strides)
    TN_CHECK(s >= 0, "as_strided: Negative strides are not supported at the moment, got strides: ",
             dims_str(strides));
  for (int64_t s : sizes) TN_CHECK(s >= 0, "Trying to create tensor with negative dimension ", s);
  c.ret(make_view(self, sizes, strides, offset));  // checked against the storage there
}
TN_REGISTER_COMPOSITE("aten::as_strided", as_strided);

Tensor transpose_of(const Tensor& self, int64_t d0, int64_t d1) {
  d0 = wrap_dim(d0, self->dim());
  d1 = wrap_dim(d1, self->dim());
  Dims sizes = self->sizes(), strides = self->strides();
  if (self->dim() > 0) {
    std::swap(sizes[d0], sizes[d1]);
    std::swap(strides[d0], strides[d1]);
  }
  return make_view(self, sizes, strides, self->storage_offset());
}

// transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)
void transpose(Call& c) { c.ret(transpose_of(c.tensor(0), c.to_int(1), c.to_int(2))); }
TN_REGISTER_COMPOSITE("aten::transpose.int", transpose);

// t(Tensor(a) self): transpose of a matrix; vectors and scalars come back as views.
void t(Call& c) {
  const Tensor& self = c.tensor(0);
  TN_CHECK(self->dim() <= 2, "t() expects a tensor with <= 2 dimensions, but self is ",
           self->dim(), "D");
  c.ret(transpose_of(self, 0, self->dim() < 2 ? 0 : 1));
}
TN_REGISTER_COMPOSITE("aten::t", t);

Tensor permute_of(const Tensor& self, const Dims& dims) {
  int64_t n = self->dim();
  TN_CHECK(static_cast<int64_t>(dims.size()) == n, "permute(sparse_coo): number of dimensions in "
           "the tensor input does not match the length of the desired ordering of dimensions i.e. "
           "input.dim() = ", n, " is not equal to len(dims) = ", dims.size());
  Dims sizes(n), strides(n);
  std::vector<bool> seen(n, false);
  for (int64_t i = 0; i < n; ++i) {
    int64_t d = wrap_dim(dims[i], n);
    TN_CHECK(!seen[d], "permute(): duplicate dims are not allowed.");
    seen[d] = true;
    sizes[i] = self->size(d);
    strides[i] = self->stride(d);
  }
  return make_view(self, sizes, strides, self->storage_offset());
}

// permute(Tensor(a) self, int[] dims) -> Tensor(a)
void permute(Call& c) { c.ret(permute_of(c.tensor(0), c.int_list(1))); }
TN_REGISTER_COMPOSITE("aten::permute", permute);

// movedim.int(Tensor(a) self, int source, int destination): permute moving one dim.
void movedim(Call& c) {
  const Tensor& self = c.tensor(0);
  int64_t n = self->dim();
  int64_t src = wrap_dim(c.to_int(1), n), dst = wrap_dim(c.to_int(2), n);
  if (n == 0) return c.ret(same_view(self));
  Dims order;
  for (int64_t d = 0; d < n; ++d)
    if (d != src) order.push_back(d);
  order.insert(order.begin() + dst, src);
  // CompositeImplicit upstream: the permute is a call of its own, as a dispatch mode sees it.
  c.ret(call_tensor("aten::permute", {Value::of(self), Value::of_ints(order)}));
}
TN_REGISTER_COMPOSITE("aten::movedim.int", movedim);

// Upstream's inferExpandGeometry: new leading dims and size-1 dims broadcast with stride 0.
Tensor expand_to(const Tensor& self, const Dims& target) {
  int64_t n = static_cast<int64_t>(target.size()), nd = self->dim();
  TN_CHECK(n >= nd, "expand(torch.", info(self->dtype()).legacy_name, "{",
           dims_str(self->sizes()), "}, size=", dims_str(target), "): the number of sizes "
           "provided (", n, ") must be greater or equal to the number of dimensions in the "
           "tensor (", nd, ")");
  Dims sizes(n), strides(n);
  for (int64_t i = n - 1; i >= 0; --i) {
    int64_t d = nd - (n - i);
    int64_t size = d >= 0 ? self->size(d) : 1;
    int64_t stride = d >= 0 ? self->stride(d) : i == n - 1 ? 0 : sizes[i + 1] * strides[i + 1];
    int64_t want = target[i];
    if (want == -1) {
      TN_CHECK(d >= 0, "The expanded size of the tensor (-1) isn't allowed in a leading, "
               "non-existing dimension ", i);
      want = size;
    }
    TN_CHECK(want >= 0, "The expanded size of the tensor (", want, ") isn't allowed");
    if (size != want) {
      TN_CHECK(size == 1, "The expanded size of the tensor (", want, ") must match the existing "
               "size (", size, ") at non-singleton dimension ", i, ".  Target sizes: ",
               dims_str(target), ".  Tensor sizes: ", dims_str(self->sizes()));
      size = want;
      stride = 0;
    }
    sizes[i] = size;
    strides[i] = stride;
  }
  return make_view(self, sizes, strides, self->storage_offset());
}

// expand(Tensor(a) self, SymInt[] size, *, bool implicit=False) -> Tensor(a)
void expand(Call& c) { c.ret(expand_to(c.tensor(0), c.int_list(1))); }
TN_REGISTER_COMPOSITE("aten::expand", expand);
// expand_as: CompositeImplicit upstream, so it calls expand (which a dispatch mode sees).
void expand_as(Call& c) {
  c.ret(call_tensor("aten::expand",
                    {Value::of(c.tensor(0)), Value::of_ints(c.tensor(1)->sizes())}));
}
TN_REGISTER_COMPOSITE("aten::expand_as", expand_as);

// Drops the dims flagged in `drop` that have size 1.
Tensor squeeze_dims(const Tensor& self, const std::vector<bool>& drop) {
  Dims sizes, strides;
  for (int64_t d = 0; d < self->dim(); ++d) {
    if (drop[d] && self->size(d) == 1) continue;
    sizes.push_back(self->size(d));
    strides.push_back(self->stride(d));
  }
  return make_view(self, sizes, strides, self->storage_offset());
}

// squeeze(self), squeeze.dim(self, int dim), squeeze.dims(self, int[] dim)
void squeeze(Call& c) {
  const Tensor& self = c.tensor(0);
  c.ret(squeeze_dims(self, std::vector<bool>(self->dim(), true)));
}
void squeeze_dim(Call& c) {
  const Tensor& self = c.tensor(0);
  std::vector<bool> drop(self->dim(), false);
  int64_t d = wrap_dim(c.to_int(1), self->dim());
  if (self->dim() > 0) drop[d] = true;
  c.ret(squeeze_dims(self, drop));
}
void squeeze_dims_op(Call& c) {
  const Tensor& self = c.tensor(0);
  std::vector<bool> drop(self->dim(), false);
  std::vector<bool> seen(std::max<int64_t>(self->dim(), 1), false);
  for (int64_t d : c.int_list(1)) {
    int64_t w = wrap_dim(d, self->dim());
    TN_CHECK(!seen[w], "dim ", w, " appears multiple times in the list of dims");
    seen[w] = true;
    if (self->dim() > 0) drop[w] = true;
  }
  c.ret(squeeze_dims(self, drop));
}
TN_REGISTER_COMPOSITE("aten::squeeze", squeeze);
TN_REGISTER_COMPOSITE("aten::squeeze.dim", squeeze_dim);
TN_REGISTER_COMPOSITE("aten::squeeze.dims", squeeze_dims_op);

// squeeze_.dim(Tensor(a!) self, int dim) -> Tensor(a!): self's own geometry changes.
void squeeze_dim_(Call& c) {
  const Tensor& self = c.tensor(0);
  std::vector<bool> drop(self->dim(), false);
  int64_t d = wrap_dim(c.to_int(1), self->dim());  // a 0-dim self takes 0 and -1 only
  if (self->dim() > 0) drop[d] = true;
  Tensor v = squeeze_dims(self, drop);
  self->set_sizes_strides(v->sizes(), v->strides(), v->storage_offset());
  c.ret(self);
}
TN_REGISTER_COMPOSITE("aten::squeeze_.dim", squeeze_dim_);

// The other in-place view ops (squeeze_, squeeze_.dims, unsqueeze_, t_, as_strided_): the
// functional view's geometry (and its checks) written into self.
template <const char* Functional>
void inplace_view(Call& c) {
  const Tensor& self = c.tensor(0);
  Tensor v = call_tensor(Functional, c.args);
  self->set_sizes_strides(v->sizes(), v->strides(), v->storage_offset());
  c.ret(self);
}
constexpr char kSqueeze[] = "aten::squeeze";
constexpr char kSqueezeDims[] = "aten::squeeze.dims";
constexpr char kUnsqueeze[] = "aten::unsqueeze";
constexpr char kT[] = "aten::t";
constexpr char kAsStrided[] = "aten::as_strided";
TN_REGISTER_COMPOSITE("aten::squeeze_", inplace_view<kSqueeze>);
TN_REGISTER_COMPOSITE("aten::squeeze_.dims", inplace_view<kSqueezeDims>);
TN_REGISTER_COMPOSITE("aten::unsqueeze_", inplace_view<kUnsqueeze>);
TN_REGISTER_COMPOSITE("aten::t_", inplace_view<kT>);
TN_REGISTER_COMPOSITE("aten::as_strided_", inplace_view<kAsStrided>);
// swapdims_ / swapaxes_(self, dim0, dim1): transpose_ (upstream's composites).
void swap_(Call& c) { c.ret(call_tensor("aten::transpose_", c.args)); }
TN_REGISTER_COMPOSITE("aten::swapdims_", swap_);
TN_REGISTER_COMPOSITE("aten::swapaxes_", swap_);

// unsqueeze(Tensor(a) self, int dim): the new dim's stride continues the next one's.
void unsqueeze(Call& c) {
  const Tensor& self = c.tensor(0);
  int64_t d = wrap_dim(c.to_int(1), self->dim() + 1);
  Dims sizes = self->sizes(), strides = self->strides();
  int64_t stride = d >= self->dim() ? 1 : sizes[d] * strides[d];
  sizes.insert(sizes.begin() + d, 1);
  strides.insert(strides.begin() + d, stride);
  c.ret(make_view(self, sizes, strides, self->storage_offset()));
}
TN_REGISTER_COMPOSITE("aten::unsqueeze", unsqueeze);

// unflatten.int(Tensor(a) self, int dim, SymInt[] sizes): splits one dim (one -1 allowed).
void unflatten(Call& c) {
  const Tensor& self = c.tensor(0);
  int64_t d = wrap_dim(c.to_int(1), self->dim());
  const Dims& parts = c.int_list(2);
  TN_CHECK(!parts.empty(), "unflatten: sizes must be non-empty");
  int64_t here = self->dim() == 0 ? 1 : self->size(d);
  Dims resolved;
  try {
    resolved = infer_size(parts, here);
  } catch (const Error&) {
    TN_FAIL(Runtime, "unflatten: Provided sizes ", dims_str(parts), " don't multiply up to the "
            "size of dim ", d, " (", here, ") in the input tensor");
  }
  Dims shape = self->sizes();
  if (shape.empty()) shape.push_back(1);
  shape.erase(shape.begin() + d);
  shape.insert(shape.begin() + d, resolved.begin(), resolved.end());
  c.ret(call_tensor("aten::view", {Value::of(self), Value::of_ints(shape)}));  // as upstream's
}
TN_REGISTER_COMPOSITE("aten::unflatten.int", unflatten);

Tensor select_of(const Tensor& self, int64_t dim, int64_t index) {
  TN_CHECK_KIND(self->dim() > 0, Index, "select() cannot be applied to a 0-dim tensor.");
  int64_t d = wrap_dim(dim, self->dim());
  int64_t size = self->size(d);
  TN_CHECK_KIND(index >= -size && index < size, Index, "select(): index ", index,
                " out of range for tensor of size ", dims_str(self->sizes()), " at dimension ", d);
  if (index < 0) index += size;
  Dims sizes = self->sizes(), strides = self->strides();
  int64_t offset = self->storage_offset() + index * strides[d];
  sizes.erase(sizes.begin() + d);
  strides.erase(strides.begin() + d);
  return make_view(self, sizes, strides, offset);
}

// select.int(Tensor(a) self, int dim, SymInt index) -> Tensor(a)
void select(Call& c) { c.ret(select_of(c.tensor(0), c.to_int(1), c.to_int(2))); }
TN_REGISTER_COMPOSITE("aten::select.int", select);

// Slice with start/end already clamped into [0, size] and step > 0.
Tensor slice_of(const Tensor& self, int64_t d, int64_t start, int64_t end, int64_t step) {
  Dims sizes = self->sizes(), strides = self->strides();
  int64_t offset = self->storage_offset() + start * strides[d];
  sizes[d] = (end - start + step - 1) / step;
  strides[d] *= step;
  return make_view(self, sizes, strides, offset);
}

// slice.Tensor(self, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1)
void slice(Call& c) {
  const Tensor& self = c.tensor(0);
  TN_CHECK_KIND(self->dim() > 0, Index, "slice() cannot be applied to a 0-dim tensor.");
  int64_t d = wrap_dim(c.to_int(1), self->dim());
  int64_t size = self->size(d);
  int64_t start = c.arg(2).is_none() ? 0 : c.to_int(2);
  int64_t end = c.arg(3).is_none() ? INT64_MAX : c.to_int(3);
  int64_t step = c.to_int(4);
  TN_CHECK(step > 0, "slice step must be positive");
  if (start < 0) start += size;
  if (end < 0) end += size;
  start = std::min(std::max<int64_t>(start, 0), size);
  end = std::min(std::max(end, start), size);
  c.ret(slice_of(self, d, start, end, step));
}
TN_REGISTER_COMPOSITE("aten::slice.Tensor", slice);

Tensor narrow_of(const Tensor& self, int64_t dim, int64_t start, int64_t length) {
  TN_CHECK(self->dim() > 0, "narrow() cannot be applied to a 0-dim tensor.");
  TN_CHECK(length >= 0, "narrow(): length must be non-negative.");
  int64_t d = wrap_dim(dim, self->dim());
  int64_t size = self->size(d);
  TN_CHECK_KIND(start >= -size && start <= size, Index, "start out of range (expected to be in "
                "range of [", -size, ", ", size, "], but got ", start, ")");
  if (start < 0) start += size;
  TN_CHECK(start <= size - length, "start (", start, ") + length (", length,
           ") exceeds dimension size (", size, ").");
  return slice_of(self, d, start, start + length, 1);
}

// narrow(Tensor(a) self, int dim, SymInt start, SymInt length) -> Tensor(a): narrow_of's checks,
// then slice.Tensor as a call of its own (CompositeImplicit upstream: a dispatch mode sees it).
void narrow(Call& c) {
  const Tensor& self = c.tensor(0);
  narrow_of(self, c.to_int(1), c.to_int(2), c.to_int(3));  // upstream's checks and messages
  int64_t d = wrap_dim(c.to_int(1), self->dim());
  int64_t start = c.to_int(2) < 0 ? c.to_int(2) + self->size(d) : c.to_int(2);
  c.ret(call_tensor("aten::slice.Tensor", {Value::of(self), Value::of_int(d),
                                           Value::of_int(start),
                                           Value::of_int(start + c.to_int(3)),
                                           Value::of_int(1)}));
}
TN_REGISTER_COMPOSITE("aten::narrow", narrow);

void ret_list(Call& c, std::vector<Tensor> parts) { c.ret(Value::of_tensors(std::move(parts))); }

std::vector<Tensor> split_sizes_of(const Tensor& self, const Dims& sizes, int64_t dim) {
  TN_CHECK(self->dim() > 0, "split expects at least a 1-dimensional tensor");
  int64_t d = wrap_dim(dim, self->dim());
  int64_t total = 0;
  for (int64_t s : sizes) {
    TN_CHECK(s >= 0, "split_with_sizes expects split_sizes have only non-negative entries, but "
             "got split_sizes=", dims_str(sizes));
    total += s;
  }
  TN_CHECK(total == self->size(d), "split_with_sizes expects split_sizes to sum exactly to ",
           self->size(d), " (input tensor's size at dimension ", d, "), but got split_sizes=",
           dims_str(sizes));
  std::vector<Tensor> out;
  int64_t start = 0;
  for (int64_t s : sizes) {
    out.push_back(slice_of(self, d, start, start + s, 1));
    start += s;
  }
  return out;
}

// split_with_sizes / split.sizes(Tensor(a -> *) self, SymInt[] split_sizes, int dim=0)
void split_with_sizes(Call& c) { ret_list(c, split_sizes_of(c.tensor(0), c.int_list(1),
                                                            c.to_int(2))); }
TN_REGISTER_COMPOSITE("aten::split_with_sizes", split_with_sizes);

// split.sizes: CompositeImplicit upstream, a call of split_with_sizes.
void split_sizes(Call& c) {
  for (Value& v : call("aten::split_with_sizes", {c.arg(0), c.arg(1), c.arg(2)}))
    c.ret(std::move(v));
}
TN_REGISTER_COMPOSITE("aten::split.sizes", split_sizes);

std::vector<Tensor> split_of(const Tensor& self, int64_t split_size, int64_t dim) {
  TN_CHECK(self->dim() > 0, "split expects at least a 1-dimensional tensor");
  TN_CHECK(split_size >= 0, "split expects split_size be non-negative, but got split_size=",
           split_size);
  int64_t d = wrap_dim(dim, self->dim());
  int64_t size = self->size(d);
  TN_CHECK(split_size != 0 || size == 0, "split_size can only be 0 if dimension size is 0, but "
           "got dimension size of ", size);
  int64_t n = split_size == 0 ? 1 : std::max<int64_t>((size + split_size - 1) / split_size, 1);
  std::vector<Tensor> out;
  for (int64_t i = 0; i < n; ++i) {
    int64_t start = i * split_size;
    int64_t len = i == n - 1 ? size - start : split_size;
    out.push_back(slice_of(self, d, start, start + len, 1));
  }
  return out;
}

// split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]
void split(Call& c) { ret_list(c, split_of(c.tensor(0), c.to_int(1), c.to_int(2))); }
TN_REGISTER_COMPOSITE("aten::split.Tensor", split);

// chunk(Tensor(a -> *) self, int chunks, int dim=0): split by ceil(size / chunks).
void chunk(Call& c) {
  const Tensor& self = c.tensor(0);
  int64_t chunks = c.to_int(1);
  TN_CHECK(self->dim() > 0, "chunk expects at least a 1-dimensional tensor");
  TN_CHECK(chunks > 0, "chunk expects `chunks` to be greater than 0, got: ", chunks);
  int64_t d = wrap_dim(c.to_int(2), self->dim());
  int64_t size = self->size(d);
  int64_t each = (size + chunks - 1) / chunks;
  // CompositeImplicit upstream: the split is a call of its own, as a dispatch mode sees it.
  std::vector<Value> parts =
      each == 0 && size == 0
          ? call("aten::split_with_sizes", {Value::of(self), Value::of_ints(Dims(chunks, 0)),
                                            Value::of_int(d)})
          : call("aten::split.Tensor", {Value::of(self), Value::of_int(each), Value::of_int(d)});
  for (Value& v : parts) c.ret(std::move(v));
}
TN_REGISTER_COMPOSITE("aten::chunk", chunk);

// unbind.int(Tensor(a -> *) self, int dim=0): select along dim for each index.
void unbind(Call& c) {
  const Tensor& self = c.tensor(0);
  TN_CHECK_KIND(self->dim() > 0, Index, "Dimension specified as 0 but tensor has no dimensions");
  int64_t d = wrap_dim(c.to_int(1), self->dim());
  std::vector<Tensor> out;
  for (int64_t i = 0; i < self->size(d); ++i) out.push_back(select_of(self, d, i));
  ret_list(c, out);
}
TN_REGISTER_COMPOSITE("aten::unbind.int", unbind);

// alias: a new view of the same geometry. detach: the same bytes and version counter, not a
// view (a non-differentiable view: no _base, as upstream's).
void alias(Call& c) { c.ret(same_view(c.tensor(0))); }
void detach(Call& c) {
  Tensor d = same_view(c.tensor(0));
  d->set_view_base(Tensor());
  c.ret(d);
}
TN_REGISTER_COMPOSITE("aten::alias", alias);
TN_REGISTER_COMPOSITE("aten::detach", detach);

// diagonal(Tensor(a) self, int offset=0, int dim1=0, int dim2=1): the two dims become one,
// appended last, with stride stride1 + stride2.
void diagonal(Call& c) {
  const Tensor& self = c.tensor(0);
  int64_t off = c.to_int(1);
  int64_t d1 = wrap_dim(c.to_int(2), self->dim()), d2 = wrap_dim(c.to_int(3), self->dim());
  TN_CHECK(d1 != d2, "diagonal dimensions cannot be identical ", c.to_int(2), ", ", c.to_int(3));
  int64_t s1 = self->size(d1), s2 = self->size(d2);
  int64_t len = off >= 0 ? std::min(s1, s2 - off) : std::min(s1 + off, s2);
  len = std::max<int64_t>(len, 0);
  int64_t offset = self->storage_offset();
  if (len > 0) offset += off >= 0 ? off * self->stride(d2) : -off * self->stride(d1);
  Dims sizes, strides;
  for (int64_t d = 0; d < self->dim(); ++d) {
    if (d == d1 || d == d2) continue;
    sizes.push_back(self->size(d));
    strides.push_back(self->stride(d));
  }
  sizes.push_back(len);
  strides.push_back(self->stride(d1) + self->stride(d2));
  c.ret(make_view(self, sizes, strides, offset));
}
TN_REGISTER_COMPOSITE("aten::diagonal", diagonal);

// unfold(Tensor(a) self, int dimension, int size, int step): windows along one dim, appended
// as a new last dim.
void unfold(Call& c) {
  const Tensor& self = c.tensor(0);
  int64_t d = wrap_dim(c.to_int(1), self->dim());
  int64_t size = c.to_int(2), step = c.to_int(3);
  int64_t here = self->dim() == 0 ? 1 : self->size(d);
  TN_CHECK(size >= 0, "size is ", size, " but must be >= 0");
  TN_CHECK(size <= here, "maximum size for tensor at dimension ", d, " is ", here,
           " but size is ", size);
  TN_CHECK(step > 0, "step is ", step, " but must be > 0");
  Dims sizes = self->sizes(), strides = self->strides();
  sizes.push_back(size);
  strides.push_back(self->dim() == 0 ? 1 : self->stride(d));
  if (self->dim() > 0) {
    sizes[d] = (here - size) / step + 1;
    strides[d] *= step;
  }
  c.ret(make_view(self, sizes, strides, self->storage_offset()));
}
TN_REGISTER_COMPOSITE("aten::unfold", unfold);

}  // namespace
}  // namespace tn
