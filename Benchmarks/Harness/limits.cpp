// Family BM_Limits: what a cross-thread round trip costs on this machine with no run loop at all, by three hand-offs,
// each the least a thread can do to hand control to another and get an answer back. The wake family's figures are
// read against these (runloop report: each engine's wake latency as a multiple of the nearest limit of the same
// pinning), so a figure says how far an engine is from what the machine allows, not only from the other engines.
//
// A responder thread, pinned to the loop's CPU (loop_cpu), answers every ping of the benchmark thread, pinned as in
// BM_WakeLatency: to the same CPU (pin:same) or to the client CPU (pin:diff). One iteration is one round trip: the
// benchmark thread pings and returns when the answer is there (manual time, CLOCK_MONOTONIC on the benchmark thread,
// the timed loop of BM_WakeLatency: measure_round_trips in round_trip.h), after 200 untimed round trips.
//
// Hand-offs:
//   handoff:spin     both threads spin on one shared cache line (a counter the client makes odd and the responder
//                    even): no system call, no sleep. pin:diff is the hardware's floor for a hand-off between two
//                    running threads (a cache line moving between two CPUs, both vCPUs busy: no idle vCPU is woken).
//                    On one CPU spinning alone would never let the other thread run, so pin:same yields the CPU
//                    (sched_yield) at every look that finds no answer: the floor of a hand-off between two threads
//                    sharing a CPU, two context switches per round trip and no wake-up (neither thread ever sleeps).
//                    Spinning is no design for a loop that must idle; this is the bound below every sleeping design.
//   handoff:futex    each side sleeps in FUTEX_WAIT on a word of its own and is woken by FUTEX_WAKE from the other
//                    (private futexes; the waker always calls FUTEX_WAKE, as an eventfd write always signals): the
//                    kernel's cheapest sleep and wake-up, what libdispatch's parked workers use. pin:diff includes the
//                    hypervisor waking the idle vCPU, as every sleeping loop's pin:diff round trip does.
//   handoff:eventfd  each side blocks in read() on an eventfd of its own (no epoll) and the other writes it: the wake
//                    family's reply path, in both directions. A loop on epoll adds to this its epoll_wait and its own
//                    bookkeeping; a loop that skips its eventfd write when it finds the loop awake (ref, libevent, the
//                    epoll floor) can come near it or, on one CPU, below it.
// Neither limit is a proof that no engine can be faster: they are what each mechanism costs alone, measured the same
// way as the wake family, so "ref's same-CPU wake-up is 1.2x the eventfd limit" reads as "20 % over two blocking
// eventfd hand-offs".
//
// Counters: the wake family's round-trip counters (set_latency_counters: latency_mean_ns, latency_p50_ns,
// latency_p99_ns, the modes), and per round trip the responder's CPU time (loop_cpu_ns_per_wake: it plays the loop),
// the benchmark thread's (post_cpu_ns_per_wake) and the process's (process_cpu_ns_per_wake). A spinning side is on a
// CPU the whole time: its CPU per round trip is about the round trip.
#include <memory>

#include <linux/futex.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "round_trip.h"

namespace rlbench {
namespace {

enum class Handoff { spin, futex, eventfd };

/// One round trip's two sides and how the responder is stopped. `ping` runs on the benchmark thread, `serve` on the
/// responder thread until `stop` (from the benchmark thread, after the last ping) makes it return.
class Channel {
   public:
    virtual ~Channel() = default;
    /// Hands control to the responder and returns when its answer is there. False if the answer was broken.
    virtual bool ping() = 0;
    /// Answers pings until stopped.
    virtual void serve() = 0;
    /// Makes `serve` return (it may be blocked or spinning).
    virtual void stop() = 0;
};

/// Waiting for the other thread without sleeping: on a CPU of its own a pause (the CPU's spin-wait hint), on a shared
/// CPU sched_yield, which runs the other thread (without it one spinning thread would starve the other).
inline void relax(bool shared_cpu) {
    if (shared_cpu) {
        sched_yield();
        return;
    }
    cpu_relax();
}

/// handoff:spin. `turn` is odd while a ping waits for its answer, even otherwise; both threads read and write only it
/// (one cache line, `alignas`), and `stopping` lives on a line of its own so that the responder's check does not share
/// the line the round trip moves.
class SpinChannel : public Channel {
   public:
    explicit SpinChannel(bool shared_cpu) : shared_cpu_(shared_cpu) {}
    bool ping() override {
        const uint64_t asked = turn_.load(std::memory_order_relaxed) + 1;  // only this thread makes it odd
        turn_.store(asked, std::memory_order_release);
        while (turn_.load(std::memory_order_acquire) != asked + 1) relax(shared_cpu_);
        return true;
    }
    void serve() override {
        for (;;) {
            uint64_t seen;
            while (((seen = turn_.load(std::memory_order_acquire)) & 1) == 0) {
                if (stopping_.load(std::memory_order_relaxed)) return;
                relax(shared_cpu_);
            }
            turn_.store(seen + 1, std::memory_order_release);
        }
    }
    void stop() override { stopping_.store(true, std::memory_order_relaxed); }

   private:
    const bool shared_cpu_;
    alignas(64) std::atomic<uint64_t> turn_{0};
    alignas(64) std::atomic<bool> stopping_{false};
};

/// handoff:futex. A word per direction, each holding the number of the latest ping (to the responder) or answer (to
/// the client); a side waits with FUTEX_WAIT while its word still holds what it last saw. The words are std::atomic
/// 32-bit integers, which on Linux have the layout of the futex word.
class FutexChannel : public Channel {
   public:
    bool ping() override {
        const uint32_t asked = ++pings_;
        to_responder_.store(asked, std::memory_order_release);
        wake(to_responder_);
        uint32_t seen;
        while ((seen = to_client_.load(std::memory_order_acquire)) != asked) wait(to_client_, seen);
        return true;
    }
    void serve() override {
        uint32_t answered = 0;
        for (;;) {
            uint32_t seen;
            while ((seen = to_responder_.load(std::memory_order_acquire)) == answered) wait(to_responder_, seen);
            if (stopping_.load(std::memory_order_acquire)) return;
            answered = seen;
            to_client_.store(seen, std::memory_order_release);
            wake(to_client_);
        }
    }
    void stop() override {
        stopping_.store(true, std::memory_order_release);
        to_responder_.store(++pings_, std::memory_order_release);
        wake(to_responder_);
    }

   private:
    static void wait(std::atomic<uint32_t> &word, uint32_t seen) {
        // Returns at once if the word no longer holds `seen`; EINTR and spurious returns re-check in the caller.
        syscall(SYS_futex, reinterpret_cast<uint32_t *>(&word), FUTEX_WAIT_PRIVATE, seen, nullptr, nullptr, 0);
    }
    static void wake(std::atomic<uint32_t> &word) {
        syscall(SYS_futex, reinterpret_cast<uint32_t *>(&word), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
    }
    uint32_t pings_ = 0;  // the benchmark thread's
    alignas(64) std::atomic<uint32_t> to_responder_{0};
    alignas(64) std::atomic<uint32_t> to_client_{0};
    std::atomic<bool> stopping_{false};
};

/// handoff:eventfd. Two blocking eventfds, one per direction: write one, block in read() on the other.
class EventfdChannel : public Channel {
   public:
    EventfdChannel() : to_responder_(eventfd(0, EFD_CLOEXEC)), to_client_(eventfd(0, EFD_CLOEXEC)) {}
    ~EventfdChannel() override {
        if (to_responder_ >= 0) close(to_responder_);
        if (to_client_ >= 0) close(to_client_);
    }
    bool ready() const { return to_responder_ >= 0 && to_client_ >= 0; }
    bool ping() override { return post_eventfd(to_responder_) && take_eventfd(to_client_); }
    void serve() override {
        for (;;) {
            if (!take_eventfd(to_responder_) || stopping_.load(std::memory_order_acquire)) return;
            post_eventfd(to_client_);
        }
    }
    void stop() override {
        stopping_.store(true, std::memory_order_release);
        post_eventfd(to_responder_);
    }

   private:
    const int to_responder_, to_client_;
    std::atomic<bool> stopping_{false};
};

void limit(benchmark::State &state, Handoff handoff, Pin pin) {
    if (!pin_usable(state, pin)) return;
    const int loop_on = loop_cpu();
    ScopedPin pinned(benchmark_cpu(pin));
    std::unique_ptr<Channel> channel;
    switch (handoff) {
        case Handoff::spin: channel.reset(new SpinChannel(pin == Pin::same)); break;
        case Handoff::futex: channel.reset(new FutexChannel()); break;
        case Handoff::eventfd: {
            auto *fds = new EventfdChannel();
            channel.reset(fds);
            if (!fds->ready()) {
                fail(state, "eventfd() failed");
                return;
            }
            break;
        }
    }
    std::thread responder([&] {
        ScopedPin on_loop_cpu(loop_on);
        channel->serve();
    });
    clockid_t responder_clock;
    const bool has_clock = pthread_getcpuclockid(responder.native_handle(), &responder_clock) == 0;

    RoundTrips run = measure_round_trips(
        state, [&] { return channel->ping(); }, [&] { return has_clock ? thread_cpu_ns(responder_clock) : 0; });
    channel->stop();
    responder.join();
    finish_round_trips(state, run, "a round trip failed (an eventfd read or write)", has_clock, true);
}

}  // namespace

void register_limits() {
    const std::pair<Handoff, const char *> handoffs[] = {
        {Handoff::spin, "spin"}, {Handoff::futex, "futex"}, {Handoff::eventfd, "eventfd"}};
    for (auto [handoff, handoff_name] : handoffs) {
        for (auto [pin, pin_name] : kPins) {
            std::string name = std::string("BM_Limits/handoff:") + handoff_name + "/pin:" + pin_name;
            // Structured bindings cannot be captured before C++20: copy them into plain locals.
            const Handoff chosen_handoff = handoff;
            const Pin chosen_pin = pin;
            register_round_trip(name, [=](benchmark::State &state) { limit(state, chosen_handoff, chosen_pin); });
        }
    }
}

}  // namespace rlbench
