import XCTest
@testable import PubNodeCore

/// A message's filter document: parsed lazily, once, and only messages and signals are filtered.
final class FilterDocumentTests: XCTestCase {
    private func message(_ payload: String, meta: String? = nil, kind: MessageKind = .message) -> PublishedMessage {
        let draft = PublishDraft(channel: "c", payload: Array(payload.utf8), meta: meta.map { Array($0.utf8) }, kind: kind)
        return PublishedMessage(draft: draft, timetoken: Timetoken(1), subscribeKey: "demo", region: 1, publishedAtNanoseconds: 0)
    }

    func testTheDocumentIsParsedOnFirstUseAndThenShared() throws {
        let sent = message(#"{"n":1}"#, meta: #"{"lang":"en"}"#)
        XCTAssertNil(sent.filterDocumentCache.load(), "nothing is parsed before a filter reads the message")
        let filter = try FilterExpression.compile("meta.lang == 'en' && data.n == 1", mode: .message)
        XCTAssertTrue(sent.passes(filter))
        let first = try XCTUnwrap(sent.filterDocumentCache.load())
        XCTAssertTrue(sent.passes(filter))
        XCTAssertTrue(first === sent.filterDocumentCache.load(), "the second evaluation reuses the parsed document")
        XCTAssertEqual(sent.filterDocument, .object(["meta": .object(["lang": .string("en")]), "data": .object(["n": .number(1)])]))
    }

    func testWithoutMetaTheDocumentHasNullMeta() {
        XCTAssertEqual(message("\"x\"").filterDocument, .object(["meta": .null, "data": .string("x")]))
    }

    func testOnlyMessagesAndSignalsAreFiltered() throws {
        let filter = try FilterExpression.compile("meta.lang == 'en'", mode: .message)
        XCTAssertFalse(message("1").passes(filter))
        XCTAssertFalse(message("1", kind: .signal).passes(filter))
        for kind in [MessageKind.presence, .object, .messageAction] {
            let event = message("1", kind: kind)
            XCTAssertTrue(event.passes(filter), "\(kind)")
            XCTAssertNil(event.filterDocumentCache.load())
        }
    }
}
