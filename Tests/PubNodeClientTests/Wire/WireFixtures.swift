import Foundation
import PubNodeClient
import PubNodeTestSupport

/// A client whose requests are answered at once by `answer` (by path), for request-shape tests.
enum WireFixtures {
    /// A transport answering each request with `answer(request)` (status 200).
    static func transport(_ answer: @escaping @Sendable (TransportRequest) -> String) -> AnsweringTransport {
        AnsweringTransport { request in TransportResponse(status: 200, body: Data(answer(request).utf8)) }
    }

    /// A client with keys `pub`/`sub` and user `me` over `transport`.
    static func client(_ transport: any PubNodeTransport, cryptoModule: CryptoModule? = nil,
                       filterExpression: String? = nil, sleeper: any PubNodeSleeper = TaskSleeper()) -> PubNodeClient {
        PubNodeClient(configuration: PubNodeConfiguration(
            publishKey: "pub", subscribeKey: "sub", userId: "me", origin: "node.test:80",
            sdkName: "test", cryptoModule: cryptoModule, filterExpression: filterExpression),
            transport: transport, sleeper: sleeper)
    }

    /// The query of `request` as ordered pairs, percent-decoded.
    static func query(_ request: TransportRequest) -> [String: String] {
        let items = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        return Dictionary(items.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
    }

    /// The raw (still percent-encoded) path of `request`.
    static func rawPath(_ request: TransportRequest) -> String {
        URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? ""
    }

    /// The body of `request` parsed as JSON.
    static func body(_ request: TransportRequest) throws -> JSONValue {
        try JSONValue(jsonData: request.body ?? Data())
    }
}
