import Foundation
import NIOCore

/// A parsed HTTP/1.1 response.
struct Response {
    var status: Int
    var headers: [String: String]
    var body: [UInt8]

    var text: String { String(decoding: body, as: UTF8.self) }

    var json: JSON { JSON.parse(body) }

    /// The payload (`d`) of each message of a subscribe answer, in order; nil without an `m` array.
    var messagePayloads: [JSON?]? { json["m"]?.arrayValue.map { $0["d"] } }

    /// Parses one response from the front of `buffer`'s readable bytes; nil when incomplete.
    static func parse(_ buffer: ByteBuffer) -> Response? {
        parse(Array(buffer.readableBytesView))?.0
    }

    /// Parses one response from the front of `bytes`; nil when incomplete. Returns bytes used.
    static func parse(_ bytes: [UInt8]) -> (Response, Int)? {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = bytes.firstRange(of: separator) else { return nil }
        let head = String(decoding: bytes[..<end.lowerBound], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { return nil }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        let bodyStart = end.upperBound
        guard bytes.count >= bodyStart + length else { return nil }
        return (Response(status: status, headers: headers, body: Array(bytes[bodyStart..<(bodyStart + length)])),
                bodyStart + length)
    }
}

/// A JSON value for assertions; big integers are kept as their text.
enum JSON: Equatable {
    case null, bool(Bool), number(String), string(String), array([JSON]), object([String: JSON]), invalid

    static func parse(_ bytes: [UInt8]) -> JSON {
        guard let value = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]) else {
            return .invalid
        }
        return wrap(value)
    }

    private static func wrap(_ value: Any) -> JSON {
        switch value {
        case is NSNull: return .null
        case let number as NSNumber:
            if String(cString: number.objCType) == "c" { return .bool(number.boolValue) }
            return .number(number.stringValue)
        case let string as String: return .string(string)
        case let array as [Any]: return .array(array.map(wrap))
        case let object as [String: Any]: return .object(object.mapValues(wrap))
        default: return .invalid
        }
    }

    subscript(key: String) -> JSON? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    subscript(index: Int) -> JSON? {
        if case .array(let array) = self, array.indices.contains(index) { return array[index] }
        return nil
    }

    var stringValue: String? {
        switch self {
        case .string(let s): return s
        case .number(let n): return n
        default: return nil
        }
    }

    var arrayValue: [JSON] {
        if case .array(let array) = self { return array }
        return []
    }

    var isValid: Bool { self != .invalid }
}
