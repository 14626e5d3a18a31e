/// The messages a device is eligible for at session start, as the server sent them
/// (docs/manifest.md). Decode one with ``Manifest/decode(_:)``.
public struct Manifest: Sendable {
    /// The `inapp` actions, in manifest order (the order that breaks priority ties).
    public var actions: [TriggeredAction]
    /// Expected SHA-256 digests (raw 32 bytes) by asset URL, from `integrity`.
    public var integrity: [AssetURL: [UInt8]]
    /// What was skipped or will not work as written, rather than refused: for
    /// the log and the report's `warnings`.
    public var warnings: [ManifestWarning]
    /// `version`, `expires`, `signed_at` and `audience`, as the document gives them.
    public var freshness: ManifestFreshness
    /// Where a manifest from a URL came from this time (``RemoteManifest``);
    /// nil for a local file.
    public var origin: ManifestOrigin?
    /// Which bytes these were and from where, for the readiness index; set by
    /// whoever read them (``RemoteManifest``, the command line for a file).
    public var indexed: IndexedManifest?

    public init(
        actions: [TriggeredAction], integrity: [AssetURL: [UInt8]] = [:], warnings: [ManifestWarning] = [],
        freshness: ManifestFreshness = ManifestFreshness()
    ) {
        self.actions = actions
        self.integrity = integrity
        self.warnings = warnings
        self.freshness = freshness
    }

    /// Holds every message back: none is ready, and none of their assets is
    /// fetched (a manifest past its `expires`).
    public mutating func holdBack(_ reason: DiscardReason, detail: String) {
        for index in actions.indices { actions[index].heldBack = .discarded(reason, detail: detail) }
    }

    /// `--require-integrity`: a message with an asset that has no `integrity`
    /// pin is held back, so that whoever serves the assets cannot choose their bytes.
    public mutating func holdBackUnpinned() {
        for index in actions.indices where actions[index].heldBack == nil {
            var unpinned: AssetURL?
            actions[index].message.forEachAsset { url, _ in
                if unpinned == nil, integrity[url] == nil { unpinned = url }
            }
            if let unpinned {
                actions[index].heldBack = .discarded(
                    .integrityMissing, detail: "\(unpinned) has no pin in the manifest's integrity", url: unpinned)
            }
        }
    }
}

/// One in-app action: when it may fire and the message it shows.
public struct TriggeredAction: Sendable, Identifiable {
    public var id: String
    public var priority: Double
    /// Epoch seconds; nil when open.
    public var startTime: Double?
    public var endTime: Double?
    public var delay: Double
    public var timeout: Double
    /// nil: the engine's global minimum interval applies.
    public var minSecondsSinceLastTrigger: Double?
    public var prefetch: Bool
    public var conditions: [TriggerCondition]
    public var message: InAppMessage
    /// The manifest's `integrity` pins of this action's assets: readiness asked
    /// with the action alone (at display time) holds a cached copy to them too.
    public var integrity: [AssetURL: [UInt8]] = [:]
    /// Position in the document's `triggers`, which differs from the position in
    /// ``Manifest/actions`` once other action types are skipped: error paths need it.
    package var manifestIndex: Int = 0
    /// Why the device will not show it, whatever the cache holds, decided
    /// before anything is fetched (`manifest_expired`, `integrity_missing`).
    public var heldBack: MessageVerdict?

    public func isExpired(at now: Double) -> Bool {
        if let endTime { return endTime < now }
        return false
    }

    /// Session-start and push-click actions race the user, so their assets go first.
    package var isUrgent: Bool {
        conditions.contains { $0.type == "open" || $0.type == "push_click" }
    }
}

public struct TriggerCondition: Sendable, Hashable {
    public var type: String
    public var data: [String: JSONValue]
}

public enum MessageType: Sendable, Hashable {
    case slideup, modal, full, htmlFull, html
    /// A type this device does not know yet; the message is discarded, the rest proceed.
    case unsupported(String)

    /// Any case is accepted; the usual spelling, upper case, is matched before
    /// anything is uppercased (a copy per message).
    init(_ raw: String) {
        self = Self.named(raw) ?? Self.named(raw.uppercased()) ?? .unsupported(raw)
    }

    private static func named(_ name: String) -> MessageType? {
        switch name {
        case "SLIDEUP": .slideup
        case "MODAL": .modal
        case "FULL": .full
        case "HTML_FULL": .htmlFull
        case "HTML": .html
        default: nil
        }
    }
}

public enum ImageStyle: String, Sendable { case graphic = "GRAPHIC", top = "TOP" }
public enum Orientation: String, Sendable { case any = "ANY", portrait = "PORTRAIT", landscape = "LANDSCAPE" }

public struct InAppMessage: Sendable {
    public var type: MessageType
    public var imageStyle: ImageStyle
    public var orientation: Orientation
    public var text: String?
    public var isControl: Bool
    public var imageURL: AssetURL?
    public var zippedAssetsURL: AssetURL?
    public var assetURLs: [AssetURL]
    public var extras: [String: JSONValue]

    /// The assets this message needs, with the kind each is validated as.
    public var assets: [(url: AssetURL, kind: AssetKind)] {
        var assets: [(url: AssetURL, kind: AssetKind)] = []
        forEachAsset { url, kind in assets.append((url, kind)) }
        return assets
    }

    /// The same, one by one, with no array made: a plan asks every message twice.
    func forEachAsset(_ body: (AssetURL, AssetKind) -> Void) {
        if isControl { return }
        switch type {
        case .html: for url in assetURLs { body(url, .file) }
        case .htmlFull: if let zippedAssetsURL { body(zippedAssetsURL, .archive) }
        case .slideup, .modal, .full: if let imageURL { body(imageURL, .image) }
        case .unsupported: return
        }
    }
}

/// How a run got a manifest from a URL: fetched (or confirmed by a 304) now,
/// or the copy an earlier run stored, standing in for a server that could not
/// be reached or for `--offline` (the report's `manifest`, docs/report.md).
public struct ManifestOrigin: Sendable, Equatable {
    public enum Source: String, Sendable {
        case fetched, stored
    }

    public var url: String
    public var source: Source
    /// When the copy used was fetched or last confirmed, seconds since 1970.
    public var fetchedAt: Double

    public init(url: String, source: Source, fetchedAt: Double) {
        self.url = url
        self.source = source
        self.fetchedAt = fetchedAt
    }
}
