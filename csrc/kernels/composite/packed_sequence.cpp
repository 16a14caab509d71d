// PackedSequence helpers as upstream writes them (PackedSequence.cpp): _pack_padded_sequence
// (CompositeExplicit, with its own derivative: its slices and copies record nothing),
// _pack_padded_sequence_backward and _pad_packed_sequence (CompositeImplicit: autograd goes
// through their full/slice/copy_). Lengths and batch sizes are 1-D int64 CPU tensors whose
// values are read on the host, as upstream reads them; the data may be on any back end.
#include "kernels/composite/ops.h"
#include "kernels/composite/shape_util.h"
#include "kernels/rules/elementwise.h"

namespace tn {
namespace {

using namespace ops;

// Upstream's checkLongTensor, on the contiguous tensor it returns.
Tensor long_cpu_1d(const Tensor& x) {
  Tensor c = call_tensor("aten::contiguous", {t(x)});
  TN_CHECK(c->dim() == 1 && c->device().type == DeviceType::CPU &&
               c->dtype() == ScalarType::Long,
           "'lengths' argument should be a 1D CPU int64 tensor, but got ", c->dim(), "D ",
           c->device().str(), " ", c10_dtype_name(c->dtype()), " tensor");
  return c;
}
const int64_t* host_ints(const Tensor& x, const std::string& key) {
  return static_cast<const int64_t*>(x->dense_cpu_data(key.c_str()));
}
int64_t* host_ints_mut(const Tensor& x, const std::string& key) {
  return static_cast<int64_t*>(x->dense_cpu_data(key.c_str()));
}
Tensor slice(const Tensor& x, int64_t dim, int64_t start, int64_t end) {
  return call_tensor("aten::slice.Tensor", {t(x), i64(dim), i64(start), i64(end), i64(1)});
}

// _pack_padded_sequence(input, lengths, batch_first) -> (data, batch_sizes): the padded
// (seq, batch, *) input's valid rows, step by step, in blocks cut where a length begins.
void pack_padded_sequence(Call& c) {
  const std::string& key = c.key();
  Tensor input = c.to_bool(2) ? call_tensor("aten::transpose.int", {c.arg(0), i64(0), i64(1)})
                              : c.tensor(0);
  Tensor lengths_t = long_cpu_1d(c.tensor(1));
  const int64_t* lengths = host_ints(lengths_t, key);
  int64_t batch = input->size(wrap_dim(1, input->dim()));
  TN_CHECK(input->numel() > 0, "Cannot pack empty tensors.");
  TN_CHECK(lengths_t->size(0) == batch, "Expected `len(lengths)` to be equal to batch_size, but "
           "got ", lengths_t->size(0), " (batch_size=", batch, ")");
  TN_CHECK(lengths[batch - 1] > 0, "Length of all samples has to be greater than 0, but found "
           "an element in 'lengths' that is <= 0");
  for (int64_t i = 0; i + 1 < batch; ++i)
    TN_CHECK(lengths[batch - 1 - i] <= lengths[batch - 2 - i],
             "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
             "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence "
             "to sidestep this requirement if you do not need ONNX exportability.");
  Tensor batch_sizes_t = empty({lengths[0]}, ScalarType::Long, Device{});
  int64_t* batch_sizes = host_ints_mut(batch_sizes_t, key);
  Dims step_shape{-1};
  step_shape.insert(step_shape.end(), input->sizes().begin() + 2, input->sizes().end());
  std::vector<Tensor> steps;
  int64_t prev = 0;
  for (int64_t i = 0; i < batch; ++i) {
    int64_t l = lengths[batch - 1 - i];
    if (l > prev) {
      int64_t current = batch - i;
      Tensor block = slice(slice(input, 0, prev, l), 1, 0, current);
      steps.push_back(view(call_tensor("aten::contiguous", {t(block)}), step_shape));
      for (int64_t j = 0; j < l - prev; ++j) *batch_sizes++ = current;
      prev = l;
    }
  }
  c.ret(call_tensor("aten::cat", {Value::of_tensors(steps), i64(0)}));
  c.ret(batch_sizes_t);
}
TN_REGISTER_COMPOSITE("aten::_pack_padded_sequence", pack_padded_sequence);

// _pack_padded_sequence_backward(grad, input_size, batch_sizes, batch_first): the packed
// gradient's rows written back into zeros of the padded input's shape.
void pack_padded_sequence_backward(Call& c) {
  const Tensor& grad = c.tensor(0);
  Dims size = c.int_list(1);
  bool batch_first = c.to_bool(3);
  if (batch_first) {
    TN_CHECK(size.size() >= 2, "Expected input_size.size() >= 2 to be true, but got false.");
    std::swap(size[0], size[1]);
  }
  Tensor grad_input = call_tensor("aten::zeros", {ints(size), Value::of_dtype(grad->dtype()),
                                                  Value{}, Value::of_device(grad->device())});
  Tensor bs_t = long_cpu_1d(c.tensor(2));
  const int64_t* bs = host_ints(bs_t, c.key());
  int64_t offset = 0;
  for (int64_t i = 0; i < bs_t->size(0); ++i) {
    Tensor row = call_tensor("aten::select.int", {t(grad_input), i64(0), i64(i)});
    Tensor dst = slice(row, 0, 0, bs[i]);
    copy_(dst, slice(grad, 0, offset, offset + bs[i]));
    offset += bs[i];
  }
  c.ret(batch_first ? call_tensor("aten::transpose.int", {t(grad_input), i64(0), i64(1)})
                    : grad_input);
}
TN_REGISTER_COMPOSITE("aten::_pack_padded_sequence_backward", pack_padded_sequence_backward);

// _pad_packed_sequence(data, batch_sizes, batch_first, padding_value, total_length)
//   -> (padded, lengths): blocks of equal batch size copied into a padding-filled output.
void pad_packed_sequence(Call& c) {
  const std::string& key = c.key();
  const Tensor& data = c.tensor(0);
  Tensor bs_t = long_cpu_1d(c.tensor(1));
  const int64_t* bs = host_ints(bs_t, key);
  int64_t total_length = c.to_int(4);
  int64_t max_batch = bs[0], real_len = bs_t->size(0), max_len = real_len;
  if (total_length > 0) {
    TN_CHECK(total_length >= max_len, "Expected total_length to be at least the length of the "
             "longest sequence in input, but got total_length=", total_length, " and max "
             "sequence length being ", max_len);
    max_len = total_length;
  }
  Dims out_size{max_len, max_batch};
  out_size.insert(out_size.end(), data->sizes().begin() + 1, data->sizes().end());
  Tensor output = call_tensor("aten::full", {ints(out_size), c.arg(3),
                                             Value::of_dtype(data->dtype()), Value{},
                                             Value::of_device(data->device())});
  Dims tmp_size = out_size;
  Tensor lengths_t = call_tensor("aten::empty.memory_format",
                                {ints({max_batch}), Value::of_dtype(ScalarType::Long)});
  int64_t* lengths = host_ints_mut(lengths_t, key) + max_batch - 1;
  int64_t data_offset = 0, prev_bs = max_batch, prev_i = 0;
  for (int64_t i = 0; i <= real_len; ++i) {
    int64_t b = i != real_len ? bs[i] : 0;
    if (b != prev_bs) {
      int64_t l = prev_bs * (i - prev_i);
      Tensor tmp = slice(data, 0, data_offset, data_offset + l);
      tmp_size[0] = i - prev_i;
      tmp_size[1] = prev_bs;
      Tensor dst = slice(slice(output, 0, prev_i, i), 1, 0, prev_bs);
      copy_(dst, view(tmp, tmp_size));
      data_offset += l;
      prev_i = i;
    }
    TN_CHECK(b <= prev_bs, "batch_sizes must be non-increasing, but got ", b, " after ",
             prev_bs);
    for (int64_t j = 0; j < prev_bs - b; ++j) *lengths-- = i;
    prev_bs = b;
  }
  c.ret(c.to_bool(2) ? call_tensor("aten::transpose.int", {t(output), i64(0), i64(1)})
                     : output);
  c.ret(lengths_t);
}
TN_REGISTER_COMPOSITE("aten::_pad_packed_sequence", pad_packed_sequence);

}  // namespace
}  // namespace tn
