// Engine `libevent`: an event_base (epoll backend) driven with event_base_loop on the loop thread.
//
// - Threads: evthread_use_pthreads once per process, so event_active and event_base_loopbreak work from another
//   thread (libevent then wakes the base through its own notification eventfd).
// - Sources: an event with no descriptor, made active from another thread with event_active. Such an event is
//   never "added", so adding and removing one is only event_assign / event_del and freeing the item.
// - Items embed their struct event (event_assign, event2/event_struct.h), as libuv's and GLib's items embed their
//   handles: one allocation per item, not the item's and event_new's.
// - Timers: one-shot timer events, re-added with a relative timeout. The base is created with
//   EVENT_BASE_FLAG_PRECISE_TIMER: CLOCK_MONOTONIC instead of the default CLOCK_MONOTONIC_COARSE (4 ms steps here),
//   and a timerfd instead of epoll_wait's millisecond timeout. libevent adds the timeout to its cached time (the
//   time the last wait returned), so the date is converted from a fresh cache, rounded up, plus 1 us for the
//   cache's truncation to microseconds: never early. No tolerance.
// - Observers: libevent 2.1 has no prepare/check hooks (evwatch_prepare_new/evwatch_check_new came in 2.2), so the
//   observer benchmark reports a skip.
// - Wake-ups: the loop runs event_base_loop(EVLOOP_ONCE) repeatedly and counts the calls; each returns after one
//   wait whose events ran at least one callback. A wait that ran nothing (a spurious wake-up) is looped over inside
//   libevent and not counted; the harness's context-switch counter is the cross-check.
#include "bench_engine.h"
#include "handoff_queue.h"

#include <event2/event.h>
#include <event2/event_struct.h>
#include <event2/thread.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

struct bench_item {
    struct event event;
    bench_callout callout;
    void *context;
};

struct bench_loop {
    struct event_base *base;
    int counting;
    atomic_int stop_requested;
    atomic_uint_fast64_t wakeups;
};

/// Why there are no observers, and no lag monitor.
#define NO_HOOKS "libevent 2.1 has no prepare/check hooks (evwatch_prepare_new and evwatch_check_new arrived in 2.2)"

static pthread_once_t threads_enabled = PTHREAD_ONCE_INIT;

static void enable_threads(void) { evthread_use_pthreads(); }

static void on_event(evutil_socket_t fd, short what, void *info) {
    (void)fd;
    (void)what;
    bench_item *item = info;
    item->callout(item->context);
}

static bench_item *new_item(bench_loop *loop, bench_callout callout, void *context) {
    bench_item *item = calloc(1, sizeof *item);
    item->callout = callout;
    item->context = context;
    event_assign(&item->event, loop->base, -1, 0, on_event, item);
    return item;
}

static void free_item(bench_item *item) {
    event_del(&item->event);  // what event_free does before it frees
    free(item);
}

static bench_loop *levent_create(const bench_engine *self, unsigned flags, const char **why) {
    (void)self;
    pthread_once(&threads_enabled, enable_threads);
    struct event_config *config = event_config_new();
    event_config_set_flag(config, EVENT_BASE_FLAG_PRECISE_TIMER);
    struct event_base *base = event_base_new_with_config(config);
    event_config_free(config);
    if (!base) {
        *why = "event_base_new_with_config failed";
        return NULL;
    }
    bench_loop *loop = calloc(1, sizeof *loop);
    loop->base = base;
    loop->counting = (flags & BENCH_COUNT_WAKEUPS) != 0;
    return loop;
}

static void levent_destroy(bench_loop *loop) {
    event_base_free(loop->base);
    free(loop);
}

static void levent_run(bench_loop *loop) {
    // EVLOOP_NO_EXIT_ON_EMPTY: sources are never "added", so the base would otherwise think it has nothing to do.
    while (!atomic_load_explicit(&loop->stop_requested, memory_order_acquire)) {
        event_base_loop(loop->base, EVLOOP_ONCE | EVLOOP_NO_EXIT_ON_EMPTY);
        if (loop->counting) atomic_fetch_add_explicit(&loop->wakeups, 1, memory_order_relaxed);
    }
    atomic_store(&loop->stop_requested, 0);
}

static void levent_stop(bench_loop *loop) {
    atomic_store_explicit(&loop->stop_requested, 1, memory_order_release);
    event_base_loopbreak(loop->base);
}

static void levent_poll_once(bench_loop *loop) { event_base_loop(loop->base, EVLOOP_NONBLOCK); }

static bench_item *levent_source_add(bench_loop *loop, bench_callout callout, void *context) {
    return new_item(loop, callout, context);
}

static void levent_source_signal(bench_loop *loop, bench_item *source) {
    (void)loop;
    event_active(&source->event, EV_READ, 0);
}

static void levent_source_remove(bench_loop *loop, bench_item *source) {
    (void)loop;
    free_item(source);
}

static void add_at(bench_loop *loop, bench_item *timer, uint64_t due_ns) {
    uint64_t now_ns = bench_now_ns();
    event_base_update_cache_time(loop->base);  // the cache is now at or after now_ns
    uint64_t wait_us = (due_ns > now_ns ? (due_ns - now_ns + 999u) / 1000u : 0) + 1;
    struct timeval timeout = {.tv_sec = (time_t)(wait_us / 1000000u), .tv_usec = (suseconds_t)(wait_us % 1000000u)};
    event_add(&timer->event, &timeout);
}

static bench_item *levent_timer_add(bench_loop *loop, uint64_t due_ns, uint64_t interval_ns, uint64_t tolerance_ns,
                                    bench_callout callout, void *context) {
    (void)interval_ns;
    (void)tolerance_ns;  // libevent has no tolerance
    bench_item *item = new_item(loop, callout, context);
    add_at(loop, item, due_ns);
    return item;
}

static void levent_timer_set_next(bench_loop *loop, bench_item *timer, uint64_t due_ns) { add_at(loop, timer, due_ns); }

static void levent_timer_remove(bench_loop *loop, bench_item *timer) {
    (void)loop;
    free_item(timer);
}

// MARK: resident-thread hand-off: the shared work queue (handoff_queue.h) behind an event with no descriptor; a
// producer that finds the queue empty makes it active with event_active (libevent then writes its notification fd).

struct bench_channel {
    struct event *event;
    handoff_queue queue;
};

static void on_channel(evutil_socket_t fd, short what, void *info) {
    (void)fd;
    (void)what;
    handoff_drain(&((bench_channel *)info)->queue);
}

static bench_channel *levent_channel_add(bench_loop *loop, bench_item_callout callout, void *context) {
    bench_channel *channel = calloc(1, sizeof *channel);
    handoff_init(&channel->queue, callout, context);
    channel->event = event_new(loop->base, -1, 0, on_channel, channel);
    return channel;
}

static void levent_channel_post(bench_loop *loop, bench_channel *channel, void *item) {
    (void)loop;
    if (handoff_push(&channel->queue, item)) event_active(channel->event, EV_READ, 0);
}

static void levent_channel_remove(bench_loop *loop, bench_channel *channel) {
    (void)loop;
    event_free(channel->event);
    handoff_destroy(&channel->queue);
    free(channel);
}

static uint64_t levent_channel_batches(bench_channel *channel) { return handoff_batches(&channel->queue); }

static uint64_t levent_wakeups(bench_loop *loop) { return atomic_load_explicit(&loop->wakeups, memory_order_relaxed); }

static const char *levent_describe(const bench_engine *self) {
    (void)self;
    static char text[64];
    snprintf(text, sizeof text, "libevent %s event_base (epoll, precise timer)", event_get_version());
    return text;
}

const bench_engine bench_engine_libevent = {
    .name = "libevent",
    .describe = levent_describe,
    .create = levent_create,
    .destroy = levent_destroy,
    .run = levent_run,
    .stop = levent_stop,
    .poll_once = levent_poll_once,
    .source_add = levent_source_add,
    .source_signal = levent_source_signal,
    .source_remove = levent_source_remove,
    .timer_add = levent_timer_add,
    .timer_set_next = levent_timer_set_next,
    .timer_remove = levent_timer_remove,
    .observer_add = NULL,
    .observer_remove = NULL,
    .no_observers = NO_HOOKS,
    .wakeups = levent_wakeups,
    .channel_add = levent_channel_add,
    .channel_post = levent_channel_post,
    .channel_remove = levent_channel_remove,
    .channel_batches = levent_channel_batches,
    .activity_observer_add = NULL,
    .no_activity_observer = NO_HOOKS,
};
