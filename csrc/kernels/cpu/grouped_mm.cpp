// _grouped_mm(self, mat2, offs=None, bias=None, out_dtype=None): matrix products over groups,
// as upstream's CPU path computes them: one mm per group into a slice of the result (2d x 3d:
// row groups of self against mat2[g]; 3d x 2d: column groups of mat2 against self[g]; 2d x 2d:
// the contraction dim cut into groups, a (G, M, N) result; 3d x 3d: bmm). Offsets are each
// group's end, int32. Upstream's checks come first, its 16-byte stride rule included (its
// kernels share it with the GPU's), and the result is laid out as upstream's: rows padded to
// 16 bytes. Columns no group reaches are left unwritten, as upstream leaves them.
#include <algorithm>
#include <cstdint>

#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"
#include "kernels/composite/shape_util.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

using ops::t;

bool gemm_dtype(ScalarType d) {
  return d == ScalarType::BFloat16 || d == ScalarType::Float || d == ScalarType::Half;
}

// One unit-stride dim of the last two, the other stride a multiple of 16 bytes (upstream's
// check_valid_strides_and_return_transposed; its CPU build no longer asks for an aligned start).
void check_strides(const Tensor& m) {
  const int64_t last = m->dim() - 1;
  const int64_t align = 16 / static_cast<int64_t>(m->itemsize());
  const Dims& st = m->strides();
  const Dims& sz = m->sizes();
  if (st[last - 1] == 1 && st[last] >= std::max<int64_t>(1, sz[last - 1])) {
    TN_CHECK(st[last] % align == 0, "strides should be multiple of 16 bytes");
  } else if (st[last] == 1 && st[last - 1] >= std::max<int64_t>(1, sz[last])) {
    TN_CHECK(st[last - 1] % align == 0, "strides should be multiple of 16 bytes");
  } else {
    TN_FAIL(Runtime, "Invalid strides/sizes, got ", dims_str(st), " for strides and ",
            dims_str(sz), " for sizes");
  }
}

// The group ends, read from an int32 tensor on the CPU.
std::vector<int64_t> group_ends(const Tensor& offs, const std::string& key) {
  Tensor o = contiguous(offs, key);
  const int32_t* p = data_of<int32_t>(o, key);
  return std::vector<int64_t>(p, p + o->numel());
}

void grouped_mm(Call& c) {
  const Tensor& a = c.tensor(0);
  const Tensor& b = c.tensor(1);
  const Tensor* offs = c.optional_tensor(2);
  const std::string& key = c.key();
  TN_CHECK(gemm_dtype(a->dtype()), "Expected mat_a to be Float32, BFloat16 or Float16 matrix, "
           "got ", enum_name(a->dtype()));
  TN_CHECK(gemm_dtype(b->dtype()), "Expected mat_b to be Float32, BFloat16 or Float16 matrix, "
           "got ", enum_name(b->dtype()));
  TN_CHECK(a->dim() == 2 || a->dim() == 3, "mat_a has to be 2 or 3d");
  TN_CHECK(b->dim() == 2 || b->dim() == 3, "mat_b has to be 2 or 3d");
  const bool a2 = a->dim() == 2, b2 = b->dim() == 2;
  if (!a2 || !b2)
    TN_CHECK(a->size(a->dim() - 1) == b->size(b->dim() - 2),
             "contraction dimension of mat_a and mat_b must match");
  check_strides(a);
  check_strides(b);
  TN_CHECK((offs != nullptr) == (a2 || b2), "Have to provide offsets if there is a 2d matrix, "
           "or no offset if both matrices are 3d");
  if (offs) {
    TN_CHECK((*offs)->dim() == 1, "offs has to be 1D");
    TN_CHECK((*offs)->dtype() == ScalarType::Int, "Offsets have to be int32");
  }
  TN_CHECK(c.arg(3).is_none(), "Bias not supported yet");
  const ScalarType out_dtype = c.optional_dtype(4).value_or(a->dtype());
  TN_CHECK(out_dtype == a->dtype(), "Grouped gemm output dtype must match `mat_a` dtype");
  TN_CHECK(a->dtype() == b->dtype(), "expected mat1 and mat2 to have the same dtype, but got: ",
           enum_name(a->dtype()), " != ", enum_name(b->dtype()));

  // The result's shape, and upstream's strides: the last dim padded to 16 bytes.
  Dims size;
  if (a2 && b2) {
    size = {(*offs)->size(0), a->size(0), b->size(1)};
  } else if (a2) {
    TN_CHECK((*offs)->size(0) == b->size(0), "matrix batch sizes have to match");
    size = {a->size(0), b->size(2)};
  } else if (b2) {
    TN_CHECK((*offs)->size(0) == a->size(0), "matrix batch sizes have to match");
    size = {a->size(1), b->size(1)};
  } else {
    TN_CHECK(a->size(0) == b->size(0), "batched dimension has to match");
    size = {a->size(0), a->size(1), b->size(2)};
  }
  const int64_t align = 16 / static_cast<int64_t>(info(out_dtype).itemsize);
  const int64_t padded = (size.back() + align - 1) / align * align;
  Dims stride = size.size() == 2 ? Dims{padded, 1} : Dims{size[1] * padded, padded, 1};
  Tensor out = ops::empty_strided(size, stride, out_dtype, a->device());

  auto mm_into = [&](const Tensor& dst, const Tensor& x, const Tensor& y) {
    call("aten::mm.out", {t(x), t(y), t(dst)});
  };
  // x.slice(dim, start, end) as upstream's: negative ends wrapped, both clamped into the dim.
  auto slice = [&](const Tensor& x, int64_t dim, int64_t from, int64_t to) {
    const int64_t n = x->size(dim);
    if (from < 0) from += n;
    if (to < 0) to += n;
    from = std::clamp<int64_t>(from, 0, n);
    to = std::clamp<int64_t>(to, from, n);
    return ops::narrow(x, dim, from, to - from);
  };
  auto select = [&](const Tensor& x, int64_t i) {
    return call_tensor("aten::select.int", {t(x), Value::of_int(0), Value::of_int(i)});
  };
  if (!offs) {
    call("aten::bmm.out", {t(a), t(b), t(out)});
    c.ret(out);
    return;
  }
  std::vector<int64_t> ends = group_ends(*offs, key);
  int64_t start = 0;
  for (size_t g = 0; g < ends.size(); ++g) {
    const int64_t end = ends[g], gi = static_cast<int64_t>(g);
    if (a2 && !b2) {
      mm_into(slice(out, 0, start, end), slice(a, 0, start, end), select(b, gi));
    } else if (!a2 && b2) {
      mm_into(slice(out, 1, start, end), select(a, gi), slice(b, 1, start, end));
    } else {
      mm_into(select(out, gi), slice(a, 1, start, end), slice(b, 0, start, end));
    }
    start = end;
  }
  c.ret(out);
}

}  // namespace

TN_REGISTER_KERNEL("aten::_grouped_mm", DenseCPU, grouped_mm);

}  // namespace tn
