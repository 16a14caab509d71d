// einsum(equation, tensors, *, path=None), upstream's composite in door ops:
// 1. The equation is parsed (spaces ignored; labels a-z A-Z; one "..." per operand); without
//    "->" the output is the ellipsis dims, then the labels seen exactly once, A-Z before a-z.
// 2. Every label gets a position: the output's first, then the contracted labels in label
//    order. Each operand is aligned to all positions: a repeated label becomes a diagonal, a
//    missing one a size-1 dim, then one permute.
// 3. Operands are contracted pairwise, left to right (or in the order `path` gives, as
//    torch.backends.opt_einsum computes it): a contracted label no later operand has is summed
//    in that product; the product itself is one bmm over (batch, left, contracted) x (batch,
//    contracted, right), dims present in one operand only summed out first.
// 4. Contracted labels left over are summed; the output dims remain, in output order.
// A zero-sized operand gives zeros of the output's shape, as upstream's fast path does.
#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "kernels/composite/ops.h"
#include "kernels/composite/shape_util.h"

namespace tn {
namespace {

using namespace ops;

constexpr int kLabels = 52;
constexpr int kEllipsis = kLabels;

int label_of(char ch) { return ch >= 'A' && ch <= 'Z' ? ch - 'A' : ch - 'a' + 26; }
char char_of(int label) { return label < 26 ? static_cast<char>('A' + label) : static_cast<char>('a' + label - 26); }

Tensor sum_dims(const Tensor& x, const Dims& dims) {
  if (dims.empty()) return x;
  return call_tensor("aten::sum.dim_IntList", {t(x), ints(dims), Value::of_bool(true)});
}

// The sum over `contract` of a * b, both with one dim per label position (size 1 where
// absent), keeping every dim (the contracted ones as size 1).
Tensor sumproduct_pair(Tensor a, Tensor b, const std::vector<bool>& contract) {
  const int64_t n = a->dim();
  // Dims present in one operand only and contracted: summed out of it first.
  Dims a_only, b_only;
  for (int64_t d = 0; d < n; ++d) {
    if (!contract[d]) continue;
    if (a->size(d) != 1 && b->size(d) == 1) a_only.push_back(d);
    if (b->size(d) != 1 && a->size(d) == 1) b_only.push_back(d);
  }
  a = sum_dims(a, a_only);
  b = sum_dims(b, b_only);
  Dims batch, left, right, sum, rest;
  for (int64_t d = 0; d < n; ++d) {
    const bool in_a = a->size(d) != 1, in_b = b->size(d) != 1;
    if (contract[d] && in_a && in_b) sum.push_back(d);
    else if (in_a && in_b) batch.push_back(d);
    else if (in_a) left.push_back(d);
    else if (in_b) right.push_back(d);
    else rest.push_back(d);
  }
  auto prod = [](const Tensor& x, const Dims& ds) {
    int64_t p = 1;
    for (int64_t d : ds) p *= x->size(d);
    return p;
  };
  const int64_t B = prod(a, batch), M = prod(a, left), K = prod(a, sum), N = prod(b, right);
  auto order = [&](std::initializer_list<const Dims*> parts) {
    Dims perm;
    for (const Dims* p : parts) perm.insert(perm.end(), p->begin(), p->end());
    return perm;
  };
  // a as (batch, left, sum | right, rest), b as (batch, sum, right | left, rest): the dims not
  // in an operand are size 1 there and go last.
  Dims pa = order({&batch, &left, &sum, &right, &rest});
  Dims pb = order({&batch, &sum, &right, &left, &rest});
  Tensor a3 = call_tensor("aten::reshape", {t(call_tensor("aten::permute", {t(a), ints(pa)})),
                                            ints({B, M, K})});
  Tensor b3 = call_tensor("aten::reshape", {t(call_tensor("aten::permute", {t(b), ints(pb)})),
                                            ints({B, K, N})});
  Tensor r = call_tensor("aten::bmm", {t(a3), t(b3)});
  // Back to one dim per label: (batch, left, right, sum, rest) sizes, then permuted home.
  Dims po = order({&batch, &left, &right, &sum, &rest});
  Dims sizes;
  for (int64_t d : po) {
    const bool from_b = std::find(right.begin(), right.end(), d) != right.end();
    const bool kept = std::find(sum.begin(), sum.end(), d) == sum.end() &&
                      std::find(rest.begin(), rest.end(), d) == rest.end();
    sizes.push_back(kept ? (from_b ? b->size(d) : a->size(d)) : 1);
  }
  r = call_tensor("aten::reshape", {t(r), ints(sizes)});
  Dims inverse(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) inverse[static_cast<size_t>(po[i])] = i;
  return call_tensor("aten::permute", {t(r), ints(inverse)});
}

void einsum(Call& c) {
  const std::string& eq = c.arg(0).str;
  std::vector<Tensor> operands = c.tensor_list(1);
  const size_t num_ops = operands.size();
  TN_CHECK(num_ops > 0, "einsum(): must specify the equation string and at least one operand, "
           "or at least one operand and its subscripts list");
  // 1. Parse the inputs' subscripts.
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<std::vector<int>> op_labels(num_ops);
  std::vector<int> label_count(kLabels, 0);
  int64_t ell_dims = 0;
  bool ell_in_input = false;
  size_t op = 0;
  for (size_t i = 0; i < lhs.size(); ++i) {
    const char ch = lhs[i];
    if (ch == ' ') continue;
    if (ch == ',') {
      ++op;
      TN_CHECK(op < num_ops, "einsum(): fewer operands were provided than specified in the "
               "equation");
      continue;
    }
    if (ch == '.') {
      TN_CHECK(i + 2 < lhs.size() + 0 && lhs.compare(i, 3, "...") == 0,
               "einsum(): found '.' for operand ", op, " that is not part of any ellipsis");
      TN_CHECK(std::find(op_labels[op].begin(), op_labels[op].end(), kEllipsis) ==
                   op_labels[op].end(),
               "einsum(): found '...' for operand ", op,
               " for which an ellipsis was already found");
      op_labels[op].push_back(kEllipsis);
      ell_in_input = true;
      i += 2;
      continue;
    }
    TN_CHECK((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'), "einsum(): invalid subscript "
             "given at index ", i, " in the equation string, subscripts must be in [a-zA-Z]");
    op_labels[op].push_back(label_of(ch));
    ++label_count[label_of(ch)];
  }
  TN_CHECK(op == num_ops - 1, "einsum(): more operands were provided than specified in the "
           "equation");
  for (size_t k = 0; k < num_ops; ++k) {
    const auto& ls = op_labels[k];
    const bool ell = std::find(ls.begin(), ls.end(), kEllipsis) != ls.end();
    const int64_t nlabels = static_cast<int64_t>(ls.size()) - (ell ? 1 : 0);
    const int64_t ndim = operands[k]->dim();
    if (ell) {
      TN_CHECK(nlabels <= ndim, "einsum(): the number of subscripts in the equation (", nlabels,
               ") is more than the number of dimensions (", ndim, ") for operand ", k);
      ell_dims = std::max(ell_dims, ndim - nlabels);
    } else {
      TN_CHECK(nlabels == ndim, "einsum(): the number of subscripts in the equation (", nlabels,
               ") does not match the number of dimensions (", ndim, ") for operand ", k,
               " and no ellipsis was given");
    }
  }
  // 2. Positions: the output's labels first, then the contracted ones in label order.
  std::vector<int64_t> pos(kLabels, -1);
  int64_t ell_pos = 0, npos = 0;
  if (arrow != std::string::npos) {
    const std::string rhs = eq.substr(arrow + 2);
    bool ell_out = false;
    for (size_t i = 0; i < rhs.size(); ++i) {
      const char ch = rhs[i];
      if (ch == ' ') continue;
      if (ch == '.') {
        TN_CHECK(!ell_out, "einsum(): found '...' for the output for which an ellipsis was "
                 "already found");
        TN_CHECK(rhs.compare(i, 3, "...") == 0,
                 "einsum(): found '.' for output that is not part of any ellipsis");
        i += 2;
        ell_out = true;
        ell_pos = npos;
        npos += ell_dims;
        continue;
      }
      TN_CHECK((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'), "einsum(): invalid "
               "subscript given at index ", lhs.size() + 2 + i, " in the equation string, "
               "subscripts must be in [a-zA-Z]");
      const int l = label_of(ch);
      TN_CHECK(label_count[l] > 0, "einsum(): output subscript ", ch,
               " does not appear in the equation for any input operand");
      TN_CHECK(pos[l] == -1, "einsum(): output subscript ", ch,
               " appears more than once in the output");
      pos[l] = npos++;
    }
    // An ellipsis in the inputs but not the output: its dims are contracted, placed first.
    if (!ell_out) {
      ell_pos = npos;
      npos += ell_dims;
    }
  } else {
    if (ell_in_input) {
      ell_pos = 0;
      npos += ell_dims;
    }
    for (int l = 0; l < kLabels; ++l)
      if (label_count[l] == 1) pos[l] = npos++;
  }
  const bool ell_contracted = arrow != std::string::npos &&
      eq.substr(arrow + 2).find("...") == std::string::npos;
  const int64_t out_dims = ell_contracted ? ell_pos : npos;
  for (int l = 0; l < kLabels; ++l)
    if (label_count[l] > 0 && pos[l] == -1) pos[l] = npos++;
  // Align each operand to the positions; record sizes (broadcast over size 1).
  std::vector<int64_t> size_at(static_cast<size_t>(npos), 1);
  std::vector<Tensor> aligned;
  for (size_t k = 0; k < num_ops; ++k) {
    Tensor x = operands[k];
    const auto& ls = op_labels[k];
    Dims perm(static_cast<size_t>(npos), -1);
    int64_t dim = 0;
    for (int l : ls) {
      if (l == kEllipsis) {
        const int64_t covered = operands[k]->dim() - (static_cast<int64_t>(ls.size()) - 1);
        for (int64_t j = ell_dims - covered; j < ell_dims; ++j) {
          const int64_t p = ell_pos + j, sz = x->size(dim);
          if (sz != 1) {
            TN_CHECK(size_at[p] == 1 || size_at[p] == sz, "einsum(): operands do not broadcast "
                     "with remapped shapes (original->remapped)");
            size_at[p] = sz;
          }
          perm[p] = dim++;
        }
      } else if (perm[pos[l]] == -1) {
        const int64_t sz = x->size(dim);
        if (sz != 1) {
          TN_CHECK(size_at[pos[l]] == 1 || size_at[pos[l]] == sz, "einsum(): subscript ",
                   char_of(l), " has size ", sz, " for operand ", k, " which does not broadcast "
                   "with previously seen size ", size_at[pos[l]]);
          size_at[pos[l]] = sz;
        }
        perm[pos[l]] = dim++;
      } else {  // a repeated label: its diagonal, moved where the label first was
        const int64_t prev = perm[pos[l]];
        TN_CHECK(x->size(dim) == x->size(prev), "einsum(): subscript ", char_of(l),
                 " is repeated for operand ", k, " but the sizes don't match, ", x->size(dim),
                 " != ", x->size(prev));
        x = call_tensor("aten::diagonal", {t(x), i64(0), i64(prev), i64(dim)});
        x = call_tensor("aten::movedim.int", {t(x), i64(-1), i64(prev)});
      }
    }
    for (int64_t& p : perm)
      if (p == -1) {
        x = call_tensor("aten::unsqueeze", {t(x), i64(-1)});
        p = dim++;
      }
    aligned.push_back(call_tensor("aten::permute", {t(x), ints(perm)}));
  }
  Dims out_shape(size_at.begin(), size_at.begin() + out_dims);
  // A zero-sized operand: zeros of the output's shape.
  for (const Tensor& x : operands)
    if (x->numel() == 0) {
      c.ret(call_tensor("aten::zeros", {ints(out_shape), Value::of_dtype(operands[0]->dtype()),
                                        Value{}, Value::of_device(operands[0]->device())}));
      return;
    }
  // 3. Pairwise contractions, in path order when given (pairs of indices into the current
  // list; the product goes to the end), else left to right.
  Dims path;
  if (!c.arg(2).is_none()) path = c.int_list(2);
  std::vector<Tensor> live = aligned;
  auto contract_pair = [&](size_t i, size_t j) {
    Tensor a = live[i], b = live[j];
    live.erase(live.begin() + static_cast<int64_t>(std::max(i, j)));
    live.erase(live.begin() + static_cast<int64_t>(std::min(i, j)));
    std::vector<bool> contract(static_cast<size_t>(npos), false);
    for (int64_t p = out_dims; p < npos; ++p) {
      bool later = false;
      for (const Tensor& o : live) later = later || o->size(p) != 1;
      contract[p] = !later;
    }
    live.push_back(sumproduct_pair(a, b, contract));
  };
  if (!path.empty() && num_ops > 1) {
    TN_CHECK(path.size() == 2 * (num_ops - 1), "einsum(): path should have ",
             2 * (num_ops - 1), " elements but got ", path.size());
    for (size_t s = 0; s + 1 < path.size(); s += 2) {
      TN_CHECK(path[s] >= 0 && path[s + 1] >= 0 &&
                   static_cast<size_t>(std::max(path[s], path[s + 1])) < live.size() &&
                   path[s] != path[s + 1],
               "einsum(): invalid path step (", path[s], ", ", path[s + 1], ")");
      contract_pair(static_cast<size_t>(path[s]), static_cast<size_t>(path[s + 1]));
    }
  } else {
    while (live.size() > 1) contract_pair(0, 1);
  }
  // 4. What is left of the contracted dims, summed; the output dims kept.
  Tensor r = live[0];
  Dims rest;
  for (int64_t p = out_dims; p < npos; ++p)
    if (r->size(p) != 1) rest.push_back(p);
  r = sum_dims(r, rest);
  Dims shape(r->sizes().begin(), r->sizes().begin() + out_dims);
  c.ret(call_tensor("aten::reshape", {t(r), ints(shape)}));
}
TN_REGISTER_COMPOSITE("aten::einsum", einsum);

}  // namespace
}  // namespace tn
