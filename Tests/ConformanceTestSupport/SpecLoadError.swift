// What the spec loader says about a document the tests hand it: the one helper the loader's test suites share.

import ConformanceKit
import Testing

/// The error that loading `text` as the spec file `file` throws, or nil when it loads. An error of another type than
/// ``SpecError`` is recorded as a test issue (the loader must report every mistake as a SpecError), and gives nil.
public func specLoadError(_ text: String, file: String) -> SpecError? {
    do {
        _ = try SpecLoader.parse(text, file: file)
        return nil
    } catch let error as SpecError {
        return error
    } catch {
        Issue.record("unexpected error type: \(error)")
        return nil
    }
}
