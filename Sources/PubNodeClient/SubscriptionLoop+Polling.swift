import Foundation

extension SubscriptionLoop {
    /// Long-polls until the generation changes, retrying failures with backoff.
    func poll(generation current: Int) async {
        while current == generation && !Task.isCancelled {
            let names = wireNames
            var query: [(String, String)] = [("tt", String(cursor?.timetoken ?? 0))]
            if let region = cursor?.region { query.append(("tr", String(region))) }
            if !names.groups.isEmpty { query.append(("channel-group", names.groups.joined(separator: ","))) }
            if let filter = configuration.filterExpression, !filter.isEmpty { query.append(("filter-expr", filter)) }
            if configuration.presenceTimeout > 0 { query.append(("heartbeat", String(configuration.presenceTimeout))) }
            let path = ["v2", "subscribe", Percent.encode(configuration.subscribeKey), Percent.list(names.channels), "0"]
            let answer: JSONValue
            do {
                // A handshake (no cursor yet) is answered at once: only a long-poll may take 280 s, so
                // an unreachable or silent node is noticed after `requestTimeout`.
                let timeout = cursor == nil ? configuration.requestTimeout : configuration.subscribeRequestTimeout
                let request = try request(path, query: query, timeout: timeout)
                lastPollSentAt = sleeper.now()
                answer = try await PubNodeClient.send(request, through: transport)
            } catch {
                guard current == generation, error != .cancelled else { return }
                guard await recover(from: error, generation: current) else { return }
                continue
            }
            guard current == generation else { return }
            failures = 0
            guard let cursorText = answer["t"]?["t"]?.intValue, cursorText >= 0 else {
                hub.emit(.error(.decoding("unexpected subscribe answer \(answer)")))
                setStatus(.disconnectedUnexpectedly, error: .decoding("unexpected subscribe answer"))
                return
            }
            if status != .connected { setStatus(.connected) }
            var envelopes = answer["m"]?.arrayValue ?? []
            if let previous = cursor?.timetoken, answer["missed"] != nil {
                envelopes = await withMissedMessages(envelopes, answer: answer, after: previous, next: UInt64(cursorText))
                guard current == generation else { return }
            }
            for envelope in envelopes {
                deliver(envelope)
            }
            cursor = (UInt64(cursorText), answer["t"]?["r"]?.intValue.map { Int($0) })
        }
    }

    /// Counts a failure and sleeps the backoff gap; `false` when the subscription should stop.
    private func recover(from error: PubNodeClientError, generation current: Int) async -> Bool {
        guard error.isRetryable else {
            hub.emit(.error(error))
            setStatus(.disconnectedUnexpectedly, error: error)
            return false
        }
        failures += 1
        guard configuration.retryPolicy.allowsRetry(after: failures) else {
            hub.emit(.error(error))
            setStatus(.disconnectedUnexpectedly, error: error)
            return false
        }
        setStatus(.reconnecting, error: error)
        var gap = configuration.retryPolicy.delay(forAttempt: failures, random: random())
        // A rate limiter's 429 says when to come back: not before (more attempts would be refused
        // too), and not much later either.
        if case .rateLimited(let retryAfter?, _) = error { gap = max(0, retryAfter) }
        do {
            try await sleeper.sleep(seconds: gap)
        } catch {
            return false
        }
        return current == generation
    }

    /// Heartbeats the subscribed channels and groups every `heartbeatInterval` seconds.
    func heartbeat(generation current: Int) async {
        while current == generation && !Task.isCancelled {
            do {
                try await sleeper.sleep(seconds: Double(configuration.heartbeatInterval))
            } catch {
                return
            }
            guard current == generation else { return }
            var query: [(String, String)] = []
            if !groups.isEmpty { query.append(("channel-group", groups.sorted().joined(separator: ","))) }
            if configuration.presenceTimeout > 0 { query.append(("heartbeat", String(configuration.presenceTimeout))) }
            guard let request = try? request(presencePath(channels.sorted(), "heartbeat"), query: query,
                                             timeout: configuration.requestTimeout) else { return }
            _ = try? await PubNodeClient.send(request, through: transport)
        }
    }
}
