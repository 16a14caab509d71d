// The deprecated lu_solve(self, LU_data, LU_pivots) and lu_solve.out: linalg_lu_solve with its
// arguments reversed, after upstream's one-time deprecation warning (BatchLinearAlgebra.cpp).
#include <mutex>

#include "core/warning.h"
#include "kernels/composite/ops.h"

namespace tn {
namespace {

void warn_lu_solve_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    warn("torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in "
         "a future PyTorch release.\nNote that torch.linalg.lu_solve has its arguments "
         "reversed.\nX = torch.lu_solve(B, LU, pivots)\nshould be replaced with\nX = "
         "torch.linalg.lu_solve(LU, pivots, B)");
  });
}

// lu_solve(Tensor self, Tensor LU_data, Tensor LU_pivots); .out adds out.
void lu_solve(Call& c) {
  warn_lu_solve_once();
  c.ret(call_tensor("aten::linalg_lu_solve", {c.arg(1), c.arg(2), c.arg(0),
                                              Value::of_bool(true), Value::of_bool(false)}));
}
void lu_solve_out(Call& c) {
  warn_lu_solve_once();
  c.ret(call_tensor("aten::linalg_lu_solve.out", {c.arg(1), c.arg(2), c.arg(0),
                                                  Value::of_bool(true), Value::of_bool(false),
                                                  c.arg(3)}));
}

}  // namespace

TN_REGISTER_COMPOSITE("aten::lu_solve", lu_solve);
TN_REGISTER_COMPOSITE("aten::lu_solve.out", lu_solve_out);

}  // namespace tn
