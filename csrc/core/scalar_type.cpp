// The dtype table's one definition (see scalar_type.h).
#include "core/scalar_type.h"

namespace tn {

const ScalarTypeInfo kScalarTypeInfo[kNumScalarTypes] = {
#define TN_INFO(E, name, size, fl, cx, sg, ok, legacy, abbr) \
  {#name, size, fl, cx, sg, ok, legacy, abbr},
    TN_FORALL_DTYPES(TN_INFO)
#undef TN_INFO
};

}  // namespace tn
