// MT19937 and the CPU generator (see generator.h).
#include "core/generator.h"

#include <immintrin.h>

#include <algorithm>
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
// wraps inside a loop (a modulo per word made the twist a quarter of a word's cost). The mix is
// branch-free and each run's words depend only on words at least 227 places back, so the runs
// vectorise: a tensor's worth of dropout draws spent most of its time here.
namespace {
inline uint32_t mt_mix(uint32_t a, uint32_t b, uint32_t m) {
  uint32_t y = (a & 0x80000000U) | (b & 0x7fffffffU);
  return m ^ (y >> 1) ^ (uint32_t{0} - (y & 1U) & 0x9908b0dfU);
}

template <int From, int To, int Ahead>
__attribute__((always_inline)) inline void mt_run(uint32_t* __restrict st) {
  for (int i = From; i < To; ++i) st[i] = mt_mix(st[i], st[i + 1], st[i + Ahead]);
}

__attribute__((target("avx2"), optimize("O3"))) void twist_avx2(uint32_t* st) {
  constexpr int kN = MT19937::kN, kM = 397;
  mt_run<0, kN - kM, kM>(st);
  mt_run<kN - kM, kN - 1, kM - kN>(st);
  st[kN - 1] = mt_mix(st[kN - 1], st[0], st[kM - 1]);
}

__attribute__((optimize("O3"))) void twist_base(uint32_t* st) {
  constexpr int kN = MT19937::kN, kM = 397;
  mt_run<0, kN - kM, kM>(st);
  mt_run<kN - kM, kN - 1, kM - kN>(st);
  st[kN - 1] = mt_mix(st[kN - 1], st[0], st[kM - 1]);
}

const bool g_avx2 = __builtin_cpu_supports("avx2");

inline uint32_t temper(uint32_t y) {
  y ^= y >> 11;
  y ^= (y << 7) & 0x9d2c5680U;
  y ^= (y << 15) & 0xefc60000U;
  return y ^ (y >> 18);
}

// Tempers n words, eight lanes at a time.
__attribute__((target("avx2"))) void temper_avx2(const uint32_t* in, uint32_t* out, int64_t n) {
  const __m256i b = _mm256_set1_epi32(static_cast<int>(0x9d2c5680U));
  const __m256i c = _mm256_set1_epi32(static_cast<int>(0xefc60000U));
  int64_t k = 0;
  for (; k + 8 <= n; k += 8) {
    __m256i y = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + k));
    y = _mm256_xor_si256(y, _mm256_srli_epi32(y, 11));
    y = _mm256_xor_si256(y, _mm256_and_si256(_mm256_slli_epi32(y, 7), b));
    y = _mm256_xor_si256(y, _mm256_and_si256(_mm256_slli_epi32(y, 15), c));
    y = _mm256_xor_si256(y, _mm256_srli_epi32(y, 18));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + k), y);
  }
  for (; k < n; ++k) out[k] = temper(in[k]);
}
}  // namespace

void MT19937::twist() {
  if (g_avx2) twist_avx2(state);
  else twist_base(state);
  left = kN;
  next = 0;
}

// operator() keeps next + left == kN + 1 once it has twisted: the words left before the next
// twist are state[next .. kN), left - 1 of them.
void MT19937::draw(uint32_t* out, int64_t n) {
  while (n > 0) {
    if (left <= 1) {
      twist();
      left = kN + 1;
      next = 0;
    }
    const int64_t m = std::min<int64_t>(n, left - 1);
    const uint32_t* s = state + next;
    if (g_avx2) {
      temper_avx2(s, out, m);
    } else {
      for (int64_t k = 0; k < m; ++k) out[k] = temper(s[k]);
    }
    next += static_cast<int>(m);
    left -= static_cast<int>(m);
    out += m;
    n -= m;
  }
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
