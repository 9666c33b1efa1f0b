import XCTest
@testable import PubNodeAccessWire

/// Patterns and answers produced by Python's `re.search` (CPython 3, seeded random patterns over a
/// small grammar); every name not listed for a pattern must not match.
final class ResourcePatternPythonTests: XCTestCase {
    let names: [String] = ["", "a", "b", "ab", "abc", "aab", "ba", "a-b", "1", "a1", " ", "a b", "x", "xx", "abab", "ccc", "a\n", "é", "aaaa", "c-1"]
    let cases: [(pattern: String, matching: [String])] = [
        (#"^[ab]{2}b.?$"#, ["aab"]),
        (#"^c*c{2,}(?:ab|c).*"#, ["ccc"]),
        (#"^\d|[ab]{2,}.*?\s{2,}[^a]$"#, ["1"]),
        (#"x{,2}(?:ab|c)?$"#, ["", "a", "b", "ab", "abc", "aab", "ba", "a-b", "1", "a1", " ", "a b", "x", "xx", "abab", "ccc", "a\n", "é", "aaaa", "c-1"]),
        (#"\d\s{2,}"#, []),
        (#"^.{2,}"#, ["ab", "abc", "aab", "ba", "a-b", "a1", "a b", "xx", "abab", "ccc", "aaaa", "c-1"]),
        (#"c{2,}"#, ["ccc"]),
        (#"(a*)c+x{,2}c"#, ["ccc"]),
        (#"(^(^(a|b){2}x$){2})?$"#, ["", "a", "b", "ab", "abc", "aab", "ba", "a-b", "1", "a1", " ", "a b", "x", "xx", "abab", "ccc", "a\n", "é", "aaaa", "c-1"]),
        (#"[^a]"#, ["b", "ab", "abc", "aab", "ba", "a-b", "1", "a1", " ", "a b", "x", "xx", "abab", "ccc", "a\n", "é", "c-1"]),
        (#"\s[ab]{2}-*?"#, []),
        (#"(a*){,2}$"#, ["", "a", "b", "ab", "abc", "aab", "ba", "a-b", "1", "a1", " ", "a b", "x", "xx", "abab", "ccc", "a\n", "é", "aaaa", "c-1"]),
        (#"b*c*(a*).?|^.?a$"#, ["", "a", "b", "ab", "abc", "aab", "ba", "a-b", "1", "a1", " ", "a b", "x", "xx", "abab", "ccc", "a\n", "é", "aaaa", "c-1"]),
        (#".{1,2}$"#, ["a", "b", "ab", "abc", "aab", "ba", "a-b", "1", "a1", " ", "a b", "x", "xx", "abab", "ccc", "a\n", "é", "aaaa", "c-1"]),
        (#"\S+$"#, ["a", "b", "ab", "abc", "aab", "ba", "a-b", "1", "a1", "a b", "x", "xx", "abab", "ccc", "a\n", "é", "aaaa", "c-1"]),
        (#"^[ab]{2,}a{2,}\s{,2}"#, ["aaaa"]),
        (#"-*\S{,2}"#, ["", "a", "b", "ab", "abc", "aab", "ba", "a-b", "1", "a1", " ", "a b", "x", "xx", "abab", "ccc", "a\n", "é", "aaaa", "c-1"]),
        (#"(a|b)*[a-c]{2,}"#, ["ab", "abc", "aab", "ba", "abab", "ccc", "aaaa"]),
        (#"(((a|b)*){2}$)|(-[ab]a{,2}.{2,}$)*|\s{2,}\d*?$"#, ["", "a", "b", "ab", "abc", "aab", "ba", "a-b", "1", "a1", " ", "a b", "x", "xx", "abab", "ccc", "a\n", "é", "aaaa", "c-1"]),
        (#"([^a]x*?){2,}"#, ["abc", "a-b", "a b", "xx", "ccc", "c-1"]),
        (#"\d*"#, ["", "a", "b", "ab", "abc", "aab", "ba", "a-b", "1", "a1", " ", "a b", "x", "xx", "abab", "ccc", "a\n", "é", "aaaa", "c-1"]),
        (#"(a*)?"#, ["", "a", "b", "ab", "abc", "aab", "ba", "a-b", "1", "a1", " ", "a b", "x", "xx", "abab", "ccc", "a\n", "é", "aaaa", "c-1"]),
        (#"((a|b){1,2}$)+$"#, ["a", "b", "ab", "aab", "ba", "a-b", "a b", "abab", "a\n", "aaaa"]),
        (#"[ab]+[ab]{1,2}\d"#, []),
        (#"^(?:ab|c){2,}(a|b)?"#, ["abc", "abab", "ccc"]),
        (#"^(a*){1,2}a{2}\S{2,}"#, ["aaaa"]),
        (#"(^\w(?:ab|c){,2})*?$"#, ["", "a", "b", "ab", "abc", "aab", "ba", "a-b", "1", "a1", " ", "a b", "x", "xx", "abab", "ccc", "a\n", "é", "aaaa", "c-1"]),
        (#"^(?:ab|c)\w"#, ["abc", "abab", "ccc"]),
        (#"\w"#, ["a", "b", "ab", "abc", "aab", "ba", "a-b", "1", "a1", "a b", "x", "xx", "abab", "ccc", "a\n", "é", "aaaa", "c-1"]),
        (#"(\s{,2}\s{2,}$)?$"#, ["", "a", "b", "ab", "abc", "aab", "ba", "a-b", "1", "a1", " ", "a b", "x", "xx", "abab", "ccc", "a\n", "é", "aaaa", "c-1"]),
        (#"^[a-c]{2,}"#, ["ab", "abc", "aab", "ba", "abab", "ccc", "aaaa"]),
        (#"(^(^(?:ab|c)b(a|b){2,}$){1,2}|(a*)\w?\S{2,}$)$"#, ["ab", "abc", "aab", "ba", "a-b", "a1", "xx", "abab", "ccc", "aaaa", "c-1"]),
        (#"c+|^(a|b)$"#, ["a", "b", "abc", "ccc", "a\n", "c-1"]),
        (#"^((-(a|b){1,2}){1,2}$){2,}"#, []),
        (#"^\w\w*[a-c]*(a*){1,2}|b*?[a-c][ab]?$"#, ["a", "b", "ab", "abc", "aab", "ba", "a-b", "1", "a1", "a b", "x", "xx", "abab", "ccc", "a\n", "é", "aaaa", "c-1"]),
        (#".*x+\s{1,2}"#, []),
        (#"c{1,2}a+(a*)$"#, []),
        (#"[a-c]c"#, ["abc", "ccc"]),
        (#"(^x{,2})?|^a?\S{2}.*"#, ["", "a", "b", "ab", "abc", "aab", "ba", "a-b", "1", "a1", " ", "a b", "x", "xx", "abab", "ccc", "a\n", "é", "aaaa", "c-1"]),
        (#"^-{2}$"#, []),
        (#"[ab]*\w{2}\S*$"#, ["ab", "abc", "aab", "ba", "a1", "xx", "abab", "ccc", "aaaa"]),
        (#"[a-c]b{2}(a*)*?[ab]{,2}"#, []),
        (#"x{2}\S+$"#, []),
        (#"^(c*x{2,})$"#, ["xx"]),
        (#"^\S*$"#, ["", "a", "b", "ab", "abc", "aab", "ba", "a-b", "1", "a1", "x", "xx", "abab", "ccc", "a\n", "é", "aaaa", "c-1"]),
        (#"^(a|b){2}[a-c]{2}\w?b{1,2}"#, []),
        (#"c+\d{2}"#, []),
        (#"[ab]"#, ["a", "b", "ab", "abc", "aab", "ba", "a-b", "a1", "a b", "abab", "a\n", "aaaa"]),
        (#"^a(a|b){2,}(a*){1,2}\d|(a*)|\d*?b{,2}"#, ["", "a", "b", "ab", "abc", "aab", "ba", "a-b", "1", "a1", " ", "a b", "x", "xx", "abab", "ccc", "a\n", "é", "aaaa", "c-1"]),
        (#"^(^(a*)+\S{,2}\d{1,2}){,2}"#, ["", "a", "b", "ab", "abc", "aab", "ba", "a-b", "1", "a1", " ", "a b", "x", "xx", "abab", "ccc", "a\n", "é", "aaaa", "c-1"]),
        (#"^(^(?:ab|c)?(a|b)*a+)+"#, ["a", "ab", "abc", "aab", "ba", "a-b", "a1", "a b", "abab", "a\n", "aaaa"]),
        (#"^\sx*?[^a]*"#, [" "]),
        (#"(^\Sc\S*[^a]{,2}){2}"#, []),
        (#"a$"#, ["a", "ba", "a\n", "aaaa"]),
        (#"([a-c]?(a*)*\S?x){2}|^(\S?$)?"#, ["", "a", "b", "ab", "abc", "aab", "ba", "a-b", "1", "a1", " ", "a b", "x", "xx", "abab", "ccc", "a\n", "é", "aaaa", "c-1"]),
        (#"((a|b)+(?:ab|c){1,2}[ab]{1,2}[^a])*?"#, ["", "a", "b", "ab", "abc", "aab", "ba", "a-b", "1", "a1", " ", "a b", "x", "xx", "abab", "ccc", "a\n", "é", "aaaa", "c-1"]),
        (#"^[a-c]{2}$"#, ["ab", "ba"]),
        (#"(^(?:ab|c){1,2}$){1,2}"#, ["ab", "abc", "abab"]),
        (#"^\s+$"#, [" "]),
        (#"(^\d{2,}\d{,2}.{,2}|^x*$$)*?|^-{2,}$"#, ["", "a", "b", "ab", "abc", "aab", "ba", "a-b", "1", "a1", " ", "a b", "x", "xx", "abab", "ccc", "a\n", "é", "aaaa", "c-1"]),
        (#"[a-c]-?[ab]"#, ["ab", "abc", "aab", "ba", "a-b", "abab", "aaaa"]),
        (#"^a?(?:ab|c){,2}$"#, ["", "a", "ab", "abc", "aab", "abab", "a\n"]),
        (#"x(?:ab|c)(a|b){,2}[ab]{,2}$"#, []),
        (#"\s{2}b+-{2}"#, []),
        (#"^(a|b){2}[a-c]|c{2}$$"#, ["abc", "aab", "abab", "ccc", "aaaa"]),
        (#"(c(a|b){1,2})$"#, []),
        (#"^c*?[^a]{,2}\d*?(a|b)*?$"#, ["", "a", "b", "ab", "aab", "ba", "1", " ", "x", "xx", "abab", "ccc", "a\n", "é", "aaaa", "c-1"]),
        (#"[^a]{2}-[ab]*[a-c]"#, []),
        (#".{2}(a*){2,}\s{,2}"#, ["ab", "abc", "aab", "ba", "a-b", "a1", "a b", "xx", "abab", "ccc", "aaaa", "c-1"]),
        (#"(a*)ax{1,2}\d{1,2}$"#, []),
        (#"(a|b)c-{2}-$"#, []),
        (#"c?c"#, ["abc", "ccc", "c-1"]),
        (#"^c*?"#, ["", "a", "b", "ab", "abc", "aab", "ba", "a-b", "1", "a1", " ", "a b", "x", "xx", "abab", "ccc", "a\n", "é", "aaaa", "c-1"]),
        (#"\s\d-*?\w"#, []),
        (#"^x*\w*?\d?|(-{1,2}$){2,}"#, ["", "a", "b", "ab", "abc", "aab", "ba", "a-b", "1", "a1", " ", "a b", "x", "xx", "abab", "ccc", "a\n", "é", "aaaa", "c-1"]),
        (#"-?c{1,2}$"#, ["abc", "ccc"]),
        (#"^((?:ab|c){2,}-[ab]{1,2}\d*?|^-+$)*?$"#, [""]),
        (#"[ab]{1,2}."#, ["ab", "abc", "aab", "ba", "a-b", "a1", "a b", "abab", "aaaa"]),
        (#"^a-*?(a*)*?"#, ["a", "ab", "abc", "aab", "a-b", "a1", "a b", "abab", "a\n", "aaaa"]),
        (#"^(^([ab]{2}[a-c]{2,})){1,2}"#, ["abab", "aaaa"]),
    ]

    func testAgreesWithPythonSearch() throws {
        for (source, matching) in cases {
            let compiled = try ResourcePattern(source)
            for name in names {
                XCTAssertEqual(compiled.matches(name), matching.contains(name), "\(source) on \(name.debugDescription)")
            }
        }
    }
}
