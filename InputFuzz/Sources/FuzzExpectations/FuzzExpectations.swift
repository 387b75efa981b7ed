// libFuzzer target: per-engine expectations files, through EngineExpectations.parse (what `runloop conform` reads
// for each engine). Any input must either load or be rejected with a SpecError naming the file and a line; anything
// else aborts, which libFuzzer reports as a crash and saves the input.

import ConformanceKit
import FuzzSupport

/// The name the loader puts in its messages; every rejection must name it.
private let fileName = "fuzz/expectations/cf.yaml"

/// Ids the file may name: those of the seed corpus (InputFuzz/Corpus/expectations), so the fuzzer gets past the
/// "no case has this id" rejection to the checks of an entry.
private let knownIDs: Set<String> = ["timer.tolerance.get-returns-set-value", "order.entry-exit"]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzExpectations(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzInput(data, size, file: fileName, expected: SpecError.self) {
        _ = try EngineExpectations.parse($0, file: fileName, engine: "cf", knownIDs: knownIDs)
    }
}

@main
enum FuzzExpectations {
    static func main() { runFuzzer(fuzzExpectations) }
}
