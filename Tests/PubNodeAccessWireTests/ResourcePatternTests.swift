import XCTest
@testable import PubNodeAccessWire

final class ResourcePatternTests: XCTestCase {
    func pattern(_ source: String, file: StaticString = #filePath, line: UInt = #line) -> ResourcePattern? {
        do { return try ResourcePattern(source) } catch {
            XCTFail("\(source): \(error)", file: file, line: line)
            return nil
        }
    }

    func assertMatches(_ source: String, _ yes: [String], _ no: [String], file: StaticString = #filePath, line: UInt = #line) {
        guard let compiled = pattern(source, file: file, line: line) else { return }
        XCTAssertEqual(compiled.source, source, file: file, line: line)
        for name in yes { XCTAssertTrue(compiled.matches(name), "\(source) should match \(name)", file: file, line: line) }
        for name in no { XCTAssertFalse(compiled.matches(name), "\(source) should not match \(name)", file: file, line: line) }
    }

    func testNotesExamples() {
        assertMatches("^ch-.*$", ["ch-", "ch-1", "ch-a b"], ["ch", "xch-1", "Ch-1", "ch-1\nx"])
        assertMatches("^prefix-[0-9]+$", ["prefix-0", "prefix-123"], ["prefix-", "prefix-12a", "aprefix-1"])
        assertMatches(#"^:channel_group-\S*$"#, [":channel_group-", ":channel_group-abc"], [":channel_group-a b", "channel_group-1"])
        // Unanchored search, like Python re.search.
        assertMatches("channel_*", ["channel", "channel_", "my-channel__x"], ["chan", "Channel"])
        assertMatches("chat", ["chat", "chatroom", "my-chat"], ["cha", "c-h-a-t"])
        assertMatches(#"^channel-\S*$"#, ["channel-1"], ["channel 1"])
    }

    func testSyntax() {
        assertMatches("^a.c$", ["abc", "a c", "aéc"], ["a\nc", "ac"])
        assertMatches("^[abc]+$", ["abcabc"], ["abd", ""])
        assertMatches("^[a-z0-9_-]+$", ["a-b_9"], ["A", "a.b"])
        assertMatches("^[^a-c]$", ["d", "é"], ["a", "dd"])
        assertMatches(#"^\.\-\\\*$"#, [#".-\*"#], ["a-\\*"])
        assertMatches(#"^\d\w\s\D\W\S$"#, ["1a x.x"], ["aa x.x", "1a xax"])
        assertMatches(#"^[\d.]+$"#, ["1.2.3"], ["1,2"])
        assertMatches(#"^[^\s]+$"#, ["abc"], ["a c"])
        assertMatches("^(ab|cd)+$", ["ab", "abcd", "cdab"], ["", "abc", "ac"])
        assertMatches("^(?:x|y)z?$", ["x", "yz"], ["z", "xzz"])
        assertMatches("^a{3}$", ["aaa"], ["aa", "aaaa"])
        assertMatches("^a{2,}$", ["aa", "aaaaa"], ["a"])
        assertMatches("^a{2,3}$", ["aa", "aaa"], ["a", "aaaa"])
        assertMatches("^a{,2}$", ["", "a", "aa"], ["aaa"])
        assertMatches("^a*?b+?c??$", ["b", "aabbc"], ["c"])
        assertMatches("^a{x}$", ["a{x}"], ["a"])
        assertMatches("^a{}$", ["a{}"], ["a"])
        assertMatches("a|^b", ["xa", "b"], ["xb"])
        assertMatches(#"^x\Z"#, ["x"], ["x\n"])
        assertMatches("^x$", ["x", "x\n"], ["x\n\n"])
        assertMatches("^()$", [""], ["a"])
        assertMatches("^é+$", ["éé"], ["e"])
        assertMatches("[]a]", ["]", "a"], ["b"])
        assertMatches("^[a-]$", ["a", "-"], ["b"])
    }

    func testRejected() {
        let cases: [(String, ResourcePatternError)] = [
            ("", .empty),
            (String(repeating: "a", count: 257), .tooLong),
            (#"(a)\1"#, .unsupported(offset: 3)),
            ("(?=a)", .unsupported(offset: 0)),
            ("(?!a)", .unsupported(offset: 0)),
            ("(?<=a)b", .unsupported(offset: 0)),
            ("(?P<n>a)", .unsupported(offset: 0)),
            ("(?i)a", .unsupported(offset: 0)),
            (#"\bword"#, .unsupported(offset: 0)),
            ("a\\", .unsupported(offset: 1)),
            ("(a", .unbalancedParenthesis(offset: 0)),
            ("a)", .unbalancedParenthesis(offset: 1)),
            ("[a", .invalidClass(offset: 0)),
            ("[z-a]", .invalidClass(offset: 1)),
            (#"[\d-z]"#, .invalidClass(offset: 1)),
            ("*a", .invalidQuantifier(offset: 0)),
            ("a**", .invalidQuantifier(offset: 2)),
            ("(|+)", .invalidQuantifier(offset: 2)),
            ("{2}", .invalidQuantifier(offset: 0)),
            ("a{3,2}", .invalidQuantifier(offset: 1)),
            ("^*", .invalidQuantifier(offset: 1)),
            ("a*+", .unsupported(offset: 2)),
            ("a{1000}{1000}", .invalidQuantifier(offset: 7)),
            ("(a{100}){100}", .tooComplex),
            ("a{99999999999}", .tooComplex),
            (String(repeating: "((a{30}){10})", count: 5), .tooComplex),
        ]
        for (source, expected) in cases {
            XCTAssertThrowsError(try ResourcePattern(source), source) { error in
                XCTAssertEqual(error as? ResourcePatternError, expected, source)
            }
        }
        XCTAssertNoThrow(try ResourcePattern(String(repeating: "a", count: 256)))
        XCTAssertNoThrow(try ResourcePattern("a{1000}"))
    }

    func testPathologicalPatternsStayLinear() throws {
        let long = String(repeating: "a", count: 20_000)
        let started = ContinuousClock.now
        for source in ["(a*)*b", "(a|a)*b", "(a+)+$b", "^(a|aa)*c$", "(.*a){20}x", "(a?){50}a{50}b", "(x+x+)+y"] {
            let compiled = try ResourcePattern(source)
            XCTAssertFalse(compiled.matches(long), source)
            XCTAssertFalse(compiled.matches(String(repeating: "x", count: 5_000)), source)
        }
        XCTAssertTrue(try ResourcePattern("(a*)*b").matches(long + "b"))
        XCTAssertTrue(try ResourcePattern("(a?){50}a{50}").matches(String(repeating: "a", count: 50)))
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(20))
    }
}
