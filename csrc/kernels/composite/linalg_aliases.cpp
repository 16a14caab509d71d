// linalg.matmul and its out= form: upstream's CompositeImplicit aliases of matmul (same
// arguments, same results, matmul's gradients).
#include "kernels/composite/ops.h"

namespace tn {
namespace {

constexpr char kMatmul[] = "aten::matmul";
constexpr char kMatmulOut[] = "aten::matmul.out";

}  // namespace

TN_REGISTER_COMPOSITE("aten::linalg_matmul", ops::forward_to<kMatmul>);
TN_REGISTER_COMPOSITE("aten::linalg_matmul.out", ops::forward_to<kMatmulOut>);

}  // namespace tn
