#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A manifest as its publisher wrote it, before `prefetch publish` stamps it:
/// its top-level members kept as their bytes, in their order, so that the
/// published manifest differs from the draft only by what publishing adds
/// (the signed keys first, the pins last), never by a re-encoding of the rest.
package struct DraftManifest {
    package struct Member {
        /// As written between the quotes, escapes and all.
        let rawKey: [UInt8]
        package let key: String
        /// The value's JSON text, as written.
        let value: [UInt8]
    }

    package let members: [Member]

    /// The keys publishing writes; a draft's own are replaced.
    package static let stampedKeys: Set<String> = ["version", "expires", "signed_at", "audience", "integrity"]

    /// The draft's members; `data` has already been read as a manifest
    /// (``Manifest/decode(_:)``), which names what is wrong with one that is not.
    package init(_ data: Data) throws(JSONReadError) {
        var members: [Member] = []
        let read: Result<Void, JSONReadError> = data.withUnsafeBytes { raw in
            Result { () throws(JSONReadError) in
                try JSONReader.read(raw, name: "draft manifest") { reader throws(JSONReadError) in
                    guard try reader.next() == .object else { throw JSONReadError(.shape, "a manifest is a JSON object") }
                    try reader.object { reader, key throws(JSONReadError) in
                        _ = reader.tokens.peek()  // past the blanks before the value
                        let start = reader.tokens.position
                        try reader.skip()
                        members.append(Member(rawKey: Array(key.bytes), key: key.string, value: Array(raw[start..<reader.tokens.position])))
                    }
                }
            }
        }
        try read.get()
        self.members = members
    }

    /// The manifest to sign: `stamp`'s keys, the draft's other members as
    /// written, and `integrity` with `pins` (URL → `sha256-…`) in URL order.
    package func stamped(_ stamp: ManifestFreshness, pins: [String: String]) -> Data {
        var text: [UInt8] = Array("{\n".utf8)
        var first = true
        func member(_ rawKey: [UInt8], _ value: [UInt8]) {
            if !first { text += Array(",\n".utf8) }
            first = false
            text += Array("  \"".utf8) + rawKey + Array("\": ".utf8) + value
        }
        if let version = stamp.version { member(Array("version".utf8), Array(String(version).utf8)) }
        if let expires = stamp.expires { member(Array("expires".utf8), Self.quoted(RFC3339Date.format(expires))) }
        if let signedAt = stamp.signedAt { member(Array("signed_at".utf8), Self.quoted(RFC3339Date.format(signedAt))) }
        if let audience = stamp.audience { member(Array("audience".utf8), Self.quoted(audience)) }
        for kept in members where !Self.stampedKeys.contains(kept.key) { member(kept.rawKey, kept.value) }
        var integrity: [UInt8] = Array("{".utf8)
        for (index, url) in pins.keys.sorted().enumerated() {
            integrity += Array((index == 0 ? "\n" : ",\n").utf8) + Array("    ".utf8) + Self.quoted(url) + Array(": ".utf8) + Self.quoted(pins[url]!)
        }
        integrity += Array((pins.isEmpty ? "}" : "\n  }").utf8)
        member(Array("integrity".utf8), integrity)
        text += Array("\n}\n".utf8)
        return Data(text)
    }

    static func quoted(_ string: String) -> [UInt8] {
        var bytes: [UInt8] = []
        PrettyJSON.appendQuoted(string, to: &bytes)
        return bytes
    }
}
