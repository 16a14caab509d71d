// Dims: the sizes or strides of a tensor, and any other short list of int64 (an int[] argument).
// A vector whose first kInline elements live inside the object, as upstream's
// SmallVector<int64_t, 5> sizes: nearly every tensor has at most five dims, and a call that
// makes an output would otherwise allocate its shape, its strides and the broadcast shape on
// the heap each time (Note [Small host blocks] in core/backend.cpp measures what an allocation
// costs a small call). Longer lists move to the heap, as std::vector's do. The interface is the
// part of std::vector<int64_t> the code base uses; iterators are plain pointers. Pure C++.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <new>
#include <vector>

namespace tn {

class Dims {
 public:
  using value_type = int64_t;
  using size_type = size_t;
  using iterator = int64_t*;
  using const_iterator = const int64_t*;
  using reference = int64_t&;
  using const_reference = const int64_t&;
  static constexpr size_t kInline = 5;

  Dims() = default;
  explicit Dims(size_t n) { assign(n, 0); }
  Dims(size_t n, int64_t v) { assign(n, v); }
  Dims(std::initializer_list<int64_t> l) { assign(l.begin(), l.end()); }
  template <typename It, typename = decltype(*std::declval<It>())>
  Dims(It first, It last) {
    assign(first, last);
  }
  // From and to std::vector<int64_t> (lists built by code that needs a std::vector).
  Dims(const std::vector<int64_t>& v) { assign(v.begin(), v.end()); }  // NOLINT: implicit
  operator std::vector<int64_t>() const { return std::vector<int64_t>(begin(), end()); }

  Dims(const Dims& o) { assign(o.begin(), o.end()); }
  Dims(Dims&& o) noexcept { take(o); }
  Dims& operator=(const Dims& o) {
    if (this != &o) assign(o.begin(), o.end());
    return *this;
  }
  Dims& operator=(Dims&& o) noexcept {
    if (this != &o) {
      release();
      take(o);
    }
    return *this;
  }
  Dims& operator=(std::initializer_list<int64_t> l) {
    assign(l.begin(), l.end());
    return *this;
  }
  ~Dims() { release(); }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  size_t capacity() const { return cap_; }
  int64_t* data() { return data_; }
  const int64_t* data() const { return data_; }
  int64_t& operator[](size_t i) { return data_[i]; }
  const int64_t& operator[](size_t i) const { return data_[i]; }
  int64_t& front() { return data_[0]; }
  const int64_t& front() const { return data_[0]; }
  int64_t& back() { return data_[size_ - 1]; }
  const int64_t& back() const { return data_[size_ - 1]; }
  iterator begin() { return data_; }
  iterator end() { return data_ + size_; }
  const_iterator begin() const { return data_; }
  const_iterator end() const { return data_ + size_; }
  const_iterator cbegin() const { return data_; }
  const_iterator cend() const { return data_ + size_; }
  std::reverse_iterator<iterator> rbegin() { return std::reverse_iterator<iterator>(end()); }
  std::reverse_iterator<iterator> rend() { return std::reverse_iterator<iterator>(begin()); }
  std::reverse_iterator<const_iterator> rbegin() const {
    return std::reverse_iterator<const_iterator>(end());
  }
  std::reverse_iterator<const_iterator> rend() const {
    return std::reverse_iterator<const_iterator>(begin());
  }

  void reserve(size_t n) {
    if (n > cap_) grow(n);
  }
  void clear() { size_ = 0; }
  void push_back(int64_t v) {
    if (size_ == cap_) grow(cap_ * 2);
    data_[size_++] = v;
  }
  int64_t& emplace_back(int64_t v) {
    push_back(v);
    return back();
  }
  void pop_back() { --size_; }
  void resize(size_t n, int64_t v = 0) {
    reserve(n);
    for (size_t i = size_; i < n; ++i) data_[i] = v;
    size_ = n;
  }
  void assign(size_t n, int64_t v) {
    size_ = 0;
    resize(n, v);
  }
  template <typename It, typename = decltype(*std::declval<It>())>
  void assign(It first, It last) {
    size_t n = static_cast<size_t>(std::distance(first, last));
    if (n > cap_) {  // first..last may be our own elements: copy before freeing them
      Dims tmp;
      tmp.grow(n);
      std::copy(first, last, tmp.data_);
      tmp.size_ = n;
      *this = std::move(tmp);
      return;
    }
    int64_t* d = data_;  // forwards, element by element: safe for a range inside our own
    for (It i = first; i != last; ++i) *d++ = *i;
    size_ = n;
  }
  iterator insert(const_iterator pos, int64_t v) { return insert(pos, size_t{1}, v); }
  iterator insert(const_iterator pos, size_t n, int64_t v) {
    size_t at = static_cast<size_t>(pos - data_);
    reserve(size_ + n);  // v is a copy: safe when it was one of ours
    std::memmove(data_ + at + n, data_ + at, (size_ - at) * sizeof(int64_t));
    for (size_t i = 0; i < n; ++i) data_[at + i] = v;
    size_ += n;
    return data_ + at;
  }
  template <typename It, typename = decltype(*std::declval<It>())>
  iterator insert(const_iterator pos, It first, It last) {
    size_t at = static_cast<size_t>(pos - data_);
    Dims tmp(first, last);  // the range may be our own elements
    size_t n = tmp.size();
    reserve(size_ + n);
    std::memmove(data_ + at + n, data_ + at, (size_ - at) * sizeof(int64_t));
    std::copy(tmp.begin(), tmp.end(), data_ + at);
    size_ += n;
    return data_ + at;
  }
  iterator insert(const_iterator pos, std::initializer_list<int64_t> l) {
    return insert(pos, l.begin(), l.end());
  }
  iterator erase(const_iterator pos) { return erase(pos, pos + 1); }
  iterator erase(const_iterator first, const_iterator last) {
    size_t a = static_cast<size_t>(first - data_), b = static_cast<size_t>(last - data_);
    std::memmove(data_ + a, data_ + b, (size_ - b) * sizeof(int64_t));
    size_ -= b - a;
    return data_ + a;
  }
  void swap(Dims& o) noexcept {
    Dims tmp(std::move(o));
    o = std::move(*this);
    *this = std::move(tmp);
  }

  friend bool operator==(const Dims& a, const Dims& b) {
    if (a.size_ != b.size_) return false;
    for (uint32_t i = 0; i < a.size_; ++i)  // a loop, not memcmp: the lists are short
      if (a.data_[i] != b.data_[i]) return false;
    return true;
  }
  friend bool operator!=(const Dims& a, const Dims& b) { return !(a == b); }
  friend bool operator<(const Dims& a, const Dims& b) {
    return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end());
  }
  friend bool operator==(const Dims& a, const std::vector<int64_t>& b) {
    return a.size_ == b.size() && std::equal(a.begin(), a.end(), b.begin());
  }
  friend bool operator==(const std::vector<int64_t>& a, const Dims& b) { return b == a; }
  friend bool operator!=(const Dims& a, const std::vector<int64_t>& b) { return !(a == b); }
  friend bool operator!=(const std::vector<int64_t>& a, const Dims& b) { return !(b == a); }

 private:
  bool is_inline() const { return data_ == inline_; }
  void grow(size_t n) {
    if (n < kInline * 2) n = kInline * 2;
    auto* p = static_cast<int64_t*>(std::malloc(n * sizeof(int64_t)));
    if (!p) throw std::bad_alloc();
    std::memcpy(p, data_, size_ * sizeof(int64_t));
    release();
    data_ = p;
    cap_ = static_cast<uint32_t>(n);
  }
  void release() {
    if (!is_inline()) std::free(data_);
    data_ = inline_;
    cap_ = kInline;
  }
  // Takes o's elements (o must not hold heap memory of ours); o is left empty and inline.
  void take(Dims& o) {
    if (o.is_inline()) {
      for (uint32_t i = 0; i < o.size_; ++i) inline_[i] = o.inline_[i];
      data_ = inline_;
      cap_ = kInline;
    } else {
      data_ = o.data_;
      cap_ = o.cap_;
      o.data_ = o.inline_;
      o.cap_ = kInline;
    }
    size_ = o.size_;
    o.size_ = 0;
  }

  int64_t* data_ = inline_;
  uint32_t size_ = 0;
  uint32_t cap_ = kInline;
  int64_t inline_[kInline];
};

}  // namespace tn
