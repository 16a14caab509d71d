// CTC loss on dense CPU tensors (upstream's LossCTC.cpp): _ctc_loss (-> neg_log_likelihood,
// log_alpha) with its Meta kernel, _ctc_loss_backward, their .Tensor overloads (lengths given as
// integral tensors), the out= spellings, and the composite ctc_loss (reductions, zero_infinity,
// unbatched input). The recursions follow upstream's loops and log-sum-exp form step for step
// (same maximum, same summation order, libm's exp and log), so results agree bit for bit.
// Checks and messages follow upstream's order; where upstream reads out of bounds (target
// labels outside [0, C), a backward given inconsistent tensors) ours refuses by name instead.
#include <cmath>
#include <limits>
#include <vector>

#include "core/backend.h"
#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/cpu/parallel.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

using namespace ops;

enum Reduction : int64_t { kNone = 0, kMean = 1, kSum = 2 };
constexpr char kWhile[] = " (while checking arguments for ctc_loss_allocate_outputs)";

// The float32/float64 body of a kernel; other dtypes refused with upstream's dispatch name.
template <typename F>
auto dispatch_float_double(ScalarType t, const char* name, F&& f) {
  if (t == ScalarType::Float) return f(float{});
  if (t == ScalarType::Double) return f(double{});
  TN_FAIL(NotImplemented, "\"", name, "\" not implemented for '", enum_name(t), "'");
}

// "torch.FloatTensor": the legacy type name upstream's checkScalarType prints.
std::string type_string(const Tensor& t) {
  return std::string("torch.") + info(t->dtype()).legacy_name;
}

// Where each batch item's targets start and how far apart they lie (upstream's
// tg_batch_offsets and tg_target_stride), and the longest target.
struct CtcGeom {
  int64_t batch = 0, input_len = 0, labels = 0, max_target = 0, tg_stride = 0;
  std::vector<int64_t> tg_offsets;
  int64_t states() const { return 2 * max_target + 1; }  // log_alpha's last dim
};

// upstream's ctc_loss_allocate_outputs checks, in its order (the targets' dtype is Long when
// it is, else must be Int). The backward, which upstream does not check, asks only that the
// targets hold what the lengths read (exact_rows false).
CtcGeom ctc_checks(const Tensor& lp, const Tensor& tg, const Dims& il, const Dims& tl,
                   int64_t blank, bool exact_rows = true) {
  const ScalarType want = tg->dtype() == ScalarType::Long ? ScalarType::Long : ScalarType::Int;
  TN_CHECK(tg->dtype() == want, "Expected tensor for argument #2 'targets' to have scalar type ",
           enum_name(want), "; but got ", type_string(tg), " instead", kWhile);
  TN_CHECK(lp->dim() == 3, "Expected 3-dimensional tensor, but got ", lp->dim(),
           "-dimensional tensor for argument #1 'log_probs'", kWhile);
  TN_CHECK(tg->dim() >= 1 && tg->dim() < 3, "Expected 1 to 2 dimensions, but got ", tg->dim(),
           "-dimensional tensor for argument #2 'targets'", kWhile);
  CtcGeom g;
  g.batch = lp->size(1);
  g.labels = lp->size(2);
  g.input_len = lp->size(0);
  TN_CHECK(0 <= blank && blank < g.labels, "blank must be in label range");
  TN_CHECK(static_cast<int64_t>(il.size()) == g.batch, "input_lengths must be of size batch_size");
  TN_CHECK(static_cast<int64_t>(tl.size()) == g.batch,
           "target_lengths must be of size batch_size");
  g.tg_offsets.resize(g.batch);
  int64_t pos = 0;
  for (int64_t i = 0; i < g.batch; ++i) {
    TN_CHECK(tl[i] >= 0, "Expected target_lengths to have value at least 0, but got value ",
             tl[i], kWhile);
    g.tg_offsets[i] = tg->dim() == 1 ? pos : i * tg->stride(0);
    pos += tl[i];
    g.max_target = std::max(g.max_target, tl[i]);
  }
  // checkSize(targets, 0, n): the concatenated targets hold every target, the padded ones a
  // row per batch item, each at least as long as the longest target.
  const int64_t want0 = tg->dim() == 1 ? pos : g.batch;
  if (exact_rows)
    TN_CHECK(tg->size(0) == want0, "Expected tensor to have size ", want0,
             " at dimension 0, but got size ", tg->size(0), " for argument #2 'targets'", kWhile);
  else
    TN_CHECK(tg->size(0) >= want0, "Expected tensor to have size at least ", want0,
             " at dimension 0, but got size ", tg->size(0), " for argument #2 'targets'", kWhile);
  g.tg_stride = tg->dim() == 1 ? tg->stride(0) : tg->stride(1);
  if (tg->dim() == 2)
    TN_CHECK(tg->size(1) >= g.max_target, "Expected tensor to have size at least ", g.max_target,
             " at dimension 1, but got size ", tg->size(1), " for argument #2 'targets'", kWhile);
  for (int64_t b = 0; b < g.batch; ++b) {
    TN_CHECK(il[b] >= 0, "Expected input_lengths to have value at least 0, but got value ",
             il[b], kWhile);
    TN_CHECK(il[b] <= g.input_len, "Expected input_lengths to have value at most ", g.input_len,
             ", but got value ", il[b], kWhile);
  }
  return g;
}

// Label l'[idx] of the blank-augmented target (upstream's get_target_prime): blank at even
// positions, the target's idx/2-th label at odd ones.
template <typename I>
inline int64_t target_prime(const I* tg, int64_t offset, int64_t stride, int64_t idx,
                            int64_t blank) {
  return idx % 2 == 0 ? blank : static_cast<int64_t>(tg[offset + stride * (idx / 2)]);
}

// Upstream indexes log_probs with each label unchecked; ours refuses a label outside [0, C).
template <typename I>
void check_labels(const I* tg, const CtcGeom& g, const Dims& tl) {
  for (int64_t b = 0; b < g.batch; ++b)
    for (int64_t k = 0; k < tl[b]; ++k) {
      const int64_t l = static_cast<int64_t>(tg[g.tg_offsets[b] + g.tg_stride * k]);
      TN_CHECK(l >= 0 && l < g.labels, "ctc_loss: target label ", l, " of batch item ", b,
               " is out of range for ", g.labels, " classes (log_probs.size(2))");
    }
}

// A (T, N, C) tensor's element [t][b][c] through its strides.
template <typename T>
struct Strided3 {
  T* p;
  int64_t s0, s1, s2;
  T& at(int64_t i, int64_t j, int64_t k) const { return p[i * s0 + j * s1 + k * s2]; }
};
template <typename T>
Strided3<T> strided3(const Tensor& x, const std::string& key) {
  return {data_of<T>(x, key), x->stride(0), x->stride(1), x->stride(2)};
}

// log(exp(a - m) + exp(b - m) + exp(c - m)) + m with m the largest (0 when all are -inf):
// upstream's eq (6)/(10) sum, in its order.
template <typename T>
inline T log_sum3(T a, T b, T c, T m) {
  constexpr T neginf = -std::numeric_limits<T>::infinity();
  if (m == neginf) m = 0;
  return std::log(std::exp(a - m) + std::exp(b - m) + std::exp(c - m)) + m;
}

// The alphas of one batch item (eq (6), (7)) and its negative log likelihood (eq (8)).
// la: the item's (T, 2 * max_target + 1) slice of log_alpha, contiguous, row 0 already -inf.
template <typename T, typename I>
T ctc_alpha_one(const Strided3<const T>& lp, int64_t b, const I* tg, int64_t tg_off,
                int64_t tg_stride, int64_t input_length, int64_t target_length, int64_t blank,
                T* la, int64_t S) {
  constexpr T neginf = -std::numeric_limits<T>::infinity();
  if (input_length == 0) {
    T log_likelihood = target_length == 0 ? T(0) : neginf;
    return -log_likelihood;  // -0 for an empty target, as upstream
  }
  la[0] = lp.at(0, b, blank);
  if (target_length > 0) la[1] = lp.at(0, b, target_prime(tg, tg_off, tg_stride, 1, blank));
  for (int64_t t = 1; t < input_length; ++t) {
    const T* prev = la + (t - 1) * S;
    T* cur = la + t * S;
    for (int64_t s = 0; s < 2 * target_length + 1; ++s) {
      const int64_t l = target_prime(tg, tg_off, tg_stride, s, blank);
      T la1 = prev[s], lamax = la1, la2 = neginf, la3 = neginf;
      if (s > 0) {
        la2 = prev[s - 1];
        if (la2 > lamax) lamax = la2;
      }
      if (s > 1 && target_prime(tg, tg_off, tg_stride, s - 2, blank) != l) {
        la3 = prev[s - 2];
        if (la3 > lamax) lamax = la3;
      }
      cur[s] = log_sum3(la1, la2, la3, lamax) + lp.at(t, b, l);
    }
  }
  const T* last = la + (input_length - 1) * S;
  if (target_length == 0) return -last[0];
  T l1 = last[2 * target_length], l2 = last[2 * target_length - 1];
  T m = std::max(l1, l2);
  m = m == neginf ? T(0) : m;
  return -(std::log(std::exp(l1 - m) + std::exp(l2 - m)) + m);
}

// _ctc_loss's computation on checked arguments: nll (N) and log_alpha (N, T, 2 * S_max + 1).
// Cells upstream leaves uninitialised (t past an item's input length, s past its 2 * S + 1)
// are 0 here, so the result is deterministic; row 0 is -inf as upstream fills it.
template <typename T, typename I>
void ctc_forward_cpu(const Tensor& lp, const Tensor& tg, const Dims& il, const Dims& tl,
                     int64_t blank, const CtcGeom& g, const Tensor& nll, const Tensor& la,
                     const std::string& key) {
  const I* tp = data_of<const I>(tg, key);
  check_labels(tp, g, tl);
  const Strided3<const T> lpa = strided3<const T>(lp, key);
  T* lap = data_of<T>(la, key);
  T* np = data_of<T>(nll, key);
  const int64_t S = g.states(), per_item = g.input_len * S;
  std::fill(lap, lap + g.batch * per_item, T(0));
  for (int64_t b = 0; b < g.batch && g.input_len > 0; ++b)
    std::fill(lap + b * per_item, lap + b * per_item + S, -std::numeric_limits<T>::infinity());
  parallel_for(0, g.batch, 0, [&](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; ++b)
      np[b] = ctc_alpha_one(lpa, b, tp, g.tg_offsets[b], g.tg_stride, il[b], tl[b], blank,
                            lap + b * per_item, S);
  });
}

// _ctc_loss(log_probs, targets, int[] input_lengths, int[] target_lengths, blank=0,
//           zero_infinity=False) -> (neg_log_likelihood, log_alpha), with the lengths given.
template <bool kCpu>
void ctc_loss_lists(Call& c, const Dims& il, const Dims& tl) {
  const Tensor &lp = c.tensor(0), &tg = c.tensor(1);
  const int64_t blank = c.to_int(4);
  const std::string& key = c.key();
  dispatch_float_double(lp->dtype(), kCpu ? "ctc_loss_cpu" : "ctc_loss_meta", [&](auto zero) {
    using T = decltype(zero);
    if (kCpu) TN_CHECK(lp->numel() > 0, "log_probs tensor must not be empty");
    CtcGeom g = ctc_checks(lp, tg, il, tl, blank);
    Tensor nll = new_on(lp, {g.batch}, lp->dtype());
    Tensor la = new_on(lp, {g.batch, g.input_len, g.states()}, lp->dtype());
    if (kCpu) {
      if (tg->dtype() == ScalarType::Long)
        ctc_forward_cpu<T, int64_t>(lp, tg, il, tl, blank, g, nll, la, key);
      else
        ctc_forward_cpu<T, int32_t>(lp, tg, il, tl, blank, g, nll, la, key);
    }
    c.ret(nll);
    c.ret(la);
  });
}
template <bool kCpu>
void ctc_loss(Call& c) {
  ctc_loss_lists<kCpu>(c, c.int_list(2), c.int_list(3));
}

// A lengths tensor as upstream's .Tensor overloads read it: integral (bool refused), moved to
// the CPU as int64, its elements in row-major order whatever its shape.
Dims lengths_of(const Tensor& x, const char* name, const std::string& key) {
  TN_CHECK(is_integral(x->dtype(), false), name, " must be integral");
  Tensor cpu = call_tensor("aten::_to_copy", {t(x), Value::of_dtype(ScalarType::Long), Value{},
                                              Value::of_device(Device{})});
  Tensor flat = contiguous(cpu, key);
  const int64_t* p = data_of<const int64_t>(flat, key);
  return Dims(p, p + flat->numel());
}

// _ctc_loss.Tensor: the lengths read from tensors (upstream's ctc_loss_tensor), then _ctc_loss.
void ctc_loss_tensor(Call& c) {
  Dims il = lengths_of(c.tensor(2), "input_lengths", c.key());
  Dims tl = lengths_of(c.tensor(3), "target_lengths", c.key());
  ctc_loss_lists<true>(c, il, tl);
}

// --- backward --------------------------------------------------------------------------------

// Upstream's TensorBase::size(d) / stride(d) refusal for a dim the tensor lacks.
void check_has_dim(const Tensor& x, int64_t d) {
  TN_CHECK_KIND(x->dim() > 0, Index, "Dimension specified as ", d,
                " but tensor has no dimensions");
  wrap_dim(d, x->dim());
}
// upstream's accessor<T, N>(): the rank first, then the dtype (data_ptr's message).
void check_accessor(const Tensor& x, int64_t rank, ScalarType dtype) {
  TN_CHECK(x->dim() == rank, "TensorAccessor expected ", rank, " dims but tensor has ",
           x->dim());
  TN_CHECK(x->dtype() == dtype, "expected scalar type ", enum_name(dtype), " but found ",
           enum_name(x->dtype()));
}

// What the backward reads, checked: upstream assumes the forward's checks held and reads out
// of bounds when they do not; ours runs them again and refuses a log_alpha, loss or gradient
// too small for the lengths.
CtcGeom backward_checks(const Tensor& go, const Tensor& lp, const Tensor& tg, const Dims& il,
                        const Dims& tl, const Tensor& nll, const Tensor& la, int64_t blank) {
  for (int64_t d = 0; d < 3; ++d) check_has_dim(lp, d);
  if (tg->dim() != 1) {
    check_has_dim(tg, 0);
    check_has_dim(tg, 1);
  }
  check_accessor(lp, 3, lp->dtype());
  check_accessor(la, 3, lp->dtype());
  const ScalarType want = tg->dtype() == ScalarType::Long ? ScalarType::Long : ScalarType::Int;
  TN_CHECK(tg->dtype() == want, "expected scalar type ", enum_name(want), " but found ",
           enum_name(tg->dtype()));
  check_accessor(go, 1, lp->dtype());
  if (lp->size(1) > 0) check_accessor(nll, 1, lp->dtype());
  CtcGeom g = ctc_checks(lp, tg, il, tl, blank, false);
  TN_CHECK(la->size(0) >= g.batch && la->size(1) >= g.input_len && la->size(2) >= g.states(),
           "ctc_loss_backward: log_alpha of shape ", dims_str(la->sizes()),
           " is too small for the lengths given (expected at least [", g.batch, ", ",
           g.input_len, ", ", g.states(), "])");
  TN_CHECK(g.batch == 0 || (nll->size(0) >= g.batch && go->size(0) >= g.batch),
           "ctc_loss_backward: grad and "
           "neg_log_likelihood need ", g.batch, " elements, but got ", go->size(0), " and ",
           nll->size(0));
  return g;
}

// One batch item's gradient (eq (10), (11), (16)): the betas in two rows (upstream keeps the
// full (T, S) table; each row reads only the one after it, so the values are the same), the
// log of the collected alpha * beta per label in grad's rows, then the wrap-up.
template <typename T, typename I>
void ctc_grad_one(const Strided3<const T>& lp, const Strided3<const T>& la, const Strided3<T>& gr,
                  int64_t b, const I* tg, int64_t tg_off, int64_t tg_stride, int64_t input_length,
                  int64_t target_length, int64_t blank, int64_t labels, T nll, T gout,
                  std::vector<T>& rows) {
  constexpr T neginf = -std::numeric_limits<T>::infinity();
  const int64_t S = 2 * target_length + 1;
  rows.assign(2 * S, neginf);
  T* next = rows.data();  // log_beta[t + 1]
  T* cur = rows.data() + S;  // log_beta[t]
  if (input_length > 0) {
    const int64_t t = input_length - 1;
    next[2 * target_length] = lp.at(t, b, blank);
    gr.at(t, b, blank) = la.at(b, t, 2 * target_length) + next[2 * target_length];
    if (target_length > 0) {
      const int64_t l = target_prime(tg, tg_off, tg_stride, 2 * target_length - 1, blank);
      next[2 * target_length - 1] = lp.at(t, b, l);
      gr.at(t, b, l) = la.at(b, t, 2 * target_length - 1) + next[2 * target_length - 1];
    }
  }
  for (int64_t t = input_length - 2; t >= 0; --t) {
    for (int64_t s = 2 * target_length; s >= 0; --s) {
      const int64_t l = target_prime(tg, tg_off, tg_stride, s, blank);
      T lb1 = next[s], lbmax = lb1, lb2 = neginf, lb3 = neginf;
      if (s < 2 * target_length) {
        lb2 = next[s + 1];
        if (lb2 > lbmax) lbmax = lb2;
      }
      if (s < 2 * target_length - 1 && target_prime(tg, tg_off, tg_stride, s + 2, blank) != l) {
        lb3 = next[s + 2];
        if (lb3 > lbmax) lbmax = lb3;
      }
      cur[s] = log_sum3(lb1, lb2, lb3, lbmax) + lp.at(t, b, l);
      // collected[t][l] "log+=" log_alpha[t][s] + log_beta[t][s]
      const T log_alpha_beta = la.at(b, t, s) + cur[s];
      T& lcab = gr.at(t, b, l);
      if (lcab == neginf) {
        lcab = log_alpha_beta;
      } else {
        const T m = std::max(lcab, log_alpha_beta);
        lcab = std::log(std::exp(lcab - m) + std::exp(log_alpha_beta - m)) + m;
      }
    }
    std::swap(next, cur);
  }
  for (int64_t t = 0; t < input_length; ++t)
    for (int64_t c = 0; c < labels; ++c) {
      T& res = gr.at(t, b, c);
      const T lpv = lp.at(t, b, c);
      res = (std::exp(lpv) - std::exp(res + nll - lpv)) * gout;
    }
}

template <typename T, typename I>
void ctc_backward_cpu(const Tensor& go, const Tensor& lp, const Tensor& tg, const Dims& il,
                      const Dims& tl, const Tensor& nll, const Tensor& la, int64_t blank,
                      bool zero_infinity, const CtcGeom& g, const Tensor& grad,
                      const std::string& key) {
  const I* tp = data_of<const I>(tg, key);
  check_labels(tp, g, tl);
  const Strided3<const T> lpa = strided3<const T>(lp, key), laa = strided3<const T>(la, key);
  const Strided3<T> gra = strided3<T>(grad, key);
  const T* np = data_of<const T>(nll, key);
  const T* gp = data_of<const T>(go, key);
  const int64_t ns = nll->stride(0), gs = go->stride(0);
  parallel_for(0, g.batch, 0, [&](int64_t begin, int64_t end) {
    std::vector<T> rows;
    for (int64_t b = begin; b < end; ++b) {
      const T nll_b = np[b * ns];
      const bool zeroed = zero_infinity && nll_b == std::numeric_limits<T>::infinity();
      if (!zeroed)
        ctc_grad_one(lpa, laa, gra, b, tp, g.tg_offsets[b], g.tg_stride, il[b], tl[b], blank,
                     g.labels, nll_b, gp[b * gs], rows);
      // a zeroed item's rows, and the rows past an item's input length, are 0
      for (int64_t t = zeroed ? 0 : il[b]; t < g.input_len; ++t)
        for (int64_t c = 0; c < g.labels; ++c) gra.at(t, b, c) = T(0);
    }
  });
}

// _ctc_loss_backward(grad, log_probs, targets, input_lengths, target_lengths,
//                    neg_log_likelihood, log_alpha, blank, zero_infinity=False), the lengths
// given: the gradient with respect to log_probs, contiguous (T, N, C).
void ctc_backward_lists(Call& c, const Dims& il, const Dims& tl) {
  const Tensor &go = c.tensor(0), &lp = c.tensor(1), &tg = c.tensor(2);
  const Tensor &nll = c.tensor(5), &la = c.tensor(6);
  const int64_t blank = c.to_int(7);
  const bool zero_infinity = c.to_bool(8);
  const std::string& key = c.key();
  dispatch_float_double(lp->dtype(), "ctc_loss_backward_cpu", [&](auto zero) {
    using T = decltype(zero);
    CtcGeom g = backward_checks(go, lp, tg, il, tl, nll, la, blank);
    Tensor grad = new_on(lp, lp->sizes(), lp->dtype());
    std::fill(data_of<T>(grad, key), data_of<T>(grad, key) + grad->numel(),
              -std::numeric_limits<T>::infinity());  // the log of an empty sum
    if (tg->dtype() == ScalarType::Long)
      ctc_backward_cpu<T, int64_t>(go, lp, tg, il, tl, nll, la, blank, zero_infinity, g, grad,
                                   key);
    else
      ctc_backward_cpu<T, int32_t>(go, lp, tg, il, tl, nll, la, blank, zero_infinity, g, grad,
                                   key);
    c.ret(grad);
  });
}
void ctc_loss_backward(Call& c) { ctc_backward_lists(c, c.int_list(3), c.int_list(4)); }
void ctc_loss_backward_tensor(Call& c) {
  Dims il = lengths_of(c.tensor(3), "input_lengths", c.key());
  Dims tl = lengths_of(c.tensor(4), "target_lengths", c.key());
  ctc_backward_lists(c, il, tl);
}

// --- out= spellings and the composite --------------------------------------------------------

constexpr char kCtc[] = "aten::_ctc_loss", kCtcT[] = "aten::_ctc_loss.Tensor";
constexpr char kCtcBwd[] = "aten::_ctc_loss_backward";

// The lengths ctc_loss passes on: int lists (for _ctc_loss) or the tensors themselves (for
// _ctc_loss.Tensor, upstream's road when a dispatch mode or subclass is about).
struct CtcLengths {
  Value input, target;
  bool tensors;
};

// 'mean''s divisor: the target lengths, at least 1, in the loss's dtype (at::tensor of the
// list) or as the integral tensor given (the division promotes).
Tensor clamped_target_lengths(const CtcLengths& len, const Tensor& res, const std::string& key) {
  Tensor tlt = len.target.tensor;
  if (!len.tensors) {
    const Dims& tl = len.target.ints;
    Tensor list = call_tensor("aten::empty.memory_format",
                              {ints({static_cast<int64_t>(tl.size())}),
                               Value::of_dtype(ScalarType::Long)});
    std::copy(tl.begin(), tl.end(), data_of<int64_t>(list, key));
    tlt = call_tensor("aten::_to_copy", {t(list), Value::of_dtype(res->dtype()), Value{},
                                         Value::of_device(res->device())});
  }
  return call_tensor("aten::clamp_min", {t(tlt), Value::of_scalar(Scalar::from_int(1))});
}

// upstream's ctc_loss_impl: an unbatched (T, C) input gets a batch dim of 1; the targets go to
// int64 on log_probs' device; zero_infinity replaces +inf losses by 0; 'mean' divides each
// loss by its target length (at least 1) before the batch mean, 'sum' sums, and any other
// reduction returns the losses (without the batch dim for an unbatched input).
void ctc_loss_composite(Call& c, const CtcLengths& len) {
  const Tensor& input = c.tensor(0);
  const bool batched = input->dim() == 3;
  Tensor lp = batched ? input : call_tensor("aten::unsqueeze", {t(input), i64(1)});
  Tensor tg = call_tensor("aten::to.device",
                          {c.arg(1), Value::of_device(lp->device()),
                           Value::of_dtype(ScalarType::Long), Value::of_bool(false),
                           Value::of_bool(false), Value{}});
  const bool zero_infinity = c.to_bool(6);
  Tensor res = call(len.tensors ? kCtcT : kCtc, {t(lp), t(tg), len.input, len.target, c.arg(4),
                                                 Value::of_bool(zero_infinity)})[0].tensor;
  if (zero_infinity) {  // the zero first, as upstream's compiler evaluates where's arguments
    Tensor zero = call_tensor("aten::zeros", {ints({}), Value::of_dtype(res->dtype()), Value{},
                                              Value::of_device(res->device())});
    Tensor inf = call_tensor("aten::eq.Scalar",
                             {t(res), Value::of_scalar(Scalar::from_double(INFINITY))});
    res = call_tensor("aten::where.self", {t(inf), t(zero), t(res)});
  }
  const int64_t reduction = c.to_int(5);
  if (reduction == kMean) {
    Tensor ratio = call_tensor("aten::div.Tensor",
                               {t(res), t(clamped_target_lengths(len, res, c.key()))});
    c.ret(call_tensor("aten::mean", {t(ratio)}));
  } else if (reduction == kSum) {
    c.ret(call_tensor("aten::sum", {t(res)}));
  } else {
    c.ret(batched ? res : call_tensor("aten::squeeze.dim", {t(res), i64(0)}));
  }
}
void ctc_loss_int_list(Call& c) {
  ctc_loss_composite(c, {c.arg(2), c.arg(3), false});
}
// upstream's areAnyTensorSubclassLike over the four tensors: a dispatch mode, a
// __torch_dispatch__ subclass, or a tensor whose memory holds no bytes (its kTensorSubclassLike
// holds the Meta bit: the fast path reads the lengths' data).
bool any_subclass_like(const Call& c) {
  if (c.keys & key_bit(DispatchKey::Python)) return true;
  for (size_t i = 0; i < 4; ++i)
    if (!backend(c.tensor(i)->device().type).holds_bytes) return true;
  return false;
}

// ctc_loss.Tensor: upstream's fast path reads the lengths and takes the int[] road; for
// subclass-like arguments the tensors go on to _ctc_loss.Tensor.
void ctc_loss_tensor_lengths(Call& c) {
  if (any_subclass_like(c)) {
    ctc_loss_composite(c, {c.arg(2), c.arg(3), true});
    return;
  }
  Dims il = lengths_of(c.tensor(2), "input_lengths", c.key());
  Dims tl = lengths_of(c.tensor(3), "target_lengths", c.key());
  ctc_loss_composite(c, {ints(il), ints(tl), false});
}

}  // namespace

TN_REGISTER_KERNEL("aten::_ctc_loss", DenseCPU, ctc_loss<true>);
TN_REGISTER_KERNEL("aten::_ctc_loss", Meta, ctc_loss<false>);
TN_REGISTER_KERNEL("aten::_ctc_loss.Tensor", DenseCPU, ctc_loss_tensor);
TN_REGISTER_KERNEL("aten::_ctc_loss_backward", DenseCPU, ctc_loss_backward);
TN_REGISTER_KERNEL("aten::_ctc_loss_backward.Tensor", DenseCPU, ctc_loss_backward_tensor);
TN_REGISTER_COMPOSITE("aten::_ctc_loss.out", (ops::generated_out<kCtc, 2>));
TN_REGISTER_COMPOSITE("aten::_ctc_loss.Tensor_out", (ops::generated_out<kCtcT, 2>));
TN_REGISTER_COMPOSITE("aten::_ctc_loss_backward.out", (ops::generated_out<kCtcBwd, 1>));
TN_REGISTER_COMPOSITE("aten::ctc_loss.IntList", ctc_loss_int_list);
TN_REGISTER_COMPOSITE("aten::ctc_loss.Tensor", ctc_loss_tensor_lengths);

}  // namespace tn
