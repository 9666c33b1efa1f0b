import PubNodeCore
import XCTest

/// Throws random paths, queries, bodies and raw bytes at parsing and routing. Deterministic
/// (seeded): a failure reproduces. Every answer must be a complete PubNub-shaped JSON response with
/// an expected status, and the node must keep serving afterwards.
final class RequestFuzzTests: XCTestCase {
    struct SplitMix64: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let heads = ["publish", "signal", "v2", "v1", "time", "subscribe", "presence", "channel-registration",
                        "sub-key", "channel-group", "demo", "0", "remove", "leave", "channel", ""]
    static let atoms = ["demo", "0", "a.*", "a.b.*", "%2F", "%2C", ",", "%00", "%FF", "%E2%9C%93", "*", "x", "%",
                        "%7B%22a%22%3A1%7D", "%22s%22", "1", "-1", "true", "null", "[", "%5B1,2%5D", ".", "..", "a.b.c.d.*"]
    static let queryNames = ["tt", "tr", "uuid", "channel-group", "meta", "store", "norep", "ttl", "add", "remove",
                             "heartbeat", "state", "filter-expr", "custom_message_type", "auth", ""]
    static let allowed: Set<Int> = [200, 400, 403, 404, 413]

    func randomTarget(_ rng: inout SplitMix64) -> String {
        var path = ""
        for _ in 0..<Int.random(in: 1...8, using: &rng) {
            let pool = Bool.random(using: &rng) ? Self.heads : Self.atoms
            path += "/" + pool.randomElement(using: &rng)!
        }
        if Bool.random(using: &rng) {
            let pairs = (0..<Int.random(in: 1...4, using: &rng)).map { _ in
                Self.queryNames.randomElement(using: &rng)! + "=" + Self.atoms.randomElement(using: &rng)!
            }
            path += "?" + pairs.joined(separator: "&")
        }
        return path
    }

    func testRandomRequestsAlwaysGetPubNubShapedAnswers() throws {
        let node = EmbeddedNode()
        _ = try node.get("/v1/channel-registration/sub-key/demo/channel-group/g?add=a.b,x")
        var rng = SplitMix64(state: 0xC0FFEE)
        for iteration in 0..<3000 {
            let target = randomTarget(&rng)
            let connection = try node.connect()
            if Bool.random(using: &rng) {
                let body = (0..<Int.random(in: 0...64, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
                try connection.send(Array("POST \(target) HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body)
            } else {
                try connection.send("GET \(target) HTTP/1.1\r\nHost: x\r\n\r\n")
            }
            guard let response = try connection.response() else {
                // A valid subscribe with a cursor parks: that is a correct answer-in-waiting.
                XCTAssertTrue(target.hasPrefix("/v2/subscribe/"), "#\(iteration) \(target): no answer")
                continue
            }
            XCTAssertTrue(Self.allowed.contains(response.status), "#\(iteration) \(target): \(response.status)")
            XCTAssertTrue(response.json.isValid, "#\(iteration) \(target): body is not JSON: \(response.text)")
        }
        let cursor = try node.handshake("after")
        try node.publish("after", #""still alive""#)
        XCTAssertEqual(try node.get("/v2/subscribe/demo/after/0?tt=\(cursor)").json["m"]?[0]?["d"], .string("still alive"))
    }

    func testRandomBytesOnTheWireNeverCrashTheNode() throws {
        let node = EmbeddedNode()
        var rng = SplitMix64(state: 42)
        for _ in 0..<1000 {
            let connection = try node.connect()
            let garbage = (0..<Int.random(in: 1...512, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            try? connection.send(garbage)
            if let response = try? connection.response() {
                XCTAssertTrue(Self.allowed.contains(response.status) || response.status == 505, "\(response.status)")
            }
        }
        XCTAssertEqual(try node.get("/time/0").status, 200)
    }
}
