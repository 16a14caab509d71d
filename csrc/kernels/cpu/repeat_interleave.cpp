// repeat_interleave.Tensor (the index list: i written repeats[i] times, as upstream's
// Repeat.cpp computes it) on dense CPU tensors, its Meta rule (upstream's meta: the length needs
// output_size) and the autogen out= spelling .Tensor_out. The self_Tensor / self_int forms are
// composites (composite/repeat_interleave.cpp, composite/shape.cpp).
#include <cstdint>
#include <optional>
#include <vector>

#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/rules/elementwise.h"

namespace tn {
namespace {

// repeats (int32 or int64, 1-d, contiguous) -> the int64 running totals, wrapping on overflow as
// upstream's int64 cumsum does (the wrapped total then fails the allocation).
template <typename I>
std::vector<int64_t> running_totals(const I* rep, int64_t n) {
  std::vector<int64_t> sums(static_cast<size_t>(n));
  uint64_t acc = 0;
  for (int64_t i = 0; i < n; ++i) {
    acc += static_cast<uint64_t>(static_cast<int64_t>(rep[i]));
    sums[static_cast<size_t>(i)] = static_cast<int64_t>(acc);
  }
  return sums;
}

// The 1-d result, refused as upstream's at::empty({total}) refuses a negative length (a total
// below -2^62 fails earlier, where the C++ int list becomes SymInts; not so on Meta).
Tensor index_list(int64_t total, const Tensor& repeats, bool cpu) {
  TN_CHECK(!cpu || total >= -(int64_t{1} << 62), "IntArrayRef contains an int that cannot be "
           "represented as a SymInt: ", total);
  TN_CHECK(total >= 0, "Trying to create tensor with negative dimension ", total, ": [", total,
           "]");
  return ops::empty({total}, repeats->dtype(), repeats->device());
}

template <typename I>
Tensor repeat_indices(const Tensor& repeats, std::optional<int64_t> output_size,
                      const std::string& key) {
  const int64_t n = repeats->size(0);
  Tensor rep = contiguous(repeats, key);
  const I* rp = data_of<I>(rep, key);
  const std::vector<int64_t> sums = running_totals(rp, n);
  bool negative = false;
  for (int64_t i = 0; i < n; ++i) negative = negative || rp[i] < 0;
  // Upstream's order: without output_size the signs are checked before the total allocates;
  // with it, the allocation comes first, then the total must equal the sum, then each repeat is
  // checked (all of them here, before any write, where upstream's loop writes past the end for
  // some negative repeats).
  TN_CHECK(output_size || !negative, "repeats can not be negative");
  const int64_t total = output_size.value_or(sums.back());
  Tensor out = index_list(total, repeats, true);
  if (output_size)
    TN_CHECK(total == sums.back(), "allocated size does not match required size");
  TN_CHECK(!negative, "repeats can not be negative");
  I* op = data_of<I>(out, key);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = sums[static_cast<size_t>(i)] - rp[i]; j < sums[static_cast<size_t>(i)]; ++j)
      op[j] = static_cast<I>(i);
  return out;
}

// repeat_interleave.Tensor(Tensor repeats, *, SymInt? output_size=None) -> Tensor
void repeat_interleave_cpu(Call& c) {
  const Tensor& repeats = c.tensor(0);
  const ScalarType dt = repeats->dtype();
  // upstream dispatches on the index types before its own checks.
  TN_CHECK_KIND(dt == ScalarType::Int || dt == ScalarType::Long, NotImplemented,
                "\"repeat_interleave_cpu\" not implemented for '", c10_dtype_name(dt), "'");
  TN_CHECK(repeats->dim() == 1, "repeat_interleave only accept 1D vector as repeat");
  if (repeats->size(0) == 0) return c.ret(ops::empty({0}, dt, repeats->device()));
  std::optional<int64_t> size;
  if (!c.arg(1).is_none()) size = c.to_int(1);
  c.ret(dt == ScalarType::Int ? repeat_indices<int32_t>(repeats, size, c.key())
                              : repeat_indices<int64_t>(repeats, size, c.key()));
}

// Meta: the length is known only when output_size gives it (upstream's meta rule, no checks).
void repeat_interleave_meta(Call& c) {
  const Tensor& repeats = c.tensor(0);
  TN_CHECK(!c.arg(1).is_none(), "cannot repeat_interleave a meta tensor without output_size");
  c.ret(index_list(c.to_int(1), repeats, false));
}

// repeat_interleave.Tensor_out(Tensor repeats, *, SymInt? output_size=None, Tensor(a!) out):
// upstream's autogen spelling: the functional op, out of its exact dtype, resized and written.
void repeat_interleave_out(Call& c) {
  Tensor r = call_tensor("aten::repeat_interleave.Tensor", {c.arg(0), c.arg(1)});
  ops::check_out_dtype(c.tensor(2), r->dtype());
  c.ret(ops::write_out(c.tensor(2), r, c.key()));
}

}  // namespace

TN_REGISTER_KERNEL("aten::repeat_interleave.Tensor", DenseCPU, repeat_interleave_cpu);
TN_REGISTER_KERNEL("aten::repeat_interleave.Tensor", Meta, repeat_interleave_meta);
TN_REGISTER_COMPOSITE("aten::repeat_interleave.Tensor_out", repeat_interleave_out);

}  // namespace tn
