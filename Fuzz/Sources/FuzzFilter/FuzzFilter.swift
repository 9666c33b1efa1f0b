import FuzzSupport
import PubNodeCore

/// Filter expressions: compiling any text (the part before the first zero byte) in either mode
/// never traps; a compiled filter evaluates any JSON document (the rest, parsed with the bounded
/// parser) without trapping, and gives the same answer twice; compiling the same text again gives
/// the same verdict.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let (expressionBytes, documentBytes) = splitAtZero(fuzzBytes(data, size))
    let text = String(decoding: expressionBytes, as: UTF8.self)
    let document = FilterValue.parse(documentBytes) ?? .null
    let message: FilterValue = .object(["meta": document, "data": document])
    for (mode, subject) in [(FilterMode.message, message), (.objects, document)] {
        let first = try? FilterExpression.compile(text, mode: mode)
        let again = try? FilterExpression.compile(text, mode: mode)
        require((first == nil) == (again == nil), "compiling twice disagreed for \(text.debugDescription)")
        if let first {
            let verdict = first.matches(subject)
            require(verdict == first.matches(subject), "evaluation is not deterministic for \(text.debugDescription)")
        }
    }
    return 0
}
