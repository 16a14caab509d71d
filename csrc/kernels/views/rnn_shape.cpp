// The shape ops upstream's RNN code reaches that views.cpp does not build: unsafe_split and
// unsafe_split_with_sizes (split's pieces over the same bytes, but not views: each has its own
// version counter, so in-place gate activations record no CopySlices), unsafe_chunk (their
// CompositeImplicit caller) and transpose_ (self's own geometry transposed; GRU and the simple
// RNNs transpose a batch_first output with it). Metadata only: every back end, meta included.
#include "dispatch/kernel.h"
#include "kernels/composite/shape_util.h"

namespace tn {
namespace {

// Each result of a split, re-made as a tensor of its own over the same bytes (upstream's
// unsafe_split gives the pieces a fresh version counter; they have no _base).
void ret_unaliased(Call& c, std::vector<Value> pieces) {
  std::vector<Tensor> out;
  for (Value& v : pieces)
    for (const Tensor& p : v.tag == Value::Tag::TensorList ? v.tensors
                                                           : std::vector<Tensor>{v.tensor})
      out.push_back(make<TensorImpl>(p->storage(), p->dtype(), p->sizes(), p->strides(),
                                     p->storage_offset(), p->representation()));
  c.ret(Value::of_tensors(std::move(out)));
}

// unsafe_split.Tensor(Tensor self, SymInt split_size, int dim=0) -> Tensor[]
void unsafe_split(Call& c) {
  ret_unaliased(c, call("aten::split.Tensor", {c.arg(0), c.arg(1), c.arg(2)}));
}
TN_REGISTER_COMPOSITE("aten::unsafe_split.Tensor", unsafe_split);

// unsafe_split_with_sizes(Tensor self, SymInt[] split_sizes, int dim=0) -> Tensor[]
void unsafe_split_with_sizes(Call& c) {
  ret_unaliased(c, call("aten::split_with_sizes", {c.arg(0), c.arg(1), c.arg(2)}));
}
TN_REGISTER_COMPOSITE("aten::unsafe_split_with_sizes", unsafe_split_with_sizes);

// unsafe_chunk(Tensor self, int chunks, int dim=0) -> Tensor[]: unsafe_split by
// ceil(size / chunks), or with sizes when the dim is empty (chunk's rule, upstream's order of
// checks).
void unsafe_chunk(Call& c) {
  const Tensor& self = c.tensor(0);
  int64_t chunks = c.to_int(1);
  TN_CHECK(self->dim() > 0, "chunk expects at least a 1-dimensional tensor");
  TN_CHECK(chunks > 0, "chunk expects `chunks` to be greater than 0, got: ", chunks);
  int64_t d = wrap_dim(c.to_int(2), self->dim());
  int64_t size = self->size(d);
  int64_t each = (size + chunks - 1) / chunks;
  std::vector<Value> parts =
      each == 0 && size == 0
          ? call("aten::unsafe_split_with_sizes",
                 {Value::of(self), Value::of_ints(Dims(chunks, 0)), Value::of_int(d)})
          : call("aten::unsafe_split.Tensor",
                 {Value::of(self), Value::of_int(each), Value::of_int(d)});
  for (Value& v : parts) c.ret(std::move(v));
}
TN_REGISTER_COMPOSITE("aten::unsafe_chunk", unsafe_chunk);

// transpose_(Tensor(a!) self, int dim0, int dim1) -> Tensor(a!): transpose.int's geometry
// (and its checks) written into self.
void transpose_(Call& c) {
  const Tensor& self = c.tensor(0);
  Tensor v = call_tensor("aten::transpose.int", {c.arg(0), c.arg(1), c.arg(2)});
  self->set_sizes_strides(v->sizes(), v->strides(), v->storage_offset());
  c.ret(self);
}
TN_REGISTER_COMPOSITE("aten::transpose_", transpose_);

}  // namespace
}  // namespace tn
