import Crypto
@testable import FixtureServer
import Foundation
import Testing

/// The ways real servers limit or refuse ranges, chosen by the query.
@Suite struct RangeModeTests {
    private let size = Fixture.blob.count
    private let two = [("Range", "bytes=0-9,100-199")]

    @Test func firstAnswersOnlyTheFirstRange() async throws {
        try await Fixture.with { fixture in
            let response = try await fetch(fixture.port, "/blob.bin?ranges=first", headers: [("Range", "bytes=100-199,0-9")])
            #expect(response.status == 206)
            #expect(response.headers["content-range"] == "bytes 100-199/\(size)")
            #expect(response.body == Array(Fixture.blob[100..<200]))
        }
    }

    @Test func maxRangesAnswersMoreWithTheWholeFile() async throws {
        try await Fixture.with { fixture in
            let within = try await fetch(fixture.port, "/blob.bin?max_ranges=2", headers: two)
            #expect(within.status == 206)
            #expect(within.headers["content-type"]?.hasPrefix("multipart/byteranges") == true)
            let over = try await fetch(fixture.port, "/blob.bin?max_ranges=2", headers: [("Range", "bytes=0-0,2-2,4-4")])
            #expect(over.status == 200)
            #expect(over.body == Fixture.blob)
            // 0, as nginx's max_ranges 0: no range is answered.
            #expect(try await fetch(fixture.port, "/blob.bin?max_ranges=0", headers: [("Range", "bytes=0-0")]).status == 200)
        }
    }

    @Test func refuseMultiAnswersTwoRangesWith416AndOneAsAPart() async throws {
        try await Fixture.with { fixture in
            let refused = try await fetch(fixture.port, "/blob.bin?ranges=416multi", headers: two)
            #expect(refused.status == 416)
            #expect(refused.headers["content-range"] == "bytes */\(size)")
            let one = try await fetch(fixture.port, "/blob.bin?ranges=416multi", headers: [("Range", "bytes=0-9")])
            #expect(one.status == 206)
            #expect(one.body == Array(Fixture.blob[0..<10]))
        }
    }

    @Test func ignoreAnswersEveryRangeWithTheWholeFile() async throws {
        try await Fixture.with { fixture in
            for range in ["bytes=0-9", "bytes=0-9,100-199", "bytes=99999-"] {
                let response = try await fetch(fixture.port, "/blob.bin?ranges=ignore", headers: [("Range", range)])
                #expect(response.status == 200, "\(range)")
                #expect(response.body == Fixture.blob)
                #expect(response.headers["accept-ranges"] == "bytes")
            }
        }
    }

    @Test func acceptRangesZeroOnlyDropsTheHeader() async throws {
        try await Fixture.with { fixture in
            let response = try await fetch(fixture.port, "/blob.bin?accept_ranges=0", headers: [("Range", "bytes=0-9")])
            #expect(response.headers["accept-ranges"] == nil)
            #expect(response.status == 206)
            #expect(try await fetch(fixture.port, "/blob.bin").headers["accept-ranges"] == "bytes")
        }
    }

    @Test func badModeValuesAre400() async throws {
        try await Fixture.with { fixture in
            for query in ["ranges=some", "max_ranges=-1", "bad_range=wild", "gzip=yes", "then=a.txt", "digest=md5"] {
                let response = try await fetch(fixture.port, "/blob.bin?\(query)")
                #expect(response.status == 400, "\(query)")
                #expect(response.text.contains(String(query.prefix { $0 != "=" })), "\(query)")
            }
        }
    }

    @Test func gzipServesTheEncodingAndRangesCutIt() async throws {
        try await Fixture.with { fixture in
            let full = try await fetch(fixture.port, "/blob.bin?gzip=1")
            #expect(full.status == 200)
            #expect(full.headers["content-encoding"] == "gzip")
            #expect(full.headers["vary"] == "Accept-Encoding")
            #expect(try gunzip(full.body) == Fixture.blob)
            let plainTag = try await fetch(fixture.port, "/blob.bin").headers["etag"]
            #expect(full.headers["etag"] != plainTag)

            let ranged = try await fetch(
                fixture.port, "/blob.bin?gzip=1",
                headers: [("Range", "bytes=0-9,-20"), ("If-Range", full.headers["etag"]!), ("Accept-Encoding", "gzip")])
            let parts = try ranged.byteParts()
            #expect(parts.map(\.total) == [full.body.count, full.body.count])
            #expect(parts.allSatisfy { $0.bytes == Array(full.body[$0.claimed]) })
            #expect(ranged.headers["content-encoding"] == "gzip")
        }
    }

    /// `digest=`: the whole file's digest with a 200 and with a 206 alike
    /// (issue 37), none with a 304.
    @Test func digestSendsTheWholeFilesDigestWithEveryAnswer() async throws {
        let sha256 = Data(SHA256.hash(data: Fixture.blob)).base64EncodedString()
        let sha512 = Data(SHA512.hash(data: Fixture.blob)).base64EncodedString()
        let md5 = Data(Insecure.MD5.hash(data: Fixture.blob)).base64EncodedString()
        try await Fixture.with { fixture in
            for range in [[], [("Range", "bytes=0-9")], two] {
                let plain = try await fetch(fixture.port, "/blob.bin?digest=sha-256", headers: range)
                #expect(plain.headers["repr-digest"] == "sha-256=:\(sha256):", "\(range)")
                let long = try await fetch(fixture.port, "/blob.bin?digest=sha-512", headers: range)
                #expect(long.headers["repr-digest"] == "sha-512=:\(sha512):", "\(range)")
                let goog = try await fetch(fixture.port, "/blob.bin?digest=x-goog-hash", headers: range)
                #expect(goog.headers["x-goog-hash"]?.hasSuffix(",md5=\(md5)") == true, "\(range)")
                let wrong = try await fetch(fixture.port, "/blob.bin?digest=wrong", headers: range)
                #expect(wrong.headers["repr-digest"]?.hasPrefix("sha-256=:") == true)
                #expect(wrong.headers["repr-digest"] != plain.headers["repr-digest"])
            }
            let tag = try #require(try await fetch(fixture.port, "/blob.bin").headers["etag"])
            let unchanged = try await fetch(fixture.port, "/blob.bin?digest=sha-256", headers: [("If-None-Match", tag)])
            #expect(unchanged.status == 304)
            #expect(unchanged.headers["repr-digest"] == nil)
            // CRC-32C's check value (RFC 3720 §B.4: "123456789" is E3069283), in x-goog-hash's big-endian base64.
            var crc = CRC32C()
            Array("123456789".utf8).withUnsafeBytes { crc.update($0) }
            #expect(crc.bigEndianBytes == [0xE3, 0x06, 0x92, 0x83])
        }
    }

    @Test func gzipIsNotSentToAClientThatRefusesIt() async throws {
        try await Fixture.with { fixture in
            for accept in ["identity", "gzip;q=0, br"] {
                let response = try await fetch(fixture.port, "/blob.bin?gzip=1", headers: [("Accept-Encoding", accept)])
                #expect(response.headers["content-encoding"] == nil, "\(accept)")
                #expect(response.body == Fixture.blob)
            }
        }
    }

    @Test func thenServesAnotherFileAndItsValidatorsAfterNRequests() async throws {
        try await Fixture.with { fixture in
            let route = "/a.txt?then=blob.bin&after=1"
            let before = try await fetch(fixture.port, route)
            #expect(before.body == Fixture.text)
            let oldTag = try #require(before.headers["etag"])
            let oldDate = try #require(before.headers["last-modified"])
            for condition in [oldTag, oldDate] {
                let changed = try await fetch(fixture.port, route, headers: [("Range", "bytes=0-9"), ("If-Range", condition)])
                #expect(changed.status == 200, "\(condition)")
                #expect(changed.body == Fixture.blob)
                #expect(changed.headers["etag"] != oldTag)
                #expect(changed.headers["last-modified"] != oldDate)
            }
            let newTag = try #require(try await fetch(fixture.port, route).headers["etag"])
            let part = try await fetch(fixture.port, route, headers: [("Range", "bytes=0-9"), ("If-Range", newTag)])
            #expect(part.status == 206)
            #expect(part.body == Array(Fixture.blob[0..<10]))
            // Another URL has a count of its own.
            #expect(try await fetch(fixture.port, route + "&v=2").body == Fixture.text)
        }
    }
}

/// Decodes with the system's gzip(1): the test target has no zlib of its own.
private func gunzip(_ bytes: [UInt8]) throws -> [UInt8] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/gzip")
    process.arguments = ["-dc"]
    let input = Pipe()
    let output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    try process.run()
    try input.fileHandleForWriting.write(contentsOf: Data(bytes))
    try input.fileHandleForWriting.close()
    let decoded = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Array(decoded)
}
