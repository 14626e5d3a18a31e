import ArgumentParser
import AssetCache

struct Plan: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "Readiness of a manifest's messages from the cache alone: no network, no writes, no lock.")

    @Argument(help: ArgumentHelp(
        "The manifest: a path, '-' for stdin, or an http(s) URL, whose copy stored by an earlier run is read (no request is made).",
        valueName: "manifest"))
    var manifest: String

    @OptionGroup var common: CommonOptions

    @OptionGroup var output: ReportOptions

    @OptionGroup var trust: TrustedKeyOptions

    @OptionGroup var checks: ManifestCheckOptions

    func run() async throws {
        do {
            let source = ManifestSource(argument: manifest)
            // A refused cache is reported after a refused manifest.
            let opened = Result { () throws(CommandFailure) in try common.openReader() }
            let trustedKeys = try trust.load()
            let loaded = source.isRemote
                ? try source.loadStored(from: try opened.get(), cacheDirectory: common.cacheDirectory, trustedKeys: trustedKeys)
                : try source.loadLocal(trustedKeys: trustedKeys)
            var manifest = loaded.manifest
            try checks.check(&manifest, argument: source.argument, logger: common.logger)
            for warning in manifest.warnings { common.logger.warning("\(warning)") }
            let store = try opened.get()
            if trustedKeys != nil {
                try trust.judge(
                    &manifest, bytes: loaded.bytes, argument: source.argument, url: source.isRemote ? (try? AssetURL(parsing: source.argument))?.string : nil, store: store, keeping: false,
                    logger: common.logger)
            }
            trust.apply(to: &manifest)
            var report = Planner.plan(manifest, store: store, cacheDirectory: common.cacheDirectory)
            report.manifestOrigin = manifest.origin
            ReportPrinter(options: output, quiet: common.quiet).print(report)
            throw ExitCode(Run.exitStatus(for: report))
        } catch let failure as CommandFailure {
            throw failure.report()
        }
    }
}
