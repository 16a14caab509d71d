// native_layer_norm's float32 row kernel: its AVX-512 and AVX2 builds give the baseline build's
// bits (nn_norm.cpp promises it; agreement with upstream is tests/ops/test_reductions.py's).
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "kernels/cpu/nn_norm.h"

namespace {

using tn::norm::Isa;

struct Out {
  std::vector<float> y, mean, rstd;
};

Out run(Isa isa, const std::vector<float>& x, int64_t rows, int64_t n, const float* w,
        const float* b) {
  Out o{std::vector<float>(rows * n, -1.f), std::vector<float>(rows), std::vector<float>(rows)};
  tn::norm::layer_norm_rows_f32(isa, x.data(), rows, n, w, b, 1e-5, o.y.data(), o.mean.data(),
                                o.rstd.data());
  return o;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// Rows of every length 1..40 and 384, values at several offsets and scales (a large offset is
// where the moments' rounding shows), with and without weight and bias.
TEST(NnNorm, EveryBuildGivesTheBaselineBits) {
  std::mt19937 gen(11);
  std::normal_distribution<float> normal;
  const int64_t rows = 25;
  std::vector<int64_t> lengths;
  for (int64_t n = 1; n <= 40; ++n) lengths.push_back(n);
  lengths.push_back(384);
  int compared = 0;
  for (int64_t n : lengths) {
    std::vector<float> x(rows * n), w(n), b(n);
    for (int64_t i = 0; i < rows * n; ++i) x[i] = normal(gen) * (1 + i % 7) + 100.f * (i % 3);
    for (int64_t i = 0; i < n; ++i) w[i] = normal(gen), b[i] = normal(gen);
    for (bool affine : {true, false}) {
      const float* pw = affine ? w.data() : nullptr;
      const float* pb = affine ? b.data() : nullptr;
      Out base = run(Isa::Base, x, rows, n, pw, pb);
      for (Isa isa : {Isa::Avx2, Isa::Avx512}) {
        if (!tn::norm::isa_supported(isa)) continue;
        Out o = run(isa, x, rows, n, pw, pb);
        EXPECT_TRUE(same_bits(o.y, base.y)) << "n " << n << " isa " << static_cast<int>(isa);
        EXPECT_TRUE(same_bits(o.mean, base.mean)) << "n " << n;
        EXPECT_TRUE(same_bits(o.rstd, base.rstd)) << "n " << n;
        ++compared;
      }
    }
  }
  if (compared == 0) GTEST_SKIP() << "neither AVX2 nor AVX-512F on this CPU";
}

}  // namespace
