// The derivative of renorm (kernels/cpu/renorm.cpp): upstream's derivatives.yaml formula, its
// FunctionsManual renorm_backward, written again with door ops; the norm's own backward is
// this core's linalg_vector_norm formula (upstream's norm_backward), reached through formula_of.
#include "autograd/derivatives/helpers.h"
#include "dispatch/registry.h"

namespace tn::autograd {
namespace {

using namespace d;

// upstream's CPU accumulation type (toAccumulateType on the CPU): float and double in double,
// float16/bfloat16 in float, complex64 and complex128 in complex128.
ScalarType cpu_acc(ScalarType dt) {
  switch (dt) {
    case ScalarType::Half: case ScalarType::BFloat16: return ScalarType::Float;
    case ScalarType::ComplexFloat: return ScalarType::ComplexDouble;
    case ScalarType::ComplexDouble: return ScalarType::ComplexDouble;
    default: return ScalarType::Double;
  }
}

// renorm(self, p, dim, maxnorm): norm over the other dims in the accumulation type,
// nb = norm_backward(sum(conj(self) * grad) over them, self, p, norm), invnorm = 1 / (norm +
// 1e-7), and where(norm > maxnorm, maxnorm * invnorm * (grad - invnorm * nb), grad).
Grads renorm_backward(const Saved& s, const Grads& g) {
  const Tensor& self = s.tensor(0);
  const Tensor& grad = g[0];
  const int64_t dim = wrap(s.to_int(2), self->dim());
  Dims reduce;
  for (int64_t d0 = 0; d0 < self->dim(); ++d0)
    if (d0 != dim) reduce.push_back(d0);
  const ScalarType acc = cpu_acc(self->dtype());
  const ScalarType real_acc = is_complex(acc) ? ScalarType::Double : acc;
  const Value p = S(s.scalar(1));
  const std::vector<Value> args = {V(self), p, Value::of_ints(reduce), Value::of_bool(true),
                                   Value::of_dtype(acc)};
  Tensor norm = call_tensor("aten::linalg_vector_norm", args);
  Tensor go = mul(conj(self), grad);
  if (is_complex(acc)) go = real(go);
  go = call_tensor("aten::sum.dim_IntList", {V(go), Value::of_ints(reduce), Value::of_bool(true),
                                             Value::of_dtype(real_acc)});
  static const int norm_op = find_op_key("aten::linalg_vector_norm");
  const Formula* f = formula_of(norm_op);
  TN_CHECK_KIND(f != nullptr, Internal, "renorm's backward needs linalg_vector_norm's formula");
  const std::vector<Tensor> results = {norm};
  const std::vector<bool> needs = {true};
  const std::vector<ArgMeta> metas = {{self->sizes(), self->strides(), self->dtype(),
                                       self->device()}};
  Tensor nb = f->backward(Saved{args, results, needs, metas}, {go})[0];
  Tensor invnorm = call_tensor("aten::reciprocal",
                               {V(call_tensor("aten::add.Scalar", {V(norm), S(1e-7)}))});
  const Scalar maxnorm = s.scalar(3);
  Tensor grad_norm = mul(mul(invnorm, maxnorm), sub(grad, mul(invnorm, nb)));
  Tensor above = call_tensor("aten::gt.Scalar", {V(norm), S(maxnorm)});
  return {call_tensor("aten::where.self", {V(above), V(to_dtype(grad_norm, grad->dtype())),
                                           V(grad)})};
}

}  // namespace

TN_REGISTER_DERIVATIVE("aten::renorm", {"RenormBackward0", {0}, {{0}}, 0, renorm_backward});
TN_COMPLEX_READY("aten::renorm");

}  // namespace tn::autograd
