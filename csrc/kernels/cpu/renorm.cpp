// renorm (renorm.out, renorm_) on dense CPU tensors and Meta, as upstream's structured renorm:
// each slice along dim whose p-norm exceeds maxnorm is scaled by maxnorm / (norm + 1e-7). The
// norm is linalg_vector_norm over the other dims (float16/bfloat16 in float), the factor is
// upstream's renorm_scale_factor in the norm's dtype, cast to self's, and the result is
// self * factor. Meta runs the meta function's checks only.
#include <vector>

#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

// upstream's TORCH_META_FUNC(renorm) checks, in its order.
void check_renorm(const Tensor& self, const Value& p, const Value& maxnorm) {
  TN_CHECK(!p.scalar.is_complex(), "renorm: p must be real-valued");
  TN_CHECK(p.scalar.to_double() > 0.0, "renorm: non-positive-norm not supported");
  TN_CHECK(!maxnorm.scalar.is_complex(), "renorm: maxnorm must be real-valued");
  TN_CHECK(maxnorm.scalar.to_double() >= 0.0, "renorm: expected maxnorm to be >= 0 but got ",
           maxnorm.scalar.to_double());
  TN_CHECK(self->dim() > 1, "renorm: input needs at least 2 dimensions, got ", self->dim(),
           " dimensions");
}

// renorm_scale_factor: norm > maxnorm ? maxnorm / (norm + eps) : 1, in C (the norm's dtype).
template <typename C>
void scale_factor(const Tensor& norm, double maxnorm, const std::string& key) {
  C* f = data_of<C>(norm, key);
  const C m = static_cast<C>(maxnorm), eps = static_cast<C>(1e-7), one = C(1);
  for (int64_t i = 0; i < norm->numel(); ++i) f[i] = f[i] > m ? m / (f[i] + eps) : one;
}

// renorm(self, p, dim, maxnorm): a contiguous result of self's shape and dtype.
template <bool Cpu>
void renorm(Call& c) {
  const Tensor& self = c.tensor(0);
  check_renorm(self, c.arg(1), c.arg(3));
  if (!Cpu) return c.ret(ops::empty(self->sizes(), self->dtype(), self->device()));
  const int64_t dim = wrap_dim(c.to_int(2), self->dim());
  Dims reduce;
  for (int64_t d = 0; d < self->dim(); ++d)
    if (d != dim) reduce.push_back(d);
  const ScalarType dt = self->dtype();
  const bool half = dt == ScalarType::Half || dt == ScalarType::BFloat16;
  Tensor norm = call_tensor("aten::linalg_vector_norm", {
      ops::t(self), ops::f64(c.arg(1).scalar.to_double()), ops::ints(reduce),
      Value::of_bool(true), half ? Value::of_dtype(ScalarType::Float) : Value{}});
  norm = ops::clone_contiguous(norm);
  const std::string& key = c.key();
  const double maxnorm = c.arg(3).scalar.to_double();
  if (norm->dtype() == ScalarType::Double) scale_factor<double>(norm, maxnorm, key);
  else scale_factor<float>(norm, maxnorm, key);
  Tensor factor = norm->dtype() == dt ? norm : cast_to(norm, dt, key);
  // (upstream's structured output is contiguous whatever self's layout; mul writes into it)
  Tensor r = call_tensor("aten::mul.Tensor", {ops::t(self), ops::t(factor)});
  c.ret(r->is_contiguous() ? r : ops::clone_contiguous(r));
}

constexpr char kRenorm[] = "aten::renorm";

// renorm_(self, p, dim, maxnorm): the result written back into self.
void renorm_inplace(Call& c) {
  Tensor r = call_tensor(kRenorm, {c.arg(0), c.arg(1), c.arg(2), c.arg(3)});
  c.ret(ops::write_out(c.tensor(0), r, c.key()));
}

}  // namespace

TN_REGISTER_KERNEL("aten::renorm", DenseCPU, renorm<true>);
TN_REGISTER_KERNEL("aten::renorm", Meta, renorm<false>);
TN_REGISTER_COMPOSITE("aten::renorm.out", ops::generated_out<kRenorm>);
TN_REGISTER_COMPOSITE("aten::renorm_", renorm_inplace);

}  // namespace tn
