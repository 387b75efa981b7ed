// Shared machinery of the harness; see common.h.
#include "common.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <sstream>

#include <pthread.h>
#include <time.h>
#include <unistd.h>

namespace rlbench {

Profile &profile() {
    static Profile value;
    return value;
}

const std::vector<const bench_engine *> &all_engines() {
    // The order of the results tables: the candidate, the ground truth, the peers, the floor.
    static const std::vector<const bench_engine *> list = {
        &bench_engine_ref,      &bench_engine_cf,    &bench_engine_foundation,
        &bench_engine_glib,     &bench_engine_libuv, &bench_engine_libevent,
        &bench_engine_dispatch, &bench_engine_nio,   &bench_engine_epoll};
    return list;
}

static std::vector<const bench_engine *> &selected() {
    static std::vector<const bench_engine *> list = all_engines();
    return list;
}

const std::vector<const bench_engine *> &engines() { return selected(); }

std::vector<WaitVariant> wait_variants(const bench_engine *engine, bool with_hold_off) {
    std::vector<WaitVariant> variants = {{"", 0}};
    if (engine->spin_variant) variants.push_back({"/spin:on", BENCH_SPIN});
    if (with_hold_off && engine->hold_variant) variants.push_back({"/hold:off", BENCH_NO_HOLD});
    return variants;
}

/// Engines loaded at run time (`cf:PATH`): they live for the process, and this list, never destroyed, keeps them
/// reachable to the end (LeakSanitizer looks after static destructors have run).
static std::vector<const bench_engine *> &loaded_engines() {
    static auto *list = new std::vector<const bench_engine *>();
    return *list;
}

bool select_engines(const std::string &comma_separated, std::string *why) {
    std::vector<const bench_engine *> chosen;
    std::stringstream stream(comma_separated);
    std::string name;
    while (std::getline(stream, name, ',')) {
        if (name.empty()) continue;
        if (name.rfind("cf:", 0) == 0) {
            // A CoreFoundation library loaded at run time; its engine lives for the process.
            char *error = nullptr;
            const bench_engine *loaded = bench_engine_cf_load(name.c_str() + 3, &error);
            if (!loaded) {
                *why = error ? error : "cannot load " + name.substr(3);
                free(error);
                return false;
            }
            loaded_engines().push_back(loaded);
            chosen.push_back(loaded);
            continue;
        }
        auto found = std::find_if(all_engines().begin(), all_engines().end(),
                                  [&](const bench_engine *engine) { return name == engine->name; });
        if (found == all_engines().end()) {
            std::string known;
            for (const bench_engine *engine : all_engines()) known += std::string(engine->name) + ", ";
            *why = "unknown engine '" + name + "' (engines: " + known + "or cf:PATH for a CoreFoundation library)";
            return false;
        }
        chosen.push_back(*found);
    }
    selected() = chosen;
    return true;
}

// MARK: errors

/// Google Benchmark 1.7.1 writes the message into a quoted CSV field but scripts read it with plain tools: keep it
/// on one line, without commas or quotes.
static std::string csv_safe(std::string text) {
    for (char &c : text) {
        if (c == ',' || c == '\n') c = ';';
        if (c == '"') c = '\'';
    }
    return text;
}

void skip(benchmark::State &state, const std::string &reason) {
    state.SkipWithError(csv_safe("skipped: " + reason).c_str());
}

void fail(benchmark::State &state, const std::string &reason) {
    state.SkipWithError(csv_safe("error: " + reason).c_str());
}

bench_loop *create_loop_or_skip(benchmark::State &state, const bench_engine *engine, bool needs_observers) {
    if (needs_observers && !engine->observer_add) {
        skip(state, engine->no_observers ? engine->no_observers : "the engine has no observers");
        return nullptr;
    }
    const char *why = "the engine could not create a loop";
    bench_loop *loop = engine->create(engine, 0, &why);
    if (!loop) skip(state, why);
    return loop;
}

// MARK: CPUs

const std::vector<int> &usable_cpus() {
    static const std::vector<int> cpus = [] {
        std::vector<int> list;
        cpu_set_t set;
        CPU_ZERO(&set);
        if (sched_getaffinity(0, sizeof set, &set) == 0) {
            for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
                if (CPU_ISSET(cpu, &set)) list.push_back(cpu);
        }
        return list;
    }();
    return cpus;
}

int loop_cpu() { return usable_cpus().empty() ? -1 : usable_cpus().back(); }
int client_cpu() { return usable_cpus().empty() ? -1 : usable_cpus().front(); }

static void pin_calling_thread(int cpu) {
    if (cpu < 0) return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

ScopedPin::ScopedPin(int cpu) {
    if (cpu < 0) return;
    restore_ = pthread_getaffinity_np(pthread_self(), sizeof saved_, &saved_) == 0;
    pin_calling_thread(cpu);
}

ScopedPin::~ScopedPin() {
    if (restore_) pthread_setaffinity_np(pthread_self(), sizeof saved_, &saved_);
}

Burner::Burner(int cpu) {
    thread_ = std::thread([this, cpu] {
        pin_calling_thread(cpu);
        volatile uint64_t sink = 0;
        while (!stop_.load(std::memory_order_relaxed)) {
            for (int i = 0; i < 1000; i++) sink = sink * 6364136223846793005u + 1;
        }
    });
}

Burner::~Burner() {
    stop_.store(true);
    thread_.join();
}

// MARK: LoopThread

LoopThread::LoopThread(const bench_engine *engine, unsigned flags, int cpu, Hook setup, Hook teardown)
    : engine_(engine), setup_(std::move(setup)), teardown_(std::move(teardown)) {
    thread_ = std::thread([this, cpu, flags] { body(cpu, flags); });
}

void LoopThread::body(int cpu, unsigned flags) {
    pin_calling_thread(cpu);
    tid_.store((pid_t)bench_thread_id());
    pthread_getcpuclockid(pthread_self(), &cpu_clock_);
    const char *why = "the engine could not create a loop";
    loop_ = engine_->create(engine_, flags, &why);
    if (!loop_) {
        why_ = why;
        set_state(State::failed);
        return;
    }
    if (setup_) setup_(loop_);
    set_state(State::running);
    engine_->run(loop_);
    set_state(State::returned);
    // The owner may still be calling the engine's stop: the loop must outlive every such call (see common.h).
    wait_while(State::returned);
    if (teardown_) teardown_(loop_);
    engine_->destroy(loop_);
}

void LoopThread::set_state(State value) {
    std::lock_guard<std::mutex> guard(mutex_);
    state_ = value;
    changed_.notify_all();
}

/// Waits until the state is no longer `value` and returns the new one. No deadline of its own: the harness's
/// watchdog (common.h, namespace watchdog) ends a benchmark that never gets past it.
LoopThread::State LoopThread::wait_while(State value) {
    std::unique_lock<std::mutex> guard(mutex_);
    changed_.wait(guard, [&] { return state_ != value; });
    return state_;
}

bool LoopThread::wait_ready(std::string *why) {
    if (wait_while(State::starting) == State::failed) {
        if (why) *why = why_;
        return false;
    }
    return true;
}

void LoopThread::stop() {
    if (joined_) return;
    if (wait_while(State::starting) != State::failed) {
        // The loop thread cannot destroy the loop before `released`, which only this thread sets, after the last
        // engine call below: so every call reaches a live loop.
        std::unique_lock<std::mutex> guard(mutex_);
        while (state_ == State::running) {
            guard.unlock();
            engine_->stop(loop_);
            guard.lock();
            // Ask again every 2 ms until `run` has returned: a stop just before `run` enters its wait can be lost.
            changed_.wait_for(guard, std::chrono::milliseconds(2), [this] { return state_ != State::running; });
        }
        state_ = State::released;
        changed_.notify_all();
    }
    thread_.join();
    joined_ = true;
}

LoopThread::~LoopThread() { stop(); }

uint64_t LoopThread::switches() const {
    return engine_->loop_switches ? engine_->loop_switches(loop_) : bench_thread_switches_of((int)tid_.load());
}

uint64_t LoopThread::cpu_ns() const {
    return engine_->loop_cpu_ns ? engine_->loop_cpu_ns(loop_) : thread_cpu_ns(cpu_clock_);
}

// MARK: measurements

uint64_t callout_switches(const bench_engine *engine, bench_loop *loop) {
    return engine->loop_switches ? engine->loop_switches(loop) : bench_thread_switches();
}

uint64_t thread_cpu_ns(clockid_t clock) {
    struct timespec now;
    if (clock_gettime(clock, &now) != 0) return 0;
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

double cpu_per(uint64_t before, uint64_t after, double units) {
    if (units <= 0 || after < before) return -1;
    return (double)(after - before) / units;
}

void set_cpu_counters(benchmark::State &state, const std::string &unit, double loop, double post, double process) {
    if (loop >= 0) state.counters["loop_cpu_ns_per_" + unit] = loop;
    if (post >= 0) state.counters["post_cpu_ns_per_" + unit] = post;
    if (process >= 0) state.counters["process_cpu_ns_per_" + unit] = process;
}

void set_latency_counters(benchmark::State &state, std::vector<uint64_t> &samples) {
    state.counters["latency_mean_ns"] = mean(samples);
    state.counters["latency_p50_ns"] = quantile(samples, 0.50);
    state.counters["latency_p99_ns"] = quantile(samples, 0.99);
    Modes modes = split_modes(samples);
    state.counters["latency_modes"] = modes.count;
    state.counters["latency_split_ns"] = modes.split_ns;
    state.counters["latency_low_share"] = modes.low_share;
    state.counters["latency_low_p50_ns"] = modes.low_p50_ns;
    state.counters["latency_high_share"] = modes.high_share;
    state.counters["latency_high_p50_ns"] = modes.high_p50_ns;
}

double quantile(std::vector<uint64_t> &samples, double q) {
    if (samples.empty()) return 0;
    size_t rank = (size_t)(q * (double)samples.size());
    if (rank >= samples.size()) rank = samples.size() - 1;
    std::nth_element(samples.begin(), samples.begin() + (long)rank, samples.end());
    return (double)samples[rank];
}

double mean(const std::vector<uint64_t> &samples) {
    if (samples.empty()) return 0;
    long double sum = 0;
    for (uint64_t sample : samples) sum += (long double)sample;
    return (double)(sum / (long double)samples.size());
}

Modes split_modes(std::vector<uint64_t> &samples) {
    Modes modes;
    if (samples.empty()) return modes;
    std::sort(samples.begin(), samples.end());
    const size_t n = samples.size();
    auto median_of = [&](size_t from, size_t to) -> double {  // [from, to), sorted
        return to > from ? (double)samples[from + (to - from) / 2] : 0;
    };
    modes.low_p50_ns = median_of(0, n);
    const double low = (double)std::max<uint64_t>(samples[n / 100], 1);
    const double high = (double)std::max<uint64_t>(samples[std::min(n - 1, n * 99 / 100)], 1);
    constexpr double kBinsPerOctave = 24;
    const int bins = (int)(std::log2(high / low) * kBinsPerOctave) + 1;
    if (n < 100 || bins < 8) return modes;
    std::vector<double> histogram((size_t)bins, 0);
    for (uint64_t sample : samples) {
        if ((double)sample < low || (double)sample > high) continue;
        int bin = (int)(std::log2((double)sample / low) * kBinsPerOctave);
        histogram[(size_t)std::min(bin, bins - 1)] += 1;
    }
    std::vector<double> smooth((size_t)bins, 0);
    for (int i = 0; i < bins; i++) {
        double sum = 0;
        int used = 0;
        for (int j = i - 1; j <= i + 1; j++)
            if (j >= 0 && j < bins) sum += histogram[(size_t)j], used++;
        smooth[(size_t)i] = sum / used;
    }
    // Every pair of bins (a < b) as candidate peaks: the valley is the lowest bin between them; keep the pair whose
    // lower peak stands highest above its valley.
    std::vector<int> peaks;
    for (int i = 0; i < bins; i++) {
        double left = i > 0 ? smooth[(size_t)i - 1] : -1, right = i + 1 < bins ? smooth[(size_t)i + 1] : -1;
        if (smooth[(size_t)i] > 0 && smooth[(size_t)i] >= left && smooth[(size_t)i] > right) peaks.push_back(i);
    }
    double best_depth = 0;
    int best_valley = -1;
    for (size_t a = 0; a < peaks.size(); a++) {
        for (size_t b = a + 1; b < peaks.size(); b++) {
            int valley = peaks[a];
            for (int i = peaks[a]; i <= peaks[b]; i++)
                if (smooth[(size_t)i] < smooth[(size_t)valley]) valley = i;
            double lower_peak = std::min(smooth[(size_t)peaks[a]], smooth[(size_t)peaks[b]]);
            if (smooth[(size_t)valley] > 0.6 * lower_peak) continue;
            double depth = lower_peak - smooth[(size_t)valley];
            if (depth > best_depth) best_depth = depth, best_valley = valley;
        }
    }
    if (best_valley < 0) return modes;
    const double split = low * std::exp2((best_valley + 0.5) / kBinsPerOctave);
    const size_t below = (size_t)(std::lower_bound(samples.begin(), samples.end(), (uint64_t)split) - samples.begin());
    if (below < n / 10 || n - below < n / 10) return modes;
    modes.count = 2;
    modes.split_ns = split;
    modes.low_share = (double)below / (double)n;
    modes.low_p50_ns = median_of(0, below);
    modes.high_share = 1 - modes.low_share;
    modes.high_p50_ns = median_of(below, n);
    return modes;
}

void sleep_until_ns(uint64_t deadline) {
    struct timespec when = {(time_t)(deadline / 1000000000u), (long)(deadline % 1000000000u)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &when, nullptr) != 0) {
    }
}

}  // namespace rlbench
