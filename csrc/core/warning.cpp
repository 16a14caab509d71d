// The per-thread warning queue (see warning.h).
#include "core/warning.h"

#include <utility>

namespace tn {
namespace {
thread_local std::vector<std::string> t_warnings;
}  // namespace

void warn(std::string message) { t_warnings.push_back(std::move(message)); }

bool any_warnings() { return !t_warnings.empty(); }

std::vector<std::string> take_warnings() {
  std::vector<std::string> out;
  out.swap(t_warnings);
  return out;
}

std::string resized_output_warning(const std::string& had, const std::string& required) {
  return "An output with one or more elements was resized since it had shape " + had +
         ", which does not match the required output shape " + required +
         ". This behavior is deprecated, and in a future PyTorch release outputs will not be "
         "resized unless they have zero elements. You can explicitly reuse an out tensor t by "
         "resizing it, inplace, to zero elements with t.resize_(0).";
}

}  // namespace tn
