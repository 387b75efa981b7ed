// Engine `ref`: this package's reference run loop (Sources/RefRunLoop), through its C ABI
// (Sources/RefRunLoopABI/include/RefRunLoopABI.h, implemented with @_cdecl in Sources/RefRunLoop/CABI.swift).
//
// Used exactly like the `cf` shim uses CoreFoundation: the calling thread's loop, everything in the default mode,
// version-0 sources signalled and then woken, repeating timers whose next date the harness sets from the callout,
// observers of all activities; a timer's next date is left to the loop's own repeat when that is the date asked for
// (see engine_cf.c for why). Differences that matter for the figures:
// - tolerance is honoured (the loop arms its timerfd at the coalesced wake-up time of overlapping windows);
// - dates are seconds on CLOCK_MONOTONIC (ref_runloop_now), so a date converts without CF's wall-clock round trip;
//   the loop rounds seconds up to whole nanoseconds, so a converted date is never early;
// - wake-ups come from the loop's own counter (ref_runloop_wakeup_count: every return from epoll, and every wake-up
//   reported without one because it was claimed while the loop was awake), always on;
// - the `spin:on` variants (BENCH_SPIN) run the loop with its spin-then-park wait policy (RefRunLoop.WaitPolicy): a
//   wake-up that lands while the loop spins before sleeping is counted as one too.
// Mode arguments are C strings: REF_RUNLOOP_DEFAULT_MODE is a constant the ABI recognises by its address and sends
// straight to the default mode (CABI.swift, withMode); any other name is compared, and one that is not the default
// becomes a Swift String per call, a cost these benchmarks never pay.
#include "bench_engine.h"

#include "RefRunLoopABI.h"
#include "handoff_queue.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#define MODE REF_RUNLOOP_DEFAULT_MODE

struct bench_item {
    union {  // not wrapped: sources, one-shot timers, scale observers (ref_source_add, ref_timer_add, ref_observer_add)
        ref_runloop_timer *timer;
        ref_runloop_observer *observer;
    } object;
    bench_callout callout;
    void *context;
    // Timers: the date the loop's own repeat will give the next fire (old date + interval, phase kept: rule
    // timer.repeat-keeps-phase).
    uint64_t natural_next;
    uint64_t interval;
};

struct bench_loop {
    ref_runloop *run_loop;
    atomic_int stop_requested;
};

static bench_item *new_item(bench_callout callout, void *context) {
    bench_item *item = calloc(1, sizeof *item);
    item->callout = callout;
    item->context = context;
    return item;
}

static double seconds(uint64_t ns) { return (double)ns / 1e9; }

// Whether a bench_item is a wrapper handed out with its lowest bit set (a repeating timer, an activity observer)
// rather than the loop's own object (calloc's and Swift's allocations are at least 16-byte aligned).
static int is_wrapped(bench_item *item) { return ((uintptr_t)item & 1u) != 0; }

static void fire_timer(void *info) {
    bench_item *item = info;
    item->natural_next += item->interval;
    item->callout(item->context);
}

// BENCH_SPIN (the `spin:on` variants) sets the spin-then-park wait policy with its default cap; without it the loop
// parks, whatever REF_RUNLOOP_SPIN says, so a `spin:off` figure is always the parking loop's. BENCH_NO_HOLD (the
// `hold:off` variants) sets the hand-off hold to 0; without it the loop has its default hold. The wake-up counter is
// always on (a load and a store per wait, by the loop's thread only), so BENCH_COUNT_WAKEUPS changes nothing.
static bench_loop *ref_create(const bench_engine *self, unsigned flags, const char **why) {
    (void)self;
    (void)why;
    bench_loop *loop = calloc(1, sizeof *loop);
    loop->run_loop = ref_runloop_current();
    ref_runloop_set_wait_policy(loop->run_loop, (flags & BENCH_SPIN) ? ref_runloop_default_max_spin_ns() : 0);
    ref_runloop_set_hand_off_hold_ns(loop->run_loop,
                                     (flags & BENCH_NO_HOLD) ? 0 : ref_runloop_default_hand_off_hold_ns());
    return loop;
}

// The loop itself lives as long as its thread; the next shim loop on this thread sets its own policy.
static void ref_destroy(bench_loop *loop) { free(loop); }

static void ref_run(bench_loop *loop) {
    while (!atomic_load_explicit(&loop->stop_requested, memory_order_acquire))
        ref_runloop_run(loop->run_loop, MODE, 1e10, 0);
    atomic_store(&loop->stop_requested, 0);
}

static void ref_stop(bench_loop *loop) {
    atomic_store_explicit(&loop->stop_requested, 1, memory_order_release);
    ref_runloop_stop(loop->run_loop);
}

static void ref_poll_once(bench_loop *loop) { ref_runloop_run(loop->run_loop, MODE, 0, 0); }

// A source is handed to the harness as its own bench_item: the perform callout has the harness's callout type and
// takes the context as its info, so the source needs no wrapper (one allocation per source, as libuv's and GLib's
// handles embedded in the item are). The pointer is only converted, never dereferenced as a bench_item.
static bench_item *as_item(ref_runloop_source *source) { return (bench_item *)source; }
static ref_runloop_source *as_source(bench_item *item) { return (ref_runloop_source *)item; }

static bench_item *ref_source_add(bench_loop *loop, bench_callout callout, void *context) {
    ref_runloop_source *source = ref_runloop_source0_create(0, callout, context);
    ref_runloop_add_source(loop->run_loop, source, MODE);
    return as_item(source);
}

static void ref_source_signal(bench_loop *loop, bench_item *source) {
    ref_runloop_source_signal(as_source(source));
    ref_runloop_wake_up(loop->run_loop);
}

static void ref_source_remove(bench_loop *loop, bench_item *source) {
    ref_runloop_remove_source(loop->run_loop, as_source(source), MODE);
    ref_runloop_source_release(as_source(source));
}

// A one-shot timer is handed to the harness as its own bench_item, as sources are: its callout has the harness's
// callout type and takes the context as its info, and it has no repeat for the shim to follow (timer_set_next always
// sets its date), so it needs no wrapper (one allocation per timer, as libuv's handle embedded in the item is). A
// repeating timer is wrapped (fire_timer keeps its natural next date): its bench_item is handed out with its lowest
// bit set (calloc's and Swift's allocations are at least 16-byte aligned, so a timer's address never has it).
static bench_item *as_timer_item(ref_runloop_timer *timer) { return (bench_item *)timer; }
static bench_item *wrapped_timer(bench_item *item) { return (bench_item *)((uintptr_t)item & ~(uintptr_t)1u); }

static bench_item *ref_timer_add(bench_loop *loop, uint64_t due_ns, uint64_t interval_ns, uint64_t tolerance_ns,
                                 bench_callout callout, void *context) {
    if (interval_ns == 0) {
        ref_runloop_timer *timer = ref_runloop_timer_create(seconds(due_ns), 0, 0, callout, context);
        if (tolerance_ns) ref_runloop_timer_set_tolerance(timer, seconds(tolerance_ns));
        ref_runloop_add_timer(loop->run_loop, timer, MODE);
        return as_timer_item(timer);
    }
    bench_item *item = new_item(callout, context);
    item->natural_next = due_ns;
    item->interval = interval_ns;
    item->object.timer = ref_runloop_timer_create(seconds(due_ns), seconds(interval_ns), 0, fire_timer, item);
    if (tolerance_ns) ref_runloop_timer_set_tolerance(item->object.timer, seconds(tolerance_ns));
    ref_runloop_add_timer(loop->run_loop, item->object.timer, MODE);
    return (bench_item *)((uintptr_t)item | 1u);
}

static void ref_timer_set_next(bench_loop *loop, bench_item *timer, uint64_t due_ns) {
    (void)loop;
    if (!is_wrapped(timer)) {
        ref_runloop_timer_set_next_fire_date((ref_runloop_timer *)timer, seconds(due_ns));
        return;
    }
    bench_item *item = wrapped_timer(timer);
    // The loop's repeat rounds the interval up to whole nanoseconds: never earlier than the date asked for.
    if (due_ns == item->natural_next && due_ns > bench_now_ns()) return;
    ref_runloop_timer_set_next_fire_date(item->object.timer, seconds(due_ns));
    item->natural_next = due_ns;
}

static void ref_timer_remove(bench_loop *loop, bench_item *timer) {
    if (!is_wrapped(timer)) {
        ref_runloop_remove_timer(loop->run_loop, (ref_runloop_timer *)timer, MODE);
        ref_runloop_timer_release((ref_runloop_timer *)timer);
        return;
    }
    bench_item *item = wrapped_timer(timer);
    ref_runloop_remove_timer(loop->run_loop, item->object.timer, MODE);
    ref_runloop_timer_release(item->object.timer);
    free(item);
}

// An observer, like a source, is handed to the harness as its own bench_item: created with a callout that is not
// told the activity, it calls the harness's callout with its context directly (one allocation per observer, as
// libuv's and GLib's handles embedded in the item are). The pointer is only converted, never dereferenced.
static bench_item *as_observer_item(ref_runloop_observer *observer) { return (bench_item *)observer; }
static ref_runloop_observer *as_observer(bench_item *item) { return (ref_runloop_observer *)item; }

static bench_item *ref_observer_add(bench_loop *loop, bench_callout callout, void *context) {
    ref_runloop_observer *observer =
        ref_runloop_observer_create_without_activity(REF_RUNLOOP_ACTIVITY_ALL, 1, 0, callout, context);
    ref_runloop_add_observer(loop->run_loop, observer, MODE);
    return as_observer_item(observer);
}

// An activity observer (ref_activity_observer_add) is wrapped: its bench_item is handed out with its lowest bit set,
// as a repeating timer's is (is_wrapped).

static void ref_observer_remove(bench_loop *loop, bench_item *observer) {
    if (is_wrapped(observer)) {
        bench_item *item = (bench_item *)((uintptr_t)observer & ~(uintptr_t)1u);
        ref_runloop_remove_observer(loop->run_loop, item->object.observer, MODE);
        ref_runloop_observer_release(item->object.observer);
        free(item);
        return;
    }
    ref_runloop_remove_observer(loop->run_loop, as_observer(observer), MODE);
    ref_runloop_observer_release(as_observer(observer));
}

static uint64_t ref_wakeups(bench_loop *loop) { return ref_runloop_wakeup_count(loop->run_loop); }

static const char *ref_describe(const bench_engine *self) {
    (void)self;
    return "RefRunLoop (this package, Swift, epoll + eventfd + timerfd) through its C ABI";
}

// MARK: resident-thread hand-off and the lag monitor's observer

// A channel is a version-0 source over the shared work queue (handoff_queue.h): a producer that finds the queue empty
// signals the source and wakes the loop; the source's perform drains the queue. Chosen over ref_runloop_perform (the
// PerformBlock analogue) plus a wake-up per item, which allocates a block entry and takes the loop's lock per item:
// about 5x fewer items per second here (one interleaved run, 7 repetitions, P = 1 and 4).
struct bench_channel {
    handoff_queue queue;
    ref_runloop_source *source;
};

static void ref_drain_channel(void *info) { handoff_drain(&((bench_channel *)info)->queue); }

static bench_channel *ref_channel_add(bench_loop *loop, bench_item_callout callout, void *context) {
    bench_channel *channel = calloc(1, sizeof *channel);
    handoff_init(&channel->queue, callout, context);
    channel->source = ref_runloop_source0_create(0, ref_drain_channel, channel);
    ref_runloop_add_source(loop->run_loop, channel->source, MODE);
    return channel;
}

static void ref_channel_post(bench_loop *loop, bench_channel *channel, void *item) {
    if (!handoff_push(&channel->queue, item)) return;  // already signalled: the pending drain takes this item too
    ref_runloop_source_signal(channel->source);
    ref_runloop_wake_up(loop->run_loop);
}

static void ref_channel_remove(bench_loop *loop, bench_channel *channel) {
    ref_runloop_remove_source(loop->run_loop, channel->source, MODE);
    ref_runloop_source_release(channel->source);
    handoff_destroy(&channel->queue);
    free(channel);
}

static uint64_t ref_channel_batches(bench_channel *channel) { return handoff_batches(&channel->queue); }

// The item keeps the activity callout in its `callout` field, converted back before the call (a function pointer
// converted to another function pointer type and back compares equal to the original: C11 6.3.2.3p8).
static void observe_activity(uint32_t activity, void *info) {
    bench_item *item = info;
    ((bench_activity_callout)item->callout)(item->context, activity);
}

static bench_item *ref_activity_observer_add(bench_loop *loop, bench_activity_callout callout, void *context) {
    bench_item *item = new_item((bench_callout)callout, context);
    item->object.observer = ref_runloop_observer_create(REF_RUNLOOP_ACTIVITY_ALL, 1, 0, observe_activity, item);
    ref_runloop_add_observer(loop->run_loop, item->object.observer, MODE);
    return (bench_item *)((uintptr_t)item | 1u);  // wrapped: see ref_observer_remove
}

const bench_engine bench_engine_ref = {
    .name = "ref",
    .spin_variant = 1,
    .hold_variant = 1,
    .describe = ref_describe,
    .create = ref_create,
    .destroy = ref_destroy,
    .run = ref_run,
    .stop = ref_stop,
    .poll_once = ref_poll_once,
    .source_add = ref_source_add,
    .source_signal = ref_source_signal,
    .source_remove = ref_source_remove,
    .timer_add = ref_timer_add,
    .timer_set_next = ref_timer_set_next,
    .timer_remove = ref_timer_remove,
    .observer_add = ref_observer_add,
    .observer_remove = ref_observer_remove,
    .wakeups = ref_wakeups,
    .channel_add = ref_channel_add,
    .channel_post = ref_channel_post,
    .channel_remove = ref_channel_remove,
    .channel_batches = ref_channel_batches,
    .activity_observer_add = ref_activity_observer_add,
};
