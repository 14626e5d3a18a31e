/// The strict rules over ``JSONTokenizer``'s tokens, in the same single pass: the
/// grammar of objects and arrays, at most ``maxDepth`` levels, no key twice in one
/// object, and the JSON path of every error. A document's reader (``ManifestReader``,
/// the events file) walks the values it knows with ``next()`` and the typed reads,
/// and ``skip()``s or keeps (``value()``) the rest.
///
/// A value of the wrong shape does not stop the reading: the first is kept
/// (``mismatch(_:)``) and thrown once the whole text has proved to be JSON, so a
/// syntax error anywhere is what is reported first, as a two-pass reader would.
package struct JSONReader: ~Copyable {
    package static let maxDepth = 128

    struct Frame {
        /// An array's current index, or -1 in an object.
        var index: Int
        /// An object's current key, while its value is read.
        var key: JSONKey?
    }

    var tokens: JSONTokenizer
    /// One per open container, at most ``maxDepth``: a fixed buffer, as an array's
    /// uniqueness and bounds checks on every member were measurable.
    let frames = UnsafeMutablePointer<Frame>.allocate(capacity: JSONReader.maxDepth)
    var depth = 0
    private var keys = JSONKeySet()
    /// The first value of the wrong shape, with its path.
    package var mismatch: JSONReadError? {
        didSet { mismatched = mismatch != nil }
    }
    /// Whether there is one: cheaper to ask after every value than `mismatch`.
    package private(set) var mismatched = false

    private init(_ bytes: UnsafeRawBufferPointer) {
        tokens = JSONTokenizer(bytes)
    }

    deinit {
        frames.deallocate()
    }

    /// Reads the one JSON text in `bytes` with `document`; `name` says what it is
    /// in the error for an empty one. Every error thrown carries its path.
    package static func read<Result>(
        _ bytes: UnsafeRawBufferPointer, name: String,
        _ document: (inout JSONReader) throws(JSONReadError) -> Result
    ) throws(JSONReadError) -> Result {
        var reader = JSONReader(bytes)
        do throws(JSONReadError) {
            guard reader.tokens.peek() != nil else { throw JSONReadError(.syntax, "the \(name) is empty") }
            let result = try document(&reader)
            guard reader.tokens.peek() == nil else { throw reader.tokens.fault("unexpected data after the end of the document") }
            JSONPasses.current?.record(bytes: reader.tokens.position)
            if let mismatch = reader.mismatch { throw mismatch }
            return result
        } catch {
            var error = error
            // Frames are not popped on the way out, so they still say where it happened.
            if error.path == nil { error.path = reader.path }
            throw error
        }
    }

    // MARK: values

    /// What the next value is, without reading it.
    @inline(__always)
    package mutating func next() throws(JSONReadError) -> JSONKind {
        guard let byte = tokens.peek() else { throw tokens.unexpected() }
        return switch byte {
        case UInt8(ascii: "{"): .object
        case UInt8(ascii: "["): .array
        case UInt8(ascii: "\""): .string
        case UInt8(ascii: "t"), UInt8(ascii: "f"): .bool
        case UInt8(ascii: "n"): .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): .number
        default: throw tokens.unexpected()
        }
    }

    /// Reads an object's members; `member` reads (or skips) exactly one value for each.
    @inline(__always)
    package mutating func object(_ member: (inout JSONReader, JSONKey) throws(JSONReadError) -> Void) throws(JSONReadError) {
        try members { (_: JSONKey) -> (key: Never, index: Int)? in nil } _: { reader, _, key throws(JSONReadError) in
            try member(&reader, key)
        }
    }

    /// Reads an object whose known keys are `Key`s: each member is handed over as
    /// its `Key`, or as nil when it is one the document does not know.
    @inline(__always)
    package mutating func object<Key: JSONObjectKey>(
        _: Key.Type, _ member: (inout JSONReader, Key?) throws(JSONReadError) -> Void
    ) throws(JSONReadError) {
        try members { key in Key.table.match(key) } _: { reader, known, _ throws(JSONReadError) in
            try member(&reader, known)
        }
    }

    /// The same, with each key as written too: for a reader that notes the
    /// unknown ones (a misspelt `imageurl`, ManifestKeyCheck).
    @inline(__always)
    package mutating func object<Key: JSONObjectKey>(
        _: Key.Type, _ member: (inout JSONReader, Key?, JSONKey) throws(JSONReadError) -> Void
    ) throws(JSONReadError) {
        try members { key in Key.table.match(key) } _: { reader, known, key throws(JSONReadError) in
            try member(&reader, known, key)
        }
    }

    /// Known keys are marked seen in a bit mask, the others in ``JSONKeySet``.
    @inline(__always)
    private mutating func members<Key>(
        _ match: (JSONKey) -> (key: Key, index: Int)?,
        _ member: (inout JSONReader, Key?, JSONKey) throws(JSONReadError) -> Void
    ) throws(JSONReadError) {
        try enter(index: -1)
        let level = depth
        var seen: UInt64 = 0
        if !tokens.consume(UInt8(ascii: "}")) {
            while true {
                guard tokens.peek() == UInt8(ascii: "\"") else { throw tokens.fault("expected a string key") }
                let token = try tokens.string()
                let key = JSONKey(bytes: tokens.raw(token), escaped: token.escaped)
                frames[level - 1].key = key
                let known = match(key)
                if let known {
                    guard seen & 1 << known.index == 0 else { throw Self.duplicate(key) }
                    seen |= 1 << known.index
                } else {
                    guard keys.insert(key, level: level) else { throw Self.duplicate(key) }
                }
                guard tokens.consume(UInt8(ascii: ":")) else { throw tokens.fault("expected ':' after the key '\(key.string)'") }
                try member(&self, known?.key, key)
                frames[level - 1].key = nil
                if tokens.consume(UInt8(ascii: ",")) { continue }
                if tokens.consume(UInt8(ascii: "}")) { break }
                throw tokens.fault("expected ',' or '}' after the member '\(key.string)'")
            }
        }
        keys.close(level: level)
        depth -= 1
    }

    private static func duplicate(_ key: JSONKey) -> JSONReadError {
        JSONReadError(.rule, "the key '\(key.string)' appears twice in one object")
    }

    /// Reads an array's elements; `element` reads (or skips) exactly one value each time.
    @inline(__always)
    package mutating func array(_ element: (inout JSONReader) throws(JSONReadError) -> Void) throws(JSONReadError) {
        try enter(index: 0)
        if !tokens.consume(UInt8(ascii: "]")) {
            while true {
                try element(&self)
                if tokens.consume(UInt8(ascii: ",")) {
                    frames[depth - 1].index += 1
                    continue
                }
                if tokens.consume(UInt8(ascii: "]")) { break }
                throw tokens.fault("expected ',' or ']' after an array element")
            }
        }
        depth -= 1
    }

    /// Consumes the opening bracket (the caller has seen it with ``next()``).
    @inline(__always)
    private mutating func enter(index: Int) throws(JSONReadError) {
        guard depth < Self.maxDepth else { throw tokens.fault("nested deeper than \(Self.maxDepth) levels", kind: .rule) }
        _ = tokens.peek()
        tokens.skipByte()
        (frames + depth).initialize(to: Frame(index: index, key: nil))
        depth += 1
    }

    @inline(__always)
    package mutating func string() throws(JSONReadError) -> String {
        let token = try tokens.string()
        return JSONString.decode(tokens.raw(token), escaped: token.escaped)
    }

    @inline(__always)
    package mutating func number() throws(JSONReadError) -> Double {
        try tokens.number()
    }

    @inline(__always)
    package mutating func bool() throws(JSONReadError) -> Bool {
        if tokens.peek() == UInt8(ascii: "t") {
            try tokens.literal("true")
            return true
        }
        try tokens.literal("false")
        return false
    }

    @inline(__always)
    package mutating func null() throws(JSONReadError) {
        try tokens.literal("null")
    }

    // MARK: shapes

    /// Notes that the next value is not `expected` (`"a string"`) unless a value
    /// before it was already wrong, and reads past it.
    package mutating func mismatch(_ expected: String) throws(JSONReadError) {
        let found = try next() == .null ? ", found null" : ""
        if mismatch == nil { mismatch = JSONReadError(.shape, "expected \(expected)\(found)", path: path) }
        try skip()
    }

    /// Notes that the object just read lacks `key`, which the document requires.
    package mutating func missing(_ key: String) {
        if mismatch == nil { mismatch = JSONReadError(.shape, "is required", path: JSONPath.appending(key: key, to: path)) }
    }

    /// The JSON path of the value being read; long ones keep their ends.
    package var path: String { path(depth: depth) }

    /// The path of the value the first `depth` frames lead to.
    func path(depth: Int) -> String {
        var segments: [String] = []
        for frame in UnsafeBufferPointer(start: frames, count: depth) {
            if frame.index >= 0 {
                segments.append("[\(frame.index)]")
            } else if let key = frame.key {
                segments.append(JSONPath.appending(key: key.string, to: ""))
            }
        }
        if segments.count > 16 { segments.replaceSubrange(8..<(segments.count - 4), with: ["…"]) }
        var result = ""
        for segment in segments {
            result += result.isEmpty || segment.hasPrefix("[") || segment == "…" ? segment : ".\(segment)"
        }
        return result
    }
}

package enum JSONKind: Sendable {
    case object, array, string, number, bool, null
}
