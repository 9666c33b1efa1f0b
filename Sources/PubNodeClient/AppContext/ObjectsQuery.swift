import Foundation

/// Which optional fields App Context answers carry (`include=…`, and `count=true` for the total).
public struct ObjectsInclude: OptionSet, Sendable, Hashable {
    /// The raw bits.
    public let rawValue: Int
    /// A set from its raw bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// The `custom` fields.
    public static let custom = ObjectsInclude(rawValue: 1 << 0)
    /// The `status` field.
    public static let status = ObjectsInclude(rawValue: 1 << 1)
    /// The `type` field.
    public static let type = ObjectsInclude(rawValue: 1 << 2)
    /// The channel's metadata in each membership.
    public static let channel = ObjectsInclude(rawValue: 1 << 3)
    /// The channel's custom fields in each membership.
    public static let channelCustom = ObjectsInclude(rawValue: 1 << 4)
    /// The user's metadata in each member.
    public static let uuid = ObjectsInclude(rawValue: 1 << 5)
    /// The user's custom fields in each member.
    public static let uuidCustom = ObjectsInclude(rawValue: 1 << 6)
    /// The total number of items of a list (`totalCount`).
    public static let totalCount = ObjectsInclude(rawValue: 1 << 7)

    /// Custom fields, status and type.
    public static let standard: ObjectsInclude = [.custom, .status, .type]

    /// The `include` and `count` query items.
    var query: [(String, String)] {
        let names: [(ObjectsInclude, String)] = [(.custom, "custom"), (.status, "status"), (.type, "type"),
                                                 (.channel, "channel"), (.channelCustom, "channel.custom"),
                                                 (.uuid, "uuid"), (.uuidCustom, "uuid.custom")]
        var items: [(String, String)] = []
        let included = names.filter { contains($0.0) }.map(\.1)
        if !included.isEmpty { items.append(("include", included.joined(separator: ","))) }
        if contains(.totalCount) { items.append(("count", "true")) }
        return items
    }
}

/// Which page of an App Context list to fetch: the `next` or `prev` cursor of an earlier page.
public enum ObjectsPage: Sendable, Equatable {
    /// The page after the one that gave this cursor (`start=`).
    case next(String)
    /// The page before the one that gave this cursor (`end=`).
    case prev(String)
}

/// How an App Context list is filtered, sorted and paged.
public struct ObjectsListOptions: Sendable, Equatable {
    /// Optional fields to include.
    public var include: ObjectsInclude
    /// A filter expression, e.g. `name LIKE 'a*'`.
    public var filter: String?
    /// Sort keys such as `"name"`, `"updated:desc"`.
    public var sort: [String]
    /// Items per page (the node's default when nil; PubNub's is 100).
    public var limit: Int?
    /// The page to fetch; the first when nil.
    public var page: ObjectsPage?

    /// Options; the defaults fetch the first page with custom fields, status and type.
    public init(include: ObjectsInclude = .standard, filter: String? = nil, sort: [String] = [], limit: Int? = nil,
                page: ObjectsPage? = nil) {
        self.include = include
        self.filter = filter
        self.sort = sort
        self.limit = limit
        self.page = page
    }

    /// The query items.
    var query: [(String, String)] {
        get throws(PubNodeClientError) {
            var items = include.query
            if let filter, !filter.isEmpty { items.append(("filter", filter)) }
            if !sort.isEmpty { items.append(("sort", sort.joined(separator: ","))) }
            if let limit {
                guard limit > 0 else { throw .invalidArgument("the limit must be greater than 0") }
                items.append(("limit", String(limit)))
            }
            switch page {
            case .next(let cursor)?: items.append(("start", cursor))
            case .prev(let cursor)?: items.append(("end", cursor))
            case nil: break
            }
            return items
        }
    }
}

/// One page of an App Context list.
public struct ObjectsList<Item: Sendable & Equatable>: Sendable, Equatable {
    /// The items of this page.
    public var items: [Item]
    /// The total number of items (with `.totalCount` only).
    public var totalCount: Int?
    /// The cursor of the next page, when there is one.
    public var next: String?
    /// The cursor of the previous page, when there is one.
    public var prev: String?

    /// A page.
    public init(items: [Item], totalCount: Int? = nil, next: String? = nil, prev: String? = nil) {
        self.items = items
        self.totalCount = totalCount
        self.next = next
        self.prev = prev
    }

    /// The page in `{"data":[…],"totalCount":…,"next":…,"prev":…}`, each item parsed by `parse`.
    init(_ answer: JSONValue, parse: (JSONValue) -> Item?) throws(PubNodeClientError) {
        guard let data = answer["data"]?.arrayValue else { throw .decoding("unexpected list answer \(answer)") }
        self.init(items: data.compactMap(parse), totalCount: answer["totalCount"]?.intValue.map { Int($0) },
                  next: answer["next"]?.stringValue, prev: answer["prev"]?.stringValue)
    }
}
