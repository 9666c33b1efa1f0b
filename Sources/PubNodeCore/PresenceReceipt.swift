import Synchronization

/// What a presence refresh left behind, so that a subscriber polling again soon after need not
/// refresh again (`KeysetPresence.refresh(_:receipt:)`).
///
/// A subscriber that re-polls after every message refreshes the same uuid on the same channels
/// many times a second, and each refresh hashes the uuid and every channel to push the expiry a
/// few milliseconds further. A refresh repeated within `window(timeoutSeconds:longPollSeconds:)`
/// of the last one is skipped as long as nothing has undone it since (no leave, no timeout, no
/// other request changing an entry's timeout, all counted by `PresenceEpoch`; and the keyset's
/// presence is the same one): the uuid is then still present on exactly those channels, and its
/// expiry is at most the window earlier than an exact refresh would have set it.
///
/// Only a refresh that cannot change anything but the expiry is ever skipped: no `state`, and no
/// channel groups (whose members may have changed since). A receipt belongs to the one update it
/// was returned for; whoever keeps it passes it back only with that update.
public struct PresenceReceipt: Sendable {
    /// The presence the refresh went to, and its change count when the refresh began.
    let epoch: PresenceEpoch
    let changes: UInt64
    /// When the refresh began, on the presence's clock (nanoseconds).
    let refreshedAt: UInt64

    /// How long after a refresh another one with the same update may be skipped: a tenth of the
    /// presence timeout, at most five seconds (a subscriber of a busy channel polls several times
    /// a second, one under load every second or two). When the timeout outlasts a long-poll, so
    /// that a poll's own refresh keeps the uuid present while the poll is parked, the window also
    /// leaves that margin as it was minus `margin`: a skipped refresh never lets a uuid time out
    /// while its poll waits. Nothing is skipped when less than `margin` is spare.
    public static func window(timeoutSeconds: Int, longPollSeconds: Int) -> UInt64 {
        let timeout = UInt64(max(timeoutSeconds, 1))
        let tenth = min(5_000_000_000, timeout &* 100_000_000)
        guard timeoutSeconds > longPollSeconds else { return tenth }
        let spare = timeoutSeconds - longPollSeconds - margin
        return spare > 0 ? min(tenth, UInt64(spare) &* 1_000_000_000) : 0
    }

    /// Seconds of a long-poll's margin before its uuid's expiry that a skipped refresh never uses:
    /// room for the sweep's period and the client's next request.
    static let margin = 5

    /// Whether a refresh of `update` in `epoch` at `now` changes nothing this receipt's refresh did
    /// not already do (`window` nanoseconds from `window(timeoutSeconds:longPollSeconds:)`).
    func covers(_ update: PresenceUpdate, in epoch: PresenceEpoch, window: UInt64, now: UInt64) -> Bool {
        update.state == nil && update.groups.isEmpty && self.epoch === epoch
            && now >= refreshedAt && now - refreshedAt < window
            && epoch.changes == changes
    }
}

/// Counts the changes to one keyset's presence that can undo a refresh (every leave and timeout,
/// and every refresh that changes an entry's timeout), so that a `PresenceReceipt` can tell, with
/// one atomic load, that none happened since.
///
/// A change is counted while its user's mutex is held, and a refresh reads the count before it
/// takes that mutex: a change the count read includes came before the refresh (which then
/// restored the presence), and one it does not include makes the next receipt check fail.
final class PresenceEpoch: Sendable {
    private let count = Atomic<UInt64>(0)

    /// Changes so far.
    var changes: UInt64 { count.load(ordering: .acquiring) }

    /// Records a change (with the changed user's mutex held).
    func advance() {
        count.add(1, ordering: .releasing)
    }
}
