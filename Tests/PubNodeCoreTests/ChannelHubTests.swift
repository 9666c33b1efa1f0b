import Dispatch
@testable import PubNodeCore
import PubNodeTestSupport
import Synchronization
import XCTest

final class ChannelHubTests: XCTestCase {
    private let wall = ManualClock()
    private lazy var hub = ChannelHub(subscribeKey: "demo", limits: Limits(), clock: TimetokenClock(wall: wall))

    private func smallHub(messagesPerResponse: Int = 5, bufferSize: Int = 100) -> ChannelHub {
        Fixture.smallHub(messagesPerResponse: messagesPerResponse, bufferSize: bufferSize, clock: wall)
    }

    @discardableResult
    private func publish(_ channel: String, _ payload: String = "1", on target: ChannelHub? = nil) -> ChannelHub.PublishOutcome {
        (target ?? hub).publish(Fixture.draft(channel, payload))
    }

    // MARK: Publish

    func testPublishReturnsIncreasingTimetokensFromTheClock() {
        let first = publish("a").message.timetoken
        let second = publish("b").message.timetoken
        let third = publish("a").message.timetoken
        XCTAssertEqual(first.rawValue, ManualClock.start / 100)
        XCTAssertEqual(second.rawValue, first.rawValue + 1)
        XCTAssertEqual(third.rawValue, first.rawValue + 2)
        wall.advance(seconds: 1)
        XCTAssertEqual(publish("a").message.timetoken.rawValue, (ManualClock.start + 1_000_000_000) / 100)
    }

    func testPublishedMessageCarriesTheDraft() {
        let outcome = hub.publish(PublishDraft(channel: "room", payload: Fixture.bytes("{\"n\":1}"), meta: Fixture.bytes("{\"m\":2}"),
                                               publisher: "alice", kind: .signal, customMessageType: "chat", store: false,
                                               ttlHours: 5))
        let message = outcome.message
        XCTAssertEqual(message.channel, "room")
        XCTAssertEqual(Array(message.payload), Fixture.bytes("{\"n\":1}"))
        XCTAssertEqual(message.meta.map(Array.init), Fixture.bytes("{\"m\":2}"))
        XCTAssertEqual(message.publisher, "alice")
        XCTAssertEqual(message.kind, .signal)
        XCTAssertEqual(message.customMessageType, "chat")
        XCTAssertFalse(message.store)
        XCTAssertEqual(message.ttlHours, 5)
        XCTAssertEqual(message.publishedAtNanoseconds, ManualClock.start)
        XCTAssertTrue(outcome.waiters.isEmpty)
    }

    func testCurrentTimetokenIsTheHandshakeCursor() {
        let cursor = hub.currentTimetoken()
        XCTAssertEqual(cursor.rawValue, ManualClock.start / 100)
        let sent = publish("a")
        XCTAssertGreaterThan(sent.message.timetoken, cursor, "a message published after the handshake is after its cursor")
        let result = hub.collect(Fixture.subscription(["a"]), after: cursor)
        XCTAssertEqual(result.deliveries.timetokens, [sent.message.timetoken])
    }

    func testBufferKeepsOnlyTheLatestBufferSizeMessages() {
        let hub = smallHub(messagesPerResponse: 100, bufferSize: 3)
        for index in 1...5 { publish("a", "\(index)", on: hub) }
        let result = hub.collect(Fixture.subscription(["a"]), after: .zero)
        XCTAssertEqual(result.deliveries.payloads, ["3", "4", "5"])
    }

    // MARK: Park and wake

    func testParkReturnsNilWhenNothingIsNewerAndAPublishReturnsTheWaiter() {
        let cursor = publish("a").message.timetoken
        let waiter = TestWaiter()
        let subscription = Fixture.subscription(["a"])
        XCTAssertNil(hub.park(waiter, on: subscription, after: cursor))

        let outcome = publish("a", "2")
        XCTAssertEqual(outcome.waiters.occurrences(of: waiter), 1)
        XCTAssertEqual(waiter.wakeCount, 0, "the hub hands waiters back; waking them is the caller's job")
        outcome.waiters.forEach { $0.wake() }
        XCTAssertEqual(waiter.wakeCount, 1)

        let result = hub.collect(subscription, after: cursor)
        XCTAssertEqual(result.deliveries.payloads, ["2"])
        XCTAssertEqual(result.next, outcome.message.timetoken)
    }

    func testAWokenWaiterIsNotReturnedAgainUntilItParksAgain() {
        let waiter = TestWaiter()
        let subscription = Fixture.subscription(["a"])
        XCTAssertNil(hub.park(waiter, on: subscription, after: hub.currentTimetoken()))
        XCTAssertTrue(publish("a").waiters.includes(waiter))
        XCTAssertFalse(publish("a").waiters.includes(waiter))
    }

    func testPublishToAnotherChannelDoesNotReturnTheWaiter() {
        let waiter = TestWaiter()
        XCTAssertNil(hub.park(waiter, on: Fixture.subscription(["a"]), after: hub.currentTimetoken()))
        XCTAssertFalse(publish("b").waiters.includes(waiter))
        XCTAssertFalse(publish("a.b").waiters.includes(waiter))
        XCTAssertTrue(publish("a").waiters.includes(waiter))
    }

    func testParkAfterAPublishReturnsTheReadyMessageAtOnceAndDoesNotStayParked() throws {
        let cursor = hub.currentTimetoken()
        let sent = publish("a", "\"ready\"")
        let waiter = TestWaiter()
        let subscription = Fixture.subscription(["a"])
        let ready = try XCTUnwrap(hub.park(waiter, on: subscription, after: cursor))
        XCTAssertEqual(ready.deliveries.payloads, ["\"ready\""])
        XCTAssertEqual(ready.next, sent.message.timetoken)
        XCTAssertFalse(publish("a").waiters.includes(waiter), "a waiter answered at once is not left registered")
    }

    func testCancelRemovesTheWaiter() {
        let waiter = TestWaiter()
        let other = TestWaiter()
        let subscription = Fixture.subscription(["a", "b.*"], groups: ["g"])
        XCTAssertNoThrow(try hub.addChannels(["c"], toGroup: "g"))
        let cursor = hub.currentTimetoken()
        XCTAssertNil(hub.park(waiter, on: subscription, after: cursor))
        XCTAssertNil(hub.park(other, on: subscription, after: cursor))
        hub.cancel(waiter, on: subscription)
        for channel in ["a", "b.x", "c"] {
            let woken = publish(channel).waiters
            XCTAssertFalse(woken.includes(waiter), "cancelled waiter woken by \(channel)")
            XCTAssertTrue(woken.includes(other), "other waiter not woken by \(channel)")
            XCTAssertNil(hub.park(other, on: subscription, after: hub.currentTimetoken()))
        }
    }

    func testCancelOfAnUnknownSubscriptionIsHarmless() {
        hub.cancel(TestWaiter(), on: Fixture.subscription(["never", "x.*"], groups: ["nobody"]))
        XCTAssertEqual(hub.channelCount, 0)
    }

    // MARK: Collect

    func testCollectWithNothingReadyReturnsTheCursorItself() {
        publish("a")
        let cursor = Timetoken(ManualClock.start / 100 + 999)
        for channels in [["a", "never"], ["a"], ["never"], ["a.*"]] {
            let result = hub.collect(Fixture.subscription(channels), after: cursor)
            XCTAssertTrue(result.deliveries.isEmpty, "\(channels)")
            XCTAssertEqual(result.next, cursor, "\(channels)")
        }
    }

    func testCollectCapsAtMessagesPerResponseAndContinuesWithoutLossOrDuplication() {
        let hub = smallHub(messagesPerResponse: 5)
        let start = hub.currentTimetoken()
        let sent = (1...12).map { publish("a", "\($0)", on: hub).message.timetoken }
        let subscription = Fixture.subscription(["a"])

        let first = hub.collect(subscription, after: start)
        XCTAssertEqual(first.deliveries.timetokens, Array(sent[0..<5]))
        XCTAssertEqual(first.next, sent[4], "next is the last delivered timetoken")
        let second = hub.collect(subscription, after: first.next)
        XCTAssertEqual(second.deliveries.timetokens, Array(sent[5..<10]))
        XCTAssertEqual(second.next, sent[9])
        let third = hub.collect(subscription, after: second.next)
        XCTAssertEqual(third.deliveries.timetokens, Array(sent[10..<12]))
        XCTAssertEqual(third.next, sent[11])
        let done = hub.collect(subscription, after: third.next)
        XCTAssertTrue(done.deliveries.isEmpty)
        XCTAssertEqual(done.next, sent[11])
    }

    func testPagingAcrossManyTopicsDeliversEverythingOnceInOrder() throws {
        let hub = smallHub(messagesPerResponse: 5)
        try hub.addChannels(["g1", "g2"], toGroup: "grp")
        let start = hub.currentTimetoken()
        let channels = ["a", "b", "w.x", "g1", "w.y.z", "g2", "a"]
        var sent: [Timetoken] = []
        for round in 0..<4 {
            for channel in channels { sent.append(publish(channel, "\(round)", on: hub).message.timetoken) }
        }
        publish("elsewhere", on: hub)
        let subscription = Fixture.subscription(["b", "a", "w.*"], groups: ["grp"])
        var received: [Timetoken] = []
        var cursor = start
        var pages = 0
        while true {
            let page = hub.collect(subscription, after: cursor)
            if page.deliveries.isEmpty { break }
            XCTAssertLessThanOrEqual(page.deliveries.count, 5)
            XCTAssertEqual(page.next, page.deliveries.last?.message.timetoken)
            received += page.deliveries.timetokens
            cursor = page.next
            pages += 1
            if pages > 100 { return XCTFail("paging does not terminate") }
        }
        XCTAssertEqual(received, sent)
        XCTAssertEqual(pages, 6)
    }

    func testMultiplexedChannelsAreMergedInTimetokenOrder() {
        let start = hub.currentTimetoken()
        let order = ["a", "b", "c", "a", "b", "c", "c", "a"]
        let sent = order.enumerated().map { publish($1, "\($0)").message.timetoken }
        let result = hub.collect(Fixture.subscription(["c", "b", "a"]), after: start)
        XCTAssertEqual(result.deliveries.timetokens, sent)
        XCTAssertEqual(result.deliveries.channels, order)
        XCTAssertTrue(result.deliveries.allSatisfy { $0.match == nil })
    }

    func testMultiplexedParkIsWokenByAnyOfItsChannels() {
        let subscription = Fixture.subscription(["a", "b"])
        for channel in ["a", "b"] {
            let waiter = TestWaiter()
            XCTAssertNil(hub.park(waiter, on: subscription, after: hub.currentTimetoken()))
            XCTAssertTrue(publish(channel).waiters.includes(waiter), "not woken by \(channel)")
        }
    }

    // MARK: Wildcards

    func testWildcardOneLevelMatchesDeeperChannelsButNotLookalikes() {
        let start = hub.currentTimetoken()
        for channel in ["a.b", "ab.c", "a", "b.a", "a.b.c", "a.b.c.d", "aa.b"] { publish(channel, "\"\(channel)\"") }
        let result = hub.collect(Fixture.subscription(["a.*"]), after: start)
        XCTAssertEqual(result.deliveries.channels, ["a.b", "a.b.c", "a.b.c.d"])
        XCTAssertTrue(result.deliveries.allSatisfy { $0.match == "a.*" })
    }

    func testWildcardTwoLevels() {
        let start = hub.currentTimetoken()
        for channel in ["a.b.c", "a.c", "a.b", "a.bc.d", "a.b.c.d", "x.b.c"] { publish(channel) }
        let result = hub.collect(Fixture.subscription(["a.b.*"]), after: start)
        XCTAssertEqual(result.deliveries.channels, ["a.b.c", "a.b.c.d"])
        XCTAssertTrue(result.deliveries.allSatisfy { $0.match == "a.b.*" })
    }

    func testWildcardWaiterIsWokenOnlyByMatchingChannels() {
        let subscription = Fixture.subscription(["a.*"])
        let waiter = TestWaiter()
        XCTAssertNil(hub.park(waiter, on: subscription, after: hub.currentTimetoken()))
        XCTAssertFalse(publish("ab.c").waiters.includes(waiter))
        XCTAssertFalse(publish("a").waiters.includes(waiter))
        XCTAssertTrue(publish("a.b.c").waiters.includes(waiter))
    }

    func testWildcardSeesChannelsCreatedAfterTheWaiterParked() {
        let subscription = Fixture.subscription(["news.*"])
        let cursor = hub.currentTimetoken()
        let waiter = TestWaiter()
        XCTAssertNil(hub.park(waiter, on: subscription, after: cursor))
        let outcome = publish("news.brand-new")
        XCTAssertTrue(outcome.waiters.includes(waiter))
        XCTAssertEqual(hub.collect(subscription, after: cursor).deliveries.channels, ["news.brand-new"])
    }

    // MARK: Matches and de-duplication

    func testDeliveryMatchNamesTheWildcardOrGroupAndIsNilForDirect() throws {
        try hub.addChannels(["g.member"], toGroup: "grp")
        let start = hub.currentTimetoken()
        publish("direct")
        publish("w.one")
        publish("g.member")
        let result = hub.collect(Fixture.subscription(["direct", "w.*"], groups: ["grp"]), after: start)
        let matches = Dictionary(uniqueKeysWithValues: result.deliveries.map { ($0.message.channel, $0.match) })
        XCTAssertEqual(matches.count, 3)
        XCTAssertEqual(matches["direct"], .some(nil))
        XCTAssertEqual(matches["w.one"], .some("w.*"))
        XCTAssertEqual(matches["g.member"], .some("grp"))
    }

    func testAMessageReachableDirectlyAndThroughAGroupIsDeliveredOnce() throws {
        try hub.addChannels(["x"], toGroup: "g")
        let start = hub.currentTimetoken()
        let sent = publish("x")
        let result = hub.collect(Fixture.subscription(["x"], groups: ["g"]), after: start)
        XCTAssertEqual(result.deliveries.timetokens, [sent.message.timetoken])
        XCTAssertNil(result.deliveries.first?.match, "a direct subscription wins over the group")
    }

    func testAMessageReachableThroughEveryKindOfTopicIsDeliveredOnce() throws {
        try hub.addChannels(["a.b.c"], toGroup: "g1")
        try hub.addChannels(["a.b.c"], toGroup: "g2")
        let start = hub.currentTimetoken()
        let sent = publish("a.b.c")
        let subscription = Fixture.subscription(["a.b.c", "a.*", "a.b.*"], groups: ["g1", "g2"])
        let result = hub.collect(subscription, after: start)
        XCTAssertEqual(result.deliveries.timetokens, [sent.message.timetoken])

        let waiter = TestWaiter()
        XCTAssertNil(hub.park(waiter, on: subscription, after: sent.message.timetoken))
        let woken = publish("a.b.c").waiters
        XCTAssertGreaterThanOrEqual(woken.occurrences(of: waiter), 1)
        let again = hub.collect(subscription, after: sent.message.timetoken)
        XCTAssertEqual(again.deliveries.count, 1)
    }
}
