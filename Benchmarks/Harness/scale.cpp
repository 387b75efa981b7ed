// Family BM_Scale: adding and then removing N timers, observers or sources.
//
// The loop lives on the benchmark thread and is not running (every engine allows changes then). One iteration adds
// N items, removes them in the order they were added, then makes one non-blocking pass (libuv finishes uv_close
// only in its next iteration; the pass costs the other engines one poll, under 1 us). Timers are dated an hour
// ahead, 1 us apart in insertion order (so a sorted queue appends). Time per iteration covers the N adds, N removes
// and the pass (UseRealTime).
// Timers also run with `order:random`: the same dates (an hour ahead, 1 us apart) added in a random order and removed
// in another random order, from one fixed seed (kRandomSeed), so every engine gets the same sequence. The ordered
// schedule is the best case of a sorted array that appends at its end and removes at its head (ref's O(1) path); a
// binary heap (libevent, libuv, the floor) pays a heap operation either way. Both are reported side by side.
// Counters: ns_per_add and ns_per_remove, per item (the remove figure includes the pass).
#include "common.h"

namespace rlbench {
namespace {

enum class Kind { timer, observer, source };
enum class Order { added, random };

constexpr uint64_t kRandomSeed = 20261127;

/// A permutation of 0..<count from `state` (splitmix64 and Fisher-Yates, so it does not depend on the C++ library).
std::vector<size_t> permutation(size_t count, uint64_t &state) {
    std::vector<size_t> order(count);
    for (size_t i = 0; i < count; i++) order[i] = i;
    for (size_t i = count; i > 1; i--) {
        uint64_t z = (state += 0x9e3779b97f4a7c15u);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
        z ^= z >> 31;
        std::swap(order[i - 1], order[(size_t)(z % i)]);
    }
    return order;
}

void nothing(void *) {}

void scale(benchmark::State &state, const bench_engine *engine, Kind kind, int count, Order order) {
    bench_loop *loop = create_loop_or_skip(state, engine, kind == Kind::observer);
    if (!loop) return;
    std::vector<bench_item *> items((size_t)count);
    // The i-th timer added is dated date_slot[i] us after `later`; items are removed in the order remove_order.
    std::vector<size_t> date_slot((size_t)count), remove_order((size_t)count);
    for (size_t i = 0; i < (size_t)count; i++) date_slot[i] = remove_order[i] = i;
    if (order == Order::random) {
        uint64_t seed = kRandomSeed;
        date_slot = permutation((size_t)count, seed);
        remove_order = permutation((size_t)count, seed);
    }
    uint64_t add_ns = 0, remove_ns = 0;
    for (auto _ : state) {
        uint64_t later = now_ns() + 3600ull * 1000000000u;
        uint64_t start = now_ns();
        switch (kind) {
            case Kind::timer:
                for (int i = 0; i < count; i++)
                    items[(size_t)i] =
                        engine->timer_add(loop, later + (uint64_t)date_slot[(size_t)i] * 1000u, 0, 0, nothing, nullptr);
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
                for (size_t index : remove_order) engine->timer_remove(loop, items[index]);
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
                register_guarded(
                    name, [=](benchmark::State &state) { scale(state, engine, chosen_kind, count, Order::added); })
                    ->UseRealTime()
                    ->Unit(benchmark::kMicrosecond);
                if (kind != Kind::timer) continue;
                register_guarded(
                    name + "/order:random",
                    [=](benchmark::State &state) { scale(state, engine, Kind::timer, count, Order::random); })
                    ->UseRealTime()
                    ->Unit(benchmark::kMicrosecond);
            }
        }
    }
}

}  // namespace rlbench
