// special_math.h built for upstream's AVX2 and AVX-512 kernels: with FMA, so that GCC contracts
// the products its build contracts (Note [Special math compiled twice], special_math_table.h).
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "kernels/cpu/special_math_table.h"

#pragma GCC push_options
#pragma GCC target("avx2,fma")
#define TN_SPECIAL_MATH_FUSED 1
#define TN_SPECIAL_MATH_NS special_math_fma_build
#include "kernels/cpu/special_math.h"
#undef TN_SPECIAL_MATH_FUSED
#undef TN_SPECIAL_MATH_NS
#pragma GCC pop_options

namespace tn {

const SpecialMathTable& special_math_fma() {
  static const SpecialMathTable table = special_math_fma_build::make_table();
  return table;
}

}  // namespace tn
