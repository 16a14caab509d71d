// special_math.h built for upstream's baseline kernels (CPUs without AVX2): no FMA, nothing
// contracted (Note [Special math compiled twice], special_math_table.h). Also the home of
// special_math(), which picks between the two builds.
#include "kernels/cpu/cpu_isa.h"
#include "kernels/cpu/special_math_table.h"

#define TN_SPECIAL_MATH_FUSED 0
#define TN_SPECIAL_MATH_NS special_math_plain_build
#include "kernels/cpu/special_math.h"
#undef TN_SPECIAL_MATH_FUSED
#undef TN_SPECIAL_MATH_NS

namespace tn {

const SpecialMathTable& special_math_plain() {
  static const SpecialMathTable table = special_math_plain_build::make_table();
  return table;
}

// Upstream's AVX2 and AVX-512 builds fuse, its baseline build (also the one
// ATEN_CPU_CAPABILITY=default selects) does not.
const SpecialMathTable& special_math() {
  return cpu::isa() == cpu::Isa::Base ? special_math_plain() : special_math_fma();
}

}  // namespace tn
