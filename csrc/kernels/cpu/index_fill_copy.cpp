// index_copy (functional, in place, out=) and index_fill (Scalar and 0-dim Tensor values,
// functional and in place) with upstream's checks in its order (IndexKernel.cpp,
// TensorAdvancedIndexing.cpp). The CPU kernels read the index and copy / fill one slice per
// index through the door's select, copy_ and fill_ (exact, as upstream's element copies); Meta
// runs the checks that need no data and allocates.
//   index_copy: indices in [0, size) (IndexError otherwise); a repeated index keeps the last
//     source slice, as upstream's serial loop.
//   index_fill: indices in [-size, size), negative ones counted from the end.
#include "core/warning.h"
#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"
#include "kernels/composite/shape_util.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/rules/elementwise.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

using ops::i64;
using ops::t;

// The index values (int64, any strides) of a 0-d or 1-d index tensor.
std::vector<int64_t> index_list(const Tensor& index, const std::string& key) {
  Tensor dense = contiguous(index, key);
  const int64_t* p = data_of<int64_t>(dense, key);
  return std::vector<int64_t>(p, p + dense->numel());
}

// The slice of x at position i along dim (x itself when it is 0-dim).
Tensor slice_at(const Tensor& x, int64_t dim, int64_t i) {
  if (x->dim() == 0) return x;
  return call_tensor("aten::select.int", {t(x), i64(dim), i64(i)});
}

// --- index_copy ------------------------------------------------------------------------------

// upstream's index_copy meta checks, after `result` has self's shape.
void check_index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                      const Tensor& result) {
  check_no_internal_overlap(*result);
  check_no_overlap(*result, *index);
  check_no_overlap(*result, *source);
  TN_CHECK_KIND(index->dim() < 2, Index, "index_copy_(): Index should have dimension 1 or 0 "
                "(got ", index->dim(), ")");
  const int64_t n = index->numel();
  if (source->dim() == 0)
    TN_CHECK_KIND(n == 1, Index, "index_copy_(): When source is scalar, index should have one "
                  "element (got ", n, ")");
  else if (self->dim() != 0)
    TN_CHECK_KIND(source->dim() == self->dim(), Index, "index_copy_(): When source and "
                  "destination are not scalars, their dimensionality must match. Source "
                  "dimensionality (", source->dim(), "), destination dimensionality (",
                  self->dim(), ")");
  TN_CHECK(index->dtype() == ScalarType::Long, "index_copy_(): Expected a long tensor for index, "
           "but got ", enum_name(index->dtype()));
  TN_CHECK(self->dtype() == source->dtype(), "index_copy_(): self and source expected to have "
           "the same dtype, but got (self) ", enum_name(self->dtype()), " and (source) ",
           enum_name(source->dtype()));
  TN_CHECK(self->device() == source->device() && self->device() == index->device(),
           "index_copy_(): self, index and source expected to be in the same device, but got "
           "(self) ", self->device().str(), ", (index) ", index->device().str(), ", and (source) ",
           source->device().str());
  Dims ss = self->sizes(), cs = source->sizes();
  if (!ss.empty()) ss.erase(ss.begin() + dim);
  if (!cs.empty()) cs.erase(cs.begin() + dim);
  auto spaced = [](const Dims& d) {  // upstream prints the vectors' numbers space-separated
    std::string s;
    for (size_t i = 0; i < d.size(); ++i) s += (i ? " " : "") + std::to_string(d[i]);
    return s;
  };
  TN_CHECK(ss == cs, "index_copy_(): Source/destination tensor must have same slice shapes. "
           "Destination slice shape: ", spaced(ss), " at dimension ", dim, " and source slice "
           "shape: ", spaced(cs), " at dimension 0.");
  TN_CHECK_KIND(source->dim() == 0 || n == source->size(dim), Index, "index_copy_(): Number of "
                "indices (", n, ") should be equal to source.size(dim) (", source->size(dim), ")");
}

enum class Form { Functional, InPlace, Out };

// index_copy(Tensor self, int dim, Tensor index, Tensor source); index_copy_ (same arguments);
// index_copy.out(..., *, Tensor(a!) out).
template <bool Cpu, Form F>
void index_copy(Call& c) {
  const Tensor &self = c.tensor(0), &index = c.tensor(2), &source = c.tensor(3);
  if (F == Form::Out) {  // upstream's out= copies self into out first, then works in place
    ops::check_out_dtype(c.tensor(4), self->dtype());
    ops::resize_out(c.tensor(4), self->sizes());
    ops::copy_(c.tensor(4), self);
  }
  TN_CHECK(self->device() == source->device() && self->device() == index->device(),
           "index_copy(): self, index and source expected to be in the same device, but got "
           "(self) ", self->device().str(), ", (index) ", index->device().str(), ", and (source) ",
           source->device().str());
  const int64_t dim = wrap_dim(c.to_int(1), self->dim());
  Tensor result;
  if (F == Form::InPlace) {
    result = self;
  } else if (F == Form::Out) {
    result = c.tensor(4);
  } else {
    result = new_on(self, self->sizes(), self->dtype());
  }
  check_index_copy(self, dim, index, source, result);
  if (!Cpu) return c.ret(result);
  const std::string& key = c.key();
  if (F == Form::Functional) ops::copy_(result, self);
  const int64_t size = self->dim() == 0 ? 1 : self->size(dim);
  std::vector<int64_t> idx = index_list(index, key);
  for (int64_t k : idx)
    TN_CHECK_KIND(k >= 0 && k < size, Index, "index_copy_(): index ", k, " is out of bounds for "
                  "dimension ", dim, " with size ", size);
  for (size_t i = 0; i < idx.size(); ++i)
    ops::copy_(slice_at(result, dim, idx[i]), slice_at(source, dim, static_cast<int64_t>(i)));
  c.ret(result);
}

// --- index_fill ------------------------------------------------------------------------------

// index_fill_(self, dim, index, value): upstream's checks, then each indexed slice filled.
template <bool Cpu>
void index_fill_into(const Tensor& self, int64_t dim_arg, const Tensor& index,
                     const Scalar& value, const std::string& key) {
  if (!Cpu)  // upstream's meta function checks the index's rank first, in its own words
    TN_CHECK(index->dim() <= 1, "Index should have dimension 1 or 0 (got ", index->dim(), ")");
  TN_CHECK_KIND(index->dtype() == ScalarType::Long, Index, "index_fill_(): Expected dtype int64 "
                "for index.");
  check_no_overlap(*self, *index);
  if (!non_overlapping_and_dense(self->sizes(), self->strides())) {
    bool expanded = false;
    for (int64_t d = 0; d < self->dim(); ++d)
      expanded = expanded || (self->stride(d) == 0 && self->size(d) > 1);
    if (expanded)
      warn("Use of index_fill_ on expanded tensors is deprecated. Please clone() the tensor "
           "before performing this operation. This also applies to advanced indexing e.g. "
           "tensor[mask] = scalar");
  }
  TN_CHECK(is_complex(self->dtype()) || !value.is_complex(), "index_fill_(): Converting complex "
           "Scalar to non-complex type is not supported");
  const Tensor target = self->dim() == 0 ? call_tensor("aten::unsqueeze", {t(self), i64(-1)})
                                         : self;
  const int64_t dim = wrap_dim(dim_arg, target->dim());
  TN_CHECK(index->dim() <= 1, "Index has to be a vector/scalar");
  if (!Cpu) return;
  const int64_t size = target->size(dim);
  std::vector<int64_t> idx = index_list(index, key);
  for (int64_t k : idx)
    TN_CHECK_KIND(k >= -size && k < size, Index, "index ", k, " is out of bounds for dimension ",
                  dim, " with size ", size);
  for (int64_t k : idx)
    call("aten::fill_.Scalar", {t(slice_at(target, dim, k < 0 ? k + size : k)),
                                Value::of_scalar(value)});
}

// The value of the Tensor overloads: a 0-dim tensor, read as a number.
template <bool Cpu>
Scalar value_of(const Tensor& v) {
  TN_CHECK(v->dim() == 0, "index_fill_ only supports a 0-dimensional value tensor, but got "
           "tensor with ", v->dim(), " dimension(s).");
  if (!Cpu) return Scalar::from_int(0);
  return call("aten::_local_scalar_dense", {t(v)})[0].scalar;
}

// index_fill_.int_Scalar / .int_Tensor (self, dim, index, value): in place.
template <bool Cpu, bool TensorValue>
void index_fill_inplace(Call& c) {
  const Scalar value = TensorValue ? value_of<Cpu>(c.tensor(3)) : c.scalar(3);
  index_fill_into<Cpu>(c.tensor(0), c.to_int(1), c.tensor(2), value, c.key());
  c.ret(c.tensor(0));
}
// index_fill.int_Scalar / .int_Tensor: upstream's clone (preserving the layout), then in place.
template <bool Cpu, bool TensorValue>
void index_fill(Call& c) {
  const Tensor& self = c.tensor(0);
  Tensor result = ops::empty_strided(self->sizes(), preserve_strides(*self), self->dtype(),
                                     self->device());
  ops::copy_(result, self);
  const Scalar value = TensorValue ? value_of<Cpu>(c.tensor(3)) : c.scalar(3);
  index_fill_into<Cpu>(result, c.to_int(1), c.tensor(2), value, c.key());
  c.ret(result);
}

}  // namespace

TN_REGISTER_KERNEL("aten::index_copy", DenseCPU, (index_copy<true, Form::Functional>));
TN_REGISTER_KERNEL("aten::index_copy", Meta, (index_copy<false, Form::Functional>));
TN_REGISTER_KERNEL("aten::index_copy_", DenseCPU, (index_copy<true, Form::InPlace>));
TN_REGISTER_KERNEL("aten::index_copy_", Meta, (index_copy<false, Form::InPlace>));
TN_REGISTER_KERNEL("aten::index_copy.out", DenseCPU, (index_copy<true, Form::Out>));
TN_REGISTER_KERNEL("aten::index_copy.out", Meta, (index_copy<false, Form::Out>));
TN_REGISTER_KERNEL("aten::index_fill_.int_Scalar", DenseCPU, (index_fill_inplace<true, false>));
TN_REGISTER_KERNEL("aten::index_fill_.int_Scalar", Meta, (index_fill_inplace<false, false>));
TN_REGISTER_KERNEL("aten::index_fill_.int_Tensor", DenseCPU, (index_fill_inplace<true, true>));
TN_REGISTER_KERNEL("aten::index_fill_.int_Tensor", Meta, (index_fill_inplace<false, true>));
TN_REGISTER_KERNEL("aten::index_fill.int_Scalar", DenseCPU, (index_fill<true, false>));
TN_REGISTER_KERNEL("aten::index_fill.int_Scalar", Meta, (index_fill<false, false>));
TN_REGISTER_KERNEL("aten::index_fill.int_Tensor", DenseCPU, (index_fill<true, true>));
TN_REGISTER_KERNEL("aten::index_fill.int_Tensor", Meta, (index_fill<false, true>));

}  // namespace tn
