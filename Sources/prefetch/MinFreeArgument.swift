import ArgumentParser
import AssetCache

/// `--min-free SIZE|PERCENT`: bytes as any SIZE (`500M`), or a whole
/// percentage of the file system with `%` (`10%`) (docs/limits.md#free-space).
struct MinFreeArgument: ExpressibleByArgument, Sendable, Equatable {
    var minimum: MinimumFree

    /// What an error about one says it takes.
    static let forms = "a size (\(ByteSize.forms)) or a whole percentage of the file system from 0% to 100% (10%)"

    init(_ minimum: MinimumFree) {
        self.minimum = minimum
    }

    init?(argument: String) {
        let text = argument.trimmed()
        if text.hasSuffix("%") {
            guard let percent = Int(text.dropLast().trimmed()), (0...100).contains(percent), text.first?.isNumber == true else { return nil }
            minimum = MinimumFree(percent: percent)
        } else {
            guard let size = ByteSize(argument: text) else { return nil }
            minimum = MinimumFree(bytes: size.bytes)
        }
    }

    /// How `--help` shows the default.
    var defaultValueDescription: String {
        switch (minimum.bytes, minimum.percent) {
        case let (bytes?, percent?): "the smaller of \(percent)% and \(ByteSize(bytes: bytes).defaultValueDescription)"
        case let (bytes?, nil): ByteSize(bytes: bytes).defaultValueDescription
        case let (nil, percent?): "\(percent)%"
        case (nil, nil): "0"
        }
    }

    static var defaultCompletionKind: CompletionKind { .default }
}
