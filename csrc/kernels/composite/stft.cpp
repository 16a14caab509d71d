// stft (the overload without center: torch.stft pads in Python and calls it) as upstream's
// SpectralOps.cpp composes it: its checks and words, the window centred in n_fft, frames as
// an as_strided view, the window product, then _fft_r2c / _fft_c2c along the frame and the
// (batch, freq, frames) transpose. CompositeImplicit: autograd sees the pieces.
// align_to_window=True frames the signal from the window's start: the signal padded by the
// window's left margin on both sides, one frame per hop over the unpadded signal (so an odd
// margin can leave the last frame short, which as_strided refuses, as upstream's does).
#include <sstream>
#include <string>

#include "kernels/composite/ops.h"

namespace tn {
namespace {

using ops::t;

// upstream's Tensor::toString() of a CPU tensor: torch.FloatTensor and the like.
std::string type_string(const Tensor& x) {
  return std::string("torch.") + info(x->dtype()).legacy_name;
}

std::string opt_bool(const Value& v) {
  return v.is_none() ? "None" : (v.b ? "1" : "0");
}

struct StftArgs {
  const Tensor* self;
  int64_t n_fft, hop, win;
  const Tensor* window;
  bool normalized;
  Value onesided, return_complex, align;
};

// upstream's REPR(...) prefix of its stft errors.
std::string repr(const StftArgs& a) {
  std::ostringstream ss;
  const Tensor& x = *a.self;
  ss << "stft(" << type_string(x) << dims_str(x->sizes()) << ", n_fft=" << a.n_fft
     << ", hop_length=" << a.hop << ", win_length=" << a.win << ", window=";
  if (a.window) ss << type_string(*a.window) << "{" << dims_str((*a.window)->sizes()) << "}";
  else ss << "None";
  ss << ", normalized=" << (a.normalized ? 1 : 0) << ", onesided=" << opt_bool(a.onesided)
     << ", return_complex=" << opt_bool(a.return_complex)
     << ", align_to_window=" << opt_bool(a.align) << ") ";
  return ss.str();
}

// The window centred in n_fft (zeros around it), or ones there when no window is given.
Tensor padded_window(const StftArgs& a) {
  const int64_t left = (a.n_fft - a.win) / 2;
  const Tensor& x = *a.self;
  const ScalarType dt = a.window ? (*a.window)->dtype() : x->dtype();
  Tensor w = call_tensor("aten::zeros", {ops::ints({a.n_fft}), Value::of_dtype(dt), Value{},
                                         Value::of_device(x->device())});
  Tensor mid = ops::narrow(w, 0, left, a.win);
  if (a.window) ops::copy_(mid, *a.window);
  else call("aten::fill_.Scalar", {t(mid), Value::of_scalar(Scalar::from_int(1))});
  return w;
}

// stft(self, n_fft, hop_length=None, win_length=None, window=None, normalized=False,
//      onesided=None, return_complex=None, align_to_window=None)
void stft(Call& c) {
  const Tensor& self = c.tensor(0);
  StftArgs a{&self, c.to_int(1), 0, 0, c.optional_tensor(4), c.to_bool(5), c.arg(6), c.arg(7),
             c.arg(8)};
  a.hop = c.arg(2).is_none() ? a.n_fft >> 2 : c.to_int(2);
  a.win = c.arg(3).is_none() ? a.n_fft : c.to_int(3);
  const bool window_complex = a.window && is_complex((*a.window)->dtype());
  const bool ret_complex = a.return_complex.is_none()
                               ? is_complex(self->dtype()) || window_complex
                               : a.return_complex.b;
  TN_CHECK(ret_complex || !a.return_complex.is_none(),
           "stft requires the return_complex parameter be given for real inputs, and will "
           "further require that return_complex=True in a future PyTorch release.");
  const ScalarType dt = self->dtype();
  TN_CHECK(is_floating(dt) || is_complex(dt), repr(a),
           ": expected a tensor of floating point or complex values");
  TN_CHECK(self->dim() == 1 || self->dim() == 2, repr(a), ": expected a 1D or 2D tensor");
  Tensor input = self->dim() == 1 ? call_tensor("aten::unsqueeze", {t(self), ops::i64(0)}) : self;
  const bool align = !a.align.is_none() && a.align.b && a.win < a.n_fft;
  const int64_t signal_len = input->sizes()[1];
  if (align) {
    const int64_t left = (a.n_fft - a.win) / 2;
    input = call_tensor("aten::constant_pad_nd", {t(input), ops::ints({left, left}),
                                                   Value::of_scalar(Scalar::from_int(0))});
  }
  const int64_t batch = input->sizes()[0], len = input->sizes()[1];
  TN_CHECK(a.n_fft > 0 && a.n_fft <= len, repr(a), ": expected 0 < n_fft < ", len,
           ", but got n_fft=", a.n_fft);
  TN_CHECK(a.hop > 0, repr(a), ": expected hop_length > 0, but got hop_length=", a.hop);
  TN_CHECK(a.win > 0 && a.win <= a.n_fft, repr(a),
           ": expected 0 < win_length <= n_fft, but got win_length=", a.win);
  if (a.window)
    TN_CHECK((*a.window)->dim() == 1 && (*a.window)->sizes()[0] == a.win, repr(a),
             ": expected a 1D window tensor of size equal to win_length=", a.win,
             ", but got window with size ", dims_str((*a.window)->sizes()));
  Tensor window;
  if (a.win < a.n_fft) window = padded_window(a);
  else if (a.window) window = *a.window;
  // aligned frames start at the window's start: one per hop over the unpadded signal
  const int64_t n_frames = align ? 1 + (signal_len - a.win) / a.hop : 1 + (len - a.n_fft) / a.hop;
  const Dims& st = input->strides();
  input = call_tensor("aten::as_strided", {t(input), ops::ints({batch, n_frames, a.n_fft}),
                                           ops::ints({st[0], a.hop * st[1], st[1]}),
                                           Value{}});  // input's own storage offset
  if (window) input = call_tensor("aten::mul.Tensor", {t(input), t(window)});
  const bool complex_fft = is_complex(input->dtype());
  const bool onesided = a.onesided.is_none() ? !complex_fft : a.onesided.b;
  const int64_t norm = a.normalized ? 1 : 0;  // fft_norm_mode by_root_n : none
  Tensor out;
  if (complex_fft) {
    TN_CHECK(!onesided, "Cannot have onesided output if window or input is complex");
    out = call_tensor("aten::_fft_c2c", {t(input), ops::ints({2}), ops::i64(norm),
                                         Value::of_bool(true)});
  } else {
    out = call_tensor("aten::_fft_r2c", {t(input), ops::ints({2}), ops::i64(norm),
                                         Value::of_bool(onesided)});
  }
  call("aten::transpose_", {t(out), ops::i64(1), ops::i64(2)});
  if (self->dim() == 1) call("aten::squeeze_.dim", {t(out), ops::i64(0)});
  c.ret(ret_complex ? out : call_tensor("aten::view_as_real", {t(out)}));
}

}  // namespace

TN_REGISTER_COMPOSITE("aten::stft", stft);

}  // namespace tn
