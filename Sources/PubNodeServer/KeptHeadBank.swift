import NIOCore

/// The kept heads (`HTTPRequestParser.KeptHead`) of one event loop's connections, so that
/// connections whose clients send the same header bytes keep one copy of them between them.
///
/// Clients of one SDK send the same method, version and header lines on every connection; only the
/// target differs. Each connection compares its next head with its kept head's bytes, and without
/// the bank each kept its own copy: with thousands of subscribers woken at once, each comparison
/// then reads a few cache lines no other connection shares, which memory has to supply. With the
/// bank, a connection keeping a head whose bytes another connection of the loop already keeps
/// takes that copy's storage (the bytes and the field lines of its template), so the loop's
/// comparisons read lines that stay in cache, and each connection holds a reference instead of a
/// copy. What a head means does not change: the bytes shared are equal to the connection's own.
///
/// At most `capacity` distinct heads are kept; when it is full and another one comes, the bank
/// starts over, so its memory is bounded whatever heads arrive (a connection keeps whatever it
/// took until it keeps another head).
///
/// Invariant: used only on `loop` (a connection's parser runs on its channel's loop), which is why
/// it is `@unchecked Sendable`: its table is never touched from two threads.
final class KeptHeadBank: @unchecked Sendable {
    /// Most distinct heads held.
    static let capacity = 64

    /// The loop whose connections share these heads.
    let loop: any EventLoop
    /// A head's bytes (its target left out) and its template's field lines.
    private var heads: [[UInt8]: String] = [:]

    /// A bank for `loop`'s connections.
    init(loop: any EventLoop) {
        self.loop = loop
    }

    /// Distinct heads held now.
    var count: Int { heads.count }

    /// Gives `head` the bank's storage of equal bytes and field lines when it holds them, or
    /// adds them when it does not.
    func share(_ head: inout HTTPRequestParser.KeptHead) {
        loop.assertInEventLoop()
        if let index = heads.index(forKey: head.bytes) {
            let (bytes, fieldBlock) = heads[index]
            // Equal bytes hold equal field lines; compared byte for byte (not as Unicode text), so
            // a head never takes another's.
            guard fieldBlock.utf8.elementsEqual(head.template.fieldBlock.utf8) else { return }
            head.bytes = bytes
            head.template.fieldBlock = fieldBlock
            return
        }
        if heads.count >= Self.capacity { heads.removeAll(keepingCapacity: true) }
        heads[head.bytes] = head.template.fieldBlock
    }
}
