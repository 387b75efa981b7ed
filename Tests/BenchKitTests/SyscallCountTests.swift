// `runloop bench --syscalls` without perf or strace: how perf stat's and strace -c's output is read, the figure per
// round trip, the variants and their filters, the options' checks, and the CSV the results reader must take as
// untimed with its counts as columns.
import Foundation
import ResultsKit
import Testing

@testable import BenchKit

@Suite struct SyscallCountTests {
    /// What `perf stat -x, -o FILE -e ...` writes: a comment, a blank line, then `value,unit,event,run time,%` lines.
    static func perfOutput(write: Int, read: Int, epollPwait: String, futex: Int, all: Int) -> String {
        [
            "# started on Sun Dec  6 20:51:30 2026", "",
            "\(write),,syscalls:sys_enter_write,26719592,100.00,,",
            "\(read),,syscalls:sys_enter_read,26719592,100.00,,",
            "0,,syscalls:sys_enter_epoll_wait,26719592,100.00,,",
            "\(epollPwait),,syscalls:sys_enter_epoll_pwait,26719592,100.00,,",
            "\(futex),,syscalls:sys_enter_futex,26719592,100.00,,", "\(all),,raw_syscalls:sys_enter,26719592,100.00,,",
        ].joined(separator: "\n") + "\n"
    }

    @Test func perfsCountsAreReadByCallWithTheRawTotalAsAll() {
        let counts = SyscallCounts.readPerf(
            Self.perfOutput(write: 106, read: 7, epollPwait: "12", futex: 3, all: 284))
        #expect(counts == ["write": 106, "read": 7, "epoll_wait": 0, "epoll_pwait": 12, "futex": 3, "all": 284])
        // A value perf could not count reads as 0.
        let uncounted = SyscallCounts.readPerf(
            Self.perfOutput(write: 1, read: 1, epollPwait: "<not counted>", futex: 0, all: 2))
        #expect(uncounted["epoll_pwait"] == 0)
    }

    /// What `strace -c -f -o FILE` writes: a header, rows with and without errors, the total row.
    static let straceOutput = """
        % time     seconds  usecs/call     calls    errors syscall
        ------ ----------- ----------- --------- --------- ----------------
         40.00    0.000400           2       200           write
         30.00    0.000300           1       210        10 read
         20.00    0.000200           1       150           epoll_pwait
         10.00    0.000100           5        20         3 futex
          0.00    0.000000           0         2           timerfd_settime
        ------ ----------- ----------- --------- --------- ----------------
        100.00    0.001000           1       582        13 total

        """

    @Test func straceCountsAreItsCallsColumnAndAllIsTheirSum() {
        let counts = SyscallCounts.readStrace(Self.straceOutput)
        #expect(
            counts == [
                "write": 200, "read": 210, "epoll_pwait": 150, "futex": 20, "timerfd_settime": 2, "all": 582,
            ])
    }

    @Test func theFigureIsTheDifferencePerRoundTripOfEachColumn() {
        var options = SyscallOptions()
        options.roundTrips = 1000  // the shorter run makes 100: 900 round trips between them
        let short = ["write": 150, "read": 120, "epoll_pwait": 100, "ppoll": 0, "futex": 30, "mmap": 40, "all": 440]
        let long = [
            "write": 1050, "read": 1020, "epoll_pwait": 1000, "ppoll": 0, "futex": 30, "mmap": 490, "all": 3590,
        ]
        let figure = SyscallFigure.of(
            engine: "epoll", variant: SyscallVariant.all[0], short: short, long: long, options: options)
        let names = SyscallColumn.all.map(\.name)
        #expect(names == ["write", "read", "epoll_wait", "poll", "futex", "timerfd_settime", "other", "all"])
        // write 1, read 1, epoll_wait (epoll_pwait) 1, poll 0, futex 0, timerfd 0, other (mmap) 0.5, all 3.5.
        #expect(figure.perRoundTrip == [1, 1, 1, 0, 0, 0, 0.5, 3.5])
        // A difference under 0.005 per round trip is shown as 0, not as a sign of noise.
        let tiny = SyscallCounts.perRoundTrip(
            SyscallColumn.all[0], short: ["write": 0], long: ["write": 4], options: options)
        #expect(tiny == 0)
    }

    @Test func perfCountsTheTracepointsThisKernelHasAndEverySystemCall() {
        let list = """
              syscalls:sys_enter_epoll_pwait                     [Tracepoint event]
              syscalls:sys_enter_epoll_wait                      [Tracepoint event]
              syscalls:sys_enter_write                           [Tracepoint event]
            """
        #expect(
            SyscallCounts.perfEvents(available: list) == [
                "syscalls:sys_enter_write", "syscalls:sys_enter_epoll_wait", "syscalls:sys_enter_epoll_pwait",
                "raw_syscalls:sys_enter",
            ])
        #expect(SyscallCounts.perfUsable(probeSucceeded: true, output: "0,,syscalls:sys_enter_write,684848,100.00,,"))
        #expect(!SyscallCounts.perfUsable(probeSucceeded: true, output: "<not supported>,,syscalls:sys_enter_write"))
        #expect(!SyscallCounts.perfUsable(probeSucceeded: false, output: "Error: No permissions to read tracefs"))
    }

    @Test func theVariantsFilterTheEnginesDefaultWaitOnly() {
        #expect(
            SyscallVariant.all.map(\.text) == ["pin:same/load:none", "pin:same/load:idle1000", "pin:diff/load:none"])
        let filter = SyscallVariant.all[1].filter(engine: "cf:/a/lib.so")
        #expect(
            filter
                == "^BM_WakeLatency\\/engine:cf:\\/a\\/lib\\.so\\/pin:same\\/load:idle1000(/iterations:|/manual_time|$)"
        )
        let regex = try? Regex(filter)
        #expect(
            regex.map { "BM_WakeLatency/engine:cf:/a/lib.so/pin:same/load:idle1000/iterations:20".contains($0) } == true
        )
        #expect(regex.map { "BM_WakeLatency/engine:cf:/a/lib.so/pin:same/load:idle1000/spin:on".contains($0) } == false)
    }

    @Test func theCSVIsUntimedWithACountColumnPerCall() throws {
        var options = SyscallOptions()
        options.roundTrips = 2000
        let figure = SyscallFigure(
            engine: "ref", variant: SyscallVariant.all[2], perRoundTrip: [1, 1, 1.25, 0, 0.5, 0, 0.125, 3.875])
        let text =
            ([
                "# label: kvm-2cpu-syscalls", "# profile: \(SyscallText.profileValue(.perf, options: options))",
                "# timing: none",
            ] + SyscallText.rows([figure], options: options)).joined(separator: "\n") + "\n"
        let file = try ResultsReader.parse(text: text, file: "syscalls.csv")
        #expect(file.isUntimed && file.exactMetrics.isEmpty)
        let row = try #require(file.rows.first)
        #expect(row.benchmark == "BM_WakeLatency/engine:ref/pin:diff/load:none")
        #expect(row.counters["syscalls_per_round_trip"] == 3.875)
        #expect(row.counters["epoll_wait_per_round_trip"] == 1.25)
        #expect(row.counters["other_per_round_trip"] == 0.125)
        #expect(SyscallText.profileValue(.strace, options: options).hasPrefix("strace (system calls"))
        let table = SyscallText.table([figure], counter: .strace, options: options)
        #expect(table.contains("200 and 2000 round trips") && table.contains("indicative only"))
        #expect(table.contains("ref        pin:diff/load:none         1.00   1.00       1.25"))
    }

    @Test func theSyscallsOptionsAreCheckedAsBadInput() {
        let counting: (inout BenchOptions) -> Void = { $0.countSyscalls = true }
        #expect(InstructionCountTests.rejection(counting) == nil)
        #expect(
            InstructionCountTests.rejection {
                counting(&$0)
                $0.countInstructions = true
            }?.description == "bench: --syscalls: not with --instructions (one count per run)")
        let excluded: [(String, (inout BenchOptions) -> Void)] = [
            ("--quick, --full or --smoke", { $0.profile = .smoke }), ("--filter", { $0.filter = "BM_" }),
            ("--repetitions", { $0.repetitions = 9 }), ("--family", { $0.families = ["wake"] }),
            ("--load", { $0.counting.givenLoad = "none" }), ("--tree", { $0.counting.tree = "/tmp" }),
        ]
        for (field, change) in excluded {
            let error = InstructionCountTests.rejection {
                counting(&$0)
                change(&$0)
            }
            #expect(error?.field == field)
            #expect(error?.detail.hasPrefix("not with --syscalls") == true)
        }
        #expect(
            InstructionCountTests.rejection {
                counting(&$0)
                $0.counting.iterations = 99
            }?.field == "--iterations")
        var options = BenchOptions()
        counting(&options)
        #expect(options.syscallOptions.roundTrips == 20_000 && options.syscallOptions.shortRoundTrips == 2000)
        options.counting.iterations = 2000
        #expect(InstructionCountTests.rejection { $0 = options } == nil)
        #expect(options.syscallOptions.shortRoundTrips == 200)
    }
}
