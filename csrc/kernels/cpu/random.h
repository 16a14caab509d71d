// Shared by the random kernels and their factories: the generator argument, and the element
// order upstream's TensorIterator gives a nullary (or one-input) op. Pure C++.
#pragma once

#include <functional>
#include <vector>

#include "dispatch/kernel.h"

namespace tn {

// The Generator? argument i: the passed generator, or the default CPU generator for None.
Generator& generator_arg(const Call& c, size_t i);

// Uniform in [0, 1) as upstream's uniform_real_distribution<double>: the low 53 bits of
// random64. The caller holds g's mutex.
inline double uniform53(Generator& g) {
  return static_cast<double>(g.random64() & ((uint64_t{1} << 53) - 1)) * 0x1p-53;
}

// One draw of upstream's normal_distribution<double>(0, 1): Box-Muller, its second sample cached
// on the generator for the next draw (of any sampler). The caller holds g's mutex.
double standard_normal(Generator& g);

// Calls f(offset0, offset1) for every element of sizes, for one or two operands' strides, in
// the order upstream's TensorIterator visits them (dimensions sorted by the first operand's
// strides, ties broken by the next operand and by size), so draws land where upstream's do.
using WalkFn = std::function<void(int64_t, int64_t)>;
void walk_like_iterator(const Dims& sizes, const std::vector<Dims>& strides, const WalkFn& f);

}  // namespace tn
