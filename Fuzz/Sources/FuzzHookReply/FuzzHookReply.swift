import FuzzSupport
import PubNodeCore

/// Hook replies and stored hook events: `HookDecision.parse(reply:)` (a webhook receiver's answer)
/// and `HookEvent(body:)` (the durable outbox's text) never trap; a modify decision carries JSON
/// text, an abort a status in 400…599; and an event read back renders a body that reads back and
/// renders to the same bytes (what the outbox relies on).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    let validator = JSONValidator()

    if let members = JSONObjectText.members(bytes) {
        require(validator.isValidUTF8JSON(bytes), "members of invalid JSON")
        for (name, raw) in members {
            require(validator.isValid(raw), "member \(name) is not JSON text")
        }
    }

    switch try? HookDecision.parse(reply: bytes) {
    case .modify(let message, let meta)?:
        require(message.map { validator.isValid($0) } ?? true, "modify message is not JSON")
        require(meta.map { validator.isValid($0) && $0.first == UInt8(ascii: "{") } ?? true, "modify meta not an object")
    case .abort(let status, let text)?:
        require((400...599).contains(status), "abort status \(status)")
        require(text.count <= 512, "abort text too long")
    case .pass?, nil:
        break
    }

    if let event = HookEvent(body: bytes) {
        let body = event.body()
        require(validator.isValidUTF8JSON(body), "re-rendered event is not JSON: \(String(decoding: body, as: UTF8.self))")
        guard let again = HookEvent(body: body) else {
            fatalError("property violated: re-rendered event does not read back: \(String(decoding: body, as: UTF8.self))")
        }
        require(again.body() == body, "event body changed on a round trip: \(String(decoding: body, as: UTF8.self))")
    }
    return 0
}
