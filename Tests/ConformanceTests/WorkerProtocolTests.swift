// The worker protocol's messages (WorkerMessage) on the wire: the lines below were written by `runloop worker` before
// the message became an enum (recorded on 2026-11-27 from `--list`, `--describe cf`, `--describe` of a missing
// library, and `--spec Sources/ConformanceSpec/cases --engine ref` serving two cases and an unknown id); each must
// decode to the message it is and encode to the same JSON object again. A line with no member or two is not a message.

import EngineKit
import Foundation
import Testing

@testable import ConformanceKit

@Suite("Worker protocol")
struct WorkerProtocolTests {
    static let recorded: [String] = [
        #"{"engines":[{"lacking":{},"name":"cf","features":["source1","stopMode","timerTolerance","blocks","mainThread","mainQueue"],"summary":"CoreFoundation from \/opt\/swift\/usr\/lib\/swift\/linux\/libFoundation.so (build id bbe2057ad9a7c4b7122ec47d2500ff98e0395cef), the toolchain's","selector":"cf"},{"lacking":{},"name":"ref","features":["source1","stopMode","timerTolerance","blocks","mainThread","mainQueue"],"summary":"the reference run loop: CFRunLoop semantics in Swift on epoll, eventfd and timerfd","selector":"ref"}]}"#,
        #"{"engines":[{"name":"cf","summary":"CoreFoundation from \/opt\/swift\/usr\/lib\/swift\/linux\/libFoundation.so (build id bbe2057ad9a7c4b7122ec47d2500ff98e0395cef), the toolchain's","selector":"cf","features":["source1","stopMode","timerTolerance","blocks","mainThread","mainQueue"],"lacking":{}}]}"#,
        #"{"fatal":"cannot load \/nonexistent.so: \/nonexistent.so: cannot open shared object file: No such file or directory"}"#,
        #"{"ready":"ref"}"#,
        #"{"trace":"run default"}"#,
        #"{"trace":"o.entry"}"#,
        #"{"trace":"o.beforeTimers"}"#,
        #"{"trace":"o.beforeSources"}"#,
        #"{"trace":"o.beforeWaiting"}"#,
        #"{"trace":"o.afterWaiting"}"#,
        #"{"trace":"fire t"}"#,
        #"{"trace":"o.exit"}"#,
        #"{"trace":"return finished"}"#,
        #"{"done":{"status":"PASS","id":"timer.due.fires-after-afterwaiting","trace":["run default","o.entry","o.beforeTimers","o.beforeSources","o.beforeWaiting","o.afterWaiting","fire t","o.exit","return finished"],"seconds":0.015668109}}"#,
        #"{"trace":"run default"}"#,
        #"{"trace":"o.beforeWaiting"}"#,
        #"{"trace":"o.afterWaiting"}"#,
        #"{"trace":"fire b"}"#,
        #"{"trace":"fire c"}"#,
        #"{"trace":"fire a"}"#,
        #"{"trace":"return finished"}"#,
        #"{"done":{"status":"PASS","id":"timer.due.several-fire-in-date-order","trace":["run default","o.beforeWaiting","o.afterWaiting","fire b","fire c","fire a","return finished"],"seconds":0.132235388}}"#,
        #"{"done":{"status":"ERROR","id":"no.such.case","detail":"the worker's spec has no case 'no.such.case'","trace":[],"seconds":0}}"#,
    ]

    static func decode(_ line: String) throws -> WorkerMessage {
        try JSONDecoder().decode(WorkerMessage.self, from: Data(line.utf8))
    }

    /// The line as a JSON object (member order aside: JSONEncoder's object order is not part of the format).
    static func object(_ data: Data) throws -> NSDictionary {
        try #require(try JSONSerialization.jsonObject(with: data) as? NSDictionary)
    }

    @Test(arguments: recorded)
    func aRecordedLineEncodesToTheSameObjectAgain(_ line: String) throws {
        let encoded = try Self.decode(line).encoded()
        #expect(encoded.last == UInt8(ascii: "\n") && !encoded.dropLast().contains(UInt8(ascii: "\n")))
        #expect(try Self.object(encoded.dropLast()) == Self.object(Data(line.utf8)), "\(line)")
    }

    @Test func recordedLinesDecodeToTheirMessages() throws {
        let messages = try Self.recorded.map(Self.decode)
        guard case .engines(let listed) = messages[0] else {
            Issue.record("\(messages[0])")
            return
        }
        let ref = try #require(listed.first { $0.name == "ref" })
        #expect(ref.selector == "ref" && ref.features.contains(.source1) && ref.features.contains(.mainThread))
        guard case .engines(let described) = messages[1], let cf = described.first else {
            Issue.record("\(messages[1])")
            return
        }
        #expect(cf.name == "cf" && cf.features.contains(.blocks))
        guard case .fatal(let reason) = messages[2] else {
            Issue.record("\(messages[2])")
            return
        }
        #expect(reason.contains("/nonexistent.so"))
        #expect(messages[3] == .ready(engine: "ref"))
        let traces = messages.compactMap { message -> String? in
            if case .trace(let line) = message { return line } else { return nil }
        }
        let results = messages.compactMap { message -> WorkerMessage.Result? in
            if case .done(let result) = message { return result } else { return nil }
        }
        #expect(results.map(\.status) == [.pass, .pass, .error])
        #expect(
            results.map(\.id) == [
                "timer.due.fires-after-afterwaiting", "timer.due.several-fire-in-date-order",
                "no.such.case",
            ])
        #expect(results[2].detail == "the worker's spec has no case 'no.such.case'" && results[2].trace.isEmpty)
        #expect(traces == results[0].trace + results[1].trace)
    }

    @Test func aLineWithNoMemberOrTwoIsNotAMessage() {
        for line in [
            #"{}"#, #"{"other":1}"#, #"{"ready":"ref","trace":"x"}"#, #"{"ready":null}"#,
            #"{"done":{"id":"a","status":"LOST","trace":[],"seconds":0}}"#,
        ] {
            #expect(throws: DecodingError.self, "\(line)") { try Self.decode(line) }
        }
    }

    @Test func aNullMemberIsAbsentAndOtherMembersAreIgnored() throws {
        #expect(try Self.decode(#"{"ready":null,"trace":"fire t","extra":[1]}"#) == .trace("fire t"))
    }

    /// A feature this runner does not know (a worker built against a newer spec) is left out, not an error.
    @Test func anUnknownFeatureIsLeftOut() throws {
        let line =
            #"{"engines":[{"selector":"x","name":"x","features":["blocks","teleport"],"#
            + #""lacking":{"teleport":"no","stopMode":"old"}}]}"#
        guard case .engines(let engines) = try Self.decode(line) else {
            Issue.record("not engines")
            return
        }
        #expect(
            engines == [EngineDescription(selector: "x", name: "x", features: [.blocks], lacking: [.stopMode: "old"])])
    }
}
