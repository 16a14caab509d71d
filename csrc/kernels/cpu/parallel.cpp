// The OpenMP side of parallel.h: the only file compiled with -fopenmp (CMakeLists.txt), so the
// kernels' objects stay free of OpenMP flags and pragmas (Note [Intra-op threads are OpenMP's]).
#include "kernels/cpu/parallel.h"

#include <omp.h>
#include <pthread.h>

#include <atomic>
#include <exception>

namespace tn {
namespace parallel_detail {

namespace {

std::atomic<bool> g_forked_child{false};

void mark_child() { g_forked_child.store(true, std::memory_order_relaxed); }

// Registered once, at load: a child forked at any later time is marked.
const bool g_atfork_registered = [] {
  return pthread_atfork(nullptr, nullptr, mark_child) == 0;
}();

}  // namespace

bool in_region() { return omp_in_parallel() != 0; }

bool team_usable() { return !g_forked_child.load(std::memory_order_relaxed); }

void run_team(int threads, void (*body)(void*, int), void* ctx) {
  std::atomic_flag failed = ATOMIC_FLAG_INIT;
  std::exception_ptr error;
  // A constant team size (torch.get_num_threads()), as upstream's region: libgomp keeps its
  // pool between regions of one size.
#pragma omp parallel num_threads(threads)
  {
    try {
      body(ctx, omp_get_thread_num());
    } catch (...) {
      if (!failed.test_and_set()) error = std::current_exception();
    }
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace parallel_detail
}  // namespace tn
