import ArgumentParser
import AssetCache
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

struct Publish: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "publish",
        abstract: "Judge a draft manifest's assets as a device would, then pin, stamp and sign it; or --check a published one.",
        discussion: """
            Every asset is fetched (or read from --assets-from) and judged by the code of 'prefetch run', in a temporary cache removed after; --cache-dir is not used. \
            Exit 0 only when every message would be ready on a device; else 1, and nothing is written unless --allow-discards. \
            docs/publishing.md has the whole walk.
            """)

    @Argument(help: ArgumentHelp(
        "The draft manifest, a file; with --check, the published manifest: a file (its .sig beside it) or an http(s) URL.",
        valueName: "manifest"))
    var manifest: String

    @Flag(help: "Judge a published manifest (signature, freshness, pins, assets) as a device with --trusted-key and --audience would; write nothing.")
    var check = false

    @Option(help: ArgumentHelp("Where to write the signed manifest; its signature goes to FILE.sig.", valueName: "file"))
    var output: String?

    @Option(help: ArgumentHelp(
        "The signify secret key to sign with (signify-openbsd -G -s KEY.sec): readable by its owner only. Its versions file is KEY.versions beside it.",
        valueName: "file"))
    var key: String?

    @Option(help: ArgumentHelp(
        "Read the key's passphrase from the first line of this file, readable by its owner only; without it, a sealed key asks on the terminal. Never on the command line.",
        valueName: "file"))
    var passphraseFile: String?

    @Option(help: ArgumentHelp("The manifest's audience: its URL, or the channel devices are given with --audience.", valueName: "name"))
    var audience: String?

    @Option(help: ArgumentHelp("How long the manifest stays valid (90m, 12h, 7d, 2w), or when it expires (RFC 3339).", valueName: "duration|time"))
    var expires: ExpiryArgument?

    @Option(help: ArgumentHelp(
        "The manifest now published, a URL or a file: the version signed is above its version (and above the output file's, and the last this key signed for the audience).",
        valueName: "url|file"))
    var previous: String?

    @Option(help: ArgumentHelp(
        "Read each asset from this folder instead of fetching it: the file at the URL's path beneath it (https://cdn.example.com/inapp/a.png is DIR/inapp/a.png).",
        valueName: "dir"))
    var assetsFrom: String?

    @Flag(help: "Write and sign the manifest even when some messages would not be ready on a device (they are listed).")
    var allowDiscards = false

    @Option(name: .customLong("trusted-key"), help: ArgumentHelp("With --check: a signify public key the devices trust; repeatable.", valueName: "file"))
    var trustedKeys: [String] = []

    @Flag(help: "With --check: judge as devices run with --require-integrity (an unpinned asset discards its message). publish always pins every asset.")
    var requireIntegrity = false

    @Option(help: ArgumentHelp("Trust the CA certificates of this PEM file to fetch the assets (curl --cacert).", valueName: "file"))
    var cacert: String?

    @OptionGroup var common: CommonOptions

    @OptionGroup var report: ReportOptions

    func validate() throws {
        if check {
            let misplaced = [("--output", output), ("--key", key), ("--passphrase-file", passphraseFile), ("--previous", previous)]
                .filter { $0.1 != nil }.map(\.0) + (expires != nil ? ["--expires"] : []) + (allowDiscards ? ["--allow-discards"] : [])
            guard misplaced.isEmpty else {
                throw ValidationError("--check writes nothing: \(misplaced.joined(separator: ", ")) \(misplaced.count == 1 ? "is" : "are") for publishing a draft")
            }
            guard !trustedKeys.isEmpty else { throw ValidationError("--check needs --trusted-key: the public key devices check the signature with") }
            guard audience != nil else { throw ValidationError("--check needs --audience: the URL or channel devices are given") }
        } else {
            guard trustedKeys.isEmpty, !requireIntegrity else {
                throw ValidationError("--trusted-key and --require-integrity are for --check; publish checks its own signature and pins every asset")
            }
            for (flag, value) in [("--output FILE", output), ("--key KEY.sec", key), ("--audience NAME", audience)] where value == nil {
                throw ValidationError("publish needs \(flag)")
            }
            guard expires != nil else { throw ValidationError("publish needs --expires DURATION|TIME (7d, or 2026-12-08T00:00:00Z)") }
        }
        if audience?.isEmpty == true { throw ValidationError("--audience must not be empty") }
    }

    func run() async throws {
        do {
            let status = check ? try await checkPublished() : try await publish()
            throw ExitCode(status)
        } catch let failure as CommandFailure {
            throw failure.report()
        }
    }
}

extension Publish: TakesCommonOptions {}
