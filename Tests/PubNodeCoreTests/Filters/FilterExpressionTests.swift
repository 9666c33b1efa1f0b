import PubNodeCore
import XCTest

/// The language: operators, precedence, paths, modes, missing fields and coercions.
final class FilterExpressionTests: XCTestCase {
    private let document = FilterValue.parse(Array(#"""
        {"meta": {"lang": "en", "score": 7, "ok": true, "tags": ["a", "b"], "user": {"role": "admin", "name": "Ann Smith"},
                  "uuid": "me", "id": 300, "text": "hello world", "star": "a*b", "zero": 0, "n": "42"},
         "data": {"text": "Hi", "items": [{"k": 1}, {"k": 2}], "price": 9.5}}
        """#.utf8))!

    private func check(_ text: String, _ expected: Bool, mode: FilterMode = .message, line: UInt = #line) {
        do {
            let filter = try FilterExpression.compile(text, mode: mode)
            XCTAssertEqual(filter.matches(document), expected, text, line: line)
            XCTAssertEqual(filter.text, text, line: line)
        } catch {
            XCTFail("\(text) refused: \(error.reason)", line: line)
        }
    }

    func testComparisons() {
        check("meta.lang == 'en'", true)
        check(#"meta.lang == "fr""#, false)
        check("meta.lang != 'fr'", true)
        check("meta.score > 5", true)
        check("meta.score < 5", false)
        check("meta.score >= 7", true)
        check("meta.score <= 6.5", false)
        check("meta.ok == true", true)
        check("meta.ok == 1", true)
        check("meta.ok == 'true'", true)
        check("meta.n == 42", true)
        check("meta.n > 41", true)
        check("meta.user == null", false)
        check("meta.nothing == null", false)
    }

    func testStringOrderingOnlyBetweenStrings() {
        check("meta.lang < 'fr'", true)
        check("meta.lang >= 'en'", true)
        check("meta.lang > 3", false)
        check("meta.tags > 1", false)
    }

    func testLikeIsCaseInsensitiveWithStarsAndEscapes() {
        check("meta.lang LIKE 'EN'", true)
        check("meta.user.name like 'ann*'", true)
        check("meta.user.name LiKe '*SMITH'", true)
        check("meta.user.name LIKE '*n s*'", true)
        check("meta.user.name LIKE 'ann'", false)
        check("meta.user.name LIKE 'smith*'", false)
        check(#"meta.star LIKE 'a\*b'"#, true)
        check(#"meta.star LIKE 'a\*c'"#, false)
        check(#"meta.text LIKE 'a\*b'"#, false)
        check("meta.text LIKE 'h*o*d'", true)
        check("meta.text LIKE 'h*z*d'", false)
        check("meta.score LIKE '7'", false)
    }

    func testContainsOnStringsAndArrays() {
        check("meta.text CONTAINS 'lo wo'", true)
        check("meta.text contains 'xyz'", false)
        check("meta.tags CONTAINS 'b'", true)
        check("meta.tags CONTAINS 'c'", false)
        check("meta.score CONTAINS '7'", false)
        check("meta.tags contains a", true)
    }

    func testArithmeticAndPrecedence() {
        check("meta.id % 100 == 0", true)
        check("meta.score + 3 * 2 == 13", true)
        check("(meta.score + 3) * 2 == 20", true)
        check("meta.score - 10 == -3", true)
        check("-meta.score == -7", true)
        check("meta.score / 2 == 3.5", true)
        check("meta.score / meta.zero == 1", false)
        check("meta.score / 0 != 1", true)
        check("meta.score % 0 == 0", false)
        check("meta.lang + 1 == 1", false)
        check("meta.score * 1e300 * 1e300 > 0", false)
    }

    func testLogicalOperatorsAndPrecedence() {
        check("meta.lang == 'en' && meta.score > 5", true)
        check("meta.lang == 'fr' || meta.score > 5", true)
        check("meta.lang == 'fr' || meta.score > 5 && meta.ok == false", false)
        check("(meta.lang == 'fr' || meta.score > 5) && meta.ok == true", true)
        check("!(meta.lang == 'fr')", true)
        check("!meta.lang == 'en'", false)
        check("!!(meta.lang == 'en')", true)
        check("meta.ok", true)
        check("!meta.ok", false)
    }

    func testPathsWithDotsKeysAndIndexes() {
        check(#"meta.user["role"] == 'admin'"#, true)
        check("meta['user']['role'] == 'admin'", true)
        check("meta.tags[0] == 'a'", true)
        check("meta.tags[2] == 'a'", false)
        check("data.items[1].k == 2", true)
        check("data.text == 'Hi'", true)
        check("data.price > 9", true)
        check("meta.user[0] == 'admin'", false)
    }

    func testBareIdentifiersAreMetaFieldsAndBareRightHandWordsAreStrings() {
        check("uuid != 'abc'", true)
        check("uuid == 'me'", true)
        check("user.role == 'admin'", true)
        check("lang == en", true)
        check("lang != spanish", true)
        check("language!=spanish", true)
        check("lang == meta.lang", true)
        check("score > 6 && tags contains a", true)
    }

    func testMissingFieldsAreFalseExceptNotEqual() {
        check("meta.missing == 'x'", false)
        check("meta.missing != 'x'", true)
        check("meta.missing > 1", false)
        check("meta.missing LIKE '*'", false)
        check("meta.missing CONTAINS 'x'", false)
        check("!(meta.missing == 'x')", true)
        check("data.text.deeper == 'x'", false)
    }

    func testTypeMismatchesAreFalse() {
        check("meta.user == 'admin'", false)
        check("meta.tags == 'a'", false)
        check("meta.lang == 1", false)
        check("meta.ok == 'yes'", false)
        check("meta.tags == meta.tags", true)
    }

    func testKeywordsAndLiteralsAreCaseInsensitiveAndStringsUnescape() {
        check("meta.ok == TRUE", true)
        check("meta.nothing == NULL", false)
        check(#"meta.text == 'hello\u0020world'"#, true)
        check(#"meta.text == "hello world""#, true)
        check(#"'it\'s' == "it's""#, true)
        check(#"'a\\b' LIKE 'a\\b'"#, true)
        check("\"tab\\there\" == 'tab\there'", true)
    }

    func testObjectsModeReadsFromTheRoot() throws {
        let object = FilterValue.parse(Array(#"""
            {"id": "u1", "name": "Ann", "updated": "2024-05-01T10:00:00.000Z", "status": "active",
             "custom": {"team": "red", "level": 3}}
            """#.utf8))!
        let cases: [(String, Bool)] = [
            ("name == 'Ann'", true), ("custom.team == 'red'", true), ("custom.level >= 3", true),
            ("updated >= '2024-01-01'", true), ("updated < '2024-01-01'", false), ("id LIKE 'u*'", true),
            ("status == active", true), ("meta.name == 'Ann'", false), ("name == 'ann'", false),
        ]
        for (text, expected) in cases {
            XCTAssertEqual(try FilterExpression.compile(text, mode: .objects).matches(object), expected, text)
        }
        XCTAssertFalse(try FilterExpression.compile("name == 'Ann'", mode: .message).matches(object))
    }

    func testParseReadsJSONAndRefusesWhatIsNot() {
        XCTAssertEqual(FilterValue.parse(Array(#"[1, "a", true, null, {"k": -2.5e1}]"#.utf8)),
                       .array([.number(1), .string("a"), .bool(true), .null, .object(["k": .number(-25)])]))
        XCTAssertEqual(FilterValue.parse(Array(#""\ud83d\ude00""#.utf8)), .string("😀"))
        for bad in ["", "{", "[1,]", "tru", "\"a", "{\"a\" 1}", "1 2", "'x'", "nul"] {
            XCTAssertNil(FilterValue.parse(Array(bad.utf8)), bad)
        }
        XCTAssertNil(FilterValue.parse(Array((String(repeating: "[", count: 100) + String(repeating: "]", count: 100)).utf8)))
        XCTAssertNotNil(FilterValue.parse(Array((String(repeating: "[", count: 60) + String(repeating: "]", count: 60)).utf8)))
    }

    func testCacheCompilesOnceAndEvictsTheOldest() throws {
        let cache = FilterCache(capacity: 2)
        _ = try cache.compile("a == 1", mode: .message)
        _ = try cache.compile("a == 1", mode: .message)
        XCTAssertEqual(cache.count(.message), 1)
        _ = try cache.compile("b == 1", mode: .message)
        _ = try cache.compile("c == 1", mode: .message)
        XCTAssertEqual(cache.count(.message), 2)
        XCTAssertEqual(cache.count(.objects), 0)
        XCTAssertThrowsError(try cache.compile("a ==", mode: .message))
        XCTAssertEqual(cache.count(.message), 2)
    }
}
