import NIOHTTP1
import PubNodeCore
import PubNodeServer
import XCTest

final class HistoryEndpointTests: XCTestCase {
    private func seeded() -> (Router, [UInt64]) {
        let (_, router) = HistoryFixture.node(store: MemoryHistoryStore())
        var timetokens: [UInt64] = []
        timetokens.append(router.publish("ch", "%7B%22a%22%3A1%7D", query: "&meta=%7B%22m%22%3A1%7D"))
        timetokens.append(router.publish("ch", "%22two%22", query: "&custom_message_type=text-msg"))
        timetokens.append(router.publish("ch", "3"))
        return (router, timetokens)
    }

    func testV2HistoryShapes() throws {
        let (router, tt) = seeded()
        XCTAssertEqual(router.call("/v2/history/sub-key/demo/channel/ch").1, #"[[{"a":1},"two",3],\#(tt[0]),\#(tt[2])]"#)
        XCTAssertEqual(router.call("/v2/history/sub-key/demo/channel/ch?count=2").1, #"[["two",3],\#(tt[1]),\#(tt[2])]"#)
        XCTAssertEqual(router.call("/v2/history/sub-key/demo/channel/ch?count=2&reverse=true").1, #"[[{"a":1},"two"],\#(tt[0]),\#(tt[1])]"#)
        XCTAssertEqual(router.call("/v2/history/sub-key/demo/channel/ch?count=1&include_token=true&include_meta=true").1,
                       #"[[{"message":3,"timetoken":\#(tt[2]),"meta":""}],\#(tt[2]),\#(tt[2])]"#)
        XCTAssertEqual(router.call("/v2/history/sub-key/demo/channel/ch?start=\(tt[2])&end=\(tt[0])&include_meta=true").1,
                       #"[[{"message":{"a":1},"meta":{"m":1}},{"message":"two","meta":""}],\#(tt[0]),\#(tt[1])]"#)
        XCTAssertEqual(router.call("/v2/history/sub-key/demo/channel/empty").1, "[[],0,0]")
    }

    func testV3FetchShapes() throws {
        let (router, tt) = seeded()
        let (status, body) = router.call("/v3/history/sub-key/demo/channel/ch,none?max=2&include_meta=true&include_custom_message_type=true")
        XCTAssertEqual(status, 200)
        XCTAssertEqual(body, #"{"status":200,"error":false,"error_message":"","channels":{"ch":["#
            + #"{"message":"two","timetoken":"\#(tt[1])","uuid":"tester","message_type":null,"custom_message_type":"text-msg","meta":""},"#
            + #"{"message":3,"timetoken":"\#(tt[2])","uuid":"tester","message_type":null,"meta":""}]}}"#)
        let plain = router.call("/v3/history/sub-key/demo/channel/ch?end=\(tt[2])&include_uuid=false&include_message_type=false").1
        XCTAssertEqual(plain, #"{"status":200,"error":false,"error_message":"","channels":{"ch":[{"message":3,"timetoken":"\#(tt[2])"}]}}"#)
        XCTAssertEqual(router.call("/v3/history-with-actions/sub-key/demo/channel/ch?max=25").0, 200)
    }

    func testMessageCountsAndDelete() throws {
        let (router, tt) = seeded()
        XCTAssertEqual(router.call("/v3/history/sub-key/demo/message-counts/ch,x?timetoken=\(tt[0])").1,
                       #"{"status":200,"error":false,"error_message":"","channels":{"ch":2,"x":0},"more":{}}"#)
        XCTAssertEqual(router.call("/v3/history/sub-key/demo/message-counts/ch,x?channelsTimetoken=0,5").1,
                       #"{"status":200,"error":false,"error_message":"","channels":{"ch":3,"x":0},"more":{}}"#)
        let deleted = router.call("/v3/history/sub-key/demo/channel/ch?start=\(tt[1] + 1)&end=\(tt[1])", method: .DELETE)
        XCTAssertEqual(deleted.1, #"{"status":200,"error":false,"error_message":""}"#)
        XCTAssertEqual(router.call("/v2/history/sub-key/demo/channel/ch").1, #"[[{"a":1},3],\#(tt[0]),\#(tt[2])]"#)
    }

    func testBadInputIsRefusedInPubNubsShape() throws {
        let (router, _) = seeded()
        let many = (0...500).map { "c\($0)" }.joined(separator: ",")
        let hundredOne = (0...100).map { "c\($0)" }.joined(separator: ",")
        let cases: [(String, Int, String)] = [
            ("/v2/history/sub-key/demo/channel/ch?start=abc", 400, "start must be a non-negative integer timetoken"),
            ("/v2/history/sub-key/demo/channel/ch?end=-1", 400, "end must be a non-negative integer timetoken"),
            ("/v2/history/sub-key/demo/channel/ch?count=101", 400, "count must be between 1 and 100"),
            ("/v2/history/sub-key/demo/channel/ch?count=x", 400, "count must be an integer"),
            ("/v2/history/sub-key/demo/channel/ch?reverse=maybe", 400, "reverse must be true or false"),
            ("/v3/history/sub-key/demo/channel/a,b?max=26", 400, "max must be between 1 and 25"),
            ("/v3/history/sub-key/demo/channel/\(many)", 400, "too many channels (limit 500)"),
            ("/v3/history/sub-key/demo/message-counts/\(hundredOne)?timetoken=1", 400, "too many channels (limit 100)"),
            ("/v3/history/sub-key/demo/message-counts/a,b?channelsTimetoken=1,2,3", 400, "one per channel"),
            ("/v3/history/sub-key/demo/message-counts/a", 400, "timetoken or channelsTimetoken is required"),
            ("/v3/history/sub-key/nope/channel/a", 400, "Invalid Key"),
            ("/v2/history/sub-key/nope/channel/a", 400, "Invalid Key"),
            ("/v3/history/sub-key/demo/channel/a.*", 400, "Invalid channel name"),
        ]
        for (uri, status, text) in cases {
            let (got, body) = router.call(uri)
            XCTAssertEqual(got, status, uri)
            XCTAssertTrue(body.contains(text) && body.contains(#""error":true"#), "\(uri): \(body)")
        }
        let (_, noHistory) = (0, Router(node: Node()))
        XCTAssertEqual(noHistory.call("/v2/history/sub-key/demo/channel/ch").0, 403)
    }
}
