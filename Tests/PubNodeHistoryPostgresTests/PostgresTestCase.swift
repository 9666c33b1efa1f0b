import Foundation
import PubNodeCore
import PubNodeServer
import PubNodeHistoryPostgres
import PubNodeTestSupport
import Synchronization
import XCTest

/// A test case with one throwaway PostgreSQL server for the whole class (started once: `initdb`
/// costs seconds) and a fresh schema for each test.
class PostgresTestCase: XCTestCase {
    private static let servers = Mutex<[String: Result<PostgresServerProcess, any Error>]>([:])

    override class func setUp() {
        let result = Result { try PostgresServerProcess.start() }
        servers.withLock { $0["\(self)"] = result }
    }

    override class func tearDown() {
        if case .success(let server) = servers.withLock({ $0.removeValue(forKey: "\(self)") }) { server.destroy() }
    }

    /// The class's server; skips the test (or fails it under `PUBNODE_REQUIRE_POSTGRES=1`) without one.
    var server: PostgresServerProcess {
        get throws {
            switch Self.servers.withLock({ $0["\(type(of: self))"] }) {
            case .success(let server): return server
            case .failure(let error): throw error
            case nil: throw Failure("no server started for \(type(of: self))")
            }
        }
    }

    /// A location in a new schema of the class's server.
    func location() throws -> PostgresLocation {
        let server = try server
        var location = try PostgresLocation(url: server.url)
        location.schema = try server.makeSchema()
        return location
    }

    /// A migrated database in a new schema, closed when the test ends.
    func database(timeout: Duration = .seconds(5), location: PostgresLocation? = nil) throws -> PostgresDatabase {
        let database = PostgresDatabase(try location ?? self.location(), timeout: timeout, probeInterval: .milliseconds(100))
        addTeardownBlock { database.close() }
        try database.migrate()
        return database
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}

extension Router {
    /// Routes `uri` (GET) through the production router and returns the reply's status.
    func status(_ uri: String) -> Int {
        guard let request = try? PubNubRequest(method: .GET, uri: uri), let reply = answerWaiting(request) else { return 0 }
        return Int(reply.status.code)
    }
}
