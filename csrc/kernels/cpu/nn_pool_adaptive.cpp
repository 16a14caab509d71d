// Adaptive pooling on dense CPU tensors, 2-d and 3-d, forward and backward: _adaptive_avg_pool2d
// and _adaptive_avg_pool3d (upstream's start/end index rule, the window summed in the
// accumulation type and divided by its depth, height then width), adaptive_max_pool2d and
// adaptive_max_pool3d (a window's first maximum, NaN winning); the composites
// adaptive_avg_pool1d/2d/3d and adaptive_max_pool1d. A 2-d pool runs the 3-d loops with depth 1
// (dividing by a depth of 1 is exact). Rules quote upstream's checks
// (AdaptiveAveragePooling.cpp, AdaptiveAveragePooling3d.cpp, AdaptiveMaxPooling2d/3d.cpp,
// Pooling.cpp).
#include <cmath>
#include <limits>
#include <string>

#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/cpu/nn_pool.h"
#include "kernels/cpu/parallel.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

using pool::end_index;
using pool::start_index;

// An adaptive pool's geometry; a 2-d one has depth 1.
struct Adaptive {
  int64_t planes = 0, id = 1, ih = 1, iw = 1, od = 1, oh = 1, ow = 1;
  bool is_3d = false;
  int64_t in_plane() const { return id * ih * iw; }
  int64_t out_plane() const { return od * oh * ow; }
};
Adaptive adaptive_geometry(const Tensor& x, const Dims& out, bool is_3d) {
  Adaptive a;
  a.is_3d = is_3d;
  int64_t nd = x->dim();
  a.ih = x->size(nd - 2);
  a.iw = x->size(nd - 1);
  a.oh = out[out.size() - 2];
  a.ow = out[out.size() - 1];
  if (is_3d) {
    a.id = x->size(nd - 3);
    a.od = out[0];
  }
  a.planes = nd == (is_3d ? 5 : 4) ? x->size(0) * x->size(1) : x->size(0);
  return a;
}
Dims adaptive_sizes(const Tensor& x, const Adaptive& a) {
  Dims s = x->sizes();
  size_t n = s.size();
  if (a.is_3d) s[n - 3] = a.od;
  s[n - 2] = a.oh;
  s[n - 1] = a.ow;
  return s;
}
// f(output offset in the plane, z0, z1, h0, h1, w0, w1) for every output of one plane.
template <typename F>
void for_each_adaptive_window(const Adaptive& a, F&& f) {
  for (int64_t t = 0; t < a.od; ++t) {
    int64_t z0 = start_index(t, a.od, a.id), z1 = end_index(t, a.od, a.id);
    for (int64_t i = 0; i < a.oh; ++i) {
      int64_t h0 = start_index(i, a.oh, a.ih), h1 = end_index(i, a.oh, a.ih);
      for (int64_t j = 0; j < a.ow; ++j)
        f((t * a.oh + i) * a.ow + j, z0, z1, h0, h1, start_index(j, a.ow, a.iw),
          end_index(j, a.ow, a.iw));
    }
  }
}
// Upstream's adaptive_pool_empty_output_check.
void empty_output_check(const Tensor& go, const char* fn) {
  for (int64_t i = 1; i < go->dim(); ++i)
    TN_CHECK(go->size(i) > 0, fn, "(): Expected grad_output to have non-zero size for non-batch "
             "dimensions, but grad_output has sizes ", dims_str(go->sizes()), " with dimension ",
             i, " being empty");
}
// Input dims 1.. nonzero, as each adaptive pool checks (fn names it).
void nonempty_check(const Tensor& x, const char* fn) {
  for (int64_t i = 1; i < x->dim(); ++i)
    TN_CHECK(x->size(i) > 0, fn, "(): Expected input to have non-zero size for non-batch "
             "dimensions, but input has sizes ", dims_str(x->sizes()), " with dimension ", i,
             " being empty");
}

// _adaptive_avg_pool2d(Tensor self, SymInt[2] output_size) and _adaptive_avg_pool3d (SymInt[3]).
// Upstream's 2-d kernel sums in the accumulation type and rounds once; its 3-d kernel
// (adaptive_avg_pool3d_out_frame) sums and divides in the element type, rounding each step
// for bfloat16 and half.
Adaptive adaptive_avg_params(const Tensor& x, const Dims& out, bool is_3d) {
  int64_t nd = x->dim();
  if (is_3d) {
    TN_CHECK(out.size() == 3, "adaptive_avg_pool3d: output_size must be 3");
    nonempty_check(x, "adaptive_avg_pool3d");
    TN_CHECK(nd == 4 || nd == 5, "adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got ",
             dims_str(x->sizes()));
  } else {
    TN_CHECK(out.size() == 2, "adaptive_avg_pool2d: output_size must be 2");
    nonempty_check(x, "adaptive_avg_pool2d");
    TN_CHECK(nd == 3 || nd == 4, "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got ",
             dims_str(x->sizes()));
    TN_CHECK_KIND(is_floating(x->dtype()), NotImplemented,
                  "\"adaptive_avg_pool2d\" not implemented for '", enum_name(x->dtype()), "'");
  }
  return adaptive_geometry(x, out, is_3d);
}
template <bool kIs3d>
void adaptive_avg_rule(Call& c) {
  const Tensor& x = c.tensor(0);
  Adaptive a = adaptive_avg_params(x, c.int_list(1), kIs3d);
  c.ret(new_on(x, adaptive_sizes(x, a), x->dtype()));
  c.keep_rule_state(a);
}
// The floating dtypes, which every adaptive pool computes (and no other).
template <typename T>
constexpr bool kAdaptiveType = std::is_floating_point_v<acc_t<T>>;

void adaptive_avg_cpu(Call& c) {
  const std::string& key = c.key();
  const Adaptive& a = *c.rule_state<Adaptive>();
  Tensor x = contiguous(c.tensor(0), key);
  dispatch_dtype(x->dtype(), key, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (kAdaptiveType<T>) {
      using A = acc_t<T>;
      const T* in = data_of<T>(x, key);
      T* out = data_of<T>(c.results[0].tensor, key);
      const int64_t hw = a.ih * a.iw;
      for (int64_t pl = 0; pl < a.planes; ++pl) {
        const T* ip = in + pl * a.in_plane();
        T* op = out + pl * a.out_plane();
        for_each_adaptive_window(a, [&](int64_t o, int64_t z0, int64_t z1, int64_t h0,
                                        int64_t h1, int64_t w0, int64_t w1) {
          if (a.is_3d) {  // upstream's 3-d kernel: sums and divides in the element type
            T sum = T(0);
            for (int64_t z = z0; z < z1; ++z)
              for (int64_t y = h0; y < h1; ++y)
                for (int64_t xx = w0; xx < w1; ++xx)
                  sum = T(static_cast<A>(sum) + static_cast<A>(ip[z * hw + y * a.iw + xx]));
            T r = T(static_cast<A>(sum) / static_cast<A>(z1 - z0));
            r = T(static_cast<A>(r) / static_cast<A>(h1 - h0));
            op[o] = T(static_cast<A>(r) / static_cast<A>(w1 - w0));
            return;
          }
          A sum = 0;  // the 2-d kernel: in the accumulation type, rounded once
          for (int64_t y = h0; y < h1; ++y)
            for (int64_t xx = w0; xx < w1; ++xx) sum += static_cast<A>(ip[y * a.iw + xx]);
          op[o] = T(sum / static_cast<A>(h1 - h0) / static_cast<A>(w1 - w0));
        });
      }
    } else {
      TN_FAIL(NotImplemented, a.is_3d ? "\"adaptive_avg_pool3d_cpu\"" : "\"adaptive_avg_pool2d\"",
              " not implemented for '", enum_name(x->dtype()), "'");
    }
  });
}
TN_REGISTER_STRUCTURED("aten::_adaptive_avg_pool2d", adaptive_avg_rule<false>, adaptive_avg_cpu);
TN_REGISTER_STRUCTURED("aten::_adaptive_avg_pool3d", adaptive_avg_rule<true>, adaptive_avg_cpu);

// _adaptive_avg_pool2d_backward(Tensor grad_output, Tensor self) -> Tensor, and the 3-d one.
void adaptive_avg_backward_rule2d(Call& c) {
  const Tensor &go = c.tensor(0), &x = c.tensor(1);
  TN_CHECK(go->dim() == x->dim(), "adaptive_avg_pool2d_backward(): Expected dimensions ",
           x->dim(), " for `grad_output` but got dimensions ", go->dim());
  TN_CHECK(x->dim() == 3 || x->dim() == 4, "adaptive_avg_pool2d(): Expected 3D or 4D tensor, "
           "but got ", dims_str(x->sizes()));
  Adaptive a = adaptive_avg_params(x, Dims{go->size(go->dim() - 2), go->size(go->dim() - 1)},
                                   false);
  TN_CHECK(go->dtype() == x->dtype(), "expected dtype ", enum_name(x->dtype()),
           " for `grad_output` but got dtype ", enum_name(go->dtype()));
  c.ret(new_on(x, x->sizes(), x->dtype()));
  c.keep_rule_state(a);
}
void adaptive_avg_backward_rule3d(Call& c) {
  const Tensor &go = c.tensor(0), &x = c.tensor(1);
  empty_output_check(go, "adaptive_avg_pool3d_backward");
  int64_t gd = go->dim(), xd = x->dim();
  // upstream reads self's sizes -4.. and grad_output's -3.. (IndexError), then compares ranks
  for (const Tensor* t : {&x, &go})
    TN_CHECK_KIND((*t)->dim() >= (t == &x ? 4 : 3), Index, "Dimension out of range (expected to "
                  "be in range of [", -(*t)->dim(), ", ", (*t)->dim() - 1, "], but got ",
                  t == &x ? -4 : -3, ")");
  TN_CHECK(gd == xd, "adaptive_avg_pool3d_backward_out_cpu_template: Expected dimensions ", xd,
           " for `gradOutput_` but got dimensions ", gd);
  TN_CHECK(xd == 4 || xd == 5, "adaptive_avg_pool3d_backward(): Expected 4D or 5D self, but got ",
           dims_str(x->sizes()));
  Adaptive a = adaptive_geometry(
      x, Dims{go->size(gd - 3), go->size(gd - 2), go->size(gd - 1)}, true);
  TN_CHECK(go->dtype() == x->dtype(), "expected dtype ", enum_name(x->dtype()),
           " for `grad_output` but got dtype ", enum_name(go->dtype()));
  c.ret(new_on(x, x->sizes(), x->dtype()));
  c.keep_rule_state(a);
}
void adaptive_avg_backward_cpu(Call& c) {
  const std::string& key = c.key();
  const Adaptive& a = *c.rule_state<Adaptive>();
  Tensor go = contiguous(c.tensor(0), key);
  const Tensor& gi = c.results[0].tensor;
  dispatch_dtype(gi->dtype(), key, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (kAdaptiveType<T>) {
      using A = acc_t<T>;
      const T* g = data_of<T>(go, key);
      T* d = data_of<T>(gi, key);
      const int64_t hw = a.ih * a.iw;
      for (int64_t i = 0; i < gi->numel(); ++i) d[i] = T(0);
      for (int64_t pl = 0; pl < a.planes; ++pl) {
        const T* gp = g + pl * a.out_plane();
        T* dp = d + pl * a.in_plane();
        for_each_adaptive_window(a, [&](int64_t o, int64_t z0, int64_t z1, int64_t h0,
                                        int64_t h1, int64_t w0, int64_t w1) {
          // Upstream divides in the element type, rounding after each division.
          T delta = T(static_cast<A>(gp[o]) / static_cast<A>(z1 - z0));
          delta = T(static_cast<A>(delta) / static_cast<A>(h1 - h0));
          delta = T(static_cast<A>(delta) / static_cast<A>(w1 - w0));
          for (int64_t z = z0; z < z1; ++z)
            for (int64_t y = h0; y < h1; ++y)
              for (int64_t xx = w0; xx < w1; ++xx) {
                T& dst = dp[z * hw + y * a.iw + xx];
                dst = T(static_cast<A>(dst) + static_cast<A>(delta));
              }
        });
      }
    } else {
      TN_FAIL(NotImplemented, a.is_3d ? "\"adaptive_avg_pool3d_backward_cpu\""
                                      : "\"adaptive_avg_pool2d_backward_cpu\"",
              " not implemented for '", enum_name(gi->dtype()), "'");
    }
  });
}
TN_REGISTER_STRUCTURED("aten::_adaptive_avg_pool2d_backward", adaptive_avg_backward_rule2d,
                       adaptive_avg_backward_cpu);
TN_REGISTER_STRUCTURED("aten::_adaptive_avg_pool3d_backward", adaptive_avg_backward_rule3d,
                       adaptive_avg_backward_cpu);

// adaptive_max_pool2d(Tensor self, int[2] output_size) -> (Tensor, Tensor), and the 3-d one.
template <bool kIs3d>
void adaptive_max_rule(Call& c) {
  const Tensor& x = c.tensor(0);
  const Dims& out = c.int_list(1);
  int64_t nd = x->dim();
  const char* fn = kIs3d ? "adaptive_max_pool3d" : "adaptive_max_pool2d";
  if (kIs3d)
    TN_CHECK(nd == 4 || nd == 5, fn, "(): Expected 4D or 5D tensor, but got: ",
             dims_str(x->sizes()));
  else
    TN_CHECK(nd == 3 || nd == 4, fn, "(): Expected 3D or 4D tensor, but got: ",
             dims_str(x->sizes()));
  nonempty_check(x, fn);
  TN_CHECK(out.size() == (kIs3d ? 3u : 2u), fn, "(): internal error: output_size.size() must "
           "be ", kIs3d ? 3 : 2);
  Adaptive a = adaptive_geometry(x, out, kIs3d);
  Dims s = adaptive_sizes(x, a);
  c.ret(new_on(x, s, x->dtype()));
  c.ret(new_on(x, s, ScalarType::Long));
  c.keep_rule_state(a);
}
void adaptive_max_cpu(Call& c) {
  const std::string& key = c.key();
  const Adaptive& a = *c.rule_state<Adaptive>();
  Tensor x = contiguous(c.tensor(0), key);
  dispatch_dtype(x->dtype(), key, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (kAdaptiveType<T>) {
      using A = acc_t<T>;
      const T* in = data_of<T>(x, key);
      T* out = data_of<T>(c.results[0].tensor, key);
      int64_t* ind = data_of<int64_t>(c.results[1].tensor, key);
      const int64_t hw = a.ih * a.iw;
      parallel_for(0, a.planes, pool::plane_grain(a.out_plane()), [&](int64_t p0, int64_t p1) {
        for (int64_t pl = p0; pl < p1; ++pl) {
          const T* ip = in + pl * a.in_plane();
          T* op = out + pl * a.out_plane();
          int64_t* xp = ind + pl * a.out_plane();
          for_each_adaptive_window(a, [&](int64_t o, int64_t z0, int64_t z1, int64_t h0,
                                          int64_t h1, int64_t w0, int64_t w1) {
            int64_t best = z0 * hw + h0 * a.iw + w0;
            A maxv = -std::numeric_limits<A>::infinity();
            for (int64_t z = z0; z < z1; ++z)
              for (int64_t y = h0; y < h1; ++y)
                for (int64_t xx = w0; xx < w1; ++xx) {
                  int64_t at = z * hw + y * a.iw + xx;
                  A v = static_cast<A>(ip[at]);
                  if (v > maxv || std::isnan(v)) {
                    maxv = v;
                    best = at;
                  }
                }
            op[o] = T(maxv);
            xp[o] = best;
          });
        }
      });
    } else {
      TN_FAIL(NotImplemented, a.is_3d ? "\"adaptive_max_pool3d_cpu\"" : "\"adaptive_max_pool2d\"",
              " not implemented for '", enum_name(x->dtype()), "'");
    }
  });
}
TN_REGISTER_STRUCTURED("aten::adaptive_max_pool2d", adaptive_max_rule<false>, adaptive_max_cpu);
TN_REGISTER_STRUCTURED("aten::adaptive_max_pool3d", adaptive_max_rule<true>, adaptive_max_cpu);

// adaptive_max_pool2d_backward(Tensor grad_output, Tensor self, Tensor indices) -> Tensor, and
// the 3-d one: the max pools' scatter of grad_output to the input positions indices name.
template <bool kIs3d>
void adaptive_max_backward_rule(Call& c) {
  const Tensor &go = c.tensor(0), &x = c.tensor(1), &ind = c.tensor(2);
  int64_t gd = go->dim();
  if (!kIs3d)
    TN_CHECK(gd == 3 || gd == 4, "adaptive_max_pooling2d_backward(): Expected 3D or 4D "
             "grad_output, but got: ", dims_str(go->sizes()));
  const char* fn = kIs3d ? "adaptive_max_pool3d_backward" : "adaptive_max_pool2d_backward";
  empty_output_check(go, fn);
  TN_CHECK(go->dtype() == x->dtype(), "expected dtype ", cpp_type_name(x->dtype()),
           kIs3d ? " for `gradOutput` but got dtype " : " for `grad_output` but got dtype ",
           cpp_type_name(go->dtype()));
  // Ours, where upstream's kernel would read outside its tensors: self has grad_output's
  // leading dims, indices its sizes and dtype Long.
  int64_t sp = kIs3d ? 3 : 2;
  bool same_planes = x->dim() == gd && gd > sp &&
                     Dims(x->sizes().begin(), x->sizes().end() - sp) ==
                         Dims(go->sizes().begin(), go->sizes().end() - sp);
  TN_CHECK(same_planes && ind->sizes() == go->sizes(), fn, ": expected self with grad_output's "
           "leading dims and indices of its sizes, but got grad_output ", dims_str(go->sizes()),
           ", self ", dims_str(x->sizes()), " and indices ", dims_str(ind->sizes()));
  TN_CHECK(ind->dtype() == ScalarType::Long, fn, ": expected indices of dtype Long, but got ",
           enum_name(ind->dtype()));
  Dims out(go->sizes().end() - sp, go->sizes().end());
  Adaptive a = adaptive_geometry(x, out, kIs3d);
  c.ret(new_on(x, x->sizes(), x->dtype()));
  c.keep_rule_state(a);
}
void adaptive_max_backward_cpu(Call& c) {
  const Adaptive& a = *c.rule_state<Adaptive>();
  const Tensor& gi = c.results[0].tensor;
  dispatch_dtype(gi->dtype(), c.key(), [&](auto zero) {
    using T = decltype(zero);
    TN_CHECK_KIND(kAdaptiveType<T>, NotImplemented,
                  a.is_3d ? "\"adaptive_max_pool3d_backward_cpu\""
                          : "\"adaptive_max_pool2d_backward\"",
                  " not implemented for '", enum_name(gi->dtype()), "'");
  });
  pool::scatter_max_grad(c.tensor(0), c.tensor(2), gi, a.planes, a.in_plane(), a.out_plane(),
                         c.key(), a.is_3d ? "adaptive_max_pool3d_backward"
                                          : "adaptive_max_pool2d_backward");
}
TN_REGISTER_STRUCTURED("aten::adaptive_max_pool2d_backward", adaptive_max_backward_rule<false>,
                       adaptive_max_backward_cpu);
TN_REGISTER_STRUCTURED("aten::adaptive_max_pool3d_backward", adaptive_max_backward_rule<true>,
                       adaptive_max_backward_cpu);

// adaptive_avg_pool2d(self, output_size): a mean over the last two dims when the output is
// 1 x 1, else _adaptive_avg_pool2d (upstream's composite); adaptive_avg_pool3d the same over
// three dims.
template <bool kIs3d>
void adaptive_avg_pool(Call& c) {
  const Dims& out = c.int_list(1);
  if (kIs3d) {
    TN_CHECK(out.size() == 3, "adaptive_avg_pool3d: output_size must be 3");
    TN_CHECK(out[0] >= 0 && out[1] >= 0 && out[2] >= 0, "adaptive_avg_pool3d: elements of "
             "output_size must be greater than or equal to 0 but received {", out[0], ", ",
             out[1], ",", out[2], "}");  // upstream's message lacks the second space
  } else {
    TN_CHECK(out.size() == 2, "adaptive_avg_pool2d: output_size must be 2");
    TN_CHECK(out[0] >= 0 && out[1] >= 0, "adaptive_avg_pool2d: elements of output_size must be "
             "greater than or equal to 0 but received {", out[0], ", ", out[1], "}");
  }
  bool ones = out[0] == 1 && out[1] == 1 && (!kIs3d || out[2] == 1);
  if (ones)
    return c.ret(call_tensor("aten::mean.dim",
                             {c.arg(0), kIs3d ? ops::ints({-1, -2, -3}) : ops::ints({-1, -2}),
                              Value::of_bool(true)}));
  c.ret(call_tensor(kIs3d ? "aten::_adaptive_avg_pool3d" : "aten::_adaptive_avg_pool2d",
                    {c.arg(0), c.arg(1)}));
}
TN_REGISTER_COMPOSITE("aten::adaptive_avg_pool2d", adaptive_avg_pool<false>);
TN_REGISTER_COMPOSITE("aten::adaptive_avg_pool3d", adaptive_avg_pool<true>);

// adaptive_avg_pool1d / adaptive_max_pool1d(self, output_size): the 2-d pool of self with a
// size-1 dim before the last, to (1, output_size), that dim dropped again (upstream's
// composites).
void check_1d_pool(const Call& c, const char* fn) {
  const Tensor& self = c.tensor(0);
  TN_CHECK(self->dim() == 2 || self->dim() == 3, "Expected 2 to 3 dimensions, but got ",
           self->dim(), "-dimensional tensor for argument #1 'self' (while checking arguments "
           "for ", fn, ")");
  size_t n = c.int_list(1).size();
  TN_CHECK(n == 1, fn, "() argument 'output_size' should contain one int (got ", n, ")");
}
void adaptive_avg_pool1d(Call& c) {
  check_1d_pool(c, "adaptive_avg_pool1d");
  Tensor x = call_tensor("aten::unsqueeze", {c.arg(0), Value::of_int(-2)});
  Tensor y = call_tensor("aten::adaptive_avg_pool2d",
                         {Value::of(x), ops::ints({1, c.int_list(1)[0]})});
  c.ret(call_tensor("aten::squeeze.dim", {Value::of(y), Value::of_int(-2)}));
}
TN_REGISTER_COMPOSITE("aten::adaptive_avg_pool1d", adaptive_avg_pool1d);
void adaptive_max_pool1d(Call& c) {
  check_1d_pool(c, "adaptive_max_pool1d");
  nonempty_check(c.tensor(0), "adaptive_max_pool1d");
  Tensor x = call_tensor("aten::unsqueeze", {c.arg(0), Value::of_int(-2)});
  std::vector<Value> r = call("aten::adaptive_max_pool2d",
                              {Value::of(x), ops::ints({1, c.int_list(1)[0]})});
  for (Value& v : r) c.ret(call_tensor("aten::squeeze.dim", {v, Value::of_int(-2)}));
}
TN_REGISTER_COMPOSITE("aten::adaptive_max_pool1d", adaptive_max_pool1d);


// The pools' out= forms (here for the max, average and adaptive pools of both files): the
// functional op kOp on the first kOutAt arguments, each result written into its out= argument
// (kOuts of them) after the dtype check upstream's structured kernels make.
template <const char* kOp, size_t kOutAt, size_t kOuts>
void pool_out(Call& c) {
  std::vector<Value> args(c.args.begin(), c.args.begin() + static_cast<int64_t>(kOutAt));
  std::vector<Value> r = call(kOp, std::move(args));
  for (size_t i = 0; i < kOuts; ++i)
    ops::check_out_dtype(c.tensor(kOutAt + i), r[i].tensor->dtype());
  for (size_t i = 0; i < kOuts; ++i)
    c.ret(ops::write_out(c.tensor(kOutAt + i), r[i].tensor, c.key()));
}
constexpr char kAvg2[] = "aten::avg_pool2d", kAvg3[] = "aten::avg_pool3d";
constexpr char kMax2[] = "aten::max_pool2d_with_indices";
constexpr char kMax3[] = "aten::max_pool3d_with_indices";
constexpr char kAMax2[] = "aten::adaptive_max_pool2d", kAMax3[] = "aten::adaptive_max_pool3d";
constexpr char kAAvg2[] = "aten::_adaptive_avg_pool2d", kAAvg3[] = "aten::_adaptive_avg_pool3d";
TN_REGISTER_COMPOSITE("aten::avg_pool2d.out", (pool_out<kAvg2, 7, 1>));
TN_REGISTER_COMPOSITE("aten::avg_pool3d.out", (pool_out<kAvg3, 7, 1>));
TN_REGISTER_COMPOSITE("aten::max_pool2d_with_indices.out", (pool_out<kMax2, 6, 2>));
TN_REGISTER_COMPOSITE("aten::max_pool3d_with_indices.out", (pool_out<kMax3, 6, 2>));
TN_REGISTER_COMPOSITE("aten::adaptive_max_pool2d.out", (pool_out<kAMax2, 2, 2>));
TN_REGISTER_COMPOSITE("aten::adaptive_max_pool3d.out", (pool_out<kAMax3, 2, 2>));
// adaptive_avg_pool2d/3d.out: upstream's kernel pools directly (no mean for a 1 x 1 output).
TN_REGISTER_COMPOSITE("aten::adaptive_avg_pool2d.out", (pool_out<kAAvg2, 2, 1>));
TN_REGISTER_COMPOSITE("aten::adaptive_avg_pool3d.out", (pool_out<kAAvg3, 2, 1>));

}  // namespace
}  // namespace tn
