// Not a unit test: the C++ half of the agreement tests (tests/test_elementwise_agreement.py),
// which reach our kernels through the door before the Python argument binder exists. When
// TN_AGREE_CASES names a case file (inputs written by upstream torch, in its own process), each
// case runs through tn::call and what happened is written to TN_AGREE_RESULTS; without the
// variable the test skips.
//
// Case file, whitespace-separated tokens:
//   case <name> <op key> <nargs>, then one argument each:
//   T <dtype> <ndim> <sizes> <strides> <offset> <storage bytes> <hex>   a tensor (view of storage)
//   A <k>                                 the same tensor object as argument k
//   S i <int> | S d <hex double bits> | S b <0|1>                        a Scalar (Python number)
//   I <int> | F <hex double bits> | B <0|1> | N | STR <text>     int, float, bool, None, str
// Result file, one line per case:
//   <name> ok <dtype> <ndim> <sizes> <strides> <alias arg or -1> <hex of values, row-major>
//   <name> error <kind> <message>
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "dispatch/kernel.h"

using namespace tn;

namespace {

ScalarType dtype_named(const std::string& n) {
  for (int i = 0; i < kNumScalarTypes; ++i)
    if (n == kScalarTypeInfo[i].name) return static_cast<ScalarType>(i);
  throw std::runtime_error("unknown dtype " + n);
}

std::vector<uint8_t> unhex(const std::string& h) {
  std::vector<uint8_t> out(h.size() / 2);
  for (size_t i = 0; i < out.size(); ++i) out[i] = std::stoi(h.substr(2 * i, 2), nullptr, 16);
  return out;
}

std::string hex(const uint8_t* p, size_t n) {
  static const char* d = "0123456789abcdef";
  std::string s(2 * n, '0');
  for (size_t i = 0; i < n; ++i) {
    s[2 * i] = d[p[i] >> 4];
    s[2 * i + 1] = d[p[i] & 15];
  }
  return s;
}

double double_bits(const std::string& h) {
  uint64_t u = std::stoull(h, nullptr, 16);
  double d;
  std::memcpy(&d, &u, 8);
  return d;
}

Value read_arg(std::istream& in, const std::vector<Value>& prev) {
  std::string kind;
  in >> kind;
  if (kind == "T") {
    std::string dt;
    int64_t nd;
    in >> dt >> nd;
    Dims sizes(nd), strides(nd);
    for (auto& s : sizes) in >> s;
    for (auto& s : strides) in >> s;
    int64_t offset;
    size_t nbytes;
    std::string h;
    in >> offset >> nbytes;
    if (nbytes) in >> h;
    Storage st = make<StorageImpl>(nbytes, Device{}, true);
    std::vector<uint8_t> bytes = unhex(h);
    if (nbytes) std::memcpy(st->data(), bytes.data(), nbytes);
    return Value::of(make<TensorImpl>(st, dtype_named(dt), sizes, strides, offset,
                                      Representation::DenseCPU));
  }
  if (kind == "A") {
    size_t k;
    in >> k;
    return prev.at(k);
  }
  if (kind == "S") {
    std::string t, v;
    in >> t >> v;
    if (t == "i") return Value::of_scalar(Scalar::from_int(std::stoll(v)));
    if (t == "d") return Value::of_scalar(Scalar::from_double(double_bits(v)));
    return Value::of_scalar(Scalar::from_bool(v == "1"));
  }
  if (kind == "I") {
    int64_t v;
    in >> v;
    return Value::of_int(v);
  }
  if (kind == "F") {
    std::string v;
    in >> v;
    return Value::of_double(double_bits(v));
  }
  if (kind == "B") {
    int v;
    in >> v;
    return Value::of_bool(v != 0);
  }
  if (kind == "STR") {
    Value v;
    v.tag = Value::Tag::String;
    in >> v.str;
    return v;
  }
  if (kind == "N") return Value{};
  throw std::runtime_error("unknown argument kind " + kind);
}

// The values of t in row-major order, as bytes of its dtype.
std::string values_hex(const Tensor& t) {
  int isz = t->itemsize();
  std::vector<uint8_t> out(static_cast<size_t>(t->numel()) * isz);
  const uint8_t* base = static_cast<const uint8_t*>(t->dense_cpu_data("agreement"));
  std::vector<int64_t> idx(t->dim(), 0);
  for (int64_t n = 0; n < t->numel(); ++n) {
    int64_t off = 0;
    for (int64_t d = 0; d < t->dim(); ++d) off += idx[d] * t->stride(d);
    std::memcpy(&out[n * isz], base + off * isz, isz);
    for (int64_t d = t->dim() - 1; d >= 0; --d) {
      if (++idx[d] < t->size(d)) break;
      idx[d] = 0;
    }
  }
  return hex(out.data(), out.size());
}

const char* kind_name(ErrorKind k) {
  switch (k) {
    case ErrorKind::Value: return "ValueError";
    case ErrorKind::Type: return "TypeError";
    case ErrorKind::Index: return "IndexError";
    case ErrorKind::NotImplemented: return "NotImplementedError";
    case ErrorKind::OutOfMemory: return "MemoryError";
    default: return "RuntimeError";
  }
}

}  // namespace

TEST(Agreement, RunCasesFromFile) {
  const char* cases = std::getenv("TN_AGREE_CASES");
  const char* results = std::getenv("TN_AGREE_RESULTS");
  if (!cases || !results) GTEST_SKIP() << "TN_AGREE_CASES / TN_AGREE_RESULTS not set";
  std::ifstream in(cases);
  ASSERT_TRUE(in) << cases;
  std::ofstream out(results);
  std::string word;
  while (in >> word) {
    ASSERT_EQ(word, "case");
    std::string name, key;
    size_t nargs;
    in >> name >> key >> nargs;
    std::vector<Value> args;
    for (size_t i = 0; i < nargs; ++i) args.push_back(read_arg(in, args));
    out << name << ' ';
    try {
      std::vector<Value> r = call(key.c_str(), args);
      ASSERT_FALSE(r.empty());
      const Tensor& t = r[0].tensor;
      int alias = -1;
      for (size_t i = 0; i < args.size(); ++i)
        if (alias < 0 && args[i].tag == Value::Tag::Tensor && args[i].tensor.get() == t.get())
          alias = static_cast<int>(i);
      out << "ok " << tn::name(t->dtype()) << ' ' << t->dim();
      for (int64_t s : t->sizes()) out << ' ' << s;
      for (int64_t s : t->strides()) out << ' ' << s;
      out << ' ' << alias << ' ' << (t->numel() ? values_hex(t) : "-") << '\n';
    } catch (const Error& e) {
      std::string msg = e.what();
      for (char& ch : msg)
        if (ch == '\n') ch = ' ';
      out << "error " << kind_name(e.kind) << ' ' << msg << '\n';
    }
  }
}
