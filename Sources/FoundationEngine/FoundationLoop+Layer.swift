// The Foundation verbs of spec format 1.3 (INTERPRETING.md, "Foundation verbs"), each one call of Foundation's API.

import EngineKit
import Foundation

extension FoundationLoop: FoundationLayerLoop {
    func foundationRun() { runLoop.run() }

    func foundationRun(until date: Double) { runLoop.run(until: Date(timeIntervalSinceReferenceDate: date)) }

    func foundationRun(mode: ModeName, before date: Double) -> Bool {
        runLoop.run(mode: mode.foundationMode, before: Date(timeIntervalSinceReferenceDate: date))
    }

    func limitDate(mode: ModeName) -> LimitDate {
        guard let date = runLoop.limitDate(forMode: mode.foundationMode) else { return .none }
        if date == Date.distantFuture { return .distantFuture }
        return .date(date.timeIntervalSinceReferenceDate)
    }

    func acceptInput(mode: ModeName, before date: Double) {
        runLoop.acceptInput(forMode: mode.foundationMode.rawValue, before: Date(timeIntervalSinceReferenceDate: date))
    }

    func makeFoundationTimer(
        fireDate: Double?, interval: Double, repeats: Bool, callout: @escaping @Sendable () -> Void
    ) -> any EngineTimer {
        if let fireDate {
            return FoundationTimer(
                Timer(
                    fire: Date(timeIntervalSinceReferenceDate: fireDate), interval: interval, repeats: repeats,
                    block: { _ in callout() }))
        }
        return FoundationTimer(Timer(timeInterval: interval, repeats: repeats, block: { _ in callout() }))
    }

    func scheduledTimer(interval: Double, repeats: Bool, callout: @escaping @Sendable () -> Void) -> any EngineTimer {
        FoundationTimer(Timer.scheduledTimer(withTimeInterval: interval, repeats: repeats, block: { _ in callout() }))
    }

    func foundationPerform(inModes modes: [ModeName]?, _ block: @escaping @Sendable () -> Void) {
        if let modes {
            runLoop.perform(inModes: modes.map(\.foundationMode), block: block)
        } else {
            runLoop.perform(block)
        }
    }
}
