import AssetCache
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging

/// `publish --check MANIFEST`: a published manifest judged as a new device
/// with `--trusted-key` and `--audience` would judge it — signature,
/// freshness, audience, pins, every asset — for a publisher's CI.
extension Publish {
    func checkPublished() async throws(CommandFailure) -> Int32 {
        let keys = try TrustedKeyOptions.load(paths: trustedKeys)
        let source = ManifestSource(argument: manifest)
        let judge = try DeviceJudge(logger: common.logger, cacert: cacert, mirror: nil)
        defer { judge.remove() }
        var published: Manifest
        if source.isRemote {
            published = try await source.fetch(
                into: judge.store, limits: Self.transferLimits(cacert: cacert), headers: [], channels: [audience!],
                trustedKeys: keys, runDeadline: nil, offline: false, logger: common.logger)
        } else {
            let local = try source.loadLocal(trustedKeys: keys)
            published = local.manifest
            try Self.accept(&published, bytes: local.bytes, audience: audience!, store: judge.store, argument: manifest, logger: common.logger)
        }
        ManifestCheckOptions.addConditionWarnings(to: &published)
        for warning in published.warnings { common.logger.warning("\(warning)") }
        if requireIntegrity { published.holdBackUnpinned() }
        let report = try await judge.judge(published)
        ReportPrinter(options: self.report, quiet: common.quiet).print(report)
        return Self.everyMessageReady(report) ? ExitStatus.ok : ExitStatus.someDiscarded
    }

    static func transferLimits(cacert: String?) -> TransferLimits {
        var limits = TransferLimits()
        limits.caCertFile = cacert
        return limits
    }

    /// A new device's acceptance: its freshness and audience judged, kept
    /// in the judge's cache; an expired manifest is refused as a device
    /// that never had it refuses it.
    static func accept(
        _ manifest: inout Manifest, bytes: Data, audience: String, store: CacheStore, argument: String, logger: Logger
    ) throws(CommandFailure) {
        let trust = ManifestTrust(store: store, url: nil, channels: [audience], logger: logger)
        do {
            let acceptance = try trust.judge(manifest, bytes: bytes, store: store)
            try trust.keep(acceptance, in: store, manifest: &manifest)
        } catch let error as ManifestTrustError {
            throw ManifestSource.refusal(argument, error)
        } catch {
            throw CommandFailure(message: "\(argument): \(error)", status: ExitStatus.storage)
        }
    }
}
