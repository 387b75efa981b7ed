// `runloop-bench --rl_stress=N`: the LoopThread stop protocol (common.h) under stress, for every engine.
//
// Each cycle starts a loop on its own thread with a source and a repeating timer that fires every 100 us (so the loop
// is busy waking, firing and re-arming), makes the cross-thread calls the families make (source_signal, wakeups) at
// one of four points, and stops it: at once (racing the start of `run`), after a signal, after some yielding, or
// after a signal and a read of the wake-up counter. Every engine runs N cycles without and N with a Burner spinning
// on the loop's CPU (which preempts the loop thread at arbitrary points, as in the coalescing family's burn:yes).
// Built with AddressSanitizer (scripts/bench-stress.sh), a call into a destroyed loop is a report; every cycle is
// under the watchdog, so a hang (a stop lost, a lock in freed memory) ends the process with a message.
#include <cstdio>
#include <memory>

#include "common.h"

namespace rlbench {
namespace {

constexpr uint64_t kTimerIntervalNs = 100000;
/// One cycle takes well under a millisecond even under AddressSanitizer with a burner; 10 s means a hang.
constexpr int kCycleLimitS = 10;

struct Cycle {
    const bench_engine *engine;
    bench_loop *loop = nullptr;
    bench_item *source = nullptr;
    bench_item *timer = nullptr;
    uint64_t due = 0;
};

void performed(void *) {}

void fired(void *context) {
    Cycle *cycle = static_cast<Cycle *>(context);
    cycle->due += kTimerIntervalNs;
    cycle->engine->timer_set_next(cycle->loop, cycle->timer, cycle->due);
}

/// One start/stop cycle; false (with the reason printed) if the engine could not start a loop.
bool one_cycle(const bench_engine *engine, int index) {
    Cycle cycle;
    cycle.engine = engine;
    LoopThread loop_thread(
        engine, BENCH_COUNT_WAKEUPS, loop_cpu(),
        [&](bench_loop *loop) {
            cycle.loop = loop;
            cycle.source = engine->source_add(loop, performed, nullptr);
            cycle.due = now_ns() + (uint64_t)(index % 4) * kTimerIntervalNs / 2;
            cycle.timer = engine->timer_add(loop, cycle.due, kTimerIntervalNs, 0, fired, &cycle);
        },
        [&](bench_loop *loop) {
            engine->timer_remove(loop, cycle.timer);
            engine->source_remove(loop, cycle.source);
        });
    std::string why;
    if (!loop_thread.wait_ready(&why)) {
        printf("stress: engine:%s: skipped: %s\n", engine->name, why.c_str());
        return false;
    }
    switch (index % 4) {
        case 0: break;
        case 1: engine->source_signal(loop_thread.loop(), cycle.source); break;
        case 2:
            for (int i = 0; i < index % 64; i++) sched_yield();
            break;
        default:
            engine->source_signal(loop_thread.loop(), cycle.source);
            (void)engine->wakeups(loop_thread.loop());
            break;
    }
    loop_thread.stop();
    return true;
}

}  // namespace

int run_stress(int cycles) {
    for (const bench_engine *engine : engines()) {
        for (bool burn : {false, true}) {
            std::string what = std::string("stress/engine:") + engine->name + "/burn:" + (burn ? "yes" : "no");
            std::unique_ptr<Burner> burner;
            if (burn) burner.reset(new Burner(loop_cpu()));
            uint64_t started = now_ns();
            int done = 0;
            for (; done < cycles; done++) {
                watchdog::arm(what + " cycle " + std::to_string(done), kCycleLimitS);
                bool ran = one_cycle(engine, done);
                watchdog::disarm();
                if (!ran) break;
            }
            burner.reset();
            printf("stress: %s: %d cycles in %.1f s\n", what.c_str(), done, (double)(now_ns() - started) / 1e9);
            fflush(stdout);
        }
    }
    return 0;
}

}  // namespace rlbench
