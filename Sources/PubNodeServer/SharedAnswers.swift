import NIOCore
import PubNodeCore

/// Answers computed once and reused by every poll that would compute the same one: subscribers of
/// one channel holding the same cursor get byte-identical responses, so the buffer is read,
/// rendered and serialized once and written to each socket as is.
///
/// Two uses, both on one event loop and never shared across threads: one per wake batch (every
/// woken poll of the batch with the same key shares the answer read for the first), and one per
/// loop for polls that find messages at once (`LoopWakeQueue.recentAnswers`), where an answer is
/// reused only for a poll that read the very same messages (`answer(for:reading:)`).
final class SharedAnswers {
    /// What makes two answers identical.
    struct Key: Hashable {
        var subscribeKey: String
        var channel: String
        var cursor: Timetoken
        /// The subscriber's filter text: polls with different filters never share an answer.
        var filter: FilterText?
        var minorVersion: Int
        var keepAlive: Bool
    }

    /// A filter's text compared and hashed as bytes: filters compare message text byte by byte,
    /// so two texts Swift's `==` calls equal (one precomposed, one with a combining mark) may
    /// filter differently and must not share.
    struct FilterText: Hashable {
        var text: String

        static func == (lhs: Self, rhs: Self) -> Bool { lhs.text.utf8.elementsEqual(rhs.text.utf8) }

        func hash(into hasher: inout Hasher) {
            hasher.combine(text.utf8.count)
            for byte in text.utf8 { hasher.combine(byte) }
        }
    }

    /// An answer's bytes and the batch it carries (counted once per poll it answers). A class,
    /// immutable: looking one up and handing it on costs one retain, where a tuple would copy the
    /// buffer and every array of the batch.
    final class Answer {
        /// The serialized response.
        let bytes: ByteBuffer
        /// The messages it carries.
        let batch: DeliveryBatch

        init(bytes: ByteBuffer, batch: DeliveryBatch) {
            self.bytes = bytes
            self.batch = batch
        }
    }

    /// The largest answer a bounded instance keeps.
    static let maxKeptBytes = 64 * 1024

    /// Each answer by its key.
    private var responses: [Key: Answer] = [:]
    /// The answer looked up or kept last: most polls of a batch share it, and comparing a key
    /// whose strings share storage with this one is cheaper than hashing it.
    private var last: (key: Key, answer: Answer)?
    /// Most answers kept at once (older ones are dropped when it is reached); nil for no bound.
    private let limit: Int?

    /// An empty set of answers; with a `limit`, it keeps at most that many, none larger than
    /// `maxKeptBytes`.
    init(limit: Int? = nil) {
        self.limit = limit
    }

    /// The answer kept for `key`, if any.
    func answer(for key: Key) -> Answer? {
        if let last, last.key == key { return last.answer }
        guard let answer = responses[key] else { return nil }
        last = (key, answer)
        return answer
    }

    /// The answer kept for `key` when it carries exactly the messages of `batch`, read for the same
    /// key: the same last timetoken, count, first message and gaps. A channel's buffer only grows
    /// at its end and drops at its start, both when a message is added, so such a batch holds the
    /// same messages and renders to the same bytes.
    func answer(for key: Key, reading batch: DeliveryBatch) -> Answer? {
        guard let kept = answer(for: key), kept.batch.next == batch.next,
              kept.batch.deliveries.count == batch.deliveries.count,
              kept.batch.deliveries.first?.message === batch.deliveries.first?.message,
              kept.batch.gaps == batch.gaps
        else { return nil }
        return kept
    }

    /// Keeps `answer` for `key` (a bounded instance skips answers over `maxKeptBytes`, and starts
    /// over when full).
    func keep(_ answer: Answer, for key: Key) {
        if let limit {
            guard answer.bytes.readableBytes <= Self.maxKeptBytes else { return }
            if responses.count >= limit { removeAll() }
        }
        responses[key] = answer
        last = (key, answer)
    }

    /// Forgets every answer.
    func removeAll() {
        guard last != nil || !responses.isEmpty else { return }
        responses.removeAll()
        last = nil
    }
}
