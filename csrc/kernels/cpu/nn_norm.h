// The float32 layer_norm row kernel of nn_norm.cpp per instruction set, for the test that its
// AVX2 build computes exactly the portable model (tests/cpp/test_nn_norm.cpp). Kernels reach it
// through the door.
#pragma once

#include <cstdint>

#include "kernels/cpu/cpu_isa.h"

namespace tn::norm {

using Isa = cpu::Isa;

// Whether this CPU runs isa's build.
bool isa_supported(Isa isa);

// Rows of n floats of x normalised into y (w, b: n each, or null), with each row's mean and
// rstd, as native_layer_norm computes them, on isa's build (each models upstream's build for
// the same instruction set).
void layer_norm_rows_f32(Isa isa, const float* x, int64_t rows, int64_t n, const float* w,
                         const float* b, double eps, float* y, float* mean, float* rstd);
// The AVX2 model compiled for the baseline instruction set (its fused steps as library calls):
// what the AVX2 build must give, had its compiler fused or reordered nothing of its own.
void layer_norm_rows_f32_avx2_portable(const float* x, int64_t rows, int64_t n, const float* w,
                                       const float* b, double eps, float* y, float* mean,
                                       float* rstd);

}  // namespace tn::norm
