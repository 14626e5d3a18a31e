/// JSON text indented by two spaces, `"key" : value`, as JSONEncoder's
/// `.prettyPrinted` writes it, with keys in the order they are written: every
/// JSON output of prefetch keeps the order its documentation lists.
package struct PrettyJSON {
    private var bytes: [UInt8] = []
    /// Takes the text written so far between array elements, once there is enough of it.
    private let flush: ([UInt8]) -> Void
    private static let flushThreshold = 64 * 1024
    /// Per open container: whether it has no member yet.
    private var empty: [Bool] = []
    private var afterKey = false
    /// Containers nested deeper than this are written on one line, without
    /// spaces: the readiness index is one line per message (``init(flush:lineDepth:)``).
    private let lineDepth: Int

    package init(flush: @escaping ([UInt8]) -> Void) {
        self.flush = flush
        lineDepth = .max
    }

    /// Compact JSON but for a line break before each member of the outer
    /// `lineDepth` containers, and no indentation: small, and still one line per
    /// element of an array at that depth for `grep` and a reader of diffs.
    package init(flush: @escaping ([UInt8]) -> Void, lineDepth: Int) {
        self.flush = flush
        self.lineDepth = lineDepth
    }

    package mutating func flushNow() {
        guard !bytes.isEmpty else { return }
        flush(bytes)
        bytes.removeAll(keepingCapacity: true)
    }

    package mutating func object(_ members: (inout PrettyJSON) -> Void) {
        open(UInt8(ascii: "{"))
        members(&self)
        close(UInt8(ascii: "}"))
    }

    package mutating func array<S: Sequence>(_ elements: S, _ write: (inout PrettyJSON, S.Element) -> Void) {
        open(UInt8(ascii: "["))
        for element in elements {
            startMember()
            afterKey = true
            write(&self, element)
            if bytes.count >= Self.flushThreshold { flushNow() }
        }
        close(UInt8(ascii: "]"))
    }

    package mutating func key(_ name: StaticString) {
        startMember()
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        separateKey()
    }

    /// A key that is not known in advance (the members of a value kept whole), escaped.
    package mutating func key(text name: String) {
        startMember()
        afterKey = true
        string(name)
        bytes.removeLast()
        separateKey()
    }

    private mutating func separateKey() {
        if lineDepth == .max {
            bytes.append(contentsOf: [UInt8(ascii: "\""), 0x20, UInt8(ascii: ":"), 0x20])
        } else {
            bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
        }
        afterKey = true
    }

    /// Plain runs are copied whole: byte by byte, this was most of the report's time.
    package mutating func string(_ text: String) {
        value()
        Self.appendQuoted(text, to: &bytes)
    }

    /// `text` as a JSON string, quotes included: also for a writer that keeps
    /// the rest of its document as it was written (``DraftManifest``).
    package static func appendQuoted(_ text: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            var run = 0
            for index in utf8.indices {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[run..<index]))
                escape(byte, to: &bytes)
                run = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[run...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static func escape(_ byte: UInt8, to bytes: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), byte])
        case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
        case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
        case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
        case 0x08: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
        case 0x0C: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
        default:
            let digits = Array("0123456789abcdef".utf8)
            bytes.append(contentsOf: Array("\\u00".utf8))
            bytes.append(digits[Int(byte >> 4)])
            bytes.append(digits[Int(byte & 0x0F)])
        }
    }

    package mutating func integer(_ number: some BinaryInteger) {
        value()
        bytes.append(contentsOf: Array(String(number).utf8))
    }

    package mutating func null() {
        value()
        bytes.append(contentsOf: Array("null".utf8))
    }

    package mutating func bool(_ flag: Bool) {
        value()
        bytes.append(contentsOf: Array((flag ? "true" : "false").utf8))
    }

    /// As JSONEncoder writes a Double: the shortest text that reads back the same.
    package mutating func number(_ number: Double) {
        value()
        bytes.append(contentsOf: Array("\(number)".utf8))
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
        if !wasEmpty && empty.count < lineDepth { newline() }
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
        guard empty.count <= lineDepth else { return }
        bytes.append(0x0A)
        guard lineDepth == .max else { return }
        let indent = 2 * empty.count
        if indent <= Self.spaces.count {
            bytes.append(contentsOf: Self.spaces[..<indent])
        } else {
            bytes.append(contentsOf: repeatElement(0x20, count: indent))
        }
    }

    private static let spaces = [UInt8](repeating: 0x20, count: 32)
}
