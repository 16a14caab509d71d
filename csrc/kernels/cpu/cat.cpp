// cat on dense CPU tensors. Where every input is contiguous in the result's dtype, the result
// is filled row by row, as upstream's serial cat kernel fills it: each row of the dims before
// the cat dim takes its piece from every input in turn, so the result is written once, front to
// back (one copy_ per input, the composite's way, walks the whole result once per input). Rows
// are split between threads above the grain. Only bytes move, so the result is the composite's.
#include <cstring>

#include "kernels/composite/cat_plan.h"
#include "kernels/composite/ops.h"
#include "kernels/cpu/parallel.h"

namespace tn {
namespace {

// Fills out (fresh, contiguous) row by row when every input is contiguous in out's dtype;
// false, having written nothing, otherwise.
bool cat_rows(const Tensor& out, const std::vector<Tensor>& ts, const CatPlan& p) {
  std::vector<const Tensor*> parts;
  for (const Tensor& t : ts) {
    if (cat_skips(t)) continue;
    if (t->dtype() != out->dtype() || !t->is_contiguous()) return false;
    parts.push_back(&t);
  }
  if (out->numel() == 0) return true;
  int64_t rows = 1;
  for (int64_t d = 0; d < p.dim; ++d) rows *= p.shape[d];
  const int64_t es = out->itemsize();
  const int64_t out_row = out->numel() / rows * es;
  std::vector<const char*> src;
  std::vector<int64_t> len;
  for (const Tensor* t : parts) {
    src.push_back((*t)->numel() ? static_cast<const char*>((*t)->dense_cpu_data("cat")) : nullptr);
    len.push_back((*t)->numel() / rows * es);
  }
  char* dst = static_cast<char*>(out->dense_cpu_data("cat"));
  const int64_t grain = std::max<int64_t>(1, kGrainSize * es / std::max<int64_t>(out_row, 1));
  parallel_for(0, rows, grain, [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      char* o = dst + r * out_row;
      for (size_t i = 0; i < src.size(); ++i) {
        if (len[i] == 0) continue;
        std::memcpy(o, src[i] + r * len[i], static_cast<size_t>(len[i]));
        o += len[i];
      }
    }
  });
  return true;
}

// cat(Tensor[] tensors, int dim=0) -> Tensor
void cat_cpu(Call& c) {
  const auto& ts = c.tensor_list(0);
  CatPlan p = plan_cat(ts, c.to_int(1));
  Tensor out = ops::empty(p.shape, p.dtype, ts[0]->device());
  if (!cat_rows(out, ts, p)) cat_fill(out, ts, p);
  c.ret(out);
}
TN_REGISTER_KERNEL("aten::cat", DenseCPU, cat_cpu);

}  // namespace
}  // namespace tn
