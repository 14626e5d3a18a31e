import ArgumentParser
import AssetCache

/// A number of seconds on the command line: decimal digits with an optional
/// fraction (`30`, `0.5`). `inf`, `nan`, `1e300`, `-1` and `0x10` are usage
/// errors naming the flag, not values that would trap a conversion later
/// (``CheckedNumber``).
struct Seconds: ExpressibleByArgument, Sendable, Equatable, CustomStringConvertible {
    var value: Double

    /// What an error about seconds says they are.
    static let forms = "a number of seconds from 0 to 10000000000, whole or decimal (30, 2.5)"

    init(_ value: Double) {
        self.value = value
    }

    init?(argument: String) {
        guard let value = CheckedNumber.seconds(argument, atMost: CheckedNumber.maxSeconds) else { return nil }
        self.value = value
    }

    var description: String { value == value.rounded() ? String(Int64(value)) : String(value) }

    static var defaultCompletionKind: CompletionKind { .default }
}
