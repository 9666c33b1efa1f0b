import CPubNodePrefetch

/// Cache-prefetch hints for the fan-out's two passes over its connections.
///
/// A fan-out to thousands of subscribers answers every one of them, then reads every one's next
/// poll; between two touches of one connection's objects, every other connection's have passed
/// through the cache, so each first touch waits for memory (about 64 such waits a delivery,
/// twenty-second to twenty-seventh series in `Docs/performance.md`). Those waits happen one after
/// another as the code reaches each object. Asked for ahead of use, the lines arrive together,
/// while other work runs: the answer queue asks for the next polls' lines while it answers the
/// current one (`LoopWakeQueue`), and a connection's read asks for what its repeated poll will
/// read before parsing the request (`PubNodeHTTPHandler.prefetchForRead()`).
///
/// A hint only: a prefetch never faults and changes nothing but timing, so an address may be
/// stale (an object freed since) without harm. No object is retained or read to give its address.
enum Prefetch {
    /// Most bytes of one object asked for: objects larger than this are asked for in part.
    static let maxBytes = 1024

    /// Asks for the lines of `object`, `bytes` long from its start, without retaining it.
    @inline(__always)
    static func object<Object: AnyObject>(_ object: Object, bytes: Int) {
        pubnode_prefetch(address(of: object), bytes)
    }

    /// Asks for `bytes` bytes from `address`, when there is one.
    @inline(__always)
    static func lines(at address: UnsafeRawPointer?, bytes: Int) {
        guard let address else { return }
        pubnode_prefetch(address, bytes)
    }

    /// The address of `object`, for prefetching it later without reading what refers to it; not
    /// retained, never dereferenced.
    @inline(__always)
    static func address<Object: AnyObject>(of object: Object) -> UnsafeRawPointer {
        UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
    }

    /// The bytes to ask for of `object`, at most `maxBytes`: what the allocator holds for it,
    /// which covers the instance. Read once per object (it reads the allocator's header before it).
    ///
    /// Precondition: `object` is a live instance the Swift runtime allocated on the heap (through
    /// `malloc`, or `aligned_alloc` for a larger alignment) and that escaped: never one the
    /// optimizer placed on the stack, nor a static or immortal one, for which the allocator's
    /// answer is undefined. The callers pass connection objects that outlive the call: the
    /// handler, NIO's context, channel and pipeline, the kept subscribe and its prepared request.
    static func heapBytes<Object: AnyObject>(of object: Object) -> Int {
        min(Int(pubnode_heap_bytes(address(of: object))), maxBytes)
    }
}

/// Addresses to prefetch, each with its length, kept where the code that will read them can find
/// them among bytes it reads anyway: reading through the objects themselves to reach the next
/// address would wait for each line in turn, the very wait a prefetch is to spare.
struct PrefetchList {
    private var addresses: (UnsafeRawPointer?, UnsafeRawPointer?, UnsafeRawPointer?, UnsafeRawPointer?) =
        (nil, nil, nil, nil)
    private var lengths: (UInt16, UInt16, UInt16, UInt16) = (0, 0, 0, 0)

    /// At most this many addresses.
    static let capacity = 4

    /// Sets slot `index` (below `capacity`) to `bytes` bytes from `address`; nil clears it.
    mutating func set(_ index: Int, _ address: UnsafeRawPointer?, bytes: Int) {
        assert((0..<Self.capacity).contains(index), "no prefetch slot \(index)")
        let length = UInt16(clamping: min(bytes, Prefetch.maxBytes))
        switch index {
        case 0: addresses.0 = address; lengths.0 = length
        case 1: addresses.1 = address; lengths.1 = length
        case 2: addresses.2 = address; lengths.2 = length
        default: addresses.3 = address; lengths.3 = length
        }
    }

    /// The address in slot `index`.
    func address(_ index: Int) -> UnsafeRawPointer? {
        switch index {
        case 0: addresses.0
        case 1: addresses.1
        case 2: addresses.2
        default: addresses.3
        }
    }

    /// The bytes asked for from the address in slot `index`.
    func bytes(_ index: Int) -> Int {
        switch index {
        case 0: Int(lengths.0)
        case 1: Int(lengths.1)
        case 2: Int(lengths.2)
        default: Int(lengths.3)
        }
    }

    /// Clears every slot.
    mutating func removeAll() {
        self = PrefetchList()
    }

    /// Asks for every address's lines.
    @inline(__always)
    func prefetch() {
        prefetch(0..<Self.capacity)
    }

    /// Asks for the lines of the addresses in `slots`.
    @inline(__always)
    func prefetch(_ slots: Range<Int>) {
        if slots.contains(0) { Prefetch.lines(at: addresses.0, bytes: Int(lengths.0)) }
        if slots.contains(1) { Prefetch.lines(at: addresses.1, bytes: Int(lengths.1)) }
        if slots.contains(2) { Prefetch.lines(at: addresses.2, bytes: Int(lengths.2)) }
        if slots.contains(3) { Prefetch.lines(at: addresses.3, bytes: Int(lengths.3)) }
    }

    /// Asks for the lines of the address in `slot`.
    @inline(__always)
    func prefetch(_ slot: Int) {
        prefetch(slot..<(slot + 1))
    }
}
