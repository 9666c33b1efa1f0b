import ArgumentParser

/// Which server's URL shapes a scenario speaks.
enum ServerTarget: String, ExpressibleByArgument, CaseIterable, Sendable {
    /// PubNode, speaking PubNub's HTTP wire protocol.
    case pubnode
    /// nginx with the Nchan module, configured by `Deploy/nchan/nginx.conf`.
    case nchan
}
