// native_layer_norm's float32 row kernel: its AVX2 build gives the bits of the same model
// compiled without AVX2 (nn_norm.cpp: fused steps are std::fma, contraction is off, so its
// compiler may fuse or reorder nothing of its own). Agreement with upstream, bit for bit, is
// tests/ops/test_layer_norm_bits.py's.
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

// Rows of every length 1..40, 127, 384 and 3000 (several chunks and a carried stack), values
// at several offsets and scales, with and without weight and bias.
TEST(NnNorm, TheAvx2BuildComputesThePortableModel) {
  if (!tn::norm::isa_supported(Isa::Avx2)) GTEST_SKIP() << "no AVX2 on this CPU";
  std::mt19937 gen(11);
  std::normal_distribution<float> normal;
  const int64_t rows = 25;
  std::vector<int64_t> lengths;
  for (int64_t n = 1; n <= 40; ++n) lengths.push_back(n);
  for (int64_t n : {127, 384, 3000}) lengths.push_back(n);
  for (int64_t n : lengths) {
    std::vector<float> x(rows * n), w(n), b(n);
    for (int64_t i = 0; i < rows * n; ++i) x[i] = normal(gen) * (1 + i % 7) + 100.f * (i % 3);
    for (int64_t i = 0; i < n; ++i) w[i] = normal(gen), b[i] = normal(gen);
    for (bool affine : {true, false}) {
      const float* pw = affine ? w.data() : nullptr;
      const float* pb = affine ? b.data() : nullptr;
      Out o = run(Isa::Avx2, x, rows, n, pw, pb);
      Out ref{std::vector<float>(rows * n, -1.f), std::vector<float>(rows),
              std::vector<float>(rows)};
      tn::norm::layer_norm_rows_f32_avx2_portable(x.data(), rows, n, pw, pb, 1e-5, ref.y.data(),
                                                  ref.mean.data(), ref.rstd.data());
      EXPECT_TRUE(same_bits(o.y, ref.y)) << "n " << n;
      EXPECT_TRUE(same_bits(o.mean, ref.mean)) << "n " << n;
      EXPECT_TRUE(same_bits(o.rstd, ref.rstd)) << "n " << n;
    }
  }
}

}  // namespace
