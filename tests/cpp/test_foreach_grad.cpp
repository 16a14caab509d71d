// Unit test of the foreach derivatives' refusal (csrc/autograd/derivatives/foreach.h; no
// Python): a foreach op whose per-tensor op has no formula gets upstream's node name and its
// edges, and refuses by name at backward rather than answer. No foreach op with a kernel lacks
// a formula today (tests/autograd/test_foreach_grad.py checks those against upstream), so a
// table row naming a per-tensor op without one (acos) stands in for the generated one.
#include <gtest/gtest.h>

#include <string>

#include "autograd/derivatives/foreach.h"
#include "core/error.h"

using namespace tn;

namespace {

Tensor leaf(float v) {
  Tensor t = empty_tensor({2}, ScalarType::Float, Device{});
  auto* p = static_cast<float*>(t->dense_cpu_data("test"));
  p[0] = p[1] = v;
  t->set_requires_grad(true);
  return t;
}

// The node _foreach_exp's call on two leaves would get from table row d.
Ptr<autograd::Node> node_for(const autograd::ForeachDerivative& d, const Tensor& a,
                             const Tensor& b) {
  int op = find_op_key("aten::_foreach_exp");
  EXPECT_GE(op, 0);
  Call call;
  call.op_index = op;
  call.op = &all_ops()[static_cast<size_t>(op)];
  call.schema = &schema_of(static_cast<size_t>(op));
  call.args = {Value::of_tensors({a, b})};
  return autograd::foreach_node(call, d);
}

}  // namespace

TEST(ForeachGrad, MissingFormulaRefusesByNameAtBackward) {
  Tensor a = leaf(1.f), b = leaf(2.f);
  // (a made-up row: _test_check_tensor has no formula; every upstream _foreach_ unary op's
  // per-tensor op does)
  autograd::ForeachDerivative d{"aten::_foreach_erfinv", "ForeachErfinvBackward0",
                                "aten::_test_check_tensor", 0x1, 0x0};
  Ptr<autograd::Node> node = node_for(d, a, b);
  EXPECT_STREQ(node->name(), "ForeachErfinvBackward0");
  EXPECT_EQ(node->next.size(), 2u);
  try {
    node->apply({a, b});
    FAIL() << "backward through a node without a formula returned";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind, ErrorKind::NotImplemented);
    std::string why = e.what();
    EXPECT_NE(why.find("'aten::_foreach_erfinv'"), std::string::npos) << why;
    EXPECT_NE(why.find("'aten::_test_check_tensor' has none"), std::string::npos) << why;
  }
}

TEST(ForeachGrad, AFormulaAnswersElementByElement) {
  // The same row with a per-tensor op that has one (neg: grad.neg()) answers instead.
  Tensor a = leaf(1.f), b = leaf(2.f);
  autograd::ForeachDerivative d{"aten::_foreach_neg", "ForeachNegBackward0", "aten::neg", 0x1,
                                0x0};
  Ptr<autograd::Node> node = node_for(d, a, b);
  autograd::Grads g = node->apply({a, b});
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(static_cast<float*>(g[0]->dense_cpu_data("test"))[0], -1.f);
  EXPECT_EQ(static_cast<float*>(g[1]->dense_cpu_data("test"))[1], -2.f);
}
