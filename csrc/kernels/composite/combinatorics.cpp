// Composites upstream writes over other ops (CompositeImplicitAutograd: their gradients are
// their pieces'), in its order of operations:
//   cartesian_prod(tensors)      meshgrid("ij"), each grid flattened, stacked on dim 1;
//   combinations(self, r, with_replacement)
//                                the r-fold "ij" meshgrid of self, each grid masked_select'ed
//                                by the mask of index tuples i < j < ... (<= with
//                                replacement), stacked on dim 1;
//   nanmean(self, dim, keepdim, dtype)
//                                nansum divided by the count of non-NaN elements;
//   qr(self, some)               linalg_qr in mode "reduced" / "complete", with upstream's
//                                deprecation warning (once).
#include <mutex>

#include "core/warning.h"
#include "kernels/composite/ops.h"

namespace tn {
namespace {

using namespace ops;

std::string shape_str(const Dims& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s + "]";
}
void check_vector(const Tensor& t) {
  TN_CHECK(t->dim() == 1, "Expect a 1D vector, but got shape ", shape_str(t->sizes()));
}
std::vector<Tensor> meshgrid_ij(std::vector<Tensor> ts) {
  return call("aten::meshgrid.indexing",
              {Value::of_tensors(std::move(ts)), Value::of_string("ij")})[0].tensors;
}
Tensor stack1(std::vector<Tensor> ts) {
  return call_tensor("aten::stack", {Value::of_tensors(std::move(ts)), i64(1)});
}

void cartesian_prod(Call& c) {
  const std::vector<Tensor>& ts = c.arg(0).tensors;
  for (const Tensor& x : ts) check_vector(x);
  if (ts.size() == 1) return c.ret(ts[0]);
  std::vector<Tensor> grids = meshgrid_ij(ts);
  for (Tensor& g : grids) g = call_tensor("aten::flatten.using_ints", {t(g), i64(0), i64(-1)});
  c.ret(stack1(std::move(grids)));
}

void combinations(Call& c) {
  const Tensor& self = c.tensor(0);
  const int64_t r = c.to_int(1);
  const bool with_replacement = c.to_bool(2);
  check_vector(self);
  TN_CHECK(r >= 0, "Expect a non-negative number, but got ", r);
  if (r == 0) return c.ret(empty({0}, self->dtype(), self->device()));
  std::vector<Tensor> grids = meshgrid_ij(std::vector<Tensor>(size_t(r), self));
  // The mask of index tuples in order, on self's device.
  Tensor range = call_tensor("aten::arange", {Value::of_scalar(Scalar::from_int(self->numel())),
                                              Value::of_dtype(ScalarType::Long), Value{},
                                              Value::of_device(self->device())});
  std::vector<Tensor> index = meshgrid_ij(std::vector<Tensor>(size_t(r), range));
  Tensor mask = call_tensor("aten::full", {ints(index[0]->sizes()),
                                           Value::of_scalar(Scalar::from_bool(true)),
                                           Value::of_dtype(ScalarType::Bool), Value{},
                                           Value::of_device(self->device())});
  const char* order = with_replacement ? "aten::le.Tensor" : "aten::lt.Tensor";
  for (int64_t i = 0; i + 1 < r; ++i)
    call("aten::mul_.Tensor", {t(mask), t(call_tensor(order, {t(index[size_t(i)]),
                                                              t(index[size_t(i) + 1])}))});
  for (Tensor& g : grids) g = call_tensor("aten::masked_select", {t(g), t(mask)});
  c.ret(stack1(std::move(grids)));
}

// nanmean(self, dim, keepdim, *, dtype) and its out=.
void check_nanmean_dtype(const Call& c) {
  const Tensor& self = c.tensor(0);
  TN_CHECK(is_floating(self->dtype()) || is_complex(self->dtype()),
           "nanmean(): expected input to have floating point or complex dtype but got ",
           enum_name(self->dtype()));
  std::optional<ScalarType> dtype = c.optional_dtype(3);
  TN_CHECK(!dtype || is_floating(*dtype) || is_complex(*dtype), "nanmean(): could not infer "
           "output dtype. Optional dtype must be either a floating point or complex dtype. Got: ",
           enum_name(*dtype));
}
Tensor non_nan_count(const Call& c) {
  Tensor kept = call_tensor("aten::logical_not_",
                            {t(call_tensor("aten::isnan", {c.arg(0)}))});
  return call_tensor("aten::sum.dim_IntList", {t(kept), c.arg(1), c.arg(2), Value{}});
}
void nanmean(Call& c) {
  check_nanmean_dtype(c);
  Tensor count = non_nan_count(c);
  Tensor sum = call_tensor("aten::nansum", {c.arg(0), c.arg(1), c.arg(2), c.arg(3)});
  c.ret(call_tensor("aten::div.Tensor", {t(sum), t(count)}));
}
void nanmean_out(Call& c) {
  check_nanmean_dtype(c);
  Tensor count = non_nan_count(c);
  Tensor out = call_tensor("aten::nansum.out", {c.arg(0), c.arg(1), c.arg(2), c.arg(3),
                                                c.arg(4)});
  c.ret(call_tensor("aten::div_.Tensor", {t(out), t(count)}));
}

// qr(self, some) and qr.Q: linalg_qr, after upstream's deprecation warning (once).
void warn_qr_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    warn("torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future "
         "PyTorch release.\nThe boolean parameter 'some' has been replaced with a string "
         "parameter 'mode'.\nQ, R = torch.qr(A, some)\nshould be replaced with\nQ, R = "
         "torch.linalg.qr(A, 'reduced' if some else 'complete')");
  });
}
Value qr_mode(const Call& c) { return Value::of_string(c.to_bool(1) ? "reduced" : "complete"); }
void qr(Call& c) {
  warn_qr_once();
  for (Value& v : call("aten::linalg_qr", {c.arg(0), qr_mode(c)})) c.ret(std::move(v));
}
void qr_out(Call& c) {
  warn_qr_once();
  for (Value& v : call("aten::linalg_qr.out", {c.arg(0), qr_mode(c), c.arg(2), c.arg(3)}))
    c.ret(std::move(v));
}

TN_REGISTER_COMPOSITE("aten::cartesian_prod", cartesian_prod);
TN_REGISTER_COMPOSITE("aten::combinations", combinations);
TN_REGISTER_COMPOSITE("aten::nanmean", nanmean);
TN_REGISTER_COMPOSITE("aten::nanmean.out", nanmean_out);
TN_REGISTER_COMPOSITE("aten::qr", qr);
TN_REGISTER_COMPOSITE("aten::qr.Q", qr_out);

}  // namespace
}  // namespace tn
