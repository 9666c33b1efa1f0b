/// Which optional parts an App Context answer carries (`include=`).
public struct ObjectInclude: OptionSet, Sendable, Hashable {
    /// The raw bits.
    public let rawValue: Int
    /// Creates a set from its bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// `custom`.
    public static let custom = ObjectInclude(rawValue: 1)
    /// `status`.
    public static let status = ObjectInclude(rawValue: 2)
    /// `type`.
    public static let type = ObjectInclude(rawValue: 4)
    /// `totalCount` (as `count=true`).
    public static let totalCount = ObjectInclude(rawValue: 8)
    /// The other side's object (`channel` for memberships, `uuid` for members), or `….id`.
    public static let target = ObjectInclude(rawValue: 16)
    /// The other side's `custom` (`channel.custom`, `uuid.custom`).
    public static let targetCustom = ObjectInclude(rawValue: 32)
    /// The other side's `status`.
    public static let targetStatus = ObjectInclude(rawValue: 64)
    /// The other side's `type`.
    public static let targetType = ObjectInclude(rawValue: 128)
    /// Everything an object can include.
    public static let all: ObjectInclude = [.custom, .status, .type]

    /// What the other side's object renders with.
    public var targetFields: ObjectInclude {
        var fields: ObjectInclude = []
        if contains(.targetCustom) { fields.insert(.custom) }
        if contains(.targetStatus) { fields.insert(.status) }
        if contains(.targetType) { fields.insert(.type) }
        return fields
    }

    /// Parses `include=` for an object list or object (`target` nil) or for memberships
    /// (`channel`) and members (`uuid`); throws naming an unknown value.
    public static func parse(_ list: [String], target: String?) throws(PubNodeError) -> ObjectInclude {
        var include: ObjectInclude = []
        for item in list {
            switch item {
            case "custom": include.insert(.custom)
            case "status": include.insert(.status)
            case "type": include.insert(.type)
            case "totalCount": include.insert(.totalCount)
            default:
                guard let target, item == target || item.hasPrefix(target + ".") else {
                    throw .invalidParameter("include: unknown value '\(item.prefix(40))'")
                }
                include.insert(.target)
                switch item.dropFirst(target.count) {
                case "", ".id": break
                case ".custom": include.insert(.targetCustom)
                case ".status": include.insert(.targetStatus)
                case ".type": include.insert(.targetType)
                default: throw .invalidParameter("include: unknown value '\(item.prefix(40))'")
                }
            }
        }
        return include
    }
}

/// One `sort=` key: a field and its direction.
public struct ObjectSortKey: Sendable, Equatable {
    /// The field (`id`, `name`, `updated`, `status`, `type`, or for memberships and members
    /// `channel.…`/`uuid.…` of those and the membership's own `updated`, `status`, `type`).
    public var field: String
    /// Descending (`:desc`) rather than ascending.
    public var descending: Bool

    /// Creates a key.
    public init(_ field: String, descending: Bool = false) {
        self.field = field
        self.descending = descending
    }

    /// Parses `sort=` (comma-separated `field[:asc|:desc]`, at most 8) for fields in `allowed`.
    public static func parse(_ list: [String], allowed: Set<String>) throws(PubNodeError) -> [ObjectSortKey] {
        guard list.count <= 8 else { throw .invalidParameter("sort: at most 8 keys") }
        var keys: [ObjectSortKey] = []
        for item in list {
            let parts = item.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count <= 2, allowed.contains(String(parts[0])) else {
                throw .invalidParameter("sort: unknown key '\(item.prefix(40))'")
            }
            let direction = parts.count == 2 ? parts[1].lowercased() : "asc"
            guard direction == "asc" || direction == "desc" else {
                throw .invalidParameter("sort: direction must be asc or desc (got '\(direction.prefix(10))')")
            }
            keys.append(ObjectSortKey(String(parts[0]), descending: direction == "desc"))
        }
        return keys
    }
}

/// A list's paging, sorting and selection, as decoded from the query.
public struct ObjectQuery: Sendable, Equatable {
    /// The optional parts to render.
    public var include: ObjectInclude = []
    /// Most items per page (1…100).
    public var limit = 100
    /// Sort keys; the id (then the other side's id) breaks ties.
    public var sort: [ObjectSortKey] = []
    /// The next-page cursor (`start`), from a previous answer's `next`.
    public var start: String?
    /// The previous-page cursor (`end`), from a previous answer's `prev`.
    public var end: String?
    /// Whether to answer `totalCount` (`count=true` or `include=totalCount`).
    public var count = false
    /// The filter expression (`filter=`), when given.
    public var filter: String?

    /// The defaults: 100 items by id, no cursor, no count.
    public init() {}
}

/// One page of a list and its cursors.
public struct ObjectPage<Item: Sendable>: Sendable {
    /// The items of this page, in order.
    public var items: [Item]
    /// The cursor of the next page, when more follow.
    public var next: String?
    /// The cursor of the previous page, when some precede.
    public var prev: String?
    /// Every matching item's count, when asked for.
    public var totalCount: Int?
}

/// Paging by position in the sorted list: a cursor holds the sort values of the item at a page's
/// edge, so a page continues after (or before) that item even when items were added or removed
/// meanwhile.
enum ObjectPaging {
    /// The page of `items` (already filtered) for `query`, with `key` giving each item's sort values.
    static func page<Item>(_ items: [Item], query: ObjectQuery, key: (Item) -> [String?])
        throws(PubNodeError) -> ObjectPage<Item> {
        let directions = query.sort.map(\.descending) + [false, false]
        let keyed = items.map { (key($0), $0) }.sorted { less($0.0, $1.0, directions) }
        var lower = 0
        var upper = keyed.count
        if let start = query.start {
            let edge = try decode(start, "start")
            lower = keyed.firstIndex { less(edge, $0.0, directions) } ?? keyed.count
            upper = min(keyed.count, lower + query.limit)
        } else if let end = query.end {
            let edge = try decode(end, "end")
            upper = keyed.firstIndex { !less($0.0, edge, directions) } ?? keyed.count
            lower = max(0, upper - query.limit)
        } else {
            upper = min(keyed.count, query.limit)
        }
        let slice = keyed[lower..<upper]
        return ObjectPage(items: slice.map(\.1),
                          next: upper < keyed.count && !slice.isEmpty ? encode(slice.last!.0) : nil,
                          prev: lower > 0 && !slice.isEmpty ? encode(slice.first!.0) : nil,
                          totalCount: query.count ? keyed.count : nil)
    }

    /// Lexicographic order of sort values, each in its direction; nil sorts before any value.
    static func less(_ lhs: [String?], _ rhs: [String?], _ descending: [Bool]) -> Bool {
        for index in 0..<min(lhs.count, rhs.count) where lhs[index] != rhs[index] {
            let down = index < descending.count && descending[index]
            switch (lhs[index], rhs[index]) {
            case (nil, _): return !down
            case (_, nil): return down
            case (let left?, let right?): return down ? right < left : left < right
            }
        }
        return lhs.count < rhs.count
    }

    /// A cursor: each value as `n` (null) or `v` and its UTF-8 in hex, joined by `.`.
    static func encode(_ values: [String?]) -> String {
        values.map { $0.map { "v" + Hex.encode(Array($0.utf8)) } ?? "n" }.joined(separator: ".")
    }

    static func decode(_ cursor: String, _ name: String) throws(PubNodeError) -> [String?] {
        let invalid = PubNodeError.invalidParameter("\(name): not a page cursor this node issued")
        guard cursor.utf8.count <= 8192, !cursor.isEmpty else { throw invalid }
        var values: [String?] = []
        for part in cursor.split(separator: ".", omittingEmptySubsequences: false) {
            if part == "n" { values.append(nil); continue }
            guard part.first == "v", let bytes = hexBytes(part.dropFirst()),
                  let text = String(validating: bytes, as: UTF8.self) else { throw invalid }
            values.append(text)
        }
        return values
    }

    private static func hexBytes(_ text: Substring) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
