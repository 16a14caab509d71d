// Recurrent networks as upstream's CPU path runs them (RNN.cpp with neither cuDNN, MIOpen nor
// oneDNN: our core reports torch.backends.mkldnn.is_available() False): lstm, gru, rnn_tanh
// and rnn_relu over padded (.input) and packed (.data) sequences, their cells, and
// _use_cudnn_rnn_flatten_weight. All CompositeImplicit: built from linear, matmul, unsafe_chunk,
// sigmoid_/tanh_, mul, add_, stack, cat, narrow and dropout in upstream's order, so autograd goes
// through those ops and both passes keep upstream's bits. Note [RNN input projection]: on the
// CPU a layer applies linear(x, w_ih, b_ih) to the whole sequence at once, then each step adds
// linear(h, w_hh, b_hh) to its slice of that; the cells (lstm_cell...) compute both per call.
#include <algorithm>

#include "core/tensor_impl.h"
#include "kernels/composite/ops.h"
#include "kernels/composite/shape_util.h"
#include "kernels/rules/elementwise.h"

namespace tn {
namespace {

using namespace ops;

enum class Mode { Lstm, Gru, Tanh, Relu };

Value opt(const Tensor& x) { return x ? Value::of(x) : Value{}; }
Tensor op(const char* key, const Tensor& a) { return call_tensor(key, {t(a)}); }
Tensor op(const char* key, const Tensor& a, const Tensor& b) {
  return call_tensor(key, {t(a), t(b)});
}
std::vector<Tensor> list_result(std::vector<Value> r) { return std::move(r[0].tensors); }
std::vector<Tensor> unsafe_chunk(const Tensor& x, int64_t n) {
  return list_result(call("aten::unsafe_chunk", {t(x), i64(n), i64(1)}));
}
std::vector<Tensor> unbind0(const Tensor& x) {
  return list_result(call("aten::unbind.int", {t(x), i64(0)}));
}
Tensor stack0(const std::vector<Tensor>& xs) {
  return call_tensor("aten::stack", {Value::of_tensors(xs), i64(0)});
}
Tensor cat(const std::vector<Tensor>& xs, int64_t dim) {
  return call_tensor("aten::cat", {Value::of_tensors(xs), i64(dim)});
}
Tensor transpose01(const Tensor& x) {
  return call_tensor("aten::transpose.int", {t(x), i64(0), i64(1)});
}
// x.size(d) with upstream's IndexError for a dim x lacks.
int64_t size_at(const Tensor& x, int64_t d) { return x->size(wrap_dim(d, x->dim())); }

// One layer-direction's weights (upstream's CellParams); biases and w_hr null when absent.
struct CellParams {
  Tensor w_ih, w_hh, b_ih, b_hh, w_hr;
  Tensor linear_ih(const Tensor& x) const {
    return call_tensor("aten::linear", {t(x), t(w_ih), opt(b_ih)});
  }
  Tensor linear_hh(const Tensor& h) const {
    return call_tensor("aten::linear", {t(h), t(w_hh), opt(b_hh)});
  }
  // LSTM's projection h @ w_hr^T, when it has one.
  Tensor matmul_hr(const Tensor& h) const {
    return w_hr ? op("aten::matmul", h, op("aten::t", w_hr)) : h;
  }
};

// The flat parameter list (w_ih, w_hh[, b_ih, b_hh][, w_hr] per layer and direction) as cells.
std::vector<CellParams> gather_params(const std::vector<Tensor>& ps, bool biases, bool proj) {
  size_t each = (biases ? 4 : 2) + (proj ? 1 : 0);
  TN_CHECK(ps.size() % each == 0, "got an incorrect number of RNN parameters");
  std::vector<CellParams> out;
  for (size_t i = 0; i < ps.size(); i += each) {
    CellParams p{ps[i], ps[i + 1], {}, {}, {}};
    if (biases) p.b_ih = ps[i + 2], p.b_hh = ps[i + 3];
    if (proj) p.w_hr = ps[i + each - 1];
    out.push_back(std::move(p));
  }
  return out;
}

// A hidden state: h, and for the LSTM its cell state c (null otherwise).
struct Hidden {
  Tensor h, c;
};
Hidden hidden_slice(const Hidden& x, int64_t start, int64_t end) {
  return {narrow(x.h, 0, start, end - start), x.c ? narrow(x.c, 0, start, end - start) : x.c};
}
Hidden hidden_concat(const std::vector<Hidden>& xs) {
  std::vector<Tensor> hs, cs;
  for (const Hidden& x : xs) hs.push_back(x.h), cs.push_back(x.c);
  Tensor h = cat(hs, 0);
  return {h, xs[0].c ? cat(cs, 0) : Tensor()};
}

// One step of the cell (upstream's LSTMCell, GRUCell, SimpleCell on the CPU). With `pre`, x is
// already linear_ih of the step's input (Note [RNN input projection]).
Hidden lstm_step(const Tensor& x, const Hidden& hid, const CellParams& p, bool pre) {
  Tensor hh = p.linear_hh(hid.h);
  Tensor gates = op("aten::add_.Tensor", hh, pre ? x : p.linear_ih(x));
  std::vector<Tensor> g = unsafe_chunk(gates, 4);
  Tensor in = op("aten::sigmoid_", g[0]), forget = op("aten::sigmoid_", g[1]);
  Tensor cell = op("aten::tanh_", g[2]), out = op("aten::sigmoid_", g[3]);
  Tensor fc = op("aten::mul.Tensor", forget, hid.c);
  Tensor cy = op("aten::add_.Tensor", fc, op("aten::mul.Tensor", in, cell));
  Tensor hy = op("aten::mul.Tensor", out, op("aten::tanh", cy));
  return {p.matmul_hr(hy), cy};
}
// self.mul_(other), as upstream's GRU cell writes it (when other needs a gradient, the
// autograd layer keeps a clone of self made before the write, as upstream's does).
Tensor mul_in_place(const Tensor& self, const Tensor& other) {
  return op("aten::mul_.Tensor", self, other);
}
Hidden gru_step(const Tensor& x, const Hidden& hid, const CellParams& p, bool pre) {
  std::vector<Tensor> ig = unsafe_chunk(pre ? x : p.linear_ih(x), 3);
  std::vector<Tensor> hg = unsafe_chunk(p.linear_hh(hid.h), 3);
  Tensor reset = op("aten::sigmoid_", op("aten::add_.Tensor", hg[0], ig[0]));
  Tensor update = op("aten::sigmoid_", op("aten::add_.Tensor", hg[1], ig[1]));
  Tensor fresh = op("aten::tanh_",
                    op("aten::add.Tensor", ig[2], mul_in_place(hg[2], reset)));
  Tensor d = mul_in_place(op("aten::sub.Tensor", hid.h, fresh), update);
  return {op("aten::add_.Tensor", d, fresh), Tensor()};
}
Hidden simple_step(Mode m, const Tensor& x, const Hidden& hid, const CellParams& p, bool pre) {
  Tensor hh = p.linear_hh(hid.h);
  Tensor pre_act = op("aten::add_.Tensor", hh, pre ? x : p.linear_ih(x));
  return {op(m == Mode::Tanh ? "aten::tanh" : "aten::relu", pre_act), Tensor()};
}
Hidden step(Mode m, const Tensor& x, const Hidden& hid, const CellParams& p, bool pre) {
  if (m == Mode::Lstm) return lstm_step(x, hid, p, pre);
  if (m == Mode::Gru) return gru_step(x, hid, p, pre);
  return simple_step(m, x, hid, p, pre);
}

// What one layer (one or both directions) gives: its output and final hidden state(s).
struct LayerOut {
  Tensor out;
  std::vector<Hidden> finals;
};

// The steps of one direction over pre-projected inputs; outputs in step order.
std::vector<Tensor> run_steps(Mode m, const std::vector<Tensor>& xs, Hidden& hid,
                              const CellParams& p) {
  std::vector<Tensor> outs;
  for (const Tensor& x : xs) {
    hid = step(m, x, hid, p, true);
    outs.push_back(hid.h);
  }
  return outs;
}
void check_steps(const std::vector<Tensor>& outs) {
  TN_CHECK(!outs.empty(), "Expected sequence length to be larger than 0 in RNN");
}

// Upstream's FullLayer / FullBidirectionalLayer over a (seq, batch, feature) input.
LayerOut full_layer(Mode m, const Tensor& x, const Hidden* hid, const CellParams* p,
                    bool bidir) {
  Hidden fw_h = hid[0];
  std::vector<Tensor> fw = run_steps(m, unbind0(p[0].linear_ih(x)), fw_h, p[0]);
  check_steps(fw);
  Tensor fw_out = stack0(fw);
  if (!bidir) return {fw_out, {fw_h}};
  std::vector<Tensor> steps = unbind0(p[1].linear_ih(x));
  std::reverse(steps.begin(), steps.end());
  Hidden rev_h = hid[1];
  std::vector<Tensor> rev = run_steps(m, steps, rev_h, p[1]);
  std::reverse(rev.begin(), rev.end());
  Tensor rev_out = stack0(rev);
  return {cat({fw_out, rev_out}, fw_out->dim() - 1), {fw_h, rev_h}};
}

// A packed batch: data rows in time-major order, batch_sizes[i] rows at step i.
struct Packed {
  Tensor data;
  const int64_t* sizes;
  int64_t steps;
  Tensor sizes_owner;  // keeps `sizes` alive
};

// Upstream's PackedLayer: sequences that have ended leave their final state behind.
LayerOut packed_forward(Mode m, const Packed& in, const Hidden& hid0, const CellParams& p) {
  Tensor xw = p.linear_ih(in.data);
  std::vector<Tensor> outs;
  std::vector<Hidden> finished;
  int64_t offset = 0, last = in.sizes[0];
  Hidden hid = hid0;
  for (int64_t i = 0; i < in.steps; ++i) {
    int64_t bs = in.sizes[i];
    Tensor x = narrow(xw, 0, offset, bs);
    offset += bs;
    int64_t dec = last - bs;
    if (dec > 0) {
      finished.push_back(hidden_slice(hid, last - dec, last));
      hid = hidden_slice(hid, 0, last - dec);
    }
    last = bs;
    hid = step(m, x, hid, p, true);
    outs.push_back(hid.h);
  }
  finished.push_back(hid);
  std::reverse(finished.begin(), finished.end());
  return {cat(outs, 0), {hidden_concat(finished)}};
}

// Upstream's ReversedPackedLayer: from the last step back, sequences joining as they begin.
LayerOut packed_reverse(Mode m, const Packed& in, const Hidden& hid0, const CellParams& p) {
  Tensor xw = p.linear_ih(in.data);
  std::vector<Tensor> outs;
  int64_t offset = in.data->size(0), last = in.sizes[in.steps - 1];
  Hidden hid = hidden_slice(hid0, 0, last);
  for (int64_t i = in.steps - 1; i >= 0; --i) {
    int64_t bs = in.sizes[i];
    if (bs > last) hid = hidden_concat({hid, hidden_slice(hid0, last, bs)});
    Tensor x = narrow(xw, 0, offset - bs, bs);
    offset -= bs;
    last = bs;
    hid = step(m, x, hid, p, true);
    outs.push_back(hid.h);
  }
  std::reverse(outs.begin(), outs.end());
  return {cat(outs, 0), {hid}};
}

LayerOut packed_layer(Mode m, const Packed& in, const Hidden* hid, const CellParams* p,
                      bool bidir) {
  LayerOut fw = packed_forward(m, in, hid[0], p[0]);
  if (!bidir) return fw;
  LayerOut rev = packed_reverse(m, in, hid[1], p[1]);
  return {cat({fw.out, rev.out}, -1), {fw.finals[0], rev.finals[0]}};
}

// Upstream's apply_layer_stack: layer after layer, dropout (training) between them; the final
// hidden states come back flat (layer-major, forward before reverse).
LayerOut layer_stack(Mode m, const Tensor& input, const Packed* packed,
                     const std::vector<Hidden>& hiddens, const std::vector<CellParams>& params,
                     int64_t num_layers, double dropout, bool train, bool bidir) {
  size_t dirs = bidir ? 2 : 1;
  TN_CHECK(!bidir || (hiddens.size() % 2 == 0 && params.size() % 2 == 0),
           "Odd number of params or hiddens given to a bidirectional RNN");
  TN_CHECK(num_layers == static_cast<int64_t>(hiddens.size() / dirs),
           "Expected more hidden states in stacked_rnn");
  TN_CHECK(num_layers == static_cast<int64_t>(params.size() / dirs),
           "Expected more weights in stacked_rnn");
  Tensor x = packed ? packed->data : input;
  std::vector<Hidden> finals;
  for (int64_t l = 0; l < num_layers; ++l) {
    const Hidden* h = &hiddens[l * dirs];
    const CellParams* p = &params[l * dirs];
    LayerOut o = packed ? packed_layer(m, {x, packed->sizes, packed->steps, {}}, h, p, bidir)
                        : full_layer(m, x, h, p, bidir);
    finals.insert(finals.end(), o.finals.begin(), o.finals.end());
    x = o.out;
    if (dropout != 0 && train && l < num_layers - 1)
      x = call_tensor("aten::dropout", {t(x), Value::of_double(dropout), Value::of_bool(true)});
  }
  return {x, finals};
}

// Upstream's check_attributes: hidden states and parameters on the input's device (a CPU
// 0-dim tensor excepted).
void check_attributes(const Tensor& input, const std::vector<Tensor>& params,
                      const std::vector<Tensor>& hiddens) {
  auto check = [&](const char* name, const Tensor& x) {
    if (!x || (x->device().type == DeviceType::CPU && x->dim() == 0)) return;
    TN_CHECK(x->device() == input->device(), "Input and ", name,
             " tensors are not at the same device, found input tensor at ",
             input->device().str(), " and ", name, " tensor at ", x->device().str());
  };
  for (const Tensor& h : hiddens) check("hidden", h);
  for (const Tensor& p : params) check("parameter", p);
}

// The step sizes of a packed sequence (upstream reads them as int64 on the CPU).
Packed packed_of(const Tensor& data, const Tensor& batch_sizes, const std::string& key) {
  TN_CHECK(batch_sizes->dtype() == ScalarType::Long, "expected scalar type Long but found ",
           c10_dtype_name(batch_sizes->dtype()));
  Tensor bs = call_tensor("aten::contiguous", {t(batch_sizes)});
  TN_CHECK(bs->numel() > 0, "a packed sequence needs at least one step (", key, ")");
  return {data, static_cast<const int64_t*>(bs->dense_cpu_data(key.c_str())), bs->numel(), bs};
}

// The schema's common tail: has_biases, num_layers, dropout, train, bidirectional.
struct Config {
  bool biases;
  int64_t layers;
  double dropout;
  bool train, bidir;
};
Config config_at(const Call& c, size_t i) {
  return {c.to_bool(i), c.to_int(i + 1), c.to_double(i + 2), c.to_bool(i + 3),
          c.to_bool(i + 4)};
}

// lstm over input or a packed batch: hx = [h_0, c_0]; a projection when their sizes differ.
void lstm_common(Call& c, const Tensor& input, const Packed* packed, size_t hx_at) {
  const std::vector<Tensor>& hx = c.tensor_list(hx_at);
  TN_CHECK(hx.size() == 2, "lstm expects two hidden states");
  bool proj = size_at(hx[0], 2) != size_at(hx[1], 2);
  const std::vector<Tensor>& flat = c.tensor_list(hx_at + 1);
  Config cfg = config_at(c, hx_at + 2);
  if (!packed) check_attributes(input, flat, hx);
  Tensor x = !packed && c.to_bool(8) ? transpose01(input) : input;
  std::vector<CellParams> params = gather_params(flat, cfg.biases, proj);
  std::vector<Tensor> hs = unbind0(hx[0]), cs = unbind0(hx[1]);
  TN_CHECK(hs.size() == cs.size(), "lstm: h_0 has ", hs.size(), " layers but c_0 has ",
           cs.size());
  std::vector<Hidden> hiddens;
  for (size_t i = 0; i < hs.size(); ++i) hiddens.push_back({hs[i], cs[i]});
  LayerOut r = layer_stack(Mode::Lstm, x, packed, hiddens, params, cfg.layers, cfg.dropout,
                           cfg.train, cfg.bidir);
  std::vector<Tensor> hy, cy;
  for (const Hidden& h : r.finals) hy.push_back(h.h), cy.push_back(h.c);
  c.ret(!packed && c.to_bool(8) ? transpose01(r.out) : r.out);
  c.ret(stack0(hy));
  c.ret(stack0(cy));
}

// lstm.input(input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
//            batch_first) -> (output, h_n, c_n)
void lstm_input(Call& c) { lstm_common(c, c.tensor(0), nullptr, 1); }
// lstm.data(data, batch_sizes, hx, params, has_biases, num_layers, dropout, train,
//           bidirectional) -> (output data, h_n, c_n)
void lstm_data(Call& c) {
  Packed in = packed_of(c.tensor(0), c.tensor(1), c.key());
  lstm_common(c, in.data, &in, 2);
}
TN_REGISTER_COMPOSITE("aten::lstm.input", lstm_input);
TN_REGISTER_COMPOSITE("aten::lstm.data", lstm_data);

// gru / rnn_tanh / rnn_relu: one hidden state per layer and direction.
void one_hidden(Call& c, Mode m, const Tensor& input, const Packed* packed, size_t hx_at) {
  const Tensor& hx = c.tensor(hx_at);
  const std::vector<Tensor>& flat = c.tensor_list(hx_at + 1);
  Config cfg = config_at(c, hx_at + 2);
  bool batch_first = !packed && c.to_bool(8);
  if (!packed) check_attributes(input, flat, {hx});
  Tensor x = batch_first ? transpose01(input) : input;
  std::vector<CellParams> params = gather_params(flat, cfg.biases, false);
  std::vector<Hidden> hiddens;
  for (Tensor& h : unbind0(hx)) hiddens.push_back({h, Tensor()});
  LayerOut r = layer_stack(m, x, packed, hiddens, params, cfg.layers, cfg.dropout, cfg.train,
                           cfg.bidir);
  std::vector<Tensor> hy;
  for (const Hidden& h : r.finals) hy.push_back(h.h);
  Tensor h_n = stack0(hy);
  // Upstream transposes its output in place here (TransposeBackward1).
  if (batch_first) call("aten::transpose_", {t(r.out), i64(0), i64(1)});
  c.ret(r.out);
  c.ret(h_n);
}
template <Mode kMode>
void one_hidden_input(Call& c) {
  one_hidden(c, kMode, c.tensor(0), nullptr, 1);
}
template <Mode kMode>
void one_hidden_data(Call& c) {
  Packed in = packed_of(c.tensor(0), c.tensor(1), c.key());
  one_hidden(c, kMode, in.data, &in, 2);
}
TN_REGISTER_COMPOSITE("aten::gru.input", one_hidden_input<Mode::Gru>);
TN_REGISTER_COMPOSITE("aten::gru.data", one_hidden_data<Mode::Gru>);
TN_REGISTER_COMPOSITE("aten::rnn_tanh.input", one_hidden_input<Mode::Tanh>);
TN_REGISTER_COMPOSITE("aten::rnn_tanh.data", one_hidden_data<Mode::Tanh>);
TN_REGISTER_COMPOSITE("aten::rnn_relu.input", one_hidden_input<Mode::Relu>);
TN_REGISTER_COMPOSITE("aten::rnn_relu.data", one_hidden_data<Mode::Relu>);

// The cells' checks (upstream's check_rnn_cell_forward_input / _hidden / _weights).
void check_cell_input(const Tensor& input, int64_t input_size) {
  TN_CHECK(size_at(input, 1) == input_size, "input has inconsistent input_size: got ",
           size_at(input, 1), " expected ", input_size);
}
void check_cell_hidden(const Tensor& input, const Tensor& hx, int64_t hidden_size, int label) {
  TN_CHECK(size_at(input, 0) == size_at(hx, 0), "Input batch size ", size_at(input, 0),
           " doesn't match hidden", label, " batch size ", size_at(hx, 0));
  TN_CHECK(size_at(hx, 1) == hidden_size, "hidden", label, " has inconsistent hidden_size: got ",
           size_at(hx, 1), ", expected ", hidden_size);
}
void check_cell_weights(const Tensor& w_ih, const Tensor& w_hh, int64_t gates,
                        int64_t hidden_size) {
  TN_CHECK(size_at(w_ih, 0) == gates * hidden_size, "weight_ih first dim must be ", gates,
           " * hidden_size = ", gates * hidden_size, ", but got ", size_at(w_ih, 0));
  TN_CHECK(size_at(w_hh, 0) == gates * hidden_size, "weight_hh first dim must be ", gates,
           " * hidden_size = ", gates * hidden_size, ", but got ", size_at(w_hh, 0));
}
CellParams cell_params(const Call& c) {
  auto opt_at = [&](size_t i) { return c.optional_tensor(i) ? *c.optional_tensor(i) : Tensor(); };
  return {c.tensor(2), c.tensor(3), opt_at(4), opt_at(5), Tensor()};
}

// lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None) -> (hy, cy)
void lstm_cell(Call& c) {
  const Tensor& input = c.tensor(0);
  const std::vector<Tensor>& hx = c.tensor_list(1);
  TN_CHECK(hx.size() == 2, "lstm_cell expects two hidden states");
  CellParams p = cell_params(c);
  int64_t hidden_size = size_at(p.w_hh, 1);
  check_cell_input(input, size_at(p.w_ih, 1));
  check_cell_weights(p.w_ih, p.w_hh, 4, hidden_size);
  check_cell_hidden(input, hx[0], hidden_size, 0);
  check_cell_hidden(input, hx[1], hidden_size, 1);
  Hidden r = lstm_step(input, {hx[0], hx[1]}, p, false);
  c.ret(r.h);
  c.ret(r.c);
}
TN_REGISTER_COMPOSITE("aten::lstm_cell", lstm_cell);

// gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None) -> hy
void gru_cell(Call& c) {
  const Tensor &input = c.tensor(0), &hx = c.tensor(1);
  CellParams p = cell_params(c);
  check_cell_input(input, size_at(p.w_ih, 1));
  check_cell_hidden(input, hx, size_at(p.w_hh, 1), 0);
  check_cell_weights(p.w_ih, p.w_hh, 3, size_at(p.w_hh, 1));
  c.ret(gru_step(input, {hx, Tensor()}, p, false).h);
}
TN_REGISTER_COMPOSITE("aten::gru_cell", gru_cell);

// rnn_tanh_cell / rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None) -> hy
template <Mode kMode>
void simple_cell(Call& c) {
  const Tensor &input = c.tensor(0), &hx = c.tensor(1);
  CellParams p = cell_params(c);
  check_cell_weights(p.w_ih, p.w_hh, 1, size_at(p.w_hh, 1));
  check_cell_input(input, size_at(p.w_ih, 1));
  check_cell_hidden(input, hx, size_at(p.w_hh, 1), 0);
  c.ret(simple_step(kMode, input, {hx, Tensor()}, p, false).h);
}
TN_REGISTER_COMPOSITE("aten::rnn_tanh_cell", simple_cell<Mode::Tanh>);
TN_REGISTER_COMPOSITE("aten::rnn_relu_cell", simple_cell<Mode::Relu>);

// _use_cudnn_rnn_flatten_weight() -> bool: False, as upstream built without cuDNN answers.
void use_cudnn_rnn_flatten_weight(Call& c) { c.ret(Value::of_bool(false)); }
TN_REGISTER_COMPOSITE("aten::_use_cudnn_rnn_flatten_weight", use_cudnn_rnn_flatten_weight);

}  // namespace
}  // namespace tn
