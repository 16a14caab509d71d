// The CPU random generator: a 32-bit Mersenne Twister (MT19937) seeded as upstream's CPU generator
// is (init_genrand with the low 32 bits of the seed), plus the cached second normal samples that
// upstream's samplers keep. Pure C++. Samplers (uniform_, normal_, ...) live with their kernels.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>

#include "core/intrusive.h"

namespace tn {

constexpr uint64_t kDefaultSeed = 67280421310721ULL;

class MT19937 {
 public:
  static constexpr int kN = 624;
  explicit MT19937(uint64_t seed = 5489) { seed_with(seed); }
  void seed_with(uint64_t seed);
  // Inline: samplers draw one or two words per element, and a call per word cost dropout's
  // bernoulli_ about a third of its time.
  uint32_t operator()() {
    if (--left <= 0) twist();
    uint32_t y = state[next++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= y >> 18;
    return y;
  }
  // n words into out, the words n calls of operator() would return, in order (a sampler that
  // draws a tensor's worth at once tempers them in a loop the compiler can vectorise).
  void draw(uint32_t* out, int64_t n);
  // Raw state, for get_state/set_state.
  uint32_t state[kN];
  int left = 1;
  int next = 0;
  uint64_t seed_ = 0;

 private:
  void twist();
};

class Generator : public RefCounted {
 public:
  explicit Generator(uint64_t seed = kDefaultSeed) { manual_seed(seed); }
  void manual_seed(uint64_t seed);
  uint64_t initial_seed() const { return seed_; }
  uint32_t random() { return engine_(); }
  // Two words, the first in the high half (upstream's random64).
  uint64_t random64() {
    uint32_t hi = engine_();
    uint32_t lo = engine_();
    return (static_cast<uint64_t>(hi) << 32) | lo;
  }
  // Upstream's samplers cache the second Box-Muller sample.
  std::optional<float> next_float_normal;
  std::optional<double> next_double_normal;
  MT19937& engine() { return engine_; }
  // The generator's state as upstream's torch.Generator.get_state() lays it out (its
  // CPUGeneratorImplState: seed, MT19937 words widened to 64 bits, the cached normal samples),
  // so states move between processes and libraries; set_state refuses any other size, as
  // upstream's does, and an invalid MT19937 state.
  static constexpr size_t kStateBytes = 5056;
  void get_state(uint8_t* out) const;
  void set_state(const uint8_t* in, size_t n);
  std::mutex mutex;  // held by a kernel while it draws, as upstream's generator lock

 private:
  MT19937 engine_;
  uint64_t seed_ = kDefaultSeed;
};

// The process's default CPU generator (torch.default_generator).
Generator& default_generator();
// A seed from the operating system (Generator.seed()).
uint64_t nondeterministic_seed();

}  // namespace tn
