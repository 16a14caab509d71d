// MT19937 and the CPU generator (see generator.h).
#include "core/generator.h"

#include <random>

namespace tn {

void MT19937::seed_with(uint64_t seed) {
  seed_ = seed;
  state[0] = static_cast<uint32_t>(seed & 0xffffffffULL);
  for (int j = 1; j < kN; ++j)
    state[j] = 1812433253U * (state[j - 1] ^ (state[j - 1] >> 30)) + static_cast<uint32_t>(j);
  left = 1;
  next = 0;
}

// Regenerates the 624 words (the standard MT19937 recurrence).
void MT19937::twist() {
  constexpr uint32_t kUpper = 0x80000000U, kLower = 0x7fffffffU, kMatrix = 0x9908b0dfU;
  constexpr int kM = 397;
  for (int i = 0; i < kN; ++i) {
    uint32_t y = (state[i] & kUpper) | (state[(i + 1) % kN] & kLower);
    state[i] = state[(i + kM) % kN] ^ (y >> 1) ^ ((y & 1U) ? kMatrix : 0U);
  }
  left = kN;
  next = 0;
}

uint32_t MT19937::operator()() {
  if (--left <= 0) twist();
  uint32_t y = state[next++];
  y ^= y >> 11;
  y ^= (y << 7) & 0x9d2c5680U;
  y ^= (y << 15) & 0xefc60000U;
  y ^= y >> 18;
  return y;
}

void Generator::manual_seed(uint64_t seed) {
  seed_ = seed;
  engine_.seed_with(seed);
  next_float_normal.reset();
  next_double_normal.reset();
}

uint64_t Generator::random64() {
  uint32_t hi = engine_();
  uint32_t lo = engine_();
  return (static_cast<uint64_t>(hi) << 32) | lo;
}

Generator& default_generator() {
  static Generator* g = new Generator(kDefaultSeed);  // lives for the process
  return *g;
}

uint64_t nondeterministic_seed() {
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) | rd();
}

}  // namespace tn
