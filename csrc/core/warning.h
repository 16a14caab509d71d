// Warnings raised by the core and kernels (upstream's TORCH_WARN), which run without the GIL:
// queued per thread here, and handed to Python's warnings module by csrc/python after the call.
#pragma once

#include <string>
#include <vector>

namespace tn {

// Queues a UserWarning for the calling thread's current op.
void warn(std::string message);
// The calling thread's queued warnings, oldest first; the queue is left empty.
std::vector<std::string> take_warnings();
// Whether the calling thread has queued warnings (cheaper than taking an empty queue).
bool any_warnings();

// Upstream's resize_output warning: an out= tensor with elements resized to another shape.
std::string resized_output_warning(const std::string& had, const std::string& required);

}  // namespace tn
