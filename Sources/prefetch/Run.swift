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

    func validate() throws {
        guard (1...256).contains(concurrency) else { throw ValidationError("--concurrency must be between 1 and 256") }
        guard (1...256).contains(perHost) else { throw ValidationError("--per-host must be between 1 and 256") }
    }

    func run() async throws {
        do {
            let manifest = try ManifestSource.load(self.manifest)
            let store = try openStore()
            var options = PrefetchOptions()
            options.transfer.concurrency = concurrency
            options.transfer.perHost = perHost
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
