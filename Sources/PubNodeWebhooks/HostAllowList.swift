/// The hosts webhooks may be sent to.
///
/// A webhook URL is chosen by whoever writes the configuration, and the node then sends requests
/// from inside the network it runs in: a careless URL can reach internal services (server-side
/// request forgery). With an allow-list, only the hosts listed are contacted. Entries are host
/// names or IP addresses (`hooks.example.com`, `10.0.0.5`) or domain suffixes (`*.example.com`),
/// compared without case. The check is on the URL's host name, not the address it resolves to.
public struct HostAllowList: Sendable, Equatable {
    /// The entries; empty means every host is allowed.
    public var entries: [String]

    /// Creates a list; an empty list allows every host.
    public init(_ entries: [String] = []) {
        self.entries = entries.map { $0.lowercased() }.filter { !$0.isEmpty }
    }

    /// True when `host` may be contacted.
    public func allows(host: String) -> Bool {
        guard !entries.isEmpty else { return true }
        let host = host.lowercased()
        return entries.contains { entry in
            if entry.hasPrefix("*.") { return host.hasSuffix(entry.dropFirst(1)) }
            return host == entry
        }
    }
}
