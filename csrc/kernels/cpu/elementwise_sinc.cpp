// sinc(x) = sin(pi x) / (pi x), 1 at 0: a float op (integers and bools in the default float
// dtype), with its in-place and out= spellings. Upstream's kernel is a scalar loop in the op
// math type (float for the 16-bit floats: pi and x widened, std::sin, the quotient rounded
// once), so every element is computed the one way. Complex inputs refuse by name: upstream's
// complex sin and division are c10::complex's, not written here yet.
#include <cmath>

#include "kernels/cpu/elementwise_loop.h"

namespace tn {
namespace {

using V = EwVariant;
using D = EwDtype;
using O = EwOutCheck;

void check_sinc_dtype(const Call&, const EwSpec& s) {
  TN_CHECK_KIND(!is_complex(s.common), NotImplemented, "torchnative: aten::sinc of ",
                enum_name(s.common), " tensors is not implemented");
}
void sinc_compute(EwIter& it, const Call&) {
  ew_dispatch<kEwFloats>(it.common, "sinc_cpu", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    ew_run<T, T>(it, [](A a) {
      if (a == A(0)) return A(1);
      const A product = static_cast<A>(M_PI) * a;
      return A(std::sin(product) / product);
    });
  });
}
constexpr EwRule kSinc = ew_rule(1, V::Functional, D::CommonFloat, O::SafeCast,
                                 check_sinc_dtype);
constexpr EwRule kSincI = ew_rule(1, V::InPlace, D::CommonFloat, O::SafeCast,
                                  check_sinc_dtype);
constexpr EwRule kSincO = ew_rule(1, V::Out, D::CommonFloat, O::SafeCast, check_sinc_dtype);
TN_REGISTER_ELEMENTWISE("aten::sinc", kSinc, sinc_compute);
TN_REGISTER_ELEMENTWISE("aten::sinc_", kSincI, sinc_compute);
TN_REGISTER_ELEMENTWISE("aten::sinc.out", kSincO, sinc_compute);

}  // namespace
}  // namespace tn
