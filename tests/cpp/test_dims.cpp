// Dims (core/dims.h) against std::vector<int64_t>: the same operations on both, in seeded
// random order, across the inline/heap boundary, must leave the same elements.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "core/dims.h"

namespace {

using tn::Dims;

void expect_same(const Dims& d, const std::vector<int64_t>& v, int step) {
  ASSERT_EQ(d.size(), v.size()) << "after step " << step;
  for (size_t i = 0; i < v.size(); ++i) ASSERT_EQ(d[i], v[i]) << "element " << i << ", step " << step;
  EXPECT_TRUE(d == v);
}

TEST(Dims, FollowsStdVectorThroughRandomOperations) {
  std::mt19937 rng(1234);
  for (int trial = 0; trial < 200; ++trial) {
    Dims d;
    std::vector<int64_t> v;
    for (int step = 0; step < 60; ++step) {
      int64_t x = static_cast<int64_t>(rng() % 1000) - 500;
      size_t at = v.empty() ? 0 : rng() % (v.size() + 1);
      switch (rng() % 9) {
        case 0: d.push_back(x), v.push_back(x); break;
        case 1: if (!v.empty()) d.pop_back(), v.pop_back(); break;
        case 2: {
          size_t n = rng() % 12;
          d.resize(n, x), v.resize(n, x);
          break;
        }
        case 3: d.insert(d.begin() + at, x), v.insert(v.begin() + static_cast<long>(at), x); break;
        case 4:
          if (at < v.size()) d.erase(d.begin() + at), v.erase(v.begin() + static_cast<long>(at));
          break;
        case 5: {  // a range of our own elements inserted into ourselves
          std::vector<int64_t> copy = v;
          d.insert(d.begin() + at, d.begin(), d.end());
          v.insert(v.begin() + static_cast<long>(at), copy.begin(), copy.end());
          break;
        }
        case 6: {  // assigned from a part of ourselves
          size_t from = v.empty() ? 0 : rng() % v.size();
          d.assign(d.begin() + from, d.end());
          v = std::vector<int64_t>(v.begin() + static_cast<long>(from), v.end());
          break;
        }
        case 7: {  // copies and moves keep the elements, inline or not
          Dims c = d;
          Dims m = std::move(c);
          d = m;
          break;
        }
        default: {
          Dims other(rng() % 9, x);
          d.swap(other);
          expect_same(other, v, step);
          v = std::vector<int64_t>(d.begin(), d.end());
          break;
        }
      }
      expect_same(d, v, step);
    }
  }
}

TEST(Dims, ComparesAndConvertsAsVectors) {
  Dims a{1, 2, 3, 4, 5, 6, 7};  // past the inline capacity
  std::vector<int64_t> v = a;
  EXPECT_EQ(v.size(), 7u);
  EXPECT_TRUE(a == Dims(v));
  EXPECT_FALSE(a != Dims(v));
  EXPECT_TRUE(Dims({1, 2}) < Dims({1, 3}));
  EXPECT_FALSE(Dims({1, 2}) == Dims({1, 2, 0}));
}

}  // namespace
