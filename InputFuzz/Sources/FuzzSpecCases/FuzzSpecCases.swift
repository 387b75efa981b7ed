// libFuzzer target: spec case files, through SpecLoader.parse (what `runloop conform --spec FILE` reads). Any input
// must either load or be rejected with a SpecError naming the file and a line; anything else (a trap, another error
// type, a rejection without a location) aborts, which libFuzzer reports as a crash and saves the input. Hangs and
// memory blow-ups are caught by libFuzzer's -timeout and -rss_limit_mb (scripts/fuzz-inputs.sh sets both).

import ConformanceKit
import FuzzSupport

/// The name the loader puts in its messages; every rejection must name it.
private let fileName = "fuzz/cases.yaml"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSpecCases(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzInput(data, size, file: fileName, expected: SpecError.self) {
        _ = try SpecLoader.parse($0, file: fileName)
    }
}

@main
enum FuzzSpecCases {
    static func main() { runFuzzer(fuzzSpecCases) }
}
