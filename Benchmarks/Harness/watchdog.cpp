// The watchdog and guarded registration (common.h): no benchmark can hang the harness.
#include "common.h"

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <regex>
#include <thread>

#include <unistd.h>

namespace rlbench {
namespace watchdog {
namespace {

struct Watch {
    std::mutex mutex;
    std::condition_variable changed;
    // Protected by mutex.
    std::string what;
    int limit_s = 0;
    bool armed = false;
    uint64_t generation = 0;  // bumped by every arm and disarm, so an old deadline never ends a new watch
    std::function<void(const std::string &, int)> handler;
    std::once_flag started;
};

Watch &watch() {
    static Watch *value = new Watch;  // never destroyed: the thread may outlive main's statics
    return *value;
}

void watch_thread() {
    Watch &w = watch();
    std::unique_lock<std::mutex> guard(w.mutex);
    for (;;) {
        w.changed.wait(guard, [&] { return w.armed; });
        uint64_t generation = w.generation;
        auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(w.limit_s);
        bool moved = w.changed.wait_until(guard, deadline, [&] { return w.generation != generation; });
        if (moved) continue;
        std::string what = w.what;
        int limit = w.limit_s;
        auto handler = w.handler;
        guard.unlock();
        fprintf(stderr, "runloop-bench: watchdog: %s: no result after %d s; ending the process\n", what.c_str(), limit);
        if (handler) handler(what, limit);
        fflush(nullptr);
        _exit(kExitStatus);  // no destructors: the hung thread still holds the loop and its locks
    }
}

}  // namespace

void on_expiry(std::function<void(const std::string &, int)> handler) {
    std::lock_guard<std::mutex> guard(watch().mutex);
    watch().handler = std::move(handler);
}

void arm(const std::string &what, int limit_s) {
    Watch &w = watch();
    std::call_once(w.started, [] { std::thread(watch_thread).detach(); });
    std::lock_guard<std::mutex> guard(w.mutex);
    w.what = what;
    w.limit_s = limit_s;
    w.armed = true;
    w.generation++;
    w.changed.notify_all();
}

void disarm() {
    Watch &w = watch();
    std::lock_guard<std::mutex> guard(w.mutex);
    w.armed = false;
    w.generation++;
    w.changed.notify_all();
}

}  // namespace watchdog

namespace {

/// RL_TEST_HANG's pattern; set once in main before registration, read-only afterwards.
std::regex *test_hang = nullptr;

/// The test hang hook: blocks for good, as a hung engine would; only the watchdog ends it.
[[noreturn]] void hang_on_purpose() {
    for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
}

}  // namespace

bool set_test_hang(const std::string &pattern) {
    try {
        test_hang = new std::regex(pattern, std::regex::extended);
    } catch (const std::regex_error &) {
        return false;
    }
    return true;
}

benchmark::internal::Benchmark *register_guarded(const std::string &name,
                                                 std::function<void(benchmark::State &)> body) {
    bool hangs = test_hang && std::regex_search(name, *test_hang);
    benchmark::internal::Benchmark *registered =
        benchmark::RegisterBenchmark(name.c_str(), [name, body = std::move(body), hangs](benchmark::State &state) {
            // Armed per call, outside the timed loop: arming costs a lock and a notify, never an iteration.
            watchdog::arm(name, profile().watchdog_s);
            if (hangs) hang_on_purpose();
            body(state);
            watchdog::disarm();
        });
    if (profile().fixed_iterations > 0) registered->Iterations(profile().fixed_iterations);
    return registered;
}

}  // namespace rlbench
