// Engines `cf` and `cf:NAME`: a CoreFoundation run loop through its C API, called through the function table of
// Sources/CFLoader (dlsym), so that one file serves the real CoreFoundation shipped in the Swift toolchain (`cf`,
// the libFoundation.so this process is linked with) and any other implementation's library loaded at run time
// (`cf:PATH`, named after the file: `cf:Foundation` for libFoundation.so).
//
// Everything lives in kCFRunLoopDefaultMode of the calling thread's CFRunLoop (the harness never uses the main thread,
// whose loop is special: the note of rule empty.what-counts). Sources are version-0 sources, signalled and then woken
// with CFRunLoopWakeUp, as an app would. Timers are repeating CFRunLoopTimers whose next date the harness sets from the
// callout (honoured because it is later than the old date: rule timer.set-date-in-callout). On Linux CF ignores
// tolerance (rule timer.tolerance) and arms one timerfd per mode at the earliest date (rule timer.port-in-wait-set).
//
// Wake-ups are counted with an AfterWaiting observer: CF calls it after every return from its blocking wait (rule
// order.pass-phases); it is skipped only for polls (rule order.wait-observers-skipped-on-poll), i.e. passes that
// handled a source0, which the coalescing benchmark, the one that reads this counter, never has.
#include "bench_engine.h"

#include "CFLoader.h"
#include "handoff_queue.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// kCFRunLoopAfterWaiting and kCFRunLoopAllActivities (CFRunLoop.h).
enum { AFTER_WAITING = 1u << 6, ALL_ACTIVITIES = 0x0FFFFFFFu };

/// What an engine of this family carries in `bench_engine.data`: its library and the strings made once from it.
typedef struct {
    const cfl_library *cf;
    cfl_ref default_mode;  // "kCFRunLoopDefaultMode" as the library's CFString (CF compares modes by value)
    char description[4400];
} cf_engine_data;

struct bench_item {
    bench_callout callout;
    void *context;
    cfl_ref object;  // the CFRunLoopTimer or CFRunLoopObserver (sources are not wrapped: see cf_source_add)
    // Timers: the date CF's own repeat will give the next fire (old date + interval, phase kept: rule
    // timer.repeat-keeps-phase).
    uint64_t natural_next;
    uint64_t interval;
};

struct bench_loop {
    const cf_engine_data *data;
    cfl_ref run_loop;
    cfl_ref wake_counter;
    atomic_uint_fast64_t wakeups;
    atomic_int stop_requested;
};

static void fire_timer(cfl_ref timer, void *info) {
    (void)timer;
    bench_item *item = info;
    item->natural_next += item->interval;
    item->callout(item->context);
}

static void observe(cfl_ref observer, unsigned long activity, void *info) {
    (void)observer;
    (void)activity;
    bench_item *item = info;
    item->callout(item->context);
}

static void count_wakeup(cfl_ref observer, unsigned long activity, void *info) {
    (void)observer;
    (void)activity;
    bench_loop *loop = info;
    atomic_fetch_add_explicit(&loop->wakeups, 1, memory_order_relaxed);
}

/// A CLOCK_MONOTONIC date as a CFAbsoluteTime. CF turns the date back into a monotonic deadline as
/// now_mono + (date - now_abs) (CFRunLoopTimerSetNextFireDate); reading the two clocks in the same order makes the
/// round trip exact up to the double's resolution (about 0.12 us at today's dates), so 1 us is added: the timer may
/// fire 1 us late, never early because of the conversion.
static double absolute_date(const cfl_library *cf, uint64_t due_ns) {
    uint64_t now_ns = bench_now_ns();
    double now = cf->CFAbsoluteTimeGetCurrent();
    return now + (double)((int64_t)(due_ns - now_ns)) / 1e9 + 1e-6;
}

/// The engine's data made from an opened library (the default mode's string, the description), or NULL.
static cf_engine_data *make_data(const cfl_library *cf) {
    cf_engine_data *data = calloc(1, sizeof *data);
    data->cf = cf;
    data->default_mode = cf->CFStringCreateWithCString(NULL, "kCFRunLoopDefaultMode", CFL_UTF8);
    snprintf(data->description, sizeof data->description, "CoreFoundation C API from %s (build id %s)", cf->path,
             cf->build_id[0] ? cf->build_id : "none");
    return data;
}

// MARK: the built-in `cf`: the toolchain's libFoundation.so, opened once

static pthread_once_t builtin_once = PTHREAD_ONCE_INIT;
static cf_engine_data *builtin_data;
static char builtin_error[512];

static void open_builtin(void) {
    // This shim links libFoundation.so (Package.swift), so the library is in the process: cfl_open takes it as it is.
    char *error = NULL;
    cfl_library *cf = cfl_open("libFoundation.so", &error);
    if (!cf) {
        snprintf(builtin_error, sizeof builtin_error, "%s", error ? error : "cannot load libFoundation.so");
        free(error);
        return;
    }
    builtin_data = make_data(cf);
}

/// The engine's data, or NULL (with the reason in *why) when its library is unavailable.
static const cf_engine_data *engine_data(const bench_engine *self, const char **why) {
    if (self->data) return self->data;
    pthread_once(&builtin_once, open_builtin);
    if (!builtin_data && why) *why = builtin_error;
    return builtin_data;
}

// MARK: the engine

static bench_loop *cf_create(const bench_engine *self, unsigned flags, const char **why) {
    const cf_engine_data *data = engine_data(self, why);
    if (!data) return NULL;
    const cfl_library *cf = data->cf;
    bench_loop *loop = calloc(1, sizeof *loop);
    loop->data = data;
    loop->run_loop = cf->CFRetain(cf->CFRunLoopGetCurrent());
    if (flags & BENCH_COUNT_WAKEUPS) {
        cfl_context context = {0, loop, NULL, NULL, NULL};
        loop->wake_counter = cf->CFRunLoopObserverCreate(NULL, AFTER_WAITING, 1, 0, count_wakeup, &context);
        cf->CFRunLoopAddObserver(loop->run_loop, loop->wake_counter, data->default_mode);
    }
    return loop;
}

static void cf_destroy(bench_loop *loop) {
    const cfl_library *cf = loop->data->cf;
    if (loop->wake_counter) {
        cf->CFRunLoopObserverInvalidate(loop->wake_counter);
        cf->CFRelease(loop->wake_counter);
    }
    cf->CFRelease(loop->run_loop);
    free(loop);
}

static void cf_run(bench_loop *loop) {
    // An infinite run (seconds above 504911232 is infinite: rule timeout.infinite) returns Stopped on CFRunLoopStop.
    while (!atomic_load_explicit(&loop->stop_requested, memory_order_acquire))
        loop->data->cf->CFRunLoopRunInMode(loop->data->default_mode, 1e10, 0);
    atomic_store(&loop->stop_requested, 0);
}

static void cf_stop(bench_loop *loop) {
    atomic_store_explicit(&loop->stop_requested, 1, memory_order_release);
    loop->data->cf->CFRunLoopStop(loop->run_loop);
}

static void cf_poll_once(bench_loop *loop) { loop->data->cf->CFRunLoopRunInMode(loop->data->default_mode, 0, 0); }

// A source is handed to the harness as its own bench_item (as engine_ref.c does): the perform callout has the
// harness's callout type and takes the context as its info, so the CFRunLoopSource needs no wrapper. The pointer is
// only converted, never dereferenced as a bench_item.
static bench_item *as_item(cfl_ref source) { return (bench_item *)source; }
static cfl_ref as_source(bench_item *item) { return (cfl_ref)item; }

static bench_item *cf_source_add(bench_loop *loop, bench_callout callout, void *context) {
    const cfl_library *cf = loop->data->cf;
    cfl_source_context0 source_context = {0};
    source_context.info = context;
    source_context.perform = callout;
    cfl_ref source = cf->CFRunLoopSourceCreate(NULL, 0, &source_context);
    cf->CFRunLoopAddSource(loop->run_loop, source, loop->data->default_mode);
    return as_item(source);
}

static void cf_source_signal(bench_loop *loop, bench_item *source) {
    loop->data->cf->CFRunLoopSourceSignal(as_source(source));
    loop->data->cf->CFRunLoopWakeUp(loop->run_loop);
}

static void cf_source_remove(bench_loop *loop, bench_item *source) {
    const cfl_library *cf = loop->data->cf;
    cf->CFRunLoopRemoveSource(loop->run_loop, as_source(source), loop->data->default_mode);
    cf->CFRelease(as_source(source));
}

static bench_item *cf_timer_add(bench_loop *loop, uint64_t due_ns, uint64_t interval_ns, uint64_t tolerance_ns,
                                bench_callout callout, void *context) {
    const cfl_library *cf = loop->data->cf;
    bench_item *item = calloc(1, sizeof *item);
    item->callout = callout;
    item->context = context;
    item->natural_next = due_ns;
    item->interval = interval_ns;
    cfl_context timer_context = {0, item, NULL, NULL, NULL};
    item->object = cf->CFRunLoopTimerCreate(NULL, absolute_date(cf, due_ns), (double)interval_ns / 1e9, 0, 0,
                                            fire_timer, &timer_context);
    // A no-op on Linux (rule timer.tolerance), made anyway so the engine gets the same request as the others; optional
    // in a loaded library.
    if (cf->CFRunLoopTimerSetTolerance) cf->CFRunLoopTimerSetTolerance(item->object, (double)tolerance_ns / 1e9);
    cf->CFRunLoopAddTimer(loop->run_loop, item->object, loop->data->default_mode);
    return item;
}

static void cf_timer_set_next(bench_loop *loop, bench_item *timer, uint64_t due_ns) {
    if (timer->interval && due_ns == timer->natural_next && due_ns > bench_now_ns()) return;
    loop->data->cf->CFRunLoopTimerSetNextFireDate(timer->object, absolute_date(loop->data->cf, due_ns));
    timer->natural_next = due_ns;
}

static void cf_timer_remove(bench_loop *loop, bench_item *timer) {
    const cfl_library *cf = loop->data->cf;
    cf->CFRunLoopRemoveTimer(loop->run_loop, timer->object, loop->data->default_mode);
    cf->CFRelease(timer->object);
    free(timer);
}

static bench_item *cf_observer_add(bench_loop *loop, bench_callout callout, void *context) {
    const cfl_library *cf = loop->data->cf;
    bench_item *item = calloc(1, sizeof *item);
    item->callout = callout;
    item->context = context;
    cfl_context observer_context = {0, item, NULL, NULL, NULL};
    item->object = cf->CFRunLoopObserverCreate(NULL, ALL_ACTIVITIES, 1, 0, observe, &observer_context);
    cf->CFRunLoopAddObserver(loop->run_loop, item->object, loop->data->default_mode);
    return item;
}

static void cf_observer_remove(bench_loop *loop, bench_item *observer) {
    const cfl_library *cf = loop->data->cf;
    cf->CFRunLoopRemoveObserver(loop->run_loop, observer->object, loop->data->default_mode);
    cf->CFRelease(observer->object);
    free(observer);
}

static uint64_t cf_wakeups(bench_loop *loop) { return atomic_load_explicit(&loop->wakeups, memory_order_relaxed); }

static const char *cf_describe(const bench_engine *self) {
    const char *why = NULL;
    const cf_engine_data *data = engine_data(self, &why);
    return data ? data->description : why;
}

// MARK: resident-thread hand-off and the lag monitor's observer

// A channel is a version-0 source over the shared work queue (handoff_queue.h): a producer that finds the queue empty
// signals the source and wakes the loop (CFRunLoopSourceSignal + CFRunLoopWakeUp); the source's perform drains the
// queue. CFRunLoopPerformBlock is the other idiom, but a block cannot be written in this C shim without -fblocks and a
// Blocks runtime, and it would cost a Block_copy, CF's lock and a wake-up per item.
struct bench_channel {
    handoff_queue queue;
    cfl_ref source;
};

static void cf_drain_channel(void *info) { handoff_drain(&((bench_channel *)info)->queue); }

static bench_channel *cf_channel_add(bench_loop *loop, bench_item_callout callout, void *context) {
    const cfl_library *cf = loop->data->cf;
    bench_channel *channel = calloc(1, sizeof *channel);
    handoff_init(&channel->queue, callout, context);
    cfl_source_context0 source_context = {0};
    source_context.info = channel;
    source_context.perform = cf_drain_channel;
    channel->source = cf->CFRunLoopSourceCreate(NULL, 0, &source_context);
    cf->CFRunLoopAddSource(loop->run_loop, channel->source, loop->data->default_mode);
    return channel;
}

static void cf_channel_post(bench_loop *loop, bench_channel *channel, void *item) {
    if (!handoff_push(&channel->queue, item)) return;  // already signalled: the pending drain takes this item too
    loop->data->cf->CFRunLoopSourceSignal(channel->source);
    loop->data->cf->CFRunLoopWakeUp(loop->run_loop);
}

static void cf_channel_remove(bench_loop *loop, bench_channel *channel) {
    const cfl_library *cf = loop->data->cf;
    cf->CFRunLoopRemoveSource(loop->run_loop, channel->source, loop->data->default_mode);
    cf->CFRelease(channel->source);
    handoff_destroy(&channel->queue);
    free(channel);
}

static uint64_t cf_channel_batches(bench_channel *channel) { return handoff_batches(&channel->queue); }

// The item keeps the activity callout in its `callout` field, converted back before the call (a function pointer
// converted to another function pointer type and back compares equal to the original: C11 6.3.2.3p8).
static void observe_activity(cfl_ref observer, unsigned long activity, void *info) {
    (void)observer;
    bench_item *item = info;
    ((bench_activity_callout)item->callout)(item->context, (unsigned)activity);
}

static bench_item *cf_activity_observer_add(bench_loop *loop, bench_activity_callout callout, void *context) {
    const cfl_library *cf = loop->data->cf;
    bench_item *item = calloc(1, sizeof *item);
    item->callout = (bench_callout)callout;
    item->context = context;
    cfl_context observer_context = {0, item, NULL, NULL, NULL};
    item->object = cf->CFRunLoopObserverCreate(NULL, ALL_ACTIVITIES, 1, 0, observe_activity, &observer_context);
    cf->CFRunLoopAddObserver(loop->run_loop, item->object, loop->data->default_mode);
    return item;
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
    .channel_add = cf_channel_add,
    .channel_post = cf_channel_post,
    .channel_remove = cf_channel_remove,
    .channel_batches = cf_channel_batches,
    .activity_observer_add = cf_activity_observer_add,
};

bench_engine *bench_engine_cf_load(const char *path, char **error) {
    cfl_library *cf = cfl_open(path, error);
    if (!cf) return NULL;
    bench_engine *engine = malloc(sizeof *engine);
    *engine = bench_engine_cf;
    // CFLoader's one naming rule, which `runloop conform` applies too.
    size_t size = strlen(path) + 4;
    char *name = malloc(size);
    cfl_engine_name(path, name, size);
    engine->name = name;
    engine->data = make_data(cf);
    return engine;
}
