// The float32 Box-Muller block of normal_ on CPUs with AVX2 and FMA, bit-compatible with
// upstream's AVX2 build (its Cephes-style vector log and sincos, with the same fused steps).
#pragma once

namespace tn {

// True when the kernels run at AVX2 or wider (cpu_isa.h), as upstream's AVX2 and AVX-512 builds
// take this block.
bool has_avx2_fma();
// data[0..16) holds uniforms in [0, 1); replaces them with 16 normal(mean, std) samples:
// data[j] from the cosine and data[j + 8] from the sine of the pair (1 - data[j], data[j + 8]).
void normal_fill16_avx2(float* data, float mean, float std);

}  // namespace tn
