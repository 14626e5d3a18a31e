/// The JSON report of `prefetch run --json`, decoded by the tests exactly as a
/// consumer would: through the documented keys only.
struct Report: Decodable {
    struct Message: Decodable {
        struct LocalAsset: Decodable {
            var url: String
            var kind: String
            var path: String
        }
        var id: String
        var status: String
        var reason: String?
        var detail: String?
        var ready_ms: Int?
        var assets: [LocalAsset]
        var verdict: String { reason.map { "\(status):\($0)" } ?? status }
    }

    struct Asset: Decodable {
        struct Failure: Decodable {
            var kind: String
            var message: String
        }
        var url: String
        var kind: String
        var outcome: String
        var sha256: String?
        var bytes: Int?
        var path: String?
        var attempts: Int
        /// deferred: the download limit that left it for a later run.
        var reason: String?
        /// An archive the run unpacked: its files, and those linked from the previous version's tree.
        var unpack: Unpack?
        var error: Failure?
        /// A delta refresh of a changed ZIP (issue 30).
        var delta: Delta?
        var delta_fallback: String?
        /// What a ZIP rebuilt by delta was checked against: pin, digest or crc32 (issue 37).
        var delta_evidence: String?
    }

    struct Delta: Decodable {
        var fetched_bytes, reused_bytes, requests: Int
    }

    struct Unpack: Decodable, Equatable {
        var files, bytes, linked_files, linked_bytes: Int
    }

    struct Totals: Decodable {
        var messages, ready, discarded, deferred, expired, assets, downloaded_bytes, connections: Int
    }

    struct Budget: Decodable {
        var max_download_bytes, downloaded_bytes, deferred_messages: Int
    }

    struct Metered: Decodable {
        var value: Bool
        var source: String
        var max_asset_bytes, deferred_messages: Int
    }

    /// The free-space floor and the cache's file system (format 1.6.0).
    struct FreeSpace: Decodable {
        var min_free_bytes, free_bytes, lowest_free_bytes, evicted_refs, deferred_messages: Int
    }

    struct Link: Decodable {
        var down_seconds: Double
        var outages: Int
    }

    /// What the manifest holds that loads but will not work as written (format 1.5.0).
    struct Warning: Decodable, Equatable {
        var kind: String
        var path: String
        var message: String
        var suggestion: String?
    }

    var version: String
    var cache_dir: String
    var duration_ms: Int
    var messages: [Message]
    var assets: [Asset]
    var totals: Totals
    var budget: Budget?
    var metered: Metered?
    var link: Link?
    var free_space: FreeSpace?
    var warnings: [Warning]?

    func message(_ id: String) -> Message? { messages.first { $0.id == id } }
    func asset(_ url: String) -> Asset? { assets.first { $0.url == url } }
}
