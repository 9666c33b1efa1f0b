import PubNodeCore
import PubNodeHistorySQLite
import PubNodeServer
import XCTest

final class HistoryRestartTests: XCTestCase {
    /// Publish, stop, start on the same file: a subscriber with a cursor from before the restart
    /// catches up, fetch returns everything, and the clock never issues a stored timetoken again.
    func testCatchUpAndFetchSurviveARestart() throws {
        let path = try HistoryFixture.directory(self) + "/history.sqlite"
        let before: UInt64
        var published: [UInt64] = []
        do {
            let (node, router) = HistoryFixture.node(store: SQLiteHistoryStore(database: try HistoryDatabase.file(path: path)))
            before = node.clock.current().rawValue
            for index in 0..<5 { published.append(router.publish("room", "\(index)")) }
            node.history!.close()
        }
        let (node, router) = HistoryFixture.node(store: SQLiteHistoryStore(database: try HistoryDatabase.file(path: path)))
        let report = try node.history!.restore(into: node)
        XCTAssertEqual(report.messages, 5)
        XCTAssertEqual(report.newest?.rawValue, published.last)
        XCTAssertGreaterThan(node.clock.next().rawValue, published.last!)

        guard case .poll(let poll) = router.route(try PubNubRequest(method: .GET, uri: "/v2/subscribe/demo/room/0?tt=\(before)")) else {
            return XCTFail("expected a subscribe")
        }
        let ready = poll.read()
        XCTAssertEqual(ready.deliveries.map(\.message.timetoken.rawValue), published)
        XCTAssertEqual(ready.deliveries.map { String(decoding: $0.message.payload, as: UTF8.self) }, ["0", "1", "2", "3", "4"])

        let next = router.publish("room", "5")
        XCTAssertGreaterThan(next, published.last!)
        let fetched = router.call("/v3/history/sub-key/demo/channel/room").1
        for timetoken in published + [next] { XCTAssertTrue(fetched.contains("\"\(timetoken)\""), fetched) }
    }
}
