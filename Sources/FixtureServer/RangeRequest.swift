/// The `bytes=` ranges of a Range header (RFC 9110 §14.1.2) against content
/// of `size` bytes.
enum RangeRequest: Equatable {
    /// The satisfiable ranges, clamped to the content, in the order asked (at
    /// least one). Unsatisfiable and invalid (last < first) members are dropped,
    /// as nginx does; overlapping ones are kept as asked.
    case satisfiable([Range<Int>])
    /// Every member lies past the end (or is `-0`): 416.
    case unsatisfiable
    /// Not `bytes=`, malformed, or too many ranges: answered as if there were no Range.
    case ignored

    /// A header of this many ranges or more is ignored (200, the whole file)
    /// before anything is parsed, so that a hostile request cannot make the
    /// server allocate without bound (the HTTP parser bounds the header's size too).
    static let mostRanges = 1000

    private enum Member {
        case range(Range<Int>)
        case unsatisfiable
        case invalid
    }

    static func parse(_ header: String, size: Int) -> RangeRequest {
        guard header.lowercased().hasPrefix("bytes=") else { return .ignored }
        let spec = header.utf8.dropFirst("bytes=".count)
        // Members, empty ones included, are the commas and one.
        guard spec.lazy.filter({ $0 == UInt8(ascii: ",") }).count + 1 < mostRanges else { return .ignored }
        var ranges: [Range<Int>] = []
        var unsatisfiable = false
        // Empty list elements ("0-1,,5-6") are allowed and skipped (RFC 9110 §5.6.1.2).
        for element in spec.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
            let text = Substring(element).trimmingWhitespace
            if text.isEmpty { continue }
            switch member(text, size: size) {
            case .range(let range)?: ranges.append(range)
            case .unsatisfiable?: unsatisfiable = true
            case .invalid?: continue
            case nil: return .ignored
            }
        }
        if !ranges.isEmpty { return .satisfiable(ranges) }
        return unsatisfiable ? .unsatisfiable : .ignored
    }

    /// nil for text that is no range-spec at all.
    private static func member(_ text: Substring, size: Int) -> Member? {
        let ends = text.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard ends.count == 2 else { return nil }
        let first = ends[0].trimmingWhitespace
        let last = ends[1].trimmingWhitespace
        guard first.allSatisfy(\.isASCIIDigit), last.allSatisfy(\.isASCIIDigit) else { return nil }

        if first.isEmpty {
            // Too many digits for an Int is a suffix longer than any file.
            guard !last.isEmpty else { return nil }
            let suffix = Int(last) ?? .max
            guard suffix > 0, size > 0 else { return .unsatisfiable }
            return .range(max(0, size - suffix)..<size)
        }
        guard let start = Int(first) else { return .unsatisfiable }
        var end = size - 1
        if !last.isEmpty {
            let requestedEnd = Int(last) ?? .max
            guard requestedEnd >= start else { return .invalid }
            end = min(requestedEnd, size - 1)
        }
        guard start < size else { return .unsatisfiable }
        return .range(start..<(end + 1))
    }
}

extension Substring {
    var trimmingWhitespace: Substring {
        var text = self
        while text.first == " " || text.first == "\t" { text = text.dropFirst() }
        while text.last == " " || text.last == "\t" { text = text.dropLast() }
        return text
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
