import NIOCore
@testable import PubNodeServer
import XCTest

/// Which key a client is limited under.
final class ClientAddressTests: XCTestCase {
    func testIPv4IsItsAddressAndIPv6ItsSlash64() throws {
        XCTAssertEqual(ClientAddress.key(try SocketAddress(ipAddress: "203.0.113.9", port: 1)), "203.0.113.9")
        let one = ClientAddress.key(try SocketAddress(ipAddress: "2001:db8:1:2::1", port: 1))
        let other = ClientAddress.key(try SocketAddress(ipAddress: "2001:db8:1:2:ffff:eeee:dddd:cccc", port: 2))
        XCTAssertEqual(one, "2001:db8:1:2::/64")
        XCTAssertEqual(one, other, "one host's many IPv6 addresses share its network's limits")
        XCTAssertNotEqual(one, ClientAddress.key(try SocketAddress(ipAddress: "2001:db8:1:3::1", port: 1)))
        XCTAssertEqual(ClientAddress.key(try SocketAddress(ipAddress: "::ffff:198.51.100.7", port: 1)), "198.51.100.7")
        XCTAssertNil(ClientAddress.key(try SocketAddress(unixDomainSocketPath: "/tmp/x.sock")))
    }
}
