// Engine `cf`: the real CoreFoundation shipped in the Swift toolchain, through its C API.
//
// Everything lives in kCFRunLoopDefaultMode of the calling thread's CFRunLoop (the harness never uses the main
// thread, whose loop is special: catalogue rule 22). Sources are version-0 sources, signalled and then woken with
// CFRunLoopWakeUp, as an app would. Timers are repeating CFRunLoopTimers whose next date the harness sets from the
// callout (honoured because it is later than the old date: rule 60). On Linux CF ignores tolerance (rule 64) and
// arms one timerfd per mode at the earliest date (rule 65).
//
// Wake-ups are counted with an AfterWaiting observer: CF calls it after every return from its blocking wait (rule
// 4j); it is skipped only for polls (rule 6), i.e. passes that handled a source0, which the coalescing benchmark,
// the one that reads this counter, never has.
#include "bench_engine.h"

#if __has_include(<CoreFoundation/CoreFoundation.h>)
#include <CoreFoundation/CoreFoundation.h>

#include <stdatomic.h>
#include <stdlib.h>

struct bench_item {
    bench_callout callout;
    void *context;
    CFTypeRef object;  // the CFRunLoopSource, CFRunLoopTimer or CFRunLoopObserver
    // Timers: the date CF's own repeat will give the next fire (old date + interval, phase kept: rule 60).
    uint64_t natural_next;
    uint64_t interval;
};

struct bench_loop {
    CFRunLoopRef run_loop;
    CFRunLoopObserverRef wake_counter;
    atomic_uint_fast64_t wakeups;
    atomic_int stop_requested;
};

static void perform_source(void *info) {
    bench_item *item = info;
    item->callout(item->context);
}

static void fire_timer(CFRunLoopTimerRef timer, void *info) {
    (void)timer;
    bench_item *item = info;
    item->natural_next += item->interval;
    item->callout(item->context);
}

static void observe(CFRunLoopObserverRef observer, CFRunLoopActivity activity, void *info) {
    (void)observer;
    (void)activity;
    bench_item *item = info;
    item->callout(item->context);
}

static void count_wakeup(CFRunLoopObserverRef observer, CFRunLoopActivity activity, void *info) {
    (void)observer;
    (void)activity;
    bench_loop *loop = info;
    atomic_fetch_add_explicit(&loop->wakeups, 1, memory_order_relaxed);
}

/// A CLOCK_MONOTONIC date as a CFAbsoluteTime. CF turns the date back into a monotonic deadline as
/// now_mono + (date - now_abs) (CFRunLoopTimerSetNextFireDate); reading the two clocks in the same order makes the
/// round trip exact up to the double's resolution (about 0.12 us at today's dates), so 1 us is added: the timer may
/// fire 1 us late, never early because of the conversion.
static CFAbsoluteTime absolute_date(uint64_t due_ns) {
    uint64_t now_ns = bench_now_ns();
    CFAbsoluteTime now = CFAbsoluteTimeGetCurrent();
    return now + (double)((int64_t)(due_ns - now_ns)) / 1e9 + 1e-6;
}

static bench_loop *cf_create(unsigned flags, const char **why) {
    (void)why;
    bench_loop *loop = calloc(1, sizeof *loop);
    loop->run_loop = (CFRunLoopRef)CFRetain(CFRunLoopGetCurrent());
    if (flags & BENCH_COUNT_WAKEUPS) {
        CFRunLoopObserverContext context = {0, loop, NULL, NULL, NULL};
        loop->wake_counter = CFRunLoopObserverCreate(NULL, kCFRunLoopAfterWaiting, true, 0, count_wakeup, &context);
        CFRunLoopAddObserver(loop->run_loop, loop->wake_counter, kCFRunLoopDefaultMode);
    }
    return loop;
}

static void cf_destroy(bench_loop *loop) {
    if (loop->wake_counter) {
        CFRunLoopObserverInvalidate(loop->wake_counter);
        CFRelease(loop->wake_counter);
    }
    CFRelease(loop->run_loop);
    free(loop);
}

static void cf_run(bench_loop *loop) {
    // An infinite run (seconds above 504911232 is infinite: rule 91) returns Stopped on CFRunLoopStop.
    while (!atomic_load_explicit(&loop->stop_requested, memory_order_acquire))
        CFRunLoopRunInMode(kCFRunLoopDefaultMode, 1e10, false);
    atomic_store(&loop->stop_requested, 0);
}

static void cf_stop(bench_loop *loop) {
    atomic_store_explicit(&loop->stop_requested, 1, memory_order_release);
    CFRunLoopStop(loop->run_loop);
}

static void cf_poll_once(bench_loop *loop) {
    (void)loop;
    CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0, false);
}

static bench_item *cf_source_add(bench_loop *loop, bench_callout callout, void *context) {
    bench_item *item = calloc(1, sizeof *item);
    item->callout = callout;
    item->context = context;
    CFRunLoopSourceContext source_context = {0};
    source_context.info = item;
    source_context.perform = perform_source;
    CFRunLoopSourceRef source = CFRunLoopSourceCreate(NULL, 0, &source_context);
    CFRunLoopAddSource(loop->run_loop, source, kCFRunLoopDefaultMode);
    item->object = source;
    return item;
}

static void cf_source_signal(bench_loop *loop, bench_item *source) {
    CFRunLoopSourceSignal((CFRunLoopSourceRef)source->object);
    CFRunLoopWakeUp(loop->run_loop);
}

static void cf_source_remove(bench_loop *loop, bench_item *source) {
    CFRunLoopRemoveSource(loop->run_loop, (CFRunLoopSourceRef)source->object, kCFRunLoopDefaultMode);
    CFRelease(source->object);
    free(source);
}

static bench_item *cf_timer_add(bench_loop *loop, uint64_t due_ns, uint64_t interval_ns, uint64_t tolerance_ns,
                                bench_callout callout, void *context) {
    bench_item *item = calloc(1, sizeof *item);
    item->callout = callout;
    item->context = context;
    item->natural_next = due_ns;
    item->interval = interval_ns;
    CFRunLoopTimerContext timer_context = {0, item, NULL, NULL, NULL};
    CFRunLoopTimerRef timer =
        CFRunLoopTimerCreate(NULL, absolute_date(due_ns), (double)interval_ns / 1e9, 0, 0, fire_timer, &timer_context);
    // A no-op on Linux (rule 64), made anyway so the engine gets the same request as the others.
    CFRunLoopTimerSetTolerance(timer, (double)tolerance_ns / 1e9);
    CFRunLoopAddTimer(loop->run_loop, timer, kCFRunLoopDefaultMode);
    item->object = timer;
    return item;
}

static void cf_timer_set_next(bench_loop *loop, bench_item *timer, uint64_t due_ns) {
    (void)loop;
    if (timer->interval && due_ns == timer->natural_next && due_ns > bench_now_ns()) return;
    CFRunLoopTimerSetNextFireDate((CFRunLoopTimerRef)timer->object, absolute_date(due_ns));
    timer->natural_next = due_ns;
}

static void cf_timer_remove(bench_loop *loop, bench_item *timer) {
    CFRunLoopRemoveTimer(loop->run_loop, (CFRunLoopTimerRef)timer->object, kCFRunLoopDefaultMode);
    CFRelease(timer->object);
    free(timer);
}

static bench_item *cf_observer_add(bench_loop *loop, bench_callout callout, void *context) {
    bench_item *item = calloc(1, sizeof *item);
    item->callout = callout;
    item->context = context;
    CFRunLoopObserverContext observer_context = {0, item, NULL, NULL, NULL};
    CFRunLoopObserverRef observer =
        CFRunLoopObserverCreate(NULL, kCFRunLoopAllActivities, true, 0, observe, &observer_context);
    CFRunLoopAddObserver(loop->run_loop, observer, kCFRunLoopDefaultMode);
    item->object = observer;
    return item;
}

static void cf_observer_remove(bench_loop *loop, bench_item *observer) {
    CFRunLoopRemoveObserver(loop->run_loop, (CFRunLoopObserverRef)observer->object, kCFRunLoopDefaultMode);
    CFRelease(observer->object);
    free(observer);
}

static uint64_t cf_wakeups(bench_loop *loop) { return atomic_load_explicit(&loop->wakeups, memory_order_relaxed); }

static const char *cf_describe(void) {
    return "CoreFoundation (swift-corelibs-foundation) from the Swift toolchain, C API, libFoundation.so";
}

const bench_engine bench_engine_cf = {
    .name = "cf",
    .describe = cf_describe,
    .create = cf_create,
    .destroy = cf_destroy,
    .run = cf_run,
    .stop = cf_stop,
    .poll_once = cf_poll_once,
    .source_add = cf_source_add,
    .source_signal = cf_source_signal,
    .source_remove = cf_source_remove,
    .timer_add = cf_timer_add,
    .timer_set_next = cf_timer_set_next,
    .timer_remove = cf_timer_remove,
    .observer_add = cf_observer_add,
    .observer_remove = cf_observer_remove,
    .wakeups = cf_wakeups,
};

#else  // no CoreFoundation headers: Package.swift could not find the toolchain

static bench_loop *cf_unavailable(unsigned flags, const char **why) {
    (void)flags;
    *why = "skipped: the toolchain's CoreFoundation headers were not found at build time (see Package.swift)";
    return NULL;
}

static const char *cf_describe(void) { return "CoreFoundation (headers not found at build time)"; }

const bench_engine bench_engine_cf = {.name = "cf", .describe = cf_describe, .create = cf_unavailable};

#endif
