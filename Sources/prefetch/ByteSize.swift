import ArgumentParser

/// A SIZE argument (DESIGN §6): a number of bytes with an optional `K`, `M` or `G`
/// suffix, powers of 1024 ("50M" is 52,428,800 bytes). Whole numbers only.
struct ByteSize: Equatable, ExpressibleByArgument, CustomStringConvertible {
    var bytes: Int64

    init(bytes: Int64) {
        self.bytes = bytes
    }

    init?(_ text: String) {
        var digits = Substring(text)
        var multiplier: Int64 = 1
        switch digits.last {
        case "K", "k": multiplier = 1 << 10
        case "M", "m": multiplier = 1 << 20
        case "G", "g": multiplier = 1 << 30
        default: break
        }
        if multiplier != 1 { digits = digits.dropLast() }
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let number = Int64(digits) else {
            return nil
        }
        let (bytes, overflow) = number.multipliedReportingOverflow(by: multiplier)
        guard !overflow else { return nil }
        self.bytes = bytes
    }

    init?(argument: String) {
        self.init(argument)
    }

    /// The shortest exact spelling: "50M" rather than "52428800".
    var description: String {
        for (suffix, size) in [("G", Int64(1) << 30), ("M", Int64(1) << 20), ("K", Int64(1) << 10)]
        where bytes >= size && bytes % size == 0 {
            return "\(bytes / size)\(suffix)"
        }
        return "\(bytes)"
    }

    static var defaultCompletionKind: CompletionKind { .default }
}
