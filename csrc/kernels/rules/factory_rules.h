// Checks shared by the factories and the ops that take tensor options (dtype, layout, device,
// pin_memory, memory_format), in upstream's words, for every back end. No allocation here.
#pragma once

#include <cstdint>

#include "dispatch/value.h"

namespace tn {

// pin_memory=True, as upstream's CPU-only build refuses it: RuntimeError (no pinned allocator),
// or "Only dense CPU tensors can be pinned" for a layout other than strided (layout may be
// None). Meta tensors ignore it, as upstream's meta factories do.
void check_pin_memory(const Value& pin, const Value& layout, const Device& dev);

// A channels_last (channels_last_3d) memory format needs a 4-D (5-D) tensor: upstream's
// RuntimeError "required rank 4 tensor to use channels_last format". None passes.
void check_memory_format_rank(const Value& memory_format, int64_t ndim);

}  // namespace tn
