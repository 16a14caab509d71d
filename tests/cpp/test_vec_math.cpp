// Unit tests of the vector array kernels (kernels/cpu/vec_math.h): a lane's result does not
// depend on its position (tails, offsets), gelu's accuracy against double precision in the
// magnitudes where a cheaper erf is not good enough, upstream's special values, and exp's bits.
// Agreement with upstream itself is tests/test_elementwise_agreement.py's.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/cpu/cpu_isa.h"
#include "kernels/cpu/elementwise_sleef.h"
#include "kernels/cpu/vec_math.h"

namespace {

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

std::vector<float> gelu(const std::vector<float>& x) {
  std::vector<float> y(x.size());
  tn::vec::gelu_erf_f32(x.data(), y.data(), static_cast<int64_t>(x.size()));
  return y;
}

// Values over many magnitudes and both signs: +-10^u, u uniform in [-6, 1.2].
std::vector<float> spread(size_t n) {
  std::mt19937 gen(7);
  std::uniform_real_distribution<double> u(-6, 1.2);
  std::vector<float> x(n);
  for (size_t i = 0; i < n; ++i) x[i] = static_cast<float>((i % 2 ? -1 : 1) * std::pow(10, u(gen)));
  return x;
}

double gelu64(double x) { return x * 0.5 * (1 + std::erf(x / std::sqrt(2.0))); }

TEST(VecMath, GeluOfAnElementDoesNotDependOnItsPosition) {
  if (!tn::vec::gelu_erf_available()) GTEST_SKIP() << "no AVX2+FMA or no SLEEF";
  std::vector<float> x = spread(1000);
  std::vector<float> all = gelu(x);
  for (int64_t off : {1, 3, 15, 17}) {  // every element lands in another lane, or in the tail
    std::vector<float> y(x.size() - off);
    tn::vec::gelu_erf_f32(x.data() + off, y.data(), static_cast<int64_t>(y.size()));
    for (size_t i = 0; i < y.size(); ++i) ASSERT_TRUE(same_bits(y[i], all[i + off])) << i;
  }
  for (size_t i = 0; i < x.size(); i += 37) {
    float one;
    tn::vec::gelu_erf_f32(&x[i], &one, 1);
    ASSERT_TRUE(same_bits(one, all[i])) << i;
  }
  std::vector<float> in_place = x;
  tn::vec::gelu_erf_f32(in_place.data(), in_place.data(), static_cast<int64_t>(x.size()));
  for (size_t i = 0; i < x.size(); ++i) ASSERT_TRUE(same_bits(in_place[i], all[i])) << i;
}

// Below |x| = 0.5 the error must stay within 1.5 float32 ulps of the result (ours: 1.0;
// upstream's oneDNN: 1.7); Abramowitz and Stegun's erf alone reaches 10.8 there and fails, and
// so does our polynomial with its t^6 term left out (4.2).
TEST(VecMath, GeluIsAccurateAtEveryMagnitude) {
  if (!tn::vec::gelu_erf_available()) GTEST_SKIP() << "no AVX2+FMA or no SLEEF";
  std::vector<float> x = spread(200000);
  std::vector<float> y = gelu(x);
  double worst_ulps = 0, worst_abs = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    double ref = gelu64(x[i]), err = std::fabs(y[i] - ref);
    worst_abs = std::max(worst_abs, err);
    if (std::fabs(x[i]) < 0.5f) {
      float r = static_cast<float>(std::fabs(ref));
      worst_ulps = std::max(worst_ulps, err / (std::nextafter(r, INFINITY) - r));
    }
  }
  EXPECT_LE(worst_ulps, 1.5);
  EXPECT_LE(worst_abs, 3.5e-7);  // upstream's own: 1.2e-6 (vec_math.h)
}

// Each build's special values are those of oneDNN's same build in upstream's process (measured
// with ONEDNN_MAX_CPU_ISA=AVX2 and unset, on an AVX-512 machine).
std::vector<float> gelu_as(tn::cpu::Isa as, const std::vector<float>& x) {
  std::vector<float> y(x.size());
  tn::vec::gelu_erf_f32(x.data(), y.data(), static_cast<int64_t>(x.size()), as);
  return y;
}
const std::vector<float> kSpecials = {INFINITY, -INFINITY, NAN,    -0.0f,  0.0f,
                                      -20.0f,   20.0f,     -5.0f,  3e38f,  0x1p127f,
                                      1.7e38f,  -3e38f,    -1e-45f};

TEST(VecMath, GeluSpecialValuesAreThoseOfOneDnnsAvx512Build) {
  using tn::cpu::Isa;
  if (!tn::vec::gelu_erf_available() || !tn::cpu::cpu_runs(Isa::Avx512))
    GTEST_SKIP() << "no AVX-512 or no SLEEF";
  std::vector<float> y = gelu_as(Isa::Avx512, kSpecials);
  EXPECT_TRUE(std::isnan(y[0]));  // +inf gives NaN, as -inf (inf * 0)
  EXPECT_TRUE(std::isnan(y[1]));
  EXPECT_TRUE(std::isnan(y[2]));
  EXPECT_TRUE(same_bits(y[3], -0.0f));
  EXPECT_TRUE(same_bits(y[4], 0.0f));
  EXPECT_TRUE(same_bits(y[5], -0.0f));  // the sign of x on a zero result
  EXPECT_EQ(y[6], 20.0f);
  EXPECT_LT(y[7], 0.0f);
  EXPECT_EQ(y[8], INFINITY);  // from 2^127 up
  EXPECT_EQ(y[9], INFINITY);
  EXPECT_EQ(y[10], 1.7e38f);
  EXPECT_TRUE(same_bits(y[11], -0.0f));
  EXPECT_TRUE(same_bits(y[12], -0.0f));
}

TEST(VecMath, GeluSpecialValuesAreThoseOfOneDnnsAvx2Build) {
  using tn::cpu::Isa;
  if (!tn::vec::gelu_erf_available()) GTEST_SKIP() << "no AVX2+FMA or no SLEEF";
  for (Isa as : {Isa::Avx2, Isa::Base}) {  // oneDNN's SSE4.1 build answers as its AVX2 one
    std::vector<float> y = gelu_as(as, kSpecials);
    EXPECT_EQ(y[0], INFINITY);
    EXPECT_TRUE(std::isnan(y[1]));
    EXPECT_TRUE(std::isnan(y[2]));
    EXPECT_TRUE(same_bits(y[3], 0.0f));  // every zero result +0
    EXPECT_TRUE(same_bits(y[4], 0.0f));
    EXPECT_TRUE(same_bits(y[5], 0.0f));
    EXPECT_EQ(y[6], 20.0f);
    EXPECT_LT(y[7], 0.0f);
    EXPECT_EQ(y[8], 3e38f);
    EXPECT_EQ(y[9], 0x1p127f);
    EXPECT_EQ(y[10], 1.7e38f);
    EXPECT_TRUE(same_bits(y[11], 0.0f));
    EXPECT_TRUE(same_bits(y[12], 0.0f));
  }
}

// Apart from the special values, the two builds give the same bits.
TEST(VecMath, GelusBuildsAgreeAwayFromTheSpecialValues) {
  using tn::cpu::Isa;
  if (!tn::vec::gelu_erf_available() || !tn::cpu::cpu_runs(Isa::Avx512))
    GTEST_SKIP() << "no AVX-512 or no SLEEF";
  std::vector<float> x = spread(100003);
  std::vector<float> a = gelu_as(Isa::Avx512, x), b = gelu_as(Isa::Avx2, x);
  for (size_t i = 0; i < x.size(); ++i)
    if (a[i] != 0.0f) ASSERT_TRUE(same_bits(a[i], b[i])) << x[i];
}

TEST(VecMath, ExpHasTheBitsOfSleefsScalarExp) {
  if (tn::vec::vec_width() == 0) GTEST_SKIP() << "no AVX2+FMA or no SLEEF";
  std::vector<float> x = spread(5000);
  for (size_t i = 0; i < x.size(); i += 3) x[i] *= 20;  // overflow and underflow too
  x.insert(x.end(), {INFINITY, -INFINITY, NAN, 0.0f, -0.0f});
  std::vector<float> y(x.size());
  tn::vec::exp_f32(x.data(), y.data(), static_cast<int64_t>(x.size()));
  for (size_t i = 0; i < x.size(); ++i) {
    float want = tn::sleef::exp(x[i]);
    ASSERT_TRUE(same_bits(y[i], want) || (std::isnan(y[i]) && std::isnan(want))) << x[i];
  }
}

// sigmoid and silu with SLEEF's expf inlined (Note [SLEEF's expf, inlined]) give the bits of
// the per-element formulas over SLEEF's scalar exp, on every 4099th float bit pattern (about a
// million: every exponent, NaNs with payloads, subnormals, the under- and overflow edges),
// from an odd offset so that the tail runs too.
TEST(VecMath, SigmoidAndSiluHaveTheFormulasBitsWithSleefsExp) {
  if (tn::vec::vec_width() == 0) GTEST_SKIP() << "no AVX2+FMA or no SLEEF";
  std::vector<float> x;
  for (uint64_t b = 3; b < (uint64_t(1) << 32); b += 4099) {
    uint32_t u = static_cast<uint32_t>(b);
    float f;
    std::memcpy(&f, &u, sizeof f);
    x.push_back(f);
  }
  x.insert(x.end(), {-104.0f, -103.99999f, 100.0f, 100.00001f, 88.72284f, -87.33655f, 0.0f,
                     -0.0f, INFINITY, -INFINITY});
  const int64_t n = static_cast<int64_t>(x.size()) - 1;
  std::vector<float> sg(x.size()), si(x.size());
  tn::vec::sigmoid_f32(x.data() + 1, sg.data() + 1, n);
  tn::vec::silu_f32(x.data() + 1, si.data() + 1, n);
  for (int64_t i = 1; i <= n; ++i) {
    const float v = x[i];
    const float want_sg = 1.0f / (1.0f + tn::sleef::exp(0.0f - v));
    const float want_si = v / (1.0f + tn::sleef::exp(-v));
    ASSERT_TRUE(same_bits(sg[i], want_sg) || (std::isnan(sg[i]) && std::isnan(want_sg))) << v;
    ASSERT_TRUE(same_bits(si[i], want_si) || (std::isnan(si[i]) && std::isnan(want_si))) << v;
  }
}

// Attention's softmax pass: each element is exp(x * scale - shift) with SLEEF's bits (the
// product and the difference rounded apart), and the sum runs in 16 lanes, i mod 16, the lanes
// then added in order, at every length (tails at both widths) and from any offset.
TEST(VecMath, ExpSumHasSleefsBitsAndSixteenLanes) {
  if (tn::vec::vec_width() == 0) GTEST_SKIP() << "no AVX2+FMA or no SLEEF";
  const std::vector<float> x0 = spread(300);
  const float scale = 0.37f, shift = 1.5f;
  for (int64_t n : {0, 1, 7, 8, 9, 15, 16, 17, 24, 31, 33, 100, 299}) {
    std::vector<float> x(x0.begin() + 1, x0.begin() + 1 + n);
    float lane[16] = {};
    std::vector<float> want(n);
    for (int64_t i = 0; i < n; ++i) {
      volatile float arg = x[i] * scale;  // volatile: rounded before the difference
      want[i] = tn::sleef::exp(arg - shift);
      lane[i % 16] += want[i];
    }
    float sum = lane[0];
    for (int l = 1; l < 16; ++l) sum += lane[l];
    const float got = tn::vec::exp_sum_f32(x.data(), n, scale, shift);
    ASSERT_TRUE(same_bits(got, sum)) << n;
    for (int64_t i = 0; i < n; ++i) ASSERT_TRUE(same_bits(x[i], want[i])) << n << " " << i;
  }
}

}  // namespace
