// Engine `nio`: SwiftNIO's SelectableEventLoop (MultiThreadedEventLoopGroup(numberOfThreads: 1)). Its functions are
// Swift, exported with @_cdecl by Benchmarks/NIOShim/NIOEngine.swift (the target BenchNIO, which depends on SwiftNIO);
// this file only puts them in the table, so the harness reaches every engine the same way. How NIO is used, and what
// differs from the other engines, is at the top of NIOEngine.swift.
#include "bench_engine.h"

#include <stddef.h>

bench_loop *nio_shim_create(unsigned flags);
void nio_shim_destroy(bench_loop *loop);
void nio_shim_run(bench_loop *loop);
void nio_shim_stop(bench_loop *loop);
void nio_shim_poll_once(bench_loop *loop);
bench_item *nio_shim_source_add(bench_loop *loop, bench_callout callout, void *context);
void nio_shim_source_signal(bench_loop *loop, bench_item *source);
void nio_shim_source_remove(bench_loop *loop, bench_item *source);
bench_item *nio_shim_timer_add(bench_loop *loop, uint64_t due_ns, uint64_t interval_ns, uint64_t tolerance_ns,
                               bench_callout callout, void *context);
void nio_shim_timer_set_next(bench_loop *loop, bench_item *timer, uint64_t due_ns);
void nio_shim_timer_remove(bench_loop *loop, bench_item *timer);
uint64_t nio_shim_wakeups(bench_loop *loop);
bench_channel *nio_shim_channel_add(bench_loop *loop, bench_item_callout callout, void *context);
void nio_shim_channel_post(bench_loop *loop, bench_channel *channel, void *item);
void nio_shim_channel_remove(bench_loop *loop, bench_channel *channel);
uint64_t nio_shim_loop_switches(bench_loop *loop);
uint64_t nio_shim_loop_cpu_ns(bench_loop *loop);

static bench_loop *nio_create(const bench_engine *self, unsigned flags, const char **why) {
    (void)self;
    bench_loop *loop = nio_shim_create(flags);
    if (!loop) *why = "SwiftNIO's event loop did not start";
    return loop;
}

static const char *nio_describe(const bench_engine *self) {
    (void)self;
    return "SwiftNIO (the swiftnio line) MultiThreadedEventLoopGroup(numberOfThreads: 1): a SelectableEventLoop on "
           "epoll + eventfd + timerfd, on its own thread";
}

const bench_engine bench_engine_nio = {
    .name = "nio",
    .describe = nio_describe,
    .create = nio_create,
    .destroy = nio_shim_destroy,
    .run = nio_shim_run,
    .stop = nio_shim_stop,
    .poll_once = nio_shim_poll_once,
    .source_add = nio_shim_source_add,
    .source_signal = nio_shim_source_signal,
    .source_remove = nio_shim_source_remove,
    .timer_add = nio_shim_timer_add,
    .timer_set_next = nio_shim_timer_set_next,
    .timer_remove = nio_shim_timer_remove,
    .observer_add = NULL,
    .observer_remove = NULL,
    .no_observers =
        "SwiftNIO's event loop has no observers of its passes (its metrics delegate reports a tick after "
        "it ran, nothing before the wait)",
    .wakeups = nio_shim_wakeups,
    .channel_add = nio_shim_channel_add,
    .channel_post = nio_shim_channel_post,
    .channel_remove = nio_shim_channel_remove,
    .channel_batches = NULL,
    .activity_observer_add = NULL,
    .no_activity_observer =
        "SwiftNIO's event loop has no hook before its wait (BeforeWaiting) or right after it "
        "(AfterWaiting); its metrics delegate runs after a whole tick",
    .loop_switches = nio_shim_loop_switches,
    .loop_cpu_ns = nio_shim_loop_cpu_ns,
};
