// ops::write_out (see ops.h): the out= spellings written over their functional op.
#include "core/promotion.h"
#include "kernels/composite/ops.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace ops {

Tensor write_out(const Tensor& out, const Tensor& result, const std::string& key) {
  check_out_device(out, result->device());
  TN_CHECK(can_cast(result->dtype(), out->dtype()), key, ": result type ",
           enum_name(result->dtype()), " can't be cast to the desired output type ",
           enum_name(out->dtype()));
  tn::resize_out(out, result->sizes());  // upstream's resize_output, with its warning
  copy_(out, result);
  return out;
}

void ret_all(Call& c, std::initializer_list<Tensor> results, int first_out) {
  int i = first_out;
  for (const Tensor& r : results) c.ret(first_out < 0 ? r : write_out(c.tensor(i++), r, c.key()));
}

}  // namespace ops
}  // namespace tn
