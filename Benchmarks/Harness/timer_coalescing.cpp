// Family BM_TimerCoalescing: how often a loop wakes to fire many timers, and how late they fire.
//
// K repeating timers with the same interval and staggered dates: timer i fires at T0 + i * 100 us + n * interval,
// interval = K * 100 us (100 ms for K = 1,000). So the loop has to fire 10,000 timers a second whatever K is; K sets
// how many timers are in the queue and, with tolerance, how many windows overlap. tolerance:10pct gives every timer a
// window of 10 % of its interval (10 ms at K = 1,000, so about 100 windows overlap); tolerance:0pct none. burn:yes
// adds a thread spinning on the loop's CPU.
//
// The loop runs on its own thread, pinned. Each callout checks its date against CLOCK_MONOTONIC, records the
// lateness and sets the timer's next date (timer_set_next), so every engine fires the same schedule, phase kept.
// Only timers dated inside the measured window count. It opens 10 ms after the first date and at least 10 ms after
// the K timers are added (if adding overran the lead, the overdue timers fire before the window). After it closes
// the loop runs on until every timer dated inside it has fired (a fire may come up to its tolerance later, and a
// starved or slow engine later still), at most 2 s past tolerance: stopping at a fixed time would drop exactly the
// late fires, and a short window could then count none. One iteration is one window (Iterations(1), UseManualTime
// with the window's length).
//
// Counters:
//   fires             timer fires dated inside the window
//   wakeups_per_fire  loop wake-ups per fire, one definition for every engine: the times the loop thread returned
//                     from a blocking kernel wait, from the first to the last of those fires. Each such fire reads the
//                     loop thread's voluntary context switches (getrusage(RUSAGE_THREAD) on the loop thread, in the
//                     callout; for nio and dispatch, whose loop is not the thread that created it, the shim's
//                     loop_switches: bench_engine.h, callout_switches in common.h); wake-ups = last - first + 1 (the
//                     return that brought the first fire, and every sleep after it up to the last). So wake-ups and
//                     fires are counted over the same fires, and no engine pays for a counter of its own (CF no longer
//                     runs an AfterWaiting observer here). A sleep on a contended lock counts too: it is a blocking
//                     kernel wait. dispatch's queue moves between worker threads: its count is the queue's side
//                     (engine_dispatch.c).
//   optimal_wakeups_per_fire  the fewest wake-ups that could have fired the window's fires on time, per fire: the
//                     minimum number of instants that stab every fire's [date, date + tolerance] interval (sorted by
//                     interval end, each instant placed at the earliest end not yet stabbed: greedy is optimal),
//                     over the dates of the fires seen; 1 without tolerance
//   cpu_ns_per_fire   CPU time of the loop thread over the wall-clock window, per fire (LoopThread::cpu_ns; for
//                     dispatch the workers that ran the queue, without its manager thread, which waits for the
//                     timers: a lower bound)
//   process_cpu_ns_per_fire  CPU time of every thread of the process over the window, per fire (burn:no only): the
//                     upper bound beside it (the benchmark thread sleeps through the window)
//   loop_cpu_share    the loop thread's CPU time over the window's length
//   cpu_idle_share    the idle time of the loop's CPU over the window's length (/proc/stat, in clock ticks of 10 ms:
//                     coarse for a smoke window)
//   loop_saturated    1 when loop_cpu_share >= 0.9 (the loop thread barely slept) or cpu_idle_share < 0.05 (its CPU
//                     never idled: a burner, or another process): few wake-ups per fire then show a loop that could
//                     not sleep, or that the scheduler woke late, not batching; the report must not read the row's
//                     wake-ups as coalescing
//   lateness_p50_ns, lateness_p99_ns, lateness_max_ns   fire time minus fire date
//   late_fires        fires later than tolerance + 1 ms
//   missed_fires      timers dated inside the window that had not fired 2 s after their tolerance (not in the
//                     other figures; counted so that a loop that falls far behind shows it rather than looking fast)
//   early_fires       fires before their date, anywhere in the run (not only the window): the engine's finding,
//                     reported in `runloop bench`'s report; the row stays a measurement (a harness error is a
//                     crash, a hang or a broken reply, not an engine that misbehaves)
//   earliest_by_ns    how far before its date the earliest of those fired (0 without early fires)
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>

#include <sys/resource.h>
#include <unistd.h>

#include "common.h"

namespace rlbench {
namespace {

constexpr uint64_t kSpacingNs = 100000;  // 100 us between consecutive timers' dates: 10,000 fires a second
constexpr uint64_t kLeadNs = 30000000;   // 30 ms before the first date, plus kLeadPerTimerNs per timer, for adding
constexpr uint64_t kLeadPerTimerNs = 5000;
constexpr uint64_t kSettleNs = 10000000;    // the window opens 10 ms after the first date (and after setup)
constexpr uint64_t kLateSlackNs = 1000000;  // "lateness never beyond tolerance + 1 ms"
constexpr uint64_t kDrainNs = 2000000000;   // how long past the window + tolerance the loop may take to catch up
constexpr double kSaturatedShare = 0.9;  // loop_saturated: the loop thread on a CPU at least this share of the window
constexpr double kIdleShare = 0.05;      // loop_saturated: or its CPU idle less than this share

struct Run;

struct Timer {
    Run *run;
    bench_item *item;
    uint64_t due;
};

struct Run {
    const bench_engine *engine;
    bench_loop *loop;
    uint64_t interval;
    uint64_t tolerance;
    uint64_t window_start, window_end;
    std::vector<uint64_t> lateness;  // loop thread only, read after the loop thread is joined
    std::vector<uint64_t> dates;     // the dates of the window's fires, early or not: likewise
    uint64_t early = 0;
    uint64_t earliest_by = 0;
    uint64_t late = 0;
    /// Fires of timers dated inside the window, early or not: written by the loop thread, read by the benchmark
    /// thread while it waits for the window's fires to be done.
    std::atomic<uint64_t> settled{0};
    /// The loop thread's voluntary context switches at the window's first and last fire (loop thread only, read
    /// after it is joined); `switch_reads` counts the fires that read them.
    uint64_t first_switches = 0, last_switches = 0, switch_reads = 0;
};

/// A CPU's idle time so far (idle + iowait, /proc/stat), in nanoseconds; -1 if unknown.
double cpu_idle_ns(int cpu) {
    FILE *file = fopen("/proc/stat", "r");
    if (!file) return -1;
    char line[512];
    char wanted[16];
    snprintf(wanted, sizeof wanted, "cpu%d ", cpu);
    double idle = -1;
    while (fgets(line, sizeof line, file)) {
        if (strncmp(line, wanted, strlen(wanted)) != 0) continue;
        unsigned long long user, nice, system, idle_ticks, iowait;
        if (sscanf(line + strlen(wanted), "%llu %llu %llu %llu %llu", &user, &nice, &system, &idle_ticks, &iowait) == 5)
            idle = (double)(idle_ticks + iowait) * 1e9 / (double)sysconf(_SC_CLK_TCK);
        break;
    }
    fclose(file);
    return idle;
}

void fired(void *context) {
    Timer *timer = static_cast<Timer *>(context);
    Run *run = timer->run;
    uint64_t now = now_ns();
    bool in_window = timer->due >= run->window_start && timer->due < run->window_end;
    if (now < timer->due) {
        run->early++;
        run->earliest_by = std::max(run->earliest_by, timer->due - now);
    } else if (in_window) {
        uint64_t lateness = now - timer->due;
        run->lateness.push_back(lateness);
        if (lateness > run->tolerance + kLateSlackNs) run->late++;
    }
    if (in_window) {
        uint64_t switches = callout_switches(run->engine, run->loop);
        if (run->switch_reads++ == 0) run->first_switches = switches;
        run->last_switches = switches;
        run->dates.push_back(timer->due);
        run->settled.fetch_add(1, std::memory_order_release);
    }
    timer->due += run->interval;
    run->engine->timer_set_next(run->loop, timer->item, timer->due);
}

/// The fewest instants that stab every [date, date + tolerance] interval. All intervals have the same length, so
/// sorting by date sorts them by end; an instant at the end of the first interval not yet stabbed stabs every
/// interval that starts by then, and no schedule can do with fewer (the classic interval-stabbing greedy).
uint64_t optimal_wakeups(std::vector<uint64_t> dates, uint64_t tolerance) {
    std::sort(dates.begin(), dates.end());
    uint64_t count = 0;
    bool placed = false;
    uint64_t instant = 0;
    for (uint64_t date : dates) {
        if (placed && date <= instant) continue;
        instant = date + tolerance;
        placed = true;
        count++;
    }
    return count;
}

void timer_coalescing(benchmark::State &state, const bench_engine *engine, int count, int tolerance_pct, bool burn) {
    uint64_t window = profile().coalescing_window_ns;
    Run run{};
    run.engine = engine;
    run.interval = (uint64_t)count * kSpacingNs;
    run.tolerance = run.interval * (uint64_t)tolerance_pct / 100;
    if (profile().coalescing_window_covers_interval) window = std::max(window, run.interval);
    run.lateness.reserve((size_t)(window / kSpacingNs) + 1024);
    run.dates.reserve((size_t)(window / kSpacingNs) + 1024);
    std::vector<Timer> timers((size_t)count);

    for (auto _ : state) {
        uint64_t first = now_ns() + kLeadNs + (uint64_t)count * kLeadPerTimerNs;
        int loop_on = loop_cpu();
        LoopThread loop_thread(
            engine, 0, loop_on,
            [&](bench_loop *loop) {
                run.loop = loop;
                for (int i = 0; i < count; i++) {
                    Timer &timer = timers[(size_t)i];
                    timer.run = &run;
                    timer.due = first + (uint64_t)i * kSpacingNs;
                    timer.item = engine->timer_add(loop, timer.due, run.interval, run.tolerance, fired, &timer);
                }
                run.window_start = std::max(first, now_ns()) + kSettleNs;
                run.window_end = run.window_start + window;
            },
            [&](bench_loop *loop) {
                for (Timer &timer : timers) engine->timer_remove(loop, timer.item);
            });
        std::string why;
        if (!loop_thread.wait_ready(&why)) {
            skip(state, why);
            return;
        }
        std::unique_ptr<Burner> burner;
        if (burn) burner.reset(new Burner(loop_on));

        // Every date is first + m * kSpacingNs (timer m % K, its (m / K)-th fire): how many lie inside the window.
        auto dates_before = [&](uint64_t t) { return t <= first ? 0 : (t - first + kSpacingNs - 1) / kSpacingNs; };
        const uint64_t dated_in_window = dates_before(run.window_end) - dates_before(run.window_start);

        sleep_until_ns(run.window_start);
        uint64_t cpu0 = loop_thread.cpu_ns(), process_cpu0 = process_cpu_ns();
        double idle0 = cpu_idle_ns(loop_on);
        sleep_until_ns(run.window_end);
        uint64_t cpu1 = loop_thread.cpu_ns(), process_cpu1 = process_cpu_ns();
        double idle1 = cpu_idle_ns(loop_on);
        // Let the window's fires finish (see the top of this file).
        const uint64_t drain_until = run.window_end + run.tolerance + kDrainNs;
        while (run.settled.load(std::memory_order_acquire) < dated_in_window && now_ns() < drain_until)
            sleep_until_ns(now_ns() + 1000000);
        burner.reset();
        loop_thread.stop();
        state.SetIterationTime((double)window / 1e9);

        const uint64_t settled = run.settled.load();
        double fires = (double)run.lateness.size();
        if (fires == 0) {
            fail(state, "none of the " + std::to_string(dated_in_window) + " timers dated inside the window fired " +
                            "within 2 s of its tolerance");
            return;
        }
        state.counters["missed_fires"] = (double)(dated_in_window > settled ? dated_in_window - settled : 0);
        state.counters["fires"] = fires;
        // Wake-ups and the optimum over the same fires (those dated inside the window, early ones included).
        const double window_fires = (double)run.switch_reads;
        const double wakeups = (double)(run.last_switches - run.first_switches + 1);
        state.counters["wakeups_per_fire"] = wakeups / window_fires;
        state.counters["optimal_wakeups_per_fire"] = (double)optimal_wakeups(run.dates, run.tolerance) / window_fires;
        state.counters["cpu_ns_per_fire"] = (double)(cpu1 - cpu0) / fires;
        // Not with a burner, whose CPU it would count (set_cpu_counters: the loop's figure is cpu_ns_per_fire above,
        // and timers have no posting thread).
        if (!burn) set_cpu_counters(state, "fire", -1, -1, cpu_per(process_cpu0, process_cpu1, fires));
        const double cpu_share = (double)(cpu1 - cpu0) / (double)window;
        const double idle_share = idle0 >= 0 && idle1 >= 0 ? (idle1 - idle0) / (double)window : 1;
        state.counters["loop_cpu_share"] = cpu_share;
        state.counters["cpu_idle_share"] = idle_share;
        state.counters["loop_saturated"] = cpu_share >= kSaturatedShare || idle_share < kIdleShare ? 1 : 0;
        state.counters["late_fires"] = (double)run.late;
        state.counters["early_fires"] = (double)run.early;
        state.counters["earliest_by_ns"] = (double)run.earliest_by;
        state.counters["lateness_max_ns"] = (double)*std::max_element(run.lateness.begin(), run.lateness.end());
        state.counters["lateness_p50_ns"] = quantile(run.lateness, 0.50);
        state.counters["lateness_p99_ns"] = quantile(run.lateness, 0.99);
    }
}

}  // namespace

void register_timer_coalescing() {
    for (const bench_engine *engine : engines()) {
        for (int count : {100, 1000, 10000}) {
            for (int tolerance : {0, 10}) {
                for (bool burn : {false, true}) {
                    std::string name = std::string("BM_TimerCoalescing/engine:") + engine->name +
                                       "/timers:" + std::to_string(count) + "/tolerance:" + std::to_string(tolerance) +
                                       "pct" + "/burn:" + (burn ? "yes" : "no");
                    register_guarded(
                        name, [=](benchmark::State &state) { timer_coalescing(state, engine, count, tolerance, burn); })
                        ->Iterations(1)
                        ->UseManualTime()
                        ->Unit(benchmark::kMillisecond);
                }
            }
        }
    }
}

}  // namespace rlbench
