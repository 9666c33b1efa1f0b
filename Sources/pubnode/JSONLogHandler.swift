import Foundation
import Logging
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A swift-log handler writing one JSON object per line, for log shippers:
/// `{"ts":"2026-11-23T17:51:57.123Z","level":"info","label":"pubnode","message":"…","key":"value",…,"source":"PubNodeServer"}`.
///
/// `ts` is UTC with milliseconds; `level` is swift-log's level name (`trace` … `critical`); every
/// metadata value is a string field (nested values in their text form), in key order, after
/// `message`. A metadata key that would replace one of the record's own fields is written as
/// `meta_<key>`. An error attached to the record is written as `error`. Each line is written with
/// one locked write, so lines from different threads never interleave.
struct JSONLogHandler: LogHandler {
    /// The logger's label.
    let label: String
    /// Where finished lines go.
    let sink: LineSink
    /// The lowest level written.
    var logLevel: Logger.Level = .info
    /// Metadata added to every record of this handler.
    var metadata: Logger.Metadata = [:]
    /// Contextual metadata read at each record.
    var metadataProvider: Logger.MetadataProvider?

    /// The fields every record has; metadata keys equal to one are prefixed with `meta_`.
    static let reservedKeys: Set<String> = ["ts", "level", "label", "message", "source", "error"]

    /// A handler for `label` writing to `sink` (standard error by default).
    init(label: String, sink: LineSink = .standardError,
         metadataProvider: Logger.MetadataProvider? = LoggingSystem.metadataProvider) {
        self.label = label
        self.sink = sink
        self.metadataProvider = metadataProvider
    }

    /// One metadata value of this handler.
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes the record as one line.
    func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let own = event.metadata { merged.merge(own) { _, new in new } }
        let line = Self.line(time: Date(), level: event.level, label: label, message: event.message.description,
                             metadata: merged, source: event.source, error: event.error.map { String(describing: $0) })
        sink.write(line)
    }

    /// The JSON line of one record, newline included.
    static func line(time: Date, level: Logger.Level, label: String, message: String,
                     metadata: Logger.Metadata, source: String, error: String? = nil) -> String {
        var fields = [("ts", timestamp(time)), ("level", level.rawValue), ("label", label), ("message", message)]
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
            fields.append((reservedKeys.contains(key) ? "meta_" + key : key, value.description))
        }
        fields.append(("source", source))
        if let error { fields.append(("error", error)) }
        var text = "{"
        for (index, field) in fields.enumerated() {
            if index > 0 { text += "," }
            appendString(field.0, to: &text)
            text += ":"
            appendString(field.1, to: &text)
        }
        return text + "}\n"
    }

    /// `value` as a JSON string literal: quotes, backslashes and control characters escaped
    /// (and U+2028/U+2029, which some JavaScript readers take for line ends).
    static func appendString(_ value: String, to text: inout String) {
        text += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case "\u{08}": text += "\\b"
            case "\u{0C}": text += "\\f"
            case _ where scalar.value < 0x20 || scalar.value == 0x2028 || scalar.value == 0x2029:
                let hex = String(scalar.value, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }

    /// `time` in UTC as ISO 8601 with milliseconds: `2026-11-23T17:51:57.123Z`.
    static func timestamp(_ time: Date) -> String {
        let milliseconds = Int64((time.timeIntervalSince1970 * 1000).rounded(.down))
        var seconds = time_t(milliseconds.quotientAndRemainder(dividingBy: 1000).quotient)
        var fraction = Int(milliseconds % 1000)
        if fraction < 0 {
            fraction += 1000
            seconds -= 1
        }
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(Int32(fraction), 3))Z"
    }
}

/// A destination of whole log lines, each written in one piece.
struct LineSink: Sendable {
    /// Writes one line.
    let write: @Sendable (String) -> Void

    /// A sink calling `write` for each line.
    init(write: @escaping @Sendable (String) -> Void) { self.write = write }

    /// Serialises writes to standard error across the process.
    private static let standardErrorLock = Mutex<Void>(())

    /// Standard error: one line at a time, retried on interrupted and partial writes.
    static let standardError = LineSink { line in
        let bytes = Array(line.utf8)
        standardErrorLock.withLock { _ in
            bytes.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = Foundation.write(2, buffer.baseAddress! + offset, buffer.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        return
                    }
                    offset += written
                }
            }
        }
    }
}

/// The log formats of `--log-format`.
enum LogFormat {
    /// The names the setting accepts.
    static let names = ["text", "json"]

    /// The handler for `format` (`json`, else swift-log's text lines on standard error) at `level`.
    static func handler(_ format: String, label: String, level: Logger.Level) -> any LogHandler {
        var handler: any LogHandler = format == "json" ? JSONLogHandler(label: label)
                                                       : StreamLogHandler.standardError(label: label)
        handler.logLevel = level
        return handler
    }
}
