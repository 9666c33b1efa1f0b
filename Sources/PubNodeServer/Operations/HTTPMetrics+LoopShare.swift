import Synchronization

extension HTTPMetrics {
    /// One event loop's request counts and latencies: counts by family and usual status, a latency
    /// histogram by family, and a small table of the other statuses.
    ///
    /// Invariant (why `@unchecked Sendable` holds): `slots` is allocated and initialized in `init`,
    /// freed in `deinit`, and read and written only through its atomics; only the share's own
    /// loop calls `record`, so an add is a relaxed load and store that no other writer interleaves
    /// with. A scrape, on any thread, loads relaxed: it may miss a request recorded meanwhile,
    /// never tear a count.
    final class LoopShare: @unchecked Sendable {
        /// The latency buckets' bounds (nanoseconds, ascending); one more bucket holds the rest.
        private let bounds: [Int64]
        /// Counts by family and status column, then each family's buckets, then each family's sum.
        private let slots: UnsafeMutablePointer<Atomic<UInt64>>
        private let slotCount: Int
        /// Counts of statuses outside `HTTPMetrics.statuses`, by `family * 1000 + status`.
        private let rare = Mutex<[Int: UInt64]>([:])

        private static var families: Int { RequestFamily.allCases.count }
        private static var columns: Int { HTTPMetrics.statuses.count }

        init(bounds: [Int64]) {
            self.bounds = bounds
            slotCount = Self.families * (Self.columns + bounds.count + 2)
            slots = .allocate(capacity: slotCount)
            for index in 0..<slotCount { (slots + index).initialize(to: Atomic(0)) }
        }

        deinit {
            slots.deinitialize(count: slotCount)
            slots.deallocate()
        }

        /// Counts an answer with `status` to a request of `family`, and observes its latency when
        /// given (parked long-polls are counted, not timed: their latency is the wait for a
        /// message). On the share's loop only.
        func record(_ family: RequestFamily, status: UInt, nanoseconds: UInt64?) {
            if let column = status == 200 ? 0 : HTTPMetrics.statuses.firstIndex(of: status) {
                add(1, at: family.rawValue * Self.columns + column)
            } else {
                let key = family.rawValue * 1000 + Int(min(status, 999))
                rare.withLock { $0[key, default: 0] &+= 1 }
            }
            guard let nanoseconds else { return }
            let value = Int64(clamping: nanoseconds)
            var bucket = 0
            while bucket < bounds.count, value > bounds[bucket] { bucket += 1 }
            let histograms = Self.families * Self.columns
            add(1, at: histograms + family.rawValue * (bounds.count + 1) + bucket)
            add(UInt64(value), at: histograms + Self.families * (bounds.count + 1) + family.rawValue)
        }

        /// A single writer's add: no read-modify-write instruction is needed.
        private func add(_ amount: UInt64, at index: Int) {
            let slot = slots + index
            slot.pointee.store(slot.pointee.load(ordering: .relaxed) &+ amount, ordering: .relaxed)
        }

        /// Sums of every share, as a scrape renders them.
        struct Totals {
            var counts: [UInt64]
            var buckets: [UInt64]
            var sums: [UInt64]
            var rare: [Int: UInt64] = [:]

            init(families: Int, buckets: Int) {
                counts = Array(repeating: 0, count: families * HTTPMetrics.statuses.count)
                self.buckets = Array(repeating: 0, count: families * buckets)
                sums = Array(repeating: 0, count: families)
            }
        }

        /// Adds this share's counts to `total`.
        func add(to total: inout Totals) {
            func load(_ index: Int) -> UInt64 { (slots + index).pointee.load(ordering: .relaxed) }
            for index in total.counts.indices { total.counts[index] &+= load(index) }
            let histograms = total.counts.count
            for index in total.buckets.indices { total.buckets[index] &+= load(histograms + index) }
            for index in total.sums.indices { total.sums[index] &+= load(histograms + total.buckets.count + index) }
            for (key, value) in rare.withLock({ $0 }) { total.rare[key, default: 0] &+= value }
        }
    }
}
