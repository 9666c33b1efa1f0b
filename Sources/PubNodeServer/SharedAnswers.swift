import NIOCore
import PubNodeCore

/// Answers computed once and reused by every poll that would compute the same one: subscribers of
/// one channel holding the same cursor get byte-identical responses, so the buffer is read,
/// rendered and serialized once and written to each socket as is.
///
/// One per chunk of a loop's answer queue (`LoopWakeQueue`), on its event loop and never shared
/// across threads: every poll of the chunk with the same key (woken by a publish, or one that found
/// its messages when it arrived) shares the answer read for the first.
final class SharedAnswers {
    /// What makes two answers identical.
    ///
    /// The channel is its state, which names one channel of one keyset (a hub per keyset, a state
    /// per live channel), by its identity alone: building and comparing a key retains nothing.
    /// The state is shared by every event loop's polls of the channel, so each retain of it was a
    /// write to a line the other loops write too. An identity stays unambiguous because every
    /// kept key's answer holds its state (`Answer.channel`): no other state can take the address
    /// while the key is kept. Two polls holding different states of one channel (one reclaimed
    /// and made again) only miss sharing.
    struct Key: Hashable {
        var channel: ObjectIdentifier
        var cursor: Timetoken
        /// The subscriber's filter text: polls with different filters never share an answer.
        var filter: FilterText?
        var minorVersion: Int
        var keepAlive: Bool

        /// The key of a poll of the channel state with identity `channelID`.
        init(channelID: ObjectIdentifier, cursor: Timetoken, filter: FilterText?, minorVersion: Int, keepAlive: Bool) {
            self.channel = channelID
            self.cursor = cursor
            self.filter = filter
            self.minorVersion = minorVersion
            self.keepAlive = keepAlive
        }

        /// `==` as a method, so that a key kept in a stored property is compared where it lies.
        func equals(_ other: Key) -> Bool { self == other }

        static func == (lhs: Key, rhs: Key) -> Bool {
            lhs.channel == rhs.channel && lhs.cursor == rhs.cursor && lhs.minorVersion == rhs.minorVersion
                && lhs.keepAlive == rhs.keepAlive && lhs.filter == rhs.filter
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(channel)
            hasher.combine(cursor)
            hasher.combine(filter)
            hasher.combine(minorVersion)
            hasher.combine(keepAlive)
        }
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
        /// The state of the channel it answers, held so that its identity in the answer's key is
        /// not given to another state while the answer is kept.
        let channel: ChannelState

        init(bytes: ByteBuffer, batch: DeliveryBatch, channel: ChannelState) {
            self.bytes = bytes
            self.batch = batch
            self.channel = channel
        }
    }

    /// Each answer by its key.
    private var responses: [Key: Answer] = [:]
    /// The key looked up or kept last: most polls of a batch share it, and comparing a key (a
    /// reference and a few values) is cheaper than hashing it. Kept apart from its answer so that
    /// comparing reads it in place (a tuple bound with `if let` would be copied, its channel state
    /// and filter text retained and released, for each poll).
    private var lastKey: Key?
    /// The answer for `lastKey`.
    private var lastAnswer: Answer?

    /// The deliveries of the chunk's shared answers, added to their keysets' counters when the
    /// chunk is done (`finish()`).
    var tally = DeliveryTally()

    /// An empty set of answers.
    init() {}

    /// Ends the chunk: adds its deliveries to the keysets' counters. (Until then a scrape may
    /// read up to a chunk's deliveries fewer.)
    func finish() {
        tally.flush()
    }

    deinit {
        // A backstop: a chunk that was not finished still counts what it wrote.
        tally.flush()
    }

    /// The answer kept for `key`, if any.
    func answer(for key: Key) -> Answer? {
        if lastKey?.equals(key) == true, let lastAnswer { return lastAnswer }
        guard let answer = responses[key] else { return nil }
        remember(answer, for: key)
        return answer
    }

    /// Keeps `answer` for `key`.
    func keep(_ answer: Answer, for key: Key) {
        precondition(ObjectIdentifier(answer.channel) == key.channel, "an answer kept under another channel's key")
        responses[key] = answer
        remember(answer, for: key)
    }

    private func remember(_ answer: Answer, for key: Key) {
        lastKey = key
        lastAnswer = answer
    }
}
