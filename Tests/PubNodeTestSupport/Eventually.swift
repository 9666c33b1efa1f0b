import XCTest

/// Polls `condition` until it holds or `timeout` of real time passes; returns whether it held.
///
/// For waiting on work that runs elsewhere (other tasks, event loops, processes): the wait ends as
/// soon as the condition holds, and the timeout only bounds a failing test.
public func eventually(timeout: Duration = .seconds(10), _ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    var pause = Duration.microseconds(100)
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        // A short pause, growing to 10 ms, so the polled work gets the cores.
        try? await Task.sleep(for: pause)
        pause = min(pause * 2, .milliseconds(10))
    }
    return await condition()
}

/// Polls `condition` until it holds or `seconds` of real time pass; fails the test on timeout.
@discardableResult
public func waitUntil(_ seconds: Double = 10, _ what: String = "condition", file: StaticString = #filePath,
                      line: UInt = #line, _ condition: () async -> Bool) async -> Bool {
    let held = await eventually(timeout: .milliseconds(Int64(seconds * 1000)), condition)
    if !held { XCTFail("timed out waiting for \(what)", file: file, line: line) }
    return held
}

/// Suspends until the calling task is cancelled, then throws `CancellationError`: a request that
/// never answers.
public func waitForCancellation() async throws {
    let gate = TestGate()
    try await withTaskCancellationHandler {
        await gate.wait()
        throw CancellationError()
    } onCancel: {
        gate.open()
    }
}
