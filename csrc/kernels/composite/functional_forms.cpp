// The functional forms torchgen generates from in-place ops (functionalization and export call
// them): a clone of self, then the in-place op on the clone with the remaining arguments, as
// upstream's generated kernels do; so a seeded sampler draws exactly what its in-place form
// draws. Their derivatives (autograd/derivatives/inplace.cpp) are the in-place ops' formulas.
#include "kernels/composite/ops.h"

namespace tn {
namespace {

template <const char* Inplace>
void clone_then(Call& c) {
  std::vector<Value> args(c.args.begin(), c.args.end());
  args[0] = Value::of(call_tensor("aten::clone", {c.arg(0)}));
  c.ret(call(Inplace, args)[0]);
}

#define TN_FUNCTIONAL_FORM(id, functional, inplace) \
  constexpr char k_##id[] = inplace;                \
  TN_REGISTER_COMPOSITE(functional, clone_then<k_##id>)

TN_FUNCTIONAL_FORM(zero, "aten::zero", "aten::zero_");
TN_FUNCTIONAL_FORM(uniform, "aten::uniform", "aten::uniform_");
TN_FUNCTIONAL_FORM(random, "aten::random", "aten::random_");
TN_FUNCTIONAL_FORM(random_to, "aten::random.to", "aten::random_.to");
TN_FUNCTIONAL_FORM(random_from, "aten::random.from", "aten::random_.from");
TN_FUNCTIONAL_FORM(cauchy, "aten::cauchy", "aten::cauchy_");
TN_FUNCTIONAL_FORM(log_normal, "aten::log_normal", "aten::log_normal_");
TN_FUNCTIONAL_FORM(exponential, "aten::exponential", "aten::exponential_");
TN_FUNCTIONAL_FORM(geometric, "aten::geometric", "aten::geometric_");
TN_FUNCTIONAL_FORM(bernoulli, "aten::bernoulli.Tensor", "aten::bernoulli_.Tensor");

}  // namespace
}  // namespace tn
