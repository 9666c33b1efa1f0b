import Dispatch
@testable import PubNodeCore
import PubNodeTestSupport
import Synchronization
import XCTest

final class ChannelHubTests: XCTestCase {
    private let wall = ManualClock()
    private lazy var hub = ChannelHub(subscribeKey: "demo", limits: Limits(), clock: TimetokenClock(wall: wall))

    private func smallHub(messagesPerResponse: Int = 5, bufferSize: Int = 100) -> ChannelHub {
        var limits = Limits()
        limits.messagesPerResponse = messagesPerResponse
        limits.bufferSize = bufferSize
        return ChannelHub(subscribeKey: "demo", limits: limits, clock: TimetokenClock(wall: wall))
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

    // MARK: Keysets

    func testKeysetsAreIsolated() throws {
        let clock = TimetokenClock(wall: wall)
        let broker = MemoryBroker(keysets: [Keyset(publishKey: "p1", subscribeKey: "s1"),
                                            Keyset(publishKey: "p2", subscribeKey: "s2")],
                                  limits: Limits(), clock: clock)
        let one = try XCTUnwrap(broker.keyset("s1"))
        let two = try XCTUnwrap(broker.keyset("s2"))
        XCTAssertNil(broker.keyset("p1"))
        XCTAssertNil(broker.keyset("demo"))
        XCTAssertEqual(broker.allKeysets.count, 2)

        let start = one.currentTimetoken()
        let subscription = Fixture.subscription(["shared", "shared.*"], groups: ["g"])
        let waiterOnTwo = TestWaiter()
        XCTAssertNil(two.park(waiterOnTwo, on: subscription, after: start))

        try one.addChannels(["shared.x"], toGroup: "g")
        let outcome = one.publish(Fixture.draft("shared", "\"one\""))
        _ = one.publish(Fixture.draft("shared.x", "\"one-x\""))
        XCTAssertFalse(outcome.waiters.includes(waiterOnTwo))
        XCTAssertEqual(one.collect(subscription, after: start).deliveries.payloads, ["\"one\"", "\"one-x\""])
        XCTAssertTrue(two.collect(subscription, after: start).deliveries.isEmpty)
        XCTAssertEqual(try two.channels(inGroup: "g"), [])
        XCTAssertEqual(two.groupNames(), [])
        XCTAssertEqual(one.groupNames(), ["g"])

        let fromTwo = two.publish(Fixture.draft("shared", "\"two\""))
        XCTAssertTrue(fromTwo.waiters.includes(waiterOnTwo))
        XCTAssertGreaterThan(fromTwo.message.timetoken, outcome.message.timetoken, "one clock serves every keyset")
        XCTAssertTrue(String(decoding: fromTwo.message.envelope, as: UTF8.self).contains("\"k\":\"s2\""))
    }

    func testMemoryBrokerMakesOneHubPerSubscribeKey() throws {
        let broker = MemoryBroker(keysets: [Keyset(publishKey: "p1", subscribeKey: "s"), Keyset(publishKey: "p2", subscribeKey: "s")],
                                  limits: Limits(), clock: TimetokenClock(wall: wall))
        XCTAssertEqual(broker.allKeysets.count, 1)
        let hub = try XCTUnwrap(broker.keyset("s") as? ChannelHub)
        XCTAssertEqual(hub.subscribeKey, "s")
        XCTAssertTrue(hub === broker.keyset("s") as? ChannelHub)
    }

    // MARK: Concurrency

    func testConcurrentPublishersKeepEachChannelInTimetokenOrder() {
        let hub = smallHub(messagesPerResponse: 10_000, bufferSize: 10_000)
        let issued = Mutex<[Timetoken]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            var mine: [Timetoken] = []
            for index in 0..<1_000 {
                mine.append(hub.publish(Fixture.draft(index % 2 == 0 ? "even" : "odd", "\(thread)")).message.timetoken)
            }
            issued.withLock { $0 += mine }
        }
        let all = issued.withLock { $0 }
        XCTAssertEqual(Set(all).count, 4_000)
        for channel in ["even", "odd"] {
            let buffered = hub.collect(Fixture.subscription([channel]), after: .zero).deliveries.timetokens
            XCTAssertEqual(buffered.count, 2_000)
            XCTAssertTrue(zip(buffered, buffered.dropFirst()).allSatisfy { $0 < $1 }, "\(channel) buffer out of order")
        }
        let merged = hub.collect(Fixture.subscription(["even", "odd"]), after: .zero).deliveries.timetokens
        XCTAssertEqual(merged, all.sorted())
    }

    func testSubscriberPagingTwoChannelsWhilePublishersRunReceivesEveryMessage() {
        // Two publishers (one per channel) run while a subscriber pages with the `next` cursor.
        // Whatever the interleaving, every message must be delivered exactly once.
        // Known defect: collect reads the channels one after another and answers with the newest
        // timetoken it saw, so a message issued a smaller timetoken on a channel read earlier can
        // land behind the returned cursor and is never delivered.
        var limits = Limits()
        limits.bufferSize = 100_000
        limits.messagesPerResponse = 100_000
        let hub = ChannelHub(subscribeKey: "demo", limits: limits, clock: TimetokenClock(wall: wall))
        let subscription = Fixture.subscription(["left", "right"], limits: limits)
        let perPublisher = 50_000
        let finishedPublishers = Atomic<Int>(0)
        let publishers = DispatchGroup()
        for channel in ["left", "right"] {
            DispatchQueue.global().async(group: publishers) {
                for _ in 0..<perPublisher { _ = hub.publish(Fixture.draft(channel)) }
                finishedPublishers.add(1, ordering: .sequentiallyConsistent)
            }
        }
        var cursor = Timetoken.zero
        var received: [Timetoken] = []
        while true {
            let publishersDone = finishedPublishers.load(ordering: .sequentiallyConsistent) == 2
            let page = hub.collect(subscription, after: cursor)
            received += page.deliveries.timetokens
            cursor = page.next
            if publishersDone && page.deliveries.isEmpty { break }
        }
        publishers.wait()
        let everything = hub.collect(subscription, after: .zero).deliveries.timetokens
        XCTAssertEqual(everything.count, 2 * perPublisher)
        XCTAssertEqual(Set(received).count, received.count, "a message was delivered twice")
        XCTAssertEqual(received.count, everything.count,
                       "the subscriber missed \(everything.count - received.count) of \(everything.count) messages")
    }

    func testConcurrentParkAndPublishNeverLosesAWakeUp() {
        // Each round: a waiter parks while a publisher publishes. Either park sees the message or
        // the publish hands the waiter back; never neither.
        let hub = smallHub(messagesPerResponse: 100, bufferSize: 4)
        for round in 0..<300 {
            let channel = "race-\(round)"
            let subscription = Fixture.subscription([channel])
            let cursor = hub.currentTimetoken()
            let waiter = TestWaiter()
            let parked = Mutex<Bool?>(nil)
            let woken = Mutex(false)
            DispatchQueue.concurrentPerform(iterations: 2) { role in
                if role == 0 {
                    let ready = hub.park(waiter, on: subscription, after: cursor)
                    parked.withLock { $0 = ready == nil }
                } else {
                    let outcome = hub.publish(Fixture.draft(channel))
                    woken.withLock { $0 = outcome.waiters.includes(waiter) }
                }
            }
            let stayedParked = parked.withLock { $0 } ?? false
            let wasWoken = woken.withLock { $0 }
            if stayedParked {
                XCTAssertTrue(wasWoken, "round \(round): waiter parked but the publish did not return it")
            }
        }
    }
}
