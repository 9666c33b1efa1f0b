import FuzzSupport
import NIOHTTP1
import PubNodeServer

/// Request targets: `PubNubRequest(method:uri:)` never traps on any text; an accepted target has one
/// segment per `/` of its path; and percent-encoding any text into a segment, a query name and a
/// query value reads back exactly that text (upper- or lowercase hex).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: fuzzBytes(data, size), as: UTF8.self)

    if let request = try? PubNubRequest(method: .GET, uri: text) {
        let path = text.utf8.prefix { $0 != UInt8(ascii: "?") }
        let slashes = path.filter { $0 == UInt8(ascii: "/") }.count
        require(request.segments.count == slashes, "\(slashes) slashes gave \(request.segments.count) segments")
        require(request.target == text, "target not kept verbatim")
    }

    let encoded = percentEncode(text.utf8)
    for escaped in [encoded, lowercasedHex(encoded)] {
        let uri = "/" + escaped + "/x?k=" + escaped + "&" + escaped + "=v"
        guard let request = try? PubNubRequest(method: .GET, uri: uri) else {
            fatalError("property violated: encoded target rejected: \(uri)")
        }
        require(request.segments == [text, "x"], "segments \(request.segments) for \(uri)")
        if text.isEmpty {
            require(request.query.dictionary == ["k": "", "": "v"], "query \(request.query) for \(uri)")
        } else if text == "k" {
            require(request.query.dictionary == ["k": "v"], "query \(request.query) for \(uri)")
        } else {
            require(request.query.dictionary == ["k": text, text: "v"], "query \(request.query) for \(uri)")
        }
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
