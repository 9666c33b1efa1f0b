import NIOCore

/// Small helpers about the machine the tool runs on.
extension System {
    /// Default number of client event loops: one per core.
    static var coreCountForLoad: Int { max(1, System.coreCount) }
}
