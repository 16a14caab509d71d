// The *_copy twins of the view ops (permute_copy, t_copy, view_copy, split_copy...), which
// functionalization and export emit: the view, then a contiguous clone of it (of each, for the
// ones that return a list), as upstream's generated kernels; their out= spellings; and their
// derivatives, the views' formulas under upstream's "_copy" node names (TN_COPY_VARIANT; the two
// with complex outputs refuse them under autograd, as upstream's).
#include "autograd/formula.h"
#include "kernels/composite/ops.h"

namespace tn {
namespace {

using namespace ops;

template <const char* kView>
void view_copy(Call& c) {
  std::vector<Value> r = call(kView, std::vector<Value>(c.args.begin(), c.args.end()));
  if (r[0].tag == Value::Tag::TensorList) {
    std::vector<Tensor> copies;
    for (const Tensor& v : r[0].tensors) copies.push_back(clone_contiguous(v));
    return c.ret(Value::of_tensors(std::move(copies)));
  }
  c.ret(clone_contiguous(r[0].tensor));
}

// The list-returning ones' out= spellings (outs: a Tensor[] last, nothing returned), each with
// upstream's own rule: unbind_copy and split_with_sizes_copy check each out's dtype and resize
// it; split_copy copies into the outs as they are (a shape that cannot take the piece refuses
// as copy_ does).
template <const char* kCopy, const char* kWhat, bool kResize>
void list_copy_out(Call& c) {
  const std::vector<Tensor>& outs = c.args.back().tensors;
  std::vector<Value> args(c.args.begin(), c.args.end() - 1);
  std::vector<Tensor> pieces = call(kCopy, std::move(args))[0].tensors;
  TN_CHECK(outs.size() == pieces.size(), kWhat, " expected an out= argument of size ",
           pieces.size(), ", got size ", outs.size());
  for (size_t i = 0; i < outs.size(); ++i) {
    if (kResize) {
      check_out_dtype(outs[i], pieces[i]->dtype());
      write_out(outs[i], pieces[i], c.key());
    } else {
      copy_(outs[i], pieces[i]);
    }
  }
}

#define TN_VIEW_COPY(id, copy, view, ...)        \
  constexpr char k_##id[] = view;                 \
  constexpr char k_##id##_copy[] = copy;          \
  TN_REGISTER_COMPOSITE(copy, view_copy<k_##id>); \
  TN_COPY_VARIANT(copy, view, ##__VA_ARGS__)
#define TN_VIEW_COPY_OUT(id, out) TN_REGISTER_COMPOSITE(out, generated_out<k_##id##_copy>)

TN_VIEW_COPY(alias, "aten::alias_copy", "aten::alias");
TN_VIEW_COPY_OUT(alias, "aten::alias_copy.out");
TN_VIEW_COPY(as_strided, "aten::as_strided_copy", "aten::as_strided");
TN_VIEW_COPY_OUT(as_strided, "aten::as_strided_copy.out");
TN_VIEW_COPY(expand, "aten::expand_copy", "aten::expand");
TN_VIEW_COPY_OUT(expand, "aten::expand_copy.out");
TN_VIEW_COPY(permute, "aten::permute_copy", "aten::permute");
TN_VIEW_COPY_OUT(permute, "aten::permute_copy.out");
TN_VIEW_COPY(reshape_alias, "aten::_reshape_alias_copy", "aten::_reshape_alias");
TN_VIEW_COPY_OUT(reshape_alias, "aten::_reshape_alias_copy.out");
TN_VIEW_COPY(select, "aten::select_copy.int", "aten::select.int");
TN_VIEW_COPY_OUT(select, "aten::select_copy.int_out");
TN_VIEW_COPY(slice, "aten::slice_copy.Tensor", "aten::slice.Tensor");
TN_VIEW_COPY_OUT(slice, "aten::slice_copy.Tensor_out");
TN_VIEW_COPY(squeeze, "aten::squeeze_copy", "aten::squeeze");
TN_VIEW_COPY_OUT(squeeze, "aten::squeeze_copy.out");
TN_VIEW_COPY(squeeze_dim, "aten::squeeze_copy.dim", "aten::squeeze.dim");
TN_VIEW_COPY_OUT(squeeze_dim, "aten::squeeze_copy.dim_out");
TN_VIEW_COPY(squeeze_dims, "aten::squeeze_copy.dims", "aten::squeeze.dims");
TN_VIEW_COPY_OUT(squeeze_dims, "aten::squeeze_copy.dims_out");
TN_VIEW_COPY(t, "aten::t_copy", "aten::t");
TN_VIEW_COPY_OUT(t, "aten::t_copy.out");
TN_VIEW_COPY(transpose, "aten::transpose_copy.int", "aten::transpose.int");
TN_VIEW_COPY_OUT(transpose, "aten::transpose_copy.int_out");
TN_VIEW_COPY(unsqueeze, "aten::unsqueeze_copy", "aten::unsqueeze");
TN_VIEW_COPY_OUT(unsqueeze, "aten::unsqueeze_copy.out");
TN_VIEW_COPY(unfold, "aten::unfold_copy", "aten::unfold");
TN_VIEW_COPY_OUT(unfold, "aten::unfold_copy.out");
TN_VIEW_COPY(view, "aten::view_copy", "aten::view");
TN_VIEW_COPY_OUT(view, "aten::view_copy.out");
TN_VIEW_COPY(view_as_real, "aten::view_as_real_copy", "aten::view_as_real");
TN_VIEW_COPY_OUT(view_as_real, "aten::view_as_real_copy.out");
TN_VIEW_COPY(view_as_complex, "aten::view_as_complex_copy", "aten::view_as_complex", false);
TN_VIEW_COPY_OUT(view_as_complex, "aten::view_as_complex_copy.out");
TN_VIEW_COPY(conj, "aten::_conj_copy", "aten::_conj", false);
TN_VIEW_COPY_OUT(conj, "aten::_conj_copy.out");
TN_VIEW_COPY(neg_view, "aten::_neg_view_copy", "aten::_neg_view");
TN_VIEW_COPY_OUT(neg_view, "aten::_neg_view_copy.out");
TN_VIEW_COPY(unbind, "aten::unbind_copy.int", "aten::unbind.int");
TN_VIEW_COPY(split, "aten::split_copy.Tensor", "aten::split.Tensor");
TN_VIEW_COPY(split_with_sizes, "aten::split_with_sizes_copy", "aten::split_with_sizes");

// view_copy.dtype (a bit reinterpretation: no gradient, as upstream's view.dtype).
constexpr char kViewDtype[] = "aten::view.dtype", kViewDtypeCopy[] = "aten::view_copy.dtype";
TN_REGISTER_COMPOSITE("aten::view_copy.dtype", view_copy<kViewDtype>);
TN_REGISTER_COMPOSITE("aten::view_copy.dtype_out", generated_out<kViewDtypeCopy>);

constexpr char kUnbindOut[] = "unbind_copy_int_out";
constexpr char kSplitOut[] = "split_copy_Tensor_out()";
constexpr char kSplitSizesOut[] = "split_with_sizes_copy_out";
TN_REGISTER_COMPOSITE("aten::unbind_copy.int_out",
                      (list_copy_out<k_unbind_copy, kUnbindOut, true>));
TN_REGISTER_COMPOSITE("aten::split_copy.Tensor_out",
                      (list_copy_out<k_split_copy, kSplitOut, false>));
TN_REGISTER_COMPOSITE("aten::split_with_sizes_copy.out",
                      (list_copy_out<k_split_with_sizes_copy, kSplitSizesOut, true>));

}  // namespace
}  // namespace tn
