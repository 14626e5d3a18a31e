import AssetCache
import Testing
@testable import InAppDelivery

/// The regular expressions campaigns write for comparators 10 (matches) and 17
/// (does not match): case-insensitive, unanchored unless the pattern anchors
/// itself. The property values are JSON strings, so a regex's `\d` is `\\d` here.
@Suite struct RegexFilterTests {
    @Test func alternation() throws {
        let tier = try filter("string", 10, #""^(gold|platinum)$""#)
        #expect(tier.passes(.string("Gold")))
        #expect(tier.passes(.string("PLATINUM")))
        #expect(!tier.passes(.string("silver")))
        #expect(!tier.passes(.string("platinum plus")), "anchored at both ends")
        #expect(try filter("string", 10, #""sale|promo""#).passes(.string("Spring PROMO week")))
    }

    @Test func characterClasses() throws {
        let sku = try filter("string", 10, #""^[a-z]{2}-\\d{3}$""#)
        #expect(sku.passes(.string("AB-123")), "a class ignores case too")
        #expect(!sku.passes(.string("AB-12x")))
        let word = try filter("string", 10, #""^\\w+@example\\.com$""#)
        #expect(word.passes(.string("Ada_1@EXAMPLE.com")))
        #expect(!word.passes(.string("a.b@example.com")), "\\w has no dot")
        #expect(!word.passes(.string("ada@exampleXcom")), "an escaped dot is a dot")
        let negated = try filter("string", 10, #""^[^0-9\\s]+$""#)
        #expect(negated.passes(.string("checkout")))
        #expect(!negated.passes(.string("check out")))
        #expect(try filter("string", 10, #""^[[:alpha:]]+$""#).passes(.string("Straße")))
    }

    @Test func anchors() throws {
        let prefix = try filter("string", 10, #""^app/""#)
        #expect(prefix.passes(.string("APP/home")))
        #expect(!prefix.passes(.string("web/app/home")))
        let suffix = try filter("string", 10, #""\\.pdf$""#)
        #expect(suffix.passes(.string("terms.PDF")))
        #expect(!suffix.passes(.string("terms.pdf.html")))
        let word = try filter("string", 10, #""\\bvip\\b""#)
        #expect(word.passes(.string("tier: VIP member")))
        #expect(!word.passes(.string("vipers")))
    }

    @Test func quantifiers() throws {
        let optional = try filter("string", 10, #""^colou?r$""#)
        #expect(optional.passes(.string("Color")))
        #expect(optional.passes(.string("colour")))
        #expect(!optional.passes(.string("colouur")))
        let counted = try filter("string", 10, #""^v\\d+\\.\\d{1,2}(\\.\\d+)*$""#)
        #expect(counted.passes(.string("V2.10")))
        #expect(counted.passes(.string("v10.1.3.4")))
        #expect(!counted.passes(.string("v2.100")))
        #expect(!counted.passes(.string("v.1")))
        let anything = try filter("string", 17, #""^test.*""#)
        #expect(!anything.passes(.string("Test-suite")))
        #expect(anything.passes(.string("production")))
    }

    @Test(arguments: ["[z-a]", "*x", "a{2,1}", "(unclosed", "[abc"])
    func aPatternThatDoesNotCompileIsAManifestError(pattern: String) throws {
        #expect(throws: ManifestError(path: "f.property_value", "'\(pattern)' is not a valid regular expression")) {
            try filter("string", 10, "\"\(pattern)\"")
        }
    }
}
