import Crypto

/// `<cache>/readiness.json` (docs/cache-format.md#the-readiness-index): what the
/// last run decided of each message and which files to show for it, so that a
/// display app in any language reads one file instead of running the tool.
/// Brought up to date while a run decides messages (``RunningIndex``) and at its
/// end, rewritten by `gc` and `verify --repair`.
public struct ReadinessIndex: Sendable, Equatable {
    /// The file's name in the cache directory.
    public static let fileName = "readiness.json"
    /// The format's version, as the report's: `1.x.y` keeps every key's meaning.
    /// 1.2.0: the index follows the run (`decided_at`; `deferred` with
    /// reason `pending` or `run_stopped` for a message no run has decided yet).
    /// 1.4.0: `deferred` with reason `storage_low` (the free-space floor).
    public static let formatVersion = "1.4.0"

    /// Seconds since 1970.
    public var computedAt: Double
    /// `run`, `gc` or `verify`: which command wrote this copy.
    public var computedBy: String
    public var cacheDirectory: String
    /// nil when the library was handed a manifest that says nothing of where it came from.
    public var manifest: IndexedManifest?
    public var messages: [Message]

    public struct Message: Sendable, Equatable {
        public var id: String
        public var status: MessageStatus
        /// A ``DiscardReason`` raw value, kept as read.
        public var reason: String?
        public var detail: String?
        public var priority: Double
        public var triggers: [TriggerCondition]
        public var assets: [Asset]
        /// When a run reached this verdict, seconds since 1970 (format 1.2.0); a
        /// later run that reaches the same one keeps it. nil in an index of 1.1.
        public var decidedAt: Double?

        /// The same verdict and files, whenever it was reached: a run that
        /// decides what the index says already has nothing to write.
        func sameVerdict(as other: Message) -> Bool {
            id == other.id && status == other.status && reason == other.reason && detail == other.detail
                && priority == other.priority && triggers == other.triggers && assets == other.assets
        }
    }

    /// The reasons of a `deferred` message that no run has decided yet, beside
    /// the run's download limits (``DiscardReason/byteBudget``, ``DiscardReason/metered``)
    /// and its free-space floor (``DiscardReason/storageLow``).
    public enum Undecided {
        /// New in the manifest of the run in progress, which has not decided it yet.
        public static let pending = "pending"
        /// New in the manifest of a run that was stopped before it decided it.
        public static let runStopped = "run_stopped"
    }

    /// One asset of a message; the local fields are there when it has a usable copy.
    public struct Asset: Sendable, Equatable {
        public var url: String
        public var kind: AssetKind
        /// The object file, or for a ZIP the unpacked tree's root.
        public var path: String?
        /// For a ZIP: its `index.html`, when the tree has one at its root.
        public var entry: String?
        /// The SHA-256 naming the object (and a ZIP's tree), and its lease file's path.
        public var object: String?
        public var lease: String?
    }

    public init(computedAt: Double, computedBy: String, cacheDirectory: String, manifest: IndexedManifest?, messages: [Message]) {
        self.computedAt = computedAt
        self.computedBy = computedBy
        self.cacheDirectory = cacheDirectory
        self.manifest = manifest
        self.messages = messages
    }
}

/// Which manifest an index was computed from: where, its exact bytes' SHA-256,
/// whether a trusted key vouched for them, and for a URL whether it was fetched
/// now or the stored copy was used (as the report's `manifest` says).
public struct IndexedManifest: Sendable, Equatable {
    public enum Source: String, Sendable {
        case fetched, stored, file, stdin
    }

    /// Passwords masked, as in the report.
    public var url: String?
    /// Absolute.
    public var path: String?
    public var sha256: String
    public var signed: Bool
    public var source: Source
    public var fetchedAt: Double?

    public init(url: String? = nil, path: String? = nil, sha256: String, signed: Bool, source: Source, fetchedAt: Double? = nil) {
        self.url = url
        self.path = path
        self.sha256 = sha256
        self.signed = signed
        self.source = source
        self.fetchedAt = fetchedAt
    }
}

extension IndexedManifest {
    /// A manifest read from a file (`path`, absolute) or, with nil, from stdin.
    public static func local(path: String?, bytes: some Sequence<UInt8>, signed: Bool) -> IndexedManifest {
        IndexedManifest(
            path: path, sha256: CacheStore.hex(SHA256.hash(data: Array(bytes))), signed: signed, source: path == nil ? .stdin : .file)
    }
}
