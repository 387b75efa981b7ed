// Engine `glib`: GLib's GMainContext, driven with g_main_context_iteration on the loop thread.
//
// - Sources: a custom GSource with an atomic pending flag, made ready by its prepare and check functions, triggered
//   with g_main_context_wakeup (what the GLib docs prescribe for a cross-thread custom source).
// - Timers: a GSource with a ready time (g_source_set_ready_time, microseconds of CLOCK_MONOTONIC), the modern
//   replacement for g_timeout_add; the date is rounded up to the microsecond. GLib waits in poll() with a timeout in
//   milliseconds, rounded up, so its timers are up to 1 ms late by design. No tolerance.
// - Observers: no such thing; the nearest analogue is a GSource whose prepare and check functions are the callouts
//   (called before and after every poll), never ready itself. One observer = two callouts per iteration.
// - Wake-ups: a poll function (g_main_context_set_poll_func) that counts the calls that may block (timeout != 0).
#include "bench_engine.h"

#include <glib.h>
#include <stdatomic.h>
#include <stdlib.h>

struct bench_item {
    GSource source;  // first: GLib allocates the struct with g_source_new
    bench_callout callout;
    void *context;
    atomic_int pending;  // sources only
};

struct bench_loop {
    GMainContext *context;
    atomic_int stop_requested;
    atomic_uint_fast64_t wakeups;
};

// The poll function has no user data: the loop polling on this thread.
static _Thread_local bench_loop *polling_loop;

static gint counting_poll(GPollFD *fds, guint count, gint timeout) {
    if (timeout != 0 && polling_loop) atomic_fetch_add_explicit(&polling_loop->wakeups, 1, memory_order_relaxed);
    return g_poll(fds, count, timeout);
}

// MARK: sources

static gboolean source_prepare(GSource *source, gint *timeout) {
    *timeout = -1;
    return atomic_load_explicit(&((bench_item *)source)->pending, memory_order_acquire);
}

static gboolean source_check(GSource *source) {
    return atomic_load_explicit(&((bench_item *)source)->pending, memory_order_acquire);
}

static gboolean source_dispatch(GSource *source, GSourceFunc unused, gpointer data) {
    (void)unused;
    (void)data;
    bench_item *item = (bench_item *)source;
    atomic_store_explicit(&item->pending, 0, memory_order_release);
    item->callout(item->context);
    return G_SOURCE_CONTINUE;
}

static GSourceFuncs source_funcs = {source_prepare, source_check, source_dispatch, NULL, NULL, NULL};

// MARK: timers

static gboolean timer_dispatch(GSource *source, GSourceFunc unused, gpointer data) {
    (void)unused;
    (void)data;
    bench_item *item = (bench_item *)source;
    gint64 fired = g_source_get_ready_time(source);
    item->callout(item->context);
    // A timer its callout did not re-arm must not fire again at once.
    if (g_source_get_ready_time(source) == fired) g_source_set_ready_time(source, -1);
    return G_SOURCE_CONTINUE;
}

static GSourceFuncs timer_funcs = {NULL, NULL, timer_dispatch, NULL, NULL, NULL};

static gint64 ready_time(uint64_t due_ns) { return (gint64)((due_ns + 999) / 1000); }

// MARK: observers (prepare/check analogue)

static gboolean observer_prepare(GSource *source, gint *timeout) {
    *timeout = -1;
    bench_item *item = (bench_item *)source;
    item->callout(item->context);
    return FALSE;
}

static gboolean observer_check(GSource *source) {
    bench_item *item = (bench_item *)source;
    item->callout(item->context);
    return FALSE;
}

static gboolean observer_dispatch(GSource *source, GSourceFunc unused, gpointer data) {
    (void)source;
    (void)unused;
    (void)data;
    return G_SOURCE_CONTINUE;
}

static GSourceFuncs observer_funcs = {observer_prepare, observer_check, observer_dispatch, NULL, NULL, NULL};

static bench_item *attach(bench_loop *loop, GSourceFuncs *funcs, bench_callout callout, void *context) {
    bench_item *item = (bench_item *)g_source_new(funcs, sizeof(bench_item));
    item->callout = callout;
    item->context = context;
    atomic_init(&item->pending, 0);
    g_source_attach(&item->source, loop->context);
    return item;
}

static void detach(bench_item *item) {
    g_source_destroy(&item->source);
    g_source_unref(&item->source);
}

// MARK: the engine table

static bench_loop *glib_create(const bench_engine *self, unsigned flags, const char **why) {
    (void)self;
    (void)why;
    bench_loop *loop = calloc(1, sizeof *loop);
    loop->context = g_main_context_new();
    if (flags & BENCH_COUNT_WAKEUPS) {
        polling_loop = loop;
        g_main_context_set_poll_func(loop->context, counting_poll);
    }
    return loop;
}

static void glib_destroy(bench_loop *loop) {
    if (polling_loop == loop) polling_loop = NULL;
    g_main_context_unref(loop->context);
    free(loop);
}

static void glib_run(bench_loop *loop) {
    while (!atomic_load_explicit(&loop->stop_requested, memory_order_acquire))
        g_main_context_iteration(loop->context, TRUE);
    atomic_store(&loop->stop_requested, 0);
}

static void glib_stop(bench_loop *loop) {
    atomic_store_explicit(&loop->stop_requested, 1, memory_order_release);
    g_main_context_wakeup(loop->context);
}

static void glib_poll_once(bench_loop *loop) { g_main_context_iteration(loop->context, FALSE); }

static bench_item *glib_source_add(bench_loop *loop, bench_callout callout, void *context) {
    return attach(loop, &source_funcs, callout, context);
}

static void glib_source_signal(bench_loop *loop, bench_item *source) {
    atomic_store_explicit(&source->pending, 1, memory_order_release);
    g_main_context_wakeup(loop->context);
}

static void glib_source_remove(bench_loop *loop, bench_item *source) {
    (void)loop;
    detach(source);
}

static bench_item *glib_timer_add(bench_loop *loop, uint64_t due_ns, uint64_t interval_ns, uint64_t tolerance_ns,
                                  bench_callout callout, void *context) {
    (void)interval_ns;
    (void)tolerance_ns;  // GLib has no per-timer tolerance (only whole-second g_timeout_add_seconds batching)
    bench_item *item = (bench_item *)g_source_new(&timer_funcs, sizeof(bench_item));
    item->callout = callout;
    item->context = context;
    g_source_set_ready_time(&item->source, ready_time(due_ns));
    g_source_attach(&item->source, loop->context);
    return item;
}

static void glib_timer_set_next(bench_loop *loop, bench_item *timer, uint64_t due_ns) {
    (void)loop;
    g_source_set_ready_time(&timer->source, ready_time(due_ns));
}

static void glib_timer_remove(bench_loop *loop, bench_item *timer) {
    (void)loop;
    detach(timer);
}

static bench_item *glib_observer_add(bench_loop *loop, bench_callout callout, void *context) {
    return attach(loop, &observer_funcs, callout, context);
}

static void glib_observer_remove(bench_loop *loop, bench_item *observer) {
    (void)loop;
    detach(observer);
}

// MARK: resident-thread hand-off: g_main_context_invoke, GLib's own way to run a function on the thread that owns a
// context. From another thread it attaches one idle source per call (and wakes the context's poll each time), so
// GLib's queue is its source list. The item and the channel travel in a small block allocated per item.

struct bench_channel {
    bench_item_callout callout;
    void *context;
};

typedef struct {
    bench_channel *channel;
    void *item;
} invocation;

static gboolean invoke_item(gpointer data) {
    invocation *call = data;
    call->channel->callout(call->channel->context, call->item);
    g_free(call);
    return G_SOURCE_REMOVE;
}

static bench_channel *glib_channel_add(bench_loop *loop, bench_item_callout callout, void *context) {
    (void)loop;
    bench_channel *channel = g_new0(bench_channel, 1);
    channel->callout = callout;
    channel->context = context;
    return channel;
}

static void glib_channel_post(bench_loop *loop, bench_channel *channel, void *item) {
    invocation *call = g_new(invocation, 1);
    call->channel = channel;
    call->item = item;
    g_main_context_invoke(loop->context, invoke_item, call);
}

static void glib_channel_remove(bench_loop *loop, bench_channel *channel) {
    (void)loop;
    g_free(channel);  // every item has run (bench_engine.h), so no idle source refers to it
}

// MARK: the lag monitor's observer: a GSource whose prepare marks BeforeWaiting and whose check marks AfterWaiting,
// at the highest priority so that GLib prepares and checks it in every iteration (it stops at the first priority
// with a ready source). Dispatch, where every callout runs, comes after check, as CF's sources and timers come after
// AfterWaiting: the same monitor.

typedef struct {
    GSource source;  // first: GLib allocates the struct with g_source_new
    bench_activity_callout callout;
    void *context;
} activity_source;

static gboolean activity_prepare(GSource *source, gint *timeout) {
    *timeout = -1;
    activity_source *self = (activity_source *)source;
    self->callout(self->context, BENCH_ACTIVITY_BEFORE_WAITING);
    return FALSE;
}

static gboolean activity_check(GSource *source) {
    activity_source *self = (activity_source *)source;
    self->callout(self->context, BENCH_ACTIVITY_AFTER_WAITING);
    return FALSE;
}

static GSourceFuncs activity_funcs = {activity_prepare, activity_check, observer_dispatch, NULL, NULL, NULL};

static bench_item *glib_activity_observer_add(bench_loop *loop, bench_activity_callout callout, void *context) {
    // Removed with observer_remove (detach), which only uses the GSource at the start of either struct.
    activity_source *item = (activity_source *)g_source_new(&activity_funcs, sizeof(activity_source));
    item->callout = callout;
    item->context = context;
    g_source_set_priority(&item->source, G_PRIORITY_HIGH);
    g_source_attach(&item->source, loop->context);
    return (bench_item *)item;
}

static uint64_t glib_wakeups(bench_loop *loop) { return atomic_load_explicit(&loop->wakeups, memory_order_relaxed); }

static const char *glib_describe(const bench_engine *self) {
    (void)self;
    static char text[96];
    g_snprintf(text, sizeof text, "GLib %u.%u.%u GMainContext", glib_major_version, glib_minor_version,
               glib_micro_version);
    return text;
}

const bench_engine bench_engine_glib = {
    .name = "glib",
    .describe = glib_describe,
    .create = glib_create,
    .destroy = glib_destroy,
    .run = glib_run,
    .stop = glib_stop,
    .poll_once = glib_poll_once,
    .source_add = glib_source_add,
    .source_signal = glib_source_signal,
    .source_remove = glib_source_remove,
    .timer_add = glib_timer_add,
    .timer_set_next = glib_timer_set_next,
    .timer_remove = glib_timer_remove,
    .observer_add = glib_observer_add,
    .observer_remove = glib_observer_remove,
    .wakeups = glib_wakeups,
    .channel_add = glib_channel_add,
    .channel_post = glib_channel_post,
    .channel_remove = glib_channel_remove,
    .activity_observer_add = glib_activity_observer_add,
};
