import ArgumentParser
import AssetCache
import Logging

/// `--metered yes|no|auto`, and the configuration file's `metered`, which is
/// what `auto` falls back to where NetworkManager cannot say (docs/limits.md#metered-links).
enum MeteredChoice: String, ExpressibleByArgument, CaseIterable, Sendable {
    case yes, no, auto

    /// `auto`, or any of the words ``YesNo`` takes: `metered = true` says yes.
    init?(argument: String) {
        if argument.lowercased() == "auto" {
            self = .auto
        } else if let value = YesNo.value(of: argument) {
            self = value ? .yes : .no
        } else {
            return nil
        }
    }
}

extension MeteredChoice {
    /// The link as this choice decides it: `yes` and `no` say so; `auto` asks
    /// NetworkManager, and where it cannot say takes `configured` (the
    /// configuration file's `metered`), else not metered.
    func link(configured: MeteredChoice?, maxAssetBytes: Int64, logger: Logger) -> MeteredLink {
        let (isMetered, source): (Bool, MeteredLink.Source) = switch self {
        case .yes: (true, .flag)
        case .no: (false, .flag)
        case .auto:
            if let answer = NetworkManagerMetered.ask(logger: logger) {
                (answer, .networkManager)
            } else if let configured, configured != .auto {
                (configured == .yes, .config)
            } else {
                (false, .default)
            }
        }
        if isMetered {
            logger.info("the link is metered (\(source.rawValue)): only session-start and push-click messages' assets and assets of at most \(maxAssetBytes) bytes are fetched")
        }
        return MeteredLink(isMetered: isMetered, source: source, maxAssetBytes: maxAssetBytes)
    }
}
