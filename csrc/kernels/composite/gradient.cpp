// torch.gradient's seven overloads, composed as upstream's (ReduceOps.cpp; CompositeImplicit,
// so the gradients are their pieces'): per requested dim, second-order central differences
// inside and first- or second-order one-sided ones at the two ends, concatenated on that dim.
//   Scalar spacing h (scalarint, scalararray, array, scalarrayint, scalarrayarray):
//     center (x[2:] - x[:-2]) / h / 2; edge_order 1: (x[1] - x[0]) / h, (x[-1] - x[-2]) / h;
//     edge_order 2: (-1.5 x[0] + 2 x[1] - 0.5 x[2]) / h and (0.5 x[-3] - 2 x[-2] + 1.5 x[-1]) / h.
//   Coordinate tensors (tensorarrayint, tensorarray): the non-uniform three-point weights from
//     the coordinates' diffs dx1, dx2, in upstream's order of operations.
// Every step is a door op in upstream's order, so results are its bits.
#include <optional>

#include "kernels/composite/ops.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

using namespace ops;

constexpr int64_t kEnd = INT64_MAX;

Tensor sl(const Tensor& x, int64_t dim, int64_t start, int64_t end = kEnd) {
  return call_tensor("aten::slice.Tensor", {t(x), i64(dim), i64(start), i64(end), i64(1)});
}
Tensor bin(const char* op, const Tensor& a, const Tensor& b) {
  return call_tensor(op, {t(a), t(b)});
}
Tensor add(const Tensor& a, const Tensor& b) { return bin("aten::add.Tensor", a, b); }
Tensor sub(const Tensor& a, const Tensor& b) { return bin("aten::sub.Tensor", a, b); }
Tensor mul(const Tensor& a, const Tensor& b) { return bin("aten::mul.Tensor", a, b); }
Tensor div(const Tensor& a, const Tensor& b) { return bin("aten::div.Tensor", a, b); }
Tensor muls(const Tensor& a, Scalar s) {
  return call_tensor("aten::mul.Scalar", {t(a), Value::of_scalar(s)});
}
Tensor divs(const Tensor& a, Scalar s) {
  return call_tensor("aten::div.Scalar", {t(a), Value::of_scalar(s)});
}
Tensor neg(const Tensor& a) { return call_tensor("aten::neg", {t(a)}); }
Tensor at(const Tensor& a, int64_t i) {
  return call_tensor("aten::select.int", {t(a), i64(0), i64(i)});
}
Tensor cat3(const Tensor& a, const Tensor& b, const Tensor& c, int64_t dim) {
  return call_tensor("aten::cat", {Value::of_tensors({a, b, c}), i64(dim)});
}

// upstream's pre_check_gradient; `spacing` is the spacing list's length when it counts.
void pre_check(const Tensor& self, std::optional<int64_t> spacing, const Dims* dim,
               int64_t edge_order) {
  TN_CHECK(self->dtype() != ScalarType::Byte, "torch.gradient does not support uint8 input.");
  if (spacing && !dim)
    TN_CHECK(*spacing == self->dim(), "torch.gradient expected spacing to be unspecified, a "
             "scalar, or a list of length equal to 'self.dim() = ", self->dim(), "', since dim "
             "argument was not given, but got a list of length ", *spacing);
  if (spacing && dim)
    TN_CHECK(*spacing == int64_t(dim->size()), "torch.gradient expected spacing to be "
             "unspecified, a scalar or it's spacing and dim arguments to have the same length, "
             "but got a spacing argument of length ", *spacing, " and a dim argument of length ",
             dim->size(), ".");
  TN_CHECK(edge_order == 1 || edge_order == 2,
           "torch.gradient only supports edge_order=1 and edge_order=2.");
  Dims dims;
  if (dim) {
    reduce_mask(self->dim(), *dim);
    dims = *dim;
  } else {
    for (int64_t i = 0; i < self->dim(); ++i) dims.push_back(i);
  }
  for (int64_t d : dims) {
    TN_CHECK_KIND(self->dim() > 0, Index, "dimension specified as ", d,
                  " but tensor has no dimensions");
    TN_CHECK(self->size(wrap_dim(d, self->dim())) >= edge_order + 1,
             "torch.gradient expected each dimension size to be at least edge_order+1");
  }
}

// gradient_helper_float: one uniform spacing per dim.
std::vector<Tensor> uniform(const Tensor& x, const std::vector<Scalar>& spacing, const Dims& dim,
                            int64_t edge_order) {
  std::vector<Tensor> out;
  for (size_t i = 0; i < dim.size(); ++i) {
    const int64_t d = wrap_dim(dim[i], x->dim());
    const Scalar h = spacing[i];
    Tensor center = divs(sub(sl(x, d, 2), sl(x, d, 0, -2)), h);
    Tensor pre, app;
    if (edge_order == 1) {
      pre = divs(sub(sl(x, d, 1, 2), sl(x, d, 0, 1)), h);
      app = divs(sub(sl(x, d, -1), sl(x, d, -2, -1)), h);
    } else {
      pre = divs(sub(add(muls(sl(x, d, 0, 1), Scalar::from_double(-1.5)),
                         muls(sl(x, d, 1, 2), Scalar::from_int(2))),
                     muls(sl(x, d, 2, 3), Scalar::from_double(0.5))), h);
      app = divs(add(sub(muls(sl(x, d, -3, -2), Scalar::from_double(0.5)),
                         muls(sl(x, d, -2, -1), Scalar::from_int(2))),
                     muls(sl(x, d, -1), Scalar::from_double(1.5))), h);
    }
    out.push_back(cat3(pre, divs(center, Scalar::from_int(2)), app, d));
  }
  return out;
}

// gradient_helper: coordinates per dim.
std::vector<Tensor> coordinates(const Tensor& x, const std::vector<Tensor>& coords,
                                const Dims& dim, int64_t edge_order) {
  for (const Tensor& c : coords)
    TN_CHECK(x->device() == c->device(), "torch.gradient expected each tensor to be on the "
             "same device, but got devices ", x->device().str(), " and ", c->device().str(), "!");
  std::vector<Tensor> out;
  for (size_t i = 0; i < dim.size(); ++i) {
    const Tensor& co = coords[i];
    TN_CHECK(co->dim() == 1, "torch.gradient expected each element of spacing to have one "
             "dimension, but got an element with ", co->dim(), " dimensions!");
    const int64_t d = wrap_dim(dim[i], x->dim());
    Dims shape(static_cast<size_t>(x->dim()), 1);
    shape[static_cast<size_t>(d)] = -1;
    auto reshape = [&](const Tensor& v) {
      return call_tensor("aten::reshape", {t(v), ints(shape)});
    };
    Tensor dx = call_tensor("aten::diff", {t(co), i64(1), i64(0), Value{}, Value{}});
    Tensor dx1 = sl(dx, 0, 0, -1), dx2 = sl(dx, 0, 1);
    Tensor a = reshape(div(neg(dx2), mul(dx1, add(dx1, dx2))));
    Tensor b = reshape(div(sub(dx2, dx1), mul(dx1, dx2)));
    Tensor c = reshape(div(dx1, mul(dx2, add(dx1, dx2))));
    Tensor center = add(add(mul(a, sl(x, d, 0, -2)), mul(b, sl(x, d, 1, -1))),
                        mul(c, sl(x, d, 2)));
    Tensor pre, app;
    if (edge_order == 1) {
      pre = div(sub(sl(x, d, 1, 2), sl(x, d, 0, 1)), at(dx, 0));
      app = div(sub(sl(x, d, -1), sl(x, d, -2, -1)), at(dx, -1));
    } else {
      Tensor h0 = at(dx, 0), h1 = at(dx, 1);
      Tensor ea = div(neg(add(muls(h0, Scalar::from_double(2.0)), h1)), mul(h0, add(h0, h1)));
      Tensor eb = div(add(h0, h1), mul(h0, h1));
      Tensor ec = div(neg(h0), mul(h1, add(h0, h1)));
      pre = add(add(mul(ea, sl(x, d, 0, 1)), mul(eb, sl(x, d, 1, 2))), mul(ec, sl(x, d, 2, 3)));
      Tensor hl = at(dx, -1), hm = at(dx, -2);
      ea = div(hl, mul(hm, add(hl, hm)));
      eb = div(neg(add(hl, hm)), mul(hl, hm));
      ec = div(add(muls(hl, Scalar::from_int(2)), hm), mul(hl, add(hl, hm)));
      app = add(add(mul(ea, sl(x, d, -3, -2)), mul(eb, sl(x, d, -2, -1))), mul(ec, sl(x, d, -1)));
    }
    out.push_back(cat3(pre, center, app, d));
  }
  return out;
}

Dims all_dims(const Tensor& x, const Value& dim) {
  if (!dim.is_none()) return {dim.i};
  Dims d;
  for (int64_t i = 0; i < x->dim(); ++i) d.push_back(i);
  return d;
}
void ret_list(Call& c, std::vector<Tensor> r) { c.ret(Value::of_tensors(std::move(r))); }

// gradient.scalarint(self, *, Scalar? spacing=None, int? dim=None, int edge_order=1)
void gradient_scalarint(Call& c) {
  const Tensor& x = c.tensor(0);
  const Dims dims = all_dims(x, c.arg(2));
  const bool has_dim = !c.arg(2).is_none(), has_unit = !c.arg(1).is_none();
  std::vector<Scalar> spacing(has_dim ? 1 : size_t(x->dim()),
                              has_unit ? c.scalar(1) : Scalar::from_double(1.0));
  pre_check(x, has_unit ? std::optional<int64_t>(int64_t(spacing.size())) : std::nullopt,
            has_dim ? &dims : nullptr, c.to_int(3));
  ret_list(c, uniform(x, spacing, dims, c.to_int(3)));
}
// gradient.scalararray(self, *, Scalar spacing, int[] dim, int edge_order=1)
void gradient_scalararray(Call& c) {
  const Tensor& x = c.tensor(0);
  const Dims& dims = c.arg(2).ints;
  std::vector<Scalar> spacing(dims.size(), c.scalar(1));
  pre_check(x, int64_t(spacing.size()), &dims, c.to_int(3));
  ret_list(c, uniform(x, spacing, dims, c.to_int(3)));
}
// gradient.array(self, *, int[] dim, int edge_order=1)
void gradient_array(Call& c) {
  const Tensor& x = c.tensor(0);
  const Dims& dims = c.arg(1).ints;
  std::vector<Scalar> spacing(dims.size(), Scalar::from_double(1.0));
  pre_check(x, int64_t(spacing.size()), &dims, c.to_int(2));
  ret_list(c, uniform(x, spacing, dims, c.to_int(2)));
}
// gradient.scalarrayint(self, *, Scalar[] spacing, int? dim=None, int edge_order=1)
void gradient_scalarrayint(Call& c) {
  const Tensor& x = c.tensor(0);
  const Dims dims = all_dims(x, c.arg(2));
  const std::vector<Scalar>& spacing = c.arg(1).scalars;
  pre_check(x, int64_t(spacing.size()), c.arg(2).is_none() ? nullptr : &dims, c.to_int(3));
  ret_list(c, uniform(x, spacing, dims, c.to_int(3)));
}
// gradient.scalarrayarray(self, *, Scalar[] spacing, int[] dim, int edge_order=1)
void gradient_scalarrayarray(Call& c) {
  const Tensor& x = c.tensor(0);
  const Dims& dims = c.arg(2).ints;
  const std::vector<Scalar>& spacing = c.arg(1).scalars;
  pre_check(x, int64_t(spacing.size()), &dims, c.to_int(3));
  ret_list(c, uniform(x, spacing, dims, c.to_int(3)));
}
// gradient.tensorarrayint(self, *, Tensor[] spacing, int? dim=None, int edge_order=1)
void gradient_tensorarrayint(Call& c) {
  const Tensor& x = c.tensor(0);
  const Dims dims = all_dims(x, c.arg(2));
  const std::vector<Tensor>& coords = c.arg(1).tensors;
  pre_check(x, int64_t(coords.size()), c.arg(2).is_none() ? nullptr : &dims, c.to_int(3));
  ret_list(c, coordinates(x, coords, dims, c.to_int(3)));
}
// gradient.tensorarray(self, *, Tensor[] spacing, int[] dim, int edge_order=1)
void gradient_tensorarray(Call& c) {
  const Tensor& x = c.tensor(0);
  const Dims& dims = c.arg(2).ints;
  const std::vector<Tensor>& coords = c.arg(1).tensors;
  pre_check(x, int64_t(coords.size()), &dims, c.to_int(3));
  ret_list(c, coordinates(x, coords, dims, c.to_int(3)));
}

TN_REGISTER_COMPOSITE("aten::gradient.scalarint", gradient_scalarint);
TN_REGISTER_COMPOSITE("aten::gradient.scalararray", gradient_scalararray);
TN_REGISTER_COMPOSITE("aten::gradient.array", gradient_array);
TN_REGISTER_COMPOSITE("aten::gradient.scalarrayint", gradient_scalarrayint);
TN_REGISTER_COMPOSITE("aten::gradient.scalarrayarray", gradient_scalarrayarray);
TN_REGISTER_COMPOSITE("aten::gradient.tensorarrayint", gradient_tensorarrayint);
TN_REGISTER_COMPOSITE("aten::gradient.tensorarray", gradient_tensorarray);

}  // namespace
}  // namespace tn
