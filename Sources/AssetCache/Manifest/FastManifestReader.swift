#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The fast path of ``Manifest/decode(_:)``: reads the bytes straight into
/// ``RawManifest`` without Codable, whose per-key generic calls made decoding most
/// of `prefetch plan`'s time on large manifests (bench/, C).
///
/// It accepts only what is plainly valid and means the same as it does to the
/// Codable path: on anything else — a wrong type, a duplicate key, an escape it
/// would have to judge, a number that does not fit, invalid UTF-8, anything it is
/// unsure of — it returns nil, and the Codable path decides, and names the error.
enum FastManifestReader {
    static func read(_ data: Data) -> RawManifest? {
        data.withUnsafeBytes { raw in
            var reader = JSONBytes(raw.bindMemory(to: UInt8.self))
            guard let manifest = reader.manifest(), reader.atEnd() else { return nil }
            return manifest
        }
    }
}

/// A cursor over JSON text. Every method returns nil (or false) to give up.
private struct JSONBytes {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    var depth = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    // MARK: the manifest's shapes

    mutating func manifest() -> RawManifest? {
        var triggers: [RawTrigger]?
        var integrity: [String: String]??
        let ok = object { reader, key in
            switch key {
            case "triggers":
                guard triggers == nil, let value = reader.array({ $0.trigger() }) else { return false }
                triggers = value
            case "integrity":
                guard integrity == nil else { return false }
                if reader.null() {
                    integrity = .some(nil)
                } else {
                    guard let value = reader.stringMap() else { return false }
                    integrity = .some(value)
                }
            default:
                return reader.skipValue()
            }
            return true
        }
        guard ok, let triggers else { return nil }
        return RawManifest(triggers: triggers, integrity: integrity ?? nil)
    }

    /// RawTrigger's own init reads `type` and `id` and, unless the type is
    /// "inapp", nothing else: the other values are found first and read after.
    mutating func trigger() -> RawTrigger? {
        var fields: [String: Range<Int>] = [:]
        let ok = object { reader, key in
            let start = reader.index
            guard reader.skipValue(), fields.updateValue(start..<reader.index, forKey: key) == nil else { return false }
            return true
        }
        guard ok else { return nil }
        var result = RawTrigger()
        func read<T>(_ key: String, _ parse: (inout JSONBytes) -> T?) -> T?? {
            guard let range = fields[key] else { return .some(nil) }
            var reader = JSONBytes(bytes)
            reader.index = range.lowerBound
            reader.depth = depth
            if reader.null() { return .some(nil) }
            guard let value = parse(&reader) else { return nil }
            return .some(value)
        }
        guard let type = read("type", { $0.string() }), let id = read("id", { $0.string() }) else { return nil }
        result.type = type
        result.id = id
        guard type == "inapp" else { return result }
        guard let priority = read("priority", { $0.number() }),
              let startTime = read("start_time", { $0.number() }),
              let endTime = read("end_time", { $0.number() }),
              let delay = read("delay", { $0.number() }),
              let timeout = read("timeout", { $0.number() }),
              let minSeconds = read("min_seconds_since_last_trigger", { $0.number() }),
              let prefetch = read("prefetch", { $0.bool() }),
              let conditions = read("trigger_condition", { $0.array { $0.condition() } }),
              let data = read("data", { $0.messageData() })
        else { return nil }
        result.priority = priority
        result.startTime = startTime
        result.endTime = endTime
        result.delay = delay
        result.timeout = timeout
        result.minSecondsSinceLastTrigger = minSeconds
        result.prefetch = prefetch
        result.triggerCondition = conditions
        result.data = data
        return result
    }

    mutating func condition() -> RawCondition? {
        var type: String?
        var data: [String: JSONValue]??
        let ok = object { reader, key in
            switch key {
            case "type":
                guard type == nil, let value = reader.string() else { return false }
                type = value
            case "data":
                guard data == nil else { return false }
                if reader.null() {
                    data = .some(nil)
                } else {
                    guard case .object(let value)? = reader.value() else { return false }
                    data = .some(value)
                }
            default:
                return reader.skipValue()
            }
            return true
        }
        guard ok, let type else { return nil }
        return RawCondition(type: type, data: data ?? nil)
    }

    mutating func messageData() -> RawMessageData? {
        var result = RawMessageData()
        var seen: [String] = []
        let ok = object { reader, key in
            if seen.contains(key) { return false }
            seen.append(key)
            switch key {
            case "type": return reader.optional(\.type, in: &result) { $0.string() }
            case "image_style": return reader.optional(\.imageStyle, in: &result) { $0.string() }
            case "message": return reader.optional(\.message, in: &result) { $0.string() }
            case "orientation": return reader.optional(\.orientation, in: &result) { $0.string() }
            case "image_url": return reader.optional(\.imageURL, in: &result) { $0.string() }
            case "zipped_assets_url": return reader.optional(\.zippedAssetsURL, in: &result) { $0.string() }
            case "asset_urls": return reader.optional(\.assetURLs, in: &result) { $0.array { $0.string() } }
            case "is_control": return reader.optional(\.isControl, in: &result) { $0.bool() }
            case "extras":
                return reader.optional(\.extras, in: &result) { reader in
                    guard case .object(let value)? = reader.value() else { return nil }
                    return value
                }
            default: return reader.skipValue()
            }
        }
        return ok ? result : nil
    }

    /// A key of a synthesized Decodable with an optional type: null or absent is nil.
    mutating func optional<Root, T>(_ path: WritableKeyPath<Root, T?>, in root: inout Root, _ parse: (inout JSONBytes) -> T?) -> Bool {
        if null() { return true }
        guard let value = parse(&self) else { return false }
        root[keyPath: path] = value
        return true
    }

    mutating func stringMap() -> [String: String]? {
        var map: [String: String] = [:]
        let ok = object { reader, key in
            guard let value = reader.string(), map.updateValue(value, forKey: key) == nil else { return false }
            return true
        }
        return ok ? map : nil
    }

    /// What JSONValue's Decodable init makes of a value.
    mutating func value() -> JSONValue? {
        skipSpace()
        guard index < bytes.count else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "n"): return literal("null") ? .null : nil
        case UInt8(ascii: "t"): return literal("true") ? .bool(true) : nil
        case UInt8(ascii: "f"): return literal("false") ? .bool(false) : nil
        case UInt8(ascii: "\""): return string().map(JSONValue.string)
        case UInt8(ascii: "["): return array { $0.value() }.map(JSONValue.array)
        case UInt8(ascii: "{"):
            var map: [String: JSONValue] = [:]
            let ok = object { reader, key in
                guard let value = reader.value(), map.updateValue(value, forKey: key) == nil else { return false }
                return true
            }
            return ok ? .object(map) : nil
        default: return number().map(JSONValue.number)
        }
    }

    // MARK: JSON

    mutating func object(_ member: (inout JSONBytes, String) -> Bool) -> Bool {
        guard consume(UInt8(ascii: "{")), enter() else { return false }
        defer { depth -= 1 }
        if consume(UInt8(ascii: "}")) { return true }
        while true {
            guard let key = string(), consume(UInt8(ascii: ":")), member(&self, key) else { return false }
            if consume(UInt8(ascii: ",")) { continue }
            return consume(UInt8(ascii: "}"))
        }
    }

    mutating func array<T>(_ element: (inout JSONBytes) -> T?) -> [T]? {
        guard consume(UInt8(ascii: "[")), enter() else { return nil }
        defer { depth -= 1 }
        var result: [T] = []
        if consume(UInt8(ascii: "]")) { return result }
        while true {
            guard let value = element(&self) else { return nil }
            result.append(value)
            if consume(UInt8(ascii: ",")) { continue }
            return consume(UInt8(ascii: "]")) ? result : nil
        }
    }

    mutating func skipValue() -> Bool {
        value() != nil
    }

    mutating func null() -> Bool {
        skipSpace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "n") else { return false }
        return literal("null")
    }

    mutating func bool() -> Bool? {
        skipSpace()
        if literal("true") { return true }
        if literal("false") { return false }
        return nil
    }

    /// Control characters, lone surrogates, \u0000 and invalid UTF-8 give up.
    mutating func string() -> String? {
        guard consume(UInt8(ascii: "\"")) else { return nil }
        let start = index
        var ascii = true
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: bytes[start..<index])
                index += 1
                return ascii ? String(decoding: slice, as: UTF8.self) : String(validating: slice, as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") { return escapedString(from: start) }
            if byte < 0x20 { return nil }
            if byte >= 0x80 { ascii = false }
            index += 1
        }
        return nil
    }

    private mutating func escapedString(from start: Int) -> String? {
        var text: [UInt8] = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(validating: text, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { return nil }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(escape)
                case UInt8(ascii: "n"): text.append(0x0A)
                case UInt8(ascii: "t"): text.append(0x09)
                case UInt8(ascii: "r"): text.append(0x0D)
                case UInt8(ascii: "b"): text.append(0x08)
                case UInt8(ascii: "f"): text.append(0x0C)
                case UInt8(ascii: "u"):
                    guard var scalar = hex4() else { return nil }
                    if (0xD800...0xDBFF).contains(scalar) {
                        // A surrogate pair; a lone half is the Codable path's to judge.
                        guard literal("\\u"), let low = hex4(), (0xDC00...0xDFFF).contains(low) else { return nil }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard scalar != 0, let character = Unicode.Scalar(scalar) else { return nil }
                    text.append(contentsOf: Array(String(character).utf8))
                default: return nil
                }
            default:
                if byte < 0x20 { return nil }
                text.append(byte)
            }
        }
        return nil
    }

    private mutating func hex4() -> UInt32? {
        guard index + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    /// JSON's number grammar, converted as Double(String) does; not finite gives up.
    mutating func number() -> Double? {
        skipSpace()
        let start = index
        if peek(UInt8(ascii: "-")) { index += 1 }
        if peek(UInt8(ascii: "0")) {
            index += 1
        } else {
            guard digits() else { return nil }
        }
        if peek(UInt8(ascii: ".")) {
            index += 1
            guard digits() else { return nil }
        }
        if peek(UInt8(ascii: "e")) || peek(UInt8(ascii: "E")) {
            index += 1
            if peek(UInt8(ascii: "+")) || peek(UInt8(ascii: "-")) { index += 1 }
            guard digits() else { return nil }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else { return nil }
        return value
    }

    private mutating func digits() -> Bool {
        let start = index
        while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") { index += 1 }
        return index > start
    }

    private mutating func literal(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { return false }
        index += count
        return true
    }

    private mutating func enter() -> Bool {
        depth += 1
        return depth < 256
    }

    private mutating func consume(_ byte: UInt8) -> Bool {
        skipSpace()
        guard peek(byte) else { return false }
        index += 1
        return true
    }

    private func peek(_ byte: UInt8) -> Bool {
        index < bytes.count && bytes[index] == byte
    }

    private mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    mutating func atEnd() -> Bool {
        skipSpace()
        return index == bytes.count
    }
}

extension RawTrigger {
    /// Every field absent, as the fast reader starts one.
    init() {}
}
