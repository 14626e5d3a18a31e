/// The report as pretty-printed JSON, written directly: JSONEncoder took a third
/// of `prefetch plan`'s time on a 10,000-message report (bench/, C). The keys and
/// values are those of the Encodable conformance (a test compares the two), in
/// that conformance's order, with "/" left unescaped.
extension PrefetchReport {
    public func prettyJSON() -> [UInt8] {
        var json = PrettyJSON()
        json.object { json in
            json.key("version"); json.string(Self.formatVersion)
            json.key("cache_dir"); json.string(cacheDirectory)
            json.key("duration_ms"); json.integer(durationMs)
            json.key("messages")
            json.array(messages) { json, message in message.write(to: &json) }
            json.key("assets")
            json.array(assets) { json, asset in asset.write(to: &json) }
            let totals = totals
            json.key("totals")
            json.object { json in
                json.key("messages"); json.integer(totals.messages)
                json.key("ready"); json.integer(totals.ready)
                json.key("discarded"); json.integer(totals.discarded)
                json.key("deferred"); json.integer(totals.deferred)
                json.key("expired"); json.integer(totals.expired)
                json.key("assets"); json.integer(totals.assets)
                json.key("downloaded_bytes"); json.integer(totals.downloadedBytes)
                json.key("connections"); json.integer(totals.connections)
            }
        }
        return json.bytes
    }
}

extension MessageReport {
    fileprivate func write(to json: inout PrettyJSON) {
        json.object { json in
            json.key("id"); json.string(id)
            json.key("status"); json.string(verdict.status.rawValue)
            if let reason = verdict.reason { json.key("reason"); json.string(reason.rawValue) }
            if let detail = verdict.detail { json.key("detail"); json.string(detail) }
            if let readyMs { json.key("ready_ms"); json.integer(readyMs) }
            json.key("assets")
            json.array(verdict.assets) { json, asset in
                json.object { json in
                    json.key("url"); json.string(asset.url.string)
                    json.key("kind"); json.string(asset.kind.rawValue)
                    json.key("path"); json.string(asset.path)
                }
            }
        }
    }
}

extension AssetRecord {
    fileprivate func write(to json: inout PrettyJSON) {
        json.object { json in
            json.key("url"); json.string(url.string)
            json.key("kind"); json.string(kind.rawValue)
            json.key("outcome"); json.string(outcome.rawValue)
            if let sha256 { json.key("sha256"); json.string(sha256) }
            if let bytes { json.key("bytes"); json.integer(bytes) }
            if let path { json.key("path"); json.string(path) }
            json.key("attempts"); json.integer(attempts)
            json.key("error")
            if let failure {
                json.object { json in
                    json.key("kind"); json.string(failure.kind.rawValue)
                    json.key("message"); json.string(failure.message)
                }
            } else {
                json.null()
            }
        }
    }
}

/// JSON text indented by two spaces, `"key" : value`, as JSONEncoder's
/// `.prettyPrinted` writes it.
struct PrettyJSON {
    private(set) var bytes: [UInt8] = []
    /// Per open container: whether it has no member yet.
    private var empty: [Bool] = []
    private var afterKey = false

    mutating func object(_ members: (inout PrettyJSON) -> Void) {
        open(UInt8(ascii: "{"))
        members(&self)
        close(UInt8(ascii: "}"))
    }

    mutating func array<S: Sequence>(_ elements: S, _ write: (inout PrettyJSON, S.Element) -> Void) {
        open(UInt8(ascii: "["))
        for element in elements {
            startMember()
            afterKey = true
            write(&self, element)
        }
        close(UInt8(ascii: "]"))
    }

    mutating func key(_ name: StaticString) {
        startMember()
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        bytes.append(contentsOf: [UInt8(ascii: "\""), 0x20, UInt8(ascii: ":"), 0x20])
        afterKey = true
    }

    mutating func string(_ text: String) {
        value()
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x08: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x0C: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case ..<0x20:
                let digits = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: Array("\\u00".utf8))
                bytes.append(digits[Int(byte >> 4)])
                bytes.append(digits[Int(byte & 0x0F)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    mutating func integer(_ number: some BinaryInteger) {
        value()
        bytes.append(contentsOf: Array(String(number).utf8))
    }

    mutating func null() {
        value()
        bytes.append(contentsOf: Array("null".utf8))
    }

    /// A value stands after a key or as an array element.
    private mutating func value() {
        precondition(afterKey, "a JSON value needs a key or an array around it")
        afterKey = false
    }

    private mutating func open(_ bracket: UInt8) {
        if !empty.isEmpty { value() }
        bytes.append(bracket)
        empty.append(true)
    }

    private mutating func close(_ bracket: UInt8) {
        let wasEmpty = empty.removeLast()
        if !wasEmpty { newline() }
        bytes.append(bracket)
    }

    private mutating func startMember() {
        if empty[empty.count - 1] {
            empty[empty.count - 1] = false
        } else {
            bytes.append(UInt8(ascii: ","))
        }
        newline()
    }

    private mutating func newline() {
        bytes.append(0x0A)
        bytes.append(contentsOf: repeatElement(0x20, count: 2 * empty.count))
    }
}
