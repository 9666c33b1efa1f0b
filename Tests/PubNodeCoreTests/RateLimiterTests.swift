import Foundation
import PubNodeCore
import PubNodeTestSupport
import XCTest

/// Token buckets and the limiters built on them, on a manual clock.
final class RateLimiterTests: XCTestCase {
    private let second: UInt64 = 1_000_000_000

    func testABucketAdmitsItsBurstThenSaysHowLongToWait() {
        var bucket = TokenBucket(ratePerSecond: 2, burst: 3, nowNanoseconds: 1_000)
        for _ in 0..<3 { XCTAssertNil(bucket.take(nowNanoseconds: 1_000)) }
        XCTAssertEqual(bucket.take(nowNanoseconds: 1_000), second / 2, "one token at 2/s takes half a second")
        XCTAssertEqual(bucket.take(nowNanoseconds: 1_000 + second / 4), second / 4, "a quarter earned, a quarter to go")
        XCTAssertNil(bucket.take(nowNanoseconds: 1_000 + second / 2), "refilled by one token")
        XCTAssertNotNil(bucket.take(nowNanoseconds: 1_000 + second / 2))
    }

    func testABucketRefillsUpToItsBurstOnly() {
        var bucket = TokenBucket(ratePerSecond: 10, burst: 2, nowNanoseconds: 0)
        XCTAssertNil(bucket.take(nowNanoseconds: 0))
        XCTAssertNil(bucket.take(nowNanoseconds: 0))
        XCTAssertFalse(bucket.isFull(nowNanoseconds: 0))
        XCTAssertTrue(bucket.isFull(nowNanoseconds: 3600 * second))
        XCTAssertEqual(bucket.tokens(atNanoseconds: 3600 * second), 2, "a long quiet spell earns no more than the burst")
        XCTAssertNil(bucket.take(nowNanoseconds: 3600 * second))
        XCTAssertNil(bucket.take(nowNanoseconds: 3600 * second))
        XCTAssertNotNil(bucket.take(nowNanoseconds: 3600 * second))
    }

    func testAClockGoingBackwardsNeitherAddsNorRemovesTokens() {
        var bucket = TokenBucket(ratePerSecond: 1, burst: 1, nowNanoseconds: 100 * second)
        XCTAssertNil(bucket.take(nowNanoseconds: 100 * second))
        XCTAssertNotNil(bucket.take(nowNanoseconds: 50 * second), "the past earns nothing")
        XCTAssertEqual(bucket.updatedNanoseconds, 100 * second, "the latest reading is kept")
        XCTAssertEqual(bucket.take(nowNanoseconds: 100 * second + second / 2), second / 2,
                       "back to the present: only the time since the latest reading counts")
        XCTAssertNil(bucket.take(nowNanoseconds: 101 * second))
    }

    func testAZeroRateAdmitsEverything() {
        var bucket = TokenBucket(ratePerSecond: 0, burst: 1)
        for _ in 0..<100 { XCTAssertNil(bucket.take(nowNanoseconds: 0)) }
    }

    func testRetryAfterIsWholeSecondsRoundedUpAndAtLeastOne() {
        XCTAssertEqual(TokenBucket.retryAfterSeconds(1), 1)
        XCTAssertEqual(TokenBucket.retryAfterSeconds(second), 1)
        XCTAssertEqual(TokenBucket.retryAfterSeconds(second + 1), 2)
        XCTAssertEqual(TokenBucket.retryAfterSeconds(10 * second), 10)
    }

    func testALimiterCountsAndAnswersRetryAfter() {
        let clock = ManualClock()
        let limiter = RateLimiter(perSecond: 0.25, burst: 2, clock: clock)
        XCTAssertNil(limiter.admit())
        XCTAssertNil(limiter.admit())
        XCTAssertEqual(limiter.admit(), 4, "one token at 0.25/s takes four seconds")
        clock.advance(seconds: 1)
        XCTAssertEqual(limiter.admit(), 3)
        clock.advance(seconds: 3)
        XCTAssertNil(limiter.admit())
        XCTAssertEqual(limiter.snapshot(), RateLimiterStats(perSecond: 0.25, burst: 2, admitted: 3, refused: 2))
    }

    func testTheDefaultBurstIsOneSecondsWorth() {
        let clock = ManualClock()
        let limiter = RateLimiter(perSecond: 5, clock: clock)
        XCTAssertEqual((0..<8).filter { _ in limiter.admit() == nil }.count, 5)
        XCTAssertEqual(RateLimiter(perSecond: 0.5, clock: clock).burst, 1, "at least one")
    }

    func testConcurrentAdmitsAreCountedExactly() {
        let clock = ManualClock()
        let limiter = RateLimiter(perSecond: 100, burst: 1000, clock: clock)
        let keyed = KeyedRateLimiter<Int>(perSecond: 100, burst: 50, clock: clock, shardCount: 4)
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for attempt in 0..<500 {
                _ = limiter.admit()
                _ = keyed.admit(attempt % 10)
            }
            _ = worker
        }
        XCTAssertEqual(limiter.admitted, 1000, "exactly the burst: the clock did not move")
        XCTAssertEqual(limiter.refused, 3000)
        XCTAssertEqual(keyed.admitted, 10 * 50, "each key gets exactly its burst")
        XCTAssertEqual(keyed.refused, 4000 - 500)
    }

    func testKeysAreLimitedSeparately() {
        let clock = ManualClock()
        let limiter = KeyedRateLimiter<String>(perSecond: 1, burst: 2, clock: clock)
        XCTAssertNil(limiter.admit("a"))
        XCTAssertNil(limiter.admit("a"))
        XCTAssertEqual(limiter.admit("a"), 1)
        XCTAssertNil(limiter.admit("b"), "another client is not affected")
        clock.advance(seconds: 1)
        XCTAssertNil(limiter.admit("a"))
        XCTAssertEqual(Set(limiter.keys()), ["a", "b"])
        XCTAssertEqual(limiter.snapshot().refused, 1)
    }

    func testMemoryIsBoundedAndFullBucketsGoFirst() {
        let clock = ManualClock()
        let limiter = KeyedRateLimiter<Int>(perSecond: 1, burst: 1, clock: clock, shardCount: 1, maxEntriesPerShard: 4)
        for key in 0..<4 { XCTAssertNil(limiter.admit(key)) }
        XCTAssertEqual(limiter.count, 4)
        XCTAssertNil(limiter.admit(4), "a new client is admitted at a full table")
        XCTAssertEqual(limiter.count, 4, "by evicting one of the others")
        XCTAssertEqual(limiter.evicted, 1)

        clock.advance(seconds: 10)
        XCTAssertNil(limiter.admit(99), "every bucket has refilled: all of them are dropped at once")
        XCTAssertEqual(limiter.count, 1)
        XCTAssertEqual(limiter.evicted, 5)

        for key in 100..<1000 { _ = limiter.admit(key) }
        XCTAssertLessThanOrEqual(limiter.count, limiter.capacity)
        XCTAssertEqual(limiter.capacity, 4)
    }

    func testEvictionKeepsTheBusiestClient() {
        let clock = ManualClock()
        let limiter = KeyedRateLimiter<String>(perSecond: 1, burst: 4, clock: clock, shardCount: 1, maxEntriesPerShard: 2)
        for _ in 0..<4 { XCTAssertNil(limiter.admit("busy")) }
        XCTAssertNil(limiter.admit("quiet"))
        XCTAssertNil(limiter.admit("new"), "room is made by dropping the bucket closest to full")
        XCTAssertEqual(Set(limiter.keys()), ["busy", "new"])
        XCTAssertNotNil(limiter.admit("busy"), "the busy client is still limited")
    }

    func testIdleBucketsCanBeSwept() {
        let clock = ManualClock()
        let limiter = KeyedRateLimiter<Int>(perSecond: 1, clock: clock)
        for key in 0..<10 { _ = limiter.admit(key) }
        XCTAssertEqual(limiter.removeIdle(), 0)
        clock.advance(seconds: 1)
        XCTAssertEqual(limiter.removeIdle(), 10)
        XCTAssertEqual(limiter.count, 0)
    }

    func testAnUnlimitedKeyedLimiterTracksNothing() {
        let limiter = KeyedRateLimiter<Int>(perSecond: 0, clock: ManualClock())
        for key in 0..<100 { XCTAssertNil(limiter.admit(key)) }
        XCTAssertEqual(limiter.count, 0)
    }

    func testRateLimitsAreUnlimitedByDefaultAndRoundTripThroughJSON() throws {
        XCTAssertTrue(RateLimits().isUnlimited)
        XCTAssertTrue(RateLimits(publishesPerSecond: 0, requestsPerSecond: nil).isUnlimited)
        XCTAssertNil(RateLimits.unlimited.publishLimiter(clock: ManualClock()))
        let limits = RateLimits(publishesPerSecond: 2.5, requestsPerSecond: 40)
        XCTAssertFalse(limits.isUnlimited)
        XCTAssertEqual(limits.publishLimiter(clock: ManualClock())?.perSecond, 2.5)
        XCTAssertEqual(limits.requestLimiter(clock: ManualClock())?.perSecond, 40)
        let decoded = try JSONDecoder().decode(RateLimits.self, from: JSONEncoder().encode(limits))
        XCTAssertEqual(decoded, limits)
        XCTAssertEqual(try JSONDecoder().decode(RateLimits.self, from: Data("{}".utf8)), .unlimited)
        XCTAssertThrowsError(try RateLimits(publishesPerSecond: -1).validate())
        XCTAssertNoThrow(try limits.validate())
    }
}
