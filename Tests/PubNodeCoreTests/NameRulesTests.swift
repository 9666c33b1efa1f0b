import PubNodeTestSupport
import XCTest
@testable import PubNodeCore

final class NameRulesTests: XCTestCase {
    private let forbidden: [Character] = [",", ":", "*", "/", "\\"]
    private let controls: [Character] = ["\u{0}", "\u{1}", "\t", "\n", "\r", "\u{1B}", "\u{1F}", "\u{7F}"]

    func testValidChannelNames() {
        let names = ["a", "news", "a.b.c", "chat-room_1", "ünïcödé", "emoji😀", "room-pnpres", "a b", "a;b", "a?b&c=d",
                     String(repeating: "x", count: 2048), String(repeating: "é", count: 1024)]
        for name in names {
            XCTAssertNil(Fixture.violation { try NameRules.validateChannel(name) }, "refused \(name.prefix(20))")
            XCTAssertNil(Fixture.violation { try NameRules.validateGroup(name) }, "refused group \(name.prefix(20))")
        }
    }

    func testEmptyNameIsRefused() {
        XCTAssertEqual(Fixture.violation { try NameRules.validateChannel("") }, .empty)
        XCTAssertEqual(Fixture.violation { try NameRules.validateGroup("") }, .empty)
    }

    func testNameOver2048BytesIsRefused() {
        XCTAssertEqual(Fixture.violation { try NameRules.validateChannel(String(repeating: "x", count: 2049)) }, .tooLong)
        XCTAssertEqual(Fixture.violation { try NameRules.validateGroup(String(repeating: "x", count: 2049)) }, .tooLong)
        // Bytes are counted, not characters: 1,025 two-byte characters are 2,050 bytes.
        XCTAssertEqual(Fixture.violation { try NameRules.validateChannel(String(repeating: "é", count: 1025)) }, .tooLong)
    }

    func testEachForbiddenCharacterIsRefused() {
        for character in forbidden {
            for name in [String(character), "a\(character)b", "ab\(character)", "\(character)ab"] {
                XCTAssertEqual(Fixture.violation { try NameRules.validateChannel(name) }, .forbiddenCharacter,
                               "accepted channel \(name.debugDescription)")
                XCTAssertEqual(Fixture.violation { try NameRules.validateGroup(name) }, .forbiddenCharacter,
                               "accepted group \(name.debugDescription)")
            }
        }
    }

    func testControlCharactersAreRefused() {
        for character in controls {
            let name = "a\(character)b"
            XCTAssertEqual(Fixture.violation { try NameRules.validateChannel(name) }, .forbiddenCharacter,
                           "accepted \(name.debugDescription)")
            XCTAssertEqual(Fixture.violation { try NameRules.validateGroup(name) }, .forbiddenCharacter)
        }
    }

    func testIsWildcard() {
        XCTAssertTrue(NameRules.isWildcard("a.*"))
        XCTAssertTrue(NameRules.isWildcard("*"))
        XCTAssertTrue(NameRules.isWildcard("a*"))
        XCTAssertFalse(NameRules.isWildcard("a.b"))
        XCTAssertFalse(NameRules.isWildcard("*a"))
        XCTAssertFalse(NameRules.isWildcard(""))
        XCTAssertTrue(NameRules.isWildcard("a.very.long.channel.prefix.*-pnpres"))
        XCTAssertFalse(NameRules.isWildcard("a.very.long.channel.prefix.*-pnpre"))
        XCTAssertFalse(NameRules.isWildcard("é"))
    }

    /// The presence suffix is matched on bytes, for short names (stored inline) and long ones
    /// (stored on the heap) alike, multi-byte characters included; a name that is only the suffix
    /// has no base. (`testIsWildcard` does the same for the wildcard suffixes.)
    func testSuffixesAreMatchedOnBytes() {
        XCTAssertEqual(NameRules.presenceBase("room-pnpres"), "room")
        XCTAssertEqual(NameRules.presenceBase("a-much-longer-channel-name-pnpres"), "a-much-longer-channel-name")
        XCTAssertEqual(NameRules.presenceBase("café-pnpres"), "café")
        XCTAssertNil(NameRules.presenceBase("-pnpres"))
        XCTAssertNil(NameRules.presenceBase("room-pnpre"))
        XCTAssertNil(NameRules.presenceBase("room-pnpresx"))
        XCTAssertNil(NameRules.presenceBase("room-Pnpres"))
    }

    func testWildcardPrefixOfValidPatterns() throws {
        XCTAssertEqual(try NameRules.wildcardPrefix("a.*"), "a.")
        XCTAssertEqual(try NameRules.wildcardPrefix("a.b.*"), "a.b.")
        XCTAssertEqual(try NameRules.wildcardPrefix("sports.news.*"), "sports.news.")
        XCTAssertEqual(try NameRules.wildcardPrefix("é.ü.*"), "é.ü.")
        XCTAssertEqual(try NameRules.wildcardPrefix(String(repeating: "a", count: 2046) + ".*"),
                       String(repeating: "a", count: 2046) + ".")
    }

    func testWildcardPrefixRefusesMalformedPatterns() {
        for pattern in ["a.b.c.*", "*", ".*", "a*", "a..*", ".a.*", "a.b", "a", "", "a.", "**", "a.b*",
                        String(repeating: "a", count: 2047) + ".*"] {
            XCTAssertEqual(Fixture.violation { _ = try NameRules.wildcardPrefix(pattern) }, .badWildcard,
                           "accepted \(pattern.prefix(20).debugDescription)")
        }
    }

    func testWildcardPrefixRefusesForbiddenCharactersInItsTokens() {
        XCTAssertEqual(Fixture.violation { _ = try NameRules.wildcardPrefix("a,b.*") }, .forbiddenCharacter)
        XCTAssertEqual(Fixture.violation { _ = try NameRules.wildcardPrefix("a.b:c.*") }, .forbiddenCharacter)
        XCTAssertEqual(Fixture.violation { _ = try NameRules.wildcardPrefix("a*.*") }, .forbiddenCharacter)
        XCTAssertEqual(Fixture.violation { _ = try NameRules.wildcardPrefix("a.*.*") }, .forbiddenCharacter)
        XCTAssertEqual(Fixture.violation { _ = try NameRules.wildcardPrefix("a\n.*") }, .forbiddenCharacter)
    }

    func testWildcardPrefixesOfChannels() {
        XCTAssertEqual(NameRules.wildcardPrefixes(of: "a"), [])
        XCTAssertEqual(NameRules.wildcardPrefixes(of: "a.b"), ["a."])
        XCTAssertEqual(NameRules.wildcardPrefixes(of: "a.b.c"), ["a.", "a.b."])
        XCTAssertEqual(NameRules.wildcardPrefixes(of: "a.b.c.d"), ["a.", "a.b."], "at most two prefixes")
        XCTAssertEqual(NameRules.wildcardPrefixes(of: "news.sports.football.eu"), ["news.", "news.sports."])
        XCTAssertEqual(NameRules.wildcardPrefixes(of: "é.ü.x"), ["é.", "é.ü."])
    }

    func testWildcardPrefixesOfNamesEndingWithADot() {
        XCTAssertEqual(NameRules.wildcardPrefixes(of: "a."), [], "`a.*` needs a token after the dot")
        XCTAssertEqual(NameRules.wildcardPrefixes(of: "a.b."), ["a."])
        XCTAssertEqual(NameRules.wildcardPrefixes(of: "a.b.c."), ["a.", "a.b."])
        XCTAssertEqual(NameRules.wildcardPrefixes(of: "."), [])
    }

    func testEveryPatternPrefixIsFoundAmongTheChannelsPrefixes() throws {
        // A channel matches a wildcard exactly when the wildcard's prefix is one of the channel's prefixes.
        let cases: [(pattern: String, channel: String, matches: Bool)] = [
            ("a.*", "a.b", true), ("a.*", "a.b.c", true), ("a.*", "a.b.c.d", true),
            ("a.*", "ab.c", false), ("a.*", "a", false), ("a.*", "b.a", false),
            ("a.b.*", "a.b.c", true), ("a.b.*", "a.b.c.d", true), ("a.b.*", "a.c", false),
            ("a.b.*", "a.b", false), ("a.b.*", "a.bc.d", false),
        ]
        for item in cases {
            let prefix = try NameRules.wildcardPrefix(item.pattern)
            XCTAssertEqual(NameRules.wildcardPrefixes(of: item.channel).contains(prefix), item.matches,
                           "\(item.pattern) vs \(item.channel)")
        }
    }
}
