import Foundation
import PubNodeClient

/// Rates per second between two stats samples of the same node run.
public struct StatsRates: Sendable, Equatable {
    /// Seconds between the samples, by the node's uptime.
    public var seconds: Double
    /// Messages published per second.
    public var publishes: Double
    /// Signals per second.
    public var signals: Double
    /// Fires per second.
    public var fires: Double
    /// Messages written to subscribers per second.
    public var deliveries: Double

    /// The rates from `earlier` to `later`, over the node's uptime between them; nil when no time
    /// passed, or the node restarted in between (another start time, or a counter went back).
    public static func between(_ earlier: NodeStats, _ later: NodeStats) -> StatsRates? {
        let seconds = later.node.uptimeSeconds - earlier.node.uptimeSeconds
        let before = earlier.totals, after = later.totals
        guard seconds > 0, earlier.node.startedAt == later.node.startedAt,
              after.publishes >= before.publishes, after.signals >= before.signals, after.fires >= before.fires,
              after.deliveries >= before.deliveries else { return nil }
        func rate(_ from: Int64, _ to: Int64) -> Double { Double(to - from) / seconds }
        return StatsRates(seconds: seconds, publishes: rate(before.publishes, after.publishes),
                          signals: rate(before.signals, after.signals), fires: rate(before.fires, after.fires),
                          deliveries: rate(before.deliveries, after.deliveries))
    }
}

/// How `pubnode-cli stats` prints a sample.
enum StatsOutput {
    /// The overview, the keysets and the busiest channels. `rates` is nil without `--watch`;
    /// `.some(nil)` while watching but before a second sample.
    static func text(_ stats: NodeStats, rates: StatsRates??, style: Style) -> String {
        let node = stats.node, totals = stats.totals
        var state = node.ready ? style.green("ready") : style.red("not ready")
        if node.draining { state = style.yellow("draining") }
        var fields = [
            ("uptime", duration(node.uptimeSeconds)), ("state", state),
            ("connections", "\(node.connections)"), ("parked polls", "\(node.parkedPolls)"),
            ("channels", "\(totals.channels)"), ("occupancy", "\(totals.occupancy)"),
            ("publishes", "\(totals.publishes)"), ("signals", "\(totals.signals)"), ("fires", "\(totals.fires)"),
            ("deliveries", "\(totals.deliveries)"), ("buffer gaps", "\(totals.bufferGaps)"),
            ("rate limited", "\(totals.rateLimited)"),
        ]
        if case .some(let sampled) = rates {
            fields.append(("rates", sampled.map {
                "\(decimal($0.publishes)) publishes/s, \(decimal($0.deliveries)) deliveries/s"
            } ?? style.dim("after the next sample")))
        }
        var lines = fields.map { style.bold($0.0.padding(toLength: 14, withPad: " ", startingAt: 0)) + $0.1 }
        lines.append("")
        lines += table(["KEYSET", "CHANNELS", "GROUPS", "OCCUPANCY", "PUBLISHES", "SIGNALS", "FIRES", "DELIVERIES"],
                       stats.keysets.map { keyset in
                           [keyset.subscribeKey, "\(keyset.channels)", "\(keyset.groups)", "\(keyset.occupancy)",
                            "\(keyset.publishes)", "\(keyset.signals)", "\(keyset.fires)", "\(keyset.deliveries)"]
                       }, leftAligned: 1, style: style)
        lines.append("")
        if stats.channels.isEmpty {
            lines.append(style.dim("no channels"))
        } else {
            lines += table(["KEYSET", "CHANNEL", "PER SEC", "PUBLISHES", "BUFFERED", "OCCUPANCY", "PARKED"],
                           stats.channels.map { channel in
                               [channel.subscribeKey, channel.name, decimal(channel.perSecond), "\(channel.publishes)",
                                "\(channel.buffered)", "\(channel.occupancy)", "\(channel.parked)"]
                           }, leftAligned: 2, style: style)
        }
        return lines.joined(separator: "\n")
    }

    /// Rows under bold `headers`, columns two spaces apart: the first `leftAligned` columns (names)
    /// left-aligned, the numbers after them right-aligned. Control characters in names are escaped.
    static func table(_ headers: [String], _ rows: [[String]], leftAligned: Int, style: Style) -> [String] {
        let plain = OutputFormatter(style: Style(enabled: false))
        let cells = rows.map { $0.map { plain.text(of: .string($0)) } }
        let widths = headers.indices.map { column in
            ([headers[column]] + cells.map { $0[column] }).map(\.count).max() ?? 0
        }
        func line(_ values: [String], _ paint: (String) -> String) -> String {
            let padded = values.enumerated().map { column, value in
                let pad = String(repeating: " ", count: widths[column] - value.count)
                return column < leftAligned ? value + pad : pad + value
            }
            var text = paint(padded.joined(separator: "  "))
            while text.hasSuffix(" ") { text.removeLast() }
            return text
        }
        return [line(headers, style.bold)] + cells.map { line($0, { $0 }) }
    }

    /// A rate with one decimal (`1.5`).
    static func decimal(_ value: Double) -> String { String(format: "%.1f", value) }

    /// Seconds as `12s`, `3m 04s`, `1h 02m 03s` or `2d 03h 04m`.
    static func duration(_ seconds: Double) -> String {
        let total = Int(max(0, seconds))
        let days = total / 86_400, hours = total / 3600 % 24, minutes = total / 60 % 60, rest = total % 60
        func two(_ value: Int) -> String { String(value).leftPadded(to: 2) }
        if days > 0 { return "\(days)d \(two(hours))h \(two(minutes))m" }
        if hours > 0 { return "\(hours)h \(two(minutes))m \(two(rest))s" }
        if minutes > 0 { return "\(minutes)m \(two(rest))s" }
        return "\(rest)s"
    }
}
