#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PubNodeCore

/// A connection's last subscribe, decoded, kept so that its next long-poll can skip decoding.
///
/// A subscriber's polls differ only in their cursor (`tt`): the same keyset, channels, groups,
/// uuid, heartbeat, state, token and filter come back each time. When a new request's target is
/// the kept one with another `tt` value, the kept `SubscribeRequest` is used with the new cursor
/// instead of splitting, percent-decoding and routing the target again. Everything that is not
/// decoding still runs per poll: `Node.subscribe` validates, authorizes (a revoked token is refused
/// on the next poll) and refreshes presence.
///
/// Only targets read without ambiguity are kept: exactly one `tt` parameter, written in plain
/// digits, and no percent-escape in any parameter name (so no other name can decode to `tt`).
/// Signed requests are never kept (their signature and timestamp change on every poll).
struct RepeatedSubscribe {
    /// The target as received.
    let target: String
    /// The byte offsets of the `tt` value within `target`.
    let cursorValue: Range<Int>
    /// The decoded request (its cursor is replaced on every match).
    let request: SubscribeRequest

    /// Keeps `request`, decoded from `target`, when the target qualifies; nil otherwise.
    init?(target: String, request: SubscribeRequest) {
        guard request.signature == nil, let value = Self.cursorValue(in: target) else { return nil }
        self.target = target
        self.cursorValue = value
        self.request = request
    }

    /// The kept request with the cursor of `target`, when `target` is the kept one with only its
    /// `tt` value changed (and that value is a plain timetoken); nil otherwise.
    func request(repeatedBy target: String) -> SubscribeRequest? {
        guard let value = Self.cursorValue(in: target) else { return nil }
        let old = self.target.utf8, new = target.utf8
        let suffixLength = old.count - cursorValue.upperBound
        guard value.lowerBound == cursorValue.lowerBound, new.count - value.upperBound == suffixLength else { return nil }
        let cursor: Timetoken?? = new.withContiguousStorageIfAvailable { newBytes in
            old.withContiguousStorageIfAvailable { oldBytes -> Timetoken? in
                guard Self.same(newBytes, oldBytes, 0..<value.lowerBound, 0..<cursorValue.lowerBound),
                      Self.same(newBytes, oldBytes, value.upperBound..<newBytes.count,
                                cursorValue.upperBound..<oldBytes.count) else { return nil }
                return Self.timetoken(newBytes[value])
            } ?? nil
        }
        guard case .some(.some(let timetoken)) = cursor else { return nil }
        var request = self.request
        request.cursor = timetoken
        return request
    }

    /// The byte range of the one `tt` value in `target`'s query; nil when there is no `tt`, more
    /// than one, a percent-escape in a parameter name, or a value that is not plain digits.
    static func cursorValue(in target: String) -> Range<Int>? {
        target.utf8.withContiguousStorageIfAvailable { bytes -> Range<Int>? in
            guard let question = bytes.firstIndex(of: UInt8(ascii: "?")) else { return nil }
            var found: Range<Int>?
            var start = question + 1
            while start <= bytes.count {
                let end = bytes[start...].firstIndex(of: UInt8(ascii: "&")) ?? bytes.count
                let pair = bytes[start..<end]
                let equals = pair.firstIndex(of: UInt8(ascii: "=")) ?? end
                if pair[..<equals].contains(UInt8(ascii: "%")) { return nil }
                if equals - start == 2, bytes[start] == UInt8(ascii: "t"), bytes[start + 1] == UInt8(ascii: "t") {
                    guard found == nil, equals < end else { return nil }
                    found = (equals + 1)..<end
                }
                start = end + 1
            }
            guard let found, timetoken(bytes[found]) != nil else { return nil }
            return found
        } ?? nil
    }

    /// Whether `a[aRange]` and `b[bRange]` hold the same bytes.
    private static func same(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>,
                             _ aRange: Range<Int>, _ bRange: Range<Int>) -> Bool {
        guard aRange.count == bRange.count else { return false }
        guard let aBase = a.baseAddress, let bBase = b.baseAddress, !aRange.isEmpty else { return true }
        return memcmp(aBase + aRange.lowerBound, bBase + bRange.lowerBound, aRange.count) == 0
    }

    /// A plain decimal timetoken: what `Timetoken(parsing:)` reads from unescaped digits.
    private static func timetoken(_ digits: Slice<UnsafeBufferPointer<UInt8>>) -> Timetoken? {
        guard !digits.isEmpty, digits.count <= 20 else { return nil }
        var value: UInt64 = 0
        for digit in digits {
            guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else { return nil }
            let (times10, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times10.addingReportingOverflow(UInt64(digit - UInt8(ascii: "0")))
            guard !overflow, !carry else { return nil }
            value = sum
        }
        return Timetoken(value)
    }
}
