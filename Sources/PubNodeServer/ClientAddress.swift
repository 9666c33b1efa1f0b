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

    /// Whether `address` is loopback, private or link-local (IPv4 127/8, 10/8, 172.16/12,
    /// 192.168/16, 169.254/16; IPv6 ::1, fc00::/7, fe80::/10; IPv4-mapped ones as IPv4): where
    /// reverse proxies and load balancers connect from, so that many clients share it.
    static func isPrivate(_ address: SocketAddress) -> Bool {
        switch address {
        case .v4(let v4):
            return withUnsafeBytes(of: v4.address.sin_addr) { isPrivateIPv4($0[0], $0[1]) }
        case .v6(let v6):
            return withUnsafeBytes(of: v6.address.sin6_addr) { bytes in
                if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
                    return isPrivateIPv4(bytes[12], bytes[13])
                }
                let loopback = bytes[0..<15].allSatisfy { $0 == 0 } && bytes[15] == 1
                return loopback || bytes[0] & 0xFE == 0xFC || (bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80)
            }
        case .unixDomainSocket:
            return true
        }
    }

    /// Whether an IPv4 address with first octets `a` and `b` is loopback, private or link-local.
    private static func isPrivateIPv4(_ a: UInt8, _ b: UInt8) -> Bool {
        a == 127 || a == 10 || (a == 172 && b & 0xF0 == 16) || (a == 192 && b == 168) || (a == 169 && b == 254)
    }

    /// `xxxx:xxxx:xxxx:xxxx::/64` of a 16-byte IPv6 address.
    static func network(_ bytes: [UInt8]) -> String {
        let groups = stride(from: 0, to: 8, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
        return groups.joined(separator: ":") + "::/64"
    }
}
