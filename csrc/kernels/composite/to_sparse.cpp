// to_sparse and to_sparse.sparse_dim: torchnative has no sparse layouts (no sparse tensor
// representation, no sparse kernels), so both refuse by name, naming the layout asked for,
// rather than return a dense tensor that would pass for a sparse one.
#include "kernels/composite/ops.h"

namespace tn {
namespace {

// to_sparse(self, *, Layout? layout=None, int[2]? blocksize=None, int? dense_dim=None).
// (the binder keeps only strided / not strided of a Layout, so the sparse one is not named)
void to_sparse(Call& c) {
  TN_FAIL(NotImplemented, c.key(), " has no kernel in torchnative: it would return a tensor of a "
          "sparse layout (", c.arg(1).is_none() ? "torch.sparse_coo" : "the layout argument's",
          "), and torchnative has no sparse layouts");
}

// to_sparse.sparse_dim(self, int sparse_dim): a COO tensor.
void to_sparse_dim(Call& c) {
  TN_FAIL(NotImplemented, c.key(), " has no kernel in torchnative: it would return a tensor of "
          "layout torch.sparse_coo, and torchnative has no sparse layouts");
}

}  // namespace

TN_REGISTER_COMPOSITE("aten::to_sparse", to_sparse);
TN_REGISTER_COMPOSITE("aten::to_sparse.sparse_dim", to_sparse_dim);

}  // namespace tn
