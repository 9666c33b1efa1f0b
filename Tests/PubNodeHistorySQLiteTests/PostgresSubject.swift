import Foundation
import PubNodeHistoryPostgres
import PubNodeTestSupport
import Synchronization
import XCTest

/// PostgreSQL as a subject of the shared store suites: one server per test class (started in the
/// class's `setUp`), a fresh schema per test.
///
/// Without PostgreSQL the suites run over the other stores only, unless
/// `PUBNODE_REQUIRE_POSTGRES=1`: then every test fails with the reason the server did not start
/// (as it does whenever an installed server fails to start).
enum PostgresSubject {
    private static let servers = Mutex<[String: Result<PostgresServerProcess, any Error>]>([:])

    /// Starts the server of `testClass` (call from `class func setUp()`).
    static func start(for testClass: AnyClass) {
        let result = Result { try PostgresServerProcess.start() }
        servers.withLock { $0["\(testClass)"] = result }
    }

    /// Stops and deletes the server of `testClass` (call from `class func tearDown()`).
    static func stop(for testClass: AnyClass) {
        let server = servers.withLock { $0.removeValue(forKey: "\(testClass)") }
        if case .success(let server) = server { server.destroy() }
    }

    /// A migrated database in a new schema of the class's server, closed when the test ends; nil
    /// when PostgreSQL is absent (and not required).
    static func database(_ test: XCTestCase) throws -> PostgresDatabase? {
        let server = servers.withLock { $0["\(type(of: test))"] }
        switch server {
        case .success(let server):
            var location = try PostgresLocation(url: server.url)
            location.schema = try server.makeSchema()
            let database = try PostgresHistory.open(location)
            test.addTeardownBlock { database.close() }
            return database
        case .failure(let error):
            // Absent PostgreSQL is a skip (start throws XCTSkip); absent but required, a failure.
            if error is XCTSkip { return nil }
            throw error
        case nil:
            return nil
        }
    }
}
