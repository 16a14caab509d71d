// Devices and tensor representations. Pure C++. A representation says how a tensor's bytes are
// held; kernels that need dense CPU memory ask for it through core/tensor_impl.h's accessor, which
// refuses every other representation (ARCHITECTURE.md, idea 2).
#pragma once

#include <cstdint>
#include <string>

namespace tn {

enum class DeviceType : int8_t { CPU = 0, Meta = 1 };

struct Device {
  DeviceType type = DeviceType::CPU;
  int index = -1;  // -1: no index given
  bool operator==(const Device& o) const { return type == o.type && index == o.index; }
  bool operator!=(const Device& o) const { return !(*this == o); }
  std::string str() const;
};

const char* device_type_name(DeviceType t);

// How a tensor's data is represented; one per back end.
enum class Representation : int8_t { DenseCPU = 0, Meta = 1 };

const char* representation_name(Representation r);

}  // namespace tn
