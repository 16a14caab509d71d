// What the pooling kernels share (nn_pool.cpp: max and average pools; nn_pool_adaptive.cpp:
// adaptive pools): the window geometry of a 2-d or 3-d pool, upstream's output-size rule, the
// planes-per-thread grain, and the index check of the max pools' backward.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

#include "core/tensor_impl.h"
#include "kernels/cpu/parallel.h"

namespace tn::pool {

// A pool's parameters, each as (depth, height, width); a 2-d pool has depth 1, kernel 1,
// stride 1 and no padding in depth. planes: batch * channels.
struct Pool {
  int64_t kd = 1, kh = 1, kw = 1, sd = 1, sh = 1, sw = 1, pd = 0, ph = 0, pw = 0;
  int64_t dd = 1, dh = 1, dw = 1;
  int64_t planes = 0, id = 1, ih = 1, iw = 1, od = 1, oh = 1, ow = 1;
  int64_t in_plane() const { return id * ih * iw; }
  int64_t out_plane() const { return od * oh * ow; }
};

// Upstream's pooling_output_shape, with its checks.
int64_t pool_out(int64_t in, int64_t k, int64_t pad, int64_t s, int64_t d, bool ceil);

// Planes per thread at least: about upstream's elementwise grain of outputs, so small pools
// stay on one thread.
inline int64_t plane_grain(int64_t outputs_per_plane) {
  return std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, outputs_per_plane));
}

template <typename T>
bool is_nan(T v) {
  if constexpr (std::is_integral_v<T>) return false;
  else return std::isnan(static_cast<double>(v));
}

// Whether every one of n indices is -1 or in [0, limit).
bool indices_in_range(const int64_t* ip, int64_t n, int64_t limit);

// The max pools' backward (also the adaptive ones'): gi (dense, planes x plane_in) is the sum
// of grad_output at the input position its indices name, plane by plane, in output order. An
// index outside the plane raises an IndexError naming `name`, which names the dtype refusal too.
void scatter_max_grad(const Tensor& go, const Tensor& ind, const Tensor& gi, int64_t planes,
                      int64_t plane_in, int64_t plane_out, const std::string& key,
                      const char* name);

// Upstream's start_index / end_index of adaptive window o of n over an input of in.
inline int64_t start_index(int64_t o, int64_t n, int64_t in) {
  return (o / n) * in + ((o % n) * in) / n;
}
inline int64_t end_index(int64_t o, int64_t n, int64_t in) { return 1 + ((o + 1) * in - 1) / n; }

}  // namespace tn::pool
