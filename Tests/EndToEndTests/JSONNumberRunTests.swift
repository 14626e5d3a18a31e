import Foundation
import Testing

/// Issue 26 through the binary: JSONTestSuite's i_number_* cases, the numbers
/// RFC 8259 leaves to each parser (exponents of thousands or of a hundred digits,
/// underflow, integers past 64 bits). One of them, inside a key the manifest
/// ignores, trapped `prefetch`. Each is given as the whole manifest file and
/// inside an ignored key (the FuzzJSONDifferential seeds, Fuzz/seeds/json/ and
/// its manifest_ copies): `prefetch plan` exits 0 or 2, never dies of a signal,
/// and a refusal names the JSON path of what it refused.
@Suite struct JSONNumberRunTests {
    static let seeds = Package.root.appendingPathComponent("Fuzz/seeds/json")

    /// Whether a double holds the case's number. Those that do are JSON a manifest
    /// may carry (underflow reads as 0, a long integer as its nearest double);
    /// those that do not are refused naming the number's path (docs/manifest.md).
    static let fitsADouble: [String: Bool] = [
        "i_number_double_huge_neg_exp": true,
        "i_number_huge_exp": false,
        "i_number_neg_int_huge_exp": false,
        "i_number_pos_double_huge_exp": false,
        "i_number_real_neg_overflow": false,
        "i_number_real_pos_overflow": false,
        "i_number_real_underflow": true,
        "i_number_too_big_neg_int": true,
        "i_number_too_big_pos_int": true,
        "i_number_very_big_negative_int": true,
    ]

    @Test func everyNumberCaseOfTheSuiteIsHere() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.seeds.path)
        let cases = names.filter { $0.hasPrefix("i_number_") }.map { String($0.dropLast(".json".count)) }
        #expect(Set(cases) == Set(Self.fitsADouble.keys))
        for name in cases {
            #expect(names.contains("manifest_\(name).json"), "\(name) has no manifest_ copy")
        }
    }

    @Test(arguments: fitsADouble.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
    func planExitsZeroOrTwoNamingThePath(name: String, fits: Bool) async throws {
        let scratch = try Scratch()
        let raw = Self.seeds.appendingPathComponent("\(name).json").path
        let embedded = Self.seeds.appendingPathComponent("manifest_\(name).json").path
        let number = try String(contentsOfFile: raw, encoding: .utf8).dropFirst().dropLast()
        // The embedded copy is the case in an ignored key, byte for byte.
        #expect(try String(contentsOfFile: embedded, encoding: .utf8) == #"{"triggers": [], "x": [\#(number)]}"#)

        // Whole file: an array, not a manifest. A number no double holds is refused
        // first, where it is read; else the document's shape at the root.
        // An empty cache directory: plan refuses a --cache-dir that does not exist.
        try FileManager.default.createDirectory(atPath: scratch.path("cache"), withIntermediateDirectories: true)
        let whole = try await CommandRunner.prefetch(["plan", raw, "--cache-dir", scratch.path("cache")])
        #expect(!whole.signaled, "\(name): killed by signal \(whole.status)")
        #expect(whole.status == 2, "\(name): \(whole.stderr)")
        if fits {
            #expect(whole.stderr.contains("invalid manifest: expected an object"), "\(name): \(whole.stderr)")
        } else {
            #expect(whole.stderr.contains("invalid manifest: [0]: the number \(number.prefix(40)) is out of range"), "\(name): \(whole.stderr)")
        }

        // In the ignored key `x`: a manifest with no triggers, or the number refused by its path.
        let inKey = try await CommandRunner.prefetch(["plan", embedded, "--cache-dir", scratch.path("cache")])
        #expect(!inKey.signaled, "\(name): killed by signal \(inKey.status)")
        if fits {
            #expect(inKey.status == 0, "\(name): \(inKey.stderr)")
        } else {
            #expect(inKey.status == 2, "\(name): \(inKey.stderr)")
            #expect(inKey.stderr.contains("invalid manifest: x[0]: the number \(number.prefix(40)) is out of range"), "\(name): \(inKey.stderr)")
        }
    }
}
