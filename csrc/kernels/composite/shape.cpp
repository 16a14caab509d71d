// Shape ops and copies written over other ops (so valid for every representation): reshape,
// contiguous, flatten, clone, _to_copy and the aten::to overloads, cat/stack, repeat, flip, roll,
// and the out-of-place forms of tril/triu, masked_fill and index_put; broadcast_tensors.
#include "core/promotion.h"
#include "core/warning.h"
#include "kernels/composite/cat_plan.h"
#include "kernels/composite/ops.h"
#include "kernels/composite/shape_util.h"
#include "kernels/rules/elementwise.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

using namespace ops;

// A view when upstream's stride rule allows one, else a contiguous copy viewed as shape.
Tensor reshape_of(const Tensor& self, const Dims& shape) {
  Dims sizes = infer_size(shape, self->numel());
  if (view_strides(self->sizes(), self->strides(), sizes)) return view(self, sizes);
  return call_tensor("aten::_unsafe_view", {t(clone_contiguous(self)), ints(sizes)});
}

// reshape(Tensor(a) self, SymInt[] shape) -> Tensor(a)
void reshape(Call& c) { c.ret(reshape_of(c.tensor(0), c.int_list(1))); }
TN_REGISTER_COMPOSITE("aten::reshape", reshape);

// contiguous(Tensor(a) self, *, MemoryFormat memory_format=contiguous_format): self itself when
// already contiguous in that format, else a clone in it.
void contiguous(Call& c) {
  const Tensor& self = c.tensor(0);
  MemoryFormatKind f = c.arg(1).is_none() ? MemoryFormatKind::Contiguous
                                          : format_of(c.arg(1), self->dim());
  bool cl = f == MemoryFormatKind::ChannelsLast || f == MemoryFormatKind::ChannelsLast3d;
  if (cl ? is_channels_last_contiguous(*self) : self->is_contiguous()) return c.ret(self);
  TN_CHECK(f != MemoryFormatKind::Preserve,
           "preserve memory format is unsupported by the contiguous operator");
  if (!cl) return c.ret(clone_contiguous(self));
  Tensor out = empty_strided(self->sizes(), channels_last_strides(self->sizes()), self->dtype(),
                             self->device());
  copy_(out, self);
  c.ret(out);
}
TN_REGISTER_COMPOSITE("aten::contiguous", contiguous);

// flatten.using_ints(Tensor(a) self, int start_dim=0, int end_dim=-1): self itself when the
// range is a single dim, as upstream.
void flatten(Call& c) {
  const Tensor& self = c.tensor(0);
  int64_t s = wrap_dim(c.to_int(1), self->dim()), e = wrap_dim(c.to_int(2), self->dim());
  TN_CHECK(s <= e, "flatten() has invalid args: start_dim cannot come after end_dim");
  if (self->dim() == 0) return c.ret(reshape_of(self, {1}));
  if (s == e) return c.ret(self);
  Dims shape(self->sizes().begin(), self->sizes().begin() + s);
  int64_t n = 1;
  for (int64_t d = s; d <= e; ++d) n *= self->size(d);
  shape.push_back(n);
  shape.insert(shape.end(), self->sizes().begin() + e + 1, self->sizes().end());
  c.ret(reshape_of(self, shape));
}
TN_REGISTER_COMPOSITE("aten::flatten.using_ints", flatten);

// A new tensor shaped like self under memory format f.
Tensor alloc_like(const Tensor& self, ScalarType dtype, Device device, MemoryFormatKind f) {
  return empty_strided(self->sizes(), strides_in_format(*self, f), dtype, device);
}

// clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor
void clone(Call& c) {
  const Tensor& self = c.tensor(0);
  Tensor out = alloc_like(self, self->dtype(), self->device(), format_of(c.arg(1), self->dim()));
  copy_(out, self);
  c.ret(out);
}
TN_REGISTER_COMPOSITE("aten::clone", clone);

// The conversion behind every aten::to: allocate on the target device, copy when it holds bytes.
Tensor to_copy(const Tensor& self, ScalarType dtype, Device device, MemoryFormatKind f) {
  TN_CHECK_KIND(info(dtype).supported, NotImplemented, "aten::_to_copy has no kernel in "
                "torchnative for dtype ", name(dtype));
  TN_CHECK_KIND(!(self->device().type == DeviceType::Meta && device.type != DeviceType::Meta),
                NotImplemented, "Cannot copy out of meta tensor; no data!");
  Tensor out = alloc_like(self, dtype, device, f);
  // Across devices too: copy_ runs on the higher back end of the two, through its contract
  // (meta's copies nothing).
  copy_(out, self);
  return out;
}

// _to_copy(Tensor self, *, ScalarType? dtype, Layout? layout, Device? device, bool? pin_memory,
//          bool non_blocking=False, MemoryFormat? memory_format=None) -> Tensor
void to_copy_op(Call& c) {
  const Tensor& self = c.tensor(0);
  TN_CHECK_KIND(c.arg(2).is_none() || c.arg(2).i == 0, NotImplemented, c.key(),
                ": only the strided layout is implemented by torchnative");
  TN_CHECK_KIND(c.arg(4).is_none() || !c.to_bool(4), NotImplemented, c.key(),
                ": pin_memory=True is not implemented by torchnative");
  ScalarType dtype = c.optional_dtype(1).value_or(self->dtype());
  Device device = c.arg(3).is_none() ? self->device() : c.arg(3).device;
  c.ret(to_copy(self, dtype, device, format_of(c.arg(6), self->dim())));
}
TN_REGISTER_COMPOSITE("aten::_to_copy", to_copy_op);

// Upstream's to(): self itself when nothing changes and no copy is asked for, else a call of
// _to_copy (CompositeImplicit upstream: a dispatch mode sees the _to_copy).
Tensor to_impl(const Tensor& self, ScalarType dtype, Device device, bool copy, const Value& mf) {
  MemoryFormatKind f = format_of(mf, self->dim());
  if (!copy && dtype == self->dtype() && device.type == self->device().type &&
      (f == MemoryFormatKind::Preserve || f == suggested_format(*self)))
    return self;
  return call_tensor("aten::_to_copy", {Value::of(self), Value::of_dtype(dtype), Value{},
                                        Value::of_device(device), Value{}, Value::of_bool(false),
                                        mf});
}

// to.dtype(self, ScalarType dtype, bool non_blocking, bool copy, MemoryFormat? memory_format)
void to_dtype(Call& c) {
  const Tensor& self = c.tensor(0);
  c.ret(to_impl(self, *c.optional_dtype(1), self->device(), c.to_bool(3), c.arg(4)));
}
// to.device(self, Device device, ScalarType dtype, bool non_blocking, bool copy, MemoryFormat?)
void to_device(Call& c) {
  c.ret(to_impl(c.tensor(0), *c.optional_dtype(2), c.arg(1).device, c.to_bool(4), c.arg(5)));
}
// to.other(self, Tensor other, bool non_blocking, bool copy, MemoryFormat? memory_format)
void to_other(Call& c) {
  const Tensor& o = c.tensor(1);
  c.ret(to_impl(c.tensor(0), o->dtype(), o->device(), c.to_bool(3), c.arg(4)));
}
// type_as(Tensor self, Tensor other): self with other's dtype and device (upstream's
// self.to(other.options())): self itself when both already match.
void type_as(Call& c) {
  const Tensor& o = c.tensor(1);
  c.ret(to_impl(c.tensor(0), o->dtype(), o->device(), false, Value{}));
}
TN_REGISTER_COMPOSITE("aten::type_as", type_as);

// reshape_as(Tensor(a) self, Tensor other) -> Tensor(a): self.reshape(other.sizes()).
void reshape_as(Call& c) { c.ret(reshape_of(c.tensor(0), c.tensor(1)->sizes())); }
TN_REGISTER_COMPOSITE("aten::reshape_as", reshape_as);

// repeat_interleave.self_int(Tensor self, SymInt repeats, int? dim=None, *,
// SymInt? output_size=None): each element `repeats` times in a row along dim (of self
// flattened when dim is None): a size-`repeats` dim after dim, by expand, made contiguous and
// merged into dim.
void repeat_interleave_int(Call& c) {
  const Tensor& self = c.tensor(0);
  const int64_t reps = c.to_int(1);
  const bool flat = c.arg(2).is_none();
  Tensor in = flat ? call_tensor("aten::flatten.using_ints", {t(self), i64(0), i64(-1)}) : self;
  const int64_t dim = wrap_dim(flat ? 0 : c.to_int(2), self->dim());
  TN_CHECK(reps >= 0, "Repeats must be non-negative");
  in = call_tensor("aten::unsqueeze", {t(in), i64(dim + 1)});
  Dims shape = in->sizes();
  shape[dim + 1] = reps;
  in = call_tensor("aten::expand", {t(in), ints(shape), Value::of_bool(false)});
  if (!c.arg(3).is_none()) {
    const int64_t want = reps * shape[dim];
    TN_CHECK(c.to_int(3) == want, "repeat_interleave: Invalid output_size, expected ", want,
             " but got ", c.to_int(3));
  }
  c.ret(call_tensor("aten::flatten.using_ints",
                    {t(clone_contiguous(in)), i64(dim), i64(dim + 1)}));
}
TN_REGISTER_COMPOSITE("aten::repeat_interleave.self_int", repeat_interleave_int);

// meshgrid(Tensor[] tensors) / meshgrid.indexing(Tensor[] tensors, *, str indexing): the i-th
// 0-d or 1-d input viewed along dim i and expanded to the grid of every input's length ("ij");
// "xy" swaps the first two inputs for the grid, then the first two grids back.
void meshgrid_with(Call& c, const std::string& indexing) {
  std::vector<Tensor> ts = c.tensor_list(0);
  TN_CHECK(!ts.empty(), "meshgrid expects a non-empty TensorList");
  for (const Tensor& x : ts)
    TN_CHECK(x->dim() <= 1, "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but "
             "got a tensor of shape ", dims_str(x->sizes()));
  for (size_t i = 1; i < ts.size(); ++i) {
    TN_CHECK(ts[i]->dtype() == ts[0]->dtype(), "meshgrid expects all tensors to have the same "
             "dtype");
    TN_CHECK(ts[i]->device() == ts[0]->device(), "meshgrid expects all tensors to have the "
             "same device");
  }
  TN_CHECK(indexing == "ij" || indexing == "xy", "torch.meshgrid: indexing must be one of "
           "\"xy\" or \"ij\", but received: ", indexing);
  const bool swap = indexing == "xy" && ts.size() >= 2;
  if (swap) std::swap(ts[0], ts[1]);
  const size_t n = ts.size();
  Dims grid;
  for (const Tensor& x : ts) grid.push_back(x->numel());
  std::vector<Tensor> out;
  for (size_t i = 0; i < n; ++i) {
    Dims shape(n, 1);
    shape[i] = -1;
    out.push_back(call_tensor("aten::expand", {t(view(ts[i], shape)), ints(grid),
                                               Value::of_bool(false)}));
  }
  if (swap) std::swap(out[0], out[1]);
  c.ret(Value::of_tensors(std::move(out)));
}
void meshgrid(Call& c) {
  static bool warned = false;  // upstream's TORCH_WARN_ONCE
  if (!warned) {
    warned = true;
    warn("torch.meshgrid: in an upcoming release, it will be required to pass the indexing "
         "argument.");
  }
  meshgrid_with(c, "ij");
}
void meshgrid_indexing(Call& c) { meshgrid_with(c, c.arg(1).str); }
TN_REGISTER_COMPOSITE("aten::meshgrid", meshgrid);
TN_REGISTER_COMPOSITE("aten::meshgrid.indexing", meshgrid_indexing);

// to.dtype_layout(self, *, dtype?, layout?, device?, pin_memory?, non_blocking, copy, mf?)
void to_dtype_layout(Call& c) {
  const Tensor& self = c.tensor(0);
  TN_CHECK_KIND(c.arg(2).is_none() || c.arg(2).i == 0, NotImplemented, c.key(),
                ": only the strided layout is implemented by torchnative");
  ScalarType dtype = c.optional_dtype(1).value_or(self->dtype());
  Device device = c.arg(3).is_none() ? self->device() : c.arg(3).device;
  c.ret(to_impl(self, dtype, device, c.to_bool(6), c.arg(7)));
}
TN_REGISTER_COMPOSITE("aten::to.dtype", to_dtype);
TN_REGISTER_COMPOSITE("aten::to.device", to_device);
TN_REGISTER_COMPOSITE("aten::to.other", to_other);
TN_REGISTER_COMPOSITE("aten::to.dtype_layout", to_dtype_layout);

}  // namespace

bool cat_skips(const Tensor& t) { return t->dim() == 1 && t->size(0) == 0; }

// Output shape, wrapped dim and promoted dtype of cat, with upstream's checks.
CatPlan plan_cat(const std::vector<Tensor>& ts, int64_t dim, const Tensor* out) {
  TN_CHECK_KIND(!ts.empty(), Value, "torch.cat(): expected a non-empty list of Tensors");
  for (const Tensor& t : ts)
    TN_CHECK(t->device() == ts[0]->device(), "Tensor on device ", t->device().str(),
             " is not on the expected device ", ts[0]->device().str(), "!");
  CatPlan p;
  p.dtype = ts[0]->dtype();
  for (const Tensor& t : ts) p.dtype = promote_types(p.dtype, t->dtype());
  const Tensor* ref = nullptr;
  for (size_t i = 0; i < ts.size(); ++i) {
    TN_CHECK(ts[i]->dim() > 0, "zero-dimensional tensor (at position ", i,
             ") cannot be concatenated");
    if (!ref && !cat_skips(ts[i])) ref = &ts[i];
  }
  if (!ref) {  // everything skipped: upstream returns the (0,) shape
    p.shape = ts[0]->sizes();
    p.dim = dim;
    return p;
  }
  p.dim = wrap_dim(dim, (*ref)->dim());
  if (out)
    TN_CHECK_KIND(can_cast(p.dtype, (*out)->dtype()), Type, "torch.cat(): input types can't be "
                  "cast to the desired output type ", enum_name((*out)->dtype()));
  p.shape = (*ref)->sizes();
  p.shape[p.dim] = 0;
  for (size_t i = 0; i < ts.size(); ++i) {
    const Tensor& t = ts[i];
    if (cat_skips(t)) continue;
    TN_CHECK(t->dim() == (*ref)->dim(), "Tensors must have same number of dimensions: got ",
             (*ref)->dim(), " and ", t->dim());
    for (int64_t d = 0; d < t->dim(); ++d) {
      if (d == p.dim) continue;
      TN_CHECK(t->size(d) == p.shape[d], "Sizes of tensors must match except in dimension ",
               p.dim, ". Expected size ", p.shape[d], " but got size ", t->size(d),
               " for tensor number ", i, " in the list.");
    }
    p.shape[p.dim] += t->size(p.dim);
  }
  return p;
}

// Copies each input into its slice of out along dim.
void cat_fill(const Tensor& out, const std::vector<Tensor>& ts, const CatPlan& p) {
  if (out->numel() == 0) return;
  int64_t at = 0;
  for (const Tensor& t : ts) {
    if (cat_skips(t)) continue;
    int64_t len = t->size(p.dim);
    if (len > 0) copy_(narrow(out, p.dim, at, len), t);
    at += len;
  }
}

namespace {

// cat(Tensor[] tensors, int dim=0) -> Tensor
void cat(Call& c) {
  const auto& ts = c.tensor_list(0);
  CatPlan p = plan_cat(ts, c.to_int(1));
  Tensor out = empty(p.shape, p.dtype, ts[0]->device());
  cat_fill(out, ts, p);
  c.ret(out);
}
TN_REGISTER_COMPOSITE("aten::cat", cat);

// cat.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out) -> Tensor(a!)
void cat_out(Call& c) {
  const auto& ts = c.tensor_list(0);
  const Tensor& out = c.tensor(2);
  CatPlan p = plan_cat(ts, c.to_int(1), &out);
  for (const Tensor& t : ts) check_out_device(out, t->device());
  TN_CHECK_KIND(can_cast(p.dtype, out->dtype()), Type, "torch.cat(): input types can't be cast "
                "to the desired output type ", enum_name(out->dtype()));
  tn::resize_out(out, p.shape);  // upstream warns here (resize_output)
  // Upstream's cat meta, once out is resized: out may not write one location twice, nor share
  // memory with an input (fully either: cat(x, y, out=y) raises).
  check_no_internal_overlap(*out);
  for (const Tensor& t : ts) check_no_overlap(*out, *t);
  cat_fill(out, ts, p);
  c.ret(out);
}
TN_REGISTER_COMPOSITE("aten::cat.out", cat_out);

// The inputs of stack, each unsqueezed at the wrapped dim.
std::vector<Tensor> stack_parts(const std::vector<Tensor>& ts, int64_t dim, int64_t* wrapped) {
  TN_CHECK(!ts.empty(), "stack expects a non-empty TensorList");
  for (size_t i = 1; i < ts.size(); ++i)
    TN_CHECK(ts[i]->sizes() == ts[0]->sizes(), "stack expects each tensor to be equal size, but "
             "got ", dims_str(ts[0]->sizes()), " at entry 0 and ", dims_str(ts[i]->sizes()),
             " at entry ", i);
  *wrapped = wrap_dim(dim, ts[0]->dim() + 1);
  std::vector<Tensor> parts;
  for (const Tensor& t : ts)
    parts.push_back(call_tensor("aten::unsqueeze", {ops::t(t), i64(*wrapped)}));
  return parts;
}

// stack(Tensor[] tensors, int dim=0) -> Tensor; stack.out(..., *, Tensor(a!) out)
void stack(Call& c) {
  int64_t d;
  auto parts = stack_parts(c.tensor_list(0), c.to_int(1), &d);
  c.ret(call_tensor("aten::cat", {Value::of_tensors(parts), i64(d)}));
}
void stack_out(Call& c) {
  int64_t d;
  auto parts = stack_parts(c.tensor_list(0), c.to_int(1), &d);
  c.ret(call_tensor("aten::cat.out", {Value::of_tensors(parts), i64(d), c.arg(2)}));
}
TN_REGISTER_COMPOSITE("aten::stack", stack);
TN_REGISTER_COMPOSITE("aten::stack.out", stack_out);

// repeat(Tensor self, SymInt[] repeats): the contiguous result viewed as (r0, s0, r1, s1, ...)
// is filled from self viewed with zero strides on the r dims (one broadcasting copy).
void repeat(Call& c) {
  const Tensor& self = c.tensor(0);
  const Dims& reps = c.int_list(1);
  int64_t n = static_cast<int64_t>(reps.size()), lead = n - self->dim();
  TN_CHECK(lead >= 0, "Number of dimensions of repeat dims can not be smaller than number of "
           "dimensions of tensor");
  Dims out_shape(n), inter_sizes, src_strides;
  for (int64_t i = 0; i < n; ++i) {
    TN_CHECK(reps[i] >= 0, "Trying to create tensor with negative dimension ", reps[i], ": ",
             dims_str(reps));
    int64_t s = i < lead ? 1 : self->size(i - lead);
    out_shape[i] = s * reps[i];
    inter_sizes.insert(inter_sizes.end(), {reps[i], s});
    src_strides.insert(src_strides.end(), {0, i < lead ? 0 : self->stride(i - lead)});
  }
  Tensor out = empty(out_shape, self->dtype(), self->device());
  if (out->numel() > 0) {
    Tensor src = call_tensor("aten::as_strided", {t(self), ints(inter_sizes), ints(src_strides)});
    Tensor dst = call_tensor("aten::as_strided",
                             {t(out), ints(inter_sizes), ints(contiguous_strides(inter_sizes))});
    copy_(dst, src);
  }
  c.ret(out);
}
TN_REGISTER_COMPOSITE("aten::repeat", repeat);

// tile(Tensor self, SymInt[] dims): repeat, with dims padded in front by 1s up to self's rank.
void tile(Call& c) {
  const Tensor& self = c.tensor(0);
  Dims reps = c.int_list(1);
  if (static_cast<int64_t>(reps.size()) < self->dim())
    reps.insert(reps.begin(), static_cast<size_t>(self->dim()) - reps.size(), 1);
  c.ret(call_tensor("aten::repeat", {t(self), ints(reps)}));
}
TN_REGISTER_COMPOSITE("aten::tile", tile);

// one_hot(Tensor self, int num_classes=-1): int64 indices (checked non-negative and below
// num_classes, which -1 infers as max + 1) scattered as ones into int64 zeros with a last dim
// of num_classes; an empty input needs num_classes.
void one_hot(Call& c) {
  const Tensor& self = c.tensor(0);
  int64_t classes = c.to_int(1);
  TN_CHECK(self->dtype() == ScalarType::Long,
           "one_hot is only applicable to index tensor of type LongTensor.");
  Dims shape = self->sizes();
  if (self->numel() == 0) {
    TN_CHECK(classes > 0, "Can not infer total number of classes from empty tensor.");
    shape.push_back(classes);
    return c.ret(empty(shape, ScalarType::Long, self->device()));
  }
  auto item = [](const Tensor& x) {
    return call("aten::_local_scalar_dense", {t(x)})[0].scalar.to_int();
  };
  TN_CHECK(item(call_tensor("aten::min", {t(self)})) >= 0, "Class values must be non-negative.");
  const int64_t top = item(call_tensor("aten::max", {t(self)}));
  if (classes == -1) classes = top + 1;
  else TN_CHECK(top < classes, "Class values must be smaller than num_classes.");
  shape.push_back(classes);
  Tensor out = call_tensor("aten::zeros", {ints(shape), Value::of_dtype(ScalarType::Long),
                                           Value{}, Value::of_device(self->device())});
  Tensor idx = call_tensor("aten::unsqueeze", {t(self), i64(-1)});
  call("aten::scatter_.value", {t(out), i64(-1), t(idx), Value::of_scalar(Scalar::from_int(1))});
  c.ret(out);
}
TN_REGISTER_COMPOSITE("aten::one_hot", one_hot);


// One dim of roll: the last `shift` entries move to the front (two slices, concatenated).
Tensor roll_one(const Tensor& self, int64_t shift, int64_t dim) {
  TN_CHECK_KIND(self->dim() > 0, Index, "Dimension specified as ", dim,
                " but tensor has no dimensions");
  int64_t d = wrap_dim(dim, self->dim());
  int64_t size = self->size(d);
  if (self->numel() == 0 || size == 0) return clone_contiguous(self);
  int64_t start = ((size - shift) % size + size) % size;
  std::vector<Tensor> parts{narrow(self, d, start, size - start), narrow(self, d, 0, start)};
  return call_tensor("aten::cat", {Value::of_tensors(parts), i64(d)});
}

// roll(Tensor self, SymInt[1] shifts, int[1] dims=[]) -> Tensor
void roll(Call& c) {
  const Tensor& self = c.tensor(0);
  const Dims& shifts = c.int_list(1);
  const Dims& dims = c.int_list(2);
  TN_CHECK(!shifts.empty(), "`shifts` required");
  if (dims.empty() && shifts.size() == 1) {
    Tensor flat = roll_one(reshape_of(self, {-1}), shifts[0], 0);
    return c.ret(view(flat, self->sizes()));
  }
  TN_CHECK(shifts.size() == dims.size(), "shifts and dimensions must align. shifts: ",
           shifts.size(), ", dims:", dims.size());
  Tensor out = self;
  for (size_t i = 0; i < dims.size(); ++i) out = roll_one(out, shifts[i], dims[i]);
  if (out == self) out = clone_contiguous(self);
  c.ret(out);
}
TN_REGISTER_COMPOSITE("aten::roll", roll);

// tril/triu (out-of-place and out=): a contiguous copy, then the in-place kernel.
template <const char* kInplace>
void tri(Call& c) {
  Tensor out = clone_contiguous(c.tensor(0));
  c.ret(call_tensor(kInplace, {t(out), c.arg(1)}));
}
template <const char* kInplace>
void tri_out(Call& c) {
  const Tensor& self = c.tensor(0);
  const Tensor& out = c.tensor(2);
  check_out_device(out, self->device());
  TN_CHECK(out->dtype() == self->dtype(), "Expected out tensor to have dtype ",
           cpp_type_name(self->dtype()), ", but got ", cpp_type_name(out->dtype()), " instead");
  ops::resize_out(out, self->sizes());
  if (out.get() != self.get()) copy_(out, self);
  c.ret(call_tensor(kInplace, {t(out), c.arg(1)}));
}
constexpr char kTril_[] = "aten::tril_";
constexpr char kTriu_[] = "aten::triu_";
TN_REGISTER_COMPOSITE("aten::tril", tri<kTril_>);
TN_REGISTER_COMPOSITE("aten::triu", tri<kTriu_>);
TN_REGISTER_COMPOSITE("aten::tril.out", tri_out<kTril_>);
TN_REGISTER_COMPOSITE("aten::triu.out", tri_out<kTriu_>);

// masked_fill.Scalar / .Tensor(Tensor self, Tensor mask, value): self and mask broadcast
// together, copied contiguous, then filled in place.
template <const char* kInplace>
void masked_fill(Call& c) {
  const Tensor& self = c.tensor(0);
  Dims shape = broadcast_shapes(self->sizes(), c.tensor(1)->sizes());
  Tensor out = empty(shape, self->dtype(), self->device());
  copy_(out, self);
  c.ret(call_tensor(kInplace, {t(out), c.arg(1), c.arg(2)}));
}
constexpr char kMaskedScalar[] = "aten::masked_fill_.Scalar";
constexpr char kMaskedTensor[] = "aten::masked_fill_.Tensor";
TN_REGISTER_COMPOSITE("aten::masked_fill.Scalar", masked_fill<kMaskedScalar>);
TN_REGISTER_COMPOSITE("aten::masked_fill.Tensor", masked_fill<kMaskedTensor>);

// index_put(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor
void index_put(Call& c) {
  const Tensor& self = c.tensor(0);
  Tensor out = alloc_like(self, self->dtype(), self->device(), MemoryFormatKind::Preserve);
  copy_(out, self);
  c.ret(call_tensor("aten::index_put_", {t(out), c.arg(1), c.arg(2), c.arg(3)}));
}
TN_REGISTER_COMPOSITE("aten::index_put", index_put);

// broadcast_tensors(Tensor[] tensors) -> Tensor[]: each expanded to the common shape; one that
// has it already is returned itself (upstream's expand_outplace borrows it).
void broadcast_tensors(Call& c) {
  const std::vector<Tensor>& ts = c.tensor_list(0);
  Dims shape;
  for (const Tensor& x : ts) broadcast_into(shape, x->sizes());
  std::vector<Tensor> out;
  out.reserve(ts.size());
  for (const Tensor& x : ts)
    out.push_back(x->sizes() == shape ? x : call_tensor("aten::expand", {t(x), ints(shape)}));
  c.ret(Value::of_tensors(std::move(out)));
}
TN_REGISTER_COMPOSITE("aten::broadcast_tensors", broadcast_tensors);

}  // namespace
}  // namespace tn
