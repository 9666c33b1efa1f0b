import PubNodeCore
@testable import PubNodeServer
import Synchronization
import XCTest

/// A poll answered after a wake lets go of its registration through `release(woken:)` (which the
/// memory broker skips for one channel, since the wake already took it off); one answered
/// otherwise (here a closed connection; a deadline is covered by `ParkedPollReuseTests`) cancels
/// it everywhere.
final class WokenReleaseEndpointTests: XCTestCase {
    private func parked(_ node: EmbeddedNode, _ connection: Connection, channels: String, cursor: String) throws {
        try connection.send("GET /v2/subscribe/demo/\(channels)/0?uuid=u&tt=\(cursor)&tr=1 HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertNil(try connection.response(), "parked")
    }

    func testAWokenPollReleasesAsWokenAndAClosedOneCancels() throws {
        let broker = ReleaseCountingBroker()
        let node = EmbeddedNode(node: broker.node())
        let connection = try node.connect()
        let cursor = try node.handshake("room")
        try parked(node, connection, channels: "room", cursor: cursor)
        try node.publish("room", "\"hi\"")
        connection.runLoop()
        XCTAssertEqual(try connection.response()?.status, 200)
        XCTAssertEqual(broker.counts, .init(wokenReleases: 1, cancels: 0), "answered after the wake")
        XCTAssertEqual(broker.hub.waiterCount(on: "room"), 0, "and registered nowhere")

        let other = try node.connect()
        try parked(node, other, channels: "room", cursor: try node.handshake("room"))
        _ = try other.channel.close().wait()
        XCTAssertEqual(broker.counts, .init(wokenReleases: 1, cancels: 1), "a closed connection cancels")
        XCTAssertEqual(broker.hub.waiterCount(on: "room"), 0)
    }

    func testAWokenPollOfTwoChannelsIsReleasedFromTheOther() throws {
        let broker = ReleaseCountingBroker()
        let node = EmbeddedNode(node: broker.node())
        let connection = try node.connect()
        try parked(node, connection, channels: "a,b", cursor: try node.handshake("a"))
        try node.publish("a", "\"hi\"")
        connection.runLoop()
        XCTAssertEqual(try connection.response()?.status, 200)
        XCTAssertEqual(broker.counts.wokenReleases, 1)
        XCTAssertEqual(broker.hub.waiterCount(on: "b"), 0, "the wake on `a` left it on `b`; the release took it off")
    }
}

/// The demo keyset's memory broker, counting how parked polls are let go of.
private final class ReleaseCountingBroker: Broker {
    struct Counts: Equatable {
        var wokenReleases = 0
        var cancels = 0
    }

    private let hubs = MemoryHubs(limits: Limits(), clock: TimetokenClock())
    private let inner: MemoryBroker
    private let tally = Mutex(Counts())
    var counts: Counts { tally.withLock { $0 } }
    var hub: ChannelHub { hubs.open(.demo) }

    init() { inner = MemoryBroker(hubs: hubs) }

    /// A node on this broker and the same hubs' presence.
    func node() -> Node {
        Node(keysets: [.demo], limits: Limits(), broker: self, presence: MemoryPresence(hubs: hubs), clock: TimetokenClock())
    }

    func keyset(_ subscribeKey: String) -> (any KeysetBroker)? { inner.keyset(subscribeKey).map { Counting(inner: $0, owner: self) } }
    func open(_ keyset: Keyset) -> any KeysetBroker { Counting(inner: inner.open(keyset), owner: self) }
    func close(_ subscribeKey: String) { inner.close(subscribeKey) }
    var allKeysets: [any KeysetBroker] { inner.allKeysets }

    fileprivate func count(_ change: (inout Counts) -> Void) { tally.withLock { change(&$0) } }

    /// Forwards everything to the memory broker, counting `cancel` and `release(woken:)`.
    private struct Counting: KeysetBroker {
        let inner: any KeysetBroker
        let owner: ReleaseCountingBroker

        var subscribeKey: String { inner.subscribeKey }
        func publish(_ draft: PublishDraft, beforeDelivery: (PublishedMessage) -> Void) -> PublishedMessage {
            inner.publish(draft, beforeDelivery: beforeDelivery)
        }
        func park(_ waiter: any Waiter, on subscription: Subscription, after cursor: Timetoken,
                  kept: ChannelState?) -> DeliveryBatch? {
            inner.park(waiter, on: subscription, after: cursor, kept: kept)
        }
        func parkUnlessReady(_ waiter: any Waiter, on subscription: Subscription, after cursor: Timetoken,
                             kept: ChannelState?) -> Bool {
            inner.parkUnlessReady(waiter, on: subscription, after: cursor, kept: kept)
        }
        func channelState(for subscription: Subscription) -> ChannelState? { inner.channelState(for: subscription) }
        func read(_ subscription: Subscription, after cursor: Timetoken) -> DeliveryBatch { inner.read(subscription, after: cursor) }
        func cancel(_ waiter: any Waiter, on subscription: Subscription, kept: ChannelState?) {
            owner.count { $0.cancels += 1 }
            inner.cancel(waiter, on: subscription, kept: kept)
        }
        func release(woken waiter: any Waiter, on subscription: Subscription) {
            owner.count { $0.wokenReleases += 1 }
            inner.release(woken: waiter, on: subscription)
        }
        func addChannels(_ channels: [String], toGroup group: String) throws(PubNodeError) {
            try inner.addChannels(channels, toGroup: group)
        }
        func removeChannels(_ channels: [String], fromGroup group: String) throws(PubNodeError) {
            try inner.removeChannels(channels, fromGroup: group)
        }
        func deleteGroup(_ group: String) throws(PubNodeError) { try inner.deleteGroup(group) }
        func channels(inGroup group: String) throws(PubNodeError) -> [String] { try inner.channels(inGroup: group) }
        func groupNames() -> [String] { inner.groupNames() }
        func restore(_ messages: [PublishedMessage]) -> Int { inner.restore(messages) }
        func sweep() -> ChannelSweepReport { inner.sweep() }
        func statistics(busiest: Int) -> BrokerStatistics { inner.statistics(busiest: busiest) }
    }
}
