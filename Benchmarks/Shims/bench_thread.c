// Thread facts for the Swift shim (include/bench_thread.h).
#define _GNU_SOURCE
#include "bench_thread.h"

#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

_Static_assert(sizeof(cpu_set_t) <= sizeof(bench_cpu_mask), "bench_cpu_mask holds a cpu_set_t");

void bench_thread_affinity(bench_cpu_mask *mask) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0) memset(&set, 0xff, sizeof set);
    memset(mask, 0, sizeof *mask);
    memcpy(mask->bits, &set, sizeof set);
}

void bench_thread_set_affinity(const bench_cpu_mask *mask) {
    cpu_set_t set;
    memcpy(&set, mask->bits, sizeof set);
    sched_setaffinity(0, sizeof set, &set);
}

int bench_thread_id(void) { return (int)gettid(); }

uint64_t bench_thread_switches(void) {
    struct rusage usage;
    if (getrusage(RUSAGE_THREAD, &usage) != 0) return 0;
    return (uint64_t)usage.ru_nvcsw;
}

uint64_t bench_thread_switches_of(int tid) {
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/status", tid);
    FILE *file = fopen(path, "r");
    if (!file) return 0;
    char line[256];
    unsigned long long value = 0;
    while (fgets(line, sizeof line, file)) {
        if (sscanf(line, "voluntary_ctxt_switches: %llu", &value) == 1) break;
    }
    fclose(file);
    return value;
}
