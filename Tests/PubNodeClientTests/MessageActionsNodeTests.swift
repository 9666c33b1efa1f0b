import Foundation
import PubNodeClient
import PubNodeTestSupport
import XCTest

/// Message actions between two clients through a real node: calls, events and history.
final class MessageActionsNodeTests: XCTestCase {
    func testActionsRoundTripWithEventsAndHistory() async throws {
        let node = try await TestNode.start()
        let author = node.client(userId: "author")
        let reader = node.client(userId: "reader")
        let recorder = EventRecorder()
        reader.addListener(recorder)
        await subscribeConnected(reader, recorder, to: ["chat"])
        let message = try await author.publish(channel: "chat", message: "hello")
        let added = try await author.addMessageAction(channel: "chat", type: "reaction", value: "smiley",
                                                      messageTimetoken: message)
        XCTAssertEqual(added.uuid, "author")
        XCTAssertEqual(added.messageTimetoken, message)
        do {
            _ = try await author.addMessageAction(channel: "chat", type: "reaction", value: "smiley", messageTimetoken: message)
            XCTFail("a duplicate must be refused")
        } catch {
            XCTAssertEqual(error.status, 409)
        }
        await waitUntil { recorder.events.contains { if case .messageActionAdded = $0 { true } else { false } } }
        guard case .messageActionAdded(let seen)? = recorder.events.first(where: {
            if case .messageActionAdded = $0 { true } else { false }
        }) else { return XCTFail("no added event") }
        XCTAssertEqual([seen.type, seen.value, seen.uuid, seen.channel], ["reaction", "smiley", "author", "chat"])
        XCTAssertEqual(seen.actionTimetoken, added.actionTimetoken)

        let page = try await reader.fetchMessageActions(channel: "chat")
        XCTAssertEqual(page.actions.map(\.actionTimetoken), [added.actionTimetoken])
        let history = try await reader.fetchMessages(channels: ["chat"], includeActions: true)
        XCTAssertEqual(history["chat"]?.first?.actions["reaction"]?["smiley"]?.first?.uuid, "author")

        do {
            try await reader.removeMessageActions(channel: "chat", message: message, action: added.actionTimetoken)
            XCTFail("only the author may remove an action")
        } catch {
            XCTAssertEqual(error.status, 400)
        }
        try await author.removeMessageActions(channel: "chat", message: message, action: added.actionTimetoken)
        await waitUntil { recorder.events.contains { if case .messageActionRemoved = $0 { true } else { false } } }
        let after = try await reader.fetchMessageActions(channel: "chat")
        XCTAssertTrue(after.actions.isEmpty)
        await reader.unsubscribeAll()
        try await node.shutdown()
    }
}
