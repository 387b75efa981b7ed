// The work queue behind the channels of the engines whose hand-off is "a queue plus a wake-up" (bench_engine.h:
// channel_add): ref, cf, libuv, libevent and the epoll floor. One queue for all of them, so that the family
// BM_ResidentThroughput compares the loops' wake-up paths, not five queue implementations. GLib does not use it:
// g_main_context_invoke is GLib's own queue.
//
// A mutex-protected array that the loop thread swaps out whole: a producer takes the lock once per item, the consumer
// once per batch; after warm-up neither allocates. `handoff_push` says whether the queue was empty, and only then does
// the producer wake the loop: every item pushed into a non-empty queue is drained by the callout that the first item's
// wake-up causes (the consumer swaps the queue out under the lock, so an item is either in that batch or finds the
// queue empty and wakes the loop itself). The engines' source callouts clear their "signalled" state before calling
// out, so a wake-up posted during a drain is never lost.
//
// The queue counts its batches (drains that took at least one item): items per batch is how many items a wake-up of
// the loop served, and the family's items per second follows it across engines (Benchmarks/README.md:
// `items_per_batch`).
#ifndef RUNLOOPSUITE_HANDOFF_QUEUE_H
#define RUNLOOPSUITE_HANDOFF_QUEUE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "bench_engine.h"

typedef struct {
    pthread_mutex_t lock;
    void **items;            // protected by lock
    size_t count, capacity;  // protected by lock
    void **batch;            // the loop thread's: the last batch swapped out, reused as the next empty queue
    size_t batch_capacity;   // the loop thread's
    // Written by the loop thread only (a relaxed load and store, no locked instruction), read by any thread.
    _Atomic uint64_t batches;
    bench_item_callout callout;
    void *context;
} handoff_queue;

static inline void handoff_init(handoff_queue *queue, bench_item_callout callout, void *context) {
    pthread_mutex_init(&queue->lock, NULL);
    queue->items = NULL;
    queue->count = queue->capacity = 0;
    queue->batch = NULL;
    queue->batch_capacity = 0;
    atomic_init(&queue->batches, 0);
    queue->callout = callout;
    queue->context = context;
}

static inline void handoff_destroy(handoff_queue *queue) {
    pthread_mutex_destroy(&queue->lock);
    free(queue->items);
    free(queue->batch);
}

/// Appends `item`; returns 1 if the queue was empty (the caller must then wake the loop). Any thread.
static inline int handoff_push(handoff_queue *queue, void *item) {
    pthread_mutex_lock(&queue->lock);
    if (queue->count == queue->capacity) {
        queue->capacity = queue->capacity ? 2 * queue->capacity : 256;
        queue->items = realloc(queue->items, queue->capacity * sizeof *queue->items);
    }
    queue->items[queue->count++] = item;
    int was_empty = queue->count == 1;
    pthread_mutex_unlock(&queue->lock);
    return was_empty;
}

/// Takes every queued item and calls the callout for each, in queue order. Loop thread.
static inline void handoff_drain(handoff_queue *queue) {
    pthread_mutex_lock(&queue->lock);
    void **items = queue->items;
    size_t count = queue->count, capacity = queue->capacity;
    queue->items = queue->batch;
    queue->capacity = queue->batch_capacity;
    queue->count = 0;
    pthread_mutex_unlock(&queue->lock);
    // Counted before the callouts: a round's last callout (which ends the round) comes after its batch's count.
    if (count)
        atomic_store_explicit(&queue->batches, atomic_load_explicit(&queue->batches, memory_order_relaxed) + 1,
                              memory_order_relaxed);
    for (size_t i = 0; i < count; i++) queue->callout(queue->context, items[i]);
    queue->batch = items;
    queue->batch_capacity = capacity;
}

/// Drains so far that took at least one item. Any thread; exact once the loop thread has run the items that matter.
static inline uint64_t handoff_batches(handoff_queue *queue) {
    return atomic_load_explicit(&queue->batches, memory_order_relaxed);
}

#endif
