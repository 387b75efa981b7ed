// Where the tests find their conformance worker: ConformanceTestWorker, built beside the test bundle.

import ConformanceKit
import Foundation

public enum TestWorker {
    /// The ConformanceTestWorker executable in the build directory this test process runs from.
    public static let path: String = {
        let me =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: me).deletingLastPathComponent().appendingPathComponent("ConformanceTestWorker").path
    }()

    /// A hosted engine of the test worker, by name.
    public static func engine(_ name: String) -> EngineDescription {
        EngineDescription(selector: name, name: name, features: [])
    }

    /// A launcher for it; `faults` sets the faulty engine's RUNLOOP_TEST_FAULTS.
    public static func launcher(faults: String = "") -> WorkerLauncher {
        WorkerLauncher(executable: path, environment: ["RUNLOOP_TEST_FAULTS": faults])
    }
}
