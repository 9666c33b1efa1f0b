@testable import PubNodeServer
import XCTest

/// The kept-head match scans a target eight bytes at a time: it must stop exactly where the byte
/// by byte scan stops, for every byte value at every position, and never read past its end.
final class VisibleScanTests: XCTestCase {
    func testTheWordScanStopsWhereTheByteScanStops() {
        func byByte(_ bytes: [UInt8], _ start: Int, _ end: Int) -> Int {
            var index = start
            while index < end, bytes[index] > 0x20, bytes[index] < 0x7F { index += 1 }
            return index
        }
        let visible = Array("abcdefghijklmnopqrstuvwxyz0123456789/?=&%-_.~!".utf8)
        for length in [0, 1, 7, 8, 9, 15, 16, 17, 31, 40] {
            let base = (0..<length).map { visible[$0 % visible.count] }
            for position in 0..<max(length, 1) where length > 0 {
                for value in 0...255 {
                    var bytes = base
                    bytes[position] = UInt8(value)
                    for (start, end) in [(0, length), (min(3, length), length), (0, max(0, length - 2))] where start <= end {
                        let found = bytes.withUnsafeBytes { HTTPRequestParser.endOfVisible($0, from: start, to: end) }
                        XCTAssertEqual(found, byByte(bytes, start, end), "byte \(value) at \(position) of \(length), \(start)..<\(end)")
                    }
                }
            }
            let found = base.withUnsafeBytes { HTTPRequestParser.endOfVisible($0, from: 0, to: length) }
            XCTAssertEqual(found, length, "all visible: scanned to the end")
        }
    }
}
