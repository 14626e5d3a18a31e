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

/// The MANIFEST argument: a path, `-` for stdin, or an http(s) URL.
struct ManifestSource {
    var argument: String

    var isRemote: Bool {
        let lower = argument.lowercased()
        return lower.hasPrefix("http://") || lower.hasPrefix("https://")
    }

    /// With `trustedKeys`, the manifest's signature (MANIFEST.sig) is checked
    /// against its bytes before anything is read from them. The bytes come back
    /// too, for the checks that need the cache (``TrustedKeyOptions/judge``).
    func loadLocal(trustedKeys: TrustedKeys? = nil) throws(CommandFailure) -> (manifest: Manifest, bytes: Data) {
        if trustedKeys != nil, argument == "-" {
            throw CommandFailure(
                message: "a manifest on stdin cannot be checked against --trusted-key: no signature lies beside it; save it to a file with its .sig next to it, or pass its URL",
                status: ExitStatus.usage)
        }
        let data: Data
        if argument == "-" {
            data = readBytes(from: STDIN_FILENO, limit: Manifest.maxSize + 1) ?? Data()
        } else {
            data = try Self.readFile(argument)
        }
        if let trustedKeys {
            let signaturePath = argument + ".sig"
            let signature = FileManager.default.fileExists(atPath: signaturePath)
                ? readSmallFile(signaturePath, limit: 64 * 1024) : nil
            do {
                try trustedKeys.verify(data, signature: signature, name: signaturePath)
            } catch {
                throw Self.refusal(argument, error)
            }
        }
        do {
            return (try Manifest.decode(data), data)
        } catch {
            throw CommandFailure(message: "\(argument): \(error); correct it there and run again", status: ExitStatus.usage)
        }
    }

    /// The copy of a URL's manifest that `run URL` stored, for `plan`: read
    /// from the cache, never from the network; exit 2 when none is stored.
    func loadStored(from store: CacheStore?, cacheDirectory: String, trustedKeys: TrustedKeys?) throws(CommandFailure) -> (manifest: Manifest, bytes: Data) {
        var stored: (manifest: Manifest, bytes: Data)?
        do throws(RemoteManifest.Failure) {
            if let store { stored = try RemoteManifest.stored(argument, store: store, trustedKeys: trustedKeys) }
        } catch {
            switch error {
            case .refused(let refusal): throw Self.refusal(argument, refusal)
            case .untrusted(let refusal): throw Self.refusal(argument, refusal)
            case .signatureUnavailable: throw CommandFailure(message: "\(argument): manifest refused: \(error)", status: ExitStatus.usage)
            case .invalid: throw CommandFailure(message: "\(argument): the stored copy is not a valid manifest: \(error); run `prefetch run \(argument)` to fetch it again", status: ExitStatus.usage)
            case .unavailable, .storage: throw CommandFailure(message: "\(argument): \(error)", status: ExitStatus.usage)
            }
        }
        guard let stored else {
            throw CommandFailure(
                message: "no copy of \(argument) is stored in \(cacheDirectory): run `prefetch run \(argument)` first (plan makes no request)",
                status: ExitStatus.usage)
        }
        return stored
    }

    /// What the readiness index says of a local manifest: its absolute path
    /// (none for stdin) and its bytes' SHA-256. Only `run` writes an index, so
    /// only `run` pays for the hash.
    func indexed(_ bytes: Data, signed: Bool) -> IndexedManifest {
        .local(path: argument == "-" ? nil : URL(fileURLWithPath: argument).standardizedFileURL.path, bytes: bytes, signed: signed)
    }

    func fetch(
        into store: CacheStore, limits: TransferLimits, headers: [HeaderArgument], channels: [String],
        trustedKeys: TrustedKeys?, runDeadline: RunDeadline?, offline: Bool, logger: Logger
    ) async throws(CommandFailure) -> Manifest {
        if !headers.isEmpty {
            let names = headers.map(\.name).joined(separator: ", ")
            logger.debug("requesting the manifest with --header \(names) (values not logged)")
        }
        do {
            return try await RemoteManifest.fetch(
                argument, store: store, limits: limits, headers: headers.map(\.line), trustedKeys: trustedKeys,
                channels: channels, runDeadline: runDeadline, offline: offline, logger: logger)
        } catch {
            let status = switch error {
            case .unavailable, .signatureUnavailable: ExitStatus.manifestUnavailable
            case .invalid, .refused, .untrusted: ExitStatus.usage
            case .storage: ExitStatus.storage
            }
            let advice = switch error {
            case .unavailable: "; check the URL and the network (the cache was not changed)"
            case .signatureUnavailable: "; publish the signature beside the manifest, or check the network (the cache was not changed)"
            case .refused(let refusal): throw Self.refusal(argument, refusal)
            case .untrusted(let refusal): throw Self.refusal(argument, refusal)
            case .invalid: "; correct it on the server and run again"
            case .storage: "; free some disk space or fix the cache directory's permissions, then run again"
            }
            let prefix = if case .signatureUnavailable = error { "manifest refused: " } else { "" }
            throw CommandFailure(message: "\(argument): \(prefix)\(error)\(advice)", status: status)
        }
    }

    /// The file whole (``InputFile``), refused before it is read when it is over
    /// the size limit.
    private static func readFile(_ path: String) throws(CommandFailure) -> Data {
        let (fd, info): (Int32, stat)
        switch InputFile.open(path) {
        case .success(let opened): (fd, info) = opened
        case .failure(let refusal): throw InputFile.failure(refusal, reading: .manifest, path)
        }
        defer { close(fd) }
        if info.st_size > Manifest.maxSize {
            throw CommandFailure(message: "\(path): invalid manifest: it is \(info.st_size) bytes, over the limit of \(Manifest.maxSize); ask the server for a smaller one", status: ExitStatus.usage)
        }
        guard let data = readBytes(from: fd, limit: Manifest.maxSize + 1, expected: Int(info.st_size)) else {
            throw CommandFailure(message: "cannot read the manifest '\(path)': \(String(cString: strerror(errno))); check the path, or pass '-' to read stdin", status: ExitStatus.usage)
        }
        return data
    }

    /// A manifest whose signature does not vouch for it, or that is not the
    /// newest or not for this device: exit 2, the cause named.
    static func refusal(_ argument: String, _ error: some Error) -> CommandFailure {
        CommandFailure(message: "\(argument): manifest refused: \(error) (the cache was not changed)", status: ExitStatus.usage)
    }
}

extension InputFile.Name {
    static let manifest = InputFile.Name(name: "the manifest", file: "the manifest file (or '-' for stdin)")
}
