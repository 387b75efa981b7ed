// Engine `foundation`: the toolchain's run loop through swift-corelibs-foundation's RunLoop and Timer, as Swift code
// drives it. Its functions are Swift, exported with @_cdecl by Benchmarks/FoundationShim/FoundationBenchEngine.swift
// (the target BenchFoundation); this file only puts them in the table, as engine_nio.c does. Which call goes through
// Foundation and which through CF's C API of the same loop is at the top of FoundationBenchEngine.swift.
#include "bench_engine.h"

#include <stddef.h>

int foundation_shim_available(void);
bench_loop *foundation_shim_create(unsigned flags);
void foundation_shim_destroy(bench_loop *loop);
void foundation_shim_run(bench_loop *loop);
void foundation_shim_stop(bench_loop *loop);
void foundation_shim_poll_once(bench_loop *loop);
bench_item *foundation_shim_source_add(bench_loop *loop, bench_callout callout, void *context);
void foundation_shim_source_signal(bench_loop *loop, bench_item *source);
void foundation_shim_source_remove(bench_loop *loop, bench_item *source);
bench_item *foundation_shim_timer_add(bench_loop *loop, uint64_t due_ns, uint64_t interval_ns, uint64_t tolerance_ns,
                                      bench_callout callout, void *context);
void foundation_shim_timer_set_next(bench_loop *loop, bench_item *timer, uint64_t due_ns);
void foundation_shim_timer_remove(bench_loop *loop, bench_item *timer);
bench_item *foundation_shim_observer_add(bench_loop *loop, bench_callout callout, void *context);
void foundation_shim_observer_remove(bench_loop *loop, bench_item *observer);
uint64_t foundation_shim_wakeups(bench_loop *loop);
bench_channel *foundation_shim_channel_add(bench_loop *loop, bench_item_callout callout, void *context);
void foundation_shim_channel_post(bench_loop *loop, bench_channel *channel, void *item);
void foundation_shim_channel_remove(bench_loop *loop, bench_channel *channel);
bench_item *foundation_shim_activity_observer_add(bench_loop *loop, bench_activity_callout callout, void *context);

static bench_loop *foundation_create(const bench_engine *self, unsigned flags, const char **why) {
    (void)self;
    bench_loop *loop = foundation_shim_create(flags);
    if (!loop) *why = "the toolchain's CoreFoundation could not be opened (CFLoader's cfl_open_toolchain)";
    return loop;
}

static const char *foundation_describe(const bench_engine *self) {
    (void)self;
    return foundation_shim_available()
               ? "swift-corelibs-foundation RunLoop and Timer over the toolchain's CoreFoundation (libFoundation.so); "
                 "CF's C API only where Foundation has no call"
               : "the toolchain's CoreFoundation could not be opened";
}

const bench_engine bench_engine_foundation = {
    .name = "foundation",
    .describe = foundation_describe,
    .create = foundation_create,
    .destroy = foundation_shim_destroy,
    .run = foundation_shim_run,
    .stop = foundation_shim_stop,
    .poll_once = foundation_shim_poll_once,
    .source_add = foundation_shim_source_add,
    .source_signal = foundation_shim_source_signal,
    .source_remove = foundation_shim_source_remove,
    .timer_add = foundation_shim_timer_add,
    .timer_set_next = foundation_shim_timer_set_next,
    .timer_remove = foundation_shim_timer_remove,
    .observer_add = foundation_shim_observer_add,
    .observer_remove = foundation_shim_observer_remove,
    .wakeups = foundation_shim_wakeups,
    .channel_add = foundation_shim_channel_add,
    .channel_post = foundation_shim_channel_post,
    .channel_remove = foundation_shim_channel_remove,
    .channel_batches = NULL,
    .activity_observer_add = foundation_shim_activity_observer_add,
};
