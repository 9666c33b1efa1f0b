import NIOCore

/// The key a client is limited under: its IPv4 address, or the /64 network of its IPv6 address
/// (one host usually holds a whole /64, so per-address keys would give it endless fresh buckets).
/// An IPv4-mapped IPv6 address counts as its IPv4 address.
enum ClientAddress {
    /// The limiting key of `address`, nil for a Unix socket.
    static func key(_ address: SocketAddress) -> String? {
        switch address {
        case .v4:
            return address.ipAddress
        case .v6(let v6):
            var raw = v6.address.sin6_addr
            let bytes = withUnsafeBytes(of: &raw) { Array($0) }
            let mapped = bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF
            if mapped { return bytes[12...].map(String.init).joined(separator: ".") }
            return network(bytes)
        case .unixDomainSocket:
            return nil
        }
    }

    /// `xxxx:xxxx:xxxx:xxxx::/64` of a 16-byte IPv6 address.
    static func network(_ bytes: [UInt8]) -> String {
        let groups = stride(from: 0, to: 8, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
        return groups.joined(separator: ":") + "::/64"
    }
}
