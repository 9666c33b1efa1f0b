import Foundation
import PubNodeCore

extension NodeConfiguration {
    /// Reads one `hooks` entry: `name`, `event`, `subscribeKey`, `channels` (or `path` for
    /// on-request hooks), `url`, and optionally `secret`, `timeoutMs`, `policy`, `maxAttempts`,
    /// `retryBaseMs`, `retryMaxMs`, `capacity`, `maxSpilledEvents`, `deadLetterCapacity`, `concurrency`,
    /// `maxReplyBytes`, `maxConcurrentRequests`, `maxBatch`.
    static func hook(_ item: [String: Any]) throws(ConfigurationError) -> HookSpec {
        let name = item["name"] as? String ?? ""
        guard !name.isEmpty else { throw ConfigurationError("each hook needs a name") }
        func fail(_ why: String) -> ConfigurationError { ConfigurationError("hook \(name): \(why)") }
        guard let eventName = item["event"] as? String, let trigger = HookTrigger(rawValue: eventName) else {
            let names = HookTrigger.allCases.map(\.rawValue).joined(separator: ", ")
            throw fail("event must be one of \(names)")
        }
        guard let subscribeKey = item["subscribeKey"] as? String, !subscribeKey.isEmpty else { throw fail("subscribeKey is required") }
        guard let url = item["url"] as? String, !url.isEmpty else { throw fail("url is required") }
        var channels: [String]
        if trigger == .onRequest {
            guard let path = item["path"] as? String, !path.isEmpty else { throw fail("on-request hooks need a path") }
            channels = [path.hasPrefix("/") ? String(path.dropFirst()) : path]
        } else if let list = item["channels"] as? [String], !list.isEmpty {
            channels = list
        } else if let one = item["channels"] as? String, !one.isEmpty {
            channels = [one]
        } else {
            throw fail("channels must name channels, wildcards (a.*) or \"*\"")
        }
        var secret: String?
        if let value = item["secret"] {
            guard let text = value as? String, !text.isEmpty else { throw fail("secret must be a non-empty string") }
            secret = text
        }
        var spec = HookSpec(name: name, trigger: trigger, subscribeKey: subscribeKey, channels: channels, url: url,
                            secret: secret)
        let known: Set<String> = ["name", "event", "subscribeKey", "channels", "path", "url", "secret", "timeoutMs", "policy",
                                  "maxAttempts", "retryBaseMs", "retryMaxMs", "capacity", "deadLetterCapacity",
                                  "concurrency", "maxReplyBytes", "maxConcurrentRequests", "maxBatch", "maxSpilledEvents"]
        if let unknown = item.keys.sorted().first(where: { !known.contains($0) }) { throw fail("unknown setting '\(unknown)'") }
        func number(_ key: String, _ range: ClosedRange<Int>) throws(ConfigurationError) -> Int? {
            guard let value = item[key] else { return nil }
            guard let number = value as? NSNumber, let int = Int(exactly: number.doubleValue), range.contains(int) else {
                throw fail("\(key) must be an integer in \(range.lowerBound)...\(range.upperBound)")
            }
            return int
        }
        if let value = try number("timeoutMs", 1...60_000) { spec.timeoutMilliseconds = value }
        if let value = try number("maxAttempts", 1...1000) { spec.delivery.maxAttempts = value }
        if let value = try number("retryBaseMs", 1...3_600_000) { spec.delivery.baseDelay = .milliseconds(value) }
        if let value = try number("retryMaxMs", 1...86_400_000) { spec.delivery.maxDelay = .milliseconds(value) }
        if let value = try number("capacity", 1...10_000_000) { spec.delivery.capacity = value }
        if let value = try number("maxSpilledEvents", 0...1_000_000_000) { spec.delivery.maxSpilledEvents = value }
        if let value = try number("deadLetterCapacity", 1...10_000_000) { spec.delivery.deadLetterCapacity = value }
        if let value = try number("concurrency", 1...256) { spec.delivery.concurrency = value }
        if let value = try number("maxReplyBytes", 1...16 * 1024 * 1024) { spec.maxReplyBytes = value }
        if let value = try number("maxConcurrentRequests", 1...10_000) { spec.maxConcurrentRequests = value }
        if let value = try number("maxBatch", 1...1000) { spec.delivery.maxBatch = value }
        if let policy = item["policy"] {
            guard let text = policy as? String, let parsed = HookBinding.FailurePolicy(rawValue: text) else {
                throw fail("policy must be fail-open or fail-closed")
            }
            spec.policy = parsed
        }
        return spec
    }
}
