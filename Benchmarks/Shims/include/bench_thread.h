// Facts about the calling thread that Swift cannot reach through Glibc's module (the GNU extensions
// sched_getaffinity, sched_setaffinity, gettid, getrusage's RUSAGE_THREAD): for the `nio` shim
// (Benchmarks/NIOShim/NIOEngine.swift), whose loop runs on a thread of its own, and for the harness's per-thread
// figures (Benchmarks/Harness/common.cpp). Implemented in bench_thread.c.
#ifndef RUNLOOPSUITE_BENCH_THREAD_H
#define RUNLOOPSUITE_BENCH_THREAD_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A copy of a thread's CPU affinity (a cpu_set_t's bytes).
typedef struct {
    unsigned char bits[128];
} bench_cpu_mask;

/// The calling thread's CPU affinity (every CPU if it cannot be read).
void bench_thread_affinity(bench_cpu_mask *mask);
/// Gives the calling thread that affinity.
void bench_thread_set_affinity(const bench_cpu_mask *mask);
/// The calling thread's kernel id.
int bench_thread_id(void);
/// The calling thread's voluntary context switches so far (getrusage RUSAGE_THREAD).
uint64_t bench_thread_switches(void);
/// Another thread's of this process, from /proc/self/task/TID/status (0 if unreadable).
uint64_t bench_thread_switches_of(int tid);

#ifdef __cplusplus
}
#endif

#endif
