/// Access Manager v3 permission bits (READ=1, WRITE=2, MANAGE=4, DELETE=8, CREATE=16, GET=32, UPDATE=64, JOIN=128).
public struct AccessPermissions: OptionSet, Sendable, Hashable {
    /// The bitmask as carried in a token.
    public let rawValue: UInt32

    /// Wraps a bitmask (unknown bits are kept).
    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// Subscribe, history, here-now, state, file download.
    public static let read = AccessPermissions(rawValue: 1)
    /// Publish, signal, add message action, send file.
    public static let write = AccessPermissions(rawValue: 2)
    /// Channel-group membership changes, member changes.
    public static let manage = AccessPermissions(rawValue: 4)
    /// Delete history, message actions, files, metadata.
    public static let delete = AccessPermissions(rawValue: 8)
    /// Legacy create bit (only set by the deprecated space/user builders).
    public static let create = AccessPermissions(rawValue: 16)
    /// Read App Context metadata and member lists.
    public static let get = AccessPermissions(rawValue: 32)
    /// Write App Context metadata.
    public static let update = AccessPermissions(rawValue: 64)
    /// Set or remove memberships.
    public static let join = AccessPermissions(rawValue: 128)
}
