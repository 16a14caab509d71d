// Typed errors thrown by the core and kernels. csrc/python maps each to one Python exception type
// (one translation table, in csrc/python/errors.cpp). TN_CHECK is a user error; TN_ASSERT our bug.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>

namespace tn {

// LinAlg: upstream's TORCH_CHECK_LINALG, torch.linalg.LinAlgError (a RuntimeError) in Python.
enum class ErrorKind { Runtime, Value, Type, Index, NotImplemented, OutOfMemory, Internal, LinAlg };

struct Error : std::runtime_error {
  ErrorKind kind;
  Error(ErrorKind k, const std::string& msg) : std::runtime_error(msg), kind(k) {}
};

namespace detail {
inline void append(std::ostringstream&) {}
template <typename T, typename... R>
void append(std::ostringstream& os, const T& v, const R&... rest) {
  os << v;
  append(os, rest...);
}
template <typename... A>
[[noreturn]] void fail(ErrorKind kind, const A&... parts) {
  std::ostringstream os;
  append(os, parts...);
  throw Error(kind, os.str());
}
}  // namespace detail

}  // namespace tn

#define TN_CHECK_KIND(cond, kind, ...) \
  do {                                 \
    if (!(cond)) ::tn::detail::fail(::tn::ErrorKind::kind, __VA_ARGS__); \
  } while (0)
#define TN_CHECK(cond, ...) TN_CHECK_KIND(cond, Runtime, __VA_ARGS__)
#define TN_FAIL(kind, ...) ::tn::detail::fail(::tn::ErrorKind::kind, __VA_ARGS__)
#define TN_ASSERT(cond)                                                         \
  do {                                                                          \
    if (!(cond))                                                                \
      ::tn::detail::fail(::tn::ErrorKind::Internal, "torchnative internal error: ", #cond, \
                         " at ", __FILE__, ":", __LINE__);                      \
  } while (0)
