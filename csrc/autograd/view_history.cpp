// In-place writes into views (see view_history.h): CopySlices and AsStridedBackward0.
#include "autograd/view_history.h"

#include <algorithm>
#include <string>

#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"

namespace tn::autograd {

// Upstream's as_strided_backward (derivatives/as_strided.cpp; declared here until
// view_history.h or a derivatives header carries it).
Tensor as_strided_backward(Tensor grad, const Dims& in_sizes, const Dims& in_strides,
                           int64_t in_offset, const Dims& size, const Dims& stride,
                           int64_t out_offset);

namespace {

struct Geometry {
  Dims sizes;
  Dims strides;
  int64_t offset = 0;
};
Geometry geometry_of(const TensorImpl& t) { return {t.sizes(), t.strides(), t.storage_offset()}; }

Tensor zeros_laid_out(const Geometry& g, ScalarType dtype, Device device) {
  Tensor z = call_tensor("aten::empty_strided",
                         {Value::of_ints(g.sizes), Value::of_ints(g.strides),
                          Value::of_dtype(dtype), Value{}, Value::of_device(device)});
  call("aten::zero_", {Value::of(z)});
  return z;
}

// The view's elements inside `whole`, a tensor laid out as the base (storage offset 0).
Tensor slice_of(const Tensor& whole, const Geometry& base, const Geometry& view) {
  return call_tensor("aten::as_strided", {Value::of(whole), Value::of_ints(view.sizes),
                                          Value::of_ints(view.strides),
                                          Value::of_int(view.offset - base.offset)});
}

// Whether no two elements of g share a place (then copying into it is a plain scatter).
bool non_overlapping(const Geometry& g) {
  std::vector<size_t> order;
  for (size_t i = 0; i < g.sizes.size(); ++i)
    if (g.sizes[i] > 1) order.push_back(i);
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return g.strides[a] < g.strides[b]; });
  int64_t reach = 0;  // the furthest element offset the smaller-stride dims reach
  for (size_t d : order) {
    if (g.strides[d] <= reach) return false;
    reach += (g.sizes[d] - 1) * g.strides[d];
  }
  return true;
}

// A view's history taken from its base's: the base's gradient at the view's elements, zeros
// elsewhere (upstream's AsStridedBackward0, which regenerated views get).
class ViewOfBase final : public Node {
 public:
  ViewOfBase(const TensorImpl& base, const TensorImpl& view)
      : base_(geometry_of(base)), view_(geometry_of(view)), dtype_(base.dtype()),
        device_(base.device()) {}
  const char* name() const override { return "AsStridedBackward0"; }
  Grads apply(Grads&& grads) override {
    if (!grads[0]) return {Tensor()};
    if (!non_overlapping(view_))
      return {as_strided_backward(grads[0], base_.sizes, base_.strides, base_.offset,
                                  view_.sizes, view_.strides, view_.offset)};
    Tensor whole = zeros_laid_out(base_, dtype_, device_);
    ops::copy_(slice_of(whole, base_, view_), grads[0]);
    return {whole};
  }

 private:
  Geometry base_, view_;
  ScalarType dtype_;
  Device device_;
};

// The base's history after an in-place op wrote into a view of it (upstream's CopySlices):
// the base's gradient, with the view's elements replaced by what the op's node makes of them;
// the op's other inputs get theirs from the op's node.
class CopySlices final : public Node {
 public:
  CopySlices(const TensorImpl& base, const TensorImpl& view, Ptr<Node> fn)
      : base_(geometry_of(base)), view_(geometry_of(view)), dtype_(base.dtype()),
        device_(base.device()), fn_(std::move(fn)) {}
  const char* name() const override { return "torch::autograd::CopySlices"; }
  const char* class_name() const override { return "CopySlices"; }
  Grads apply(Grads&& grads) override {
    if (!grads[0]) return Grads(next.size());
    Tensor result = call_tensor("aten::empty_strided",
                                {Value::of_ints(base_.sizes), Value::of_ints(base_.strides),
                                 Value::of_dtype(dtype_), Value{}, Value::of_device(device_)});
    ops::copy_(result, grads[0]);
    Tensor slice = slice_of(result, base_, view_);
    Grads in{call_tensor("aten::clone", {Value::of(slice)})};
    Grads res = fn_->apply(std::move(in));
    res.resize(std::max<size_t>(fn_->next.size(), 1));
    if (res[0]) {
      ops::copy_(slice, res[0]);
    } else {
      call("aten::zero_", {Value::of(slice)});
    }
    Grads out(next.size());
    out[0] = std::move(result);
    for (size_t i = 1; i < out.size() && i < res.size(); ++i) out[i] = std::move(res[i]);
    return out;
  }
  void release_saved() override { fn_->release_saved(); }

 private:
  Geometry base_, view_;
  ScalarType dtype_;
  Device device_;
  Ptr<Node> fn_;
};

void give_history(TensorImpl& t, Ptr<Node> node) {
  t.set_requires_grad(true);
  AutogradMeta& m = t.ensure_autograd_meta();
  m.is_leaf = false;
  m.grad_fn = std::move(node);
  m.output_nr = 0;
  m.grad_accumulator = nullptr;
}

Ptr<Node> view_of_base(TensorImpl& view, const Ptr<TensorImpl>& base) {
  auto node = make<ViewOfBase>(*base, view);
  node->next.push_back(gradient_edge(base));
  node->inputs.push_back(meta_of(view));
  return node;
}

}  // namespace

void rebase_view_history(const Tensor& view, const Ptr<Node>& fn) {
  const Ptr<TensorImpl>& base = view->view_base();
  if (!base || !is_differentiable_type(base->dtype())) return;
  auto cs = make<CopySlices>(*base, *view, fn);
  cs->next.push_back(gradient_edge(base));
  for (size_t i = 1; i < fn->next.size(); ++i) cs->next.push_back(fn->next[i]);
  cs->inputs.push_back(meta_of(*base));
  give_history(*base, cs);
  give_history(*view, view_of_base(*view, base));
  view->ensure_autograd_meta().view_version = view->version();
}

void refresh_view_history(const TensorImpl& t) {
  const Ptr<TensorImpl>& base = t.view_base();
  AutogradMeta* m = t.autograd_meta();
  if (!base || !m || m->view_version == t.version()) return;
  auto& view = const_cast<TensorImpl&>(t);
  m->view_version = t.version();
  if (!m->grad_fn || !base->requires_grad()) return;
  give_history(view, view_of_base(view, base));
}

}  // namespace tn::autograd
