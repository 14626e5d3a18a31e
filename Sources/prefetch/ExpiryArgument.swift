import ArgumentParser
import AssetCache

/// `publish --expires`: how long the manifest stays valid, a number and a
/// unit (`90m`, `12h`, `7d`, `2w`), or the moment itself in RFC 3339
/// (`2026-12-08T00:00:00Z`).
struct ExpiryArgument: ExpressibleByArgument, Sendable, CustomStringConvertible {
    enum Form: Sendable {
        case after(seconds: Double)
        case at(epoch: Double)
    }

    var form: Form
    let text: String

    static let units: [Character: Double] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400, "w": 604_800]
    /// Ten years: past it, a typo (`7000d`), not a window.
    static let maxSeconds: Double = 10 * 366 * 86_400

    init?(argument: String) {
        text = argument
        if let unit = argument.last, let scale = Self.units[unit], argument.count > 1,
           let count = Int(argument.dropLast()), count > 0, Double(count) * scale <= Self.maxSeconds {
            form = .after(seconds: Double(count) * scale)
        } else if let epoch = RFC3339Date.parse(argument) {
            form = .at(epoch: epoch)
        } else {
            return nil
        }
    }

    var description: String { text }

    /// The moment, from `now`; nil when it is not after `now`.
    func moment(from now: Double) -> Double? {
        let moment = switch form {
        case .after(let seconds): now + seconds
        case .at(let epoch): epoch
        }
        return moment > now ? moment.rounded(.down) : nil
    }

    static var defaultCompletionKind: CompletionKind { .default }
}
