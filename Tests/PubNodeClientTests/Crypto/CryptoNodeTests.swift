import Foundation
import PubNodeClient
import PubNodeTestSupport
import XCTest

/// Encrypted messages through a real node: stored and delivered as the SDKs' base64 strings.
final class CryptoNodeTests: XCTestCase {
    private func client(_ node: TestNode, _ module: CryptoModule?) -> PubNodeClient {
        PubNodeClient(configuration: PubNodeConfiguration(
            publishKey: "demo", subscribeKey: "demo", userId: "crypto", origin: "127.0.0.1:\(node.port)",
            requestTimeout: 5, cryptoModule: module))
    }

    func testPublishedCiphertextIsStoredAndDecryptedByEitherModule() async throws {
        let node = try await TestNode.start()
        let writer = client(node, .aesCbcCryptoModule(with: "key"))
        let message: JSONValue = ["text": "héllo", "n": 12_345_678_901_234]
        try await writer.publish(channel: "secret", message: message, shouldCompress: true)
        try await writer.publish(channel: "secret", message: "plain?")
        let raw = try await client(node, nil).fetchMessageHistory(for: ["secret"])["secret"] ?? []
        XCTAssertEqual(raw.count, 2)
        for item in raw {
            let text = try XCTUnwrap(item.payload.stringValue)
            XCTAssertEqual(Data(base64Encoded: text)?.prefix(4), Data("PNED".utf8))
        }
        let legacyReader = client(node, .legacyCryptoModule(with: "key"))
        let read = try await legacyReader.fetchMessageHistory(for: ["secret"])["secret"] ?? []
        XCTAssertEqual(read.map(\.payload), [message, "plain?"])
        XCTAssertTrue(read.allSatisfy { $0.decryptionError == nil })
        let wrong = try await client(node, .aesCbcCryptoModule(with: "other")).fetchMessageHistory(for: ["secret"])["secret"] ?? []
        XCTAssertEqual(wrong.map(\.payload), raw.map(\.payload), "undecryptable payloads come back as stored")
        XCTAssertTrue(wrong.allSatisfy { $0.decryptionError != nil })
        try await node.shutdown()
    }

    func testSubscriberDecryptsAndSignalsStayPlain() async throws {
        let node = try await TestNode.start()
        let module = CryptoModule.legacyCryptoModule(with: "key")
        let subscriber = client(node, module)
        let recorder = EventRecorder()
        subscriber.addListener(recorder)
        await subscribeConnected(subscriber, recorder, to: ["room"])
        let publisher = client(node, module)
        try await publisher.publish(channel: "room", message: ["a": [1, 2]] as JSONValue)
        try await publisher.signal(channel: "room", message: "typing")
        await waitUntil { recorder.messages.count == 1 && recorder.signals.count == 1 }
        XCTAssertEqual(recorder.messages.first?.payload, ["a": [1, 2]])
        XCTAssertEqual(recorder.signals.first?.payload, "typing")
        await subscriber.unsubscribeAll()
        try await node.shutdown()
    }
}
