import Foundation

/// A keyset (tenant) as the node's admin API describes it.
public struct Keyset: Sendable, Equatable {
    /// The publish key.
    public var publishKey: String
    /// The subscribe key, which names the keyset in the admin API.
    public var subscribeKey: String
    /// The secret key: only in the answers of create and rotate.
    public var secretKey: String?
    /// Whether Access Manager checks its requests.
    public var accessManager: Bool
    /// Whether App Context changes are announced to subscribers as `e: 2` events.
    public var appContextEvents: Bool
    /// Whether it is disabled (its requests refused).
    public var disabled: Bool
    /// Where it comes from: `"created"` at run time, or the node's configuration.
    public var origin: String
    /// Its rate limits, if any.
    public var rateLimits: KeysetRateLimits?
    /// Requests admitted and refused by the rate limiter so far.
    public var admitted: Int64, refused: Int64

    /// The keyset in an admin answer's `keyset` object; nil when the keys are missing.
    public init?(json: JSONValue) {
        guard let publishKey = json["publishKey"]?.stringValue,
              let subscribeKey = json["subscribeKey"]?.stringValue else { return nil }
        self.publishKey = publishKey
        self.subscribeKey = subscribeKey
        self.secretKey = json["secretKey"]?.stringValue
        self.accessManager = json["accessManager"]?.boolValue ?? false
        self.appContextEvents = json["appContextEvents"]?.boolValue ?? false
        self.disabled = json["disabled"]?.boolValue ?? false
        self.origin = json["origin"]?.stringValue ?? ""
        self.rateLimits = json["rateLimits"].flatMap { $0 == .null ? nil : KeysetRateLimits(json: $0) }
        self.admitted = json["counters"]?["admitted"]?.intValue ?? 0
        self.refused = json["counters"]?["refused"]?.intValue ?? 0
    }
}

/// A keyset's rate limits.
public struct KeysetRateLimits: Sendable, Equatable {
    /// Publishes (and signals) admitted per second, if limited.
    public var publishesPerSecond: Int?
    /// Requests of any kind admitted per second, if limited.
    public var requestsPerSecond: Int?

    /// Limits; nil means unlimited.
    public init(publishesPerSecond: Int? = nil, requestsPerSecond: Int? = nil) {
        self.publishesPerSecond = publishesPerSecond
        self.requestsPerSecond = requestsPerSecond
    }

    /// The limits in a `rateLimits` object.
    public init(json: JSONValue) {
        publishesPerSecond = json["publishesPerSecond"]?.intValue.map { Int($0) }
        requestsPerSecond = json["requestsPerSecond"]?.intValue.map { Int($0) }
    }

    /// The `rateLimits` object sent to the node.
    public var json: JSONValue {
        var object: [String: JSONValue] = [:]
        if let publishesPerSecond { object["publishesPerSecond"] = .int(Int64(publishesPerSecond)) }
        if let requestsPerSecond { object["requestsPerSecond"] = .int(Int64(requestsPerSecond)) }
        return .object(object)
    }
}

extension Keyset {
    /// The keyset as JSON, in the admin API's shape (`secretKey` only when known).
    public var json: JSONValue {
        var object: [String: JSONValue] = [
            "publishKey": .string(publishKey), "subscribeKey": .string(subscribeKey),
            "accessManager": .bool(accessManager), "disabled": .bool(disabled), "origin": .string(origin),
            "rateLimits": rateLimits?.json ?? .null,
            "counters": ["admitted": .int(admitted), "refused": .int(refused)],
        ]
        if let secretKey { object["secretKey"] = .string(secretKey) }
        return .object(object)
    }
}
