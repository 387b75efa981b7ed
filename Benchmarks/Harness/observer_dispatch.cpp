// Family BM_ObserverDispatch: the cost of calling N observers of every activity.
//
// The loop runs on the benchmark thread, one non-blocking pass per iteration (engine poll_once: CF and ref run the
// default mode with a 0 s timeout, which calls Entry, BeforeTimers, BeforeSources and Exit; libuv runs UV_RUN_NOWAIT;
// GLib one g_main_context_iteration(FALSE); epoll one pass with epoll_wait(0)). One idle source keeps the mode from
// being empty (an empty mode returns at once, without observers: rule run.empty-mode-finished). Every observer callout
// increments one counter, so the number of callouts per pass is measured, not assumed: engines call observers for
// different activities (CF and ref 4 per pass here, the prepare/check analogues 2).
//
// Engines without observers use their nearest analogue (see bench_engine.h) or report a skip (libevent 2.1).
// Time per iteration is one pass (UseRealTime: passes make system calls). observers:0 is the pass without observers,
// the baseline that the per-callout figures include.
// Counters:
//   callouts_per_pass    measured
//   ns_per_pass          the pass with N observers
//   ns_per_callout       ns_per_pass / callouts_per_pass (0 without observers): includes the pass's fixed cost
//                        spread over the callouts, so an engine that makes more callouts per pass looks cheaper
//   ns_per_pass_baseline the same loop's pass after its observers are removed, timed in the same call (as many
//                        passes as the timed loop ran, at most kBaselinePasses)
//   ns_per_observer_pass (ns_per_pass - ns_per_pass_baseline) / N: what one observer adds to one pass, whatever the
//                        number of activities it is told of (0 at observers:0, the baseline row)
//   callouts_per_observer_pass  callouts_per_pass / N: CF and ref 4 (Entry, BeforeTimers, BeforeSources, Exit), the
//                        analogues 2 (0 at observers:0)
// An engine whose observers never run (0 callouts with N > 0) gets an error row, not a figure.
#include <algorithm>

#include "common.h"

namespace rlbench {
namespace {

constexpr int kWarmupPasses = 50;
constexpr uint64_t kBaselinePasses = 20000;

void count(void *context) { ++*static_cast<uint64_t *>(context); }

void nothing(void *) {}

void observer_dispatch(benchmark::State &state, const bench_engine *engine, int observers) {
    bench_loop *loop = create_loop_or_skip(state, engine, true);
    if (!loop) return;
    uint64_t callouts = 0;
    bench_item *keep_alive = engine->source_add(loop, nothing, nullptr);
    std::vector<bench_item *> added;
    for (int i = 0; i < observers; i++) added.push_back(engine->observer_add(loop, count, &callouts));
    for (int i = 0; i < kWarmupPasses; i++) engine->poll_once(loop);

    callouts = 0;
    uint64_t start = now_ns();
    for (auto _ : state) engine->poll_once(loop);
    uint64_t elapsed = now_ns() - start;

    const uint64_t timed_callouts = callouts;

    // The baseline: the same loop without its observers (libuv closes its handles in the first of these passes).
    for (bench_item *item : added) engine->observer_remove(loop, item);
    for (int i = 0; i < kWarmupPasses; i++) engine->poll_once(loop);
    const uint64_t baseline_passes = std::min<uint64_t>((uint64_t)state.iterations(), kBaselinePasses);
    uint64_t baseline_start = now_ns();
    for (uint64_t i = 0; i < baseline_passes; i++) engine->poll_once(loop);
    uint64_t baseline_elapsed = now_ns() - baseline_start;

    engine->source_remove(loop, keep_alive);
    engine->poll_once(loop);  // lets libuv finish closing its handles
    engine->destroy(loop);

    double passes = (double)state.iterations();
    if (observers > 0 && timed_callouts == 0) {
        fail(state, "the engine's " + std::to_string(observers) + " observers made no callout in " +
                        std::to_string(state.iterations()) + " passes: nothing to time");
        return;
    }
    double per_pass = (double)timed_callouts / passes;
    double ns_per_pass = (double)elapsed / passes;
    double baseline = baseline_passes ? (double)baseline_elapsed / (double)baseline_passes : 0;
    state.counters["callouts_per_pass"] = per_pass;
    state.counters["ns_per_pass"] = ns_per_pass;
    state.counters["ns_per_callout"] = timed_callouts ? (double)elapsed / (double)timed_callouts : 0;
    state.counters["ns_per_pass_baseline"] = baseline;
    state.counters["ns_per_observer_pass"] = observers ? (ns_per_pass - baseline) / observers : 0;
    state.counters["callouts_per_observer_pass"] = observers ? per_pass / observers : 0;
}

}  // namespace

void register_observer_dispatch() {
    for (const bench_engine *engine : engines()) {
        for (int observers : {0, 1, 8, 64, 512}) {
            std::string name =
                std::string("BM_ObserverDispatch/engine:") + engine->name + "/observers:" + std::to_string(observers);
            register_guarded(name, [=](benchmark::State &state) { observer_dispatch(state, engine, observers); })
                ->UseRealTime()
                ->Unit(benchmark::kNanosecond);
        }
    }
}

}  // namespace rlbench
