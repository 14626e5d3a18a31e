/// Keys of an action or its message that nothing reads, judged as they are
/// read (docs/manifest.md, "Warnings"). Unknown keys are ignored, since servers
/// add keys before devices learn them; only what was probably meant as a key
/// this device reads is a warning: a near miss of one (`imageurl` for
/// `image_url`), or an asset key of another message type (`zipped_assets_url`
/// in a MODAL), whose asset would silently never be fetched.
struct ManifestKeyCheck: Sendable {
    /// Large manifests repeat the same few keys: each is judged once per type.
    private var suggestions: [String: String?] = [:]

    private static let actionKeys = TriggerKey.allCases.map(\.rawValue)
    /// What every message type takes; each type takes its asset key besides.
    private static let commonKeys: [String] = MessageDataKey.allCases.map(\.rawValue).filter { !assetKeys.contains($0) }
    private static let assetKeys: Set<String> = ["image_url", "zipped_assets_url", "asset_urls"]

    mutating func action(_ unknownKeys: [String], path: String, into warnings: inout [ManifestWarning]) {
        for key in unknownKeys {
            guard let suggestion = closest(to: key, among: Self.actionKeys, question: "action") else { continue }
            warnings.append(ManifestWarning(
                .unknownKey, path: JSONPath.appending(key: key, to: path),
                "an action takes no '\(key)'; it is ignored", suggestion: suggestion))
        }
    }

    mutating func message(_ raw: RawMessageData, type: MessageType, path: () -> String, into warnings: inout [ManifestWarning]) {
        // A type this device does not know is discarded whole: its keys are not ours to judge.
        guard let name = type.name, let assetKey = type.assetKey else { return }
        for (key, present) in [
            ("image_url", !(raw.imageURL ?? "").isEmpty),
            ("zipped_assets_url", !(raw.zippedAssetsURL ?? "").isEmpty),
            ("asset_urls", !(raw.assetURLs ?? []).isEmpty),
        ] where present && key != assetKey {
            warnings.append(ManifestWarning(
                .unknownKey, path: "\(path()).\(key)",
                "\(type.article) \(name) message takes no '\(key)'; it is ignored and its asset never fetched",
                suggestion: assetKey))
        }
        guard !raw.unknownKeys.isEmpty else { return }
        let keys = Self.commonKeys + [assetKey]
        for key in raw.unknownKeys {
            guard let suggestion = closest(to: key, among: keys, question: name) else { continue }
            warnings.append(ManifestWarning(
                .unknownKey, path: JSONPath.appending(key: key, to: path()),
                "\(type.article) \(name) message takes no '\(key)'; it is ignored", suggestion: suggestion))
        }
    }

    /// Compared in lower case, so that `imageURL` and `Image_Url` are near misses too.
    private mutating func closest(to key: String, among keys: [String], question: String) -> String? {
        let memo = question + "\u{0}" + key
        if let known = suggestions[memo] { return known }
        let found = Suggestion.closest(to: key.lowercased(), among: keys)
        suggestions[memo] = found
        return found
    }
}

extension MessageType {
    /// As a manifest spells it; nil for a type this device does not know.
    var name: String? {
        switch self {
        case .slideup: "SLIDEUP"
        case .modal: "MODAL"
        case .full: "FULL"
        case .htmlFull: "HTML_FULL"
        case .html: "HTML"
        case .unsupported: nil
        }
    }

    /// "an HTML message", "a MODAL message".
    var article: String { name?.first == "H" ? "an" : "a" }

    /// The key that holds the type's assets (docs/manifest.md, "The message").
    var assetKey: String? {
        switch self {
        case .slideup, .modal, .full: "image_url"
        case .htmlFull: "zipped_assets_url"
        case .html: "asset_urls"
        case .unsupported: nil
        }
    }
}
