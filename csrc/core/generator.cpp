// MT19937 and the CPU generator (see generator.h).
#include "core/generator.h"

#include <cstring>
#include <random>

#include "core/error.h"

namespace tn {

void MT19937::seed_with(uint64_t seed) {
  seed_ = seed;
  state[0] = static_cast<uint32_t>(seed & 0xffffffffULL);
  for (int j = 1; j < kN; ++j)
    state[j] = 1812433253U * (state[j - 1] ^ (state[j - 1] >> 30)) + static_cast<uint32_t>(j);
  left = 1;
  next = 0;
}

// Regenerates the 624 words (the standard MT19937 recurrence), in three runs so that no index
// wraps inside a loop (a modulo per word made the twist a quarter of a word's cost).
void MT19937::twist() {
  constexpr int kM = 397;
  auto mix = [](uint32_t a, uint32_t b, uint32_t m) {
    uint32_t y = (a & 0x80000000U) | (b & 0x7fffffffU);
    return m ^ (y >> 1) ^ ((y & 1U) ? 0x9908b0dfU : 0U);
  };
  int i = 0;
  for (; i < kN - kM; ++i) state[i] = mix(state[i], state[i + 1], state[i + kM]);
  for (; i < kN - 1; ++i) state[i] = mix(state[i], state[i + 1], state[i + kM - kN]);
  state[kN - 1] = mix(state[kN - 1], state[0], state[kM - 1]);
  left = kN;
  next = 0;
}

void Generator::manual_seed(uint64_t seed) {
  seed_ = seed;
  engine_.seed_with(seed);
  next_float_normal.reset();
  next_double_normal.reset();
}

namespace {
// Offsets in upstream's state layout (natural alignment on 64-bit hosts).
constexpr size_t kSeedAt = 0, kLeftAt = 8, kSeededAt = 12, kNextAt = 16, kWordsAt = 24;
constexpr size_t kNormalXAt = kWordsAt + 8 * MT19937::kN, kNormalYAt = kNormalXAt + 8,
                 kNormalRhoAt = kNormalYAt + 8, kNormalValidAt = kNormalRhoAt + 8;
constexpr size_t kFloatNormalAt = kNormalValidAt + 8, kFloatValidAt = kFloatNormalAt + 4;
static_assert(kFloatValidAt + 4 == Generator::kStateBytes, "state layout");

template <class T>
void put(uint8_t* out, size_t at, T v) { std::memcpy(out + at, &v, sizeof(T)); }
template <class T>
T get(const uint8_t* in, size_t at) {
  T v;
  std::memcpy(&v, in + at, sizeof(T));
  return v;
}
}  // namespace

void Generator::get_state(uint8_t* out) const {
  std::memset(out, 0, kStateBytes);
  put<uint64_t>(out, kSeedAt, engine_.seed_);
  put<int32_t>(out, kLeftAt, engine_.left);
  put<int32_t>(out, kSeededAt, 1);
  put<uint64_t>(out, kNextAt, static_cast<uint64_t>(engine_.next));
  for (int i = 0; i < MT19937::kN; ++i)
    put<uint64_t>(out, kWordsAt + 8 * static_cast<size_t>(i), engine_.state[i]);
  if (next_double_normal) {
    put<double>(out, kNormalYAt, *next_double_normal);
    put<int32_t>(out, kNormalValidAt, 1);
  }
  if (next_float_normal) {
    put<float>(out, kFloatNormalAt, *next_float_normal);
    put<uint8_t>(out, kFloatValidAt, 1);
  }
}

void Generator::set_state(const uint8_t* in, size_t n) {
  TN_CHECK(n == kStateBytes, "Expected a CPUGeneratorImplState of size ", kStateBytes,
           " but found the input RNG state size to be ", n);
  int32_t left = get<int32_t>(in, kLeftAt);
  int32_t seeded = get<int32_t>(in, kSeededAt);
  // Upstream keeps next as 32 bits and checks the engine it rebuilt.
  uint32_t next = static_cast<uint32_t>(get<uint64_t>(in, kNextAt));
  TN_CHECK(seeded != 0 && left > 0 && left <= MT19937::kN && next <= MT19937::kN,
           "Invalid mt19937 state");
  for (int i = 0; i < MT19937::kN; ++i)
    engine_.state[i] =
        static_cast<uint32_t>(get<uint64_t>(in, kWordsAt + 8 * static_cast<size_t>(i)));
  engine_.seed_ = get<uint64_t>(in, kSeedAt);
  engine_.left = left;
  engine_.next = static_cast<int>(next);
  seed_ = engine_.seed_;
  next_double_normal.reset();
  next_float_normal.reset();
  if (get<int32_t>(in, kNormalValidAt)) next_double_normal = get<double>(in, kNormalYAt);
  if (get<uint8_t>(in, kFloatValidAt)) next_float_normal = get<float>(in, kFloatNormalAt);
}

// The process's default generator starts from a nondeterministic seed, as upstream 2.13's does
// (torch.initial_seed() differs from run to run until torch.manual_seed); a new
// torch.Generator() starts from kDefaultSeed, as upstream's.
Generator& default_generator() {
  static Generator* g = new Generator(nondeterministic_seed());  // lives for the process
  return *g;
}

uint64_t nondeterministic_seed() {
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) | rd();
}

}  // namespace tn
