#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

import ArgumentParser

/// A SIZE argument: bytes with an optional K, M or G suffix, powers of 1024
/// (docs/cli.md). `10M`, `10 MB` and `10MiB` are one size: people write all
/// three, and a config file's `budget = 10 MB` must not be an error.
struct ByteSize: ExpressibleByArgument, Sendable, Equatable {
    var bytes: Int64

    /// What an error about a size says it takes.
    static let forms = "a whole number of bytes, or one with a K, M or G suffix in powers of 1024 (512K, 10M; 10 MB and 10MiB are read as 10M)"

    init(bytes: Int64) {
        self.bytes = bytes
    }

    init?(argument: String) {
        var text = Substring(argument.trimmed().uppercased())
        // The unit's B, an i before it and one space before the unit are optional.
        if text.hasSuffix("IB") {
            text = text.dropLast(2)
            guard let last = text.last, "KMG".contains(last) else { return nil }
        } else if text.hasSuffix("B") {
            text = text.dropLast()
        }
        var multiplier: Int64 = 1
        if let last = text.last, let shift = ["K": 10, "M": 20, "G": 30][last] {
            multiplier = 1 << shift
            text = text.dropLast()
        }
        if text.hasSuffix(" ") { text = text.dropLast() }
        guard let value = Int64(text), value >= 0 else { return nil }
        let (product, overflow) = value.multipliedReportingOverflow(by: multiplier)
        guard !overflow else { return nil }
        bytes = product
    }

    static var defaultCompletionKind: CompletionKind { .default }
}
