// Structure tests of the views family through the door (no Python): views share storage and
// version counter, strided and contiguous inputs give the same values, meta computes shapes and
// dtypes without bytes, and errors carry upstream's kinds. Values against upstream are checked
// from Python (tests/ops/test_views.py).
#include <gtest/gtest.h>

#include "dispatch/kernel.h"

using namespace tn;

namespace {

Value ints(Dims d) { return Value::of_ints(std::move(d)); }
Value i64(int64_t v) { return Value::of_int(v); }
Value dev(DeviceType t) { return Value::of_device(Device{t, -1}); }

// arange(n) as float32 viewed as shape, on device.
Tensor iota(const Dims& shape, DeviceType d = DeviceType::CPU) {
  Tensor t = call_tensor("aten::arange", {Value::of_scalar(Scalar::from_int(numel_of(shape))),
                                          Value::of_dtype(ScalarType::Float), Value{}, dev(d)});
  return call_tensor("aten::view", {Value::of(t), ints(shape)});
}

// Values of a dense CPU float tensor, row-major, through a contiguous copy.
std::vector<float> values(const Tensor& t) {
  Tensor c = call_tensor("aten::clone", {Value::of(t), Value{}});
  c = call_tensor("aten::contiguous", {Value::of(c)});
  const float* p = static_cast<const float*>(c->dense_cpu_data("test"));
  return std::vector<float>(p, p + c->numel());
}

ErrorKind kind_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.kind;
  }
  return ErrorKind::Internal;  // "did not throw"
}

}  // namespace

TEST(Views, ShareStorageAndVersionCounter) {
  Tensor base = iota({2, 3, 4});
  Tensor v = call_tensor("aten::transpose.int", {Value::of(base), i64(0), i64(2)});
  Tensor s = call_tensor("aten::select.int", {Value::of(v), i64(1), i64(-1)});
  EXPECT_EQ(s->storage().get(), base->storage().get());
  EXPECT_EQ(v->strides(), (Dims{1, 4, 12}));
  EXPECT_EQ(s->storage_offset(), 8);
  call("aten::fill_.Scalar", {Value::of(s), Value::of_scalar(Scalar::from_int(-1))});
  EXPECT_EQ(base->version(), 1u);  // fill_ on the view bumped the shared counter
  EXPECT_EQ(values(base)[8], -1.f);
  EXPECT_EQ(values(base)[23], -1.f);  // (4, 2) view, strides (1, 12): offsets 8..11, 20..23
  EXPECT_EQ(values(base)[12], 12.f);
}

TEST(Views, EveryViewOpReturnsAView) {
  Tensor base = iota({2, 3, 4});
  Value b = Value::of(base);
  std::vector<Tensor> views = {
      call_tensor("aten::view", {b, ints({4, -1})}),
      call_tensor("aten::permute", {b, ints({2, 0, 1})}),
      call_tensor("aten::expand", {call("aten::unsqueeze", {b, i64(0)})[0], ints({5, -1, -1, -1})}),
      call_tensor("aten::slice.Tensor", {b, i64(2), i64(1), Value{}, i64(2)}),
      call_tensor("aten::narrow", {b, i64(1), i64(1), i64(2)}),
      call_tensor("aten::diagonal", {b, i64(0), i64(1), i64(2)}),
      call_tensor("aten::unfold", {b, i64(2), i64(2), i64(1)}),
      call_tensor("aten::reshape", {b, ints({6, 4})}),
      call_tensor("aten::flatten.using_ints", {b, i64(1), i64(2)}),
      call_tensor("aten::detach", {b}),
      call_tensor("aten::view.dtype", {b, Value::of_dtype(ScalarType::Int)}),
  };
  for (const Tensor& v : views) {
    EXPECT_EQ(v->storage().get(), base->storage().get());
    EXPECT_EQ(v->version_counter().get(), base->version_counter().get());
  }
  auto parts = call("aten::split.Tensor", {b, i64(2), i64(2)})[0].tensors;
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[1]->storage_offset(), 2);
}

TEST(Views, StridedAndContiguousInputsAgree) {
  Tensor base = iota({3, 4});
  Tensor strided = call_tensor("aten::transpose.int", {Value::of(base), i64(0), i64(1)});
  Tensor dense = call_tensor("aten::contiguous", {Value::of(strided)});
  ASSERT_TRUE(dense->is_contiguous());
  ASSERT_FALSE(strided->is_contiguous());
  auto same = [&](const char* op, std::vector<Value> rest) {
    std::vector<Value> a{Value::of(strided)}, d{Value::of(dense)};
    a.insert(a.end(), rest.begin(), rest.end());
    d.insert(d.end(), rest.begin(), rest.end());
    EXPECT_EQ(values(call_tensor(op, a)), values(call_tensor(op, d))) << op;
  };
  same("aten::flip", {ints({0})});
  same("aten::roll", {ints({1}), ints({1})});
  same("aten::tril", {i64(0)});
  same("aten::repeat", {ints({2, 1})});
  same("aten::reshape", {ints({-1})});
  Tensor idx = call_tensor("aten::arange", {Value::of_scalar(Scalar::from_int(2)),
                                            Value::of_dtype(ScalarType::Long)});
  same("aten::index_select", {i64(1), Value::of(idx)});
  Value list;
  list.tag = Value::Tag::OptTensorList;
  list.tensors = {Tensor(), idx};
  same("aten::index.Tensor", {list});
}

TEST(Views, MetaGivesShapesWithoutBytes) {
  Tensor m = iota({2, 3, 4}, DeviceType::Meta);
  EXPECT_EQ(m->storage()->data(), nullptr);
  Tensor c = call_tensor("aten::cat", {Value::of_tensors({m, m}), i64(1)});
  EXPECT_EQ(c->sizes(), (Dims{2, 6, 4}));
  EXPECT_EQ(c->representation(), Representation::Meta);
  Tensor r = call_tensor("aten::reshape",
                         {call("aten::transpose.int", {Value::of(m), i64(0), i64(2)})[0],
                          ints({-1})});
  EXPECT_EQ(r->sizes(), (Dims{24}));
  Tensor f = call_tensor("aten::full", {ints({2}), Value::of_scalar(Scalar::from_int(3)),
                                        Value{}, Value{}, dev(DeviceType::Meta)});
  EXPECT_EQ(f->dtype(), ScalarType::Long);
  EXPECT_EQ(f->storage()->data(), nullptr);
  Tensor idx = call_tensor("aten::zeros", {ints({5}), Value::of_dtype(ScalarType::Long), Value{},
                                           dev(DeviceType::Meta)});
  Value list;
  list.tag = Value::Tag::OptTensorList;
  list.tensors = {Tensor(), Tensor(), idx};
  EXPECT_EQ(call_tensor("aten::index.Tensor", {Value::of(m), list})->sizes(), (Dims{2, 3, 5}));
  Tensor a = call_tensor("aten::linspace", {Value::of_scalar(Scalar::from_int(0)),
                                            Value::of_scalar(Scalar::from_int(1)), i64(7),
                                            Value{}, Value{}, dev(DeviceType::Meta)});
  EXPECT_EQ(a->sizes(), (Dims{7}));
}

TEST(Views, ErrorsCarryUpstreamKinds) {
  Tensor t = iota({2, 3});
  Value v = Value::of(t);
  EXPECT_EQ(kind_of([&] { call("aten::select.int", {v, i64(0), i64(2)}); }), ErrorKind::Index);
  EXPECT_EQ(kind_of([&] { call("aten::transpose.int", {v, i64(0), i64(2)}); }),
            ErrorKind::Index);
  Tensor tt = call_tensor("aten::t", {v});
  EXPECT_EQ(kind_of([&] { call("aten::view", {Value::of(tt), ints({-1})}); }),
            ErrorKind::Runtime);
  EXPECT_EQ(kind_of([&] { call("aten::cat", {Value::of_tensors({}), i64(0)}); }),
            ErrorKind::Value);
  Tensor m = iota({2}, DeviceType::Meta);
  EXPECT_EQ(kind_of([&] { call("aten::_to_copy", {Value::of(m), Value{}, Value{},
                                                  dev(DeviceType::CPU)}); }),
            ErrorKind::NotImplemented);
  Tensor big = call_tensor("aten::arange", {Value::of_scalar(Scalar::from_int(5)),
                                            Value::of_dtype(ScalarType::Long)});
  Value list;
  list.tag = Value::Tag::OptTensorList;
  list.tensors = {big};
  EXPECT_EQ(kind_of([&] { call("aten::index.Tensor", {v, list}); }), ErrorKind::Index);
}

TEST(Views, CopyConvertsAndBroadcasts) {
  Tensor dst = call_tensor("aten::zeros", {ints({3, 2}), Value::of_dtype(ScalarType::Byte)});
  Tensor src = call_tensor("aten::full", {ints({2}), Value::of_scalar(Scalar::from_double(-1.5))});
  uint32_t before = dst->version();
  call("aten::copy_", {Value::of(dst), Value::of(src)});
  const uint8_t* p = static_cast<const uint8_t*>(dst->dense_cpu_data("test"));
  for (int i = 0; i < 6; ++i) EXPECT_EQ(p[i], 255);  // -1.5 -> int64 -1 -> uint8 255
  EXPECT_EQ(dst->version(), before + 1);
}
