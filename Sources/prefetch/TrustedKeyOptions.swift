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
import Logging

/// `--trusted-key`, for every command that reads a manifest: with one, a
/// manifest is read only when a signature by one of the keys vouches for it,
/// and only while it is the newest for this device and not expired
/// (docs/publishing.md). `--require-integrity` goes with them: what the
/// manifest does not pin, whoever serves the assets chooses.
struct TrustedKeyOptions: ParsableArguments {
    @Option(
        name: .customLong("trusted-key"),
        help: ArgumentHelp(
            "Accept only manifests signed by this signify public key (signify -V -p): MANIFEST.sig beside a file, URL.sig for a URL; repeatable, for key rotation.",
            valueName: "file"))
    var paths: [String] = []

    @Option(
        name: .customLong("audience"),
        help: ArgumentHelp(
            "A channel this device belongs to: a signed manifest's \"audience\" must be this or the manifest's URL; repeatable.",
            valueName: "name"))
    var audiences: [String] = []

    @Flag(help: "Discard (integrity_missing) every message with an asset that the manifest's integrity does not pin.")
    var requireIntegrity = false

    func validate() throws {
        if !audiences.isEmpty, paths.isEmpty {
            throw ValidationError("--audience is checked only in signed manifests: give --trusted-key too")
        }
        if audiences.contains(where: \.isEmpty) { throw ValidationError("--audience must not be empty") }
    }

    /// A local manifest's (or, with `url`, a stored copy's) version, expiry and audience, against what this cache
    /// accepted before (a reader's cache, or none, for `plan`). With `keeping`,
    /// a writer's, what it accepts now is stored before anything else happens.
    func judge(
        _ manifest: inout Manifest, bytes: Data, argument: String, url: String? = nil, store: CacheStore?, keeping: Bool,
        logger: Logger
    ) throws(CommandFailure) {
        try Self.judge(&manifest, bytes: bytes, argument: argument, url: url, channels: audiences, store: store, keeping: keeping, logger: logger)
    }

    /// The same for `channels` given otherwise (`publish --audience`).
    static func judge(
        _ manifest: inout Manifest, bytes: Data, argument: String, url: String? = nil, channels: [String], store: CacheStore?,
        keeping: Bool, logger: Logger
    ) throws(CommandFailure) {
        let trust = ManifestTrust(store: store, url: url, channels: channels, logger: logger)
        let acceptance: ManifestTrust.Acceptance
        do {
            acceptance = try trust.judge(manifest, bytes: bytes, store: store)
        } catch {
            throw ManifestSource.refusal(argument, error)
        }
        if keeping, let store {
            do {
                try trust.keep(acceptance, in: store, manifest: &manifest)
            } catch {
                throw CommandFailure(error)
            }
        } else if acceptance.expired {
            manifest.holdBack(.manifestExpired, detail: ManifestTrust.expiryDetail(acceptance.expires))
        }
    }

    /// What every command does with a manifest it read: `--require-integrity`.
    func apply(to manifest: inout Manifest) {
        if requireIntegrity { manifest.holdBackUnpinned() }
    }

    /// The keys, read and checked before anything else happens; nil without any.
    func load() throws(CommandFailure) -> TrustedKeys? {
        guard !paths.isEmpty else { return nil }
        return try Self.load(paths: paths)
    }

    static func load(paths: [String]) throws(CommandFailure) -> TrustedKeys {
        var keys: [SignifyPublicKey] = []
        for path in paths {
            let data = try InputFile.read(path, limit: 64 * 1024, as: InputFile.Name(name: "--trusted-key", file: "a signify public key file (KEY.pub)"))
            do {
                keys.append(try SignifyPublicKey(data, name: path))
            } catch {
                throw CommandFailure(
                    message: "--trusted-key '\(path)' is not a signify public key: \(error); pass the KEY.pub that 'signify-openbsd -G -p KEY.pub -s KEY.sec' wrote",
                    status: ExitStatus.usage)
            }
        }
        return TrustedKeys(keys)
    }
}
