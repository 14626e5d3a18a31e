import FixtureServer
import Foundation

/// A site of files of random bytes, each shown by one HTML message, for the
/// download limits' tests (ByteBudgetTests, MeteredTests): a message's id is
/// its file's name, and its trigger says whether it is urgent.
struct LimitSite {
    struct Page {
        var id: String
        var bytes: Int
        var priority = 0
        /// Session start (`open`): claims the limits first.
        var urgent = false
        /// Sent without Content-Length: its size is known only as it arrives.
        var chunked = false
        /// A ZIP of stored entries (`bytes` of them, in `index.html`), shown by
        /// an `HTML_FULL` message: it takes its size again when unpacked.
        var zipped = false
        /// More of the fixture server's routes (`&rate=…`).
        var query = ""
    }

    let scratch: Scratch
    let server: FixtureServer
    let pages: [Page]
    let manifest: String
    let cache: String

    /// `cache`: the cache directory, when not the scratch folder's `cache`
    /// (a small file system of a test's own).
    init(_ pages: [Page], scratch: Scratch? = nil, cache: String? = nil) async throws {
        let scratch = try scratch ?? Scratch()
        self.scratch = scratch
        let root = scratch.path("www")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        var generator = SystemRandomNumberGenerator()
        for page in pages {
            let bytes = (0..<page.bytes).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let data = page.zipped ? StoredZip.make([("index.html", bytes)]) : Data(bytes)
            try data.write(to: URL(fileURLWithPath: "\(root)/\(page.id).bin"))
        }
        server = try await FixtureServer.start(root: root)
        self.pages = pages
        self.cache = cache ?? scratch.path("cache")
        let server = server
        manifest = try scratch.write("m.json", try manifestJSON(pages.map { page in
            let trigger: [String: Any] = page.urgent ? ["type": "open"] : ["type": "custom_event", "data": ["event_name": page.id]]
            let data: [String: Any] = page.zipped
                ? ["type": "HTML_FULL", "zipped_assets_url": Self.url(of: page, on: server)]
                : ["type": "HTML", "asset_urls": [Self.url(of: page, on: server)]]
            return ["id": page.id, "type": "inapp", "priority": page.priority, "trigger_condition": [trigger], "data": data]
        }))
    }

    static func url(of page: Page, on server: FixtureServer) -> String {
        // no-cache: every later run revalidates, as a stale copy would be.
        server.url("\(page.id).bin?cache_control=no-cache" + (page.chunked ? "&chunked=1" : "") + page.query)
    }

    func url(_ id: String) -> String { Self.url(of: pages.first { $0.id == id }!, on: server) }

    func run(_ arguments: [String]) async throws -> CommandResult {
        try await CommandRunner.prefetch(["run", manifest, "--cache-dir", cache, "--json"] + arguments)
    }

    /// Each message's verdict, `status` or `status:reason`, by id.
    static func verdicts(_ report: Report) -> [String: String] {
        Dictionary(uniqueKeysWithValues: report.messages.map { ($0.id, $0.verdict) })
    }
}
