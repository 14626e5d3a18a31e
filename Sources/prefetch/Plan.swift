import ArgumentParser
import AssetCache

struct Plan: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "Readiness of a manifest's messages from the cache alone: no network, no writes, no lock.")

    @Argument(help: ArgumentHelp("The manifest: a path, or '-' for stdin.", valueName: "manifest"))
    var manifest: String

    @OptionGroup var common: CommonOptions

    @OptionGroup var output: ReportOptions

    @OptionGroup var trust: TrustedKeyOptions

    func run() async throws {
        do {
            let source = ManifestSource(argument: manifest)
            guard !source.isRemote else {
                throw CommandFailure(message: "plan reads a local manifest; fetch it with 'prefetch run' first", status: ExitStatus.usage)
            }
            // A refused cache is reported after a refused manifest.
            let opened = Result { () throws(CommandFailure) in try common.openReader() }
            let trustedKeys = try trust.load()
            let loaded = try source.loadLocal(trustedKeys: trustedKeys)
            var manifest = loaded.manifest
            for warning in manifest.warnings { common.logger.warning("\(warning)") }
            let store = try opened.get()
            if trustedKeys != nil {
                try trust.judge(&manifest, bytes: loaded.bytes, argument: source.argument, store: store, keeping: false, logger: common.logger)
            }
            trust.apply(to: &manifest)
            let report = Planner.plan(manifest, store: store, cacheDirectory: common.cacheDirectory)
            ReportPrinter(options: output, quiet: common.quiet).print(report)
            throw ExitCode(Run.exitStatus(for: report))
        } catch let failure as CommandFailure {
            throw failure.report()
        }
    }
}
