// Engine `epoll`: the floor. The least work any loop can do on epoll for the benchmarks' work, so that no engine can
// measure below it unless it skips work the benchmarks need.
//
// One epoll set holding a wake-up eventfd and a timerfd, both edge-triggered and never read (a write or an expiry is
// one edge; re-arming a timerfd resets its count). Sources are flags on a lock-free pending stack; timers are a binary
// min-heap with one timerfd armed at the earliest deadline; observers are two hooks per pass, before and after the
// wait. No modes, no tolerance, no locks.
//
// The wake-up protocol is the cheapest correct one: a `sleeping` flag, so an awake loop is never written to. A
// signaller pushes its source and writes the eventfd only if it is the one that takes the flag from 1 to 0 (the loop
// is, or is about to be, blocked in epoll_wait); a signal that lands while the loop is awake (running a callout,
// finishing a pass) costs no system call, and the loop's next pass, which finds the stack non-empty, does not block
// either: no epoll_wait. So a cross-thread wake costs at most one eventfd write and one epoll_wait return, and a
// signal that finds the loop awake costs neither. Every other engine does at least this much work per wake (ref and
// libevent defer a wake-up claimed while the loop is awake in the same way; CF, GLib and libuv write their wake-up fd
// on every wake-up call).
//
// Why no wake-up is ever lost. The four accesses that decide it are sequentially consistent (one total order S):
//   loop, each blocking pass:  (L1) store sleeping = 1;  (L2) load pending;  if non-empty, do not wait;
//                              else epoll_wait(-1);  (L3) store sleeping = 0 after it returns
//   signaller:                 (S1) push onto pending (CAS);  (S2) load sleeping and, if 1, exchange it with 0;
//                              write the eventfd iff the exchange returned 1 (S2 is the load when it reads 0, else
//                              the exchange)
// Take a push S1 and the loop's pass whose L1 is the last L1 before S2 in S (if there is none, the loop has not yet
// reached its first blocking pass, and that pass's L2 comes after S1 and sees the source).
//   - If L2 comes after S1 in S, the loop sees the stack non-empty and does not block: the source runs in this pass.
//   - Else L2 precedes S1, so L1 < L2 < S1 < S2. S2 reads the flag as last written before it: either 1, from L1 (this
//     signaller writes the eventfd: the wait of this pass returns, because an eventfd write made before or during
//     epoll_wait leaves its edge on the ready list until a wait reports it), or 0, written by another signaller's S2
//     after L1 (which writes the eventfd for this same wait) or by L3 of this pass (the wait has already returned).
//     In every case this pass's wait returns, and the next pass takes the stack (perform_sources) or, if the push
//     came after that, finds it non-empty at its own L2 and does not block.
// So every pushed source runs. `stop` always writes the eventfd (rare; it need not be cheap), after setting its flag,
// which the loop reads before every pass.
#define _GNU_SOURCE
#include "bench_engine.h"
#include "handoff_queue.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

enum { WAKE_TOKEN = 0, TIMER_TOKEN = 1 };

struct bench_item {
    bench_callout callout;
    void *context;
    // Sources: set while on the pending stack, so a second signal before the callout pushes nothing.
    atomic_int pending;
    struct bench_item *next_pending;
    // Timers: position in the heap and sort key (deadline, then insertion order).
    size_t heap_index;
    uint64_t due;
    uint64_t sequence;
    // Observers: a doubly linked list, so removing one of 100,000 is O(1).
    struct bench_item *prev, *next;
};

struct bench_loop {
    int epoll_fd, wake_fd, timer_fd;
    atomic_int stop_requested;
    atomic_int sleeping;  // 1 from just before a blocking epoll_wait until it returns (the protocol at the top)
    int count_wakeups;
    atomic_uint_fast64_t wakeups;
    _Atomic(struct bench_item *) pending;  // Treiber stack of signalled sources, newest first
    struct bench_item observers;           // list head (sentinel)
    struct bench_item activity_observers;  // list head (sentinel) of the observers told the activity
    struct bench_item **heap;
    size_t timer_count, heap_capacity;
    uint64_t next_sequence;
    uint64_t armed_due;             // what the timerfd is armed at; 0 when disarmed
    struct bench_item **due_batch;  // scratch for firing: collect every due timer first, then fire
    size_t due_capacity;
};

uint64_t bench_now_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

// MARK: timer heap, ordered by (due, sequence) so ties keep insertion order

static int heap_less(const struct bench_item *a, const struct bench_item *b) {
    return a->due < b->due || (a->due == b->due && a->sequence < b->sequence);
}

static void heap_place(bench_loop *loop, size_t index, struct bench_item *item) {
    loop->heap[index] = item;
    item->heap_index = index;
}

static void heap_sift_up(bench_loop *loop, size_t index) {
    struct bench_item *item = loop->heap[index];
    while (index > 0) {
        size_t parent = (index - 1) / 2;
        if (!heap_less(item, loop->heap[parent])) break;
        heap_place(loop, index, loop->heap[parent]);
        index = parent;
    }
    heap_place(loop, index, item);
}

static void heap_sift_down(bench_loop *loop, size_t index) {
    struct bench_item *item = loop->heap[index];
    for (;;) {
        size_t child = 2 * index + 1;
        if (child >= loop->timer_count) break;
        if (child + 1 < loop->timer_count && heap_less(loop->heap[child + 1], loop->heap[child])) child++;
        if (!heap_less(loop->heap[child], item)) break;
        heap_place(loop, index, loop->heap[child]);
        index = child;
    }
    heap_place(loop, index, item);
}

static void heap_push(bench_loop *loop, struct bench_item *item) {
    if (loop->timer_count == loop->heap_capacity) {
        loop->heap_capacity = loop->heap_capacity ? 2 * loop->heap_capacity : 64;
        loop->heap = realloc(loop->heap, loop->heap_capacity * sizeof *loop->heap);
    }
    item->sequence = loop->next_sequence++;
    heap_place(loop, loop->timer_count++, item);
    heap_sift_up(loop, item->heap_index);
}

static void heap_remove(bench_loop *loop, struct bench_item *item) {
    size_t index = item->heap_index;
    struct bench_item *last = loop->heap[--loop->timer_count];
    if (index == loop->timer_count) return;
    heap_place(loop, index, last);
    heap_sift_up(loop, index);
    heap_sift_down(loop, last->heap_index);
}

// Only touch the timerfd when the earliest deadline moved: timerfd_settime is a system call per change.
static void arm_timer(bench_loop *loop) {
    uint64_t due = loop->timer_count ? loop->heap[0]->due : 0;
    if (due == loop->armed_due) return;
    struct itimerspec spec = {0};
    spec.it_value.tv_sec = (time_t)(due / 1000000000u);
    spec.it_value.tv_nsec = (long)(due % 1000000000u);
    timerfd_settime(loop->timer_fd, TFD_TIMER_ABSTIME, &spec, NULL);
    loop->armed_due = due;
}

// MARK: the pass

static void call_observers(bench_loop *loop, unsigned activity) {
    for (struct bench_item *observer = loop->observers.next; observer != &loop->observers; observer = observer->next)
        observer->callout(observer->context);
    // Activity observers keep their bench_activity_callout in `callout`, converted back here (C11 6.3.2.3p8).
    for (struct bench_item *observer = loop->activity_observers.next; observer != &loop->activity_observers;
         observer = observer->next)
        ((bench_activity_callout)observer->callout)(observer->context, activity);
}

static void perform_sources(bench_loop *loop) {
    struct bench_item *stack = atomic_exchange_explicit(&loop->pending, NULL, memory_order_acquire);
    // The stack is newest first: reverse it so sources run in signal order.
    struct bench_item *ordered = NULL;
    while (stack) {
        struct bench_item *next = stack->next_pending;
        stack->next_pending = ordered;
        ordered = stack;
        stack = next;
    }
    while (ordered) {
        struct bench_item *source = ordered;
        ordered = ordered->next_pending;
        atomic_store_explicit(&source->pending, 0, memory_order_release);
        source->callout(source->context);
    }
}

static void fire_timers(bench_loop *loop) {
    uint64_t now = bench_now_ns();
    size_t count = 0;
    while (loop->timer_count && loop->heap[0]->due <= now) {
        struct bench_item *timer = loop->heap[0];
        heap_remove(loop, timer);
        timer->heap_index = (size_t)-1;  // off the heap until re-armed
        if (count == loop->due_capacity) {
            loop->due_capacity = loop->due_capacity ? 2 * loop->due_capacity : 64;
            loop->due_batch = realloc(loop->due_batch, loop->due_capacity * sizeof *loop->due_batch);
        }
        loop->due_batch[count++] = timer;
    }
    for (size_t i = 0; i < count; i++) loop->due_batch[i]->callout(loop->due_batch[i]->context);
}

/// Fires the timers that are due without a timerfd report: for a pass that does not wait because sources are
/// pending, so a stream of signals cannot starve the timers. The timerfd's own expiry edge then finds it re-armed (a
/// settime resets its count, so a later epoll_wait does not report it) or, if no timer is left, is reported once more
/// and fires nothing.
static void fire_timers_if_due(bench_loop *loop) {
    if (loop->armed_due && bench_now_ns() >= loop->armed_due) {
        loop->armed_due = 0;
        fire_timers(loop);
    }
}

static void pass(bench_loop *loop, int timeout_ms) {
    call_observers(loop, BENCH_ACTIVITY_BEFORE_WAITING);
    arm_timer(loop);
    int blocking = timeout_ms != 0;
    if (blocking) {
        // L1 and L2 of the protocol (top of the file): announce the sleep, then look at the stack once more.
        atomic_store_explicit(&loop->sleeping, 1, memory_order_seq_cst);
        if (atomic_load_explicit(&loop->pending, memory_order_seq_cst)) {
            // A source was signalled while the loop was awake: its signaller wrote nothing, so do not wait.
            atomic_store_explicit(&loop->sleeping, 0, memory_order_relaxed);
            call_observers(loop, BENCH_ACTIVITY_AFTER_WAITING);
            perform_sources(loop);
            fire_timers_if_due(loop);
            return;
        }
    }
    struct epoll_event events[4];
    int count = epoll_wait(loop->epoll_fd, events, 4, timeout_ms);
    if (blocking) {
        atomic_store_explicit(&loop->sleeping, 0, memory_order_seq_cst);  // L3
        if (loop->count_wakeups) atomic_fetch_add_explicit(&loop->wakeups, 1, memory_order_relaxed);
    }
    call_observers(loop, BENCH_ACTIVITY_AFTER_WAITING);
    int timer_ready = 0;
    for (int i = 0; i < count; i++) {
        if (events[i].data.u64 == TIMER_TOKEN) timer_ready = 1;
    }
    // The pending stack is checked every pass, not only on a wake-up report: a signal may land during the pass.
    if (atomic_load_explicit(&loop->pending, memory_order_relaxed)) perform_sources(loop);
    if (timer_ready) {
        loop->armed_due = 0;  // the one-shot timerfd expired
        fire_timers(loop);
    }
}

// MARK: the engine table

static bench_loop *epoll_create_loop(const bench_engine *self, unsigned flags, const char **why) {
    (void)self;
    bench_loop *loop = calloc(1, sizeof *loop);
    loop->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    loop->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    loop->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
    if (loop->epoll_fd < 0 || loop->wake_fd < 0 || loop->timer_fd < 0) {
        *why = "epoll_create1, eventfd or timerfd_create failed";
        free(loop);
        return NULL;
    }
    struct epoll_event wake = {.events = EPOLLIN | EPOLLET, .data.u64 = WAKE_TOKEN};
    struct epoll_event timer = {.events = EPOLLIN | EPOLLET, .data.u64 = TIMER_TOKEN};
    epoll_ctl(loop->epoll_fd, EPOLL_CTL_ADD, loop->wake_fd, &wake);
    epoll_ctl(loop->epoll_fd, EPOLL_CTL_ADD, loop->timer_fd, &timer);
    loop->observers.next = loop->observers.prev = &loop->observers;
    loop->activity_observers.next = loop->activity_observers.prev = &loop->activity_observers;
    loop->count_wakeups = (flags & BENCH_COUNT_WAKEUPS) != 0;
    return loop;
}

static void epoll_destroy(bench_loop *loop) {
    close(loop->epoll_fd);
    close(loop->wake_fd);
    close(loop->timer_fd);
    free(loop->heap);
    free(loop->due_batch);
    free(loop);
}

static void epoll_run(bench_loop *loop) {
    while (!atomic_load_explicit(&loop->stop_requested, memory_order_acquire)) pass(loop, -1);
    atomic_store(&loop->stop_requested, 0);
}

static void epoll_wake(bench_loop *loop) {
    uint64_t one = 1;
    ssize_t written = write(loop->wake_fd, &one, sizeof one);
    (void)written;
}

static void epoll_stop(bench_loop *loop) {
    atomic_store_explicit(&loop->stop_requested, 1, memory_order_release);
    epoll_wake(loop);
}

static void epoll_poll_once(bench_loop *loop) { pass(loop, 0); }

static bench_item *epoll_source_add(bench_loop *loop, bench_callout callout, void *context) {
    (void)loop;
    bench_item *source = calloc(1, sizeof *source);
    source->callout = callout;
    source->context = context;
    return source;
}

static void epoll_source_signal(bench_loop *loop, bench_item *source) {
    if (!atomic_exchange_explicit(&source->pending, 1, memory_order_acq_rel)) {
        // S1 of the protocol (top of the file).
        struct bench_item *head = atomic_load_explicit(&loop->pending, memory_order_relaxed);
        do {
            source->next_pending = head;
        } while (!atomic_compare_exchange_weak_explicit(&loop->pending, &head, source, memory_order_seq_cst,
                                                        memory_order_relaxed));
    }
    // S2: only the signaller that takes the flag from 1 to 0 writes. The load first keeps an awake loop's signal free
    // of a locked instruction; reading 0 is the "0" case of the argument at the top. (A source already pending was
    // pushed by an earlier signal whose own S2 covers it; checking again costs nothing.)
    if (atomic_load_explicit(&loop->sleeping, memory_order_seq_cst) &&
        atomic_exchange_explicit(&loop->sleeping, 0, memory_order_seq_cst))
        epoll_wake(loop);
}

static void epoll_source_remove(bench_loop *loop, bench_item *source) {
    // A source still on the pending stack would be performed after being freed: run the stack first.
    if (atomic_load(&source->pending)) perform_sources(loop);
    free(source);
}

static bench_item *epoll_timer_add(bench_loop *loop, uint64_t due_ns, uint64_t interval_ns, uint64_t tolerance_ns,
                                   bench_callout callout, void *context) {
    (void)interval_ns;
    (void)tolerance_ns;  // the floor has no tolerance: it fires every timer at its date
    bench_item *timer = calloc(1, sizeof *timer);
    timer->callout = callout;
    timer->context = context;
    timer->due = due_ns;
    heap_push(loop, timer);
    return timer;
}

static void epoll_timer_set_next(bench_loop *loop, bench_item *timer, uint64_t due_ns) {
    if (timer->heap_index != (size_t)-1) heap_remove(loop, timer);
    timer->due = due_ns;
    heap_push(loop, timer);
}

static void epoll_timer_remove(bench_loop *loop, bench_item *timer) {
    if (timer->heap_index != (size_t)-1) heap_remove(loop, timer);
    free(timer);
}

static bench_item *append_observer(struct bench_item *head, bench_callout callout, void *context) {
    bench_item *observer = calloc(1, sizeof *observer);
    observer->callout = callout;
    observer->context = context;
    observer->prev = head->prev;
    observer->next = head;
    head->prev->next = observer;
    head->prev = observer;
    return observer;
}

static bench_item *epoll_observer_add(bench_loop *loop, bench_callout callout, void *context) {
    return append_observer(&loop->observers, callout, context);
}

// The hooks before and after the wait are the very points CF's BeforeWaiting and AfterWaiting mark.
static bench_item *epoll_activity_observer_add(bench_loop *loop, bench_activity_callout callout, void *context) {
    return append_observer(&loop->activity_observers, (bench_callout)callout, context);
}

// MARK: resident-thread hand-off: the shared work queue (handoff_queue.h) behind a source of the pending stack, so a
// producer that finds the queue empty pushes the source and writes the eventfd once.

struct bench_channel {
    handoff_queue queue;
    bench_item *source;
};

static void drain_channel(void *context) { handoff_drain(&((bench_channel *)context)->queue); }

static bench_channel *epoll_channel_add(bench_loop *loop, bench_item_callout callout, void *context) {
    bench_channel *channel = calloc(1, sizeof *channel);
    handoff_init(&channel->queue, callout, context);
    channel->source = epoll_source_add(loop, drain_channel, channel);
    return channel;
}

static void epoll_channel_post(bench_loop *loop, bench_channel *channel, void *item) {
    if (handoff_push(&channel->queue, item)) epoll_source_signal(loop, channel->source);
}

static void epoll_channel_remove(bench_loop *loop, bench_channel *channel) {
    epoll_source_remove(loop, channel->source);
    handoff_destroy(&channel->queue);
    free(channel);
}

static uint64_t epoll_channel_batches(bench_channel *channel) { return handoff_batches(&channel->queue); }

static void epoll_observer_remove(bench_loop *loop, bench_item *observer) {
    (void)loop;
    observer->prev->next = observer->next;
    observer->next->prev = observer->prev;
    free(observer);
}

static uint64_t epoll_wakeups(bench_loop *loop) { return atomic_load_explicit(&loop->wakeups, memory_order_relaxed); }

static const char *epoll_describe(const bench_engine *self) {
    (void)self;
    return "eventfd + timerfd + epoll, edge-triggered, no reads, a sleeping flag (no write to an awake loop): this "
           "package's floor loop";
}

const bench_engine bench_engine_epoll = {
    .name = "epoll",
    .describe = epoll_describe,
    .create = epoll_create_loop,
    .destroy = epoll_destroy,
    .run = epoll_run,
    .stop = epoll_stop,
    .poll_once = epoll_poll_once,
    .source_add = epoll_source_add,
    .source_signal = epoll_source_signal,
    .source_remove = epoll_source_remove,
    .timer_add = epoll_timer_add,
    .timer_set_next = epoll_timer_set_next,
    .timer_remove = epoll_timer_remove,
    .observer_add = epoll_observer_add,
    .observer_remove = epoll_observer_remove,
    .wakeups = epoll_wakeups,
    .channel_add = epoll_channel_add,
    .channel_post = epoll_channel_post,
    .channel_remove = epoll_channel_remove,
    .channel_batches = epoll_channel_batches,
    .activity_observer_add = epoll_activity_observer_add,
};
