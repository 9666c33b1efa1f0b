import PubNodeCore

/// A `GET /publish/…` or `GET /signal/…` read straight off its target's bytes into a
/// `PublishRequest`: every publish's first step, without the general decoding's segment array,
/// parameter list and intermediate strings (`PubNubRequest`).
///
/// It takes only targets it reads exactly as `PubNubRequest` and `Router.publishRequest(_:kind:)`
/// would: seven segments, every escape well formed and UTF-8, no escape in a parameter name, no
/// `signature` (a signed request is verified over the request as received), and `store`, `norep`
/// and `ttl` values that parse. For anything else it answers nil and the router decodes the target
/// the general way, refusals included, so a request is answered the same either way
/// (`PublishTargetTests` holds the two to that).
public enum PublishTarget {
    /// The publish `target` carries, or nil when it is not one this reads (see the type).
    public static func request(_ target: String) -> PublishRequest? {
        read(target)?.request
    }

    /// The publish `target` carries and the byte offsets of its message segment within `target`,
    /// or nil when it is not one this reads.
    static func read(_ target: String) -> (request: PublishRequest, message: Range<Int>)? {
        let read: (request: PublishRequest, message: Range<Int>)?? = target.utf8.withContiguousStorageIfAvailable { bytes in
            request(UnsafeRawBufferPointer(bytes))
        }
        return read ?? nil
    }

    private static let publishPrefix: StaticString = "/publish/"
    private static let signalPrefix: StaticString = "/signal/"

    private static func request(_ bytes: UnsafeRawBufferPointer) -> (request: PublishRequest, message: Range<Int>)? {
        let kind: MessageKind
        let start: Int
        if starts(bytes, with: publishPrefix) {
            (kind, start) = (.message, publishPrefix.utf8CodeUnitCount)
        } else if starts(bytes, with: signalPrefix) {
            (kind, start) = (.signal, signalPrefix.utf8CodeUnitCount)
        } else {
            return nil
        }
        let pathEnd = bytes.firstIndex(of: UInt8(ascii: "?")) ?? bytes.count
        // The six segments after the endpoint's: keys, "0", channel, callback, message.
        func slash(after index: Int) -> Int? { bytes[index..<pathEnd].firstIndex(of: UInt8(ascii: "/")) }
        guard let afterPublishKey = slash(after: start), let afterSubscribeKey = slash(after: afterPublishKey + 1),
              let afterZero = slash(after: afterSubscribeKey + 1), let afterChannel = slash(after: afterZero + 1),
              let afterCallback = slash(after: afterChannel + 1), slash(after: afterCallback + 1) == nil
        else { return nil }
        func part(_ range: Range<Int>) -> UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: bytes[range]) }
        guard let publishKey = PercentDecoding.decode(part(start..<afterPublishKey)),
              let subscribeKey = PercentDecoding.decode(part(afterPublishKey + 1..<afterSubscribeKey)),
              PercentDecoding.decodes(part(afterSubscribeKey + 1..<afterZero)),
              let channel = PercentDecoding.decode(part(afterZero + 1..<afterChannel)),
              PercentDecoding.decodes(part(afterChannel + 1..<afterCallback)),
              let payload = PercentDecoding.decodeBytes(part(afterCallback + 1..<pathEnd)),
              let query = Query(bytes, from: pathEnd + 1)
        else { return nil }
        let request = PublishRequest(publishKey: publishKey, subscribeKey: subscribeKey, channel: channel, payload: payload,
                                     meta: query.meta.map { Array($0.utf8) }, uuid: query.uuid, kind: kind,
                                     store: query.store, noReplication: query.norep ?? false, ttlHours: query.ttl,
                                     customMessageType: query.customMessageType, authKey: query.auth)
        return (request, afterCallback + 1..<pathEnd)
    }

    /// The parameters a publish reads; the others are checked to decode and otherwise ignored, as
    /// the router ignores them.
    private struct Query {
        var meta: String?
        var uuid: String?
        var store: Bool?
        var norep: Bool?
        var ttl: Int?
        var customMessageType: String?
        var auth: String?

        /// Reads the query from `start` (past the `?`); nil for anything `PublishTarget` leaves to the router.
        init?(_ bytes: UnsafeRawBufferPointer, from start: Int) {
            var pairStart = start
            while pairStart <= bytes.count {
                let end = bytes[pairStart...].firstIndex(of: UInt8(ascii: "&")) ?? bytes.count
                defer { pairStart = end + 1 }
                guard pairStart < end else { continue }
                let equals = bytes[pairStart..<end].firstIndex(of: UInt8(ascii: "=")) ?? end
                let name = UnsafeRawBufferPointer(rebasing: bytes[pairStart..<equals])
                let value = UnsafeRawBufferPointer(rebasing: bytes[(equals == end ? end : equals + 1)..<end])
                guard !name.contains(UInt8(ascii: "%")) else { return nil }
                guard let parameter = Parameter(name) else {
                    guard PercentDecoding.decodes(value) else { return nil }
                    continue
                }
                guard let text = PercentDecoding.decode(value) else { return nil }
                // A repeated name reads as its last value, as `QueryParameters` reads it.
                switch parameter {
                case .meta: meta = text
                case .uuid: uuid = text
                case .store: guard let flag = PubNubRequest.flag(reading: text) else { return nil }; store = flag
                case .norep: guard let flag = PubNubRequest.flag(reading: text) else { return nil }; norep = flag
                case .ttl: guard let hours = Int(text) else { return nil }; ttl = hours
                case .customMessageType: customMessageType = text
                case .auth: auth = text
                case .signature: return nil
                }
            }
        }
    }

    /// The parameter names a publish reads.
    private enum Parameter: CaseIterable {
        case meta, uuid, store, norep, ttl, customMessageType, auth, signature

        var name: StaticString {
            switch self {
            case .meta: "meta"
            case .uuid: "uuid"
            case .store: "store"
            case .norep: "norep"
            case .ttl: "ttl"
            case .customMessageType: "custom_message_type"
            case .auth: "auth"
            case .signature: "signature"
            }
        }

        /// The parameter called `name` (compared as bytes), nil for any other name.
        init?(_ name: UnsafeRawBufferPointer) {
            guard let found = Self.allCases.first(where: { parameter in
                parameter.name.utf8CodeUnitCount == name.count && parameter.name.withUTF8Buffer { $0.elementsEqual(name) }
            }) else { return nil }
            self = found
        }
    }

    private static func starts(_ bytes: UnsafeRawBufferPointer, with prefix: StaticString) -> Bool {
        prefix.withUTF8Buffer { wanted in bytes.starts(with: wanted) }
    }
}
