// A small intrusive refcount (like c10::intrusive_ptr): the count lives in the object, so a raw
// pointer can be handed to Python and back without a control block.
#pragma once

#include <atomic>
#include <utility>

namespace tn {

class RefCounted {
 public:
  virtual ~RefCounted() = default;
  void incref() const { refs_.fetch_add(1, std::memory_order_relaxed); }
  void decref() const {
    if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }
  long use_count() const { return refs_.load(std::memory_order_relaxed); }

 private:
  mutable std::atomic<long> refs_{0};
};

template <typename T>
class Ptr {
 public:
  Ptr() = default;
  Ptr(T* p) : p_(p) { if (p_) p_->incref(); }  // NOLINT: implicit by design
  Ptr(const Ptr& o) : p_(o.p_) { if (p_) p_->incref(); }
  Ptr(Ptr&& o) noexcept : p_(o.p_) { o.p_ = nullptr; }
  template <typename U>
  Ptr(const Ptr<U>& o) : Ptr(o.get()) {}  // NOLINT
  ~Ptr() { if (p_) p_->decref(); }
  Ptr& operator=(Ptr o) noexcept { std::swap(p_, o.p_); return *this; }
  T* get() const { return p_; }
  T* operator->() const { return p_; }
  T& operator*() const { return *p_; }
  explicit operator bool() const { return p_ != nullptr; }
  bool operator==(const Ptr& o) const { return p_ == o.p_; }
  bool operator!=(const Ptr& o) const { return p_ != o.p_; }
  // Hands the reference to the caller (for storing a raw pointer in a Python object).
  T* release() { T* p = p_; p_ = nullptr; return p; }
  // Adopts a reference previously released.
  static Ptr adopt(T* p) { Ptr r; r.p_ = p; return r; }

 private:
  T* p_ = nullptr;
};

template <typename T, typename... A>
Ptr<T> make(A&&... a) {
  return Ptr<T>(new T(std::forward<A>(a)...));
}

}  // namespace tn
