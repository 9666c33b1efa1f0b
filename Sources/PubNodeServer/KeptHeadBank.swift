import NIOCore

/// The kept heads (`HTTPRequestParser.KeptHead`) of one event loop's connections, so that
/// connections whose clients send the same header bytes keep one copy of them between them.
///
/// Clients of one SDK send the same method, version and header lines on every connection; only the
/// target differs. Each connection compares its next head with its kept head's bytes, and without
/// the bank each kept its own copy: with thousands of subscribers woken at once, each comparison
/// then reads a few cache lines no other connection shares, which memory has to supply. With the
/// bank, a connection keeping a head whose bytes another connection of the loop already keeps
/// takes that connection's kept head (one immutable object: the bytes and the template), so the
/// loop's comparisons read lines that stay in cache, and each connection holds a reference instead
/// of a copy. What a head means does not change: the template's method, version, framing and
/// field lines are read off those same bytes, its target is empty and each head read off it gets
/// its own target and family; heads are held by their bytes and whether their field lines were read
/// (a poll's template keeps none, a `/time` request's keeps them), so a head takes a template only
/// from one read the same way.
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
    /// The heads held, by their bytes and whether their field lines were read.
    private var heads: [Key: HTTPRequestParser.KeptHead] = [:]

    /// A head's bytes (its target left out) and whether the parse kept its field lines: equal
    /// bytes give different templates for a family that reads no field (an empty field block)
    /// and one that does.
    private struct Key: Hashable {
        var bytes: [UInt8]
        var fieldsUnread: Bool

        func hash(into hasher: inout Hasher) {
            bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
            hasher.combine(fieldsUnread)
        }
    }

    /// A bank for `loop`'s connections.
    init(loop: any EventLoop) {
        self.loop = loop
    }

    /// Distinct heads held now.
    var count: Int { heads.count }

    /// The bank's kept head equal to `head` when it holds one, or `head` itself, which it then
    /// holds for the next connections.
    func share(_ head: HTTPRequestParser.KeptHead) -> HTTPRequestParser.KeptHead {
        // A full parse, not every request: checked in release builds too.
        loop.preconditionInEventLoop()
        let key = Key(bytes: head.bytes, fieldsUnread: head.template.fieldsUnread)
        if let held = heads[key] {
            // The same bytes read the same way give the same head; its field lines are compared
            // byte for byte anyway (not as Unicode text), so a head never takes other lines than
            // its own.
            guard held.template.fieldBlock.utf8.elementsEqual(head.template.fieldBlock.utf8) else { return head }
            return held
        }
        if heads.count >= Self.capacity { heads.removeAll(keepingCapacity: true) }
        heads[key] = head
        return head
    }
}
