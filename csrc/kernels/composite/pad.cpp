// Padding written in door ops as upstream's PadNd.cpp writes it: constant_pad_nd (negative pads
// narrow the input; the output keeps the input's suggested memory format), _pad_circular
// (concatenated slices), _pad_enum and pad (mode names to kernels, with upstream's checks and
// messages). Not here: reflection_pad*d and replication_pad*d, which pad's reflect and
// replicate modes call; they have no kernel yet and refuse by name.
#include <algorithm>
#include <string>

#include "kernels/composite/ops.h"
#include "kernels/composite/pad_layout.h"

namespace tn {
namespace {

using namespace ops;

// Upstream's at::padding_mode (the int _pad_enum takes).
enum PaddingMode : int64_t { kReflect = 0, kReplicate = 1, kCircular = 2, kConstant = 3 };

Tensor slice(const Tensor& x, int64_t dim, int64_t start, int64_t end) {
  return call_tensor("aten::slice.Tensor", {t(x), i64(dim), i64(start), i64(end), i64(1)});
}

// constant_pad_nd(self, SymInt[] pad, Scalar value=0): pad[2k], pad[2k+1] widen dim (ndim-1-k)
// at its start and end; a negative pad cuts instead.
void constant_pad_nd(Call& c) {
  const Tensor& self = c.tensor(0);
  const Dims& pad = c.int_list(1);
  TN_CHECK(pad.size() % 2 == 0, "Length of pad must be even but instead it equals ", pad.size());
  int64_t l_inp = self->dim(), l_pad = static_cast<int64_t>(pad.size()) / 2;
  int64_t l_diff = l_inp - l_pad;
  TN_CHECK(l_inp >= l_pad, "Length of pad should be no more than twice the number of "
           "dimensions of the input. Pad length is ", pad.size(), "while the input has ",
           l_inp, "dimensions.");
  Tensor input = self;
  bool all_non_positive = true;
  for (int64_t i = l_diff; i < l_inp; ++i) {
    int64_t lo = pad[2 * (l_inp - i - 1)], hi = pad[2 * (l_inp - i - 1) + 1];
    if (lo < 0)
      input = narrow(input, i, -lo, input->size(i) + lo);
    else if (lo != 0)
      all_non_positive = false;
    if (hi < 0)
      input = narrow(input, i, 0, input->size(i) + hi);
    else if (hi != 0)
      all_non_positive = false;
  }
  if (all_non_positive) {
    c.ret(call_tensor("aten::clone", {t(input)}));
    return;
  }
  Dims shape(self->sizes().begin(), self->sizes().begin() + l_diff);
  for (int64_t i = 0; i < l_pad; ++i) {
    size_t at = pad.size() - 2 * (i + 1);
    int64_t size = self->size(l_diff + i), grown = size + pad[at] + pad[at + 1];
    TN_CHECK(grown >= 0, "The input size ", size, ", plus negative padding ", pad[at], " and ",
             pad[at + 1], " resulted in a negative output size, which is invalid. Check "
             "dimension ", l_diff + i, " of your input.");
    shape.push_back(grown);
  }
  Tensor out = empty_strided(shape, pad_strides_like(self, shape), self->dtype(), self->device());
  call("aten::fill_.Scalar", {t(out), Value::of_scalar(c.scalar(2))});
  Tensor inner = out;
  for (int64_t i = l_diff; i < l_inp; ++i) {
    int64_t lo = pad[2 * (l_inp - i - 1)], hi = pad[2 * (l_inp - i - 1) + 1];
    if (lo > 0) inner = narrow(inner, i, lo, inner->size(i) - lo);
    if (hi > 0) inner = narrow(inner, i, 0, inner->size(i) - hi);
  }
  copy_(inner, input);
  c.ret(out);
}
TN_REGISTER_COMPOSITE("aten::constant_pad_nd", constant_pad_nd);

// _pad_circular(self, SymInt[] pad): each padded dim, last first, narrowed where its pads are
// negative, then widened by concatenating its far end before it and its near end after it.
// Upstream copies into slices of an empty output instead (the same values, corners included,
// since each dim wraps the dims padded before it); we concatenate because copy_ records no
// history here yet, so the gradient runs through cat and slice (CatBackward0, not upstream's
// CopySlices).
void pad_circular(Call& c) {
  const Tensor& self = c.tensor(0);
  const Dims& pad = c.int_list(1);
  const Dims& in_shape = self->sizes();
  int64_t ndim = self->dim(), padded = static_cast<int64_t>(pad.size()) / 2;
  int64_t kept = ndim - padded;
  TN_CHECK(kept == 1 || kept == 2, "Invalid padding size, expected 1 or 2 non-padded "
           "dimensions, which would be equivalent to padding of length ", (ndim - 1) * 2, " or ",
           (ndim - 2) * 2, " respectively but got ", pad.size());
  for (int64_t i = 0; i < padded; ++i) {
    int64_t lo = pad[2 * (padded - i - 1)], hi = pad[2 * (padded - i - 1) + 1];
    int64_t size = in_shape[kept + i];
    TN_CHECK(lo <= size && hi <= size, "Padding value causes wrapping around more than once.");
    TN_CHECK(size + lo + hi >= 0, "Negative padding value is resulting in an empty dimension");
  }
  Tensor out = self;
  bool fresh = false;  // out is a new tensor, not a view of self
  for (int64_t i = 0; i < padded; ++i) {
    int64_t dim = padded - i + kept - 1, lo = pad[2 * i], hi = pad[2 * i + 1];
    int64_t size = out->size(dim);
    out = slice(out, dim, std::max<int64_t>(-lo, 0), size - std::max<int64_t>(-hi, 0));
    size = out->size(dim);
    std::vector<Tensor> parts;
    if (lo > 0) parts.push_back(slice(out, dim, size - lo, size));
    parts.push_back(out);
    if (hi > 0) parts.push_back(slice(out, dim, 0, hi));
    if (parts.size() > 1) {
      out = call_tensor("aten::cat", {Value::of_tensors(parts), i64(dim)});
      fresh = true;
    }
  }
  c.ret(fresh ? out : ops::clone_contiguous(out));
}
TN_REGISTER_COMPOSITE("aten::_pad_circular", pad_circular);

const char* mode_name(int64_t mode) {
  switch (mode) {
    case kReflect: return "reflect";
    case kReplicate: return "replicate";
    case kCircular: return "circular";
    case kConstant: return "constant";
    default: TN_FAIL(Runtime, "Invalid padding mode (", mode, ")");
  }
}

// The kernel a non-constant mode takes for pad.size() == 2k (k = 1..3) on an input of k+1 or
// k+2 dims (upstream's table); empty when the pair is not in it.
std::string mode_op(int64_t mode, size_t pad_len, int64_t input_dim) {
  int64_t k = static_cast<int64_t>(pad_len) / 2;
  if (pad_len % 2 != 0 || k < 1 || k > 3 || (input_dim != k + 1 && input_dim != k + 2)) return "";
  if (mode == kCircular) return "aten::_pad_circular";
  std::string family = mode == kReflect ? "aten::reflection_pad" : "aten::replication_pad";
  return family + std::to_string(k) + "d";
}

Tensor pad_enum(const Tensor& self, const Dims& pad, int64_t mode, const Value& value) {
  int64_t input_dim = self->dim();
  TN_CHECK(pad.size() % 2 == 0, "Padding length must be divisible by 2");
  TN_CHECK(static_cast<int64_t>(pad.size()) <= input_dim * 2,
           "Padding length should be less than or equal to two times the input dimension but "
           "got padding length ", pad.size(), " and input of dimension ", input_dim);
  if (mode == kConstant) {
    Scalar fill = value.is_none() ? Scalar::from_double(0.0) : Scalar::from_double(value.d);
    return call_tensor("aten::constant_pad_nd", {t(self), ints(pad), Value::of_scalar(fill)});
  }
  const char* name = mode_name(mode);
  TN_CHECK(value.is_none() || value.d == 0, "Padding mode \"", name,
           "\" doesn't take in value argument");
  std::string op = mode_op(mode, pad.size(), input_dim);
  TN_CHECK_KIND(!op.empty(), NotImplemented, "Padding size ", pad.size(),
                " is not supported for ", input_dim, "D input tensor.\n"
                "Supported combinations for non-constant padding:\n"
                "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
                "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
                "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)");
  return call_tensor(op.c_str(), {t(self), ints(pad)});
}

// _pad_enum(self, SymInt[] pad, int mode, float? value=None)
void pad_enum_op(Call& c) { c.ret(pad_enum(c.tensor(0), c.int_list(1), c.to_int(2), c.arg(3))); }
TN_REGISTER_COMPOSITE("aten::_pad_enum", pad_enum_op);

// pad(self, SymInt[] pad, str mode="constant", float? value=None)
void pad_op(Call& c) {
  const std::string& mode = c.arg(2).str;
  int64_t m = mode == "reflect"     ? kReflect
              : mode == "constant"  ? kConstant
              : mode == "replicate" ? kReplicate
              : mode == "circular"  ? kCircular
                                    : -1;
  TN_CHECK_KIND(m >= 0, NotImplemented, "Unrecognised padding mode ", mode);
  c.ret(pad_enum(c.tensor(0), c.int_list(1), m, c.arg(3)));
}
TN_REGISTER_COMPOSITE("aten::pad", pad_op);

}  // namespace
}  // namespace tn
