// The one C interface every benchmarked run loop implements: a table of function pointers per engine.
//
// The harness (Benchmarks/Harness, C++) only talks to engines through this table, so the eight engines run exactly
// the same benchmark code. Each engine lives in one file (Benchmarks/Shims/engine_<name>.c).
//
// Threading contract (the strictest of the six libraries, libuv, sets it):
// - `create` makes a loop whose thread is the calling thread. Everything except `source_signal`, `channel_post`,
//   `stop` and `wakeups` must then be called on that thread, either before `run`, between runs, or from inside a
//   callout.
// - `source_signal`, `channel_post`, `stop` and `wakeups` may be called from any thread at any time while the loop
//   (and the source or channel) exists.
// - Callouts (`bench_callout`) always run on the loop's thread.
// Two engines run their loop on threads they own, so "the loop's thread" is theirs, not the one that called `create`:
// `nio` (the thread MultiThreadedEventLoopGroup starts) and `dispatch` (a serial queue: its callouts run one at a time,
// each on whichever libdispatch worker thread runs the queue then). The calling thread keeps the role above (it adds
// and removes, before `run`, between runs or from callouts) through the engine's thread-safe calls; each shim says
// how, and `loop_switches`/`loop_cpu_ns` give the harness what it would read from the loop's thread.
// Times are CLOCK_MONOTONIC nanoseconds (what epoll, timerfd, libuv, GLib and libevent's precise timer all use).
#ifndef RUNLOOPSUITE_BENCH_ENGINE_H
#define RUNLOOPSUITE_BENCH_ENGINE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// An engine's loop; each shim defines the struct.
typedef struct bench_loop bench_loop;
/// A source, timer or observer of a loop; each shim defines the struct.
typedef struct bench_item bench_item;
/// What a source, timer or observer calls: the harness's function with the context it registered.
typedef void (*bench_callout)(void *context);
/// What an activity observer calls (family BM_LagMonitor): `activity` is one BENCH_ACTIVITY_* bit.
typedef void (*bench_activity_callout)(void *context, unsigned activity);
/// A channel through which other threads hand work items to the loop thread (family BM_ResidentThroughput).
typedef struct bench_channel bench_channel;
/// What a channel calls on the loop thread, once per posted item, with the pointer the producer posted.
typedef void (*bench_item_callout)(void *context, void *item);

/// `create` flags.
enum {
    /// Count returns from the loop's blocking wait (see `wakeups`). Opt-in because for some engines (cf) counting
    /// costs a callout per wake, which would tax the wake-latency figures.
    BENCH_COUNT_WAKEUPS = 1u << 0,
    /// Spin briefly before sleeping when work has been arriving (the `spin:on` variants); only for an engine whose
    /// `spin_variant` is set. An engine without the flag waits as it does by default (`spin:off`).
    BENCH_SPIN = 1u << 1,
    /// Poll at once after a handled item, without the engine's hand-off hold (the `hold:off` variants of the
    /// resident-thread family); only for an engine whose `hold_variant` is set.
    BENCH_NO_HOLD = 1u << 2,
};

/// Activities an activity observer reports: CFRunLoopActivity's bits (CFRunLoop.h). CF and ref report all six; an
/// analogue reports only the two it has (GLib's prepare/check and the epoll floor's hooks: BEFORE_WAITING before the
/// wait, AFTER_WAITING after it).
enum {
    BENCH_ACTIVITY_ENTRY = 1u << 0,
    BENCH_ACTIVITY_BEFORE_TIMERS = 1u << 1,
    BENCH_ACTIVITY_BEFORE_SOURCES = 1u << 2,
    BENCH_ACTIVITY_BEFORE_WAITING = 1u << 5,
    BENCH_ACTIVITY_AFTER_WAITING = 1u << 6,
    BENCH_ACTIVITY_EXIT = 1u << 7,
};

typedef struct bench_engine {
    /// The engine's name in benchmark names (`engine:<name>`).
    const char *name;
    /// Non-zero when `create` honours BENCH_SPIN: the wake-latency and resident-thread families then also register a
    /// `spin:on` variant of the engine (ref: its spin-then-park wait policy).
    int spin_variant;
    /// Non-zero when `create` honours BENCH_NO_HOLD: the resident-thread family then also registers a `hold:off`
    /// variant of the engine (ref: its hand-off hold set to 0).
    int hold_variant;
    /// What the library is, with its version, for the results' context lines. `self` is this table.
    const char *(*describe)(const struct bench_engine *self);

    /// A new loop on the calling thread, or NULL with a reason in `*why` (static storage). `self` is this table.
    bench_loop *(*create)(const struct bench_engine *self, unsigned flags, const char **why);
    /// Frees the loop. Everything added must have been removed first. Loop thread, not running.
    void (*destroy)(bench_loop *loop);
    /// Runs the loop, blocking in the engine's wait whenever idle, until `stop`. Loop thread.
    void (*run)(bench_loop *loop);
    /// Makes `run` return soon. Any thread. Idempotent; the harness repeats it until `run` has returned, so a stop that
    /// races with the start of `run` may be lost (CFRunLoopStop before a run is, by design: rule stop.only-during-run).
    void (*stop)(bench_loop *loop);
    /// One pass of the loop that does not wait (a poll): observers/prepare/check hooks run, nothing blocks.
    void (*poll_once)(bench_loop *loop);

    /// A source the harness can trigger from another thread; `callout` runs on the loop thread once per trigger
    /// (triggers that arrive before it runs may coalesce into one callout).
    bench_item *(*source_add)(bench_loop *loop, bench_callout callout, void *context);
    /// Triggers a source and wakes the loop (CF: CFRunLoopSourceSignal + CFRunLoopWakeUp). Any thread.
    void (*source_signal)(bench_loop *loop, bench_item *source);
    void (*source_remove)(bench_loop *loop, bench_item *source);

    /// A timer that fires first at `due_ns`, with a nominal repeat `interval_ns` (engines with repeating timers use
    /// it, e.g. for Darwin's tolerance clamp) and a firing window `tolerance_ns` (engines without tolerance ignore
    /// it). The harness re-arms the timer from its callout with `timer_set_next`, so every engine fires on the same
    /// schedule; an engine whose clock is coarser than a nanosecond rounds the date up, never down.
    bench_item *(*timer_add)(bench_loop *loop, uint64_t due_ns, uint64_t interval_ns, uint64_t tolerance_ns,
                             bench_callout callout, void *context);
    /// The timer's next fire date. Loop thread, normally from the timer's own callout.
    void (*timer_set_next)(bench_loop *loop, bench_item *timer, uint64_t due_ns);
    void (*timer_remove)(bench_loop *loop, bench_item *timer);

    /// An observer of every activity of the loop, or NULL when the engine has no observers and no analogue (then
    /// `no_observers` says why). Engines with an analogue use it (libuv: a prepare and a check handle; GLib: a
    /// GSource's prepare and check functions; epoll: hooks before and after the wait).
    bench_item *(*observer_add)(bench_loop *loop, bench_callout callout, void *context);
    void (*observer_remove)(bench_loop *loop, bench_item *observer);
    /// Why `observer_add` is NULL.
    const char *no_observers;

    /// Returns from the loop's blocking wait so far (each is one loop wake-up), if the loop was created with
    /// BENCH_COUNT_WAKEUPS. How each engine counts is in its file and in Benchmarks/README.md. Any thread.
    uint64_t (*wakeups)(bench_loop *loop);

    /// The shim's own data for this engine, or NULL: an engine made at run time (`cf:PATH`) carries its library here.
    const void *data;

    /// Resident-thread hand-off (BM_ResidentThroughput): a channel on the loop whose `callout` runs on the loop thread
    /// once per posted item, items from one producer in the order posted. NULL when the engine cannot (then
    /// `no_channel` says why). Loop thread. How each engine hands off (its idiomatic way) is in its file.
    bench_channel *(*channel_add)(bench_loop *loop, bench_item_callout callout, void *context);
    /// Enqueues `item` and wakes the loop if needed. Any thread.
    void (*channel_post)(bench_loop *loop, bench_channel *channel, void *item);
    /// Removes the channel, after every item posted to it has run. Loop thread.
    void (*channel_remove)(bench_loop *loop, bench_channel *channel);
    /// How many batches the loop thread has taken from the channel (runs of its drain that found at least one item),
    /// or NULL when the engine hands items over one by one (GLib). Any thread, between rounds.
    uint64_t (*channel_batches)(bench_channel *channel);
    const char *no_channel;

    /// An observer that reports which activity it saw (BM_LagMonitor: a stall detector), or NULL when the engine has
    /// neither observers nor an analogue that marks the same points of the pass (then `no_activity_observer` says
    /// why). Removed with `observer_remove`. Loop thread.
    bench_item *(*activity_observer_add)(bench_loop *loop, bench_activity_callout callout, void *context);
    const char *no_activity_observer;

    /// For the engines whose callouts do not run on the thread that called `create` (nio: the thread its
    /// MultiThreadedEventLoopGroup starts; dispatch: whichever of libdispatch's worker threads runs the serial queue),
    /// what the harness otherwise reads from that thread itself. NULL for every other engine.
    /// `loop_switches`: the voluntary context switches of the thread or threads that ran the loop so far (the kernel's
    /// count of their sleeps; how dispatch counts across its workers is in engine_dispatch.c). Any thread; called from
    /// a callout it includes the calling thread's switches up to the call.
    uint64_t (*loop_switches)(bench_loop *loop);
    /// The CPU time of those threads so far, in nanoseconds. Any thread.
    uint64_t (*loop_cpu_ns)(bench_loop *loop);
} bench_engine;

extern const bench_engine bench_engine_ref;
extern const bench_engine bench_engine_cf;
extern const bench_engine bench_engine_glib;
extern const bench_engine bench_engine_libuv;
extern const bench_engine bench_engine_libevent;
extern const bench_engine bench_engine_dispatch;
extern const bench_engine bench_engine_nio;
extern const bench_engine bench_engine_foundation;
extern const bench_engine bench_engine_epoll;

/// An engine `cf:NAME` over the CoreFoundation library at `path`, loaded at run time (engine_cf.c, through
/// Sources/CFLoader), or NULL with a malloc'd message in *error naming the path and any missing function.
bench_engine *bench_engine_cf_load(const char *path, char **error);

/// CLOCK_MONOTONIC now, in nanoseconds.
uint64_t bench_now_ns(void);

#ifdef __cplusplus
}
#endif

#endif
