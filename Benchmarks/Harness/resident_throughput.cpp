// Family BM_ResidentThroughput: a resident loop thread that other threads hand work to (the seeds' resident worker
// thread: a thread kept alive by its run loop, to which the app posts work).
//
// P producer threads each hand N small work items (a pointer to a record holding its enqueue time) to one loop thread
// through the engine's channel (bench_engine.h: channel_add / channel_post), as fast as they can. ref, cf, libuv,
// libevent and the epoll floor use one shared locked queue (Benchmarks/Shims/handoff_queue.h) and wake the loop only
// when they find it empty (a signalled version-0 source + wake-up, uv_async_send, event_active, an eventfd write);
// GLib uses g_main_context_invoke, its own queue. The loop thread runs each item's callout, which notes its hand-off
// latency and counts it.
//
// One iteration is one round: the benchmark thread releases the producers, and the round ends when the loop has run
// all P x N items. Time per iteration = that round (manual time, CLOCK_MONOTONIC: from the release to the last item's
// callout); producer threads and the channel are set up once per benchmark call, outside the timing.
// The loop thread is pinned to one CPU and every producer to the other (when there are two), so producers contend
// with each other, not with the loop.
//
// Arguments: producers:P, P = 1, 2, 4; spin:on (engines with a spin variant, ref) the loop spins briefly before it
// sleeps (ref's spin-then-park wait policy); hold:off (engines with a hold variant, ref) the loop polls at once after a
// drain, without its hand-off hold; without either the engine waits as it does by default.
// Counters: items_per_second (Google Benchmark's, from SetItemsProcessed and the manual time), wakeups_per_item (loop
// wake-ups / items, by the engine's own count: below 1 when one wake-up drains a batch), csw_per_item (the loop
// thread's voluntary context switches / items: the kernel's count of how often it slept, the same for every engine;
// it includes blocking on the queue's lock), items_per_batch (items / the drains of the queue that found at least one
// item: items per non-empty drain, not per wake-up, since a drain can also run in a pass that did not wait; not for
// GLib, which hands items over one by one), handoff_p50_ns and
// handoff_p99_ns (from the producer's clock read just before channel_post to the start of the item's callout, over
// every 8th item of each producer in the repetition).
// CPU per item over the timed rounds (set_cpu_counters in common.h): loop_cpu_ns_per_item (the loop thread's CPU
// clock; nio's loop thread; dispatch's workers that ran the queue, a lower bound), post_cpu_ns_per_item (the producers'
// CPU clocks summed: the post, its lock and wake-up, the records and every 8th item's clock read) and
// process_cpu_ns_per_item (every thread; minus the producers', an upper bound of the loop side of dispatch and nio).
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include <pthread.h>

#include "common.h"

namespace rlbench {
namespace {

/// Every kSampleEvery-th item of a producer carries its enqueue time and has its hand-off latency measured; the rest
/// carry 0. A clock read costs about 30 ns here, a third of an item's whole hand-off: reading it twice per item
/// would make the harness, not the engines, most of the figure.
constexpr int kSampleEvery = 8;

struct Record {
    uint64_t enqueued;  // 0: not sampled
};

/// What the loop thread sees. `samples`, `sampled` and `done` are the loop thread's during a round; the benchmark
/// thread reads and resets them only after `round_done`, under `mutex`, which orders the accesses.
struct Consumer {
    std::vector<uint64_t> samples;  // the round's latencies, sized before the rounds: never grows during one
    size_t sampled = 0;
    uint64_t done = 0;
    uint64_t target = 0;
    uint64_t finished_at = 0;
    std::mutex mutex;
    std::condition_variable round_done;
    bool complete = false;  // protected by mutex
};

void consume(void *context, void *item) {
    Consumer *consumer = static_cast<Consumer *>(context);
    uint64_t enqueued = static_cast<Record *>(item)->enqueued;
    if (enqueued && consumer->sampled < consumer->samples.size())
        consumer->samples[consumer->sampled++] = now_ns() - enqueued;
    if (++consumer->done == consumer->target) {
        consumer->finished_at = now_ns();
        std::lock_guard<std::mutex> guard(consumer->mutex);
        consumer->complete = true;
        consumer->round_done.notify_one();
    }
}

/// The producers: each waits for a round number, posts its N records, and waits for the next. Rounds change under
/// `mutex`; `round` 0 is "none yet", -1 is "exit".
class Producers {
   public:
    Producers(const bench_engine *engine, bench_loop *loop, bench_channel *channel, int count, int items, int cpu)
        : engine_(engine), loop_(loop), channel_(channel), items_(items) {
        // Each thread gets its array's address, not an index into records_: a thread that read records_[i] raced
        // with the next emplace_back, which may reallocate the vector's buffer and free the one being read (a
        // producer then wrote its items through a stale pointer: a crash seen once in a full run, at P = 4).
        records_.reserve((size_t)count);
        for (int i = 0; i < count; i++) {
            records_.emplace_back(new Record[(size_t)items]);
            Record *records = records_.back().get();
            threads_.emplace_back([this, records, cpu] { body(records, cpu); });
            clockid_t clock;
            if (pthread_getcpuclockid(threads_.back().native_handle(), &clock) == 0) clocks_.push_back(clock);
        }
    }
    /// The producers' CPU time so far, summed (CPU clocks read from this thread), or nothing when a clock was not
    /// available. Between rounds, while no producer runs.
    bool cpu_ns(uint64_t *total) const {
        if (clocks_.size() != threads_.size()) return false;
        *total = 0;
        for (clockid_t clock : clocks_) *total += thread_cpu_ns(clock);
        return true;
    }
    ~Producers() {
        {
            std::lock_guard<std::mutex> guard(mutex_);
            round_ = -1;
        }
        changed_.notify_all();
        for (std::thread &thread : threads_) thread.join();
    }
    /// Starts a round: every producer posts its N items once.
    void release() {
        {
            std::lock_guard<std::mutex> guard(mutex_);
            round_++;
        }
        changed_.notify_all();
    }

   private:
    void body(Record *records, int cpu) {
        std::unique_ptr<ScopedPin> pin;
        if (cpu >= 0) pin.reset(new ScopedPin(cpu));
        long seen = 0;
        for (;;) {
            {
                std::unique_lock<std::mutex> guard(mutex_);
                changed_.wait(guard, [&] { return round_ != seen; });  // no deadline: the harness's watchdog
                if (round_ < 0) return;
                seen = round_;
            }
            for (int i = 0; i < items_; i++) {
                records[i].enqueued = i % kSampleEvery == 0 ? now_ns() : 0;
                engine_->channel_post(loop_, channel_, &records[i]);
            }
        }
    }

    const bench_engine *engine_;
    bench_loop *loop_;
    bench_channel *channel_;
    int items_;
    std::vector<std::unique_ptr<Record[]>> records_;  // one array per producer, reused every round
    std::vector<std::thread> threads_;
    std::vector<clockid_t> clocks_;  // the producers' CPU clocks, set in the constructor
    std::mutex mutex_;
    std::condition_variable changed_;
    long round_ = 0;  // protected by mutex_
};

void resident_throughput(benchmark::State &state, const bench_engine *engine, int producers, unsigned flags) {
    if (!engine->channel_add) {
        skip(state, engine->no_channel ? engine->no_channel : "the engine has no hand-off channel");
        return;
    }
    const int items = profile().resident_items;
    Consumer consumer;
    bench_channel *channel = nullptr;
    LoopThread loop_thread(
        engine, BENCH_COUNT_WAKEUPS | flags, loop_cpu(),
        [&](bench_loop *loop) { channel = engine->channel_add(loop, consume, &consumer); },
        [&](bench_loop *loop) { engine->channel_remove(loop, channel); });
    std::string why;
    if (!loop_thread.wait_ready(&why)) {
        skip(state, why);
        return;
    }
    const uint64_t per_round = (uint64_t)producers * (uint64_t)items;
    // On one usable CPU the producers share it with the loop; otherwise they get the other CPU.
    int producer_cpu = usable_cpus().size() >= 2 ? client_cpu() : -1;
    Producers threads(engine, loop_thread.loop(), channel, producers, items, producer_cpu);

    // The consumer's fields change here only between rounds, while no item is in flight; the producers' release
    // (under their mutex) and the channel's own lock order these writes before the loop thread's reads.
    consumer.samples.resize((size_t)(per_round / kSampleEvery) + (size_t)producers);
    std::vector<uint64_t> latencies;
    auto run_round = [&]() -> uint64_t {
        {
            std::lock_guard<std::mutex> guard(consumer.mutex);
            consumer.complete = false;
            consumer.sampled = 0;
        }
        uint64_t start = now_ns();
        threads.release();
        std::unique_lock<std::mutex> guard(consumer.mutex);
        consumer.round_done.wait(guard, [&] { return consumer.complete; });  // no deadline: the harness's watchdog
        return consumer.finished_at - start;
    };
    // One untimed round first: threads start, queues and the engines' internal arrays grow.
    consumer.target = per_round;
    run_round();

    uint64_t wakeups_before = engine->wakeups(loop_thread.loop());
    uint64_t switches_before = loop_thread.switches();
    // Read between rounds, when the loop thread has counted every batch of the rounds before.
    auto batches = [&]() -> uint64_t { return engine->channel_batches ? engine->channel_batches(channel) : 0; };
    uint64_t batches_before = batches();
    uint64_t post_cpu0 = 0, post_cpu1 = 0;
    const bool post_clocks = threads.cpu_ns(&post_cpu0);
    const uint64_t loop_cpu0 = loop_thread.cpu_ns(), process_cpu0 = process_cpu_ns();
    uint64_t rounds = 0;
    for (auto _ : state) {
        consumer.target += per_round;
        state.SetIterationTime((double)run_round() / 1e9);
        // Outside the round's time (manual time), and while no item is in flight.
        latencies.insert(latencies.end(), consumer.samples.begin(), consumer.samples.begin() + (long)consumer.sampled);
        rounds++;
    }
    uint64_t wakeups = engine->wakeups(loop_thread.loop()) - wakeups_before;
    uint64_t switches = loop_thread.switches() - switches_before;
    uint64_t batches_taken = batches() - batches_before;
    const uint64_t loop_cpu1 = loop_thread.cpu_ns(), process_cpu1 = process_cpu_ns();
    const bool post_measured = post_clocks && threads.cpu_ns(&post_cpu1);
    loop_thread.stop();

    if (rounds == 0 || consumer.done != consumer.target) {
        fail(state, "the loop thread served " + std::to_string(consumer.done) + " of " +
                        std::to_string(consumer.target) + " items");
        return;
    }
    if (engine->channel_batches && batches_taken == 0) {
        fail(state, "the loop thread served its items in no batch (the engine's channel_batches stayed at " +
                        std::to_string(batches_before) + "): its batch count is broken");
        return;
    }
    double handed = (double)(rounds * per_round);
    state.SetItemsProcessed((int64_t)(rounds * per_round));
    state.counters["wakeups_per_item"] = handed > 0 ? (double)wakeups / handed : 0;
    state.counters["csw_per_item"] = handed > 0 ? (double)switches / handed : 0;
    if (engine->channel_batches && batches_taken > 0)
        state.counters["items_per_batch"] = handed / (double)batches_taken;
    state.counters["handoff_p50_ns"] = quantile(latencies, 0.50);
    state.counters["handoff_p99_ns"] = quantile(latencies, 0.99);
    set_cpu_counters(state, "item", cpu_per(loop_cpu0, loop_cpu1, handed),
                     post_measured ? cpu_per(post_cpu0, post_cpu1, handed) : -1,
                     cpu_per(process_cpu0, process_cpu1, handed));
}

}  // namespace

void register_resident_throughput() {
    for (const bench_engine *engine : engines()) {
        for (const WaitVariant &variant : wait_variants(engine, /*with_hold_off=*/true)) {
            for (int producers : {1, 2, 4}) {
                std::string name = std::string("BM_ResidentThroughput/engine:") + engine->name +
                                   "/producers:" + std::to_string(producers) + variant.suffix;
                const unsigned flags = variant.flags;
                register_guarded(name,
                                 [=](benchmark::State &state) { resident_throughput(state, engine, producers, flags); })
                    ->UseManualTime()
                    ->Unit(benchmark::kMicrosecond);
            }
        }
    }
}

}  // namespace rlbench
