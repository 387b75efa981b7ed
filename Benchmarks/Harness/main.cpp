// runloop-bench: Google Benchmark harness for six run-loop engines (see Benchmarks/README.md).
//
// Its own flags come first and are removed before Google Benchmark sees the rest:
//   --rl_profile=full|standard|quick|smoke  how much each benchmark measures (default full; see Profile in common.h)
//   --rl_family=LIST              families to register: wake,observers,coalescing,scale,resident,lag (default all)
//   --rl_list_families            print the families, one a line: its --rl_family name, a tab, its title; then exit
//   --rl_engines=LIST             engines to register: ref,cf,glib,libuv,libevent,epoll, and cf:PATH for a
//                                 CoreFoundation library loaded at run time (default the six built-in ones)
//   --rl_describe                 print "# key: value" lines describing the selected engines and CPUs, then exit
//   --rl_watchdog_s=N             the watchdog's limit per benchmark call, seconds (default: the profile's)
//   --rl_iterations=N             every benchmark runs exactly N iterations (default: Google Benchmark decides by
//                                 time); runloop bench --instructions uses it under callgrind (it also
//                                 registers BM_WakePath in the wake family)
//   --rl_stress=N                 no benchmarks: N start/stop cycles of every engine's loop thread, without and with
//                                 a burner (scripts/bench-stress.sh), then exit
// Test-only: RL_TEST_HANG=REGEX makes the benchmarks whose name matches hang, to check the watchdog.
// Every other flag is Google Benchmark's (--benchmark_filter, --benchmark_repetitions, ...).
#include <malloc.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common.h"

namespace {

// Google Benchmark 1.7.1's CSV reporter takes its counter columns from the first batch of runs it is given, and a
// skipped or failed benchmark's row carries no counters; Debian's DEBUG build then aborts on the next row that has
// counters ("All counters must be present in each run"). This file reporter hands the CSV reporter every run in one
// batch at the end, so the header holds every counter of the invocation and error rows are written as GB writes
// them. The output is exactly GB's CSV; only its rows arrive at the end of the run instead of one by one.
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"
class WholeRunCSVReporter : public benchmark::CSVReporter {
   public:
    void ReportRuns(const std::vector<Run> &runs) override {
        std::lock_guard<std::mutex> guard(mutex_);
        runs_.insert(runs_.end(), runs.begin(), runs.end());
    }
    void Finalize() override {
        std::lock_guard<std::mutex> guard(mutex_);
        write_locked();
    }
    /// On the watchdog's thread, while benchmark `name` hangs: writes every finished benchmark's rows and an error
    /// row for `name`, so `runloop bench` can tell what is done and run the rest. The benchmark thread is blocked
    /// inside the benchmark, so Google Benchmark is not writing to the file meanwhile.
    void finish_with_hang(const std::string &name, const std::string &message) {
        std::lock_guard<std::mutex> guard(mutex_);
        Run hung;
        hung.run_name.function_name = name;
        hung.error_occurred = true;
        hung.error_message = message;
        runs_.push_back(hung);
        write_locked();
        GetOutputStream().flush();
    }

   private:
    void write_locked() {
        if (written_) return;
        written_ = true;
        if (!runs_.empty()) CSVReporter::ReportRuns(runs_);
        CSVReporter::Finalize();
    }
    std::mutex mutex_;
    std::vector<Run> runs_;  // protected by mutex_
    bool written_ = false;   // protected by mutex_
};
#pragma clang diagnostic pop

/// The benchmark families, in the order `runloop bench` runs them: the one list of them (--rl_list_families prints
/// it, --rl_family selects from it).
struct Family {
    const char *name;   // what --rl_family takes
    const char *title;  // how `runloop bench` names it in its progress lines
    void (*register_benchmarks)();
};
/// The wake family with the machine's limits (BM_Limits, limits.cpp), which wake latencies are read against: one
/// invocation, so that their repetitions interleave and a slow spell of a shared machine lands on both. With
/// --rl_iterations it also has the round trips of one known path each (BM_WakePath, wake_path.cpp), which
/// `runloop bench --instructions` counts.
void register_wake_and_limits() {
    rlbench::register_limits();
    rlbench::register_wake_latency();
    rlbench::register_wake_path();
}

const Family kFamilies[] = {
    {"wake", "machine limits and wake latency", register_wake_and_limits},
    {"observers", "observer dispatch", rlbench::register_observer_dispatch},
    {"coalescing", "timer coalescing", rlbench::register_timer_coalescing},
    {"scale", "scale", rlbench::register_scale},
    {"resident", "resident thread throughput", rlbench::register_resident_throughput},
    {"lag", "lag monitor", rlbench::register_lag_monitor},
};

bool has_family(const std::string &list, const char *family) {
    std::stringstream stream(list);
    std::string item;
    while (std::getline(stream, item, ','))
        if (item == family || item == "all") return true;
    return false;
}

/// A decimal integer above 0 (and below a billion), the whole of `text`.
bool positive(const char *text, int *value) {
    char *end = nullptr;
    long parsed = strtol(text, &end, 10);
    if (end == text || *end != '\0' || parsed <= 0 || parsed >= 1000000000) return false;
    *value = (int)parsed;
    return true;
}

// glibc's allocator, left to itself, gives pages back to the kernel (free space at the top of a heap past its trim
// threshold; blocks of 128 KiB and more, which it mmaps and unmaps), and raises both thresholds the first time an
// mmapped block is freed. So whether an iteration of BM_Scale found its memory mapped or faulted it in again depended
// on what had run before it in the process: libuv's source add + remove at N = 10,000 cost 248 ns in a run of that
// size alone and 91 ns with the policy below (GLIBC_TUNABLES, same binary, 3 repetitions each), while libevent's,
// whose items stay in the fast bins, did not move. Every benchmark runs under one fixed policy instead: nothing is
// trimmed, and only blocks of 32 MiB and more are mmapped (setting a threshold turns glibc's adjustment of both off).
// The process keeps the memory of its largest benchmark, some tens of MiB.
// Under a sanitizer (scripts/bench-stress.sh, bench-tsan.sh: correctness runs, no figures) the allocator is the
// sanitizer's, which has no such thresholds and refuses mallopt.
constexpr int kTrimThreshold = 1 << 30;
constexpr int kMmapThreshold = 32 << 20;  // glibc's largest allowed value on 64-bit (HEAP_MAX_SIZE / 2)
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define RL_SANITIZER_ALLOCATOR 1
#endif
#endif

bool fix_allocator_policy() {
#ifdef RL_SANITIZER_ALLOCATOR
    return true;
#else
    return mallopt(M_TRIM_THRESHOLD, kTrimThreshold) == 1 && mallopt(M_MMAP_THRESHOLD, kMmapThreshold) == 1;
#endif
}

void describe() {
#ifdef RL_SANITIZER_ALLOCATOR
    printf("# malloc: the sanitizer's allocator (a sanitizer build: no fixed policy, figures not comparable)\n");
#else
    printf("# malloc: glibc, trim threshold %d MiB, mmap threshold %d MiB, fixed for the whole run (main.cpp)\n",
           kTrimThreshold >> 20, kMmapThreshold >> 20);
#endif
    for (const bench_engine *engine : rlbench::engines())
        printf("# engine_%s: %s\n", engine->name, engine->describe(engine));
    printf("# cpus_usable:");
    for (int cpu : rlbench::usable_cpus()) printf(" %d", cpu);
    printf("\n# loop_cpu: %d\n# client_cpu: %d\n", rlbench::loop_cpu(), rlbench::client_cpu());
}

}  // namespace

int main(int argc, char **argv) {
    if (!fix_allocator_policy()) {
        fprintf(stderr, "runloop-bench: glibc refused the fixed allocator policy (mallopt)\n");
        return 1;
    }
    std::string families = "all", engine_list;
    bool describe_only = false;
    int stress_cycles = 0;
    int watchdog_s = 0;
    bool csv_out = false;
    int kept = 1;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--benchmark_out_format=csv") == 0) csv_out = true;
        if (strncmp(arg, "--rl_profile=", 13) == 0) {
            std::string value = arg + 13;
            rlbench::Profile &chosen = rlbench::profile();
            chosen.name = value;
            if (value == "standard") {
                // The default run: every target of Benchmarks/targets.yaml judged with its full bound (they read
                // scale at N = 10,000 only), in a few minutes: BenchProfile.swift (Sources/BenchKit) says why.
                chosen.coalescing_window_ns = 200000000u;         // 2,000 fires per repetition
                chosen.coalescing_window_covers_interval = true;  // K = 10,000: 1 s
                chosen.scale_max = 10000;
                chosen.watchdog_s = 120;
                chosen.lag_stalls = 1;
            } else if (value == "quick") {
                chosen.coalescing_window_ns = 100000000u;  // 1,000 fires per repetition
                chosen.scale_max = 10000;
                chosen.watchdog_s = 60;
                chosen.lag_stalls = 1;
            } else if (value == "smoke") {
                chosen.coalescing_window_ns = 20000000u;
                chosen.scale_max = 10000;
                chosen.watchdog_s = 30;
                chosen.resident_items = 1000;
                chosen.lag_stalls = 1;
            } else if (value != "full") {
                fprintf(stderr, "runloop-bench: --rl_profile must be full, standard, quick or smoke, not '%s'\n",
                        value.c_str());
                return 2;
            }
        } else if (strncmp(arg, "--rl_family=", 12) == 0) {
            families = arg + 12;
        } else if (strncmp(arg, "--rl_engines=", 13) == 0) {
            engine_list = arg + 13;
        } else if (strcmp(arg, "--rl_list_families") == 0) {
            for (const Family &family : kFamilies) printf("%s\t%s\n", family.name, family.title);
            return 0;
        } else if (strcmp(arg, "--rl_describe") == 0) {
            describe_only = true;
        } else if (strncmp(arg, "--rl_stress=", 12) == 0) {
            if (!positive(arg + 12, &stress_cycles)) {
                fprintf(stderr, "runloop-bench: --rl_stress needs a positive number of cycles, not '%s'\n", arg + 12);
                return 2;
            }
        } else if (strncmp(arg, "--rl_iterations=", 16) == 0) {
            if (!positive(arg + 16, &rlbench::profile().fixed_iterations)) {
                fprintf(stderr, "runloop-bench: --rl_iterations needs a positive number of iterations, not '%s'\n",
                        arg + 16);
                return 2;
            }
        } else if (strncmp(arg, "--rl_watchdog_s=", 16) == 0) {
            if (!positive(arg + 16, &watchdog_s)) {
                fprintf(stderr, "runloop-bench: --rl_watchdog_s needs a positive number of seconds, not '%s'\n",
                        arg + 16);
                return 2;
            }
        } else {
            argv[kept++] = argv[i];
        }
    }
    argc = kept;
    if (watchdog_s) rlbench::profile().watchdog_s = watchdog_s;
    if (!engine_list.empty()) {
        std::string why;
        if (!rlbench::select_engines(engine_list, &why)) {
            fprintf(stderr, "runloop-bench: %s\n", why.c_str());
            return 2;
        }
    }
    if (describe_only) {
        describe();
        return 0;
    }
    if (stress_cycles) return rlbench::run_stress(stress_cycles);
    if (const char *pattern = getenv("RL_TEST_HANG")) {
        if (!rlbench::set_test_hang(pattern)) {
            fprintf(stderr, "runloop-bench: RL_TEST_HANG is not a valid extended regex: '%s'\n", pattern);
            return 2;
        }
    }
    int registered = 0;
    std::string known;
    for (const Family &family : kFamilies) {
        known += std::string(family.name) + ", ";
        if (has_family(families, family.name)) family.register_benchmarks(), registered++;
    }
    if (registered == 0) {
        fprintf(stderr, "runloop-bench: --rl_family names no family (%sall)\n", known.c_str());
        return 2;
    }

    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
    // The benchmarks run on a second thread, never on the main thread: CoreFoundation's main-thread loop is special (it
    // stands for the main dispatch queue and is never empty in a common mode: the note of rule empty.what-counts), and
    // the reference loop copies that rule.
    std::thread runner([csv_out] {
        if (csv_out) {
            static WholeRunCSVReporter file_reporter;  // static: the watchdog's handler may use it until _exit
            rlbench::watchdog::on_expiry([](const std::string &name, int limit_s) {
                file_reporter.finish_with_hang(name, "error: no result after " + std::to_string(limit_s) + " s");
            });
            benchmark::RunSpecifiedBenchmarks(nullptr, &file_reporter);
        } else {
            benchmark::RunSpecifiedBenchmarks();
        }
    });
    runner.join();
    benchmark::Shutdown();
    return 0;
}
