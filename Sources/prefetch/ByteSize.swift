#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

import ArgumentParser

/// A SIZE argument: bytes with an optional K, M or G suffix, powers of 1024 (docs/cli.md).
struct ByteSize: ExpressibleByArgument, Sendable, Equatable {
    var bytes: Int64

    init(bytes: Int64) {
        self.bytes = bytes
    }

    init?(argument: String) {
        var text = Substring(argument.trimmed())
        var multiplier: Int64 = 1
        if let last = text.last?.uppercased(), let shift = ["K": 10, "M": 20, "G": 30][last] {
            multiplier = 1 << shift
            text = text.dropLast()
        } else if text.last?.uppercased() == "B" {
            text = text.dropLast()
        }
        guard let value = Int64(text), value >= 0 else { return nil }
        let (product, overflow) = value.multipliedReportingOverflow(by: multiplier)
        guard !overflow else { return nil }
        bytes = product
    }

    static var defaultCompletionKind: CompletionKind { .default }
}
