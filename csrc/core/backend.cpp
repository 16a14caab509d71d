// The device table's rows and the counted copies between devices (see backend.h).
#include "core/backend.h"

#include <atomic>
#include <cstring>
#include <mutex>

#include <pthread.h>

#include "core/error.h"
#include "core/storage.h"

namespace tn {
namespace {

struct Row {
  Backend backend;
  bool registered = false;
  std::once_flag probed;
  Availability answer;  // the probe's answer, asked once (availability does not change)
  std::atomic<uint64_t> to_device{0}, to_host{0}, bytes_to_device{0}, bytes_to_host{0};
};

Row* rows() {
  static Row* r = new Row[kNumDeviceTypes];
  return r;
}

Row& row(DeviceType t) { return rows()[static_cast<int>(t)]; }

// Note [Small host blocks]
// Small tensors come and go on every call (a 2x2 add's result), and aligned_alloc's memalign
// path costs about as much as the rest of such a call's allocations together; for decode's
// mid-sized ones (a KV cache's cat, 10 to 200 KiB) glibc also consolidates its fast bins on
// each such request. Freed blocks of up to kLargestCached bytes are kept per thread in size
// classes of powers of two (64 bytes and up, each at most kept_in_class(c) blocks) and handed
// out again; larger ones go back to the system at once. A block freed on another thread joins that thread's lists. Under AddressSanitizer
// nothing is cached, so a use after free is still caught.
constexpr size_t kSmallestCached = 64;
constexpr int kClasses = 13;  // 64 bytes .. 256 KiB
constexpr size_t kLargestCached = kSmallestCached << (kClasses - 1);
constexpr int kPerClass = 32;
// Blocks kept in class c: 32 up to 4 KiB, 8 up to 32 KiB, 4 above: at most 2.5 MiB a thread.
constexpr int kept_in_class(int c) { return c <= 6 ? kPerClass : (c <= 9 ? 8 : 4); }

int size_class(size_t nbytes) {  // the class whose blocks hold nbytes, or -1
  if (nbytes == 0 || nbytes > kLargestCached) return -1;
  int c = 0;
  while ((kSmallestCached << c) < nbytes) ++c;
  return c;
}

struct BlockCache {
  void* blocks[kClasses][kPerClass];
  int count[kClasses] = {};
  ~BlockCache() {
    for (int c = 0; c < kClasses; ++c)
      for (int i = 0; i < count[c]; ++i) cpu_free(blocks[c][i]);
  }
};

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kCacheBlocks = false;
#else
constexpr bool kCacheBlocks = true;
#endif

// Note [Large host blocks]
// Above kLargestCached, glibc serves a block from its heap or a fresh mapping, and hands the
// memory back to the system when a freed block borders the heap's top (its trim threshold)
// or was mapped: the next block of that size faults in and zeroes every page again. A
// transformer's MLP makes a chain of same-sized temporaries (GPT-2's gelu_new: 8 of 12 MiB
// a layer at 1024 tokens); how often glibc trims under that chain depends on the heap's
// layout, and ours trimmed more than upstream's: a GPT-2 forward at 1024 tokens took 293,000
// minor faults against upstream's 190,000 (0.17 s more system time, 7% of the call); with
// glibc's trimming turned off, both ~50,000 (the logits) at equal speed. So freed blocks of up
// to kLargestRecycled are kept, process-wide, at most kRecycledBytes of them (the oldest go
// back first), and a request takes the smallest kept block that holds it with at most a
// quarter to spare.
constexpr size_t kLargestRecycled = size_t{64} << 20;
constexpr size_t kRecycledBytes = size_t{128} << 20;
constexpr int kMaxRecycled = 16;

struct LargeBlocks {
  std::mutex mutex;
  struct Block {
    void* p;
    size_t bytes;  // what it was asked for when freed: at most what it holds
  };
  Block kept[kMaxRecycled];
  int count = 0;  // kept[0] the oldest
  size_t total = 0;

  void* take(size_t nbytes) {
    std::lock_guard<std::mutex> lock(mutex);
    int best = -1;
    for (int i = 0; i < count; ++i)
      if (kept[i].bytes >= nbytes && kept[i].bytes - nbytes <= nbytes / 4 &&
          (best < 0 || kept[i].bytes < kept[best].bytes))
        best = i;
    if (best < 0) return nullptr;
    void* p = kept[best].p;
    total -= kept[best].bytes;
    for (int i = best + 1; i < count; ++i) kept[i - 1] = kept[i];
    --count;
    return p;
  }
  // Keeps p, freeing the oldest kept blocks as the limits require.
  void keep(void* p, size_t nbytes) {
    void* evicted[kMaxRecycled];
    int n = 0;
    {
      std::lock_guard<std::mutex> lock(mutex);
      while (count > 0 && (count == kMaxRecycled || total + nbytes > kRecycledBytes)) {
        evicted[n++] = kept[0].p;
        total -= kept[0].bytes;
        for (int i = 1; i < count; ++i) kept[i - 1] = kept[i];
        --count;
      }
      kept[count++] = {p, nbytes};
      total += nbytes;
    }
    for (int i = 0; i < n; ++i) cpu_free(evicted[i]);
  }
};

// Never destroyed: tensors may be freed during interpreter teardown, after static destructors.
LargeBlocks& large_blocks() {
  static LargeBlocks* blocks = [] {
    auto* b = new LargeBlocks;
    // A fork while another thread holds the lock would leave the child's copy locked.
    pthread_atfork([] { large_blocks().mutex.lock(); }, [] { large_blocks().mutex.unlock(); },
                   [] { large_blocks().mutex.unlock(); });
    return b;
  }();
  return *blocks;
}

bool recycled(size_t nbytes) {
  return kCacheBlocks && nbytes > kLargestCached && nbytes <= kLargestRecycled;
}

struct HostAllocator final : Allocator {
  void* allocate(size_t nbytes) override {
    if (recycled(nbytes)) {
      void* p = large_blocks().take(nbytes);
      return p ? p : cpu_alloc(nbytes);
    }
    int c = kCacheBlocks ? size_class(nbytes) : -1;
    if (c < 0) return cpu_alloc(nbytes);
    BlockCache& cache = t_cache;
    if (cache.count[c] > 0) return cache.blocks[c][--cache.count[c]];
    return cpu_alloc(kSmallestCached << c);
  }
  void release(void* p, size_t nbytes) override {
    if (p && recycled(nbytes)) return large_blocks().keep(p, nbytes);
    int c = kCacheBlocks && p ? size_class(nbytes) : -1;
    if (c >= 0) {
      BlockCache& cache = t_cache;
      if (cache.count[c] < kept_in_class(c)) {
        cache.blocks[c][cache.count[c]++] = p;
        return;
      }
    }
    cpu_free(p);
  }
  static thread_local BlockCache t_cache;
};
thread_local BlockCache HostAllocator::t_cache;

}  // namespace

Allocator& host_allocator() {
  static HostAllocator allocator;
  return allocator;
}

void register_backend(const Backend& b) {
  Row& r = row(b.type);
  TN_ASSERT(!r.registered);
  r.backend = b;
  r.registered = true;
}

Availability availability(DeviceType t) {
  const Row& r = row(t);
  if (!r.registered) {
    Availability a;
    a.probe = device_type_name(t);
    a.reason = "torchnative was built without a back end for this device";
    return a;
  }
  Row& w = row(t);
  std::call_once(w.probed, [&w] { w.answer = w.backend.probe(); });
  return w.answer;
}

const Backend& backend(DeviceType t) {
  const Row& r = row(t);
  TN_CHECK_KIND(r.registered, NotImplemented, "torchnative has no '", device_type_name(t),
                "' back end: tensors cannot live on that device");
  if (!r.answer.available) {
    Availability a = availability(t);
    TN_CHECK(a.available, "the '", device_type_name(t), "' device is not available (", a.probe,
             "): ", a.reason);
  }
  return r.backend;
}

void copy_bytes(DeviceType dst_type, void* dst, DeviceType src_type, const void* src,
                size_t nbytes) {
  if (nbytes == 0) return;
  if (dst_type == DeviceType::CPU && src_type == DeviceType::CPU) {
    std::memmove(dst, src, nbytes);
    return;
  }
  if (dst_type == src_type) {
    backend(dst_type).copy_on_device(dst, src, nbytes);
    return;
  }
  TN_ASSERT(dst_type == DeviceType::CPU || src_type == DeviceType::CPU);
  if (src_type == DeviceType::CPU) {
    backend(dst_type).copy_from_host(dst, src, nbytes);
    Row& r = row(dst_type);
    r.to_device.fetch_add(1);
    r.bytes_to_device.fetch_add(nbytes);
  } else {
    backend(src_type).copy_to_host(dst, src, nbytes);
    Row& r = row(src_type);
    r.to_host.fetch_add(1);
    r.bytes_to_host.fetch_add(nbytes);
  }
}

TransferCounts transfer_counts(DeviceType t) {
  const Row& r = row(t);
  TransferCounts c;
  c.to_device = r.to_device.load();
  c.to_host = r.to_host.load();
  c.bytes_to_device = r.bytes_to_device.load();
  c.bytes_to_host = r.bytes_to_host.load();
  return c;
}

void reset_transfer_counts(DeviceType t) {
  Row& r = row(t);
  r.to_device = 0;
  r.to_host = 0;
  r.bytes_to_device = 0;
  r.bytes_to_host = 0;
}

}  // namespace tn
