import Synchronization

/// Thread-safe error counter that keeps the first few error descriptions as samples.
final class ErrorLog: Sendable {
    /// How many descriptions are kept.
    let sampleLimit: Int
    /// Total errors recorded.
    private let total = Atomic<Int>(0)
    /// First `sampleLimit` descriptions.
    private let kept = Mutex<[String]>([])

    /// Creates a log keeping at most `sampleLimit` samples.
    init(sampleLimit: Int = 8) {
        self.sampleLimit = sampleLimit
    }

    /// Records one error; the description is built only if it will be kept.
    func record(_ describe: () -> String) {
        let index = total.add(1, ordering: .relaxed).oldValue
        guard index < sampleLimit else { return }
        let text = describe()
        kept.withLock { $0.append(text) }
    }

    /// Number of errors recorded so far.
    var count: Int { total.load(ordering: .relaxed) }

    /// The kept descriptions.
    var samples: [String] { kept.withLock { $0 } }

    /// Describes a request lost with its connection, or a failed connection attempt.
    static func loss(request: OutboundRequest?, error: (any Error)?) -> String {
        let cause = error.map { ": \($0)" } ?? ""
        guard let request else { return "connect failed\(cause)" }
        return "\(request.summary) -> connection lost before the response\(cause)"
    }
}
