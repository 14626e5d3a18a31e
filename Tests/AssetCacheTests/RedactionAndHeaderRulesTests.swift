import Testing
@testable import AssetCache

/// URL passwords masked wherever a URL is named; header values a server or the
/// cache supplies checked before they are sent.
@Suite struct RedactionAndHeaderRulesTests {
    @Test(arguments: [
        ("https://user:pass@cdn.test/a.png", "https://user:***@cdn.test/a.png"),
        ("http://u:p%40ss@cdn.test:8080?q=1", "http://u:***@cdn.test:8080?q=1"),
        // The last "@" ends the userinfo.
        ("http://u:p@ss@cdn.test/", "http://u:***@cdn.test/"),
        ("could not fetch http://a:b@x.test/1 (then http://c:d@y.test/2)", "could not fetch http://a:***@x.test/1 (then http://c:***@y.test/2)"),
        ("'https://a:b@x.test' redirects", "'https://a:***@x.test' redirects"),
        // No password: nothing to hide.
        ("https://user@cdn.test/a.png", "https://user@cdn.test/a.png"),
        ("https://cdn.test/a@b.png", "https://cdn.test/a@b.png"),
        ("mail me at a:b@c", "mail me at a:b@c"),
    ])
    func passwordsAreMasked(text: String, shown: String) {
        #expect(Redaction.redactingPasswords(in: text) == shown)
    }

    @Test func assetURLsShowTheirRedactedForm() throws {
        let url = try AssetURL(parsing: "https://user:pass@CDN.test/a.png")
        #expect(url.string == "https://user:pass@cdn.test/a.png")
        #expect("\(url)" == "https://user:***@cdn.test/a.png")
        #expect(AssetFailure(.network, "could not fetch \(url.string)").message == "could not fetch https://user:***@cdn.test/a.png")
    }

    @Test func validatorsWithControlCharactersAreDropped() {
        #expect(HeaderRules.validator("\"v1\"") == "\"v1\"")
        #expect(HeaderRules.validator("Mon, 01 Jan 2024 00:00:00 GMT") == "Mon, 01 Jan 2024 00:00:00 GMT")
        for bad in ["\"v1\"\rX-Injected: yes", "\"v1\"\n", "\"v\0\"", "\"v\u{1B}\"", "\"v\t\"", "\"v\u{7F}\"", ""] {
            #expect(HeaderRules.validator(bad) == nil, "\(bad.debugDescription)")
        }
        let headers = ResponseHeaders(fields: ["ETag": "\"v1\"\rX-Injected: yes", "Last-Modified": "Mon, 01 Jan 2024 00:00:00 GMT\u{1B}"])
        #expect(headers.etag == nil)
        #expect(headers.lastModified == nil)
    }

    @Test func headersWithCRLFOrNULAreRefused() {
        #expect(HeaderRules.refusal(of: ["If-None-Match: \"v1\"", "Range: bytes=10-"]) == nil)
        #expect(HeaderRules.refusal(of: ["If-None-Match: \"v1\"\rX-Injected: yes"])?.contains("'If-None-Match'") == true)
        #expect(HeaderRules.problem(with: "X: a\nb") != nil)
        #expect(HeaderRules.problem(with: "X: a\0b") != nil)
        #expect(HeaderRules.problem(with: "no colon") != nil)
        #expect(HeaderRules.problem(with: ": no name") != nil)
    }
}
