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
// Counters: callouts_per_pass, ns_per_pass, ns_per_callout (= ns_per_pass / callouts_per_pass, 0 without observers).
#include "common.h"

namespace rlbench {
namespace {

constexpr int kWarmupPasses = 50;

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

    for (bench_item *item : added) engine->observer_remove(loop, item);
    engine->source_remove(loop, keep_alive);
    engine->poll_once(loop);  // lets libuv finish closing its handles
    engine->destroy(loop);

    double passes = (double)state.iterations();
    double per_pass = (double)callouts / passes;
    state.counters["callouts_per_pass"] = per_pass;
    state.counters["ns_per_pass"] = (double)elapsed / passes;
    state.counters["ns_per_callout"] = callouts ? (double)elapsed / (double)callouts : 0;
}

}  // namespace

void register_observer_dispatch() {
    for (const bench_engine *engine : engines()) {
        for (int observers : {0, 1, 8, 64, 512}) {
            std::string name = std::string("BM_ObserverDispatch/engine:") + engine->name +
                               "/observers:" + std::to_string(observers);
            register_guarded(name, [=](benchmark::State &state) { observer_dispatch(state, engine, observers); })
                ->UseRealTime()
                ->Unit(benchmark::kNanosecond);
        }
    }
}

}  // namespace rlbench
