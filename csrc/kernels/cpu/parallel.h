// Intra-op parallelism of the CPU kernels: parallel_for(begin, end, grain, f), with upstream's
// at::parallel_for split (its OpenMP build), sized by torch.set_num_threads. Not a task system:
// one flat region per call, no nesting (a parallel_for inside another runs on its thread).
//
// Note [Intra-op threads are OpenMP's]
// We run on GNU OpenMP (libgomp), as upstream's CPU wheel does, rather than a pool of our own:
// MKL, which computes our GEMMs (blas_loader.h), already runs on libgomp's threads in this
// process, so our loops and its GEMMs share one team of workers and never spin against each
// other on the cores (a second pool's idle workers would busy-wait beside libgomp's after every
// GEMM). The team is always started at torch.get_num_threads() threads, and the work is split
// inside it as upstream's invoke_parallel splits it (min(threads, ceil(n / grain)) chunks of
// ceil(n / chunks)), so a kernel whose bits depend on where a chunk starts (ew_run_split's
// vector tails, _fused_adam_'s) gets upstream's chunks. libgomp's team cannot be used after a
// fork in a child (its pool's threads are gone: the child waits for them forever), so a
// pthread_atfork handler marks the child, and there every parallel_for runs its chunks one after
// another on the calling thread: the same chunks, hence the same bits, just not in parallel.
// The bodies given to parallel_for must not call door ops (the dispatcher's thread-local state
// lives on the calling thread) and must not touch Python.
#pragma once

#include <algorithm>
#include <cstdint>

#include "kernels/cpu/cpu_util.h"

namespace tn {

// Upstream's at::internal::GRAIN_SIZE: elementwise loops and copies split above it.
constexpr int64_t kGrainSize = 32768;

namespace parallel_detail {

// Runs body(ctx, tid) for tid in [0, threads) on libgomp's team (parallel.cpp, the one file
// compiled with -fopenmp); the first exception a thread throws is rethrown here.
void run_team(int threads, void (*body)(void*, int), void* ctx);
// Whether the calling thread is inside a parallel region (omp_in_parallel).
bool in_region();
// Whether libgomp's team may be started: false in a child forked after it ran (see the note).
bool team_usable();

}  // namespace parallel_detail

// Calls f(b, e) over [begin, end) as upstream's at::parallel_for(begin, end, grain, f) does:
// one call f(begin, end) when end - begin <= grain, at one thread or inside a parallel region;
// otherwise f on each of min(threads, ceil(n / grain)) chunks of ceil(n / chunks) elements,
// each on its own thread (one after another in a forked child; see the note).
template <typename F>
void parallel_for(int64_t begin, int64_t end, int64_t grain, const F& f) {
  if (begin >= end) return;
  const int64_t n = end - begin;
  const int threads = intra_op_threads();
  if (n <= grain || n <= 1 || threads <= 1 || parallel_detail::in_region()) {
    f(begin, end);
    return;
  }
  int64_t chunks = threads;
  if (grain > 0) chunks = std::min<int64_t>(chunks, (n + grain - 1) / grain);
  const int64_t chunk = (n + chunks - 1) / chunks;
  auto one = [&](int64_t tid) {
    int64_t b = begin + tid * chunk;
    if (b < end) f(b, std::min(end, b + chunk));
  };
  if (!parallel_detail::team_usable()) {
    for (int64_t t = 0; t < chunks; ++t) one(t);
    return;
  }
  using One = decltype(one);
  parallel_detail::run_team(threads, [](void* ctx, int tid) { (*static_cast<One*>(ctx))(tid); },
                            &one);
}

}  // namespace tn
