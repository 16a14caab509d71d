// uint8 bilinear / bicubic resizing over the last two dims (kernels/cpu/upsample_aa.cpp), shared
// with the plain interpolations (kernels/cpu/upsample.cpp), which upstream computes for uint8
// the same way.
#pragma once

#include <optional>
#include <string>

#include "core/tensor_impl.h"

namespace tn {

// x (N, C, H, W) uint8, any strides -> out (N, C, oh, ow) in out's layout, antialiased or not
// (Note [uint8 through int16 weights]).
void upsample_uint8_2d(const Tensor& x, const Tensor& out, bool cubic, bool antialias,
                       bool align, std::optional<double> sh, std::optional<double> sw,
                       const std::string& key);

}  // namespace tn
