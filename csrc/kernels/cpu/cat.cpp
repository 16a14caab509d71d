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

// One input's part of every row: where its rows start and how many bytes each has.
struct Piece {
  const char* src;
  int64_t len;
};

// Fills out (fresh, contiguous) row by row when every input is contiguous in out's dtype;
// false, having written nothing, otherwise. Up to kLocal inputs (a KV cache's two, a
// concatenation of a few) need no heap: decode calls this per layer and token.
bool cat_rows(const Tensor& out, const std::vector<Tensor>& ts, const CatPlan& p) {
  for (const Tensor& t : ts)
    if (!cat_skips(t) && (t->dtype() != out->dtype() || !t->is_contiguous())) return false;
  if (out->numel() == 0) return true;
  int64_t rows = 1;
  for (int64_t d = 0; d < p.dim; ++d) rows *= p.shape[d];
  const int64_t es = out->itemsize();
  const int64_t out_row = out->numel() / rows * es;
  constexpr size_t kLocal = 8;
  Piece local[kLocal];
  std::vector<Piece> heap;
  Piece* pieces = local;
  if (ts.size() > kLocal) {
    heap.resize(ts.size());
    pieces = heap.data();
  }
  size_t n = 0;
  for (const Tensor& t : ts) {
    if (cat_skips(t) || t->numel() == 0) continue;
    pieces[n++] = {static_cast<const char*>(t->dense_cpu_data("cat")), t->numel() / rows * es};
  }
  char* dst = static_cast<char*>(out->dense_cpu_data("cat"));
  const int64_t grain = std::max<int64_t>(1, kGrainSize * es / std::max<int64_t>(out_row, 1));
  parallel_for(0, rows, grain, [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      char* o = dst + r * out_row;
      for (size_t i = 0; i < n; ++i) {
        std::memcpy(o, pieces[i].src + r * pieces[i].len, static_cast<size_t>(pieces[i].len));
        o += pieces[i].len;
      }
    }
  });
  return true;
}

// cat(Tensor[] tensors, int dim=0) -> Tensor
void cat_cpu(Call& c) {
  const auto& ts = c.tensor_list(0);
  CatPlan p = plan_cat(ts, c.to_int(1));
  Tensor out = empty_tensor(p.shape, p.dtype, ts[0]->device());
  if (!cat_rows(out, ts, p)) cat_fill(out, ts, p);
  c.ret(out);
}
TN_REGISTER_KERNEL("aten::cat", DenseCPU, cat_cpu);

}  // namespace
}  // namespace tn
