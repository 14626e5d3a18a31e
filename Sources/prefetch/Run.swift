import ArgumentParser
import AssetCache
import Foundation

struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Fetch, validate and cache every asset of a manifest, then print each message's verdict.")

    @Argument(help: ArgumentHelp("The manifest: a path, or '-' for stdin.", valueName: "manifest"))
    var manifest: String

    @OptionGroup var common: CommonOptions

    @Option(help: "Transfers at once.")
    var concurrency = 8

    @Option(help: "Transfers at once to one host.")
    var perHost = 6

    @Option(help: ArgumentHelp("Largest asset to download: bytes, or with a K, M or G suffix.", valueName: "size"))
    var maxAssetSize = ByteSize(bytes: TransferLimits().maxAssetSize)

    @Option(help: ArgumentHelp("Most bytes one ZIP may unpack to: bytes, or with a K, M or G suffix.", valueName: "size"))
    var maxUnpackedSize = ByteSize(bytes: ArchiveLimits().maxUnpackedSize)

    @Option(help: ArgumentHelp("Retries of a transient failure (408, 429, 5xx, network, timeout).", valueName: "n"))
    var retries = TransferLimits().retries

    @Option(help: ArgumentHelp("Seconds to wait for a connection; 0 for libcurl's default.", valueName: "s"))
    var connectTimeout = TransferLimits().connectTimeout

    @Option(help: ArgumentHelp("Seconds under 1 KiB/s after which a transfer is abandoned; 0 for never.", valueName: "s"))
    var stallTimeout = TransferLimits().stallTimeout

    @Option(help: ArgumentHelp("Seconds one request may take in all; 0 for no limit.", valueName: "s"))
    var maxTime = TransferLimits().maxTime

    @Option(name: .customLong("max-redirs"), help: ArgumentHelp("Redirects to follow per request.", valueName: "n"))
    var maxRedirects = TransferLimits().maxRedirects

    func validate() throws {
        guard (1...256).contains(concurrency) else { throw ValidationError("--concurrency must be between 1 and 256") }
        guard (1...256).contains(perHost) else { throw ValidationError("--per-host must be between 1 and 256") }
        guard maxAssetSize.bytes > 0 else { throw ValidationError("--max-asset-size must be at least 1 byte") }
        guard maxUnpackedSize.bytes > 0 else { throw ValidationError("--max-unpacked-size must be at least 1 byte") }
        guard (0...100).contains(retries) else { throw ValidationError("--retries must be between 0 and 100") }
        guard (0...1000).contains(maxRedirects) else { throw ValidationError("--max-redirs must be between 0 and 1000") }
        for (flag, seconds) in [("--connect-timeout", connectTimeout), ("--stall-timeout", stallTimeout), ("--max-time", maxTime)] {
            guard seconds.isFinite, (0...86_400).contains(seconds) else {
                throw ValidationError("\(flag) must be a number of seconds from 0 to 86400")
            }
        }
    }

    func run() async throws {
        do {
            let manifest = try ManifestSource.load(self.manifest)
            let store = try openStore()
            var options = PrefetchOptions()
            options.transfer.concurrency = concurrency
            options.transfer.perHost = perHost
            options.transfer.maxAssetSize = maxAssetSize.bytes
            options.archive.maxUnpackedSize = maxUnpackedSize.bytes
            options.transfer.retries = retries
            options.transfer.connectTimeout = connectTimeout
            options.transfer.stallTimeout = stallTimeout
            options.transfer.maxTime = maxTime
            options.transfer.maxRedirects = maxRedirects
            let report = try await Prefetcher(store: store, options: options).run(manifest)
            ReportPrinter(options: common).print(report)
            throw ExitCode(Self.exitStatus(for: report))
        } catch let failure as CommandFailure {
            throw failure.report()
        }
    }

    private func openStore() throws(CommandFailure) -> CacheStore {
        do {
            return try CacheStore.openForWriting(at: common.cacheDirectory)
        } catch {
            throw CommandFailure(message: error.description, status: Self.exitStatus(for: error))
        }
    }

    static func exitStatus(for error: StoreError) -> Int32 {
        switch error {
        case .refused: ExitStatus.usage
        case .locked: ExitStatus.locked
        case .io: ExitStatus.storage
        }
    }

    static func exitStatus(for report: PrefetchReport) -> Int32 {
        if report.assets.contains(where: { $0.failure?.kind == .storage }) { return ExitStatus.storage }
        return report.totals.discarded > 0 ? ExitStatus.someDiscarded : ExitStatus.ok
    }
}
