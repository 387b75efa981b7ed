// Family BM_WakeLatency: a cross-thread round trip through an engine.
//
// The benchmark thread signals a source and wakes the loop (one engine call: source_signal); the loop thread wakes,
// runs the source's callout, which writes a reply eventfd; the benchmark thread, blocked in read() on that eventfd,
// returns (with reply:spin, the callout stores a count that the benchmark thread polls). One iteration is one round
// trip, timed on the benchmark thread with CLOCK_MONOTONIC and reported with SetIterationTime (UseManualTime: the
// work happens on another thread, and setup is excluded). The reply path is the same for every engine, so
// differences between engines are differences in the signal-wake-dispatch path.
//
// Arguments:
//   pin:same   both threads pinned to one CPU: no idle-CPU wake-up by the hypervisor, the loop's own cost shows
//   pin:diff   the threads on two CPUs: dominated by waking an idle vCPU (on a KVM guest the hypervisor's wake-up
//              of the halted vCPU costs several microseconds, more than any engine's own path)
//   load:none  nothing else in the loop
//   load:idle1000  1,000 idle sources and 1,000 idle timers (due in an hour) registered as well
//   load:burn  a thread spinning on the loop thread's CPU
//   spin:on    (engines with a spin variant, ref; loads none and idle1000) the loop spins briefly before it sleeps
//              (ref's spin-then-park wait policy); without the parameter the engine waits as it does by default
//   reply:spin (pin:diff only, every engine and variant, no load) the callout answers by storing a count on a cache
//              line of its own, which the benchmark thread polls with the CPU's spin hint instead of sleeping in
//              read(): the benchmark thread's CPU never idles, so no hypervisor wake-up of it is in the round trip and
//              what is left is the engine's own hand-off (a loop that sleeps: its vCPU's wake-up; a loop that spins:
//              cache-line transfers and its pass), read against BM_Limits/handoff:spin/pin:diff. The parameter takes
//              the place of `load` in the name (it runs with none), so the targets that select the blocking round
//              trips by load do not read it. Without it the reply is the blocking eventfd. Not on one CPU, where a
//              polling benchmark thread would keep the loop off its CPU.
// Counters, over every round trip of the repetition (the round trips are often bimodal: a loop found asleep or
// awake, a vCPU woken or already running; a median then jumps between the modes from process to process, so a target
// should use the mean or a mode's own median):
//   latency_mean_ns, latency_p50_ns, latency_p99_ns
//   latency_modes        1 or 2 (split_modes in common.h: the deepest valley of a log2 histogram, 1/24 octave bins)
//   latency_split_ns     the boundary between the two modes (0 with one mode)
//   latency_low_share, latency_low_p50_ns     share and median of the round trips below the split (1 and the median
//                                             with one mode)
//   latency_high_share, latency_high_p50_ns   share and median at or above it (0 and 0 with one mode)
// CPU per round trip, over the timed round trips (set_cpu_counters in common.h):
//   loop_cpu_ns_per_wake     the loop thread's CPU time (LoopThread::cpu_ns: its CPU clock; nio's loop thread, and
//                            for dispatch the workers that ran the queue, without libdispatch's manager thread: a
//                            lower bound of what dispatch spends)
//   post_cpu_ns_per_wake     the benchmark thread's: the engine's signal, and the harness's own share, the same for
//                            every engine (the blocking read of the reply, two clock reads, Google Benchmark's loop);
//                            with reply:spin the whole round trip, as the thread polls until the reply is there
//   process_cpu_ns_per_wake  every thread of the process (not with load:burn, whose burner it would count): minus
//                            post_cpu_ns_per_wake, an upper bound of the loop side for engines whose loop runs on
//                            threads of their own (dispatch's manager thread included)
#include <atomic>
#include <memory>

#include <sys/eventfd.h>
#include <unistd.h>

#include "round_trip.h"

namespace rlbench {
namespace {

enum class Load { none, idle, burn };

/// How the benchmark thread waits for the loop's answer.
enum class ReplyWait { block, spin };

/// The loop's answer. `block`: an eventfd written by the callout, read blocking by the benchmark thread. `spin`: the
/// callouts so far, stored by the callout (the loop's thread alone writes it) on a cache line of its own, polled by
/// the benchmark thread.
struct Reply {
    explicit Reply(ReplyWait wait) : wait(wait), fd(wait == ReplyWait::block ? eventfd(0, EFD_CLOEXEC) : -1) {}
    ~Reply() {
        if (fd >= 0) close(fd);
    }
    bool ready() const { return wait == ReplyWait::spin || fd >= 0; }

    /// The callout's side.
    void answer() {
        if (wait == ReplyWait::block) {
            post_eventfd(fd);
            return;
        }
        answered.store(answered.load(std::memory_order_relaxed) + 1, std::memory_order_release);
    }

    /// The benchmark thread's side, after its signal number `asked` (counted from 1): returns once the answer is
    /// there. False if the blocking read failed.
    bool await(uint64_t asked) {
        if (wait == ReplyWait::block) return take_eventfd(fd);
        while (answered.load(std::memory_order_acquire) < asked) cpu_relax();
        return true;
    }

    const ReplyWait wait;
    const int fd;  // blocking: the benchmark thread sleeps in read()
    alignas(64) std::atomic<uint64_t> answered{0};
};

void reply(void *context) { static_cast<Reply *>(context)->answer(); }

void wake_latency(benchmark::State &state, const bench_engine *engine, Pin pin, Load load, unsigned flags,
                  ReplyWait reply_wait) {
    if (!pin_usable(state, pin)) return;
    int loop_on = loop_cpu();
    ScopedPin pinned(benchmark_cpu(pin));

    Reply replies(reply_wait);
    if (!replies.ready()) {
        fail(state, "eventfd() failed");
        return;
    }
    bench_item *source = nullptr;
    IdleItems idle;
    LoopThread loop_thread(
        engine, flags, loop_on,
        [&](bench_loop *loop) {
            source = engine->source_add(loop, reply, &replies);
            if (load == Load::idle) idle.add(engine, loop);
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
    std::unique_ptr<Burner> burner;
    if (load == Load::burn) burner.reset(new Burner(loop_on));

    uint64_t asked = 0;
    RoundTrips run = measure_round_trips(
        state,
        [&] {
            engine->source_signal(loop_thread.loop(), source);
            return replies.await(++asked);
        },
        [&] { return loop_thread.cpu_ns(); });
    burner.reset();
    loop_thread.stop();
    if (reply_wait == ReplyWait::spin && replies.answered.load(std::memory_order_acquire) != asked) {
        // Each signal is answered by one callout: a count past the signals would let round trips through unanswered.
        fail(state, "the loop answered " + std::to_string(replies.answered.load()) + " times for " +
                        std::to_string(asked) + " signals");
        return;
    }
    finish_round_trips(state, run, "read() on the reply eventfd failed", true, load != Load::burn);
}

}  // namespace

void register_wake_latency() {
    const std::pair<Load, const char *> loads[] = {
        {Load::none, "none"}, {Load::idle, "idle1000"}, {Load::burn, "burn"}};
    for (const bench_engine *engine : engines()) {
        for (const WaitVariant &variant : wait_variants(engine)) {
            for (auto [pin, pin_name] : kPins) {
                for (auto [load, load_name] : loads) {
                    if (variant.flags && load == Load::burn) continue;  // a spin on a CPU another thread burns
                    std::string name = std::string("BM_WakeLatency/engine:") + engine->name + "/pin:" + pin_name +
                                       "/load:" + load_name + variant.suffix;
                    // Structured bindings cannot be captured before C++20: copy them into plain locals.
                    const Pin chosen_pin = pin;
                    const Load chosen_load = load;
                    const unsigned flags = variant.flags;
                    register_round_trip(name, [=](benchmark::State &state) {
                        wake_latency(state, engine, chosen_pin, chosen_load, flags, ReplyWait::block);
                    });
                }
                // The spinning reply: across CPUs only, with no load (see the top of the file).
                if (pin != Pin::diff) continue;
                std::string name = std::string("BM_WakeLatency/engine:") + engine->name + "/pin:" + pin_name +
                                   "/reply:spin" + variant.suffix;
                const unsigned flags = variant.flags;
                register_round_trip(name, [=](benchmark::State &state) {
                    wake_latency(state, engine, Pin::diff, Load::none, flags, ReplyWait::spin);
                });
            }
        }
    }
}

}  // namespace rlbench
