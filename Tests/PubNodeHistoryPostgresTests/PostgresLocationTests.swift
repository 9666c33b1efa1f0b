import PubNodeHistoryPostgres
import XCTest

/// `--history-url` parsing: what is accepted, and a clear reason for what is not.
final class PostgresLocationTests: XCTestCase {
    func testAFullURLIsRead() throws {
        let location = try PostgresLocation(url: "postgres://ann:s%40cret@db.example:6543/hist?sslmode=require&pool=4")
        XCTAssertEqual(location.host, "db.example")
        XCTAssertEqual(location.port, 6543)
        XCTAssertEqual(location.user, "ann")
        XCTAssertEqual(location.password, "s@cret")
        XCTAssertEqual(location.database, "hist")
        XCTAssertEqual(location.sslMode, "require")
        XCTAssertEqual(location.poolSize, 4)
        XCTAssertEqual(location.description, "postgres://ann@db.example:6543/hist", "no password in logs")
        XCTAssertEqual(try PostgresLocation(url: "postgresql://u@[::1]/d").host, "::1")
        XCTAssertEqual(try PostgresLocation(url: "postgresql://u@h/d").port, 5432)
    }

    func testMalformedURLsAreRefusedWithTheReason() {
        let cases = [
            ("mysql://u@h/d", "scheme"), ("postgres://h/d", "no user"), ("postgres://u@h", "no database"),
            ("postgres://u@h/", "no database"), ("postgres://u@/d", "no host"), ("postgres://u@h/d?pool=0", "pool"),
            ("postgres://u@h/d?sslmode=maybe", "sslmode"), ("postgres://u@h/d?x=1", "unknown parameter"),
            ("not a url", "URL"),
        ]
        for (url, reason) in cases {
            XCTAssertThrowsError(try PostgresLocation(url: url), url) { error in
                XCTAssertTrue("\(error)".contains(reason), "\(url): \(error)")
            }
        }
    }
}
