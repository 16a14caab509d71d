// Upstream's CompositeImplicit aliases among the special functions of
// kernels/cpu/elementwise_special_a.cpp: special_erfinv (.out) is erfinv (.out).
#include "kernels/composite/ops.h"

namespace tn {
namespace {

constexpr char kErfinv[] = "aten::erfinv";
constexpr char kErfinvOut[] = "aten::erfinv.out";

}  // namespace

TN_REGISTER_COMPOSITE("aten::special_erfinv", ops::forward_to<kErfinv>);
TN_REGISTER_COMPOSITE("aten::special_erfinv.out", ops::forward_to<kErfinvOut>);

}  // namespace tn
