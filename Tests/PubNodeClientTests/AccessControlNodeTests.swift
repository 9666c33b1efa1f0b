import Foundation
import PubNodeClient
import PubNodeCore
import PubNodeTestSupport
import XCTest

/// The client library against a real node with Access Manager: a backend vends tokens, users
/// carry them, refusals stop a subscription with their cause, tenants are created at run time.
final class AccessControlNodeTests: XCTestCase {
    private let admin = "admin-token-0123456789"

    private func client(_ node: TestNode, userId: String, token: String? = nil, secret: String? = nil,
                        keys: (String, String) = ("pub-am", "sub-am")) -> PubNodeClient {
        PubNodeClient(configuration: PubNodeConfiguration(
            publishKey: keys.0, subscribeKey: keys.1, userId: userId, origin: node.origin, requestTimeout: 5,
            retryPolicy: RetryPolicy(initialDelay: 0.05, maximumDelay: 0.5), authToken: token, secretKey: secret))
    }

    func testABackendVendsTokensThatGrantExactlyWhatTheySay() async throws {
        let node = try await TestNode.start(keysets: [PubNodeCore.Keyset(publishKey: "pub-am", subscribeKey: "sub-am", secretKey: "sec-am")],
                                            adminToken: admin)
        let backend = client(node, userId: "backend", secret: "sec-am")
        let token = try await backend.grantToken(ttl: 5, authorizedUUID: "alice",
                                                 resources: TokenResources(channels: ["room": [.read, .write]]))
        let parsed = try PubNodeClient.parse(token: token)
        XCTAssertEqual(parsed.authorizedUUID, "alice")
        XCTAssertEqual(parsed.resources.channels["room"], [.read, .write])

        let alice = client(node, userId: "alice", token: token)
        _ = try await alice.publish(channel: "room", message: "hi" as JSONValue)
        do {
            _ = try await alice.publish(channel: "elsewhere", message: "no" as JSONValue)
            XCTFail("published without permission")
        } catch {
            XCTAssertEqual(error, .accessDenied(AccessDenial(message: "Forbidden", channels: ["elsewhere"], channelGroups: [])))
        }
        let mallory = client(node, userId: "mallory", token: token)
        await XCTAssertThrowsAsync { _ = try await mallory.publish(channel: "room", message: "no" as JSONValue) }

        let recorder = EventRecorder()
        alice.addListener(recorder)
        await alice.subscribe(to: ["room", "secret-room"])
        await waitUntil(5, "refused") { await alice.connectionStatus == .disconnectedUnexpectedly }
        XCTAssertTrue(recorder.events.contains(.error(.accessDenied(AccessDenial(message: "Forbidden", channels: ["secret-room"],
                                                                                 channelGroups: [])))), "\(recorder.events)")

        try await backend.revokeToken(token)
        await XCTAssertThrowsAsync { _ = try await alice.publish(channel: "room", message: "revoked" as JSONValue) }
        alice.set(token: try await backend.grantToken(ttl: 5, authorizedUUID: "alice",
                                                      resources: TokenResources(channels: ["room": [.write]])))
        _ = try await alice.publish(channel: "room", message: "fresh token" as JSONValue)
        try await node.shutdown()
    }

    func testTenantsAreCreatedAndIsolatedThroughTheAdminAPI() async throws {
        let node = try await TestNode.start(adminToken: admin)
        let operatorClient = client(node, userId: "ops", keys: ("demo", "demo"))
        let a = try await operatorClient.createKeyset(adminToken: admin, accessManager: true)
        let b = try await operatorClient.createKeyset(adminToken: admin, accessManager: true, appContextEvents: true)
        XCTAssertFalse(a.appContextEvents)
        XCTAssertTrue(b.appContextEvents)
        let listed = try await operatorClient.listKeysets(adminToken: admin)
        XCTAssertEqual(listed.first { $0.subscribeKey == b.subscribeKey }?.appContextEvents, true)
        XCTAssertEqual(Set(listed.map(\.subscribeKey)), ["demo", a.subscribeKey, b.subscribeKey])
        XCTAssertTrue(listed.allSatisfy { $0.secretKey == nil }, "secrets are shown once")
        let ownerA = client(node, userId: "owner", secret: a.secretKey, keys: (a.publishKey, a.subscribeKey))
        let token = try await ownerA.grantToken(ttl: 5, resources: TokenResources(channels: ["c": [.write]]))
        _ = try await client(node, userId: "u", token: token, keys: (a.publishKey, a.subscribeKey))
            .publish(channel: "c", message: 1 as JSONValue)
        await XCTAssertThrowsAsync {
            _ = try await self.client(node, userId: "u", token: token, keys: (b.publishKey, b.subscribeKey))
                .publish(channel: "c", message: 1 as JSONValue)
        }
        _ = try await operatorClient.deleteKeyset(adminToken: admin, subscribeKey: a.subscribeKey)
        await XCTAssertThrowsAsync {
            _ = try await self.client(node, userId: "u", token: token, keys: (a.publishKey, a.subscribeKey))
                .publish(channel: "c", message: 1 as JSONValue)
        }
        try await node.shutdown()
    }

    private func XCTAssertThrowsAsync(_ body: () async throws -> Void, file: StaticString = #filePath, line: UInt = #line) async {
        do {
            try await body()
            XCTFail("expected a refusal", file: file, line: line)
        } catch {}
    }
}
