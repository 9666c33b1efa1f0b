// An example of embedding PubNode as a library with in-process hooks, also used by
// Scripts/bench-hooks.sh to measure what a before-publish handler adds to a publish.
//
//   swift run pubnode-hooks-example --port 8091
//   curl 'http://127.0.0.1:8091/publish/demo/demo/0/chat.room/0/%22hello%22'      -> [1,"Sent",…]
//   curl 'http://127.0.0.1:8091/publish/demo/demo/0/chat.room/0/%22darn%20it%22'  -> 403 [0,"Watch your language",…]
//   curl 'http://127.0.0.1:8091/v1/blocks/sub-key/demo/stats'                     -> {"accepted":1}
import Foundation
import Logging
import PubNodeCore
import PubNodeServer
import Synchronization

/// Refuses messages containing a banned word; passes everything else unchanged.
struct LanguageFilter: BeforeHookHandler {
    let banned = Array("darn".utf8)

    func before(_ event: HookEvent) async throws -> HookDecision {
        guard let message = event.message, message.firstRange(of: banned) != nil else { return .pass }
        return .abort(status: 403, text: "Watch your language")
    }
}

/// Counts accepted messages (delivered at least once through the outbox).
final class Counter: AfterHookHandler, RequestHookHandler {
    let count = Atomic<Int>(0)

    func after(_ delivery: HookDelivery) async throws {
        count.add(1, ordering: .relaxed)
    }

    func respond(to request: HookRequest) async throws -> HookResponse {
        HookResponse(body: Array(#"{"accepted":\#(count.load(ordering: .relaxed))}"#.utf8))
    }
}

let arguments = CommandLine.arguments
func option(_ name: String) -> String? {
    arguments.firstIndex(of: name).flatMap { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil }
}
let withHooks = !arguments.contains("--no-hooks")
let counter = Counter()
var bindings: [HookBinding] = []
if withHooks {
    bindings = [
        HookBinding(name: "language", trigger: .beforePublish, subscribeKey: "demo", channels: ["*"],
                    handler: .before(LanguageFilter())),
        HookBinding(name: "count", trigger: .afterPublish, subscribeKey: "demo", channels: ["*"], handler: .after(counter)),
        HookBinding(name: "stats", trigger: .onRequest, subscribeKey: "demo", channels: ["stats"], handler: .request(counter)),
    ]
    if arguments.contains("--before-only") { bindings = [bindings[0]] }
}
let hooks = try HookEngine(bindings: bindings, nodeClock: SystemNodeClock())
try hooks.start()
var configuration = ServerConfiguration()
configuration.port = option("--port").flatMap(Int.init) ?? 8091
if let threads = option("--event-loop-threads").flatMap(Int.init) { configuration.eventLoopThreads = threads }
let server = PubNodeHTTPServer(configuration: configuration, node: Node(hooks: hooks))
let port = try await server.start()
FileHandle.standardOutput.write(Data("serving demo/demo on 127.0.0.1:\(port) with \(bindings.count) in-process hook(s)\n".utf8))
while true { try await Task.sleep(for: .seconds(3600)) }
