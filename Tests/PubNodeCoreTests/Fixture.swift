@testable import PubNodeCore
import PubNodeTestSupport
import XCTest

/// Shared helpers for building hubs, drafts and subscriptions.
enum Fixture {
    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    static func draft(_ channel: String, _ payload: String = "1") -> PublishDraft {
        PublishDraft(channel: channel, payload: bytes(payload))
    }

    static func hub(limits: Limits = Limits(), clock: ManualClock = ManualClock(), key: String = "demo") -> ChannelHub {
        ChannelHub(subscribeKey: key, limits: limits, clock: TimetokenClock(wall: clock))
    }

    static func subscription(_ channels: [String] = [], groups: [String] = [], limits: Limits = Limits(),
                             file: StaticString = #filePath, line: UInt = #line) -> Subscription {
        do {
            return try Subscription(channelNames: channels, groupNames: groups, limits: limits)
        } catch {
            XCTFail("subscription \(channels) \(groups) refused: \(error)", file: file, line: line)
            return Subscription()
        }
    }

    static func message(_ timetoken: UInt64, channel: String = "ch", at nanoseconds: UInt64 = 0,
                        payload: String = "1") -> PublishedMessage {
        PublishedMessage(draft: draft(channel, payload), timetoken: Timetoken(timetoken), subscribeKey: "demo",
                         region: 1, publishedAtNanoseconds: nanoseconds)
    }

    /// The error `body` throws, or nil when it returns normally.
    static func error(_ body: () throws -> Void) -> (any Error)? {
        do {
            try body()
            return nil
        } catch {
            return error
        }
    }

    static func pubNodeError(_ body: () throws -> Void) -> PubNodeError? {
        error(body) as? PubNodeError
    }

    static func violation(_ body: () throws -> Void) -> NameRules.Violation? {
        error(body) as? NameRules.Violation
    }
}

extension Array where Element == any Waiter {
    /// True when `waiter` (by identity) is among these waiters.
    func includes(_ waiter: TestWaiter) -> Bool {
        contains { $0 === waiter }
    }

    /// How many times `waiter` appears.
    func occurrences(of waiter: TestWaiter) -> Int {
        filter { $0 === waiter }.count
    }
}

extension Array where Element == Delivery {
    var timetokens: [Timetoken] { map(\.message.timetoken) }
    var channels: [String] { map(\.message.channel) }
    var payloads: [String] { map { String(decoding: $0.message.payload, as: UTF8.self) } }
}

extension Node {
    /// The in-memory hub of a subscribe key, or `invalidKey`.
    func keyset(_ subscribeKey: String) throws(PubNodeError) -> ChannelHub {
        guard let hub = (broker as? MemoryBroker)?.hub(subscribeKey) else { throw .invalidKey }
        return hub
    }

    /// Publishes a request that no before hook applies to, synchronously.
    func publishNow(_ request: PublishRequest) throws(PubNodeError) -> PublishResult {
        switch try begin(request) {
        case .done(let result): return result
        case .awaitingHooks, .accepting: preconditionFailure("publishNow is for channels without before hooks, on a single node")
        }
    }
}
