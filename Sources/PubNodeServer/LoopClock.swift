import NIOCore

/// One event loop's clock for all its connections: a single repeated task, once a second, answers
/// the long-polls whose deadline has passed and, every quarter of the idle time, runs each
/// connection's idle check.
///
/// Connections used to keep two NIO timers each (a repeated idle check and a long-poll timer).
/// NIO keeps a loop's timers in one heap and cancels by scanning it, so with tens of thousands of
/// connections every close (and every cancelled timer) cost a scan of all the others' timers, and
/// every connection held the timers' tasks, closures and promises. Here a connection costs a slot
/// in an array, found again by its index. A tick visits only the connections it has to: those
/// whose long-poll deadline it reached, found by scanning an array of those deadlines (eight to a
/// cache line), and every connection only when an idle check is due. Visiting every connection
/// every second would bring every handler into cache every second: with tens of thousands of
/// connections, milliseconds of waiting for memory on the loop, in the middle of whatever
/// fan-out it is answering.
///
/// A long-poll is answered at the first tick at or after its deadline: about a second late at
/// most (a tick is scheduled a second after the previous one finished). A connection is closed
/// once it has been silent for the idle time, about two check periods after it at most (each
/// check comes at the first tick after its time).
///
/// `@unchecked Sendable`: every member is used only on `loop` (connections register and leave
/// from their handler's callbacks, and the tick runs there); it is shared across threads only to
/// be found by the loop's connections (`WakeQueues`).
final class LoopClock: @unchecked Sendable {
    /// How often the clock ticks.
    static let tick = TimeAmount.seconds(1)

    let loop: any EventLoop
    /// The time between idle checks (a quarter of the idle time, rounded up to whole ticks); nil
    /// when connections never idle out.
    let idleCheckPeriod: TimeAmount?
    /// Quiet checks in a row after which a connection has been silent for the whole idle time:
    /// the idle time over the check period, rounded up (4 when the quarter is whole ticks).
    let quietChecksBeforeClose: Int
    private var connections: [PubNodeHTTPHandler] = []
    /// When each connection, by its slot, is next visited without an idle check: its parked
    /// long-poll's deadline (uptime nanoseconds; `UInt64.max` when it has none). The handler still
    /// decides: a visited connection whose poll was answered since does nothing.
    private var dueAt: [UInt64] = []
    private var task: RepeatedTask?
    /// When the next idle check is due: checks go by time, not by counted ticks, so the time a tick
    /// itself takes does not add up over a check period.
    private var nextIdleCheck = NIODeadline.distantFuture

    /// A clock for `loop`, with idle checks every quarter of `idleConnectionSeconds` (none at 0).
    init(loop: any EventLoop, idleConnectionSeconds: Int) {
        self.loop = loop
        // Clamped so the arithmetic cannot overflow (68 years is as good as never).
        let idleConnectionSeconds = min(idleConnectionSeconds, Int(Int32.max))
        let quarterMilliseconds = idleConnectionSeconds * 1000 / ConnectionClocks.checksPerIdleTime
        let tickMilliseconds = Int(Self.tick.nanoseconds / 1_000_000)
        guard idleConnectionSeconds > 0 else {
            (idleCheckPeriod, quietChecksBeforeClose) = (nil, 0)
            return
        }
        let ticks = max(1, (quarterMilliseconds + tickMilliseconds - 1) / tickMilliseconds)
        let periodMilliseconds = ticks * tickMilliseconds
        idleCheckPeriod = Self.tick * ticks
        quietChecksBeforeClose = (idleConnectionSeconds * 1000 + periodMilliseconds - 1) / periodMilliseconds
    }

    /// The connections registered now.
    var count: Int { connections.count }
    /// How many connections the last tick visited.
    private(set) var visited = 0
    /// Registers `connection` (once); the clock starts with its first connection.
    func add(_ connection: PubNodeHTTPHandler) {
        loop.preconditionInEventLoop()
        guard connection.clockSlot == nil else { return }
        connection.clockSlot = connections.count
        connections.append(connection)
        dueAt.append(.max)
        if task == nil {
            if let idleCheckPeriod { nextIdleCheck = loop.now + idleCheckPeriod }
            // Held strongly: the task is cancelled when the last connection leaves, or with the loop.
            task = loop.scheduleRepeatedTask(initialDelay: Self.tick, delay: Self.tick) { _ in self.fire() }
        }
    }

    /// Unregisters `connection`; the clock stops with its last connection.
    func remove(_ connection: PubNodeHTTPHandler) {
        loop.preconditionInEventLoop()
        guard let slot = connection.clockSlot, slot < connections.count, connections[slot] === connection else { return }
        connection.clockSlot = nil
        let last = connections.removeLast()
        let lastDue = dueAt.removeLast()
        if slot < connections.count {
            connections[slot] = last
            dueAt[slot] = lastDue
            last.clockSlot = slot
        }
        if connections.isEmpty {
            task?.cancel()
            task = nil
        }
    }

    /// Visits the connection in `slot` at the first tick at or after `deadline` (its parked
    /// long-poll's).
    func schedule(slot: Int, at deadline: NIODeadline) {
        dueAt[slot] = deadline.uptimeNanoseconds
    }

    private func fire() {
        let now = loop.now
        var idleCheck = false
        if let idleCheckPeriod, now >= nextIdleCheck {
            idleCheck = true
            nextIdleCheck = now + idleCheckPeriod
        }
        // Those due are visited now (each parks again with a deadline of its own, if at all).
        let nanoseconds = now.uptimeNanoseconds
        var due: [PubNodeHTTPHandler] = []
        for slot in dueAt.indices where dueAt[slot] <= nanoseconds {
            dueAt[slot] = .max
            if !idleCheck { due.append(connections[slot]) }
        }
        // A connection may close (and leave the array) during its turn: visit a snapshot.
        let visiting = idleCheck ? connections : due
        visited = visiting.count
        for connection in visiting {
            connection.clockTicked(now: now, idleCheck: idleCheck)
        }
    }
}
