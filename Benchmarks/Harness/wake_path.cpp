// Family BM_WakePath: the same-CPU wake-up round trip of BM_WakeLatency (a source signalled from another thread, its
// callout answering on a blocking eventfd), with every round trip on one known path of the engine, for exact
// instruction counts (`runloop bench --instructions --family wake`). Registered only with --rl_iterations (a count
// under callgrind): the constructions below fix the path, and their timing is not a latency worth reporting.
//
// In BM_WakeLatency the path of each round trip depends on where the loop thread is when the signal lands: still in
// its pass (awake: the wake-up is consumed by the next poll, no sleep) or in its blocking wait (asleep: the signal
// wakes it from the kernel, and the loop makes a second pass before it sleeps again). The mix changes from run to run,
// so a count per round trip there is not exact. Here:
//   path:awake   each signal is made while the loop thread is inside the previous signal's callout: the callout
//                answers, then blocks reading a second eventfd (`go`) that the benchmark thread writes after its next
//                signal. So every signal finds the loop awake, before its wait, and the callout returns into a pass
//                whose poll takes the wake-up. Every engine whose callouts run on the loop thread can do this.
//   path:asleep  each signal is made only once the loop thread is blocked in its wait system call: the round trips
//                run on a thread of their own at SCHED_IDLE on the loop's CPU (it runs only when the loop thread does
//                not: after the reply, once the loop has finished its passes and sleeps), and before each signal it
//                reads /proc/self/task/<loop thread>/syscall, which names the system call a blocked thread is in
//                (epoll_wait, poll and their variants count as the wait) and says "running" otherwise; a check that
//                does not find the wait yields and checks again (counter `sleep_rechecks`). The callout first reads
//                `go`, which the round trips' thread writes once its signal has returned, so the loop's pass after the
//                wake-up always finds the signal's bookkeeping done: ref's poll after the callout skips its system
//                call when the waker has counted its eventfd write and makes it when not, and without the hold the
//                round trips of a run settled on one or the other by chance. Engines whose loop runs on threads they
//                own (nio, dispatch) are skipped: the harness does not know those threads.
// Both paths: the first signal is made once the loop sleeps (same check), so every run starts from the same state.
// Counted under callgrind (`counting`): the timed round trips of the two threads, not the checks, the warm-up, the
// threads' start and stop. Harness work per round trip, the same for every engine and both paths: the reply's write
// and read, the go eventfd's write and read, Google Benchmark's loop.
// Loads as BM_WakeLatency's: none, and idle1000 (1,000 idle sources and 1,000 idle timers). Real time per iteration
// (UseRealTime) is reported, nothing else.
#include <sched.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <fcntl.h>

#include <atomic>
#include <cstdlib>
#include <thread>

#include "round_trip.h"

// valgrind's client requests (Debian's valgrind package installs the header): without it the harness still counts,
// with the threads' start and stop in the totals, which then vary from run to run.
#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#endif
#endif
#ifndef CALLGRIND_TOGGLE_COLLECT
#define CALLGRIND_TOGGLE_COLLECT
#endif

namespace rlbench {
namespace {

enum class Path { awake, asleep };

/// Under callgrind, stops (`on` false) or resumes (`on` true) counting the calling thread's instructions; callgrind's
/// collection state is per thread, and every thread starts counted. Outside callgrind, nothing.
void counting(bool on) {
    static thread_local bool collecting = true;
    if (collecting == on) return;
    collecting = on;
    CALLGRIND_TOGGLE_COLLECT;
}

/// The calling thread not counted from its construction until its destruction (the benchmark's thread, for the whole
/// call: its round trips count themselves).
struct Uncounted {
    Uncounted() { counting(false); }
    ~Uncounted() { counting(true); }
};

/// The callout's state: two eventfds, and whether the loop thread is to be counted.
struct PathContext {
    int reply = -1;
    int go = -1;
    /// Set by the signalling thread before a signal, read by that signal's callout, which makes the loop thread's
    /// counting follow it (`counting`): the loop thread is counted from the callout of the first timed round trip to
    /// the callout of the signal after the last one, the signalling thread over the timed round trips, so the totals
    /// hold N round trips of each thread and none of the loop thread's start and stop, whose steps follow the timing
    /// (during the stop, a wait for a wake-up write in flight spins until the writing thread runs again) and would
    /// move the totals by thousands of instructions from run to run.
    std::atomic<bool> counted{false};
    bool broken = false;  // a write or read failed; loop thread only until the loop thread has stopped
};

void answer_then_hold(void *context) {
    auto *path = static_cast<PathContext *>(context);
    counting(path->counted.load(std::memory_order_acquire));
    if (!post_eventfd(path->reply)) path->broken = true;
    if (!take_eventfd(path->go)) path->broken = true;
}

void hold_then_answer(void *context) {
    auto *path = static_cast<PathContext *>(context);
    counting(path->counted.load(std::memory_order_acquire));
    if (!take_eventfd(path->go)) path->broken = true;
    if (!post_eventfd(path->reply)) path->broken = true;
}

/// Whether the thread whose /proc/self/task/<tid>/syscall file is open as `fd` is blocked in a wait system call.
bool blocked_in_wait(int fd) {
    char text[32];
    ssize_t got = pread(fd, text, sizeof text - 1, 0);
    if (got <= 0) return false;
    text[got] = '\0';
    char *end = nullptr;
    long number = strtol(text, &end, 10);
    if (end == text) return false;  // "running"
    switch (number) {
        case SYS_epoll_pwait:
        case SYS_ppoll:
        case SYS_pselect6:
#ifdef SYS_epoll_wait
        case SYS_epoll_wait:
#endif
#ifdef SYS_epoll_pwait2
        case SYS_epoll_pwait2:
#endif
#ifdef SYS_poll
        case SYS_poll:
#endif
#ifdef SYS_select
        case SYS_select:
#endif
            return true;
        default: return false;
    }
}

/// Makes the calling thread SCHED_IDLE: it runs only when nothing else wants its CPU. False if refused.
bool schedule_idle() {
    sched_param none{};
    return pthread_setschedparam(pthread_self(), SCHED_IDLE, &none) == 0;
}

void wake_path(benchmark::State &state, const bench_engine *engine, bool idle_load, Path path) {
    if (path == Path::asleep && engine->loop_cpu_ns) {
        skip(state, "the engine's loop runs on threads of its own, which the harness cannot watch for its wait");
        return;
    }
    Uncounted uncounted;
    int loop_on = loop_cpu();
    ScopedPin pinned(loop_on);
    PathContext context;
    context.reply = eventfd(0, EFD_CLOEXEC);
    context.go = eventfd(0, EFD_CLOEXEC);
    struct Closer {
        PathContext &context;
        ~Closer() {
            if (context.reply >= 0) close(context.reply);
            if (context.go >= 0) close(context.go);
        }
    } closer{context};
    if (context.reply < 0 || context.go < 0) {
        fail(state, "eventfd() failed");
        return;
    }
    bench_item *source = nullptr;
    IdleItems idle;
    LoopThread loop_thread(
        engine, 0, loop_on,
        [&](bench_loop *loop) {
            // The loop thread is counted from a timed round trip's callout only (PathContext::counted): its first
            // passes race with the first signal.
            counting(false);
            source = engine->source_add(loop, path == Path::awake ? answer_then_hold : hold_then_answer, &context);
            if (idle_load) idle.add(engine, loop);
        },
        [&](bench_loop *loop) {
            idle.remove(engine, loop);
            engine->source_remove(loop, source);
        });
    std::string why;
    if (!loop_thread.wait_ready(&why)) {
        skip(state, why);
        return;
    }
    bench_loop *loop = loop_thread.loop();
    // The loop thread's wait, watched through /proc (not for engines whose loop runs on threads of their own).
    int fd = -1;
    if (!engine->loop_cpu_ns) {
        char file[64];
        snprintf(file, sizeof file, "/proc/self/task/%d/syscall", (int)loop_thread.tid());
        fd = open(file, O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            loop_thread.stop();
            skip(state, std::string("cannot read ") + file + " to see the loop thread's wait");
            return;
        }
    }
    struct FileCloser {
        int fd;
        ~FileCloser() {
            if (fd >= 0) close(fd);
        }
    } file_closer{fd};
    uint64_t rechecks = 0;
    auto await_sleep = [&] {
        while (!blocked_in_wait(fd)) {
            rechecks++;
            sched_yield();
        }
    };
    bool ok = true;
    if (path == Path::awake) {
        // One signal ahead: its callout answers and holds the loop thread until the next signal is made. The first
        // signal waits for the loop's first sleep, so that every run starts from the same state: ref's edge
        // accounting, for one, keeps what its first waits saw, and a run whose first signal came before the loop
        // slept counted 3 instructions a round trip more than one whose signal came after.
        if (fd >= 0) await_sleep();
        engine->source_signal(loop, source);
        auto round_trip = [&] {
            bool answered = take_eventfd(context.reply);
            engine->source_signal(loop, source);
            return post_eventfd(context.go) && answered;
        };
        for (int i = 0; i < kWarmupRoundTrips; i++) ok &= round_trip();
        context.counted.store(true, std::memory_order_release);
        counting(true);
        for (auto _ : state) ok &= round_trip();
        counting(false);
        context.counted.store(false, std::memory_order_release);
        ok &= round_trip();  // its callout stops the loop thread's count
        // The last callout's answer, and its release without a signal: the loop goes back to its wait.
        ok &= take_eventfd(context.reply);
        ok &= post_eventfd(context.go);
    } else {
        bool idle = true;
        // The round trips on a thread of their own, so that the benchmark thread's policy stays as it is.
        std::thread poster([&] {
            counting(false);
            ScopedPin same(loop_on);
            if (!schedule_idle()) {
                idle = false;
                return;
            }
            auto round_trip = [&](bool timed) {
                if (timed) counting(false);
                await_sleep();
                if (timed) counting(true);
                engine->source_signal(loop, source);
                bool released = post_eventfd(context.go);
                return take_eventfd(context.reply) && released;
            };
            for (int i = 0; i < kWarmupRoundTrips; i++) ok &= round_trip(false);
            context.counted.store(true, std::memory_order_release);
            counting(true);
            for (auto _ : state) ok &= round_trip(true);
            counting(false);
            context.counted.store(false, std::memory_order_release);
            ok &= round_trip(false);  // its callout stops the loop thread's count
        });
        poster.join();
        if (!idle) {
            loop_thread.stop();
            skip(state, "the thread of the round trips cannot be made SCHED_IDLE");
            return;
        }
    }
    state.counters["sleep_rechecks"] = (double)rechecks;
    loop_thread.stop();
    if (!ok || context.broken) {
        fail(state, "a write or read of the reply or go eventfd failed");
        return;
    }
}

}  // namespace

void register_wake_path() {
    if (profile().fixed_iterations <= 0) return;
    const std::pair<bool, const char *> loads[] = {{false, "none"}, {true, "idle1000"}};
    const std::pair<Path, const char *> paths[] = {{Path::awake, "awake"}, {Path::asleep, "asleep"}};
    for (const bench_engine *engine : engines()) {
        for (auto [idle_load, load_name] : loads) {
            for (auto [path, path_name] : paths) {
                std::string name =
                    std::string("BM_WakePath/engine:") + engine->name + "/load:" + load_name + "/path:" + path_name;
                // Structured bindings cannot be captured before C++20: copy them into plain locals.
                const bool chosen_load = idle_load;
                const Path chosen_path = path;
                register_guarded(name,
                                 [=](benchmark::State &state) { wake_path(state, engine, chosen_load, chosen_path); })
                    ->UseRealTime()
                    ->Unit(benchmark::kNanosecond);
            }
        }
    }
}

}  // namespace rlbench
