#include "core/determinism.h"

#include <string>

#include "core/error.h"
#include "core/warning.h"

namespace tn {

Determinism& determinism() {
  static Determinism d;
  return d;
}

void alert_not_deterministic(const char* caller) {
  const Determinism& d = determinism();
  if (!d.algorithms) return;
  const std::string head = std::string(caller) + " does not have a deterministic implementation, "
                           "but you set 'torch.use_deterministic_algorithms(True";
  const char* issue = "You can file an issue at https://github.com/pytorch/pytorch/issues to help "
                      "us prioritize adding deterministic support for this operation.";
  if (d.warn_only) {
    warn(head + ", warn_only=True)'. " + issue);
    return;
  }
  TN_FAIL(Runtime, head, ")'. You can turn off determinism just for this operation, or you can "
          "use the 'warn_only=True' option, if that's acceptable for your application. You can "
          "also file an issue at https://github.com/pytorch/pytorch/issues to help us prioritize "
          "adding deterministic support for this operation.");
}

}  // namespace tn
