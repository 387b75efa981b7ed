// Engine `dispatch`: the Swift toolchain's libdispatch through its C API. The loop is a serial queue
// (dispatch_queue_create, DISPATCH_QUEUE_SERIAL); its callouts run one at a time on whichever of libdispatch's worker
// threads runs the queue then, never on the thread that called `create` (bench_engine.h: the threading contract).
//
// - Sources: a trigger is an async hand-off to the queue, dispatch_async_f with the source as its context (one
//   continuation per trigger, from libdispatch's per-thread cache; the queue wakes a worker only when it goes from
//   empty to non-empty). Triggers never coalesce.
// - Timers: DISPATCH_SOURCE_TYPE_TIMER sources targeting the queue, repeating at the harness's nominal interval with a
//   leeway equal to the tolerance (dispatch_source_set_timer); a date other than the repeat's next is set with
//   dispatch_source_set_timer again. Dates: dispatch_time(DISPATCH_TIME_NOW, date - now); DISPATCH_TIME_NOW is the
//   uptime clock, CLOCK_MONOTONIC on Linux, read after the shim's own clock read, so a date is never early.
// - Observers and the lag monitor's activity observer: none (a queue has no passes to observe); skipped.
// - Resident hand-off: dispatch_async_f per item, the item as context: what a Dispatch user writes (dispatch_async with
//   a block is the same continuation; C shims cannot write blocks). libdispatch's queue is the queue: no queue of the
//   shim's, so no batches to count (channel_batches is NULL, as for GLib).
// - run: resumes the queue and blocks the calling thread until `stop`; then suspends the queue from inside it
//   (dispatch_sync_f of a function that calls dispatch_suspend: suspension takes effect when that function returns),
//   so no callout runs between runs. poll_once runs what is pending the same way. Outside `run` the queue is suspended.
// - Removal: a timer is cancelled (dispatch_source_cancel) and freed by its cancel handler, on the queue, after any
//   handler; a source is freed by a hand-off queued after its triggers. `destroy` resumes the queue and waits for every
//   item to be freed before releasing it.
// - Wake-ups (`wakeups`, `loop_switches`): the queue has no thread of its own, so there is no one thread whose sleeps
//   count. What the shim counts instead, on the queue (serially): before a callout, the worker running it and that
//   worker's voluntary context switches (getrusage RUSAGE_THREAD). The queue moved to another worker since the
//   previous callout: one wake-up (a worker was woken, or picked the queue up, to run it); the same worker: its
//   voluntary switches in between (each a sleep and a return). So a wake-up is the queue's work resuming after a
//   sleep of the thread that runs it, the nearest thing to the other engines' "the loop thread returned from a
//   blocking wait". Not counted: libdispatch's manager thread, which on Linux waits in epoll for the timers and then
//   wakes a worker (one more thread woken per timer wake-up): dispatch's count is the queue's side only, a lower bound
//   of the threads it woke. The check costs a getrusage, so callouts only do it when the loop was created with
//   BENCH_COUNT_WAKEUPS, and not for a callout that starts within 1 us of the previous one's end (no sleep fits in
//   that gap: a flood of hand-offs pays a clock read per item, not a system call); `loop_switches` called from a
//   callout does it itself.
// - CPU (`loop_cpu_ns`): the CPU time of the workers that ran the queue's callouts since each first ran one (its
//   CPU clock from pthread_getcpuclockid, less what it read then: a pool thread's earlier life, other loops' work
//   included, is not this loop's), summed; a worker that exited since is no longer counted (libdispatch lets idle
//   workers exit after seconds, longer than any measured window). The manager thread's CPU is not counted.
// - Pinning: each worker, when it starts running the queue's callouts, takes the CPU affinity of the thread that
//   created the loop (so `pin:same` and the loop CPU mean the same as for the other engines). A Dispatch user does not
//   pin workers; without it the figures would depend on where the pool's threads happened to run.
#define _GNU_SOURCE  // sched_setaffinity, RUSAGE_THREAD, dladdr, dl_iterate_phdr
#include "bench_engine.h"

#include <dispatch/dispatch.h>

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum { kMaxWorkers = 64 };  // workers whose CPU clocks are summed; libdispatch's pool on 2 CPUs stays far below
/// A gap between two callouts shorter than this has no sleep in it (see enter).
static const uint64_t kNoSleepNs = 1000;

struct bench_loop {
    dispatch_queue_t queue;
    cpu_set_t cpus;  // the creating thread's affinity, given to every worker that runs the queue
    int counting;    // BENCH_COUNT_WAKEUPS
    int suspended;   // the creating thread's (run, poll_once, destroy; set inside a dispatch_sync_f from it)

    pthread_mutex_t lock;
    pthread_cond_t changed;
    int stop_requested;                    // protected by lock
    int items;                             // protected by lock: timers and sources not yet freed
    clockid_t worker_clocks[kMaxWorkers];  // protected by lock
    uint64_t worker_base_ns[kMaxWorkers];  // protected by lock: each clock when its worker was adopted
    pid_t worker_tids[kMaxWorkers];        // protected by lock
    int workers;                           // protected by lock

    // The worker that ran the last callout: written on the queue (its callouts run one at a time), read by any thread.
    _Atomic pid_t last_tid;
    // Confined to the queue: that worker's voluntary context switches then, and when the last counted callout ended.
    uint64_t last_switches;
    uint64_t last_end_ns;
    // Written on the queue only, read by any thread.
    _Atomic uint64_t wakeups;
};

struct bench_item {
    bench_loop *loop;
    dispatch_source_t timer;  // timers only
    bench_callout callout;
    void *context;
    uint64_t interval, leeway;  // timers: the repeat and the leeway (the tolerance)
    uint64_t natural_next;      // timers: the date the source's own repeat gives the next fire
};

struct bench_channel {
    bench_loop *loop;
    bench_item_callout callout;
    void *context;
};

// MARK: the queue's worker, its wake-ups and its CPU time

static pid_t current_tid(void) {
    static __thread pid_t tid;
    if (!tid) tid = (pid_t)syscall(SYS_gettid);
    return tid;
}

static uint64_t own_switches(void) {
    struct rusage usage;
    if (getrusage(RUSAGE_THREAD, &usage) != 0) return 0;
    return (uint64_t)usage.ru_nvcsw;
}

static void add_wakeups(bench_loop *loop, uint64_t count) {
    atomic_store_explicit(&loop->wakeups, atomic_load_explicit(&loop->wakeups, memory_order_relaxed) + count,
                          memory_order_relaxed);
}

/// A worker starts running the queue's callouts: pin it like the loop's creator, note its CPU clock.
static void adopt_worker(bench_loop *loop, pid_t tid) {
    sched_setaffinity(0, sizeof loop->cpus, &loop->cpus);
    clockid_t clock;
    if (pthread_getcpuclockid(pthread_self(), &clock) != 0) return;
    struct timespec base;
    if (clock_gettime(clock, &base) != 0) return;
    pthread_mutex_lock(&loop->lock);
    int known = 0;
    for (int i = 0; i < loop->workers; i++) known |= loop->worker_tids[i] == tid;
    if (!known && loop->workers < kMaxWorkers) {
        loop->worker_tids[loop->workers] = tid;
        loop->worker_base_ns[loop->workers] = (uint64_t)base.tv_sec * 1000000000u + (uint64_t)base.tv_nsec;
        loop->worker_clocks[loop->workers++] = clock;
    }
    pthread_mutex_unlock(&loop->lock);
}

/// Before a callout, on the queue: notices a move to another worker; with `count`, also the worker's sleeps since the
/// previous callout (see the top of this file).
static void enter(bench_loop *loop, int count) {
    pid_t tid = current_tid();
    pid_t last = atomic_load_explicit(&loop->last_tid, memory_order_relaxed);
    if (tid != last) {
        adopt_worker(loop, tid);
        if (last) add_wakeups(loop, 1);
        atomic_store_explicit(&loop->last_tid, tid, memory_order_relaxed);
        loop->last_switches = own_switches();
        return;
    }
    if (!count) return;
    // Back to back with the previous callout (a flood of hand-offs): the worker cannot have slept in between, since a
    // sleep and the wake-up that ends it take microseconds; skip the system call (a getrusage per item otherwise).
    if (loop->last_end_ns && bench_now_ns() - loop->last_end_ns < kNoSleepNs) return;
    uint64_t switches = own_switches();
    add_wakeups(loop, switches - loop->last_switches);
    loop->last_switches = switches;
}

/// After a callout, on the queue, when counting: when it ended (see enter).
static void leave(bench_loop *loop) {
    if (loop->counting) loop->last_end_ns = bench_now_ns();
}

/// Called from a callout (on the queue): brings the count up to now. From any other thread: the count so far.
static uint64_t dsp_loop_switches(bench_loop *loop) {
    // Only the queue's current worker can find its own id in last_tid.
    if (current_tid() == atomic_load_explicit(&loop->last_tid, memory_order_relaxed)) enter(loop, 1);
    return atomic_load_explicit(&loop->wakeups, memory_order_relaxed);
}

static uint64_t dsp_wakeups(bench_loop *loop) { return atomic_load_explicit(&loop->wakeups, memory_order_relaxed); }

static uint64_t dsp_loop_cpu_ns(bench_loop *loop) {
    uint64_t total = 0;
    pthread_mutex_lock(&loop->lock);
    for (int i = 0; i < loop->workers; i++) {
        struct timespec now;
        if (clock_gettime(loop->worker_clocks[i], &now) == 0)
            total += (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec - loop->worker_base_ns[i];
    }
    pthread_mutex_unlock(&loop->lock);
    return total;
}

// MARK: the loop

static void item_freed(bench_loop *loop) {
    pthread_mutex_lock(&loop->lock);
    loop->items--;
    pthread_cond_broadcast(&loop->changed);
    pthread_mutex_unlock(&loop->lock);
}

static bench_item *new_item(bench_loop *loop, bench_callout callout, void *context) {
    bench_item *item = calloc(1, sizeof *item);
    item->loop = loop;
    item->callout = callout;
    item->context = context;
    pthread_mutex_lock(&loop->lock);
    loop->items++;
    pthread_mutex_unlock(&loop->lock);
    return item;
}

static bench_loop *dsp_create(const bench_engine *self, unsigned flags, const char **why) {
    (void)self;
    bench_loop *loop = calloc(1, sizeof *loop);
    loop->queue = dispatch_queue_create("runloop-bench.dispatch", DISPATCH_QUEUE_SERIAL);
    if (!loop->queue) {
        *why = "dispatch_queue_create failed";
        free(loop);
        return NULL;
    }
    dispatch_suspend(loop->queue);  // nothing runs outside `run` and `poll_once`
    loop->suspended = 1;
    loop->counting = (flags & BENCH_COUNT_WAKEUPS) != 0;
    if (sched_getaffinity(0, sizeof loop->cpus, &loop->cpus) != 0) {
        CPU_ZERO(&loop->cpus);
        for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) CPU_SET(cpu, &loop->cpus);
    }
    pthread_mutex_init(&loop->lock, NULL);
    pthread_cond_init(&loop->changed, NULL);
    return loop;
}

static void suspend_inside(void *context) {
    bench_loop *loop = context;
    dispatch_suspend(loop->queue);  // takes effect when this function returns: nothing after it runs
    loop->suspended = 1;
}

static void resume(bench_loop *loop) {
    if (!loop->suspended) return;
    loop->suspended = 0;
    dispatch_resume(loop->queue);
}

/// Runs what is queued so far, then suspends the queue. The creating thread.
static void drain_and_suspend(bench_loop *loop) {
    resume(loop);
    dispatch_sync_f(loop->queue, loop, suspend_inside);
}

static void dsp_destroy(bench_loop *loop) {
    // Every item was removed: let the queue run their cancel handlers and frees, and wait for them (the harness's
    // watchdog bounds this like every other engine call).
    resume(loop);
    pthread_mutex_lock(&loop->lock);
    while (loop->items > 0) pthread_cond_wait(&loop->changed, &loop->lock);
    pthread_mutex_unlock(&loop->lock);
    dispatch_sync_f(loop->queue, loop, suspend_inside);  // the last free has returned
    resume(loop);                                        // libdispatch refuses to release a suspended queue
    dispatch_release(loop->queue);
    pthread_cond_destroy(&loop->changed);
    pthread_mutex_destroy(&loop->lock);
    free(loop);
}

static void dsp_run(bench_loop *loop) {
    resume(loop);
    pthread_mutex_lock(&loop->lock);
    while (!loop->stop_requested) pthread_cond_wait(&loop->changed, &loop->lock);
    loop->stop_requested = 0;
    pthread_mutex_unlock(&loop->lock);
    dispatch_sync_f(loop->queue, loop, suspend_inside);
}

static void dsp_stop(bench_loop *loop) {
    pthread_mutex_lock(&loop->lock);
    loop->stop_requested = 1;
    pthread_cond_broadcast(&loop->changed);
    pthread_mutex_unlock(&loop->lock);
}

static void dsp_poll_once(bench_loop *loop) { drain_and_suspend(loop); }

// MARK: sources

static void run_source(void *context) {
    bench_item *source = context;
    enter(source->loop, source->loop->counting);
    source->callout(source->context);
    leave(source->loop);
}

static void free_source(void *context) {
    bench_item *source = context;
    bench_loop *loop = source->loop;
    free(source);
    item_freed(loop);
}

static bench_item *dsp_source_add(bench_loop *loop, bench_callout callout, void *context) {
    return new_item(loop, callout, context);
}

static void dsp_source_signal(bench_loop *loop, bench_item *source) {
    dispatch_async_f(loop->queue, source, run_source);
}

static void dsp_source_remove(bench_loop *loop, bench_item *source) {
    dispatch_async_f(loop->queue, source, free_source);  // after every trigger queued before it
}

// MARK: timers

static dispatch_time_t when(uint64_t due_ns) {
    uint64_t now = bench_now_ns();
    return due_ns <= now ? DISPATCH_TIME_NOW : dispatch_time(DISPATCH_TIME_NOW, (int64_t)(due_ns - now));
}

static void fire_timer(void *context) {
    bench_item *timer = context;
    // Fires the source's repeat folded into this one (a late handler) moved its next date on as many intervals.
    uint64_t folded = dispatch_source_get_data(timer->timer);
    timer->natural_next += (folded ? folded : 1) * timer->interval;
    enter(timer->loop, timer->loop->counting);
    timer->callout(timer->context);
    leave(timer->loop);
}

static void timer_cancelled(void *context) {
    bench_item *timer = context;
    bench_loop *loop = timer->loop;
    dispatch_release(timer->timer);
    free(timer);
    item_freed(loop);
}

static void arm(bench_item *timer, uint64_t due_ns) {
    timer->natural_next = due_ns;
    dispatch_source_set_timer(timer->timer, when(due_ns), timer->interval ? timer->interval : DISPATCH_TIME_FOREVER,
                              timer->leeway);
}

static bench_item *dsp_timer_add(bench_loop *loop, uint64_t due_ns, uint64_t interval_ns, uint64_t tolerance_ns,
                                 bench_callout callout, void *context) {
    bench_item *timer = new_item(loop, callout, context);
    timer->interval = interval_ns;
    timer->leeway = tolerance_ns;
    timer->timer = dispatch_source_create(DISPATCH_SOURCE_TYPE_TIMER, 0, 0, loop->queue);
    dispatch_set_context(timer->timer, timer);
    dispatch_source_set_event_handler_f(timer->timer, fire_timer);
    dispatch_source_set_cancel_handler_f(timer->timer, timer_cancelled);
    arm(timer, due_ns);
    dispatch_resume(timer->timer);  // sources start inactive
    return timer;
}

static void dsp_timer_set_next(bench_loop *loop, bench_item *timer, uint64_t due_ns) {
    (void)loop;
    if (timer->interval && due_ns == timer->natural_next && due_ns > bench_now_ns()) return;  // the repeat's own date
    arm(timer, due_ns);
}

static void dsp_timer_remove(bench_loop *loop, bench_item *timer) {
    (void)loop;
    dispatch_source_cancel(timer->timer);  // the cancel handler frees it, on the queue, after any handler
}

// MARK: resident-thread hand-off

static void run_channel_item(void *item) {
    bench_channel *channel = dispatch_get_specific(&bench_engine_dispatch);
    enter(channel->loop, channel->loop->counting);
    channel->callout(channel->context, item);
    leave(channel->loop);
}

// The channel is the queue's specific value (dispatch_queue_set_specific, keyed by this engine's table): the item
// posted is the continuation's only context, as in a Dispatch user's dispatch_async_f(queue, item, work), and the
// function finds its channel without a per-item allocation. One channel per loop (the harness makes one).
static bench_channel *dsp_channel_add(bench_loop *loop, bench_item_callout callout, void *context) {
    if (dispatch_queue_get_specific(loop->queue, &bench_engine_dispatch)) return NULL;
    bench_channel *channel = calloc(1, sizeof *channel);
    channel->loop = loop;
    channel->callout = callout;
    channel->context = context;
    dispatch_queue_set_specific(loop->queue, &bench_engine_dispatch, channel, NULL);
    return channel;
}

static void dsp_channel_post(bench_loop *loop, bench_channel *channel, void *item) {
    (void)channel;
    dispatch_async_f(loop->queue, item, run_channel_item);
}

static void dsp_channel_remove(bench_loop *loop, bench_channel *channel) {
    dispatch_queue_set_specific(loop->queue, &bench_engine_dispatch, NULL, NULL);
    free(channel);
}

// MARK: description

struct build_id_search {
    const char *path;
    char *hex;  // 41 bytes
};

static int find_build_id(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    struct build_id_search *search = data;
    if (!info->dlpi_name || strcmp(info->dlpi_name, search->path) != 0) return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[i];
        if (header->p_type != PT_NOTE) continue;
        const char *note = (const char *)(info->dlpi_addr + header->p_vaddr), *end = note + header->p_memsz;
        while (note + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *entry = (const ElfW(Nhdr) *)note;
            const char *name = note + sizeof *entry;
            const unsigned char *desc = (const unsigned char *)(name + ((entry->n_namesz + 3) & ~3u));
            if (entry->n_type == NT_GNU_BUILD_ID && entry->n_namesz == 4 && memcmp(name, "GNU", 4) == 0) {
                for (unsigned j = 0; j < entry->n_descsz && j < 20; j++) sprintf(search->hex + 2 * j, "%02x", desc[j]);
                return 1;
            }
            note = (const char *)desc + ((entry->n_descsz + 3) & ~3u);
        }
    }
    return 0;
}

static const char *dsp_describe(const bench_engine *self) {
    (void)self;
    static char text[512];
    Dl_info info;
    char hex[41] = "";
    const char *path = "libdispatch.so";
    if (dladdr((void *)dispatch_async_f, &info) && info.dli_fname) {
        path = info.dli_fname;
        struct build_id_search search = {path, hex};
        dl_iterate_phdr(find_build_id, &search);
    }
    snprintf(text, sizeof text,
             "libdispatch of the Swift toolchain (the swift line), C API, a serial queue: %s (build id %s)", path,
             hex[0] ? hex : "none");
    return text;
}

const bench_engine bench_engine_dispatch = {
    .name = "dispatch",
    .describe = dsp_describe,
    .create = dsp_create,
    .destroy = dsp_destroy,
    .run = dsp_run,
    .stop = dsp_stop,
    .poll_once = dsp_poll_once,
    .source_add = dsp_source_add,
    .source_signal = dsp_source_signal,
    .source_remove = dsp_source_remove,
    .timer_add = dsp_timer_add,
    .timer_set_next = dsp_timer_set_next,
    .timer_remove = dsp_timer_remove,
    .observer_add = NULL,
    .observer_remove = NULL,
    .no_observers = "libdispatch has no activity observers: a serial queue has no loop passes to observe",
    .wakeups = dsp_wakeups,
    .channel_add = dsp_channel_add,
    .channel_post = dsp_channel_post,
    .channel_remove = dsp_channel_remove,
    .channel_batches = NULL,
    .activity_observer_add = NULL,
    .no_activity_observer =
        "libdispatch has no activity observers: a serial queue has no BeforeWaiting or "
        "AfterWaiting to mark (its workers block inside libdispatch)",
    .loop_switches = dsp_loop_switches,
    .loop_cpu_ns = dsp_loop_cpu_ns,
};
