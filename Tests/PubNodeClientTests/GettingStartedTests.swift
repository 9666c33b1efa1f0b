import Foundation
import PubNodeClient
import PubNodeTestSupport
import XCTest

// The getting-started example of Docs/client.md, verbatim, so it keeps compiling.
struct ChatMessage: Codable, Sendable {
    var text: String
}

func gettingStarted(origin: String) async throws -> String {
    let client = PubNodeClient(configuration: PubNodeConfiguration(
        publishKey: "demo", subscribeKey: "demo", userId: "alice", origin: origin))

    let events = client.events()
    await client.subscribe(to: ["chat"], withPresence: true)

    var received: String?
    for await event in events {
        switch event {
        case .status(let change) where change.current == .connected:
            try await client.publish(channel: "chat", message: ChatMessage(text: "hello"))
        case .message(let message):
            received = try message.decode(ChatMessage.self).text
        case .presence(let presence):
            print("\(presence.uuid ?? "?") \(presence.action) \(presence.channel)")
        default:
            break
        }
        if received != nil { break }
    }

    let history = try await client.fetchMessageHistory(for: ["chat"], max: 10)
    print("stored:", history["chat"]?.count ?? 0)
    await client.unsubscribeAll()
    return received ?? ""
}
// End of the example.

/// Runs the documented example against a real node.
final class GettingStartedTests: XCTestCase {
    func testGettingStartedExampleRuns() async throws {
        let node = try await TestNode.start()
        let text = try await gettingStarted(origin: "127.0.0.1:\(node.port)")
        XCTAssertEqual(text, "hello")
        try await node.shutdown()
    }
}
