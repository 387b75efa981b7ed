// What the three fuzz targets share: starting libFuzzer from the executable's `main`, reading the input as text, and
// the check that a rejection points the user at the mistake (file and line), as the CLI's exit-2 messages must.

import CFuzz
import ConformanceKit
import Glibc
import ResultsKit

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

/// One input: `load` it as text; a rejection must pass ``checkRejection(_:file:expected:)``. Always returns 0 (libFuzzer
/// reserves other values); a finding stops the process instead.
public func fuzzInput(
    _ data: UnsafePointer<UInt8>?, _ size: Int, file: String, expected: any Error.Type,
    load: (String) throws -> Void
) -> CInt {
    do {
        try load(fuzzText(data, size))
    } catch {
        checkRejection(error, file: file, expected: expected)
    }
    return 0
}

/// The input as text. The loaders' file readers differ on invalid UTF-8 (the spec loader rejects it before parsing,
/// the CSV reader repairs it); decoding with repair here lets byte-level mutations still reach the parsers.
func fuzzText(_ data: UnsafePointer<UInt8>?, _ size: Int) -> String {
    guard let data else { return "" }
    return String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
}

/// Stops the process with `message`; libFuzzer reports the abort as a crash and saves the input.
public func finding(_ message: String) -> Never {
    fatalError("fuzz finding: \(message)")
}

/// Checks a rejection: it must be the loader's own error type, `expected`, and name `file` and a line
/// (`file:line: ` leading its description, as the CLI prints it), and say something.
func checkRejection(_ error: any Error, file: String, expected: any Error.Type) {
    let location: (file: String, line: Int, message: String)
    switch error {
    case let error as SpecError where expected == SpecError.self:
        location = (error.location.file, error.location.line, error.message)
    case let error as InputError where expected == InputError.self:
        location = (error.file, error.line ?? 0, error.detail)
    default:
        finding("rejection with a foreign error type \(type(of: error)): \(error)")
    }
    var problem: String?
    if location.file != file {
        problem = "names file '\(location.file)'"
    } else if location.line < 1 {
        problem = "no line"
    } else if location.message.isEmpty {
        problem = "empty message"
    } else if !"\(error)".hasPrefix("\(file):\(location.line): ") {
        problem = "description lacks file:line"
    }
    if let problem { finding("unclear rejection (\(problem)): \(error)") }
}
