// The tensor-options checks (see factory_rules.h).
#include "kernels/rules/factory_rules.h"

#include "core/error.h"

namespace tn {

void check_pin_memory(const Value& pin, const Value& layout, const Device& dev) {
  if (pin.is_none() || !pin.b || dev.type == DeviceType::Meta) return;
  TN_CHECK(layout.is_none() || layout.i == 0, "Only dense CPU tensors can be pinned");
  TN_FAIL(Runtime, "pin_memory=True requires a CUDA or other accelerator backend; no pinned "
          "memory allocator is available on this system.");
}

void check_memory_format_rank(const Value& memory_format, int64_t ndim) {
  if (memory_format.is_none()) return;
  MemoryFormatKind k = memory_format.memory_format;
  if (k == MemoryFormatKind::ChannelsLast)
    TN_CHECK(ndim == 4, "required rank 4 tensor to use channels_last format");
  if (k == MemoryFormatKind::ChannelsLast3d)
    TN_CHECK(ndim == 5, "required rank 5 tensor to use channels_last_3d format");
}

}  // namespace tn
