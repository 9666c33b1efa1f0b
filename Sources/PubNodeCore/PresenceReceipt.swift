import Synchronization

/// What a presence refresh left behind, so that a subscriber polling again soon after need not
/// refresh again (`KeysetPresence.refresh(_:after:)`).
///
/// A subscriber that re-polls after every message refreshes the same uuid on the same channels
/// many times a second, and each refresh hashes the uuid and every channel to push the expiry a
/// few milliseconds further. A refresh repeated within `window(timeoutSeconds:)` of the last one
/// is skipped as long as nothing has left the keyset's presence since (no leave and no timeout,
/// and the keyset's presence is the same one): the uuid is then still present on exactly those channels, and its expiry
/// is at most the window earlier than an exact refresh would have set it.
///
/// Only a refresh that cannot change anything but the expiry is ever skipped: no `state`, and no
/// channel groups (whose members may have changed since). A receipt belongs to the one update it
/// was returned for; whoever keeps it passes it back only with that update.
public struct PresenceReceipt: Sendable {
    /// The presence the refresh went to, and its removal count when the refresh began.
    let epoch: PresenceEpoch
    let removals: UInt64
    /// When the refresh began, on the presence's clock (nanoseconds).
    let refreshedAt: UInt64

    /// How long after a refresh another one with the same update may be skipped: a tenth of the
    /// presence timeout, at most five seconds (a subscriber of a busy channel polls several times
    /// a second, one under load every second or two).
    public static func window(timeoutSeconds: Int) -> UInt64 {
        min(5_000_000_000, UInt64(max(timeoutSeconds, 1)) &* 100_000_000)
    }

    /// Whether a refresh of `update` in `epoch` at `now` (with `timeoutSeconds` in force) changes
    /// nothing this receipt's refresh did not already do.
    func covers(_ update: PresenceUpdate, in epoch: PresenceEpoch, timeoutSeconds: Int, now: UInt64) -> Bool {
        update.state == nil && update.groups.isEmpty && self.epoch === epoch
            && now >= refreshedAt && now - refreshedAt < Self.window(timeoutSeconds: timeoutSeconds)
            && epoch.removals == removals
    }
}

/// Counts the removals from one keyset's presence (every leave and timeout), so that a
/// `PresenceReceipt` can tell, with one atomic load, that nobody has left since.
///
/// A removal is counted while its user's mutex is held, and a refresh reads the count before it
/// takes that mutex: a removal the count read includes came before the refresh (which then
/// restored the presence), and one it does not include makes the next receipt check fail.
final class PresenceEpoch: Sendable {
    private let count = Atomic<UInt64>(0)

    /// Removals so far.
    var removals: UInt64 { count.load(ordering: .acquiring) }

    /// Records a removal (with the removed user's mutex held).
    func advance() {
        count.add(1, ordering: .releasing)
    }
}
