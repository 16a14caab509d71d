// SLEEF entry points (see elementwise_sleef.h). sleef.h declares the FMA variants only when
// the translation unit is compiled for FMA; these are declared here instead, and called only
// after available() has checked the CPU.
#include "kernels/cpu/elementwise_sleef.h"

#include "kernels/cpu/cpu_isa.h"

#if defined(TN_HAVE_SLEEF)
extern "C" {
float Sleef_expf1_u10purecfma(float);
double Sleef_expd1_u10purecfma(double);
float Sleef_exp2f1_u10purecfma(float);
double Sleef_exp2d1_u10purecfma(double);
float Sleef_expm1f1_u10purecfma(float);
double Sleef_expm1d1_u10purecfma(double);
float Sleef_log1pf1_u10purecfma(float);
double Sleef_log1pd1_u10purecfma(double);
float Sleef_tanhf1_u10purecfma(float);
double Sleef_tanhd1_u10purecfma(double);
float Sleef_powf1_u10purecfma(float, float);
double Sleef_powd1_u10purecfma(double, double);
float Sleef_logf1_u10purecfma(float);
double Sleef_logd1_u10purecfma(double);
float Sleef_acosf1_u10purecfma(float);
double Sleef_acosd1_u10purecfma(double);
float Sleef_asinf1_u10purecfma(float);
double Sleef_asind1_u10purecfma(double);
float Sleef_atanf1_u10purecfma(float);
double Sleef_atand1_u10purecfma(double);
float Sleef_sinhf1_u10purecfma(float);
double Sleef_sinhd1_u10purecfma(double);
float Sleef_coshf1_u10purecfma(float);
double Sleef_coshd1_u10purecfma(double);
float Sleef_atanhf1_u10purecfma(float);
double Sleef_atanhd1_u10purecfma(double);
float Sleef_erfcf1_u15purecfma(float);
double Sleef_erfcd1_u15purecfma(double);
float Sleef_lgammaf1_u10purecfma(float);
double Sleef_lgammad1_u10purecfma(double);
float Sleef_atan2f1_u10purecfma(float, float);
double Sleef_atan2d1_u10purecfma(double, double);
float Sleef_hypotf1_u05purecfma(float, float);
double Sleef_hypotd1_u05purecfma(double, double);
}
#define TN_SLEEF(f, std_f) f
// AVX-512 builds of SLEEF's log, for the kernels upstream registers for AVX-512 (log_simd).
#include <immintrin.h>
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"
extern "C" __m512 Sleef_logf16_u10avx512f(__m512);
extern "C" __m512d Sleef_logd8_u10avx512f(__m512d);
namespace {
__attribute__((target("avx512f"))) float log_avx512(float x) {
  return _mm512_cvtss_f32(Sleef_logf16_u10avx512f(_mm512_set1_ps(x)));
}
__attribute__((target("avx512f"))) double log_avx512(double x) {
  return _mm512_cvtsd_f64(Sleef_logd8_u10avx512f(_mm512_set1_pd(x)));
}
}  // namespace
#pragma GCC diagnostic pop
#else
#define TN_SLEEF(f, std_f) std_f
#endif

namespace tn::sleef {

bool available() {
#if defined(TN_HAVE_SLEEF)
  return cpu::isa() != cpu::Isa::Base;
#else
  return false;
#endif
}

float exp(float x) { return TN_SLEEF(Sleef_expf1_u10purecfma, std::exp)(x); }
double exp(double x) { return TN_SLEEF(Sleef_expd1_u10purecfma, std::exp)(x); }
float exp2(float x) { return TN_SLEEF(Sleef_exp2f1_u10purecfma, std::exp2)(x); }
double exp2(double x) { return TN_SLEEF(Sleef_exp2d1_u10purecfma, std::exp2)(x); }
float expm1(float x) { return TN_SLEEF(Sleef_expm1f1_u10purecfma, std::expm1)(x); }
double expm1(double x) { return TN_SLEEF(Sleef_expm1d1_u10purecfma, std::expm1)(x); }
float atan2(float y, float x) { return TN_SLEEF(Sleef_atan2f1_u10purecfma, std::atan2)(y, x); }
double atan2(double y, double x) {
  return TN_SLEEF(Sleef_atan2d1_u10purecfma, std::atan2)(y, x);
}
float hypot(float x, float y) { return TN_SLEEF(Sleef_hypotf1_u05purecfma, std::hypot)(x, y); }
double hypot(double x, double y) {
  return TN_SLEEF(Sleef_hypotd1_u05purecfma, std::hypot)(x, y);
}
// Above these bounds (1e38, 1e307) the SLEEF upstream bundles returns its log (u10), where
// Debian's 3.5 returns inf: log1p(1.5e38) is 87.9 in upstream's build (measured equal to
// Sleef_logf1_u10purecfma on 200,002 samples above the bound).
float log1p(float x) {
  return x > kLog1pBoundF ? log(x) : TN_SLEEF(Sleef_log1pf1_u10purecfma, std::log1p)(x);
}
double log1p(double x) {
  return x > kLog1pBoundD ? log(x) : TN_SLEEF(Sleef_log1pd1_u10purecfma, std::log1p)(x);
}
float tanh(float x) { return TN_SLEEF(Sleef_tanhf1_u10purecfma, std::tanh)(x); }
double tanh(double x) { return TN_SLEEF(Sleef_tanhd1_u10purecfma, std::tanh)(x); }
float pow(float x, float y) { return TN_SLEEF(Sleef_powf1_u10purecfma, std::pow)(x, y); }
double pow(double x, double y) { return TN_SLEEF(Sleef_powd1_u10purecfma, std::pow)(x, y); }
float log(float x) { return TN_SLEEF(Sleef_logf1_u10purecfma, std::log)(x); }
double log(double x) { return TN_SLEEF(Sleef_logd1_u10purecfma, std::log)(x); }
// The AVX-512 build's log leaves a negative input's NaN as its polynomial made it (a payload
// that depends on x); the AVX2 build's, like the scalar one, gives SLEEF's canonical NaN.
template <typename T>
T log_simd_of(T x) {
#if defined(TN_HAVE_SLEEF)
  if (cpu::isa() == cpu::Isa::Avx512) return log_avx512(x);
#endif
  return log(x);
}
float log_simd(float x) { return log_simd_of(x); }
double log_simd(double x) { return log_simd_of(x); }
float acos(float x) { return TN_SLEEF(Sleef_acosf1_u10purecfma, std::acos)(x); }
double acos(double x) { return TN_SLEEF(Sleef_acosd1_u10purecfma, std::acos)(x); }
float asin(float x) { return TN_SLEEF(Sleef_asinf1_u10purecfma, std::asin)(x); }
double asin(double x) { return TN_SLEEF(Sleef_asind1_u10purecfma, std::asin)(x); }
float atan(float x) { return TN_SLEEF(Sleef_atanf1_u10purecfma, std::atan)(x); }
double atan(double x) { return TN_SLEEF(Sleef_atand1_u10purecfma, std::atan)(x); }
float sinh(float x) { return TN_SLEEF(Sleef_sinhf1_u10purecfma, std::sinh)(x); }
double sinh(double x) { return TN_SLEEF(Sleef_sinhd1_u10purecfma, std::sinh)(x); }
float cosh(float x) { return TN_SLEEF(Sleef_coshf1_u10purecfma, std::cosh)(x); }
double cosh(double x) { return TN_SLEEF(Sleef_coshd1_u10purecfma, std::cosh)(x); }
float atanh(float x) { return TN_SLEEF(Sleef_atanhf1_u10purecfma, std::atanh)(x); }
double atanh(double x) { return TN_SLEEF(Sleef_atanhd1_u10purecfma, std::atanh)(x); }
float erfc(float x) { return TN_SLEEF(Sleef_erfcf1_u15purecfma, std::erfc)(x); }
double erfc(double x) { return TN_SLEEF(Sleef_erfcd1_u15purecfma, std::erfc)(x); }
float lgamma(float x) { return TN_SLEEF(Sleef_lgammaf1_u10purecfma, std::lgamma)(x); }
double lgamma(double x) { return TN_SLEEF(Sleef_lgammad1_u10purecfma, std::lgamma)(x); }

}  // namespace tn::sleef
