// Devices and tensor representations, expanded from the device table (core/device_table.h).
// Pure C++. A representation says how a tensor's bytes are held, one per back end; kernels reach
// the bytes through TensorImpl::data_of(), which refuses every other representation
// (ARCHITECTURE.md, idea 2).
#pragma once

#include <cstdint>
#include <string>

#include "core/device_table.h"

namespace tn {

enum class DeviceType : int8_t {
#define TN_DEVICE_ENUM(e, name, rep_name) e,
  TN_FORALL_BACKENDS(TN_DEVICE_ENUM)
#undef TN_DEVICE_ENUM
};
constexpr int kNumDeviceTypes = 0
#define TN_DEVICE_COUNT(e, name, rep_name) +1
    TN_FORALL_BACKENDS(TN_DEVICE_COUNT)
#undef TN_DEVICE_COUNT
    ;

struct Device {
  DeviceType type = DeviceType::CPU;
  int index = -1;  // -1: no index given
  bool operator==(const Device& o) const { return type == o.type && index == o.index; }
  bool operator!=(const Device& o) const { return !(*this == o); }
  std::string str() const;
};

// "cpu", "meta", "privateuseone": upstream's names.
const char* device_type_name(DeviceType t);
// The device type named t, or false.
bool device_type_of_name(const std::string& t, DeviceType* out);

// How a tensor's data is represented: one per back end, numbered as the device types are
// (DenseCPU is the CPU back end's dense strided memory).
enum class Representation : int8_t {
#define TN_REP_ENUM(e, name, rep_name) e,
  TN_FORALL_BACKENDS(TN_REP_ENUM)
#undef TN_REP_ENUM
  DenseCPU = CPU,
};

inline Representation representation_of(DeviceType t) { return static_cast<Representation>(t); }
const char* representation_name(Representation r);

}  // namespace tn
