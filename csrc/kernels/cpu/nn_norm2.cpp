// Group normalisation on the CPU: native_group_norm (output, mean, rstd per (sample, group)) and
// native_group_norm_backward, float32/float64/bfloat16/float16, with upstream's checks. Moments,
// the affine and the gradient sums run in double and are rounded once to the dtype, so results
// sit within upstream's own rounding error but are not its bits (upstream's CPU kernel runs a
// vectorised float Welford; tests/autograd/test_norms.py compares against upstream's float64).
// Not here: the group_norm composite (composite/norm2.cpp) and the formula
// (autograd/derivatives/norm.cpp).
#include <cmath>
#include <vector>

#include "dispatch/kernel.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/rules/elementwise.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

// Upstream's check_group_norm_inputs.
void check_group_norm(const Tensor& x, const Tensor* w, const Tensor* b, int64_t C, int64_t g) {
  TN_CHECK(g > 0, "Expected num groups to be greater than 0, got ", g);
  TN_CHECK(C % g == 0, "Expected number of channels in input to be divisible by num_groups, but "
           "got input of shape ", dims_str(x->sizes()), " and num_groups=", g);
  TN_CHECK(!w || ((*w)->dim() == 1 && (*w)->numel() == C), "Expected weight to be a vector of "
           "size equal to the number of channels in input, but got weight of shape ",
           dims_str(w ? (*w)->sizes() : Dims{}), " and input of shape ", dims_str(x->sizes()));
  // Upstream's bias message prints weight's shape ([0] when there is none).
  TN_CHECK(!b || ((*b)->dim() == 1 && (*b)->numel() == C), "Expected bias to be a vector of "
           "size equal to the number of channels in input, but got bias of shape ",
           dims_str(w ? (*w)->sizes() : Dims{0}), " and input of shape ", dims_str(x->sizes()));
}

void check_dtype(const Tensor& x, const char* frame) {
  ScalarType t = x->dtype();
  bool ok = t == ScalarType::Float || t == ScalarType::Double || t == ScalarType::BFloat16 ||
            t == ScalarType::Half;
  TN_CHECK_KIND(ok, NotImplemented, "\"", frame, "\" not implemented for '", enum_name(t), "'");
}

// A parameter vector of C values as doubles (fill when absent).
std::vector<double> param(const Tensor* p, int64_t C, double fill, const std::string& key) {
  std::vector<double> out(static_cast<size_t>(C), fill);
  if (!p) return out;
  Tensor d = contiguous(cast_to(*p, ScalarType::Double, key), key);
  const double* pd = data_of<double>(d, key);
  for (int64_t i = 0; i < C; ++i) out[size_t(i)] = pd[i];
  return out;
}

// native_group_norm(Tensor input, Tensor? weight, Tensor? bias, SymInt N, SymInt C, SymInt HxW,
//                   int group, float eps) -> (Tensor, Tensor, Tensor)
void group_norm_rule(Call& c) {
  const Tensor& x = c.tensor(0);
  int64_t N = c.to_int(3), C = c.to_int(4), HxW = c.to_int(5), G = c.to_int(6);
  check_group_norm(x, c.optional_tensor(1), c.optional_tensor(2), C, G);
  check_dtype(x, "GroupNormKernelImpl");
  TN_CHECK(x->numel() == N * C * HxW, "Expected X.numel() == N * C * HxW to be true, but got "
           "false.  (Could this error message be improved?  If so, please report an "
           "enhancement request to PyTorch.)");
  c.ret(new_on(x, x->sizes(), x->dtype()));
  c.ret(new_on(x, {N, G}, x->dtype()));
  c.ret(new_on(x, {N, G}, x->dtype()));
}
void group_norm_cpu(Call& c) {
  const std::string& key = c.key();
  int64_t N = c.to_int(3), C = c.to_int(4), HxW = c.to_int(5), G = c.to_int(6);
  double eps = c.to_double(7);
  int64_t D = C / G, span = D * HxW;
  Tensor x = contiguous(cast_to(c.tensor(0), ScalarType::Double, key), key);
  const double* px = data_of<double>(x, key);
  std::vector<double> w = param(c.optional_tensor(1), C, 1.0, key);
  std::vector<double> b = param(c.optional_tensor(2), C, 0.0, key);
  std::vector<double> y(static_cast<size_t>(x->numel())), mean(size_t(N * G)), rstd(size_t(N * G));
  for (int64_t ng = 0; ng < N * G; ++ng) {
    const double* row = px + ng * span;
    double m = pairwise_sum<double>(0, span, [&](int64_t k) { return row[k]; });
    m = span > 0 ? m / double(span) : 0.0;
    double v = pairwise_sum<double>(0, span, [&](int64_t k) {
      double d = row[k] - m;
      return d * d;
    });
    v = span > 0 ? v / double(span) : 0.0;
    double r = 1.0 / std::sqrt(std::max(v, 0.0) + eps);
    mean[size_t(ng)] = m;
    rstd[size_t(ng)] = r;
    for (int64_t d = 0; d < D; ++d) {
      int64_t ch = (ng % G) * D + d;
      for (int64_t k = 0; k < HxW; ++k) {
        int64_t at = ng * span + d * HxW + k;
        y[size_t(at)] = (px[at] - m) * r * w[size_t(ch)] + b[size_t(ch)];
      }
    }
  }
  auto store = [&](const Tensor& out, const std::vector<double>& v) {
    Tensor src = empty_tensor(out->sizes(), ScalarType::Double, out->device());
    std::copy(v.begin(), v.end(), data_of<double>(src, key));
    copy_cast(out, src, key);
  };
  store(c.results[0].tensor, y);
  store(c.results[1].tensor, mean);
  store(c.results[2].tensor, rstd);
}
TN_REGISTER_STRUCTURED("aten::native_group_norm", group_norm_rule, group_norm_cpu);

// native_group_norm_backward(Tensor grad_out, Tensor input, Tensor mean, Tensor rstd,
//   Tensor? weight, SymInt N, SymInt C, SymInt HxW, int group, bool[3] output_mask)
//   -> (Tensor, Tensor, Tensor)
void group_norm_backward_rule(Call& c) {
  const Tensor &dy = c.tensor(0), &x = c.tensor(1);
  int64_t N = c.to_int(5), C = c.to_int(6), HxW = c.to_int(7), G = c.to_int(8);
  check_dtype(x, "GroupNormBackwardKernelImpl");
  TN_CHECK(G > 0 && C % G == 0, "Expected number of channels in input to be divisible by "
           "num_groups, but got input of shape ", dims_str(x->sizes()), " and num_groups=", G);
  TN_CHECK(dy->numel() == N * C * HxW && x->numel() == N * C * HxW,
           "native_group_norm_backward: expected grad_out and input of N * C * HxW = ",
           N * C * HxW, " elements, got ", dims_str(dy->sizes()), " and ", dims_str(x->sizes()));
  TN_CHECK(c.tensor(2)->numel() == N * G && c.tensor(3)->numel() == N * G,
           "native_group_norm_backward: expected mean and rstd of N * group = ", N * G,
           " elements");
  const std::vector<bool>& m = c.arg(9).bools;
  TN_CHECK(m.size() == 3, "native_group_norm_backward: output_mask must have 3 values");
  const Tensor* w = c.optional_tensor(4);
  ScalarType pt = w ? (*w)->dtype() : x->dtype();
  if (m[0]) c.ret(new_on(x, x->sizes(), x->dtype())); else c.ret(Value{});
  if (m[1]) c.ret(new_on(x, Dims{C}, pt)); else c.ret(Value{});
  if (m[2]) c.ret(new_on(x, Dims{C}, pt)); else c.ret(Value{});
}

// Per (n, c): ds = sum dy x, db = sum dy over the image. Per (n, g), with s = 1 / (D HxW):
// dx = rstd w dy + c2 x + c3, c2 = (sum_c db w mean - sum_c ds w) rstd^3 s,
// c3 = -c2 mean - sum_c db w rstd s; dw[c] = sum_n (ds - db mean) rstd; db[c] = sum_n db.
void group_norm_backward_cpu(Call& c) {
  const std::string& key = c.key();
  int64_t N = c.to_int(5), C = c.to_int(6), HxW = c.to_int(7), G = c.to_int(8);
  int64_t D = C / G;
  auto dbl = [&](const Tensor& t) { return contiguous(cast_to(t, ScalarType::Double, key), key); };
  Tensor dy = dbl(c.tensor(0)), x = dbl(c.tensor(1)), mt = dbl(c.tensor(2)), rt = dbl(c.tensor(3));
  const double *pdy = data_of<double>(dy, key), *px = data_of<double>(x, key);
  const double *pm = data_of<double>(mt, key), *pr = data_of<double>(rt, key);
  std::vector<double> w = param(c.optional_tensor(4), C, 1.0, key);
  std::vector<double> ds(size_t(N * C)), db(size_t(N * C));
  for (int64_t nc = 0; nc < N * C; ++nc) {
    const double *gy = pdy + nc * HxW, *gx = px + nc * HxW;
    ds[size_t(nc)] = pairwise_sum<double>(0, HxW, [&](int64_t k) { return gy[k] * gx[k]; });
    db[size_t(nc)] = pairwise_sum<double>(0, HxW, [&](int64_t k) { return gy[k]; });
  }
  auto store = [&](const Tensor& out, const std::vector<double>& v) {
    Tensor src = empty_tensor(out->sizes(), ScalarType::Double, out->device());
    std::copy(v.begin(), v.end(), data_of<double>(src, key));
    copy_cast(out, src, key);
  };
  if (c.results[0].tag == Value::Tag::Tensor) {
    std::vector<double> dx(size_t(N * C * HxW));
    double s = 1.0 / double(D * HxW);
    for (int64_t ng = 0; ng < N * G; ++ng) {
      int64_t n = ng / G, g = ng % G;
      double dsw = 0, dbw = 0, mean = pm[ng], rstd = pr[ng];
      for (int64_t d = 0; d < D; ++d) {
        int64_t ch = g * D + d;
        dsw += ds[size_t(n * C + ch)] * w[size_t(ch)];
        dbw += db[size_t(n * C + ch)] * w[size_t(ch)];
      }
      double c2 = (dbw * mean - dsw) * rstd * rstd * rstd * s;
      double c3 = -c2 * mean - dbw * rstd * s;
      for (int64_t d = 0; d < D; ++d) {
        int64_t ch = g * D + d;
        double c1 = rstd * w[size_t(ch)];
        for (int64_t k = 0; k < HxW; ++k) {
          int64_t at = (n * C + ch) * HxW + k;
          dx[size_t(at)] = c1 * pdy[at] + c2 * px[at] + c3;
        }
      }
    }
    store(c.results[0].tensor, dx);
  }
  if (c.results[1].tag == Value::Tag::Tensor) {
    std::vector<double> dw(size_t(C), 0.0);
    for (int64_t n = 0; n < N; ++n)
      for (int64_t ch = 0; ch < C; ++ch) {
        int64_t ng = n * G + ch / D;
        dw[size_t(ch)] += (ds[size_t(n * C + ch)] - db[size_t(n * C + ch)] * pm[ng]) * pr[ng];
      }
    store(c.results[1].tensor, dw);
  }
  if (c.results[2].tag == Value::Tag::Tensor) {
    std::vector<double> dbias(size_t(C), 0.0);
    for (int64_t n = 0; n < N; ++n)
      for (int64_t ch = 0; ch < C; ++ch) dbias[size_t(ch)] += db[size_t(n * C + ch)];
    store(c.results[2].tensor, dbias);
  }
}
TN_REGISTER_STRUCTURED("aten::native_group_norm_backward", group_norm_backward_rule,
                       group_norm_backward_cpu);

}  // namespace
}  // namespace tn
