import Foundation
import PubNodeClient
import PubNodeTestSupport
import XCTest

/// A client's filter expression applied by a real node.
final class FilterExpressionNodeTests: XCTestCase {
    func testOnlyMatchingMessagesReachAFilteringClient() async throws {
        let node = try await TestNode.start()
        let publisher = node.client(userId: "pub")
        var configuration = PubNodeConfiguration(publishKey: "demo", subscribeKey: "demo", userId: "en-reader",
                                                 origin: node.origin, filterExpression: "meta.lang == 'en' && meta.score > 2")
        configuration.requestTimeout = 5
        let reader = PubNodeClient(configuration: configuration)
        let everything = node.client(userId: "all")
        let (filtered, unfiltered) = (EventRecorder(), EventRecorder())
        reader.addListener(filtered)
        everything.addListener(unfiltered)
        await subscribeConnected(reader, filtered, to: ["news"])
        await subscribeConnected(everything, unfiltered, to: ["news"])
        let sent: [(String, [String: JSONValue])] = [("fr", ["lang": "fr", "score": 9]), ("en-low", ["lang": "en", "score": 1]),
                                                      ("en", ["lang": "en", "score": 5]), ("none", [:])]
        for (text, meta) in sent {
            try await publisher.publish(channel: "news", message: text, meta: JSONValue.object(meta))
        }
        await waitUntil { unfiltered.messages.count == 4 }
        await waitUntil { filtered.messages.count >= 1 }
        XCTAssertEqual(filtered.messages.compactMap { try? $0.decode(String.self) }, ["en"])
        try await publisher.publish(channel: "news", message: "en-2", meta: ["lang": "en", "score": 3] as JSONValue)
        await waitUntil { filtered.messages.count == 2 }
        XCTAssertEqual(filtered.messages.compactMap { try? $0.decode(String.self) }, ["en", "en-2"],
                       "the cursor moved past the rejected messages: nothing is delivered twice or late")
        await reader.unsubscribeAll()
        await everything.unsubscribeAll()
        try await node.shutdown()
    }
}
