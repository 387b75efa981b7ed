// What the two round-trip families share, BM_WakeLatency (a round trip through an engine) and BM_Limits (a round trip
// through a bare hand-off): the pinning argument, the blocking eventfd hand-off, registration, and the measured part
// of a repetition: the untimed warm-up, the timed round trips with the CPU clocks read around them, and the counters.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common.h"

namespace rlbench {

/// Where the benchmark thread runs. The other side (the loop thread, or the responder) is pinned to loop_cpu(); the
/// benchmark thread to the same CPU (pin:same) or to client_cpu() (pin:diff).
enum class Pin { same, diff };
/// The pin arguments with their names in a benchmark's name (`/pin:same`), in registration order.
inline constexpr std::pair<Pin, const char *> kPins[] = {{Pin::same, "same"}, {Pin::diff, "diff"}};

/// The CPU the benchmark thread is pinned to for `pin`.
int benchmark_cpu(Pin pin);
/// False, after reporting a skip, when this process cannot have `pin`: pin:diff with only one usable CPU.
bool pin_usable(benchmark::State &state, Pin pin);

/// The CPU's spin-wait hint, for a thread polling a line another CPU will write (no system call, no sleep).
inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
}

/// The `load:idle1000` items of the wake-up round trips: 1,000 sources never signalled and 1,000 timers an hour away,
/// added on the loop's thread before the round trips and removed there after them.
struct IdleItems {
    static constexpr int kCount = 1000;
    std::vector<bench_item *> sources, timers;
    /// Adds them to `loop`. Loop thread.
    void add(const bench_engine *engine, bench_loop *loop);
    /// Removes what `add` added. Loop thread.
    void remove(const bench_engine *engine, bench_loop *loop);
};

/// Adds 1 to an eventfd. False if the write failed.
bool post_eventfd(int fd);
/// Reads a blocking eventfd: sleeps until it is signalled, reading again when a signal interrupts the read. False if
/// the read failed.
bool take_eventfd(int fd);

/// Registers a round-trip benchmark (register_guarded): manual time (the round trips are timed on the benchmark
/// thread, setup excluded), reported in nanoseconds.
void register_round_trip(const std::string &name, std::function<void(benchmark::State &)> body);

/// The CPU clocks a round-trip benchmark reads before and after its timed round trips, nanoseconds: the loop's (or
/// the responder's) thread, the benchmark thread (own_cpu_ns) and the whole process.
struct RoundTripClocks {
    uint64_t loop = 0, post = 0, process = 0;
};

/// A repetition's round trips: the timed samples, the clocks around them, and whether any round trip failed.
struct RoundTrips {
    std::vector<uint64_t> samples;
    RoundTripClocks before, after;
    bool broken = false;
};

/// Round trips run untimed before the timed ones: the first wake-ups fault pages in and grow engines' arrays.
constexpr int kWarmupRoundTrips = 200;

/// Times a round trip per iteration of `state` (manual time, CLOCK_MONOTONIC on the calling thread) and keeps every
/// sample. False if a round trip failed (the loop goes on, so the repetition still ends).
template <typename RoundTrip>
bool time_round_trips(benchmark::State &state, RoundTrip round_trip, std::vector<uint64_t> &samples) {
    samples.reserve((size_t)state.max_iterations);
    bool ok = true;
    for (auto _ : state) {
        uint64_t start = bench_now_ns();
        if (!round_trip()) ok = false;
        uint64_t elapsed = bench_now_ns() - start;
        samples.push_back(elapsed);
        state.SetIterationTime((double)elapsed / 1e9);
    }
    return ok;
}

/// The measured part of a repetition: kWarmupRoundTrips untimed round trips, then the timed ones (time_round_trips),
/// with the clocks read before and after them; `loop_cpu_ns()` reads the other side's CPU clock. `broken` if any
/// round trip failed, a warm-up one included.
template <typename RoundTrip, typename LoopClock>
RoundTrips measure_round_trips(benchmark::State &state, RoundTrip round_trip, LoopClock loop_cpu_ns) {
    RoundTrips run;
    for (int i = 0; i < kWarmupRoundTrips; i++) run.broken |= !round_trip();
    run.before = {loop_cpu_ns(), own_cpu_ns(), process_cpu_ns()};
    run.broken |= !time_round_trips(state, round_trip, run.samples);
    run.after = {loop_cpu_ns(), own_cpu_ns(), process_cpu_ns()};
    return run;
}

/// Ends a round-trip benchmark once its threads are stopped: fails it with `broken_reason` if a round trip failed,
/// or if none was timed; else sets its latency counters (set_latency_counters) and its CPU per wake-up
/// (set_cpu_counters, unit `wake`). `loop_known` false leaves the loop's CPU out (no clock of its thread),
/// `process_known` false the process's (a burner's CPU is in it). Reorders the samples.
void finish_round_trips(benchmark::State &state, RoundTrips &run, const char *broken_reason, bool loop_known,
                        bool process_known);

}  // namespace rlbench
