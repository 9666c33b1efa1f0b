import FuzzSupport
import NIOHTTP1
import PubNodeCore
import PubNodeServer

/// Request targets: `PubNubRequest(method:uri:)` never traps on any text; an accepted target has one
/// segment per `/` of its path; it accepts and reads exactly what a plain reference parser does;
/// and percent-encoding any text into a segment, a query name and a query value reads back exactly
/// that text, pairs in order (upper- or lowercase hex). A publish read straight off its target
/// (`PublishTarget`) is exactly the request the router's general decoding reads from it.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: fuzzBytes(data, size), as: UTF8.self)

    let request = try? PubNubRequest(method: .GET, uri: text)
    if let request {
        let path = text.utf8.prefix { $0 != UInt8(ascii: "?") }
        let slashes = path.filter { $0 == UInt8(ascii: "/") }.count
        require(request.segments.count == slashes, "\(slashes) slashes gave \(request.segments.count) segments")
        require(request.target == text, "target not kept verbatim")
    }
    // The same reading as a plain reference parser, refusals included.
    let reference = referenceParse(text)
    require((request == nil) == (reference == nil), "accepted \(request != nil), the reference \(reference != nil)")
    if let request, let reference {
        require(request.segments == reference.segments, "segments \(request.segments) against \(reference.segments)")
        require(request.query.pairs.map { [$0.name, $0.value] } == reference.pairs,
                "query \(request.query.pairs) against \(reference.pairs)")
    }

    if let fast = PublishTarget.request(text) {
        requireSamePublish(fast, as: request, text)
    }

    let encoded = percentEncode(text.utf8)
    for escaped in [encoded, lowercasedHex(encoded)] {
        let uri = "/" + escaped + "/x?k=" + escaped + "&" + escaped + "=v"
        guard let request = try? PubNubRequest(method: .GET, uri: uri) else {
            fatalError("property violated: encoded target rejected: \(uri)")
        }
        require(request.segments == [text, "x"], "segments \(request.segments) for \(uri)")
        let pairs = request.query.pairs.map { [$0.name, $0.value] }
        require(pairs == [["k", text], [text, "v"]], "query \(pairs) for \(uri)")
        require(request.query["k"] == (text == "k" ? "v" : text), "a repeated name reads as its last value")
    }
    return 0
}

/// The same escapes with lowercase hex digits.
func lowercasedHex(_ escaped: String) -> String {
    var out: [UInt8] = []
    var hexLeft = 0
    for byte in escaped.utf8 {
        if byte == UInt8(ascii: "%") {
            hexLeft = 2
            out.append(byte)
        } else if hexLeft > 0 {
            hexLeft -= 1
            out.append(byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "F") ? byte + 32 : byte)
        } else {
            out.append(byte)
        }
    }
    return String(decoding: out, as: UTF8.self)
}

/// A plain reading of a target's UTF-8 bytes, written for clarity rather than speed: the part
/// before the first `/` dropped, segments split on `/`, pairs on `&` then the first `=`, each part
/// percent-decoded (nil for a malformed escape or bytes that are not UTF-8).
func referenceParse(_ target: String) -> (segments: [String], pairs: [[String]])? {
    func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
    func decode(_ part: ArraySlice<UInt8>) -> String? {
        var bytes: [UInt8] = []
        var rest = part
        while let byte = rest.popFirst() {
            guard byte == UInt8(ascii: "%") else { bytes.append(byte); continue }
            guard let high = rest.popFirst().flatMap(hex), let low = rest.popFirst().flatMap(hex) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }
    let bytes = Array(target.utf8)
    let question = bytes.firstIndex(of: UInt8(ascii: "?"))
    let path = bytes[..<(question ?? bytes.endIndex)]
    var segments: [String] = []
    if let slash = path.firstIndex(of: UInt8(ascii: "/")) {
        for part in path[(slash + 1)...].split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
            guard let segment = decode(part) else { return nil }
            segments.append(segment)
        }
    }
    var pairs: [[String]] = []
    if let question {
        for pair in bytes[(question + 1)...].split(separator: UInt8(ascii: "&")) {
            let equals = pair.firstIndex(of: UInt8(ascii: "="))
            guard let name = decode(pair[..<(equals ?? pair.endIndex)]),
                  let value = decode(equals.map { pair[($0 + 1)...] } ?? []) else { return nil }
            pairs.append([name, value])
        }
    }
    return (segments, pairs)
}

/// `fast`, read by `PublishTarget` from `text`, is what the router decodes from `request` (the
/// general reading of the same text), field by field.
func requireSamePublish(_ fast: PublishRequest, as request: PubNubRequest?, _ text: String) {
    let kinds: [String: MessageKind] = ["publish": .message, "signal": .signal]
    guard let request, request.segments.count == 7, let kind = kinds[request.segments[0]],
          let general = try? Router.publishRequest(request, kind: kind)
    else { fatalError("property violated: the shortcut read a publish the router would not: \(text)") }
    require(fast.publishKey == general.publishKey && fast.subscribeKey == general.subscribeKey
            && fast.channel == general.channel && fast.payload == general.payload && fast.meta == general.meta
            && fast.uuid == general.uuid && fast.kind == general.kind && fast.store == general.store
            && fast.noReplication == general.noReplication && fast.ttlHours == general.ttlHours
            && fast.customMessageType == general.customMessageType && fast.authKey == general.authKey
            && general.signature == nil, "the shortcut and the router read \(text) differently")
}
