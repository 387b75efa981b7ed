// runloop-bench: Google Benchmark harness for six run-loop engines (see Benchmarks/README.md).
//
// Its own flags come first and are removed before Google Benchmark sees the rest:
//   --rl_profile=full|quick|smoke how much each benchmark measures (default full; see Profile in common.h)
//   --rl_family=LIST              families to register: wake,observers,coalescing,scale (default all)
//   --rl_engines=LIST             engines to register: ref,cf,glib,libuv,libevent,epoll (default all)
//   --rl_describe                 print "# key: value" lines describing the engines and CPUs, then exit
// Every other flag is Google Benchmark's (--benchmark_filter, --benchmark_repetitions, ...).
#include <cstdio>
#include <cstring>
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
    void ReportRuns(const std::vector<Run> &runs) override { runs_.insert(runs_.end(), runs.begin(), runs.end()); }
    void Finalize() override {
        if (!runs_.empty()) CSVReporter::ReportRuns(runs_);
        CSVReporter::Finalize();
    }

   private:
    std::vector<Run> runs_;
};
#pragma clang diagnostic pop

bool has_family(const std::string &list, const char *family) {
    std::stringstream stream(list);
    std::string item;
    while (std::getline(stream, item, ','))
        if (item == family || item == "all") return true;
    return false;
}

void describe() {
    for (const bench_engine *engine : rlbench::all_engines())
        printf("# engine_%s: %s\n", engine->name, engine->describe());
    printf("# cpus_usable:");
    for (int cpu : rlbench::usable_cpus()) printf(" %d", cpu);
    printf("\n# loop_cpu: %d\n# client_cpu: %d\n", rlbench::loop_cpu(), rlbench::client_cpu());
}

}  // namespace

int main(int argc, char **argv) {
    std::string families = "all", engine_list;
    bool describe_only = false;
    bool csv_out = false;
    int kept = 1;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--benchmark_out_format=csv") == 0) csv_out = true;
        if (strncmp(arg, "--rl_profile=", 13) == 0) {
            std::string value = arg + 13;
            rlbench::Profile &chosen = rlbench::profile();
            chosen.name = value;
            if (value == "quick") {
                chosen.coalescing_window_ns = 100000000u;  // 1,000 fires per repetition
                chosen.scale_max = 10000;
            } else if (value == "smoke") {
                chosen.coalescing_window_ns = 20000000u;
                chosen.scale_max = 10000;
            } else if (value != "full") {
                fprintf(stderr, "runloop-bench: --rl_profile must be full, quick or smoke, not '%s'\n", value.c_str());
                return 2;
            }
        } else if (strncmp(arg, "--rl_family=", 12) == 0) {
            families = arg + 12;
        } else if (strncmp(arg, "--rl_engines=", 13) == 0) {
            engine_list = arg + 13;
        } else if (strcmp(arg, "--rl_describe") == 0) {
            describe_only = true;
        } else {
            argv[kept++] = argv[i];
        }
    }
    argc = kept;
    if (describe_only) {
        describe();
        return 0;
    }
    if (!engine_list.empty()) {
        std::string why;
        if (!rlbench::select_engines(engine_list, &why)) {
            fprintf(stderr, "runloop-bench: %s\n", why.c_str());
            return 2;
        }
    }
    int registered = 0;
    if (has_family(families, "wake")) rlbench::register_wake_latency(), registered++;
    if (has_family(families, "observers")) rlbench::register_observer_dispatch(), registered++;
    if (has_family(families, "coalescing")) rlbench::register_timer_coalescing(), registered++;
    if (has_family(families, "scale")) rlbench::register_scale(), registered++;
    if (registered == 0) {
        fprintf(stderr, "runloop-bench: --rl_family names no family (wake, observers, coalescing, scale, all)\n");
        return 2;
    }

    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
    // The benchmarks run on a second thread, never on the main thread: CoreFoundation's main-thread loop is
    // special (it stands for the main dispatch queue and is never empty in a common mode: rule 22), and the
    // reference loop copies that rule.
    std::thread runner([csv_out] {
        if (csv_out) {
            WholeRunCSVReporter file_reporter;
            benchmark::RunSpecifiedBenchmarks(nullptr, &file_reporter);
        } else {
            benchmark::RunSpecifiedBenchmarks();
        }
    });
    runner.join();
    benchmark::Shutdown();
    return 0;
}
