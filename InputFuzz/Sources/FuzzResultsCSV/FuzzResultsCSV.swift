// libFuzzer target: benchmark results CSVs, through ResultsReader.parse (what `runloop compare` reads). Any input
// must either load or be rejected with a InputError naming the file and a line; anything else aborts, which
// libFuzzer reports as a crash and saves the input.

import FuzzSupport
import ResultsKit

/// The name the reader puts in its messages; every rejection must name it.
private let fileName = "fuzz/results.csv"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzResultsCSV(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzInput(data, size, file: fileName, expected: InputError.self) {
        _ = try ResultsReader.parse(text: $0, file: fileName)
    }
}

@main
enum FuzzResultsCSV {
    static func main() { runFuzzer(fuzzResultsCSV) }
}
