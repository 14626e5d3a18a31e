import AssetCache
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
            try TrustedKeyOptions.judge(
                &published, bytes: local.bytes, argument: manifest, channels: [audience!], store: judge.store, keeping: true, logger: common.logger)
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
}
