import Foundation

extension PubNodeClient {
    /// The channel metadata in an answer's `data`.
    private func channelMetadata(_ answer: JSONValue) throws(PubNodeClientError) -> ChannelMetadata {
        guard let data = answer["data"], let metadata = ChannelMetadata(json: data) else {
            throw .decoding("unexpected channel metadata answer \(answer)")
        }
        return metadata
    }

    /// A page of every channel's metadata.
    public func allChannelMetadata(_ options: ObjectsListOptions = ObjectsListOptions()) async throws(PubNodeClientError) -> ObjectsList<ChannelMetadata> {
        let answer = try await request(objectsPath(["channels"]), query: try options.query)
        return try ObjectsList(answer) { ChannelMetadata(json: $0) }
    }

    /// The metadata of `channel`.
    public func fetchChannelMetadata(_ channel: String,
                                     include: ObjectsInclude = .standard) async throws(PubNodeClientError) -> ChannelMetadata {
        try channelMetadata(try await request(objectsPath(["channels", Percent.encode(channel)]), query: include.query))
    }

    /// Sets the fields `metadata` gives for its channel; with `ifMatchesEtag` only when the stored
    /// version still has that entity tag (else HTTP 412). Returns the stored metadata.
    @discardableResult
    public func setChannelMetadata(_ metadata: ChannelMetadata, include: ObjectsInclude = .standard,
                                   ifMatchesEtag: String? = nil) async throws(PubNodeClientError) -> ChannelMetadata {
        let answer = try await request(objectsPath(["channels", Percent.encode(metadata.id)]), method: "PATCH",
                                       query: include.query, body: metadata.body.jsonData,
                                       headers: etagHeaders(ifMatchesEtag, json: true))
        return try channelMetadata(answer)
    }

    /// Removes the metadata of `channel`; returns the channel.
    @discardableResult
    public func removeChannelMetadata(_ channel: String, ifMatchesEtag: String? = nil) async throws(PubNodeClientError) -> String {
        _ = try await request(objectsPath(["channels", Percent.encode(channel)]), method: "DELETE",
                              headers: etagHeaders(ifMatchesEtag, json: false))
        return channel
    }
}
