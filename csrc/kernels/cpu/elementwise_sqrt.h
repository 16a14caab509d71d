// The float square root kernel shared by sqrt and pow(x, 0.5), which upstream computes with its
// sqrt kernel (MKL's VML where the BLAS is MKL: not always correctly rounded in float32).
#pragma once

namespace tn {
struct Call;
struct EwIter;
// Writes sqrt of the iterator's operand in its computed float dtype (elementwise_unary.cpp).
void ew_sqrt(EwIter& it, const Call& c);
}  // namespace tn
