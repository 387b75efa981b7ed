// The round-trip families' shared pieces (round_trip.h).
#include "round_trip.h"

#include <cerrno>

#include <unistd.h>

namespace rlbench {

namespace {
void idle_callout(void *) {}
}  // namespace

void IdleItems::add(const bench_engine *engine, bench_loop *loop) {
    uint64_t later = now_ns() + 3600ull * 1000000000u;
    for (int i = 0; i < kCount; i++) {
        sources.push_back(engine->source_add(loop, idle_callout, nullptr));
        timers.push_back(engine->timer_add(loop, later + (uint64_t)i * 1000u, 0, 0, idle_callout, nullptr));
    }
}

void IdleItems::remove(const bench_engine *engine, bench_loop *loop) {
    for (bench_item *item : sources) engine->source_remove(loop, item);
    for (bench_item *item : timers) engine->timer_remove(loop, item);
    sources.clear();
    timers.clear();
}

int benchmark_cpu(Pin pin) { return pin == Pin::same ? loop_cpu() : client_cpu(); }

bool pin_usable(benchmark::State &state, Pin pin) {
    if (pin == Pin::diff && usable_cpus().size() < 2) {
        skip(state, "pin:diff needs two CPUs and this process may use only one");
        return false;
    }
    return true;
}

bool post_eventfd(int fd) {
    uint64_t one = 1;
    return write(fd, &one, sizeof one) == (ssize_t)sizeof one;
}

bool take_eventfd(int fd) {
    uint64_t value;
    ssize_t got;
    do {
        got = read(fd, &value, sizeof value);
    } while (got < 0 && errno == EINTR);
    return got == (ssize_t)sizeof value;
}

void register_round_trip(const std::string &name, std::function<void(benchmark::State &)> body) {
    register_guarded(name, std::move(body))->UseManualTime()->Unit(benchmark::kNanosecond);
}

void finish_round_trips(benchmark::State &state, RoundTrips &run, const char *broken_reason, bool loop_known,
                        bool process_known) {
    if (run.broken) {
        fail(state, broken_reason);
        return;
    }
    if (run.samples.empty()) {
        fail(state, "no round trip was timed");
        return;
    }
    const double round_trips = (double)run.samples.size();
    set_latency_counters(state, run.samples);
    set_cpu_counters(state, "wake", loop_known ? cpu_per(run.before.loop, run.after.loop, round_trips) : -1,
                     cpu_per(run.before.post, run.after.post, round_trips),
                     process_known ? cpu_per(run.before.process, run.after.process, round_trips) : -1);
}

}  // namespace rlbench
