import Dispatch
import Synchronization

/// One long array read by two threads: a manifest is almost all one array of
/// triggers, and with a second core its second half is read while the first is.
/// Where the second half begins is a guess (``elementStart(near:)``) that this
/// reader then proves by arriving there between two elements; until it does,
/// nothing the other thread read is used, so the outcome, errors and their
/// places included, is the one reading alone gives.
extension JSONReader {
    /// Where an element of the array being read seems to begin, near `offset`:
    /// a `{` after `}` and `,` (white space allowed). Nil when none is close.
    func elementStart(near offset: Int) -> Int? {
        let base = tokens.base, end = min(tokens.count, offset + 64 * 1024)
        func previous(_ index: Int) -> Int? {
            var index = index - 1
            while index >= 0, [0x20, 0x09, 0x0A, 0x0D].contains(base[index]) { index -= 1 }
            return index >= 0 ? index : nil
        }
        var index = max(offset, tokens.position + 1)
        while index < end {
            if base[index] == UInt8(ascii: "{"), let comma = previous(index), base[comma] == UInt8(ascii: ","),
               let close = previous(comma), base[close] == UInt8(ascii: "}") {
                return index
            }
            index += 1
        }
        return nil
    }

    /// Reads the array at hand (its `[` seen with ``next()``) as ``array(_:)``
    /// does, the elements from byte `split` on (if one begins there) on another
    /// thread with `second`, meanwhile: `first` reads the elements before it,
    /// here, and `joined` is handed what `second` returned for each of the rest,
    /// in order, with the index of the first of them, when this reader arrives
    /// at `split`. If it never does (`split` was inside a value), what the other
    /// thread read is thrown away and this reader reads on alone.
    mutating func array<Item: Sendable>(
        splitAt split: Int,
        first: (inout JSONReader) throws(JSONReadError) -> Void,
        second: @escaping @Sendable (inout JSONReader) throws(JSONReadError) -> Item,
        joined: ([Item], Int) -> Void
    ) throws(JSONReadError) {
        // The array's frame is the next one: the second reader is placed inside it.
        let outer = Array(UnsafeBufferPointer(start: frames, count: depth))
        var pending: SecondPart<Item>? = SecondPart(
            text: UnsafeRawBufferPointer(start: tokens.base, count: tokens.count), from: split,
            inside: outer + [Frame(index: 0, key: nil)], prefix: path, read: second)
        defer { pending?.wait() }
        try array { json throws(JSONReadError) in
            if let part = pending, json.tokens.peek() != nil, json.tokens.position >= split {
                pending = nil
                guard json.tokens.position == split else {
                    // A wrong guess: what the other thread read is thrown away.
                    part.wait()
                    return try first(&json)
                }
                // Arrived: the second part is read as if it were this one element,
                // and the array's `]` comes next.
                let level = json.depth
                let start = json.frames[level - 1].index
                let (items, end, mismatch) = try part.result(index: start)
                joined(items, start)
                if json.mismatch == nil, let mismatch { json.mismatch = mismatch }
                json.frames[level - 1].index += items.count - 1
                json.tokens.goOn(from: end)
                return
            }
            try first(&json)
        }
    }
}

/// The other thread's reading of the elements from `split` to the array's `]`.
private final class SecondPart<Item: Sendable>: @unchecked Sendable {
    // @unchecked: the text and the frames' keys point into the caller's buffer,
    // which outlives this (the caller waits for the thread before it returns).
    private let done = DispatchSemaphore(value: 0)
    private let outcome = Mutex<Result<([Item], JSONTokenizer.Place, JSONReadError?), JSONReadError>?>(nil)
    private let prefix: String
    private let text: UnsafeRawBufferPointer
    private let split: Int
    private let frames: [JSONReader.Frame]
    private let element: @Sendable (inout JSONReader) throws(JSONReadError) -> Item

    init(
        text: UnsafeRawBufferPointer, from split: Int, inside frames: [JSONReader.Frame], prefix: String,
        read element: @escaping @Sendable (inout JSONReader) throws(JSONReadError) -> Item
    ) {
        self.prefix = prefix
        self.text = text
        self.split = split
        self.frames = frames
        self.element = element
        DetachedThread.start(name: "manifest reader") { [self] in read() }
    }

    private func read() {
        var reader = JSONReader(text, from: split, inside: frames)
        let level = reader.depth
        var items: [Item] = []
        let result = Result { () throws(JSONReadError) in
            do throws(JSONReadError) {
                while true {
                    items.append(try element(&reader))
                    if reader.tokens.consume(UInt8(ascii: ",")) {
                        reader.frames[level - 1].index += 1
                        continue
                    }
                    // The `]` is left for the first reader, which closes the array.
                    if reader.tokens.peek() == UInt8(ascii: "]") { break }
                    throw reader.tokens.fault("expected ',' or ']' after an array element")
                }
                return (items, reader.tokens.place, reader.mismatch)
            } catch {
                var error = error
                if error.path == nil { error.path = reader.path }
                throw error
            }
        }
        outcome.withLock { $0 = result }
        done.signal()
    }

    func wait() {
        done.wait()
        done.signal()
    }

    /// What the second reader read, its paths counted from element `index` of the array.
    func result(index: Int) throws(JSONReadError) -> ([Item], JSONTokenizer.Place, JSONReadError?) {
        wait()
        switch outcome.withLock({ $0 })! {
        case .success(let (items, end, mismatch)):
            return (items, end, mismatch.map { shifted($0, by: index) })
        case .failure(let error):
            throw shifted(error, by: index)
        }
    }

    /// `prefix[n]…` of the second reader is `prefix[n + index]…` of the array.
    private func shifted(_ error: JSONReadError, by index: Int) -> JSONReadError {
        var error = error
        if let path = error.path, path.hasPrefix(prefix + "["),
           let close = path.dropFirst(prefix.count + 1).firstIndex(of: "]"),
           let relative = Int(path[path.index(path.startIndex, offsetBy: prefix.count + 1)..<close]) {
            error.path = prefix + "[\(relative + index)]" + path[path.index(after: close)...]
        }
        return error
    }
}
