#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging

/// Fetches the manifest and its signature through one transfer engine, made
/// only if some request is needed. The operator's `--header` values go to
/// the manifest's own origin only: redirects are followed here, not by
/// libcurl, which would send custom headers to any host it is sent to.
///
/// Both are trust documents, so no freshness header governs them: the manifest
/// is revalidated on every run whatever its `Cache-Control` said (one
/// `max-age=315360000` would otherwise freeze a device on it for ten years),
/// and the signature is fetched whole every time (a stale cached one would
/// make every newer manifest a "bad signature"). Every request of both,
/// retries and redirects included, ends by one deadline.
final class RemoteDocumentFetcher {
    private let store: CacheStore
    private let limits: TransferLimits
    private let headers: [String]
    private let origin: String
    private let logger: Logger
    private let deadline: ContinuousClock.Instant
    /// What the deadline is, for the message when it is reached.
    private let deadlineReason: String
    /// The run's own deadline, not the documents': the run is over, so no
    /// stored copy should stand in.
    private let deadlineEndsRun: Bool
    private var engine: TransferEngine?
    private let observer: TransferObserver
    private var downloads: [FileLocation] = []

    private static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]
    /// A signify signature is two short lines: anything longer is not one.
    static let maxSignatureSize: Int64 = 64 * 1024
    /// With `--max-time 0` (no limit per request), the documents still end.
    static let defaultTimeLimit: Double = 300

    /// `limits.maxTime` bounds the manifest and its signature together, and
    /// `runDeadline` (the run's `--max-run-time`) too when it comes first.
    init(
        store: CacheStore, limits: TransferLimits, headers: [String], origin: AssetURL, logger: Logger,
        runDeadline: RunDeadline? = nil
    ) {
        self.store = store
        var limits = limits
        limits.maxAssetSize = Int64(Manifest.maxSize)
        self.limits = limits
        self.headers = headers
        self.origin = Transfer.hostKey(of: origin.string)
        self.logger = logger
        observer = TransferObserver(logger: logger)
        let seconds = limits.maxTime > 0 ? limits.maxTime : Self.defaultTimeLimit
        let own = ContinuousClock.now + CheckedNumber.duration(seconds: seconds)
        if let runDeadline, runDeadline.instant < own {
            deadline = runDeadline.instant
            deadlineReason = runDeadline.reason
            deadlineEndsRun = true
        } else {
            deadlineEndsRun = false
            deadline = own
            deadlineReason = "the manifest and its signature took more than \(DecimalText.fixed(seconds, digits: 0)) s together (--max-time)"
        }
    }

    /// Stops the engine and removes downloads that were not committed.
    func close() {
        engine?.shutdown()
        for download in downloads { download.directory.unlink(download.name) }
    }

    /// The manifest: a conditional request when a copy is cached, whatever its age.
    func revalidate(_ url: AssetURL, now: Double) async throws(RemoteFailureMessage) -> RemoteDocument {
        let cached = CachedCopy(store: store, url: url)
        let download = store.temporaryFile("manifest")
        downloads.append(download)
        let result = try await fetch(url, into: download, conditional: cached?.conditionalHeaders ?? [], maxSize: limits.maxAssetSize)
        if let cached, result.status == 304 {
            return RemoteDocument(url: url, source: .revalidated(cached, result.headers))
        }
        if let failure = result.failure {
            throw RemoteFailureMessage(failure.message, isTransient: failure.isTransient(status: result.status))
        }
        return RemoteDocument(url: url, source: .downloaded(download, result))
    }

    /// The signature: always the whole, current file.
    func download(_ url: AssetURL) async throws(RemoteFailureMessage) -> RemoteDocument {
        let download = store.temporaryFile("signature")
        downloads.append(download)
        let result = try await fetch(url, into: download, conditional: [], maxSize: Self.maxSignatureSize)
        if let failure = result.failure { throw RemoteFailureMessage(failure.message) }
        return RemoteDocument(url: url, source: .downloaded(download, result))
    }

    private func fetch(
        _ url: AssetURL, into download: FileLocation, conditional: [String], maxSize: Int64
    ) async throws(RemoteFailureMessage) -> TransferResult {
        var current = url
        var redirects = 0
        while true {
            let sameOrigin = Transfer.hostKey(of: current.string) == origin
            var request = TransferRequest(url: current.string, location: download, headers: conditional + (sameOrigin ? headers : []))
            request.followsRedirects = false
            request.maxSize = maxSize
            // Its retries are logged as an asset's are: they can take seconds.
            request.observer = observer
            let result = try await fetchBeforeDeadline(request)
            guard Self.redirectStatuses.contains(result.status), let location = result.headers["location"] else {
                return result
            }
            guard redirects < limits.maxRedirects else {
                throw RemoteFailureMessage("more than \(limits.maxRedirects) redirects from \(url)")
            }
            guard let target = URL(string: location, relativeTo: URL(string: current.string))?.absoluteString,
                  let next = try? AssetURL(parsing: target)
            else {
                throw RemoteFailureMessage("\(current) redirects to '\(location)', which is not an http or https URL")
            }
            if current.isHTTPS, !next.isHTTPS {
                throw RemoteFailureMessage(
                    "\(AssetErrorKind.insecureRedirect.rawValue): \(current) redirects to \(next), which would drop TLS; not followed")
            }
            if !headers.isEmpty, Transfer.hostKey(of: next.string) != origin {
                logger.debug("\(current) redirects to \(next): the --header values are not sent there (another origin than the manifest's)")
            }
            current = next
            redirects += 1
        }
    }

    /// One request with its retries, cancelled at the deadline: an endless or
    /// trickling server cannot hold the run.
    private func fetchBeforeDeadline(_ request: TransferRequest) async throws(RemoteFailureMessage) -> TransferResult {
        let engine: TransferEngine
        do {
            engine = try self.engine ?? TransferEngine(limits: limits)
        } catch {
            throw RemoteFailureMessage("\(error)")
        }
        self.engine = engine
        let deadline = self.deadline
        let result = await withTaskGroup(of: TransferResult?.self) { group in
            group.addTask { await engine.fetch(request) }
            group.addTask {
                try? await Task.sleep(until: deadline)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        guard let result else {
            throw RemoteFailureMessage("timed out fetching \(request.url): \(deadlineReason)", isTransient: !deadlineEndsRun)
        }
        return result
    }
}

/// When a whole run must end (`--max-run-time`), counted from its start, and
/// how to say so.
public struct RunDeadline: Sendable {
    public var instant: ContinuousClock.Instant
    public var reason: String

    public init(instant: ContinuousClock.Instant, reason: String) {
        self.instant = instant
        self.reason = reason
    }
}

/// Why a remote document could not be had, as one line.
struct RemoteFailureMessage: Error {
    var message: String
    /// The server or the network may recover (refused, DNS, timeout, 408,
    /// 429, 5xx): a stored copy may stand in. Not a redirect to plain HTTP,
    /// a 404, or anything the server meant.
    var isTransient: Bool

    init(_ message: String, isTransient: Bool = false) {
        self.message = message
        self.isTransient = isTransient
    }
}
