import NIOCore
import PubNodeCore

/// Renders message action answers in PubNub's shapes.
enum MessageActionResponse {
    /// An added action: `{"status":200,"data":{type,value,uuid,actionTimetoken,messageTimetoken}}`.
    static func added(_ action: MessageAction) -> HTTPReply {
        var out: [UInt8] = Array(#"{"status":200,"data":"#.utf8)
        action.appendJSON(to: &out)
        out.append(UInt8(ascii: "}"))
        return HTTPReply(body: ByteBuffer(bytes: out))
    }

    /// A page: `{"status":200,"data":[…oldest first],"more":{"url":…,"start":…,"end":…,"limit":N}}`,
    /// `more` only when older actions remain (its `url` reads the next page).
    static func page(_ page: MessageActionPage, query: MessageActionQuery) -> HTTPReply {
        var out: [UInt8] = Array(#"{"status":200,"data":["#.utf8)
        for (index, action) in page.actions.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            action.appendJSON(to: &out)
        }
        out.append(UInt8(ascii: "]"))
        if page.more, let oldest = page.actions.first {
            let start = oldest.actionTimetoken.description
            // The next page lies between the query's lower bound (inclusive, whichever way round
            // the query gave `start` and `end`) and this page's oldest action (exclusive).
            let lower = query.range.bounds.map(\.lowerBound).flatMap { $0 > 0 ? Timetoken($0) : nil }
            var url = "/v1/message-actions/\(percentEncoded(query.subscribeKey))/channel/\(percentEncoded(query.channel))"
            url += "?start=\(start)"
            if let end = lower { url += "&end=\(end)" }
            url += "&limit=\(query.limit)"
            out.append(contentsOf: #","more":{"url":"#.utf8)
            JSONText.appendString(url, to: &out)
            out.append(contentsOf: #","start":""#.utf8)
            out.append(contentsOf: start.utf8)
            out.append(UInt8(ascii: "\""))
            if let end = lower {
                out.append(contentsOf: #","end":""#.utf8)
                out.append(contentsOf: end.description.utf8)
                out.append(UInt8(ascii: "\""))
            }
            out.append(contentsOf: #","limit":\#(query.limit)}"#.utf8)
        }
        out.append(UInt8(ascii: "}"))
        return HTTPReply(body: ByteBuffer(bytes: out))
    }

    /// A path segment percent-encoded (unreserved characters kept).
    static func percentEncoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
                 UInt8(ascii: "~"):
                out.append(Character(UnicodeScalar(byte)))
            default:
                let digits = Array("0123456789ABCDEF")
                out += "%" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0x0F)])
            }
        }
        return out
    }
}
