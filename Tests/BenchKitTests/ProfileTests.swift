// The profile table and the checks of `runloop bench`'s arguments that need no harness.
import Testing

@testable import BenchKit

@Suite struct ProfileTests {
    @Test func theProfilesAndTheirFacts() {
        #expect(BenchProfile.all.map(\.name) == ["smoke", "quick", "standard", "full"])
        #expect(BenchProfile.full.minTime == "0.3")
        #expect(BenchProfile.full.processLimitSeconds == 3600)
        #expect(BenchProfile.quick.minTime == "0.03")
        #expect(BenchProfile.smoke.fixedRepetitions == 1)
        for profile in [BenchProfile.quick, .standard, .full] {
            #expect(profile.repetitions >= 5)
            #expect(profile.wakeRepetitions >= 9)
            #expect(profile.fixedRepetitions == nil)
        }
        #expect(BenchProfile.isolatedFamilies == ["scale", "wake"])
    }

    @Test func repetitionsPerFamily() {
        #expect(BenchProfile.standard.repetitions(of: "observers", asked: nil) == 5)
        #expect(BenchProfile.standard.repetitions(of: "wake", asked: nil) == 9)
        #expect(BenchProfile.full.repetitions(of: "wake", asked: 12) == 12)
        #expect(BenchProfile.full.repetitions(of: "scale", asked: 7) == 7)
        // Smoke runs every benchmark once whatever is asked.
        #expect(BenchProfile.smoke.repetitions(of: "wake", asked: 9) == 1)
        #expect(BenchProfile.smoke.repetitions(of: "lag", asked: nil) == 1)
    }

    @Test func theProfileLineStartsWithItsName() {
        // ReportKit and HistoryKit read the first word: quick is judged against quick bounds, smoke not at all.
        let line = BenchProfile.standard.contextValue(asked: nil)
        #expect(
            line == "standard (repetitions 5, wake latency 9, min_time 0.05 s, random interleaving, every "
                + "repetition kept)")
        #expect(BenchProfile.full.contextValue(asked: 7).hasPrefix("full (repetitions 7, wake latency 9,"))
        #expect(BenchProfile.smoke.contextValue(asked: nil).hasPrefix("smoke (repetitions 1, wake latency 1,"))
    }

    @Test func isolation() {
        #expect(BenchProfile.standard.isIsolated("scale"))
        #expect(BenchProfile.standard.isIsolated("wake"))
        #expect(!BenchProfile.standard.isIsolated("observers"))
    }
}

@Suite struct OptionTests {
    /// The bad-input error `validate()` throws for the options `change` makes, nil when they are valid.
    static func error(_ change: (inout BenchOptions) -> Void) -> BenchInputError? {
        var options = BenchOptions()
        change(&options)
        do {
            try options.validate()
            return nil
        } catch {
            return error as? BenchInputError
        }
    }

    @Test func theDefaultsAreValid() {
        #expect(Self.error { _ in } == nil)
        #expect(Self.error { $0.repetitions = 5 } == nil)
        #expect(
            Self.error {
                $0.watchdog = 2
                $0.engines = "ref,cf:/x/libFoundation.so"
            } == nil)
    }

    @Test func tooFewRepetitionsNameTheField() {
        let found = Self.error { $0.repetitions = 3 }
        #expect(found?.field == "--repetitions")
        #expect(found?.description.hasPrefix("bench: --repetitions: at least 5") == true)
        #expect(Self.error { $0.repetitions = 0 }?.field == "--repetitions")
        #expect(Self.error { $0.repetitions = 100_000 }?.field == "--repetitions")
        // Smoke runs once whatever is asked: nothing to refuse.
        #expect(
            Self.error {
                $0.profile = .smoke
                $0.repetitions = 3
            } == nil)
    }

    @Test func otherFields() {
        #expect(Self.error { $0.watchdog = 0 }?.field == "--watchdog")
        #expect(Self.error { $0.engines = "ref,,cf" }?.field == "--engines")
        #expect(Self.error { $0.engines = "" }?.field == "--engines")
        #expect(Self.error { $0.families = ["wake", ""] }?.field == "--family")
        #expect(Self.error { $0.filter = "" }?.field == "--filter")
        #expect(Self.error { $0.label = "a/b" }?.field == "--label")
    }

    @Test func familiesAreCheckedAgainstTheHarnessList() throws {
        let known = HarnessFamily.parse(
            "wake\tmachine limits and wake latency\nobservers\tobserver dispatch\n"
                + "scale\tscale\n")
        #expect(known.map(\.name) == ["wake", "observers", "scale"])
        var options = BenchOptions()
        #expect(try options.selectedFamilies(known) == known)
        // The harness's order, whatever the order asked.
        options.families = ["scale", "wake"]
        #expect(try options.selectedFamilies(known).map(\.name) == ["wake", "scale"])
        options.families = ["wake", "nope"]
        #expect(
            throws: BenchInputError(
                field: "--family",
                "unknown family 'nope' (families: wake, observers, scale)")
        ) {
            try options.selectedFamilies(known)
        }
    }
}
