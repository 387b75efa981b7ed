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
//                Harness work per round trip: the reply's write and read, the go eventfd's write and read.
//   path:asleep  each signal is made only once the loop thread is blocked in its wait system call: the round trips
//                run on a thread of their own at SCHED_IDLE on the loop's CPU (it runs only when the loop thread does
//                not: after the reply, once the loop has finished its passes and sleeps), and before each signal it
//                reads /proc/self/task/<loop thread>/syscall, which names the system call a blocked thread is in
//                (epoll_wait, poll and their variants count as the wait) and says "running" otherwise. A check that
//                does not find the wait yields and checks again (counter `asleep_rechecks`; each costs the count a
//                few dozen instructions, so a run with many is seen as not exact by its repeat). Engines whose loop
//                runs on threads they own (nio, dispatch) are skipped: the harness does not know those threads.
//                The callout first reads `go`, which the round trips' thread writes once its signal has returned, so
//                the loop's pass after the wake-up always finds the signal's bookkeeping done: ref's poll after the
//                callout skips its system call when the waker has counted its eventfd write, and makes it when the
//                loop thread preempted the waker before that (which is what SCHED_IDLE alone would give, but not
//                always under callgrind): without the hold the round trips settled on one or the other by chance.
//                Harness work per round trip: the reply's write and read, the go eventfd's write and read, one check.
// Loads as BM_WakeLatency's: none, and idle1000 (1,000 idle sources and 1,000 idle timers). Real time per iteration
// (UseRealTime) is reported, nothing else.
#include <sched.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <fcntl.h>

#include <cstdlib>
#include <thread>

#include "round_trip.h"

namespace rlbench {
namespace {

enum class Path { awake, asleep };

constexpr int kIdleItems = 1000;

/// The callout's state: two eventfds.
struct PathContext {
    int reply = -1;
    int go = -1;
    bool broken = false;  // a write or read failed; loop thread only until the loop thread has stopped
};

void answer_then_hold(void *context) {
    auto *path = static_cast<PathContext *>(context);
    if (!post_eventfd(path->reply)) path->broken = true;
    if (!take_eventfd(path->go)) path->broken = true;
}

void hold_then_answer(void *context) {
    auto *path = static_cast<PathContext *>(context);
    if (!take_eventfd(path->go)) path->broken = true;
    if (!post_eventfd(path->reply)) path->broken = true;
}

void nothing(void *) {}

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
    std::vector<bench_item *> idle_sources, idle_timers;
    LoopThread loop_thread(
        engine, 0, loop_on,
        [&](bench_loop *loop) {
            source = engine->source_add(loop, path == Path::awake ? answer_then_hold : hold_then_answer, &context);
            if (idle_load) {
                uint64_t later = now_ns() + 3600ull * 1000000000u;
                for (int i = 0; i < kIdleItems; i++) {
                    idle_sources.push_back(engine->source_add(loop, nothing, nullptr));
                    idle_timers.push_back(engine->timer_add(loop, later + (uint64_t)i * 1000u, 0, 0, nothing, nullptr));
                }
            }
        },
        [&](bench_loop *loop) {
            for (bench_item *item : idle_sources) engine->source_remove(loop, item);
            for (bench_item *item : idle_timers) engine->timer_remove(loop, item);
            engine->source_remove(loop, source);
        });
    std::string why;
    if (!loop_thread.wait_ready(&why)) {
        skip(state, why);
        return;
    }
    bench_loop *loop = loop_thread.loop();
    bool ok = true;
    if (path == Path::awake) {
        // One signal ahead: its callout answers and holds the loop thread until the next signal is made.
        engine->source_signal(loop, source);
        auto round_trip = [&] {
            bool answered = take_eventfd(context.reply);
            engine->source_signal(loop, source);
            return post_eventfd(context.go) && answered;
        };
        for (int i = 0; i < kWarmupRoundTrips; i++) ok &= round_trip();
        for (auto _ : state) ok &= round_trip();
        // The last callout's answer, and its release without a signal: the loop goes back to its wait.
        ok &= take_eventfd(context.reply);
        ok &= post_eventfd(context.go);
    } else {
        char file[64];
        snprintf(file, sizeof file, "/proc/self/task/%d/syscall", (int)loop_thread.tid());
        int fd = open(file, O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            loop_thread.stop();
            skip(state, std::string("cannot read ") + file + " to see the loop thread's wait");
            return;
        }
        uint64_t rechecks = 0;
        bool idle = true;
        // The round trips on a thread of their own, so that the benchmark thread's policy stays as it is.
        std::thread poster([&] {
            ScopedPin same(loop_on);
            if (!schedule_idle()) {
                idle = false;
                return;
            }
            auto round_trip = [&] {
                while (!blocked_in_wait(fd)) {
                    rechecks++;
                    sched_yield();
                }
                engine->source_signal(loop, source);
                bool released = post_eventfd(context.go);
                return take_eventfd(context.reply) && released;
            };
            for (int i = 0; i < kWarmupRoundTrips; i++) ok &= round_trip();
            for (auto _ : state) ok &= round_trip();
        });
        poster.join();
        close(fd);
        if (!idle) {
            loop_thread.stop();
            skip(state, "the thread of the round trips cannot be made SCHED_IDLE");
            return;
        }
        state.counters["asleep_rechecks"] = (double)rechecks;
    }
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
