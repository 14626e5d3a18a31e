import Foundation

/// The system tools the trust tests use as publishers and operators do:
/// openssl for a private CA, signify-openbsd for signed manifests. `make test`
/// installs both; a missing one fails the test, naming it, instead of skipping.
enum SystemTool {
    @discardableResult
    static func run(_ name: String, _ arguments: [String], in directory: URL? = nil) async throws -> CommandResult {
        let result = try await CommandRunner.run(try location(of: name), arguments, in: directory)
        guard result.status == 0 else { throw ToolFailure(name: name, arguments: arguments, result: result) }
        return result
    }

    /// Where `name` is on the PATH (or in /usr/bin, /bin).
    static func location(of name: String) throws -> URL {
        let search = (ProcessInfo.processInfo.environment["PATH"] ?? "") + ":/usr/bin:/bin"
        guard let path = search.split(separator: ":").map({ "\($0)/\(name)" }).first(where: FileManager.default.isExecutableFile(atPath:)) else {
            throw MissingTool(name: name)
        }
        return URL(fileURLWithPath: path)
    }

    struct MissingTool: Error, CustomStringConvertible {
        var name: String
        var description: String { "\(name) is not installed: `make test` installs it (apt-get install \(name))" }
    }

    struct ToolFailure: Error, CustomStringConvertible {
        var name: String
        var arguments: [String]
        var result: CommandResult
        var description: String { "\(name) \(arguments.joined(separator: " ")) exited \(result.status): \(result.stderr)" }
    }
}

/// A private CA and a server certificate it issued for 127.0.0.1, made by
/// openssl in `scratch`, as an operator's PKI would make them.
struct TestCertificates {
    let caCertificate: String
    let serverCertificate: String
    let serverKey: String

    static func make(in scratch: Scratch) async throws -> TestCertificates {
        let dir = scratch.url
        try await SystemTool.run("openssl", [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=AssetCache Test CA",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        ], in: dir)
        try await SystemTool.run("openssl", [
            "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1",
        ], in: dir)
        _ = try scratch.write("server.ext", "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n")
        try await SystemTool.run("openssl", [
            "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
            "-out", "server.pem", "-days", "2", "-extfile", "server.ext",
        ], in: dir)
        return TestCertificates(
            caCertificate: scratch.path("ca.pem"), serverCertificate: scratch.path("server.pem"), serverKey: scratch.path("server.key"))
    }
}

/// A publisher's signify key pair, made with `signify-openbsd -G`.
struct SignifyKeyPair {
    let publicKey: String
    let secretKey: String

    static func make(_ name: String, in scratch: Scratch) async throws -> SignifyKeyPair {
        let pair = SignifyKeyPair(publicKey: scratch.path("\(name).pub"), secretKey: scratch.path("\(name).sec"))
        try await SystemTool.run("signify-openbsd", ["-G", "-n", "-c", "\(name) test key", "-p", pair.publicKey, "-s", pair.secretKey])
        return pair
    }

    /// `signify-openbsd -S`: writes `file.sig` beside `file` (or to `signature`).
    func sign(_ file: String, signature: String? = nil) async throws {
        try await SystemTool.run("signify-openbsd", ["-S", "-s", secretKey, "-m", file, "-x", signature ?? file + ".sig"])
    }
}
