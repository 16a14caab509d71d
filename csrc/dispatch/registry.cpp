// The operator table from native_functions.yaml (see registry.h).
#include "dispatch/registry.h"

namespace tn {
namespace {

const OpInfo kOps[] = {
#include "ops_table.inc"
};

}  // namespace

const std::vector<OpInfo>& all_ops() {
  static const std::vector<OpInfo> ops(std::begin(kOps), std::end(kOps));
  return ops;
}

std::string op_key(const OpInfo& op) {
  return std::string("aten.") + op.name + "." + (op.overload[0] ? op.overload : "default");
}

}  // namespace tn
