// _trilinear (+ .out) and bilinear as upstream's Linear.cpp composes them, in door ops:
//   _trilinear (CompositeExplicit, derivative TrilinearBackward0 at Autograd): each operand
//     unsqueezed at its expand dims, then for every index k of the unroll dim the pairwise
//     sumproduct (i1 x i2 over the sum dims i3 lacks, then x i3 over the rest) added into a
//     zero output, the summed dims squeezed away at the end.
//   sumproduct_pair: (left * right).sum(sum_dims, keepdim) as one bmm of the permuted operands
//     (a summed dim present in one operand only is summed out of it first; no sum dims: a mul).
//   bilinear (CompositeImplicit): _trilinear(x1 flat, weight, x2 flat, {1,3}, {0}, {1,2},
//     {2,3}) reshaped to the batch dims plus out_features, plus bias.
// Checks and messages are upstream's, in its order.
#include <vector>

#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

using ops::i64;
using ops::ints;
using ops::t;

// TensorImpl::size(d) as upstream's: no wrapping of a 0-dim tensor's dim.
int64_t size_at(const Tensor& x, int64_t d) {
  TN_CHECK_KIND(x->dim() > 0, Index, "Dimension specified as ", d,
                " but tensor has no dimensions");
  return x->size(wrap_dim(d, x->dim()));
}

// upstream's dim_list_to_bitset: each dim wrapped, none twice.
std::vector<bool> dim_bits(const Dims& dims, int64_t ndim) {
  TN_CHECK(ndim <= 64, "only tensors with up to 64 dims are supported");
  std::vector<bool> bits(static_cast<size_t>(ndim), false);
  for (int64_t d : dims) {
    const int64_t w = wrap_dim(d, ndim);
    TN_CHECK(!bits[w], "dim ", w, " appears multiple times in the list of dims");
    bits[w] = true;
  }
  return bits;
}

Tensor sum_keep(const Tensor& x, int64_t dim) {
  return call_tensor("aten::sum.dim_IntList", {t(x), ints({dim}), Value::of_bool(true)});
}

// upstream's sumproduct_pair with keepdim: (left * right) summed over sum_dims, kept as size 1.
// Output layout "lro, lo, summed, ro" is a view of bmm((lro, lo, sum), (lro, sum, ro)),
// permuted back to the operands' dim order.
Tensor sumproduct_pair(Tensor left, Tensor right, const Dims& sum_dims) {
  TN_CHECK(left->dim() == right->dim(), "number of dimensions must match");
  if (sum_dims.empty()) return call_tensor("aten::mul.Tensor", {t(left), t(right)});
  const int64_t dim = left->dim();
  const std::vector<bool> summed = dim_bits(sum_dims, dim);
  Dims lro, lo, ro;
  int64_t lro_size = 1, lo_size = 1, ro_size = 1, sum_size = 1;
  for (int64_t i = 0; i < dim; ++i) {
    const bool sl = left->size(i) != 1, sr = right->size(i) != 1;
    if (summed[i]) {
      if (sl && sr) {
        TN_CHECK(left->size(i) == right->size(i), "non-broadcast dimensions must match");
        sum_size *= left->size(i);
      } else if (sl) {
        left = sum_keep(left, i);
      } else if (sr) {
        right = sum_keep(right, i);
      }
    } else if (sl && sr) {
      TN_CHECK(left->size(i) == right->size(i), "non-broadcast dimensions must match");
      lro.push_back(i);
      lro_size *= left->size(i);
    } else if (sl) {
      lo.push_back(i);
      lo_size *= left->size(i);
    } else {
      ro.push_back(i);
      ro_size *= right->size(i);
    }
  }
  Dims out_size, lperm, rperm;
  for (int64_t d : lro) out_size.push_back(left->size(d));
  for (int64_t d : lo) out_size.push_back(left->size(d));
  out_size.insert(out_size.end(), sum_dims.size(), 1);
  for (int64_t d : ro) out_size.push_back(right->size(d));
  auto append = [](Dims& to, const Dims& from) { to.insert(to.end(), from.begin(), from.end()); };
  append(lperm, lro), append(lperm, lo), append(lperm, sum_dims), append(lperm, ro);
  append(rperm, lro), append(rperm, sum_dims), append(rperm, ro), append(rperm, lo);
  Dims operm(out_size.size(), -1);
  int64_t k = 0;
  const Dims* parts[] = {&lro, &lo, &sum_dims, &ro};
  for (const Dims* part : parts)
    for (int64_t d : *part) operm[static_cast<size_t>(d)] = k++;
  auto permute = [](const Tensor& x, const Dims& p) {
    return call_tensor("aten::permute", {t(x), ints(p)});
  };
  left = call_tensor("aten::reshape", {t(permute(left, lperm)), ints({lro_size, lo_size,
                                                                       sum_size})});
  right = call_tensor("aten::reshape", {t(permute(right, rperm)), ints({lro_size, sum_size,
                                                                         ro_size})});
  Tensor r = call_tensor("aten::bmm", {t(left), t(right)});
  return permute(ops::view(r, out_size), operm);
}

// _trilinear(i1, i2, i3, int[] expand1, int[] expand2, int[] expand3, int[] sumdim,
//            int unroll_dim=1)
void trilinear(Call& c) {
  Tensor i[3] = {c.tensor(0), c.tensor(1), c.tensor(2)};
  const Dims& sumdim_list = c.int_list(6);
  const int64_t unroll_dim = c.to_int(7);
  const int64_t total_dim = i[0]->dim() + static_cast<int64_t>(c.int_list(3).size());
  TN_CHECK(unroll_dim >= 0 && unroll_dim < total_dim, "unroll_dim must be in [0,",
           total_dim - 1, "]");
  std::vector<bool> expand[3];
  for (int k = 0; k < 3; ++k) expand[k] = dim_bits(c.int_list(3 + k), total_dim);
  const std::vector<bool> sumdim = dim_bits(sumdim_list, total_dim);
  Dims output_size, sum_dims_12, sum_dims_23;
  int64_t unroll_size = -1;
  for (int64_t d = 0; d < total_dim; ++d) {
    int64_t s = 0;
    for (int k = 0; k < 3; ++k) {
      if (expand[k][d]) i[k] = call_tensor("aten::unsqueeze", {t(i[k]), i64(d)});
      else s = size_at(i[k], d);
    }
    if (sumdim[d] && d != unroll_dim) (expand[2][d] ? sum_dims_12 : sum_dims_23).push_back(d);
    output_size.push_back(sumdim[d] ? 1 : s);
    if (d == unroll_dim) unroll_size = s;
  }
  int64_t slicemul[3];
  for (int k = 0; k < 3; ++k) slicemul[k] = expand[k][unroll_dim] ? 0 : 1;
  Tensor output = call_tensor("aten::zeros", {ints(output_size), Value::of_dtype(i[0]->dtype()),
                                              Value{}, Value::of_device(i[0]->device())});
  if (i[0]->numel() != 0 && i[1]->numel() != 0 && i[2]->numel() != 0) {
    for (int64_t k = 0; k < unroll_size; ++k) {
      auto slice = [&](int n) { return ops::narrow(i[n], unroll_dim, k * slicemul[n], 1); };
      Tensor buf = sumproduct_pair(slice(0), slice(1), sum_dims_12);
      buf = sumproduct_pair(buf, slice(2), sum_dims_23);
      Tensor into = sumdim[unroll_dim] ? output : ops::narrow(output, unroll_dim, k, 1);
      call("aten::add_.Tensor", {t(into), t(buf)});
    }
  }
  for (int64_t d = output->dim() - 1; d >= 0; --d)
    if (sumdim[d]) call("aten::squeeze_.dim", {t(output), i64(d)});
  c.ret(output);
}

// bilinear(input1, input2, weight, bias=None)
void bilinear(Call& c) {
  const Tensor &x1 = c.tensor(0), &x2 = c.tensor(1), &w = c.tensor(2);
  const Tensor* bias = c.optional_tensor(3);
  if (bias) {
    TN_CHECK(x1->dtype() == x2->dtype() && x1->dtype() == w->dtype() &&
                 x1->dtype() == (*bias)->dtype(),
             "All tensors must have the same dtype, got input1: ", cpp_type_name(x1->dtype()),
             ", input2: ", cpp_type_name(x2->dtype()), ", weight: ", cpp_type_name(w->dtype()),
             ", bias: ", cpp_type_name((*bias)->dtype()));
  } else {
    TN_CHECK(x1->dtype() == x2->dtype() && x1->dtype() == w->dtype(),
             "All tensors must have the same dtype, got input1: ", cpp_type_name(x1->dtype()),
             ", input2: ", cpp_type_name(x2->dtype()), ", weight: ", cpp_type_name(w->dtype()));
  }
  const int64_t n = x1->dim();
  TN_CHECK(n == x2->dim(), "bilinear(): input dimensions do not match: got ", n, " and ",
           x2->dim());
  for (int64_t d = 0; d < n - 1; ++d)
    TN_CHECK(x1->size(d) == x2->size(d), "bilinear(): input batch dimensions do not match at "
             "dim ", d, ": got ", x1->size(d), " and ", x2->size(d));
  const int64_t in1 = size_at(x1, n - 1);
  TN_CHECK(in1 == size_at(w, 1), "bilinear(): input1 size does not match weight size: got ",
           in1, " but expected ", size_at(w, 1));
  const int64_t in2 = size_at(x2, x2->dim() - 1);
  TN_CHECK(in2 == size_at(w, 2), "bilinear(): input2 size does not match weight size: got ",
           in2, " but expected ", size_at(w, 2));
  TN_CHECK(!bias || size_at(*bias, 0) == size_at(w, 0), "bilinear(): bias size does not match "
           "weight size: got ", bias ? size_at(*bias, 0) : 0, " but expected ", size_at(w, 0));
  Dims output_size(x1->sizes().begin(), x1->sizes().end() - 1);
  output_size.push_back(size_at(w, 0));
  Tensor f1 = call_tensor("aten::reshape", {t(x1), ints({-1, in1})});
  Tensor f2 = call_tensor("aten::reshape", {t(x2), ints({-1, in2})});
  Tensor out = call_tensor("aten::_trilinear", {t(f1), t(w), t(f2), ints({1, 3}), ints({0}),
                                                ints({1, 2}), ints({2, 3}), i64(1)});
  out = call_tensor("aten::reshape", {t(out), ints(output_size)});
  if (bias) out = call_tensor("aten::add.Tensor", {t(out), t(*bias)});
  c.ret(out);
}

constexpr char kTrilinear[] = "aten::_trilinear";

}  // namespace

TN_REGISTER_COMPOSITE("aten::_trilinear", trilinear);
TN_REGISTER_COMPOSITE("aten::_trilinear.out", (ops::generated_out<kTrilinear>));
TN_REGISTER_COMPOSITE("aten::bilinear", bilinear);

}  // namespace tn
