// What the three fuzz targets share: starting libFuzzer from the executable's `main`, reading the input as text, and
// the check that a rejection points the user at the mistake (file and line), as the CLI's exit-2 messages must.

import CFuzz
import Glibc
import CompareKit
import ConformanceKit

/// libFuzzer's per-input callback: the `LLVMFuzzerTestOneInput` signature.
public typealias FuzzCallback = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

/// Runs libFuzzer with the process's arguments; returns its exit status.
///
/// SwiftPM links an executable's `main` from the module's entry point, so libFuzzer's own `main` is never used; its
/// driver is started here instead, with the same flags (`-max_total_time=`, `-timeout=`, `-rss_limit_mb=`, corpus
/// directories).
public func runFuzzer(_ callback: FuzzCallback) -> Never {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, callback))
}

/// The input as text. The loaders' file readers differ on invalid UTF-8 (the spec loader rejects it before parsing,
/// the CSV reader repairs it); decoding with repair here lets byte-level mutations still reach the parsers.
public func fuzzText(_ data: UnsafePointer<UInt8>?, _ size: Int) -> String {
    guard let data else { return "" }
    return String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
}

/// Stops the process with `message`; libFuzzer reports the abort as a crash and saves the input.
public func finding(_ message: String) -> Never {
    fatalError("fuzz finding: \(message)")
}

/// Checks a spec or expectations rejection: it must name `file` and a line, and say something.
public func checkRejection(_ error: any Error, file: String) {
    guard let error = error as? SpecError else {
        finding("rejection with a foreign error type \(type(of: error)): \(error)")
    }
    var problem: String?
    if error.location.file != file {
        problem = "names file '\(error.location.file)'"
    } else if error.location.line < 1 {
        problem = "no line"
    } else if error.message.isEmpty {
        problem = "empty message"
    } else if !error.description.hasPrefix("\(file):\(error.location.line): ") {
        problem = "description lacks file:line"
    }
    if let problem { finding("unclear rejection (\(problem)): \(error)") }
}

/// Checks a results-CSV rejection: it must name `file` and a line, and say something.
public func checkRejection(_ error: any Error, csvFile file: String) {
    guard let error = error as? CompareInputError else {
        finding("rejection with a foreign error type \(type(of: error)): \(error)")
    }
    var problem: String?
    if error.file != file {
        problem = "names file '\(error.file)'"
    } else if (error.line ?? 0) < 1 {
        problem = "no line"
    } else if error.detail.isEmpty {
        problem = "empty detail"
    } else if !error.description.hasPrefix("\(file):\(error.line ?? 0): error: ") {
        problem = "description lacks file:line"
    }
    if let problem { finding("unclear rejection (\(problem)): \(error)") }
}
