/// Deliveries counted by one thread and added to their keysets' counters together: a transport
/// answering many polls in one go (an event loop's chunk of woken polls) makes one atomic add per
/// keyset, not one per poll to counters that every thread adds to (and retains).
///
/// Invariant: `deliveries` and `gaps` belong to `counters`; they are added to it by `flush()`,
/// which runs before `counters` changes, and must run before the tally is dropped.
public struct DeliveryTally {
    private var counters: KeysetCounters?
    /// `counters`' address, compared without retaining anything.
    private var countersAddress: UInt?
    private var deliveries = 0
    private var gaps = 0

    /// Nothing counted.
    public init() {}

    /// Counts `batch`, written to a subscriber of the keyset whose counters are at `address`;
    /// `counters` gives them, asked only when the tally holds another keyset's.
    mutating func add(_ batch: DeliveryBatch, toCountersAt address: UInt,
                      _ counters: () -> KeysetCounters) {
        if countersAddress != address {
            // Held strongly from here, so the address is not another's while it is compared.
            flush()
            self.counters = counters()
            countersAddress = address
        }
        deliveries &+= batch.deliveries.count
        if batch.missed { gaps &+= 1 }
    }

    /// The address of `counters`, told without retaining them.
    static func address(of counters: KeysetCounters) -> UInt {
        UInt(bitPattern: Unmanaged.passUnretained(counters).toOpaque())
    }

    /// Adds what was counted to the keysets' counters.
    public mutating func flush() {
        guard let counters, deliveries > 0 || gaps > 0 else { return }
        counters.delivered(deliveries, gaps: gaps)
        deliveries = 0
        gaps = 0
    }
}
