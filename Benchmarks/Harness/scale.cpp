// Family BM_Scale: adding and then removing N timers, observers or sources.
//
// The loop lives on the benchmark thread and is not running (every engine allows changes then). One iteration adds
// N items, removes them in the order they were added, then makes one non-blocking pass (libuv finishes uv_close
// only in its next iteration; the pass costs the other engines one poll, under 1 us). Timers are dated an hour
// ahead, 1 us apart in insertion order (so a sorted queue appends). Time per iteration covers the N adds, N removes
// and the pass (UseRealTime).
// Counters: ns_per_add and ns_per_remove, per item (the remove figure includes the pass).
#include "common.h"

namespace rlbench {
namespace {

enum class Kind { timer, observer, source };

void nothing(void *) {}

void scale(benchmark::State &state, const bench_engine *engine, Kind kind, int count) {
    bench_loop *loop = create_loop_or_skip(state, engine, kind == Kind::observer);
    if (!loop) return;
    std::vector<bench_item *> items((size_t)count);
    uint64_t add_ns = 0, remove_ns = 0;
    for (auto _ : state) {
        uint64_t later = now_ns() + 3600ull * 1000000000u;
        uint64_t start = now_ns();
        switch (kind) {
            case Kind::timer:
                for (int i = 0; i < count; i++)
                    items[(size_t)i] = engine->timer_add(loop, later + (uint64_t)i * 1000u, 0, 0, nothing, nullptr);
                break;
            case Kind::observer:
                for (int i = 0; i < count; i++) items[(size_t)i] = engine->observer_add(loop, nothing, nullptr);
                break;
            case Kind::source:
                for (int i = 0; i < count; i++) items[(size_t)i] = engine->source_add(loop, nothing, nullptr);
                break;
        }
        uint64_t added = now_ns();
        switch (kind) {
            case Kind::timer:
                for (bench_item *item : items) engine->timer_remove(loop, item);
                break;
            case Kind::observer:
                for (bench_item *item : items) engine->observer_remove(loop, item);
                break;
            case Kind::source:
                for (bench_item *item : items) engine->source_remove(loop, item);
                break;
        }
        engine->poll_once(loop);
        uint64_t removed = now_ns();
        add_ns += added - start;
        remove_ns += removed - added;
    }
    engine->destroy(loop);
    double operations = (double)state.iterations() * count;
    state.counters["ns_per_add"] = (double)add_ns / operations;
    state.counters["ns_per_remove"] = (double)remove_ns / operations;
}

}  // namespace

void register_scale() {
    const std::pair<Kind, const char *> kinds[] = {
        {Kind::timer, "timer"}, {Kind::observer, "observer"}, {Kind::source, "source"}};
    for (const bench_engine *engine : engines()) {
        for (auto [kind, kind_name] : kinds) {
            for (int count : {100, 1000, 10000, 100000}) {
                if (count > profile().scale_max) continue;
                std::string name = std::string("BM_Scale/engine:") + engine->name + "/item:" + kind_name +
                                   "/n:" + std::to_string(count);
                const auto chosen_kind = kind;  // structured bindings cannot be captured before C++20
                register_guarded(name, [=](benchmark::State &state) { scale(state, engine, chosen_kind, count); })
                    ->UseRealTime()
                    ->Unit(benchmark::kMicrosecond);
            }
        }
    }
}

}  // namespace rlbench
