// Engine `libuv`: a uv_loop_t driven with uv_run on the loop thread.
//
// - Sources: uv_async_t, triggered with uv_async_send (libuv's only thread-safe call). On every wake libuv scans all
//   async handles for the pending one, so idle sources cost it per wake.
// - Stop: uv_stop is not thread-safe, so a private async handle calls it on the loop thread.
// - Timers: uv_timer_t, one-shot, re-armed with uv_timer_start. libuv's clock is the loop's cached millisecond time
//   (uv_now), so a date is turned into a timeout in whole milliseconds from uv_now, rounded up: libuv timers fire up
//   to 1 ms late by design, never early. No tolerance.
// - Observers: none; the nearest analogue is a prepare handle (before the poll) plus a check handle (after it).
//   One observer = two callouts per iteration.
// - Wake-ups: an internal prepare handle notes whether the poll will block (uv_backend_timeout != 0, the same value
//   uv_run computes right after the prepare phase), and an internal check handle counts the iterations that did.
// Removing a handle is uv_close, finished by the next iteration; the harness's scale benchmark runs one poll pass
// after removing, so that cost is counted.
#include "bench_engine.h"
#include "handoff_queue.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <uv.h>

struct bench_item {
    union {
        uv_async_t async;
        uv_timer_t timer;
        uv_prepare_t prepare;
    } handle;
    uv_check_t check;  // observers only
    int open_handles;  // freed when the last uv_close callback runs
    bench_callout callout;
    void *context;
};

struct bench_loop {
    uv_loop_t loop;
    uv_async_t stopper;
    uv_prepare_t will_wait;
    uv_check_t has_waited;
    int counting, in_run, wait_expected;
    atomic_int stop_requested;
    atomic_uint_fast64_t wakeups;
};

static bench_loop *owner(uv_handle_t *handle) { return (bench_loop *)handle->loop; }

static void on_closed(uv_handle_t *handle) {
    bench_item *item = handle->data;
    if (--item->open_handles == 0) free(item);
}

static void on_async(uv_async_t *handle) {
    bench_item *item = handle->data;
    item->callout(item->context);
}

static void on_timer(uv_timer_t *handle) {
    bench_item *item = handle->data;
    item->callout(item->context);
}

static void on_prepare(uv_prepare_t *handle) {
    bench_item *item = handle->data;
    item->callout(item->context);
}

static void on_check(uv_check_t *handle) {
    bench_item *item = handle->data;
    item->callout(item->context);
}

static void on_stop(uv_async_t *handle) { uv_stop(handle->loop); }

static void note_wait(uv_prepare_t *handle) {
    bench_loop *loop = owner((uv_handle_t *)handle);
    loop->wait_expected = loop->in_run && uv_backend_timeout(&loop->loop) != 0;
}

static void count_wait(uv_check_t *handle) {
    bench_loop *loop = owner((uv_handle_t *)handle);
    if (loop->wait_expected) atomic_fetch_add_explicit(&loop->wakeups, 1, memory_order_relaxed);
}

static bench_item *new_item(bench_callout callout, void *context, int handles) {
    bench_item *item = calloc(1, sizeof *item);
    item->callout = callout;
    item->context = context;
    item->open_handles = handles;
    return item;
}

static bench_loop *luv_create(const bench_engine *self, unsigned flags, const char **why) {
    (void)self;
    bench_loop *loop = calloc(1, sizeof *loop);
    if (uv_loop_init(&loop->loop) != 0) {
        *why = "uv_loop_init failed";
        free(loop);
        return NULL;
    }
    uv_async_init(&loop->loop, &loop->stopper, on_stop);
    if (flags & BENCH_COUNT_WAKEUPS) {
        loop->counting = 1;
        uv_prepare_init(&loop->loop, &loop->will_wait);
        uv_prepare_start(&loop->will_wait, note_wait);
        uv_check_init(&loop->loop, &loop->has_waited);
        uv_check_start(&loop->has_waited, count_wait);
    }
    return loop;
}

static void luv_destroy(bench_loop *loop) {
    uv_close((uv_handle_t *)&loop->stopper, NULL);
    if (loop->counting) {
        uv_close((uv_handle_t *)&loop->will_wait, NULL);
        uv_close((uv_handle_t *)&loop->has_waited, NULL);
    }
    uv_run(&loop->loop, UV_RUN_DEFAULT);  // finishes every uv_close; returns once no handle is left
    uv_loop_close(&loop->loop);
    free(loop);
}

static void luv_run(bench_loop *loop) {
    loop->in_run = 1;
    while (!atomic_load_explicit(&loop->stop_requested, memory_order_acquire)) uv_run(&loop->loop, UV_RUN_DEFAULT);
    loop->in_run = 0;
    atomic_store(&loop->stop_requested, 0);
}

static void luv_stop(bench_loop *loop) {
    atomic_store_explicit(&loop->stop_requested, 1, memory_order_release);
    uv_async_send(&loop->stopper);
}

static void luv_poll_once(bench_loop *loop) { uv_run(&loop->loop, UV_RUN_NOWAIT); }

static bench_item *luv_source_add(bench_loop *loop, bench_callout callout, void *context) {
    bench_item *item = new_item(callout, context, 1);
    uv_async_init(&loop->loop, &item->handle.async, on_async);
    item->handle.async.data = item;
    return item;
}

static void luv_source_signal(bench_loop *loop, bench_item *source) {
    (void)loop;
    uv_async_send(&source->handle.async);
}

static void luv_source_remove(bench_loop *loop, bench_item *source) {
    (void)loop;
    uv_close((uv_handle_t *)&source->handle.async, on_closed);
}

/// Milliseconds from the loop's cached time to `due_ns`, rounded up. libuv fires a timer once its cached time,
/// floor(monotonic / 1 ms), reaches uv_now + timeout, which is then at or after the date.
static uint64_t timeout_ms(bench_loop *loop, uint64_t due_ns) {
    uint64_t now_ns = uv_now(&loop->loop) * 1000000u;
    return due_ns <= now_ns ? 0 : (due_ns - now_ns + 999999u) / 1000000u;
}

static bench_item *luv_timer_add(bench_loop *loop, uint64_t due_ns, uint64_t interval_ns, uint64_t tolerance_ns,
                                 bench_callout callout, void *context) {
    (void)interval_ns;
    (void)tolerance_ns;  // libuv has no tolerance; its millisecond clock batches timers within a millisecond
    bench_item *item = new_item(callout, context, 1);
    uv_timer_init(&loop->loop, &item->handle.timer);
    item->handle.timer.data = item;
    uv_timer_start(&item->handle.timer, on_timer, timeout_ms(loop, due_ns), 0);
    return item;
}

static void luv_timer_set_next(bench_loop *loop, bench_item *timer, uint64_t due_ns) {
    uv_timer_start(&timer->handle.timer, on_timer, timeout_ms(loop, due_ns), 0);
}

static void luv_timer_remove(bench_loop *loop, bench_item *timer) {
    (void)loop;
    uv_close((uv_handle_t *)&timer->handle.timer, on_closed);
}

static bench_item *luv_observer_add(bench_loop *loop, bench_callout callout, void *context) {
    bench_item *item = new_item(callout, context, 2);
    uv_prepare_init(&loop->loop, &item->handle.prepare);
    item->handle.prepare.data = item;
    uv_prepare_start(&item->handle.prepare, on_prepare);
    uv_check_init(&loop->loop, &item->check);
    item->check.data = item;
    uv_check_start(&item->check, on_check);
    return item;
}

static void luv_observer_remove(bench_loop *loop, bench_item *observer) {
    (void)loop;
    uv_close((uv_handle_t *)&observer->handle.prepare, on_closed);
    uv_close((uv_handle_t *)&observer->check, on_closed);
}

// MARK: resident-thread hand-off: the shared work queue (handoff_queue.h) behind a uv_async_t, libuv's one
// thread-safe call; a producer that finds the queue empty calls uv_async_send.

struct bench_channel {
    uv_async_t async;
    handoff_queue queue;
};

static void on_channel(uv_async_t *handle) { handoff_drain(&((bench_channel *)handle->data)->queue); }

static void on_channel_closed(uv_handle_t *handle) {
    bench_channel *channel = handle->data;
    handoff_destroy(&channel->queue);
    free(channel);
}

static bench_channel *luv_channel_add(bench_loop *loop, bench_item_callout callout, void *context) {
    bench_channel *channel = calloc(1, sizeof *channel);
    handoff_init(&channel->queue, callout, context);
    uv_async_init(&loop->loop, &channel->async, on_channel);
    channel->async.data = channel;
    return channel;
}

static void luv_channel_post(bench_loop *loop, bench_channel *channel, void *item) {
    (void)loop;
    if (handoff_push(&channel->queue, item)) uv_async_send(&channel->async);
}

static void luv_channel_remove(bench_loop *loop, bench_channel *channel) {
    (void)loop;
    uv_close((uv_handle_t *)&channel->async, on_channel_closed);  // freed by the next iteration
}

static uint64_t luv_channel_batches(bench_channel *channel) { return handoff_batches(&channel->queue); }

static uint64_t luv_wakeups(bench_loop *loop) { return atomic_load_explicit(&loop->wakeups, memory_order_relaxed); }

static const char *luv_describe(const bench_engine *self) {
    (void)self;
    static char text[64];
    snprintf(text, sizeof text, "libuv %s uv_loop_t", uv_version_string());
    return text;
}

const bench_engine bench_engine_libuv = {
    .name = "libuv",
    .describe = luv_describe,
    .create = luv_create,
    .destroy = luv_destroy,
    .run = luv_run,
    .stop = luv_stop,
    .poll_once = luv_poll_once,
    .source_add = luv_source_add,
    .source_signal = luv_source_signal,
    .source_remove = luv_source_remove,
    .timer_add = luv_timer_add,
    .timer_set_next = luv_timer_set_next,
    .timer_remove = luv_timer_remove,
    .observer_add = luv_observer_add,
    .observer_remove = luv_observer_remove,
    .wakeups = luv_wakeups,
    .channel_add = luv_channel_add,
    .channel_post = luv_channel_post,
    .channel_remove = luv_channel_remove,
    .channel_batches = luv_channel_batches,
    .activity_observer_add = NULL,
    .no_activity_observer =
        "libuv runs I/O and async callbacks inside its poll phase, between the prepare and check "
        "handles: a stall there looks like sleep to a prepare/check monitor (not the same monitor)",
};
