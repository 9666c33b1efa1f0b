import Foundation

extension CryptoModule {
    /// The JSON text published for the JSON text `payload`: a JSON string holding the base64 of
    /// `payload` encrypted, exactly what the SDKs send.
    func encryptPayload(_ payload: Data) throws(PubNodeClientError) -> Data {
        let text = try encrypt(data: payload).base64EncodedString()
        return Data(("\"" + text + "\"").utf8)
    }

    /// The payload a received `payload` holds: the encrypted JSON string decrypted and parsed as
    /// JSON (kept as a string when the plaintext is not JSON). Throws when it is not an encrypted
    /// string this module can read.
    func decryptPayload(_ payload: JSONValue) throws(PubNodeClientError) -> JSONValue {
        guard let text = payload.stringValue else { throw .crypto("decryption error: the payload is not an encrypted string") }
        let plain = try decrypt(base64: text)
        return (try? JSONValue(jsonData: Data(plain.utf8))) ?? .string(plain)
    }
}
