// Family BM_LagMonitor: the seeds' stall detector ("lag monitor") on each engine that can host it.
//
// The monitor (class LagMonitor) is the seeds' design, with its defects fixed: an observer of every activity stores
// the activity it saw and posts a semaphore; a watchdog thread waits on the semaphore with a timeout of one beat
// (20 ms) and, when a wait times out while the last activity was BeforeSources or AfterWaiting (the loop is handling
// work, not asleep in its wait), counts a missed beat; 4 missed beats in a row (the threshold, 80 ms) are one stall,
// reported once. Any post resets the count. Fixed against the seeds (seed 000's SMLagMonitor, seed 002's Swift
// version): the activity is an atomic (the seeds read it from the watchdog thread unsynchronised); a stall is reported
// once, not on every beat after the threshold (SMLagMonitor keeps counting past 3 and reports again each beat); the
// wait is on CLOCK_MONOTONIC (sem_clockwait) and a missed beat's successor is timed from its deadline (the seeds
// restart the timeout after each late wake-up, so the threshold drifts by the watchdog's wake-up latencies).
// Seed 002's comment calls BeforeSources "before sleeping" (that is BeforeWaiting), it reports every pause longer than
// its one beat of 20 ms, and its endMonitor never removes the observer (its guard is inverted); seed 000's "3 timeouts
// of 80 ms in a row" reports only after 240 ms. Neither reports an 80 ms stall at 80 ms and stays quiet on a 50 ms one.
//
// Engines: CF and ref with a real observer of all activities; GLib with a GSource at the highest priority whose
// prepare marks BeforeWaiting and check AfterWaiting (dispatch comes after check: the same monitor); the epoll floor
// with its hooks before and after the wait. libuv and libevent skip with the reason (bench_engine.h:
// activity_observer_add).
//
// BM_LagMonitor/engine/busy: the monitor's cost on a busy loop. The loop runs on the benchmark thread, non-blocking
// passes (poll_once, one idle source keeps the mode non-empty) in blocks of 1,000, alternately without and with the
// monitor's observer (the watchdog thread runs throughout). Time per iteration = the monitored block (manual time).
// Counters: ns_per_pass_bare, ns_per_pass_monitored, overhead_ns_per_pass (their difference), marks_per_pass (the
// observer's callouts per pass: CF and ref 4 on a polling pass, the analogues 2), false_positives (reports: a busy
// loop is never stalled).
//
// BM_LagMonitor/engine/stall:{50,100,250}ms: one injected stall per iteration on a loop running on its own thread:
// the loop sleeps idle for two thresholds (asleep is not a stall), handles 20 short source callouts 2 ms apart, then
// one source callout sleeps for the stall's length; the iteration ends two beats after the threshold past the stall.
// A report between the stall's start and two beats after its end detects it when the stall is at least the threshold
// long; any other report is a false positive (so is any report on a 50 ms stall). Counters: stalls_injected,
// stalls_expected (those at least the threshold long), stalls_detected, false_positives, detection_delay_ns (the
// median over detected stalls of report time - (stall start + threshold), the stall start being the clock read at the
// entry of the stalling callout; absent when none was detected). Time per iteration: the real time of the scenario.
//
// An engine whose observer never calls the monitor (a CoreFoundation with dead observers) gets an error row in both,
// not an overhead of 0 and 0 false positives: the monitor did no work to measure.
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <memory>
#include <mutex>
#include <thread>

#include <semaphore.h>
#include <time.h>

#include "common.h"

namespace rlbench {
namespace {

constexpr uint64_t kMs = 1000000u;
constexpr uint64_t kThresholdNs = 80 * kMs;
constexpr int kBeats = 4;
constexpr uint64_t kBeatNs = kThresholdNs / kBeats;
constexpr int kBlockPasses = 1000;
constexpr int kTicks = 20;
constexpr uint64_t kTickGapNs = 2 * kMs;

/// The seeds' monitor (see the top of this file). `mark` runs on the loop thread; the rest on the benchmark thread.
class LagMonitor {
   public:
    LagMonitor() {
        sem_init(&beats_, 0, 0);
        thread_ = std::thread([this] { watch(); });
    }
    ~LagMonitor() {
        stop_.store(true);
        sem_post(&beats_);
        thread_.join();
        sem_destroy(&beats_);
    }
    LagMonitor(const LagMonitor &) = delete;
    LagMonitor &operator=(const LagMonitor &) = delete;

    /// The observer's callout.
    static void mark(void *context, unsigned activity) {
        LagMonitor *monitor = static_cast<LagMonitor *>(context);
        monitor->marks_++;
        monitor->activity_.store(activity, std::memory_order_relaxed);
        sem_post(&monitor->beats_);
    }
    /// Whether missed beats count (off while the observer is not installed). Any thread.
    void set_enabled(bool on) { enabled_.store(on); }
    /// The times of the stall reports so far.
    std::vector<uint64_t> reports() {
        std::lock_guard<std::mutex> guard(mutex_);
        return reports_;
    }
    /// Observer callouts so far; read on the thread that runs the loop.
    uint64_t marks() const { return marks_; }

   private:
    void watch() {
        int missed = 0;
        bool reported = false;
        uint64_t deadline = now_ns() + kBeatNs;
        for (;;) {
            struct timespec until = {(time_t)(deadline / 1000000000u), (long)(deadline % 1000000000u)};
            int waited = sem_clockwait(&beats_, CLOCK_MONOTONIC, &until);
            if (stop_.load()) return;
            if (waited == 0) {
                missed = 0;
                reported = false;
                deadline = now_ns() + kBeatNs;
                continue;
            }
            if (errno != ETIMEDOUT) continue;  // EINTR
            // The next beat counts from this one's deadline, not from the late wake-up: 4 beats are 80 ms after the
            // last post, not 80 ms plus 4 wake-up latencies.
            deadline += kBeatNs;
            unsigned activity = activity_.load(std::memory_order_relaxed);
            bool busy = activity == BENCH_ACTIVITY_BEFORE_SOURCES || activity == BENCH_ACTIVITY_AFTER_WAITING;
            if (!enabled_.load() || !busy) {
                missed = 0;
                continue;
            }
            if (++missed >= kBeats && !reported) {
                reported = true;
                std::lock_guard<std::mutex> guard(mutex_);
                reports_.push_back(now_ns());
            }
        }
    }

    sem_t beats_;
    std::atomic<unsigned> activity_{0};
    std::atomic<bool> enabled_{true};
    std::atomic<bool> stop_{false};
    uint64_t marks_ = 0;  // the loop thread's
    std::mutex mutex_;
    std::vector<uint64_t> reports_;  // protected by mutex_
    std::thread thread_;
};

void nothing(void *) {}

bool can_monitor(benchmark::State &state, const bench_engine *engine) {
    if (engine->activity_observer_add) return true;
    skip(state, engine->no_activity_observer ? engine->no_activity_observer : "the engine has no activity observer");
    return false;
}

void busy(benchmark::State &state, const bench_engine *engine) {
    if (!can_monitor(state, engine)) return;
    bench_loop *loop = create_loop_or_skip(state, engine, false);
    if (!loop) return;
    bench_item *keep_alive = engine->source_add(loop, nothing, nullptr);
    LagMonitor monitor;
    monitor.set_enabled(false);
    uint64_t bare_ns = 0, monitored_ns = 0, passes = 0, marks = 0;
    auto block = [&](bool monitored) -> uint64_t {
        bench_item *observer = nullptr;
        if (monitored) {
            observer = engine->activity_observer_add(loop, LagMonitor::mark, &monitor);
            monitor.set_enabled(true);
        }
        uint64_t marks_before = monitor.marks();
        uint64_t start = now_ns();
        for (int i = 0; i < kBlockPasses; i++) engine->poll_once(loop);
        uint64_t elapsed = now_ns() - start;
        if (monitored) {
            marks += monitor.marks() - marks_before;
            monitor.set_enabled(false);
            engine->observer_remove(loop, observer);
            engine->poll_once(loop);  // lets an engine finish a removal
        }
        return elapsed;
    };
    block(false);  // warm-up
    block(true);
    marks = 0;
    for (auto _ : state) {
        bare_ns += block(false);
        uint64_t elapsed = block(true);
        monitored_ns += elapsed;
        passes += kBlockPasses;
        state.SetIterationTime((double)elapsed / 1e9);
    }
    engine->source_remove(loop, keep_alive);
    engine->poll_once(loop);
    engine->destroy(loop);

    if (marks == 0) {
        // A monitor that never saw an activity is not a monitor that is cheap and quiet: no figure.
        fail(state,
             "the monitor's observer made no callout in " + std::to_string(passes) + " passes: nothing to measure");
        return;
    }
    double bare = (double)bare_ns / (double)passes, monitored = (double)monitored_ns / (double)passes;
    state.counters["ns_per_pass_bare"] = bare;
    state.counters["ns_per_pass_monitored"] = monitored;
    state.counters["overhead_ns_per_pass"] = monitored - bare;
    state.counters["marks_per_pass"] = (double)marks / (double)passes;
    state.counters["false_positives"] = (double)monitor.reports().size();
}

/// The stalling source: its callout sleeps `duration` and notes when it started and ended.
struct Stall {
    uint64_t duration = 0;
    uint64_t started = 0, ended = 0;  // written by the loop thread before `done`
    std::atomic<bool> done{false};
};

void stall_callout(void *context) {
    Stall *stall = static_cast<Stall *>(context);
    stall->started = now_ns();
    sleep_until_ns(stall->started + stall->duration);
    stall->ended = now_ns();
    stall->done.store(true, std::memory_order_release);
}

void stalls(benchmark::State &state, const bench_engine *engine, uint64_t duration) {
    if (!can_monitor(state, engine)) return;
    LagMonitor monitor;
    Stall stall;
    stall.duration = duration;
    bench_item *tick = nullptr, *stalling = nullptr, *observer = nullptr;
    LoopThread loop_thread(
        engine, 0, loop_cpu(),
        [&](bench_loop *loop) {
            tick = engine->source_add(loop, nothing, nullptr);
            stalling = engine->source_add(loop, stall_callout, &stall);
            observer = engine->activity_observer_add(loop, LagMonitor::mark, &monitor);
        },
        [&](bench_loop *loop) {
            engine->observer_remove(loop, observer);
            engine->source_remove(loop, stalling);
            engine->source_remove(loop, tick);
        });
    std::string why;
    if (!loop_thread.wait_ready(&why)) {
        skip(state, why);
        return;
    }
    bench_loop *loop = loop_thread.loop();
    std::vector<std::pair<uint64_t, uint64_t>> windows;  // [stall start, stall end]
    for (auto _ : state) {
        sleep_until_ns(now_ns() + 2 * kThresholdNs);  // idle: the loop sleeps in its wait
        for (int i = 0; i < kTicks; i++) {
            engine->source_signal(loop, tick);
            sleep_until_ns(now_ns() + kTickGapNs);
        }
        stall.done.store(false);
        engine->source_signal(loop, stalling);
        // Polls the flag every millisecond; the harness's watchdog ends a stall that never ends.
        while (!stall.done.load(std::memory_order_acquire)) sleep_until_ns(now_ns() + kMs);
        windows.emplace_back(stall.started, stall.ended);
        sleep_until_ns(stall.ended + kThresholdNs + 2 * kBeatNs);  // a late report still lands in this iteration
    }
    loop_thread.stop();

    if (monitor.marks() == 0) {
        // No activity ever reached the monitor: it could not have detected a stall, and 0 false positives would say
        // nothing.
        fail(state, "the monitor's observer made no callout in " + std::to_string(windows.size()) +
                        " stall scenarios: nothing to measure");
        return;
    }
    const bool expected = duration >= kThresholdNs;
    std::vector<uint64_t> reports = monitor.reports();
    std::vector<int64_t> delays;  // signed: the mark before the stalling callout precedes its clock read by a little
    uint64_t detected = 0, false_positives = 0;
    std::vector<bool> claimed(windows.size(), false);
    for (uint64_t report : reports) {
        bool matched = false;
        for (size_t i = 0; i < windows.size(); i++) {
            if (report < windows[i].first || report > windows[i].second + 2 * kBeatNs) continue;
            if (expected && !claimed[i]) {
                claimed[i] = true;
                detected++;
                delays.push_back((int64_t)report - (int64_t)(windows[i].first + kThresholdNs));
                matched = true;
            }
            break;
        }
        if (!matched) false_positives++;
    }
    state.counters["stalls_injected"] = (double)windows.size();
    state.counters["stalls_expected"] = expected ? (double)windows.size() : 0;
    state.counters["stalls_detected"] = (double)detected;
    state.counters["false_positives"] = (double)false_positives;
    if (!delays.empty()) {
        std::sort(delays.begin(), delays.end());
        state.counters["detection_delay_ns"] = (double)delays[delays.size() / 2];
    }
}

}  // namespace

void register_lag_monitor() {
    for (const bench_engine *engine : engines()) {
        std::string prefix = std::string("BM_LagMonitor/engine:") + engine->name;
        register_guarded(prefix + "/busy", [=](benchmark::State &state) { busy(state, engine); })
            ->UseManualTime()
            ->Unit(benchmark::kMicrosecond);
        for (int ms : {50, 100, 250}) {
            register_guarded(prefix + "/stall:" + std::to_string(ms) + "ms",
                             [=](benchmark::State &state) { stalls(state, engine, (uint64_t)ms * kMs); })
                ->Iterations(profile().lag_stalls)
                ->UseRealTime()
                ->Unit(benchmark::kMillisecond);
        }
    }
}

}  // namespace rlbench
