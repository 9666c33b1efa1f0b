import PubNodeCore
@testable import PubNodeServer
import XCTest

/// Counts are bounded where sizes already were: channel groups per keyset (and their list pages),
/// and channels a uuid holds presence state on.
final class CountLimitTests: XCTestCase {
    private let groups = "/v1/channel-registration/sub-key/demo/channel-group"

    func testAKeysetHoldsAtMostItsGroupLimit() throws {
        var limits = Limits()
        limits.maxGroupsPerKeyset = 3
        let embedded = EmbeddedNode(limits: limits)
        for name in ["g1", "g2", "g3"] { XCTAssertEqual(try embedded.get("\(groups)/\(name)?add=c").status, 200) }
        XCTAssertEqual(try embedded.get("\(groups)/g2?add=d").status, 200, "a group that exists may grow")
        let refused = try embedded.get("\(groups)/g4?add=c")
        XCTAssertEqual(refused.status, 400)
        XCTAssertEqual(refused.json["message"]?.stringValue, "Maximum channel groups per keyset reached (limit 3)")
        XCTAssertEqual(refused.json["service"]?.stringValue, "channel-registry")
        XCTAssertEqual(try embedded.get(groups).json["payload"]?["groups"]?.arrayValue.count, 3)
        XCTAssertEqual(try embedded.get("\(groups)/g1/remove").status, 200)
        XCTAssertEqual(try embedded.get("\(groups)/g4?add=c").status, 200, "a deleted group gives its place back")
        XCTAssertEqual(try embedded.get("\(groups)/g3?remove=c").status, 200, "emptied by removing its channel")
        XCTAssertEqual(try embedded.get("\(groups)/g5?add=c").status, 200)
        XCTAssertEqual(try embedded.get("\(groups)/g6?add=c").status, 400)
    }

    func testTheGroupListPages() throws {
        let embedded = EmbeddedNode()
        for index in 0..<5 { XCTAssertEqual(try embedded.get("\(groups)/g\(index)?add=c").status, 200) }
        let first = try embedded.get("\(groups)?limit=2").json["payload"]
        XCTAssertEqual(first?["groups"]?.arrayValue, [.string("g0"), .string("g1")])
        XCTAssertEqual(first?["next"]?.stringValue, "g1")
        let second = try embedded.get("\(groups)?limit=2&start=g1").json["payload"]
        XCTAssertEqual(second?["groups"]?.arrayValue, [.string("g2"), .string("g3")])
        let last = try embedded.get("\(groups)?limit=2&start=g3").json["payload"]
        XCTAssertEqual(last?["groups"]?.arrayValue, [.string("g4")])
        XCTAssertNil(last?["next"], "no more pages")
        XCTAssertEqual(try embedded.get("\(groups)").json["payload"]?["groups"]?.arrayValue.count, 5, "unpaged: all")
        XCTAssertEqual(try embedded.get("\(groups)?limit=0").status, 400)
        XCTAssertEqual(try embedded.get("\(groups)?limit=x").status, 400)
    }

    func testAUuidHoldsStateOnAtMostItsLimitOfChannels() throws {
        var limits = Limits()
        limits.maxStatesPerUUID = 2
        let embedded = EmbeddedNode(limits: limits)
        let state = "%7B%22a%22%3A1%7D"
        let setState = { (channels: String) in
            try embedded.get("/v2/presence/sub-key/demo/channel/\(channels)/uuid/u/data?state=\(state)")
        }
        XCTAssertEqual(try setState("a,b").status, 200)
        let refused = try setState("c")
        XCTAssertEqual(refused.status, 400)
        XCTAssertEqual(refused.json["message"]?.stringValue, "Presence state is held on too many channels (limit 2)")
        XCTAssertEqual(try setState("a").status, 200, "replacing a state it holds is fine")
        // Clearing one frees a place.
        XCTAssertEqual(try embedded.get("/v2/presence/sub-key/demo/channel/b/uuid/u/data?state=%7B%7D").status, 200)
        XCTAssertEqual(try setState("c").status, 200)
        // A subscribe carrying state is held to the same limit, and changes nothing when refused.
        let keyed = "%7B%22d%22%3A%7B%22x%22%3A1%7D%7D"
        let subscribe = try embedded.get("/v2/subscribe/demo/d/0?tt=0&uuid=u&state=\(keyed)")
        XCTAssertEqual(subscribe.status, 400)
        XCTAssertEqual(try embedded.get("/v2/presence/sub-key/demo/channel/d").json["occupancy"]?.stringValue, "0")
        // A newcomer refused for the same reason leaves no record behind.
        let users = embedded.node.hub()?.presence.userCount
        let many = "%7B%22d%22%3A%7B%22x%22%3A1%7D%2C%22e%22%3A%7B%22x%22%3A1%7D%2C%22f%22%3A%7B%22x%22%3A1%7D%7D"
        XCTAssertEqual(try embedded.get("/v2/presence/sub-key/demo/channel/d,e,f/heartbeat?uuid=w&state=\(many)").status, 400)
        XCTAssertEqual(embedded.node.hub()?.presence.userCount, users)
    }
}
