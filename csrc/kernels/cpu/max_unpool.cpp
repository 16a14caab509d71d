// max_unpool2d and max_unpool3d (and their .out) on dense CPU tensors, as upstream's
// MaxUnpooling.cpp and cpu/MaxUnpoolKernel.cpp compute them: a zero output of the input's
// leading dims and output_size, each input element written at its flat in-plane index (the
// later of two elements at one index wins; an index outside the plane raises after the pass,
// naming the last one met). float32, float64, float16 and bfloat16, exactly (a copy). Meta
// follows upstream's meta path (its Python decomposition: the same checks in its words, a
// contiguous result of any dtype).
#include <cstdint>
#include <optional>
#include <string>

#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/dtype_dispatch.h"
#include "kernels/rules/elementwise.h"

namespace tn {
namespace {

using ops::t;

struct Unpool {
  Tensor self, indices;
  Dims out_size, stride, padding;
  int dims;  // 2 or 3 spatial dims
};

// upstream's Python printing of a shape (the meta path's messages): torch.Size([2, 3]).
std::string py_size(const Dims& d) { return "torch.Size(" + dims_str(d) + ")"; }

// upstream's max_unpooling2d/3d_shape_check (Cpu) or its decomposition's checks (Meta), in
// their order and words.
template <bool Cpu>
void check(const Unpool& u) {
  const Tensor& x = u.self;
  const int64_t nd = x->dim();
  const bool two = u.dims == 2;
  const std::string op = two ? "max_unpooling2d" : "max_unpooling3d";
  const ScalarType idt = u.indices->dtype();
  if (two)
    TN_CHECK(idt == ScalarType::Long, "elements in indices should be type int64 but got: ",
             Cpu ? enum_name(idt) : (std::string("torch.") + name(idt)));
  else
    TN_CHECK(idt == ScalarType::Long, "elements in indices should be type int64");
  auto check_dims = [&] {
    TN_CHECK(nd == u.dims + 1 || nd == u.dims + 2, "Input to ", op, " should be a ",
             u.dims + 1, "d or ", u.dims + 2, "d Tensor, but got a tensor with ", nd,
             " dimensions.");
  };
  if (!two) check_dims();
  const size_t osz = u.out_size.size();
  if (two)
    TN_CHECK(osz == 2, "There should be exactly two elements (height, width) in output_size, "
             "but got ", osz, " elements.");
  else
    TN_CHECK(osz == 3, "There should be exactly three elements (depth, height, width) in "
             "output_size, but got ", osz, " elements.");
  if (two) check_dims();
  if (!two) {
    TN_CHECK(u.stride.size() == 3, "There should be exactly three elements (depth, height, "
             "width) in stride, but got: ", u.stride.size(), " elements.");
    TN_CHECK(u.padding.size() == 3, "There should be exactly three elements (depth, height, "
             "width) in padding, but got: ", u.padding.size(), " elements.");
  }
  const Dims& xs = x->sizes();
  const Dims& is = u.indices->sizes();
  TN_CHECK(xs == is, "Expected shape of indices to be same as that of the input tensor (",
           Cpu ? dims_str(xs) : py_size(xs), ") but got indices tensor with shape: ",
           Cpu ? dims_str(is) : py_size(is));
  for (int64_t d = 1; d < nd; ++d)
    TN_CHECK(xs[d] > 0, Cpu ? op + "_forward_out_cpu()" : op + "()", ": Expected input to have "
             "non-zero size for non-batch dimensions, but got ", Cpu ? dims_str(xs) : py_size(xs),
             " with dimension ", d, " being empty.");
  if (!two)
    TN_CHECK(u.stride[0] > 0 && u.stride[1] > 0 && u.stride[2] > 0, "strides should be greater "
             "than zero, but got stride: ", dims_str(u.stride));
  for (size_t i = 0; i < osz; ++i) {
    if (u.out_size[i] >= 0) continue;
    if (!Cpu)
      TN_FAIL(Runtime, op, "(): output_size must contain non-negative spatial dimensions, but "
              "got output_size[", i, "]=", u.out_size[i]);
    std::string all;
    for (size_t k = 0; k < osz; ++k) all += (k ? ", " : "") + std::to_string(u.out_size[k]);
    TN_FAIL(Runtime, op, "(): output_size must contain non-negative spatial dimensions, but got "
            "output_size=(", all, ")");
  }
}

// The output's sizes: the input's leading (batch, channel) dims, then output_size.
Dims out_shape(const Unpool& u) {
  Dims s(u.self->sizes().begin(), u.self->sizes().end() - u.dims);
  for (int64_t v : u.out_size) s.push_back(v);
  return s;
}

// out[p].flat[idx[p, i]] = in[p, i] for every plane p (the leading dims) in `order`: planes
// then in-plane positions, or (channels last) n, position, then c. Returns the last invalid
// index met.
template <typename T>
std::optional<int64_t> scatter(T* o, const T* in, const int64_t* idx, int64_t batch,
                               int64_t chans, int64_t in_plane, int64_t out_plane, bool cl) {
  std::optional<int64_t> bad;
  auto put = [&](int64_t plane, int64_t src) {
    const int64_t m = idx[src];
    if (m < 0 || m >= out_plane) bad = m;
    else o[plane * out_plane + m] = in[src];
  };
  if (!cl) {
    for (int64_t p = 0; p < batch * chans; ++p)
      for (int64_t i = 0; i < in_plane; ++i) put(p, p * in_plane + i);
    return bad;
  }
  // channels-last input (n, h, w, c in memory); the output is laid out NCHW here
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t i = 0; i < in_plane; ++i)
      for (int64_t c = 0; c < chans; ++c) put(n * chans + c, (n * in_plane + i) * chans + c);
  return bad;
}

// Writes the unpooled input into out (already sized and zeroed): computed in a contiguous
// buffer of planes, then copied into out's own layout.
void fill(const Call& c, const Unpool& u, const Tensor& out, bool cl) {
  const Tensor& x = u.self;
  const ScalarType dt = x->dtype();
  const char* kname = u.dims == 2 ? "max_unpool2d" : "max_unpool3d";
  TN_CHECK_KIND(dt == ScalarType::Float || dt == ScalarType::Double || dt == ScalarType::Half ||
                    dt == ScalarType::BFloat16,
                NotImplemented, "\"", kname, "\" not implemented for '", c10_dtype_name(dt), "'");
  TN_CHECK(out->dtype() == dt, "expected scalar type ", enum_name(dt), " but found ",
           enum_name(out->dtype()));
  const std::string& key = c.key();
  // channels last: input and indices read in (n, h, w, c) order, as upstream's kernel does
  auto ordered = [&](const Tensor& v) {
    return contiguous(cl ? call_tensor("aten::permute", {t(v), ops::ints({0, 2, 3, 1})}) : v,
                      key);
  };
  Tensor in = ordered(x);
  Tensor idx = ordered(u.indices);
  const int64_t nd = x->dim();
  const bool batched = nd == u.dims + 2;
  const int64_t batch = batched ? x->size(0) : 1;
  const int64_t chans = x->size(batched ? 1 : 0);
  int64_t in_plane = 1, out_plane = 1;
  for (int d = 0; d < u.dims; ++d) {
    in_plane *= x->size(nd - u.dims + d);
    out_plane *= u.out_size[d];
  }
  Tensor w = call_tensor("aten::zeros", {ops::ints(out->sizes()), Value::of_dtype(dt)});
  std::optional<int64_t> bad;
  dispatch_dtype(dt, key, [&](auto zero) {
    using T = decltype(zero);
    bad = scatter(data_of<T>(w, key), data_of<T>(in, key), data_of<int64_t>(idx, key), batch,
                  chans, in_plane, out_plane, cl);
  });
  if (bad) {
    const Dims& o = u.out_size;
    if (u.dims == 2)
      TN_FAIL(Runtime, "Found an invalid max index: ", *bad, " (output volumes are of size ",
              o[0], "x", o[1], ")");
    TN_FAIL(Runtime, "Found an invalid max index: ", *bad, " (output volumes are of size ", o[0],
            "x", o[1], "x", o[2], ")");
  }
  ops::copy_(out, w);
}

template <bool Cpu, bool Out>
void max_unpool(Call& c, int dims) {
  Unpool u{c.tensor(0), c.tensor(1), c.int_list(2), {}, {}, dims};
  if (dims == 3) {
    u.stride = c.int_list(3);
    u.padding = c.int_list(4);
  }
  check<Cpu>(u);
  const size_t out_at = dims == 2 ? 3 : 5;
  const Dims shape = out_shape(u);
  const Tensor& x = u.self;
  if (!Cpu) {
    Tensor r = call_tensor("aten::zeros", {ops::ints(shape), Value::of_dtype(x->dtype()),
                                           Value{}, Value::of_device(x->device())});
    if (!Out) return c.ret(r);
    ops::resize_out(c.tensor(out_at), shape);
    return c.ret(ops::write_out(c.tensor(out_at), r, c.key()));
  }
  // upstream: 2d with a 4-d input takes the input's suggested format (channels last or not)
  // for the output; otherwise the output keeps its strides when its sizes already fit.
  const bool cl = dims == 2 && x->dim() == 4 && suggests_channels_last(*x);
  Tensor out = Out ? c.tensor(out_at) : ops::empty({0}, x->dtype(), x->device());
  Value mf;
  if (dims == 2 && x->dim() == 4) {
    mf.tag = Value::Tag::MemoryFormat;
    mf.memory_format = cl ? MemoryFormatKind::ChannelsLast : MemoryFormatKind::Contiguous;
  }
  call("aten::resize_", {t(out), ops::ints(shape), mf});
  // (3d writes into out directly; 2d computes aside and copies into any layout)
  if (dims == 3) TN_CHECK(out->is_contiguous(), "output must be contiguous");
  call("aten::zero_", {t(out)});
  if (out->numel() != 0) fill(c, u, out, cl);
  c.ret(out);
}

// max_unpool2d(Tensor self, Tensor indices, SymInt[2] output_size); .out adds out.
// max_unpool3d(self, indices, SymInt[3] output_size, int[3] stride, int[3] padding); .out.
template <bool Cpu, bool Out>
void unpool2d(Call& c) { max_unpool<Cpu, Out>(c, 2); }
template <bool Cpu, bool Out>
void unpool3d(Call& c) { max_unpool<Cpu, Out>(c, 3); }

}  // namespace

TN_REGISTER_KERNEL("aten::max_unpool2d", DenseCPU, (unpool2d<true, false>));
TN_REGISTER_KERNEL("aten::max_unpool2d", Meta, (unpool2d<false, false>));
TN_REGISTER_KERNEL("aten::max_unpool2d.out", DenseCPU, (unpool2d<true, true>));
TN_REGISTER_KERNEL("aten::max_unpool2d.out", Meta, (unpool2d<false, true>));
TN_REGISTER_KERNEL("aten::max_unpool3d", DenseCPU, (unpool3d<true, false>));
TN_REGISTER_KERNEL("aten::max_unpool3d", Meta, (unpool3d<false, false>));
TN_REGISTER_KERNEL("aten::max_unpool3d.out", DenseCPU, (unpool3d<true, true>));
TN_REGISTER_KERNEL("aten::max_unpool3d.out", Meta, (unpool3d<false, true>));

}  // namespace tn
