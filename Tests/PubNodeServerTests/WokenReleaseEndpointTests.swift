import PubNodeCore
import PubNodeTestSupport
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

    /// A broker may keep no channel state for a poll (`KeysetBroker.channelState(for:)` nil): its
    /// one-channel polls then share no answers and are answered each on its own, whether they wait
    /// for a publish or find messages when they arrive, with every message and a cursor past it.
    /// The handler tells a poll that may share by its kept state, so these never take the sharing
    /// polls' way in (`parkUnlessReady`, which only asks whether messages are there).
    func testOneChannelPollsOfABrokerKeepingNoStateAreAnsweredEachOnItsOwn() throws {
        let broker = ReleaseCountingBroker(keepsChannelStates: false)
        XCTAssertNil(broker.open(.demo).channelState(for: Subscription(channels: ["room"])))
        let node = EmbeddedNode(node: broker.node())
        let cursor = try node.handshake("room")
        let first = try node.connect(), second = try node.connect()
        try parked(node, first, channels: "room", cursor: cursor)
        try parked(node, second, channels: "room", cursor: cursor)
        let published = try node.publish("room", "\"hi\"")
        first.runLoop()
        second.runLoop()
        for connection in [first, second] {
            let answer = try XCTUnwrap(connection.response())
            XCTAssertEqual(answer.status, 200)
            XCTAssertEqual(answer.messagePayloads?.map { $0?.stringValue }, ["hi"])
            XCTAssertEqual(answer.json["t"]?["t"]?.stringValue, published)
        }
        XCTAssertEqual(broker.counts.wokenReleases, 2)
        XCTAssertEqual(broker.hub.waiterCount(on: "room"), 0, "registered nowhere")

        // A poll from before the message finds it at once.
        let late = try node.connect()
        try late.send("GET /v2/subscribe/demo/room/0?uuid=v&tt=\(cursor)&tr=1 HTTP/1.1\r\nHost: x\r\n\r\n")
        late.runLoop()
        let answer = try XCTUnwrap(late.response())
        XCTAssertEqual(answer.messagePayloads?.map { $0?.stringValue }, ["hi"])
        XCTAssertEqual(broker.hub.waiterCount(on: "room"), 0)
        XCTAssertEqual(broker.parksUnlessReady, 0, "parked and read as polls that share nothing")
    }

    func testOneChannelPollsOfABrokerKeepingStatesAskBeforeTheyRead() throws {
        let broker = ReleaseCountingBroker()
        let node = EmbeddedNode(node: broker.node())
        let connection = try node.connect()
        try parked(node, connection, channels: "room", cursor: try node.handshake("room"))
        XCTAssertEqual(broker.parksUnlessReady, 1, "a poll that may share only asks")
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
    private let asked = Atomic<Int>(0)
    /// How many times a poll was parked through `parkUnlessReady`.
    var parksUnlessReady: Int { asked.load(ordering: .relaxed) }
    /// Whether its keysets give polls a channel state to keep (the memory broker's do).
    let keepsChannelStates: Bool
    var counts: Counts { tally.withLock { $0 } }
    var hub: ChannelHub { hubs.open(.demo) }

    init(keepsChannelStates: Bool = true) {
        inner = MemoryBroker(hubs: hubs)
        self.keepsChannelStates = keepsChannelStates
    }

    /// A node on this broker and the same hubs' presence.
    func node() -> Node {
        Node(keysets: [.demo], limits: Limits(), broker: self, presence: MemoryPresence(hubs: hubs), clock: TimetokenClock())
    }

    func keyset(_ subscribeKey: String) -> (any KeysetBroker)? { inner.keyset(subscribeKey).map { Counting(inner: $0, owner: self) } }
    func open(_ keyset: Keyset) -> any KeysetBroker { Counting(inner: inner.open(keyset), owner: self) }
    func close(_ subscribeKey: String) { inner.close(subscribeKey) }
    var allKeysets: [any KeysetBroker] { inner.allKeysets }

    fileprivate func count(_ change: (inout Counts) -> Void) { tally.withLock { change(&$0) } }
    fileprivate func countAsked() { asked.add(1, ordering: .relaxed) }

    /// Forwards everything to the memory broker, counting `cancel` and `release(woken:)`.
    private struct Counting: ForwardingKeysetBroker {
        let inner: any KeysetBroker
        let owner: ReleaseCountingBroker

        func channelState(for subscription: Subscription) -> ChannelState? {
            owner.keepsChannelStates ? inner.channelState(for: subscription) : nil
        }
        func parkUnlessReady(_ waiter: any Waiter, on subscription: Subscription, after cursor: Timetoken,
                             kept: ChannelState?) -> Bool {
            owner.countAsked()
            return inner.parkUnlessReady(waiter, on: subscription, after: cursor, kept: kept)
        }
        func cancel(_ waiter: any Waiter, on subscription: Subscription, kept: ChannelState?) {
            owner.count { $0.cancels += 1 }
            inner.cancel(waiter, on: subscription, kept: kept)
        }
        func release(woken waiter: any Waiter, on subscription: Subscription, kept: ChannelState?) {
            owner.count { $0.wokenReleases += 1 }
            inner.release(woken: waiter, on: subscription, kept: kept)
        }
    }
}
