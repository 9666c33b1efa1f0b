import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Plain HTTP GETs for tests that talk to a running node.
enum HTTPGet {
    /// Fetches `url` and returns the status and body (a long-poll waits as long as the server does).
    static func get(_ url: String) async throws -> (status: Int, body: String) {
        var request = URLRequest(url: URL(string: url)!)
        request.timeoutInterval = 30
        return try await withCheckedThrowingContinuation { continuation in
            URLSession.shared.dataTask(with: request) { data, response, error in
                if let error { return continuation.resume(throwing: error) }
                let status = (response as? HTTPURLResponse)?.statusCode ?? 0
                continuation.resume(returning: (status, String(decoding: data ?? Data(), as: UTF8.self)))
            }.resume()
        }
    }

    /// Fetches `url` and decodes its JSON body.
    static func json(_ url: String) async throws -> Any {
        let (_, body) = try await get(url)
        return try JSONSerialization.jsonObject(with: Data(body.utf8))
    }

    /// The cursor (`t.t`) of a subscribe response.
    static func cursor(_ response: Any) -> String? {
        ((response as? [String: Any])?["t"] as? [String: Any])?["t"] as? String
    }
}
