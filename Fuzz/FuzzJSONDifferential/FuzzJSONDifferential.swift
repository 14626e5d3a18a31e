import AssetCache
import Foundation

/// libFuzzer entry (Fuzz/run.sh): our JSON reader (Sources/AssetCache/Manifest/JSON)
/// and a reference parser read the same bytes, and must agree on whether they are
/// JSON and, where both accept them, on every value — numbers above all, which
/// is where the manifest reader trapped (an exponent of many digits inside an
/// ignored key, JSONTestSuite's i_number_huge_exp.json). Any disagreement is a
/// fatalError, so libFuzzer keeps the input. A difference is allowed only where
/// one of the rules below names it; each says why it is not a bug of ours.
///
/// The reference is Foundation's `JSONSerialization`: it ships with the toolchain
/// (no new dependency, nothing to install for `make fuzz`), runs in-process (a
/// parser in another process would cost a fork per input), is written apart from
/// ours (swift-corelibs-foundation's JSONParser), and refuses every number a
/// double cannot hold, as ours does. Its laxities are known and few: the rules
/// in `Differential.Rule` name them, and ours' own documented limits.
///
/// Our side is read three ways, which must agree among themselves first:
/// `JSONReader.value()` (the whole tree, as `extras` is kept), `JSONReader.skip()`
/// (how an ignored key is read: the crash was there) and `Manifest.decode` (the
/// manifest reader itself, whose JSON-level errors must be the generic reader's
/// to the letter, path, line and column included).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSONDifferential(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = start.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    let ours = Ours.value(bytes)
    if let problem = Ours.inconsistency(bytes, ours) { fail(problem, bytes) }
    // Rule referenceDropsBOMInStrings: the reference reads the text with any U+FEFF in a string escaped.
    if let problem = Differential.disagreement(bytes, ours, Reference.read(TextScan.escapingBOMsInStrings(bytes) ?? bytes)) {
        fail(problem, bytes)
    }
    return 0
}

private func fail(_ problem: String, _ bytes: [UInt8]) -> Never {
    let shown = String(decoding: bytes.prefix(300), as: UTF8.self).debugDescription
    fatalError("\(problem)\n  input (\(bytes.count) bytes): \(shown)")
}

// MARK: ours

private enum Ours {
    /// The name the manifest reader gives, so that "the manifest is empty" reads alike.
    static let name = "manifest"

    static func value(_ bytes: [UInt8]) -> Result<JSONValue, JSONReadError> {
        bytes.withUnsafeBytes { raw in
            Result { () throws(JSONReadError) in
                try JSONReader.read(raw, name: name) { json throws(JSONReadError) in try json.value() }
            }
        }
    }

    static func skipped(_ bytes: [UInt8]) -> Result<Void, JSONReadError> {
        bytes.withUnsafeBytes { raw in
            Result { () throws(JSONReadError) in
                try JSONReader.read(raw, name: name) { json throws(JSONReadError) in try json.skip() }
            }
        }
    }

    /// Where our three ways of reading one text disagree.
    static func inconsistency(_ bytes: [UInt8], _ value: Result<JSONValue, JSONReadError>) -> String? {
        let refusal = value.failure
        let skipRefusal = skipped(bytes).failure
        guard skipRefusal == refusal else {
            return "skip() and value() disagree: skip \(String(describing: skipRefusal)), value \(String(describing: refusal))"
        }
        let manifest = Result { () throws(ManifestError) in try Manifest.decode(Data(bytes)) }
        if let refusal {
            // Not JSON, or against a rule: the manifest reader says so exactly as the generic one does.
            let expected = ManifestError(path: refusal.path ?? "", refusal.message(line: true))
            guard manifest.failure == expected else {
                return "the manifest reader and value() disagree: manifest \(String(describing: manifest.failure)), value \(expected)"
            }
        } else if let error = manifest.failure, isJSONLevel(error.message) {
            // JSON (value() read it): the manifest may be of the wrong shape, never not JSON.
            return "the manifest reader refuses as JSON a text value() reads: \(error)"
        }
        return nil
    }

    /// Whether a manifest error is one of the JSON reader's own (JSONReadError's
    /// syntax and rule messages), not a shape or model error.
    static func isJSONLevel(_ message: String) -> Bool {
        message.hasPrefix("not valid JSON: ") || message.hasPrefix("nested deeper than ")
            || message.hasPrefix("the number ") || message.hasSuffix(" appears twice in one object")
    }
}

extension Result {
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

// MARK: the reference

private enum Reference {
    /// The reference's tree, or nil if it refuses the text. Top-level scalars are
    /// JSON texts (RFC 8259 §2), as ours reads them.
    static func read(_ bytes: [UInt8]) -> Any? {
        try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
    }

    /// JSONSerialization.detectEncoding, restated: a byte order mark is skipped
    /// (only in a text of 4 bytes or more), and without one, zeros among the first
    /// bytes make it UTF-16 or UTF-32. nil when it reads the text as plain UTF-8.
    static func foreignEncoding(_ bytes: [UInt8]) -> (utf8BOM: Bool, name: String)? {
        if bytes.count >= 4 {
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { return (true, "UTF-8 with a byte order mark") }
            if bytes.starts(with: [0x00, 0x00, 0xFE, 0xFF]) || bytes.starts(with: [0xFF, 0xFE, 0x00, 0x00])
                || bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) {
                return (false, "UTF-16 or UTF-32 with a byte order mark")
            }
            switch (bytes[0], bytes[1], bytes[2], bytes[3]) {
            case (0, 0, 0, _), (_, 0, 0, 0), (0, _, 0, _), (_, 0, _, 0): return (false, "UTF-16 or UTF-32")
            default: return nil
            }
        }
        if bytes.count >= 2, bytes[0] == 0 || bytes[1] == 0 { return (false, "UTF-16") }
        return nil
    }
}

// MARK: the comparison

private enum Differential {
    /// Every deliberate difference between ours and the reference, by name; the
    /// code that allows one names it. The three that rewrite the text and compare
    /// again are allowed once per text, so that they cannot loop.
    enum Rule {
        /// RFC 8259 §8.1: JSON between systems is UTF-8, without a byte order mark,
        /// and a manifest is read as that only (docs/manifest.md, "Strictness").
        /// The reference also reads UTF-16 and UTF-32 and skips a BOM. Ours must
        /// refuse such a text as not JSON; after a UTF-8 BOM the rest is compared.
        case referenceDetectsEncoding
        /// The reference accepts a comma before `]` or `}` ("the foundation json
        /// implementation does support trailing commas", JSONSerialization+Parser);
        /// RFC 8259's grammar and docs/manifest.md do not. Ours must refuse the text
        /// as not JSON and read it as the reference did once those commas are gone.
        case referenceAllowsTrailingCommas
        /// The reference makes each run of a string's raw bytes (between escapes)
        /// with `String(bytes:encoding: .utf8)`, which drops a leading U+FEFF: it
        /// reads `"\u{FEFF}a"`, written raw, as `"a"`. The reference is handed the
        /// text with each raw U+FEFF in a string written as `\uFEFF` instead, which
        /// means the same (RFC 8259 §7) and which it reads right
        /// (`TextScan.escapingBOMsInStrings`, done before the comparison).
        case referenceDropsBOMInStrings
        /// Ours refuses a key given twice in one object (docs/manifest.md: two
        /// parsers could keep different values); the reference keeps the last.
        /// The first duplicate in the text, found by `TextScan.brokenRules` with
        /// keys decoded by the reference, must be where ours stopped, with the
        /// same message and path. The reference makes its numbers only once the
        /// whole text is parsed, and never the ones in a value a later duplicate
        /// replaced: a number out of range there is refused by ours alone, and is
        /// allowed if it comes first and the text does give a key twice.
        case duplicateKeyRefused
        /// Ours refuses nesting deeper than JSONReader.maxDepth (128,
        /// docs/manifest.md); the reference allows 512. Checked as
        /// `duplicateKeyRefused` is. (A number out of a double's range is no such
        /// rule: the reference refuses those too, so ours must agree.)
        case depthLimit
        /// The reference reads `-0` (no fraction, no exponent) as the integer 0,
        /// which has no sign; ours keeps a double's -0.0.
        case referenceIntegerZeroHasNoSign
        /// The reference keeps a number of more than 17 characters (exponent
        /// −128…127) as a Decimal of 38 significant digits, already rounded, so
        /// the double nearest it may be one step from the double nearest the text
        /// (a double rounding, only where the text lies almost halfway between
        /// two doubles). Ours must be that double or one of its two neighbours.
        /// (A Decimal has no -0 either, so zeros compare by value.)
        case referenceDecimalRounding
    }

    static func disagreement(
        _ bytes: [UInt8], _ ours: Result<JSONValue, JSONReadError>, _ reference: Any?, used: [Rule] = []
    ) -> String? {
        switch (ours, reference) {
        case (.success(let value), let theirs?):
            return difference(value, theirs, path: "")
        case (.failure, nil):
            // Both refuse; why is not compared (the reference's messages are its own).
            return nil
        case (.success(let value), nil):
            // No rule has the reference refuse more than ours: its limits (depth 512,
            // a double's range) are as wide as ours or wider.
            return "the reference refuses a text ours reads as \(String(describing: value).prefix(200))"
        case (.failure(let error), let theirs?):
            return excuse(bytes, error, theirs, used: used)
        }
    }

    /// Ours refuses what the reference reads: nil only if a rule says why.
    private static func excuse(_ bytes: [UInt8], _ error: JSONReadError, _ theirs: Any, used: [Rule]) -> String? {
        let refused = "ours refuses (\(error.kind): \(error.message(line: true)) at '\(error.path ?? "")') a text the reference reads"
        if !used.contains(.referenceDetectsEncoding), let encoding = Reference.foreignEncoding(bytes) {
            guard error.kind == .syntax else { return "\(refused); it is \(encoding.name), so it should be a syntax error" }
            guard encoding.utf8BOM else { return nil }
            let rest = Array(bytes.dropFirst(3))
            return disagreement(rest, Ours.value(rest), theirs, used: used + [.referenceDetectsEncoding])
        }
        switch error.kind {
        case .syntax:
            if !used.contains(.referenceAllowsTrailingCommas), let rewritten = TextScan.withoutTrailingCommas(bytes) {
                return disagreement(rewritten, Ours.value(rewritten), theirs, used: used + [.referenceAllowsTrailingCommas])
            }
            return refused
        case .rule:
            // Rules duplicateKeyRefused and depthLimit: the first place the text breaks
            // one of our rules must be where ours stopped.
            let broken = TextScan.brokenRules(bytes)
            guard let first = broken.first else { return "\(refused); it breaks no rule of ours" }
            guard first.what == error.what, first.path == error.path else {
                return "\(refused); the text first breaks a rule at '\(first.path)': \(first.what)"
            }
            // A number out of range is refused by the reference too, unless a later
            // duplicate key replaced the value it was in (duplicateKeyRefused).
            if first.rule == nil, !broken.contains(where: { $0.rule == .duplicateKeyRefused }) {
                return "\(refused); no duplicate key hides that number from the reference"
            }
            return nil
        case .shape:
            return "\(refused); value() has no shape to expect"
        }
    }

    // MARK: values

    private static let booleanClass = ObjectIdentifier(type(of: NSNumber(value: true)))

    /// The first place where the two trees differ.
    static func difference(_ ours: JSONValue, _ theirs: Any, path: String) -> String? {
        let differs = "at '\(path)', ours is \(String(describing: ours).prefix(100)), the reference's is \(String(describing: theirs).prefix(100))"
        switch ours {
        case .null:
            return theirs is NSNull ? nil : differs
        case .bool(let value):
            guard let number = theirs as? NSNumber, ObjectIdentifier(type(of: number)) == booleanClass,
                  number.boolValue == value else { return differs }
            return nil
        case .number(let value):
            guard let number = theirs as? NSNumber, ObjectIdentifier(type(of: number)) != booleanClass else { return differs }
            return numberDifference(value, number).map { "\(differs): \($0)" }
        case .string(let value):
            guard let string = theirs as? String, string.unicodeScalars.elementsEqual(value.unicodeScalars) else { return differs }
            return nil
        case .array(let elements):
            guard let array = theirs as? [Any], array.count == elements.count else { return differs }
            for (index, element) in elements.enumerated() {
                if let found = difference(element, array[index], path: JSONPath.appending(index: index, to: path)) { return found }
            }
            return nil
        case .object(let members):
            // Both sides key a Swift dictionary by String, whose equality is canonical
            // equivalence: "é" and "e\u{301}" are one key to both, and both keep the
            // first spelling and the last value, so the spellings are compared too.
            guard let object = theirs as? [String: Any], object.count == members.count else { return differs }
            for (key, value) in members {
                guard let index = object.index(forKey: key) else { return "\(differs): the reference has no key \(key.debugDescription)" }
                let (theirKey, theirValue) = object[index]
                guard theirKey.unicodeScalars.elementsEqual(key.unicodeScalars) else {
                    return "\(differs): the key is spelled \(key.debugDescription) by ours, \(theirKey.debugDescription) by the reference"
                }
                if let found = difference(value, theirValue, path: JSONPath.appending(key: key, to: path)) { return found }
            }
            return nil
        }
    }

    /// How the reference's number differs from ours (the correctly rounded double
    /// of the text, as strtod gives), or nil. It holds an integer of up to 64 bits
    /// as that integer, more digits (more than 17 characters, exponent −128…127)
    /// as a Decimal, and anything else as a double parsed by the same
    /// `Double(String)` the standard library gives; each is compared as below.
    static func numberDifference(_ ours: Double, _ number: NSNumber) -> String? {
        if let decimal = number as? NSDecimalNumber {
            let text = decimal.decimalValue.description
            guard let nearest = Double(text) else { return "the reference's Decimal \(text) is no double" }
            // Rule referenceDecimalRounding.
            guard ours == nearest || ours == nearest.nextUp || ours == nearest.nextDown else {
                return "\(ours) is more than one step from \(nearest), the double nearest the reference's Decimal \(text)"
            }
            return nil
        }
        let type = String(cString: number.objCType)
        if type == "d" || type == "f" {
            // The same conversion on both sides: bit for bit, the sign of zero included.
            guard ours.bitPattern == number.doubleValue.bitPattern else { return "\(ours) is not the reference's double \(number.doubleValue)" }
            return nil
        }
        let integer = type == "Q" ? Double(number.uint64Value) : Double(number.int64Value)
        // Rule referenceIntegerZeroHasNoSign.
        if integer == 0, ours == 0 { return nil }
        guard ours.bitPattern == integer.bitPattern else { return "\(ours) is not \(integer), the double nearest the reference's integer \(number)" }
        return nil
    }
}

// MARK: a scan of the text

/// Scans of a text the reference has read (so its strings and brackets are well
/// formed): what the rules that rewrite it or place a refusal need to know of
/// it, found without our reader.
private enum TextScan {
    /// The text with every comma that comes before `]` or `}` (white space
    /// between) removed, or nil if it has none.
    static func withoutTrailingCommas(_ bytes: [UInt8]) -> [UInt8]? {
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var removed = false
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let end = endOfString(bytes, from: index)
                result += bytes[index..<end]
                index = end
                continue
            }
            if byte == UInt8(ascii: ",") {
                var next = index + 1
                while next < bytes.count, isWhitespace(bytes[next]) { next += 1 }
                if next < bytes.count, bytes[next] == UInt8(ascii: "]") || bytes[next] == UInt8(ascii: "}") {
                    removed = true
                    index += 1
                    continue
                }
            }
            result.append(byte)
            index += 1
        }
        return removed ? result : nil
    }

    /// Where the text breaks our rules, in its order: a key given twice in one
    /// object (keys compared as their unescaped bytes, as ours compares them), a
    /// container deeper than JSONReader.maxDepth, and a number no double holds
    /// (by the standard library's `Double(String)`; `rule` nil); each with the
    /// message and path ours gives there.
    static func brokenRules(_ bytes: [UInt8]) -> [(rule: Differential.Rule?, what: String, path: String)] {
        var broken: [(rule: Differential.Rule?, what: String, path: String)] = []
        struct Frame {
            var index: Int  // -1 in an object
            var key: String?
            var keys: Set<[UInt8]> = []
        }
        var frames: [Frame] = []
        var expectingKey = false
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                let end = endOfString(bytes, from: index)
                if expectingKey, !frames.isEmpty {
                    // The reference decodes the key: an independent reading of its escapes.
                    let literal = Array(bytes[index..<end])
                    let key = Reference.read(escapingBOMsInStrings(literal) ?? literal) as? String ?? ""
                    frames[frames.count - 1].key = key
                    if !frames[frames.count - 1].keys.insert(Array(key.utf8)).inserted {
                        broken.append((.duplicateKeyRefused, "the key '\(key)' appears twice in one object", path(frames.map { ($0.index, $0.key) })))
                    }
                    expectingKey = false
                }
                index = end
                continue
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                if frames.count == JSONReader.maxDepth {
                    broken.append((.depthLimit, "nested deeper than \(JSONReader.maxDepth) levels", path(frames.map { ($0.index, $0.key) })))
                }
                frames.append(Frame(index: byte == UInt8(ascii: "[") ? 0 : -1))
                expectingKey = byte == UInt8(ascii: "{")
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                // (The reference read the text, so it is balanced; the guards keep a
                // wrong assumption from trapping here instead of naming a disagreement.)
                if !frames.isEmpty { frames.removeLast() }
                expectingKey = false
            case UInt8(ascii: ","):
                guard let last = frames.indices.last else { break }
                if frames[last].index >= 0 { frames[last].index += 1 } else { expectingKey = true }
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                var end = index
                while end < bytes.count, isNumberByte(bytes[end]) { end += 1 }
                let text = String(decoding: bytes[index..<end], as: UTF8.self)
                if !(Double(text)?.isFinite ?? false) {
                    broken.append((nil, "the number \(text.prefix(40)) is out of range", path(frames.map { ($0.index, $0.key) })))
                }
                index = end
                continue
            default:
                break
            }
            index += 1
        }
        return broken
    }

    static func isNumberByte(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10 || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+")
            || byte == UInt8(ascii: ".") || byte | 0x20 == UInt8(ascii: "e")
    }

    /// JSONReader.path(depth:), restated: `a.b[0]["not an identifier"]`, and past
    /// 16 segments the first 8, `…` and the last 4.
    static func path(_ frames: [(index: Int, key: String?)]) -> String {
        var segments: [String] = []
        for frame in frames {
            if frame.index >= 0 {
                segments.append("[\(frame.index)]")
            } else if let key = frame.key {
                segments.append(JSONPath.appending(key: key, to: ""))
            }
        }
        if segments.count > 16 { segments.replaceSubrange(8..<(segments.count - 4), with: ["…"]) }
        var result = ""
        for segment in segments {
            result += result.isEmpty || segment.hasPrefix("[") || segment == "…" ? segment : ".\(segment)"
        }
        return result
    }

    /// The text with each U+FEFF inside a string (EF BB BF) written as `\uFEFF`
    /// (rule referenceDropsBOMInStrings), or nil if it has none. Where the text is
    /// not JSON, the two spellings are equally wrong outside a string.
    static func escapingBOMsInStrings(_ bytes: [UInt8]) -> [UInt8]? {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        guard bytes.count >= 5, bytes.dropFirst().firstRange(of: bom) != nil else { return nil }
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count + 16)
        var changed = false
        var index = 0
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "\"") else {
                result.append(bytes[index])
                index += 1
                continue
            }
            let end = endOfString(bytes, from: index)
            var inner = index
            while inner < end {
                if bytes[inner] == UInt8(ascii: "\\") {
                    result += bytes[inner..<min(inner + 2, end)]
                    inner += 2
                } else if bytes[inner...].starts(with: bom), inner + 3 <= end {
                    result += Array(#"\uFEFF"#.utf8)
                    changed = true
                    inner += 3
                } else {
                    result.append(bytes[inner])
                    inner += 1
                }
            }
            index = end
        }
        return changed ? result : nil
    }

    /// Just past the closing quote of the string whose opening quote is at `start`.
    static func endOfString(_ bytes: [UInt8], from start: Int) -> Int {
        var index = start + 1
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\\"): index += 2
            case UInt8(ascii: "\""): return index + 1
            default: index += 1
            }
        }
        return bytes.count
    }

    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
