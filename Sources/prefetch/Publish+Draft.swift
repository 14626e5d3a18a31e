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

/// `publish DRAFT`: the steps, in order. Nothing is written until the
/// signed manifest has been judged as a device will judge it.
extension Publish {
    func publish() async throws(CommandFailure) -> Int32 {
        _ = try expiry(from: Date().timeIntervalSince1970)
        try checkOutputDirectory()
        let (draft, members) = try readDraft()
        let secretKey = try openKey()
        let judge = try DeviceJudge(logger: common.logger, cacert: cacert, mirror: try openMirror())
        defer { judge.remove() }
        // The draft as it is: every body that arrives is pinned, a bad one too,
        // so that a device judges the very bytes judged here.
        let first = try await judge.judge(draft)
        let pins = Self.pins(for: draft, bodies: judge.bodies)
        warnUnpinned(first, pins: pins)
        let versions = try lockVersions()
        let signed = try await stampAndSign(members, pins: pins, key: secretKey, versions: versions, judge: judge)
        var report = try await judgeAsDevice(signed.bytes, signature: signed.signature, key: secretKey.publicKey, judge: judge)
        report.downloadedBytes += first.downloadedBytes
        report.durationMs += first.durationMs
        ReportPrinter(options: self.report, quiet: common.quiet).print(report)
        guard Self.everyMessageReady(report) || allowDiscards else {
            let unready = report.totals.messages - report.totals.ready
            throw CommandFailure(
                message: "\(manifest): \(unready) of \(report.totals.messages) messages would not be ready on a device (above); nothing was written",
                status: ExitStatus.someDiscarded,
                hint: "correct the draft or its assets, or pass --allow-discards to publish it as it is")
        }
        try write(signed, versions: versions)
        if !common.quiet {
            Console.standardError.writeLine(
                "published \(TerminalText.escaped(output!)): version \(signed.stamp.version!) for '\(TerminalText.escaped(audience!))', expires \(RFC3339Date.format(signed.stamp.expires!)), \(pins.count) \(pins.count == 1 ? "asset" : "assets") pinned; signed by key \(secretKey.keyNumber) in \(TerminalText.escaped(output!)).sig")
        }
        return ExitStatus.ok
    }

    /// The manifest to publish: its stamp, its bytes, their signature.
    struct Signed {
        let stamp: ManifestFreshness
        let bytes: Data
        let signature: Data
    }

    /// The version chosen under the key's lock, the signed keys stamped on
    /// the draft with the pins, and the result signed.
    private func stampAndSign(
        _ members: DraftManifest, pins: [String: String], key secretKey: SignifySecretKey, versions: SignedVersions, judge: DeviceJudge
    ) async throws(CommandFailure) -> Signed {
        let now = Date().timeIntervalSince1970.rounded(.down)
        let published = try await publishedVersion(into: judge.store)
        let stamp = ManifestFreshness(
            version: try nextVersion(after: published, signed: versions.last(for: audience!)?.version, now: now),
            expires: try expiry(from: now), signedAt: now, audience: audience!)
        let bytes = members.stamped(stamp, pins: pins)
        do {
            return Signed(stamp: stamp, bytes: bytes, signature: try secretKey.signature(for: bytes))
        } catch {
            throw CommandFailure(message: "cannot sign with '\(key!)': \(error)", status: ExitStatus.usage)
        }
    }

    /// Its folder, before anything is fetched: a typo there is said now, not
    /// after every asset was judged.
    private func checkOutputDirectory() throws(CommandFailure) {
        do throws(FileSystem.Failure) {
            _ = try ReplacedFile(path: output!)
        } catch {
            throw CommandFailure(message: "--output '\(output!)': its directory cannot be opened: \(error)", status: ExitStatus.usage)
        }
    }

    /// `--expires` from `now`: a time already past is a mistake, said before anything is fetched.
    private func expiry(from now: Double) throws(CommandFailure) -> Double {
        guard let moment = expires!.moment(from: now) else {
            throw CommandFailure(
                message: "--expires \(expires!) is not after now (\(RFC3339Date.format(now))): a device would refuse the manifest as expired",
                status: ExitStatus.usage, hint: "give a duration (7d) or a later time")
        }
        return moment
    }

    /// Ready, and nothing discarded, deferred or expired.
    static func everyMessageReady(_ report: PrefetchReport) -> Bool {
        report.totals.ready == report.totals.messages
    }

    /// The draft read as `run` reads a manifest, warnings said; a draft's
    /// own signed keys are replaced, and that is said too.
    private func readDraft() throws(CommandFailure) -> (Manifest, DraftManifest) {
        var (draft, bytes) = try ManifestSource(argument: manifest).loadLocal()
        ManifestCheckOptions.addConditionWarnings(to: &draft)
        for warning in draft.warnings { common.logger.warning("\(warning)") }
        let members: DraftManifest
        do {
            members = try DraftManifest(bytes)
        } catch {
            throw CommandFailure(message: "\(manifest): \(error.message(line: true))", status: ExitStatus.usage)
        }
        let replaced = members.members.map(\.key).filter { DraftManifest.stampedKeys.contains($0) && $0 != "integrity" }
        if !replaced.isEmpty {
            common.logger.warning("\(manifest): its \(replaced.joined(separator: ", ")) \(replaced.count == 1 ? "is" : "are") replaced by what publish stamps")
        }
        return (draft, members)
    }

    private func openKey() throws(CommandFailure) -> SignifySecretKey {
        let passphrase = passphraseFile.map(PassphraseSource.file) ?? .terminal(prompt: "\(key!) passphrase: ")
        do {
            return try SignifySecretKey.load(path: key!, passphrase: passphrase)
        } catch {
            let hint = if case .passphrase = error { "give --passphrase-file FILE, a file readable by its owner only" } else { error.hint }
            throw CommandFailure(message: error.description, status: ExitStatus.usage, hint: hint)
        }
    }

    private func openMirror() throws(CommandFailure) -> LocalMirror? {
        guard let assetsFrom else { return nil }
        do {
            return try LocalMirror(path: assetsFrom)
        } catch {
            throw CommandFailure(message: "--assets-from '\(assetsFrom)' cannot be opened as a directory: \(error)", status: ExitStatus.usage)
        }
    }

    /// An asset that could not be fetched has no bytes to pin: a device that
    /// requires pins discards its messages as `integrity_missing`, and the
    /// report would say only that. The cause is said here.
    private func warnUnpinned(_ report: PrefetchReport, pins: [String: String]) {
        var said = Set<String>()
        for asset in report.assets where pins[asset.url.string] == nil && said.insert(asset.url.string).inserted {
            let cause = asset.failure.map { "\($0.kind.rawValue): \($0.message)" } ?? "it was not fetched"
            common.logger.warning("\(asset.url) gets no pin (\(cause)): devices discard its messages as integrity_missing")
        }
    }

    /// The draft's own pins, and the SHA-256 of every other body judged.
    static func pins(for draft: Manifest, bodies: [AssetURL: String]) -> [String: String] {
        var pins: [String: String] = [:]
        for (url, sha256) in bodies { pins[url.string] = IntegrityPin.text(hex: sha256) }
        for (url, digest) in draft.integrity { pins[url.string] = IntegrityPin.text(digest: digest) }
        return pins
    }

    private func lockVersions() throws(CommandFailure) -> SignedVersions {
        do {
            return try SignedVersions(key: key!)
        } catch {
            throw CommandFailure(message: "the versions signed with '\(key!)': \(error)", status: ExitStatus.usage)
        }
    }

    /// The version now published: `--previous`'s, and the output file's.
    private func publishedVersion(into store: CacheStore) async throws(CommandFailure) -> Int64? {
        var versions: [Int64?] = [try PublishedVersion.read(file: output!, as: "--output")]
        if let previous {
            let lower = previous.lowercased()
            versions.append(lower.hasPrefix("http://") || lower.hasPrefix("https://")
                ? try await PublishedVersion.fetch(url: previous, into: store, cacert: cacert, logger: common.logger)
                : try PublishedVersion.read(file: previous, as: "--previous"))
        }
        return versions.compactMap { $0 }.max()
    }

    /// Above what is published and what this key signed for the audience, and
    /// at least the time in seconds, so versions still read as when.
    private func nextVersion(after published: Int64?, signed: Int64?, now: Double) throws(CommandFailure) -> Int64 {
        let highest = max(published ?? 0, signed ?? 0)
        guard highest < Int64.max else {
            throw CommandFailure(message: "the version now published is \(highest), the largest there is: no higher one can be signed", status: ExitStatus.usage)
        }
        return max(Int64(now), highest + 1)
    }

    /// The signed bytes read back as a device reads them: the signature
    /// checked with the key's public half, the freshness and audience judged,
    /// `--require-integrity`, then the run.
    private func judgeAsDevice(
        _ bytes: Data, signature: Data, key: SignifyPublicKey, judge: DeviceJudge
    ) async throws(CommandFailure) -> PrefetchReport {
        do {
            try TrustedKeys([key]).verify(bytes, signature: signature, name: output! + ".sig")
        } catch {
            throw CommandFailure(message: "the signature made does not verify: \(error)", status: ExitStatus.usage)
        }
        var manifest: Manifest
        do {
            manifest = try Manifest.decode(bytes)
        } catch {
            throw CommandFailure(message: "the stamped manifest does not read back: \(error)", status: ExitStatus.usage)
        }
        try TrustedKeyOptions.judge(
            &manifest, bytes: bytes, argument: output!, channels: [audience!], store: judge.store, keeping: true, logger: common.logger)
        manifest.holdBackUnpinned()
        return try await judge.judge(manifest)
    }

    /// The versions file first, then the manifest, then its signature: a
    /// crash between them skips a version, never signs one twice.
    private func write(_ signed: Signed, versions: SignedVersions) throws(CommandFailure) {
        let entry = SignedVersions.Entry(
            version: signed.stamp.version!, sha256: IntegrityPin.sha256Hex(signed.bytes), signedAt: RFC3339Date.format(signed.stamp.signedAt!))
        do {
            try versions.record(entry, for: audience!)
        } catch {
            throw CommandFailure(message: "nothing was written: \(error)", status: ExitStatus.storage)
        }
        for (path, data) in [(output!, signed.bytes), (output! + ".sig", signed.signature)] {
            do throws(FileSystem.Failure) {
                try ReplacedFile(path: path).replace(with: data, mode: 0o644)
            } catch {
                throw CommandFailure(message: "cannot write \(path): \(error)", status: ExitStatus.storage)
            }
        }
    }
}
