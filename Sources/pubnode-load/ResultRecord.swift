/// A flat, ordered set of named results, printed as text and optionally as one JSON line.
struct ResultRecord {
    /// One result value.
    enum Value {
        /// An integer.
        case int(Int)
        /// A real number, printed with `decimals` decimals.
        case double(Double, decimals: Int)
        /// A string.
        case text(String)
    }

    /// Fields in insertion order.
    private(set) var fields: [(String, Value)] = []

    /// Creates an empty record.
    init() {}

    /// Appends an integer field.
    mutating func add(_ key: String, _ value: Int) { fields.append((key, .int(value))) }
    /// Appends a real field.
    mutating func add(_ key: String, _ value: Double, decimals: Int = 3) {
        fields.append((key, .double(value, decimals: decimals)))
    }
    /// Appends a string field.
    mutating func add(_ key: String, _ value: String) { fields.append((key, .text(value))) }

    /// Adds `<prefix>_p50_ms` … `<prefix>_max_ms` and `<prefix>_samples` for a latency summary.
    mutating func add(latency summary: LatencySummary, prefix: String) {
        add("\(prefix)_samples", summary.count)
        add("\(prefix)_p50_ms", LatencySummary.ms(summary.p50))
        add("\(prefix)_p90_ms", LatencySummary.ms(summary.p90))
        add("\(prefix)_p99_ms", LatencySummary.ms(summary.p99))
        add("\(prefix)_max_ms", LatencySummary.ms(summary.max))
        add("\(prefix)_mean_ms", summary.mean / 1_000_000)
    }

    /// The record as a single-line JSON object.
    var json: String {
        let body = fields.map { key, value in "\(Self.quote(key)):\(Self.jsonValue(value))" }
        return "{" + body.joined(separator: ",") + "}"
    }

    /// The record as aligned `key value` lines.
    var text: String {
        let width = fields.map(\.0.count).max() ?? 0
        return fields.map { key, value in
            "  " + key + String(repeating: " ", count: width - key.count) + "  " + Self.plain(value)
        }.joined(separator: "\n")
    }

    /// Human rendering of a value.
    private static func plain(_ value: Value) -> String {
        switch value {
        case .int(let number): return String(number)
        case .double(let number, let decimals): return format(number, decimals: decimals)
        case .text(let string): return string
        }
    }

    /// JSON rendering of a value.
    private static func jsonValue(_ value: Value) -> String {
        switch value {
        case .int(let number): return String(number)
        case .double(let number, let decimals): return number.isFinite ? format(number, decimals: decimals) : "null"
        case .text(let string): return quote(string)
        }
    }

    /// Fixed-point formatting without Foundation.
    static func format(_ number: Double, decimals: Int) -> String {
        guard number.isFinite else { return String(number) }
        var scale: Double = 1
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (abs(number) * scale).rounded()
        guard scaled < 9e17 else { return String(number) }
        let whole = UInt64(scaled)
        let unit = UInt64(scale)
        var text = String(whole / unit)
        if decimals > 0 {
            let fraction = String(whole % unit)
            text += "." + String(repeating: "0", count: decimals - fraction.count) + fraction
        }
        return (number < 0 && whole != 0 ? "-" : "") + text
    }

    /// JSON string literal.
    private static func quote(_ string: String) -> String {
        var out = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// Prints the title, the fields, any error samples, and the JSON line if asked.
    func emit(title: String, errorSamples: [String], json asJSON: Bool) {
        print(title)
        print(text)
        for sample in errorSamples { print("  error sample: \(sample)") }
        if asJSON { print(json) }
    }
}
