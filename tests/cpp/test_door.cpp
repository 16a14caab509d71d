// Unit tests of the door in layers (csrc/dispatch; no Python): keys run from the highest, a layer
// re-dispatches below itself, fallbacks apply where they say, a layer with nothing to do is
// skipped, run-time registration takes effect and a duplicate names both sources, structured
// ops refuse a back end without a compute by name, and the back-end contract counts transfers.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/backend.h"
#include "dispatch/kernel.h"

using namespace tn;

namespace {

std::vector<std::string>& trace() {
  static std::vector<std::string> t;
  return t;
}

// An op of our own, defined at run time as torch.library defines one.
int test_op(const char* schema) {
  static int library = 1000;
  return define_op("tn_door_test", schema, "", library++);
}

Tensor cpu_ones(Dims sizes) {
  Tensor t = empty_tensor(sizes, ScalarType::Float, Device{});
  auto* p = static_cast<float*>(t->dense_cpu_data("test"));
  for (int64_t i = 0; i < t->numel(); ++i) p[i] = 1.f;
  return t;
}

void cpu_kernel(Call& c) {
  trace().push_back("cpu");
  c.ret(c.tensor(0));
}
void meta_kernel(Call& c) {
  trace().push_back("meta");
  c.ret(c.tensor(0));
}
void python_layer(Call& c) {
  trace().push_back("python");
  redispatch_below(c, DispatchKey::Python);
}
void python_layer_below_cpu(Call& c) {
  trace().push_back("second");
  c.ret(c.tensor(0));
}
void capture_layer(Call& c) {
  trace().push_back(std::string("capture:") + static_cast<const char*>(c.context));
  redispatch_below(c, DispatchKey::Capture);
}

}  // namespace

TEST(Door, KeysRunFromTheHighestAndRedispatchBelow) {
  int op = test_op("layers(Tensor x) -> Tensor");
  register_kernel(op, KernelSlot::CPU, Kernel{cpu_kernel}, "test_door.cpp: cpu");
  register_kernel(op, KernelSlot::Python, Kernel{python_layer}, "test_door.cpp: python");
  static const char kWhere[] = "ctx";
  register_kernel(op, KernelSlot::Capture, Kernel{capture_layer, nullptr, kWhere},
                  "test_door.cpp: capture");
  trace().clear();
  // Python and Capture are not in the call's key set: only the back end runs.
  dispatch(op, {Value::of(cpu_ones({2}))});
  EXPECT_EQ(trace(), (std::vector<std::string>{"cpu"}));
  trace().clear();
  {
    IncludeKeys on(key_bit(DispatchKey::Python) | key_bit(DispatchKey::Capture));
    dispatch(op, {Value::of(cpu_ones({2}))});
  }
  EXPECT_EQ(trace(), (std::vector<std::string>{"capture:ctx", "python", "cpu"}));
  trace().clear();
  {
    IncludeKeys on(key_bit(DispatchKey::Python) | key_bit(DispatchKey::Capture));
    ExcludeKeys off(key_bit(DispatchKey::Capture));
    dispatch(op, {Value::of(cpu_ones({2}))});
  }
  EXPECT_EQ(trace(), (std::vector<std::string>{"python", "cpu"}));
}

TEST(Door, ATensorsBackEndChoosesTheKernel) {
  int op = test_op("backend(Tensor x) -> Tensor");
  register_kernel(op, KernelSlot::CPU, Kernel{cpu_kernel}, "cpu");
  register_kernel(op, KernelSlot::Meta, Kernel{meta_kernel}, "meta");
  trace().clear();
  dispatch(op, {Value::of(empty_tensor({3}, ScalarType::Float, Device{DeviceType::Meta, -1}))});
  dispatch(op, {Value::of(cpu_ones({3}))});
  EXPECT_EQ(trace(), (std::vector<std::string>{"meta", "cpu"}));
}

TEST(Door, ADuplicateRegistrationNamesBothSources) {
  int op = test_op("dup(Tensor x) -> Tensor");
  register_kernel(op, KernelSlot::CPU, Kernel{cpu_kernel}, "first.py:1");
  try {
    register_kernel(op, KernelSlot::CPU, Kernel{cpu_kernel}, "second.py:2");
    FAIL() << "a duplicate registration was accepted";
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("first.py:1"), std::string::npos) << m;
    EXPECT_NE(m.find("second.py:2"), std::string::npos) << m;
  }
  deregister_kernel(op, KernelSlot::CPU);
  register_kernel(op, KernelSlot::CPU, Kernel{meta_kernel}, "third.py:3");
  trace().clear();
  dispatch(op, {Value::of(cpu_ones({1}))});
  EXPECT_EQ(trace(), (std::vector<std::string>{"meta"}));
}

// torch.library's registrations: each hides what the slot held (naming it), and removing any
// of them, in any order, leaves the newest of those left.
TEST(Door, OverridesStackAndEndInAnyOrder) {
  int op = test_op("stacked(Tensor x) -> Tensor");
  register_kernel(op, KernelSlot::CPU, Kernel{cpu_kernel}, "");  // a kernel of our own
  std::string hidden;
  int first = override_kernel(op, KernelSlot::CPU, Kernel{meta_kernel}, "first.py:1", &hidden);
  EXPECT_EQ(hidden, "torchnative's own kernels");
  int second = override_kernel(op, KernelSlot::CPU, Kernel{python_layer_below_cpu}, "second.py:2",
                               &hidden);
  EXPECT_EQ(hidden, "first.py:1");
  auto run_once = [&] {
    trace().clear();
    dispatch(op, {Value::of(cpu_ones({1}))});
    return trace();
  };
  EXPECT_EQ(run_once(), (std::vector<std::string>{"second"}));
  remove_kernel(op, KernelSlot::CPU, first);  // not the newest: the newest still runs
  EXPECT_EQ(run_once(), (std::vector<std::string>{"second"}));
  remove_kernel(op, KernelSlot::CPU, second);  // then our own comes back
  EXPECT_EQ(run_once(), (std::vector<std::string>{"cpu"}));
}

TEST(Door, AMissingBackEndKernelIsRefusedByName) {
  int op = test_op("cpu_only(Tensor x) -> Tensor");
  register_kernel(op, KernelSlot::CPU, Kernel{cpu_kernel}, "cpu");
  Tensor m = empty_tensor({2}, ScalarType::Float, Device{DeviceType::Meta, -1});
  try {
    dispatch(op, {Value::of(m)});
    FAIL() << "a meta call ran a CPU kernel";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind, ErrorKind::NotImplemented);
    // An op a library defined is refused on meta in upstream's words, naming it.
    EXPECT_NE(std::string(e.what()).find("tn_door_test::cpu_only"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("Meta"), std::string::npos);
  }
}

TEST(Door, WrittenArgumentsAreVersionBumpedOnceByTheLayer) {
  Tensor x = cpu_ones({4});
  uint32_t v0 = x->version();
  call("aten::add_.Tensor", {Value::of(x), Value::of(cpu_ones({4}))});
  EXPECT_EQ(x->version(), v0 + 1);
  // A functional op writes nothing.
  call("aten::add.Tensor", {Value::of(x), Value::of(cpu_ones({4}))});
  EXPECT_EQ(x->version(), v0 + 1);
  // A factory's own fill runs below the layer: a fresh tensor is at version 0, as upstream's.
  Tensor z = call_tensor("aten::zeros", {Value::of_ints({3})});
  EXPECT_EQ(z->version(), 0u);
}

TEST(Door, ResultsOfTensorsRequiringGradRequireGrad) {
  Tensor p = cpu_ones({3});
  p->set_requires_grad(true);
  Tensor y = call_tensor("aten::mul.Tensor", {Value::of(p), Value::of(cpu_ones({3}))});
  EXPECT_TRUE(y->requires_grad());
  EXPECT_FALSE(y->is_leaf());
  Tensor n = call_tensor("aten::argmax", {Value::of(p)});
  EXPECT_FALSE(n->requires_grad());  // not differentiable
}

TEST(Door, MetaTensorsCombineWithPythonNumbersAndCpuScalars) {
  Tensor m = empty_tensor({3}, ScalarType::Float, Device{DeviceType::Meta, -1});
  Tensor s = cpu_ones({});
  s->set_wrapped_number(true);
  Tensor r = call_tensor("aten::add.Tensor", {Value::of(s), Value::of(m)});
  EXPECT_EQ(r->device().type, DeviceType::Meta);
  EXPECT_EQ(r->sizes(), (Dims{3}));
  // A CPU tensor that is not 0-dim does not combine (the elementwise rule's device check).
  try {
    call("aten::add.Tensor", {Value::of(m), Value::of(cpu_ones({3}))});
    FAIL() << "add mixed a 1-d cpu tensor and a meta tensor";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("is not on the expected device meta"),
              std::string::npos) << e.what();
  }
}

TEST(Backend, CopiesBetweenDevicesAreCountedAndCpuCopiesAreNot) {
  reset_transfer_counts(DeviceType::PrivateUse1);
  float host[4] = {1, 2, 3, 4}, back[4] = {};
  std::vector<float> device(4);
  copy_bytes(DeviceType::CPU, back, DeviceType::CPU, host, sizeof host);
  EXPECT_EQ(transfer_counts(DeviceType::PrivateUse1).to_device, 0u);
  if (!availability(DeviceType::PrivateUse1).available) GTEST_SKIP() << "test back end off";
  copy_bytes(DeviceType::PrivateUse1, device.data(), DeviceType::CPU, host, sizeof host);
  copy_bytes(DeviceType::CPU, back, DeviceType::PrivateUse1, device.data(), sizeof host);
  TransferCounts c = transfer_counts(DeviceType::PrivateUse1);
  EXPECT_EQ(c.to_device, 1u);
  EXPECT_EQ(c.to_host, 1u);
  EXPECT_EQ(c.bytes_to_host, sizeof host);
  EXPECT_EQ(back[3], 4.f);
}

TEST(Backend, AnUnavailableDeviceIsRefusedWithItsProbesReason) {
  Availability a = availability(DeviceType::PrivateUse1);
  if (a.available) GTEST_SKIP() << "test back end on";
  try {
    empty_tensor({2}, ScalarType::Float, Device{DeviceType::PrivateUse1, -1});
    FAIL() << "allocated on an unavailable device";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("TORCHNATIVE_TEST_BACKEND"), std::string::npos);
  }
}
