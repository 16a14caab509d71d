// The numpy-style stacking and splitting spellings upstream composes from cat, reshape,
// unsqueeze and slice (each CompositeImplicitAutograd, so autograd and a dispatch mode see the
// pieces): atleast_1d/2d/3d, hstack, vstack (row_stack), dstack, column_stack, tensor_split,
// hsplit, vsplit, dsplit; and the view spellings ravel, fliplr, flipud, broadcast_to,
// narrow.Tensor, positive, movedim/moveaxis with lists, diagflat and sum_to_size. Messages are
// upstream's (TensorShape.cpp, ReduceOps.cpp).
#include "core/promotion.h"
#include "kernels/composite/ops.h"
#include "kernels/composite/shape_util.h"

namespace tn {
namespace {

using ops::i64;
using ops::ints;
using ops::t;

Tensor reshape(const Tensor& x, const Dims& shape) {
  return call_tensor("aten::reshape", {t(x), ints(shape)});
}
Tensor unsqueeze(const Tensor& x, int64_t d) {
  return call_tensor("aten::unsqueeze", {t(x), i64(d)});
}
Tensor slice(const Tensor& x, int64_t dim, int64_t start, int64_t end) {
  return call_tensor("aten::slice.Tensor", {t(x), i64(dim), i64(start), i64(end), i64(1)});
}

// --- atleast_nd ------------------------------------------------------------------------------

Tensor atleast_1d_of(const Tensor& x) { return x->dim() == 0 ? reshape(x, {1}) : x; }
Tensor atleast_2d_of(const Tensor& x) {
  if (x->dim() == 0) return reshape(x, {1, 1});
  if (x->dim() == 1) return unsqueeze(x, 0);
  return x;
}
Tensor atleast_3d_of(const Tensor& x) {
  if (x->dim() == 0) return reshape(x, {1, 1, 1});
  if (x->dim() == 1) return unsqueeze(unsqueeze(x, 0), -1);
  if (x->dim() == 2) return unsqueeze(x, -1);
  return x;
}
using AtLeast = Tensor (*)(const Tensor&);
std::vector<Tensor> each_of(const std::vector<Tensor>& xs, AtLeast f) {
  std::vector<Tensor> out;
  out.reserve(xs.size());
  for (const Tensor& x : xs) out.push_back(f(x));
  return out;
}

// atleast_Nd(Tensor self) and atleast_Nd.Sequence(Tensor[] tensors)
template <AtLeast F>
void atleast(Call& c) { c.ret(F(c.tensor(0))); }
template <AtLeast F>
void atleast_seq(Call& c) { c.ret(Value::of_tensors(each_of(c.tensor_list(0), F))); }
TN_REGISTER_COMPOSITE("aten::atleast_1d", atleast<atleast_1d_of>);
TN_REGISTER_COMPOSITE("aten::atleast_2d", atleast<atleast_2d_of>);
TN_REGISTER_COMPOSITE("aten::atleast_3d", atleast<atleast_3d_of>);
TN_REGISTER_COMPOSITE("aten::atleast_1d.Sequence", atleast_seq<atleast_1d_of>);
TN_REGISTER_COMPOSITE("aten::atleast_2d.Sequence", atleast_seq<atleast_2d_of>);
TN_REGISTER_COMPOSITE("aten::atleast_3d.Sequence", atleast_seq<atleast_3d_of>);

// --- hstack, vstack, dstack, column_stack ------------------------------------------------------

// cat(parts, dim), or cat.out into out when the call has one (argument 1: the out= spellings
// have only the list before it).
void cat_into(Call& c, const std::vector<Tensor>& parts, int64_t dim) {
  std::vector<Value> args{Value::of_tensors(parts), i64(dim)};
  const bool out = c.args.size() > 1;
  if (out) args.push_back(c.arg(1));
  for (Value& v : call(out ? "aten::cat.out" : "aten::cat", std::move(args))) c.ret(std::move(v));
}
void check_nonempty(const std::vector<Tensor>& xs, const char* name) {
  TN_CHECK(!xs.empty(), name, " expects a non-empty TensorList");
}

// hstack(Tensor[] tensors) (and .out): 1-d pieces along dim 0, the rest along dim 1.
void hstack(Call& c) {
  check_nonempty(c.tensor_list(0), "hstack");
  std::vector<Tensor> parts = each_of(c.tensor_list(0), atleast_1d_of);
  cat_into(c, parts, parts[0]->dim() == 1 ? 0 : 1);
}
// vstack / row_stack (and .out): along dim 0 of the 2-d forms.
void vstack(Call& c) {
  check_nonempty(c.tensor_list(0), "vstack");
  cat_into(c, each_of(c.tensor_list(0), atleast_2d_of), 0);
}
// dstack (and .out): along dim 2 of the 3-d forms.
void dstack(Call& c) {
  check_nonempty(c.tensor_list(0), "dstack");
  cat_into(c, each_of(c.tensor_list(0), atleast_3d_of), 2);
}
// column_stack (and .out): 0-d and 1-d pieces become columns, then hstack.
void column_stack(Call& c) {
  const std::vector<Tensor>& xs = c.tensor_list(0);
  check_nonempty(xs, "column_stack");
  std::vector<Value> args{Value::of_tensors({})};
  for (const Tensor& x : xs)
    args[0].tensors.push_back(x->dim() <= 1 ? reshape(x, {x->numel(), 1}) : x);
  const bool out = c.args.size() > 1;
  if (out) args.push_back(c.arg(1));
  for (Value& v : call(out ? "aten::hstack.out" : "aten::hstack", std::move(args)))
    c.ret(std::move(v));
}
TN_REGISTER_COMPOSITE("aten::hstack", hstack);
TN_REGISTER_COMPOSITE("aten::hstack.out", hstack);
TN_REGISTER_COMPOSITE("aten::vstack", vstack);
TN_REGISTER_COMPOSITE("aten::vstack.out", vstack);
TN_REGISTER_COMPOSITE("aten::dstack", dstack);
TN_REGISTER_COMPOSITE("aten::dstack.out", dstack);
TN_REGISTER_COMPOSITE("aten::column_stack", column_stack);
TN_REGISTER_COMPOSITE("aten::column_stack.out", column_stack);
constexpr char kVstack[] = "aten::vstack", kVstackOut[] = "aten::vstack.out";
TN_REGISTER_COMPOSITE("aten::row_stack", ops::forward_to<kVstack>);
TN_REGISTER_COMPOSITE("aten::row_stack.out", ops::forward_to<kVstackOut>);

// --- tensor_split and the h/v/d splits --------------------------------------------------------

void check_split_input(const Tensor& self) {
  TN_CHECK(self->dim() > 0, "tensor_split expected at least a 1-dimensional tensor, but got a "
           "tensor with ", self->dim(), " dims");
}
// `sections` pieces as equal as can be, the first size % sections one longer.
std::vector<Tensor> split_sections(const Tensor& self, int64_t sections, int64_t dim) {
  check_split_input(self);
  const int64_t d = wrap_dim(dim, self->dim());
  TN_CHECK(sections > 0, "number of sections must be larger than 0, got ", sections);
  const int64_t size = self->size(d), each = size / sections, extra = size % sections;
  std::vector<Tensor> out;
  // Upstream sizes its vector first: std::length_error past the vector's limit (torch.
  // tensor_split raises it as a RuntimeError), std::bad_alloc (MemoryError) when the memory is
  // not there, before any slicing.
  TN_CHECK(static_cast<uint64_t>(sections) <= out.max_size(),
           "cannot create std::vector larger than max_size()");
  out.reserve(static_cast<size_t>(sections));
  int64_t start = 0;
  for (int64_t i = 0; i < sections; ++i) {
    const int64_t len = i < extra ? each + 1 : each;
    out.push_back(slice(self, d, start, start + len));
    start += len;
  }
  return out;
}
// Pieces between consecutive indices (slice clamps them, as numpy's array_split).
std::vector<Tensor> split_indices(const Tensor& self, const Dims& indices, int64_t dim) {
  check_split_input(self);
  const int64_t d = wrap_dim(dim, self->dim());
  std::vector<Tensor> out;
  int64_t start = 0;
  for (int64_t end : indices) {
    out.push_back(slice(self, d, start, end));
    start = end;
  }
  out.push_back(slice(self, d, start, self->size(d)));
  return out;
}

// tensor_split.sections(Tensor(a -> *) self, SymInt sections, int dim=0)
void tensor_split_sections(Call& c) {
  c.ret(Value::of_tensors(split_sections(c.tensor(0), c.to_int(1), c.to_int(2))));
}
// tensor_split.indices(Tensor(a -> *) self, SymInt[] indices, int dim=0)
void tensor_split_indices(Call& c) {
  c.ret(Value::of_tensors(split_indices(c.tensor(0), c.int_list(1), c.to_int(2))));
}
// tensor_split.tensor_indices_or_sections(Tensor(a -> *) self, Tensor tensor_indices_or_sections,
//   int dim=0): a 0-d int64 CPU tensor of sections, or a 1-d one of indices.
void tensor_split_tensor(Call& c) {
  check_split_input(c.tensor(0));
  const Tensor& s = c.tensor(1);
  TN_CHECK(s->device().type == DeviceType::CPU, "tensor_split expected "
           "tensor_indices_or_sections to be on cpu, but it's on ", s->device().str());
  TN_CHECK(s->dtype() == ScalarType::Long, "tensor_split expected tensor_indices_or_sections to "
           "have dtype of long, but got ", enum_name(s->dtype()));
  TN_CHECK(s->dim() == 0 || s->dim() == 1, "tensor_split expected tensor_indices_or_sections to be "
           "a zero-dimensional or one-dimensional tensor, but got a tensor with ", s->dim(),
           " dims");
  const Value dim = c.arg(2);
  if (s->dim() == 0) {
    Value sections = call("aten::_local_scalar_dense", {t(s)})[0];
    for (Value& v : call("aten::tensor_split.sections",
                         {c.arg(0), i64(sections.scalar.to_int()), dim}))
      c.ret(std::move(v));
    return;
  }
  Dims indices;
  for (int64_t i = 0; i < s->size(0); ++i)
    indices.push_back(call("aten::_local_scalar_dense",
                           {t(call_tensor("aten::select.int", {t(s), i64(0), i64(i)}))})[0]
                          .scalar.to_int());
  for (Value& v : call("aten::tensor_split.indices", {c.arg(0), ints(indices), dim}))
    c.ret(std::move(v));
}
TN_REGISTER_COMPOSITE("aten::tensor_split.sections", tensor_split_sections);
TN_REGISTER_COMPOSITE("aten::tensor_split.indices", tensor_split_indices);
TN_REGISTER_COMPOSITE("aten::tensor_split.tensor_indices_or_sections", tensor_split_tensor);

// hsplit / vsplit / dsplit: tensor_split along dim 1 (0 for 1-d), 0 and 2; .int needs the size
// to divide evenly.
struct SplitKind {
  const char* name;
  int64_t min_dim;
};
constexpr SplitKind kH{"hsplit", 1}, kV{"vsplit", 2}, kD{"dsplit", 3};
template <const SplitKind& K>
int64_t split_dim(const Tensor& self) {
  TN_CHECK(self->dim() >= K.min_dim, "torch.", K.name, " requires a tensor with at least ",
           K.min_dim, " dimension, but got a tensor with ",
           self->dim(), " dimensions!");
  if (K.min_dim == 1) return self->dim() == 1 ? 0 : 1;
  return K.min_dim == 2 ? 0 : 2;
}
template <const SplitKind& K>
void split_int(Call& c) {
  const Tensor& self = c.tensor(0);
  const int64_t d = split_dim<K>(self), sections = c.to_int(1);
  TN_CHECK(sections != 0 && self->size(d) % sections == 0, "torch.", K.name,
           " attempted to split along dimension ", d, ", but the size of the dimension ",
           self->size(d), " is not divisible by the split_size ", sections, "!");
  for (Value& v : call("aten::tensor_split.sections", {c.arg(0), i64(sections), i64(d)}))
    c.ret(std::move(v));
}
template <const SplitKind& K>
void split_array(Call& c) {
  const int64_t d = split_dim<K>(c.tensor(0));
  // (int[] indices become SymInts there: the most negative ones have no SymInt form)
  for (int64_t i : c.int_list(1))
    TN_CHECK(i > -(int64_t{1} << 62) - 1, "IntArrayRef contains an int that cannot be "
             "represented as a SymInt: ", i);
  for (Value& v : call("aten::tensor_split.indices", {c.arg(0), c.arg(1), i64(d)}))
    c.ret(std::move(v));
}
TN_REGISTER_COMPOSITE("aten::hsplit.int", split_int<kH>);
TN_REGISTER_COMPOSITE("aten::hsplit.array", split_array<kH>);
TN_REGISTER_COMPOSITE("aten::vsplit.int", split_int<kV>);
TN_REGISTER_COMPOSITE("aten::vsplit.array", split_array<kV>);
TN_REGISTER_COMPOSITE("aten::dsplit.int", split_int<kD>);
TN_REGISTER_COMPOSITE("aten::dsplit.array", split_array<kD>);

// --- view spellings --------------------------------------------------------------------------

// ravel(Tensor(a) self): contiguous().view(-1).
void ravel(Call& c) {
  const Tensor& x = c.tensor(0);
  Tensor dense = x->is_contiguous() ? x : ops::clone_contiguous(x);
  c.ret(ops::view(dense, {-1}));
}
TN_REGISTER_COMPOSITE("aten::ravel", ravel);

// fliplr / flipud: flip of dim 1 / dim 0.
void fliplr(Call& c) {
  TN_CHECK(c.tensor(0)->dim() >= 2, "Input must be >= 2-d.");
  c.ret(call_tensor("aten::flip", {c.arg(0), ints({1})}));
}
void flipud(Call& c) {
  TN_CHECK(c.tensor(0)->dim() >= 1, "Input must be >= 1-d.");
  c.ret(call_tensor("aten::flip", {c.arg(0), ints({0})}));
}
TN_REGISTER_COMPOSITE("aten::fliplr", fliplr);
TN_REGISTER_COMPOSITE("aten::flipud", flipud);

// broadcast_to(Tensor(a) self, SymInt[] size): expand.
void broadcast_to(Call& c) { c.ret(call_tensor("aten::expand", {c.arg(0), c.arg(1)})); }
TN_REGISTER_COMPOSITE("aten::broadcast_to", broadcast_to);

// narrow.Tensor(Tensor(a) self, int dim, Tensor start, SymInt length): start from a 0-d
// integer tensor.
void narrow_tensor(Call& c) {
  const Tensor& start = c.tensor(2);
  TN_CHECK(start->dim() == 0 && is_integral(start->dtype(), /*include_bool=*/false),
           "start must be an 0-dim integral Tensor.");
  const int64_t s = call("aten::_local_scalar_dense", {t(start)})[0].scalar.to_int();
  c.ret(call_tensor("aten::narrow", {c.arg(0), c.arg(1), i64(s), c.arg(3)}));
}
TN_REGISTER_COMPOSITE("aten::narrow.Tensor", narrow_tensor);

// positive(Tensor(a) self): self itself; bool tensors refused.
void positive(Call& c) {
  TN_CHECK(c.tensor(0)->dtype() != ScalarType::Bool,
           "The `+` operator, on a bool tensor is not supported.");
  c.ret(c.tensor(0));
}
TN_REGISTER_COMPOSITE("aten::positive", positive);

// movedim.intlist(Tensor(a) self, int[] source, int[] destination): each source dim to its
// destination, the other dims keeping their order in the free places; one permute.
void movedim_list(Call& c) {
  const Tensor& self = c.tensor(0);
  const Dims& src = c.int_list(1);
  const Dims& dst = c.int_list(2);
  const int64_t n = self->dim();
  TN_CHECK(src.size() == dst.size(), "movedim: Invalid source or destination dims: source (",
           dims_str(src), " dims) should contain the same number of dims as destination (",
           dims_str(dst), " dims)");
  Dims s(src.size()), d(dst.size());
  for (size_t i = 0; i < src.size(); ++i) {
    s[i] = wrap_dim(src[i], n);
    d[i] = wrap_dim(dst[i], n);
  }
  auto check_unique = [](const Dims& dims, const Dims& given, const char* which) {
    std::vector<bool> seen(dims.size() + 64, false);
    for (int64_t x : dims) {
      if (x >= static_cast<int64_t>(seen.size())) seen.resize(x + 1, false);
      TN_CHECK(!seen[x], "movedim: repeated dim in `", which, "` (", dims_str(given), ")");
      seen[x] = true;
    }
  };
  check_unique(s, src, "source");
  check_unique(d, dst, "destination");
  if (n == 0) return c.ret(call_tensor("aten::alias", {t(self)}));
  Dims order(n, -1);
  std::vector<bool> used_src(n, false);
  for (size_t i = 0; i < s.size(); ++i) {
    order[d[i]] = s[i];
    used_src[s[i]] = true;
  }
  int64_t next = 0;
  for (int64_t& o : order) {
    if (o != -1) continue;
    while (used_src[next]) ++next;
    o = next++;
  }
  c.ret(call_tensor("aten::permute", {t(self), ints(order)}));
}
TN_REGISTER_COMPOSITE("aten::movedim.intlist", movedim_list);
constexpr char kMovedimInt[] = "aten::movedim.int", kMovedimList[] = "aten::movedim.intlist";
TN_REGISTER_COMPOSITE("aten::moveaxis.int", ops::forward_to<kMovedimInt>);
TN_REGISTER_COMPOSITE("aten::moveaxis.intlist", ops::forward_to<kMovedimList>);

// diagflat(Tensor self, int offset=0): contiguous().view(-1).diag(offset).
void diagflat(Call& c) {
  const Tensor& x = c.tensor(0);
  Tensor flat = ops::view(x->is_contiguous() ? x : ops::clone_contiguous(x), {-1});
  c.ret(call_tensor("aten::diag", {t(flat), c.arg(1)}));
}
TN_REGISTER_COMPOSITE("aten::diagflat", diagflat);

// sum_to_size(Tensor self, SymInt[] size): the sum over the dims that size broadcasts
// (leading ones, and 1s where self is not 1), viewed as size.
void sum_to_size(Call& c) {
  const Tensor& self = c.tensor(0);
  const Dims& size = c.int_list(1);
  const Dims& have = self->sizes();
  bool expandable = size.size() <= have.size();
  for (size_t i = 0; expandable && i < size.size(); ++i) {
    const int64_t want = size[size.size() - 1 - i], got = have[have.size() - 1 - i];
    expandable = want == got || want == 1;
  }
  TN_CHECK(expandable, "size {", dims_str(size), "} is not expandable to size {",
           dims_str(have), "}.");
  if (size.empty()) return c.ret(call_tensor("aten::sum", {t(self), Value{}}));
  if (size == have) return c.ret(self);
  const int64_t lead = static_cast<int64_t>(have.size() - size.size());
  Dims reduce;
  for (int64_t i = 0; i < lead; ++i) reduce.push_back(i);
  for (size_t i = 0; i < size.size(); ++i)
    if (size[i] == 1 && have[lead + i] != 1) reduce.push_back(lead + static_cast<int64_t>(i));
  Tensor r = self;
  if (!reduce.empty())
    r = call_tensor("aten::sum.dim_IntList",
                    {t(self), ints(reduce), Value::of_bool(true), Value{}});
  if (lead > 0) r = ops::view(r, size);
  c.ret(r);
}
TN_REGISTER_COMPOSITE("aten::sum_to_size", sum_to_size);

}  // namespace
}  // namespace tn
