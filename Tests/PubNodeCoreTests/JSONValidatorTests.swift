import Foundation
import PubNodeTestSupport
import XCTest
@testable import PubNodeCore

/// A small, seeded, deterministic generator (SplitMix64).
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

final class JSONValidatorTests: XCTestCase {
    private let validator = JSONValidator()

    private func valid(_ text: String) -> Bool { validator.isValid(Array(text.utf8)) }

    func testValidDocuments() {
        let documents = [
            "{}", "[]", "null", "true", "false", "0", "-0", "7", "-12", "1.5", "1.5e10", "1E+2", "1e-2", "-0.0e0", "0.25E-07",
            "123456789012345678901234567890", "-123456789012345678901234567890.5e-300", "1e999",
            "\"\"", "\"plain\"", "\"\\u00e9\\uD83D\\uDE00\"", "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"", "\"\\uABCD\\uabcd\"",
            "\"ünïcödé 😀 \u{7F}\"",
            "{\"a\":[1,2,{\"b\":null}],\"c\":true,\"d\":false,\"e\":{\"f\":{\"g\":[]}}}",
            "[[[]],[{}],[\"x\",-1,2.5,true,null]]",
            "  {\"a\" : 1 }\n\t\r", "\n[ 1 , 2 ]\n", " \"x\" ", "\t0\t",
            "{\"\":\"\",\"dup\":1,\"dup\":2}",
        ]
        for document in documents {
            XCTAssertTrue(valid(document), "refused \(document.debugDescription)")
        }
    }

    func testInvalidDocuments() {
        let documents = [
            "", " ", "\n\t", "[1,]", "{\"a\":1,}", "[,1]", "{,}", "[1,,2]", "{'a':1}", "'a'", "01", "-01", "00", "1.", ".5", "-",
            "+1", "1e", "1e+", "1E-", "-.5", "1.e5", "0x10", "NaN", "Infinity", "-Infinity", "\"abc", "\"abc\\\"", "\"\\",
            "\"a\u{01}b\"", "\"tab\there\"", "\"line\nbreak\"", "\"\\x41\"", "\"\\u12G4\"", "\"\\u12\"", "\"\\U0041\"", "\"\\'\"",
            "1 2", "[1 2]", "{\"a\" 1}", "{\"a\":}", "{1:2}", "{\"a\":1 \"b\":2}", "{\"a\"}", "tru", "nul", "nulll", "True",
            "[", "]", "{", "}", "[}", "{]", "[1]]", "{}}", "\"a\"\"b\"", "[] []", "/* c */ 1", "1 // c",
        ]
        for document in documents {
            XCTAssertFalse(valid(document), "accepted \(document.debugDescription)")
        }
    }

    func testDepthLimit() {
        let shallow = JSONValidator(maxDepth: 3)
        XCTAssertTrue(shallow.isValid(Array("[[[1]]]".utf8)))
        XCTAssertFalse(shallow.isValid(Array("[[[[1]]]]".utf8)))
        XCTAssertTrue(shallow.isValid(Array("{\"a\":{\"b\":{\"c\":1}}}".utf8)))
        XCTAssertFalse(shallow.isValid(Array("{\"a\":{\"b\":{\"c\":{}}}}".utf8)))
        XCTAssertTrue(shallow.isValid(Array("[{\"a\":[]},[[]],{}]".utf8)), "siblings do not add depth")
        XCTAssertFalse(shallow.isValid(Array("[{\"a\":[{}]}]".utf8)))
    }

    func testDefaultDepthIs256() {
        XCTAssertEqual(validator.maxDepth, 256)
        let deepest = String(repeating: "[", count: 256) + String(repeating: "]", count: 256)
        let tooDeep = String(repeating: "[", count: 257) + String(repeating: "]", count: 257)
        XCTAssertTrue(valid(deepest))
        XCTAssertFalse(valid(tooDeep))
    }

    func testHugeNestingIsRefusedWithoutExhaustingTheStack() {
        XCTAssertFalse(valid(String(repeating: "[", count: 200_000)))
        XCTAssertFalse(valid(String(repeating: "{\"a\":", count: 100_000) + "1" + String(repeating: "}", count: 100_000)))
    }

    func testAcceptsAnyByteCollection() {
        let text = Array("xx[1, 2]yy".utf8)
        XCTAssertTrue(validator.isValid(text[2..<8]))
        XCTAssertFalse(validator.isValid(text[0..<8]))
        XCTAssertTrue(validator.isValid(Data("{\"k\":\"v\"}".utf8)))
        XCTAssertFalse(validator.isValid(EmptyCollection<UInt8>()))
    }

    // MARK: Property-style checks

    func testRandomBytesNeverCrashAndSurroundingWhitespaceNeverChangesTheVerdict() {
        var generator = SeededGenerator(seed: 0x5EED_0001)
        let alphabet = Array("{}[]\",:0123456789-+.eEtruefalsnl \\/bu\n".utf8)
        var accepted = 0
        for _ in 0..<2_000 {
            let length = Int.random(in: 0..<48, using: &generator)
            let bytes: [UInt8] = (0..<length).map { _ in
                Int.random(in: 0..<5, using: &generator) == 0
                    ? UInt8.random(in: 0...255, using: &generator)
                    : alphabet.randomElement(using: &generator)!
            }
            let verdict = validator.isValid(bytes)
            XCTAssertEqual(validator.isValid(bytes), verdict, "the verdict is deterministic")
            XCTAssertEqual(validator.isValid(Array(" \t".utf8) + bytes + Array("\r\n ".utf8)), verdict,
                           "whitespace changed the verdict for \(bytes)")
            if verdict { accepted += 1 }
        }
        // Mostly noise, so most are refused; the count is fixed by the seed.
        XCTAssertLessThan(accepted, 2_000)
    }

    func testMutatedDocumentsNeverCrash() {
        var generator = SeededGenerator(seed: 0x5EED_0002)
        for _ in 0..<500 {
            var bytes = Array(RandomJSON.text(depth: 3, using: &generator).utf8)
            for _ in 0..<Int.random(in: 1...4, using: &generator) where !bytes.isEmpty {
                let at = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: bytes.remove(at: at)
                case 1: bytes.insert(UInt8.random(in: 0...255, using: &generator), at: at)
                default: bytes[at] = UInt8.random(in: 0...255, using: &generator)
                }
            }
            let verdict = validator.isValid(bytes)
            XCTAssertEqual(validator.isValid(Array(" ".utf8) + bytes + Array("\n".utf8)), verdict)
        }
    }

    func testDocumentsSerializedByFoundationAreValid() throws {
        var generator = SeededGenerator(seed: 0x5EED_0003)
        for index in 0..<300 {
            let value = RandomJSON.foundationValue(depth: 4, using: &generator)
            let data = try JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed])
            XCTAssertTrue(validator.isValid(data), "#\(index): refused \(String(decoding: data, as: UTF8.self))")
            let pretty = try JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .prettyPrinted])
            XCTAssertTrue(validator.isValid(pretty), "#\(index): refused pretty \(String(decoding: pretty, as: UTF8.self))")
        }
    }

    func testGeneratedDocumentsAreValidAndTheirProperPrefixesAreNot() {
        var generator = SeededGenerator(seed: 0x5EED_0004)
        for index in 0..<300 {
            // Wrapped in an array, so no proper prefix can be a complete document.
            let text = "[" + RandomJSON.text(depth: 4, using: &generator) + "]"
            let bytes = Array(text.utf8)
            XCTAssertTrue(validator.isValid(bytes), "#\(index): refused \(text.debugDescription)")
            for _ in 0..<20 {
                let cut = Int.random(in: 0..<bytes.count, using: &generator)
                XCTAssertFalse(validator.isValid(bytes[0..<cut]), "#\(index): accepted a prefix of \(cut) bytes of \(text)")
            }
        }
    }
}

/// Random JSON values: as Foundation objects, and as text written with varied spacing, escapes and number forms.
enum RandomJSON {
    static func string<G: RandomNumberGenerator>(using generator: inout G) -> String {
        let ranges: [ClosedRange<UInt32>] = [0x00...0x1F, 0x20...0x7E, 0x20...0x7E, 0xA0...0x17F, 0x4E00...0x4E80,
                                              0x1F600...0x1F64F, 0x22...0x22, 0x5C...0x5C]
        var scalars = String.UnicodeScalarView()
        for _ in 0..<Int.random(in: 0...12, using: &generator) {
            let range = ranges.randomElement(using: &generator)!
            scalars.append(Unicode.Scalar(UInt32.random(in: range, using: &generator))!)
        }
        return String(scalars)
    }

    static func foundationValue<G: RandomNumberGenerator>(depth: Int, using generator: inout G) -> Any {
        let kind = Int.random(in: 0..<(depth > 0 ? 8 : 6), using: &generator)
        switch kind {
        case 0: return NSNull()
        case 1: return Bool.random(using: &generator)
        case 2: return Int64.random(in: .min ... .max, using: &generator)
        case 3: return Double.random(in: -1e12...1e12, using: &generator) * pow(10, Double(Int.random(in: -200...200, using: &generator)))
        case 4, 5: return string(using: &generator)
        case 6: return (0..<Int.random(in: 0...4, using: &generator)).map { _ in foundationValue(depth: depth - 1, using: &generator) }
        default:
            var object: [String: Any] = [:]
            for _ in 0..<Int.random(in: 0...4, using: &generator) {
                object[string(using: &generator)] = foundationValue(depth: depth - 1, using: &generator)
            }
            return object
        }
    }

    private static func space<G: RandomNumberGenerator>(using generator: inout G) -> String {
        String((0..<Int.random(in: 0...2, using: &generator)).map { _ in [" ", "\t", "\n", "\r"].randomElement(using: &generator)! })
    }

    private static func digits<G: RandomNumberGenerator>(_ count: Int, using generator: inout G) -> String {
        String((0..<count).map { _ in "0123456789".randomElement(using: &generator)! })
    }

    static func number<G: RandomNumberGenerator>(using generator: inout G) -> String {
        var text = Bool.random(using: &generator) ? "-" : ""
        if Bool.random(using: &generator) {
            text += "0"
        } else {
            text += String("123456789".randomElement(using: &generator)!) + digits(Int.random(in: 0...35, using: &generator), using: &generator)
        }
        if Bool.random(using: &generator) { text += "." + digits(Int.random(in: 1...8, using: &generator), using: &generator) }
        if Bool.random(using: &generator) {
            text += ["e", "E"].randomElement(using: &generator)! + ["", "+", "-"].randomElement(using: &generator)!
            text += digits(Int.random(in: 1...4, using: &generator), using: &generator)
        }
        return text
    }

    static func quoted<G: RandomNumberGenerator>(using generator: inout G) -> String {
        var text = "\""
        for _ in 0..<Int.random(in: 0...8, using: &generator) {
            switch Int.random(in: 0..<4, using: &generator) {
            case 0: text += ["\\\"", "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t"].randomElement(using: &generator)!
            case 1: text += "\\u" + String((0..<4).map { _ in "0123456789abcdefABCDEF".randomElement(using: &generator)! })
            default:
                let scalar = [UInt32.random(in: 0x20...0x7E, using: &generator), UInt32.random(in: 0xA0...0xFFFD, using: &generator),
                              UInt32.random(in: 0x10000...0x10FFFF, using: &generator)].randomElement(using: &generator)!
                let character = Unicode.Scalar(scalar).map(Character.init) ?? "x"
                text += character == "\"" || character == "\\" ? "x" : String(character)
            }
        }
        return text + "\""
    }

    static func text<G: RandomNumberGenerator>(depth: Int, using generator: inout G) -> String {
        let kind = Int.random(in: 0..<(depth > 0 ? 8 : 6), using: &generator)
        let value: String
        switch kind {
        case 0: value = ["null", "true", "false"].randomElement(using: &generator)!
        case 1, 2: value = number(using: &generator)
        case 3, 4, 5: value = quoted(using: &generator)
        case 6:
            let items = (0..<Int.random(in: 0...4, using: &generator)).map { _ in text(depth: depth - 1, using: &generator) }
            value = "[" + space(using: &generator) + items.joined(separator: "," + space(using: &generator)) + "]"
        default:
            let members = (0..<Int.random(in: 0...4, using: &generator)).map { _ in
                quoted(using: &generator) + space(using: &generator) + ":" + text(depth: depth - 1, using: &generator)
            }
            value = "{" + space(using: &generator) + members.joined(separator: ",") + "}"
        }
        return space(using: &generator) + value + space(using: &generator)
    }
}
