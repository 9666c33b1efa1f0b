import XCTest
@testable import PubNodeAccessWire

final class CBORValueTests: XCTestCase {
    func roundTrip(_ value: CBORValue, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(try CBORValue.decode(value.encoded()), value, file: file, line: line)
    }

    func testShortestHeads() {
        XCTAssertEqual(CBORValue.unsigned(23).encoded(), [0x17])
        XCTAssertEqual(CBORValue.unsigned(24).encoded(), [0x18, 24])
        XCTAssertEqual(CBORValue.unsigned(256).encoded(), [0x19, 1, 0])
        XCTAssertEqual(CBORValue.unsigned(65536).encoded(), [0x1a, 0, 1, 0, 0])
        XCTAssertEqual(CBORValue.unsigned(1 << 32).encoded(), [0x1b, 0, 0, 0, 1, 0, 0, 0, 0])
        XCTAssertEqual(CBORValue.negative(-1).encoded(), [0x20])
        XCTAssertEqual(CBORValue.negative(-500).encoded(), [0x39, 0x01, 0xf3])
        XCTAssertEqual(CBORValue.negative(.min).encoded(), [0x3b, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff])
        XCTAssertEqual(CBORValue.text("a").encoded(), [0x61, 0x61])
        XCTAssertEqual(CBORValue.bytes([1, 2]).encoded(), [0x42, 1, 2])
        XCTAssertEqual(CBORValue.map([CBORPair(.bytes(Array("v".utf8)), .unsigned(2))]).encoded(), [0xa1, 0x41, 0x76, 0x02])
        XCTAssertEqual(CBORValue.double(1.5).encoded(), [0xfb, 0x3f, 0xf8, 0, 0, 0, 0, 0, 0])
        XCTAssertEqual([CBORValue.bool(false), .bool(true), .null].map { $0.encoded() }, [[0xf4], [0xf5], [0xf6]])
    }

    func testRoundTrips() {
        for value: CBORValue in [
            .unsigned(0), .unsigned(.max), .negative(-1), .negative(.min), .bytes([]), .bytes(Array(0...255)),
            .text(""), .text("héllo ✓ 🎉"), .text(String(repeating: "x", count: 70_000)), .bool(true), .null,
            .double(-0.25), .double(.infinity),
            .array([.unsigned(1), .array([.null]), .map([])]),
            .map([CBORPair(.text("a"), .unsigned(1)), CBORPair(.bytes([0]), .array([])), CBORPair(.text("a"), .null)]),
        ] {
            roundTrip(value)
        }
    }

    func testDecodesOtherFloatWidths() throws {
        XCTAssertEqual(try CBORValue.decode([0xf9, 0x3c, 0x00]), .double(1.0))
        XCTAssertEqual(try CBORValue.decode([0xf9, 0xc4, 0x00]), .double(-4.0))
        XCTAssertEqual(try CBORValue.decode([0xf9, 0x00, 0x01]), .double(5.960464477539063e-8))
        XCTAssertEqual(try CBORValue.decode([0xf9, 0x7c, 0x00]), .double(.infinity))
        XCTAssertEqual(try CBORValue.decode([0xfa, 0x47, 0xc3, 0x50, 0x00]), .double(100000.0))
    }

    func testRejections() {
        func error(_ bytes: [UInt8]) -> CBORError? {
            do { _ = try CBORValue.decode(bytes); return nil } catch { return error }
        }
        XCTAssertEqual(error([]), .truncated)
        XCTAssertEqual(error([0x18]), .truncated)
        XCTAssertEqual(error([0x62, 0x61]), .truncated)
        XCTAssertEqual(error([0x5b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]), .truncated)
        XCTAssertEqual(error([0x9b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]), .truncated)
        XCTAssertEqual(error([0xba, 0x00, 0x01, 0x00, 0x00, 0x01, 0x01]), .truncated)
        XCTAssertEqual(error([0x01, 0x02]), .trailingBytes)
        XCTAssertEqual(error([0x5f, 0x41, 0x00, 0xff]), .indefiniteLength)
        XCTAssertEqual(error([0x9f, 0xff]), .indefiniteLength)
        XCTAssertEqual(error([0xbf, 0xff]), .indefiniteLength)
        XCTAssertEqual(error([0x62, 0xc3, 0x28]), .invalidUTF8)
        XCTAssertEqual(error([0xc1, 0x00]), .unsupported(0xc1))
        XCTAssertEqual(error([0xf7]), .unsupported(0xf7))
        XCTAssertEqual(error([0x1c]), .unsupported(0x1c))
        XCTAssertEqual(error([0x3b, 0x80, 0, 0, 0, 0, 0, 0, 0]), .integerOutOfRange)
        XCTAssertEqual(error(Array(repeating: 0x81, count: 16) + [0x00]), nil)
        XCTAssertEqual(error(Array(repeating: 0x81, count: 17) + [0x00]), .nestingTooDeep)
        XCTAssertEqual(error(Array(repeating: 0x81, count: 100_000) + [0x00]), .nestingTooDeep)
        XCTAssertEqual(error([0x99, 0x10, 0x00] + Array(repeating: 0x00, count: 4096)), .tooManyItems)
        XCTAssertEqual(error([0x99, 0x0f, 0xff] + Array(repeating: 0x00, count: 4095)), nil)
    }

    func testJSONBridging() throws {
        let json = #"{"b": [1, -2, 2.5, 1e3, true, false, null, "x\"\u00e9\ud83c\udf89"], "a": {}, "big": 18446744073709551616, "z": -0}"#
        let value = try CBORValue(json: Array(json.utf8))
        XCTAssertEqual(value, .map([
            CBORPair(.text("b"), .array([.unsigned(1), .negative(-2), .double(2.5), .double(1000), .bool(true),
                                         .bool(false), .null, .text("x\"é🎉")])),
            CBORPair(.text("a"), .map([])),
            CBORPair(.text("big"), .double(18446744073709551616)),
            CBORPair(.text("z"), .unsigned(0)),
        ]))
        XCTAssertEqual(value["a"], .map([]))
        XCTAssertEqual(value.jsonText(), #"{"b":[1,-2,2.5,1000.0,true,false,null,"x\"é🎉"],"a":{},"big":1.8446744073709552e+19,"z":0}"#)
        XCTAssertEqual(try CBORValue(json: Array(value.jsonText().utf8)), value)
        XCTAssertEqual(CBORValue.map([CBORPair(.bytes(Array("k".utf8)), .bytes([0xff, 0x00]))]).jsonText(), #"{"k":"/wA="}"#)
        XCTAssertEqual(CBORValue.text("\u{01}\n").jsonText(), #""\u0001\n""#)
        XCTAssertEqual(CBORValue.double(.nan).jsonText(), "null")
    }

    func testJSONRejections() {
        for bad in ["", "{", "[1,]", "{\"a\" 1}", "01", "1.", "-", "tru", "\"\\x\"", "\"\u{01}\"", "[1] 2", "\"\\ud800\"",
                    "{1: 2}", "nul"] {
            XCTAssertThrowsError(try CBORValue(json: Array(bad.utf8)), bad)
        }
        XCTAssertThrowsError(try CBORValue(json: Array((String(repeating: "[", count: 17) + String(repeating: "]", count: 17)).utf8))) {
            XCTAssertEqual($0 as? CBORError, .nestingTooDeep)
        }
        XCTAssertNoThrow(try CBORValue(json: Array((String(repeating: "[", count: 16) + String(repeating: "]", count: 16)).utf8)))
        let many = "[" + Array(repeating: "0", count: 5000).joined(separator: ",") + "]"
        XCTAssertThrowsError(try CBORValue(json: Array(many.utf8))) { XCTAssertEqual($0 as? CBORError, .tooManyItems) }
    }
}
