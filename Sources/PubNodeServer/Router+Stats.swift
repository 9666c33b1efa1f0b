import PubNodeCore

extension Router {
    /// `GET /v1/admin/stats[?channels=N]`, behind the admin token (answered off the event loop): the node's overview, every
    /// keyset's counters and the N busiest channels (20 by default). Counters are totals since
    /// start; a viewer derives rates from two samples.
    func stats(_ request: PubNubRequest) -> RouteAction {
        answering(.object(service: "Stats")) { () throws(PubNodeError) in
            guard request.method == .GET, request.segments.count == 3 else { return Self.noSuchEndpoint(service: "Stats") }
            var busiest = 20
            if let text = request.query["channels"] {
                guard let value = Int(text) else { throw .invalidParameter("channels must be a whole number") }
                busiest = value
            }
            let credential = Self.bearer(request.headers["authorization"])
            try node.authorizeAdmin(credential: credential)
            guard (0...Node.maxBusiestChannels).contains(busiest) else {
                throw .invalidParameter("channels must be between 0 and \(Node.maxBusiestChannels)")
            }
            let (router, count) = (self, busiest)
            // Off the event loop: the busiest channels are found by visiting every channel.
            return later(.object(service: "Stats")) { () throws(PubNodeError) in
                .json(router.render(try router.node.statistics(busiest: count, credential: credential)))
            }
        }
    }

    private func render(_ statistics: NodeStatistics) -> String {
        let now = node.clock.nowNanoseconds()
        let uptime = Double(Int64(now / 1_000_000) - operations.startedAtMilliseconds) / 1000
        let reasons = operations.readiness.reasons
        let nodeFields = #""startedAt":\#(operations.startedAtMilliseconds),"uptimeSeconds":\#(Self.number(max(0, uptime))),"#
            + #""timetoken":"\#(statistics.timetoken)","connections":\#(operations.gauges.openConnections),"#
            + #""parkedPolls":\#(operations.gauges.parkedPolls),"ready":\#(reasons.isEmpty),"#
            + #""draining":\#(operations.readiness.isDraining)"#
        let totals = statistics.totals
        let channels = statistics.keysets.reduce(0) { $0 + $1.broker.channels }
        let occupancy = statistics.keysets.reduce(0) { $0 + $1.occupancy }
        let totalFields = Self.counterFields(totals) + #","channels":\#(channels),"occupancy":\#(occupancy)"#
        let keysets = statistics.keysets.map { keyset in
            #"{"subscribeKey":\#(JSONText.string(keyset.subscribeKey)),"channels":\#(keyset.broker.channels),"#
                + #""groups":\#(keyset.broker.groups),"occupancy":\#(keyset.occupancy),\#(Self.counterFields(keyset.counters))}"#
        }
        let busiest = statistics.busiest.map { entry in
            let channel = entry.channel
            let last = channel.lastTimetoken.map { #""\#($0)""# } ?? "null"
            return #"{"subscribeKey":\#(JSONText.string(entry.subscribeKey)),"name":\#(JSONText.string(channel.name)),"#
                + #""publishes":\#(channel.publishes),"perSecond":\#(Self.rate(channel.perSecond)),"#
                + #""buffered":\#(channel.buffered),"occupancy":\#(channel.occupancy),"parked":\#(channel.parked),"#
                + #""lastTimetoken":\#(last)}"#
        }
        return #"{"status":200,"service":"Stats","node":{\#(nodeFields)},"totals":{\#(totalFields)},"#
            + #""keysets":[\#(keysets.joined(separator: ","))],"channels":[\#(busiest.joined(separator: ","))]}"#
    }

    private static func counterFields(_ counts: KeysetCounters.Snapshot) -> String {
        #""publishes":\#(counts.messages),"signals":\#(counts.signals),"fires":\#(counts.fires),"#
            + #""deliveries":\#(counts.deliveries),"bufferGaps":\#(counts.bufferGaps),"rateLimited":\#(counts.rateLimited)"#
    }

    /// A rate with at most two decimals.
    private static func rate(_ value: Double) -> String {
        number((value * 100).rounded() / 100)
    }
}
