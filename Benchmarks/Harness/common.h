// What the benchmark families share: the engine list, the run profile, CPU pinning, a loop running on its own
// thread, a CPU-burning thread, per-thread kernel statistics, percentiles and the error conventions.
#pragma once

#include <benchmark/benchmark.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <sched.h>
#include <sys/types.h>
#include <time.h>

#include "bench_engine.h"
#include "bench_thread.h"

namespace rlbench {

/// How much each benchmark measures: `full` (`runloop bench --full`), `standard` (`runloop bench`), `quick`
/// (`runloop bench --quick`) or `smoke` (scripts/bench-smoke.sh: every code path once, no meaningful figures).
struct Profile {
    std::string name = "full";
    /// Timer coalescing: the measured window per repetition, in nanoseconds (10,000 fires a second).
    uint64_t coalescing_window_ns = 1000000000u;
    /// Timer coalescing: whether a window lasts at least one timer interval (K timers share 10,000 fires a second, so
    /// K = 10,000 have a 1 s interval). The fewest wake-ups of a window then number at least ten at every K, so one
    /// wake-up more than the fewest is within the 10 % the targets allow (coalescing.optimal); a 0.2 s window at
    /// K = 10,000 has two, and one more reads as 1.5x. The standard profile sets it; full's 1 s window has it anyway.
    bool coalescing_window_covers_interval = false;
    /// Scale: the largest N. CF's observer insertion is O(N) (it checks the mode's array for a duplicate first),
    /// so N = 100,000 costs CF about 45 s per repetition: only the full run goes that far.
    int scale_max = 100000;
    /// The watchdog's limit for one call of a benchmark function, in seconds: far beyond the longest call of the
    /// profile (a full run's CF observer benchmark at N = 100,000 takes about 45 s in one call; a smoke call well
    /// under a second), so only a hang reaches it.
    int watchdog_s = 300;
    /// Resident thread throughput: work items each producer hands to the loop per round.
    int resident_items = 10000;
    /// Lag monitor: injected stalls per repetition of each stall benchmark (each takes 0.3-0.6 s).
    int lag_stalls = 3;
    /// When above 0, every benchmark runs exactly this many iterations (--rl_iterations): for counting instructions
    /// under callgrind, where a time-based iteration count would differ from run to run.
    int fixed_iterations = 0;
};
Profile &profile();

/// The engines selected on the command line (all of them by default), in a fixed order.
const std::vector<const bench_engine *> &engines();
bool select_engines(const std::string &comma_separated, std::string *why);
/// Every engine, selected or not.
const std::vector<const bench_engine *> &all_engines();
/// A waiting variant of an engine: how the families that have them (wake latency, resident thread) name it and the
/// `create` flags that select it.
struct WaitVariant {
    const char *suffix;  // appended to the benchmark name: "" for the engine's default, "/spin:on", "/hold:off"
    unsigned flags;      // 0, BENCH_SPIN or BENCH_NO_HOLD
};
/// The waiting variants of `engine`: its default, `spin:on` when it has one (bench_engine.h, `spin_variant`) and,
/// with `with_hold_off`, `hold:off` when it has one (`hold_variant`).
std::vector<WaitVariant> wait_variants(const bench_engine *engine, bool with_hold_off = false);

/// Registration entry points, one per family (one file each).
void register_wake_latency();
void register_wake_path();
void register_observer_dispatch();
void register_timer_coalescing();
void register_scale();
void register_resident_throughput();
void register_lag_monitor();
void register_limits();

/// Registers one benchmark under `name` (the name without Google Benchmark's suffixes) that runs `body` under the
/// watchdog (see Watchdog) and, for the hang check only, the test hang hook (`set_test_hang`). Every family
/// registers through this, so no benchmark can hang the harness.
benchmark::internal::Benchmark *register_guarded(const std::string &name, std::function<void(benchmark::State &)> body);
/// Test-only: benchmarks whose name matches the extended regex `pattern` (RL_TEST_HANG) hang on purpose, so
/// scripts can check that the watchdog turns a hang into an error row and the run goes on. False if the pattern
/// is not a valid regex.
bool set_test_hang(const std::string &pattern);

// MARK: watchdog

/// One thread that ends the process when a watched piece of work (a benchmark call, a stress cycle) outlives its
/// limit: it calls the expiry handler (which writes what it can, e.g. an error row), then `_exit(3)`. A hung engine
/// cannot be stopped from outside, and a thread cannot be cancelled safely, so ending the process is the only
/// honest way out; `runloop bench` then runs the rest of the family in a new process.
namespace watchdog {
/// What to do on expiry, before the process ends: `what` is the watched name, `limit_s` its limit. Set once, before
/// any `arm`. Runs on the watchdog's thread while the hung work is still blocked.
void on_expiry(std::function<void(const std::string &what, int limit_s)> handler);
/// Starts watching `what` for `limit_s` seconds, replacing any earlier watch.
void arm(const std::string &what, int limit_s);
/// Stops watching.
void disarm();
/// The exit status of a process ended by the watchdog.
constexpr int kExitStatus = 3;
}  // namespace watchdog

/// Runs start/stop cycles of every selected engine's LoopThread, without and with a Burner on the loop's CPU, each
/// cycle under the watchdog; prints one line per engine and burner setting and returns the exit status (0 if every
/// cycle ended). For `--rl_stress=N` (scripts/bench-stress.sh, built with AddressSanitizer).
int run_stress(int cycles);

// MARK: errors

/// Reports that an engine cannot run this benchmark, with the reason. Google Benchmark 1.7.1 has no separate skip
/// state, so a skip is an error row whose message starts with "skipped:"; scripts/bench-smoke.sh tells the two apart.
void skip(benchmark::State &state, const std::string &reason);
/// Reports a real failure (an error row whose message starts with "error:").
void fail(benchmark::State &state, const std::string &reason);
/// A loop on the calling thread for a benchmark that drives it from this thread, or nullptr after reporting a skip:
/// when `needs_observers` and the engine has none, or when the engine cannot create a loop.
bench_loop *create_loop_or_skip(benchmark::State &state, const bench_engine *engine, bool needs_observers);

// MARK: CPUs

/// The CPUs this process may run on, from sched_getaffinity at start-up.
const std::vector<int> &usable_cpus();
/// The CPU loop threads are pinned to (the last usable one) and the other one for the client thread (the first).
int loop_cpu();
int client_cpu();

/// Pins the calling thread to one CPU for its lifetime and restores the previous affinity afterwards.
class ScopedPin {
   public:
    explicit ScopedPin(int cpu);
    ~ScopedPin();
    ScopedPin(const ScopedPin &) = delete;
    ScopedPin &operator=(const ScopedPin &) = delete;

   private:
    cpu_set_t saved_;
    bool restore_ = false;
};

/// A thread that spins on one CPU until destroyed: "a thread burning CPU".
class Burner {
   public:
    explicit Burner(int cpu);
    ~Burner();
    Burner(const Burner &) = delete;
    Burner &operator=(const Burner &) = delete;

   private:
    std::atomic<bool> stop_{false};
    std::thread thread_;
};

// MARK: a loop on its own thread

/// Runs an engine's loop on a new thread (pinned when `cpu` >= 0): creates it there, calls `setup` on that thread
/// before running, and `teardown` on it after the run, so every engine is used from its own thread only.
///
/// Why stopping is safe (the loop is never used after it is destroyed): the loop thread never destroys the loop on its
/// own. After `run` returns it records `returned` under `mutex_` and then waits for the owner's `released`; only after
/// that does it call `teardown` and `destroy`. The owner calls the engine's `stop` (any thread, by the contract in
/// bench_engine.h) only while it has not yet seen `returned`, so every such call happens before the owner sets
/// `released`, hence before `destroy`. Cross-thread calls the families make themselves (`source_signal`, `wakeups`)
/// happen between `wait_ready` and `stop`, so the same order covers them. `stop` repeats the engine's stop until it
/// sees `returned`: a stop that lands before `run` enters the engine's wait can be lost (CFRunLoopStop before a run
/// does nothing: rule stop.only-during-run). The old protocol (stop while the state says running, no release) let the
/// loop thread return, tear down and destroy between the owner's check and its call: a use-after-free that hung
/// `event_base_loopbreak` and `CFRunLoopWakeUp` on a freed mutex. `runloop-bench --rl_stress` checks the protocol under
/// AddressSanitizer (scripts/bench-stress.sh).
class LoopThread {
   public:
    using Hook = std::function<void(bench_loop *)>;
    LoopThread(const bench_engine *engine, unsigned flags, int cpu, Hook setup, Hook teardown);
    /// Stops and joins if still running.
    ~LoopThread();
    LoopThread(const LoopThread &) = delete;
    LoopThread &operator=(const LoopThread &) = delete;

    /// Waits until the loop exists and `setup` has returned. False (with the engine's reason) if it could not start.
    bool wait_ready(std::string *why);
    /// Stops the run (repeating `stop` until `run` returns), releases the loop thread to tear down and destroy the
    /// loop, and joins it. After this, `loop()` must not be used.
    void stop();

    /// The loop: valid from a successful `wait_ready` until `stop`.
    bench_loop *loop() const { return loop_; }
    /// The loop thread's voluntary context switches and CPU time so far: the thread's own figures, or the engine's
    /// `loop_switches` and `loop_cpu_ns` when its loop runs on threads of its own (nio, dispatch: bench_engine.h).
    /// Any thread, while the loop exists (from a successful `wait_ready` until `stop`).
    uint64_t switches() const;
    uint64_t cpu_ns() const;
    /// The kernel's id of the thread that runs `run` (not the engine's own threads, for nio and dispatch). Any
    /// thread, after a successful `wait_ready`.
    pid_t tid() const { return tid_.load(); }

   private:
    /// Lifecycle of the loop thread; changes under `mutex_`, each announced on `changed_`.
    enum class State {
        starting,  // creating the loop and running `setup`
        failed,    // the engine could not create a loop; the thread has ended its work
        running,   // in the engine's `run`
        returned,  // `run` has returned; the thread waits for `released` before tearing down
        released,  // the owner will not call into the loop again: the thread tears down and destroys it
    };

    void body(int cpu, unsigned flags);
    void set_state(State value);
    State wait_while(State value);

    const bench_engine *engine_;
    Hook setup_, teardown_;
    bench_loop *loop_ = nullptr;  // written by the loop thread before `running`, read by the owner after
    std::string why_;             // likewise, before `failed`
    std::mutex mutex_;
    std::condition_variable changed_;
    State state_ = State::starting;  // protected by mutex_
    std::atomic<pid_t> tid_{0};
    clockid_t cpu_clock_{};
    std::thread thread_;
    bool joined_ = false;  // owner's thread only
};

// MARK: measurements

/// The voluntary context switches of the loop's thread so far, read from inside one of the loop's callouts: the
/// calling thread's (bench_thread_switches), or the engine's `loop_switches` when it has one (bench_engine.h).
uint64_t callout_switches(const bench_engine *engine, bench_loop *loop);
/// A thread's CPU time so far, in nanoseconds (a clock from pthread_getcpuclockid, or CLOCK_THREAD_CPUTIME_ID for
/// the calling thread).
uint64_t thread_cpu_ns(clockid_t clock);
/// The calling thread's CPU time so far, in nanoseconds.
inline uint64_t own_cpu_ns() { return thread_cpu_ns(CLOCK_THREAD_CPUTIME_ID); }
/// The whole process's CPU time so far (every thread, a burner's too), in nanoseconds.
inline uint64_t process_cpu_ns() { return thread_cpu_ns(CLOCK_PROCESS_CPUTIME_ID); }
/// `after - before` of a CPU clock per unit of work, or a negative number when it cannot be a figure (no work, or a
/// clock that went back: dispatch's sum loses a worker that exited; bench_engine.h). Callers write a counter only
/// for a figure >= 0.
double cpu_per(uint64_t before, uint64_t after, double units);
/// The q-quantile (0...1) of the samples by nearest rank; reorders them. 0 for no samples.
double quantile(std::vector<uint64_t> &samples, double q);
/// The mean of the samples. 0 for no samples.
double mean(const std::vector<uint64_t> &samples);

/// A latency distribution seen as one or two modes (split_modes).
struct Modes {
    int count = 1;           // 1 or 2
    double split_ns = 0;     // the boundary between the two modes (0 when one mode)
    double low_share = 1;    // share of the samples below the split (1 when one mode)
    double low_p50_ns = 0;   // median of the samples below the split (the whole median when one mode)
    double high_share = 0;   // share at or above the split (0 when one mode)
    double high_p50_ns = 0;  // median at or above the split (0 when one mode)
};
/// Splits a distribution into two modes when it has two: a histogram of log2(sample) in bins of 1/24 octave between
/// the 1st and 99th percentiles, smoothed over 3 bins; its two peaks with the deepest valley between them are the
/// modes, provided the valley is at most 60 % of the lower peak and each side holds at least 10 % of the samples.
/// The split is the valley's lowest bin. Otherwise one mode. Reorders the samples.
Modes split_modes(std::vector<uint64_t> &samples);

/// The round-trip counters of BM_WakeLatency and BM_Limits: latency_mean_ns, latency_p50_ns, latency_p99_ns and the
/// modes (split_modes): latency_modes, latency_split_ns, latency_low_share, latency_low_p50_ns, latency_high_share,
/// latency_high_p50_ns. Reorders the samples.
void set_latency_counters(benchmark::State &state, std::vector<uint64_t> &samples);

/// The CPU cost counters of a family, per `unit` of its work (`wake`, `item`, `fire`): loop_cpu_ns_per_<unit> (the
/// loop thread's CPU time), post_cpu_ns_per_<unit> (the posting threads': the benchmark thread, or the producers) and
/// process_cpu_ns_per_<unit> (every thread of the process). A negative figure (cpu_per: not measurable) is left out.
void set_cpu_counters(benchmark::State &state, const std::string &unit, double loop, double post, double process);

/// Sleeps until a CLOCK_MONOTONIC time.
void sleep_until_ns(uint64_t deadline);

inline uint64_t now_ns() { return bench_now_ns(); }

}  // namespace rlbench
