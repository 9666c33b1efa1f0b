import Synchronization

/// Whether the node should be sent traffic (`GET /ready`): not while it drains, nor while a
/// dependency registered with `addCheck` reports a fault.
public final class Readiness: Sendable {
    private let draining = Atomic<Bool>(false)
    private let checks = Mutex<[(name: String, isHealthy: @Sendable () -> Bool)]>([])

    /// Ready, with no checks.
    public init() {}

    /// The node has begun to drain: it stops being ready for good.
    public func markDraining() {
        draining.store(true, ordering: .relaxed)
    }

    /// Whether the node is draining.
    public var isDraining: Bool { draining.load(ordering: .relaxed) }

    /// Adds a dependency check: while `isHealthy` answers false, the node is not ready and `/ready`
    /// names `name` among its reasons.
    public func addCheck(_ name: String, _ isHealthy: @escaping @Sendable () -> Bool) {
        checks.withLock { $0.append((name, isHealthy)) }
    }

    /// Why the node is not ready; empty when it is.
    public var reasons: [String] {
        var reasons = isDraining ? ["draining"] : []
        let checks = self.checks.withLock { $0 }
        for check in checks where !check.isHealthy() { reasons.append(check.name) }
        return reasons
    }
}
