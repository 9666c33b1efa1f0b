import PubNodeCore
import XCTest

/// Hostile and malformed expressions are refused with a `FilterError` (or evaluated quickly),
/// never a crash or a stack overflow.
final class FilterHostileInputTests: XCTestCase {
    private func refused(_ text: String, containing part: String? = nil, line: UInt = #line) {
        do {
            _ = try FilterExpression.compile(text, mode: .message)
            XCTFail("accepted: \(text.prefix(80))", line: line)
        } catch {
            XCTAssertFalse(error.reason.isEmpty, line: line)
            if let part { XCTAssertTrue(error.reason.contains(part), error.reason, line: line) }
        }
    }

    func testMalformedExpressionsAreRefused() {
        for text in ["", "   ", "meta.a ==", "== 1", "meta.a = 1", "meta.a == 'x", #"meta.a == "x"#, "(meta.a == 1",
                     "meta.a == 1)", "meta.a == 1 == 2", "meta.a LIKE meta.b", "meta.a LIKE", "meta.", "meta.a[",
                     "meta.a[-1] == 1", "meta.a[1.5] == 1", "meta.a['k' == 1", "meta.a && && meta.b", "#", "meta.a == 1 ;",
                     "1e999 == 1", "meta.a == 'x' meta.b", "meta.a like 'x' like 'y'", "meta.a contains"] {
            refused(text)
        }
        refused("meta.a == 'x", containing: "unterminated")
        refused("meta.a = 1", containing: "==")
    }

    func testDeepNestingIsRefusedBeforeRecursing() {
        refused(String(repeating: "(", count: 10_000) + "meta.a == 1" + String(repeating: ")", count: 10_000),
                containing: "bytes")
        refused(String(repeating: "(", count: 1_000) + "a==1" + String(repeating: ")", count: 1_000), containing: "nested")
        refused(String(repeating: "(", count: 33) + "a==1" + String(repeating: ")", count: 33), containing: "nested")
        refused(String(repeating: "!", count: 40) + "a", containing: "nested")
        refused(String(repeating: "-", count: 40) + "1 == 1", containing: "nested")
        XCTAssertNoThrow(try FilterExpression.compile(String(repeating: "(", count: 31) + "a==1" + String(repeating: ")", count: 31),
                                                      mode: .message))
    }

    func testSizeBoundsAreEnforced() {
        refused("meta.a == '" + String(repeating: "x", count: 1 << 20) + "'", containing: "bytes")
        refused("meta.a == '" + String(repeating: "x", count: 1_025) + "'", containing: "1024")
        XCTAssertNoThrow(try FilterExpression.compile("meta.a == '" + String(repeating: "x", count: 1_000) + "'", mode: .message))
        refused(Array(repeating: "a==1", count: 100_000).joined(separator: "&&"), containing: "bytes")
        refused(Array(repeating: "a==1", count: 300).joined(separator: "&&").replacingOccurrences(of: "a==1", with: "a"),
                containing: "nodes")
        refused("a" + String(repeating: ".b", count: 40) + " == 1", containing: "path")
    }

    func testGarbageBytesAndNULAreRefused() {
        refused("meta.a == 1\u{0}", containing: "NUL")
        refused("meta.a == '\u{0}'", containing: "NUL")
        refused("\u{1}\u{2}\u{FF}\u{7F}")
        refused("méta == 1")
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let bytes = (0..<Int.random(in: 1...64, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let text = String(decoding: bytes, as: UTF8.self)
            if let filter = try? FilterExpression.compile(text, mode: .message) { _ = filter.matches(.null) }
        }
    }

    func testPathologicalLikePatternsStayLinear() throws {
        let text = String(repeating: "a", count: 200_000)
        let document = FilterValue.object(["meta": .object(["t": .string(text)]), "data": .null])
        let pattern = "*" + String(repeating: "a*", count: 400) + "b"
        let filter = try FilterExpression.compile("meta.t LIKE '\(pattern)'", mode: .message)
        let clock = ContinuousClock()
        let elapsed = clock.measure { XCTAssertFalse(filter.matches(document)) }
        XCTAssertLessThan(elapsed, .seconds(2))
        let open = try FilterExpression.compile("meta.t LIKE '*\(String(repeating: "a*", count: 400))b*'", mode: .message)
        XCTAssertLessThan(clock.measure { XCTAssertFalse(open.matches(document)) }, .seconds(2))
        let contains = try FilterExpression.compile("meta.t CONTAINS '\(String(repeating: "a", count: 1_000))b'", mode: .message)
        XCTAssertLessThan(clock.measure { XCTAssertFalse(contains.matches(document)) }, .seconds(2))
        let matching = try FilterExpression.compile("meta.t LIKE '*aaa*aaa*'", mode: .message)
        XCTAssertTrue(matching.matches(document))
    }
}

/// The work of one evaluation and the size of what a filter reads are bounded.
final class FilterEvaluationBoundsTests: XCTestCase {
    func testAnExpensiveFilterOverALargeStringStopsAtItsBudgetWithoutMatching() throws {
        let terms = (0..<120).map { _ in "t LIKE '*z*'" }.joined(separator: " || ")
        let filter = try FilterExpression.compile(terms, mode: .message)
        let large = FilterValue.object(["meta": .object(["t": .string(String(repeating: "a", count: 32_000))])])
        XCTAssertFalse(filter.matches(large), "the budget runs out before any term matches")
        let negated = try FilterExpression.compile("!(" + terms + ")", mode: .message)
        XCTAssertFalse(negated.matches(large), "a spent budget is no answer: its negation does not match either")
        let small = FilterValue.object(["meta": .object(["t": .string("xyz")])])
        XCTAssertTrue(filter.matches(small), "within the budget the filter works as written")
    }

    func testOnlyBoundedMetaAndPayloadsAreRead() throws {
        let filter = try FilterExpression.compile("meta.k == 'v' || data.k == 'v'", mode: .message)
        let padding = String(repeating: "x", count: PublishedMessage.maxFilteredBytes)
        let big = PublishedMessage(draft: PublishDraft(channel: "c", payload: Array(#"{"k":"v","p":"\#(padding)"}"#.utf8),
                                                       meta: Array(#"{"k":"v","p":"\#(padding)"}"#.utf8)),
                                   timetoken: Timetoken(1), subscribeKey: "demo", region: 1, publishedAtNanoseconds: 0)
        XCTAssertFalse(big.passes(filter), "meta and payload over the bound read as null")
        let small = PublishedMessage(draft: PublishDraft(channel: "c", payload: Array(#"{"k":"v"}"#.utf8)),
                                     timetoken: Timetoken(2), subscribeKey: "demo", region: 1, publishedAtNanoseconds: 0)
        XCTAssertTrue(small.passes(filter))
    }
}
