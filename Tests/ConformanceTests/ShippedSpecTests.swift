// The shipped spec, case by case, on every engine: each case must meet that engine's expectation.

import CFEngine
import ConformanceKit
import ConformanceSpec
import EngineKit
import Testing

enum ShippedSpec {
    static var request: ConformanceRequest {
        ConformanceRequest(specPath: SpecResources.casesDirectory ?? "missing-spec-directory",
                           expectationsPath: SpecResources.expectationsDirectory)
    }

    /// Every case id; a spec that does not load yields no ids, and `specLoads` reports why.
    static let caseIDs: [String] = (try? Conformance.selectCases(request).map(\.id)) ?? []

    static func check(_ id: String, on engine: any RunLoopEngine) throws {
        var request = request
        request.filter = id
        let report = try Conformance.run(request, engines: [engine])
        let outcome = try #require(report.outcomes.first)
        #expect(outcome.meetsExpectation,
                "\(id) on \(engine.name): \(outcome.status.rawValue), expected \(outcome.expected.rawValue)\n\(outcome.detail ?? "")")
    }
}

@Suite("Shipped spec", .serialized)
struct ShippedSpecTests {
    @Test func specLoadsWithEnoughCases() throws {
        let cases = try Conformance.selectCases(ShippedSpec.request)
        #expect(cases.count >= 120)
        let engines: [any RunLoopEngine] = [CoreFoundationEngine()]
        _ = try Conformance.loadExpectations(ShippedSpec.request, engines: engines)
    }

    @Test("each case on cf", arguments: ShippedSpec.caseIDs)
    func onCoreFoundation(_ id: String) throws {
        try ShippedSpec.check(id, on: CoreFoundationEngine())
    }
}
