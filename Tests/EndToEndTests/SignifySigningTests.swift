import AssetCache
import Foundation
import Testing

/// The publisher's signing key: keys made by `signify-openbsd -G` itself (one
/// with a passphrase, typed at a pseudo-terminal as a person would), opened
/// by SignifySecretKey, and signatures that `signify-openbsd -V` verifies.
@Suite struct SignifySigningTests {
    static let message = Data(#"{"triggers": [], "version": 7}"#.utf8)

    /// Writes `message` beside the key, and its signature by `key`.
    static func sign(with key: SignifySecretKey, in scratch: Scratch) throws -> (message: String, signature: String) {
        let message = try scratch.write("manifest.json", String(decoding: Self.message, as: UTF8.self))
        try key.signature(for: Self.message).write(to: URL(fileURLWithPath: message + ".sig"))
        return (message, message + ".sig")
    }

    static func privateFile(_ scratch: Scratch, _ name: String, _ text: String) throws -> String {
        let path = try scratch.write(name, text)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        return path
    }

    @Test func signsAsSignifyDoesWithAKeyWithoutPassphrase() async throws {
        let scratch = try Scratch()
        let pair = try await SignifyKeyPair.make("publisher", in: scratch)
        let key = try SignifySecretKey.load(path: pair.secretKey, passphrase: .notGiven)
        let (message, signature) = try Self.sign(with: key, in: scratch)

        let verified = try await SystemTool.run("signify-openbsd", ["-V", "-p", pair.publicKey, "-m", message, "-x", signature])
        #expect(String(decoding: verified.stdout, as: UTF8.self) == "Signature Verified\n")
        try await pair.sign(message, signature: scratch.path("signify.sig"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: signature)) == Data(contentsOf: URL(fileURLWithPath: scratch.path("signify.sig"))))
        #expect(try String(contentsOfFile: signature, encoding: .utf8).hasPrefix("untrusted comment: verify with publisher.pub\n"))
    }

    @Test func opensAKeySealedWithAPassphraseOnlyWithThatPassphrase() async throws {
        let scratch = try Scratch()
        let (publicKey, secretKey) = (scratch.path("sealed.pub"), scratch.path("sealed.sec"))
        try await SignifyTerminal.answer("correct horse", "signify-openbsd", ["-G", "-c", "sealed", "-p", publicKey, "-s", secretKey])
        let right = try Self.privateFile(scratch, "passphrase", "correct horse\n")
        let key = try SignifySecretKey.load(path: secretKey, passphrase: .file(right))
        let (message, signature) = try Self.sign(with: key, in: scratch)
        let verified = try await SystemTool.run("signify-openbsd", ["-V", "-p", publicKey, "-m", message, "-x", signature])
        #expect(String(decoding: verified.stdout, as: UTF8.self) == "Signature Verified\n")

        let wrong = try Self.privateFile(scratch, "wrong", "correct horse battery\n")
        #expect(throws: SignifySecretKeyError.wrongPassphrase(path: secretKey)) {
            try SignifySecretKey.load(path: secretKey, passphrase: .file(wrong))
        }
        #expect(throws: SignifySecretKeyError.passphrase("the key is protected by a passphrase, and none was given")) {
            try SignifySecretKey.load(path: secretKey, passphrase: .notGiven)
        }
        let empty = try Self.privateFile(scratch, "empty", "\n")
        #expect(throws: SignifySecretKeyError.passphrase("it is empty")) {
            try SignifySecretKey.load(path: secretKey, passphrase: .file(empty))
        }
    }

    @Test func namesWhatIsWrongWithAFileThatIsNoSecretKey() async throws {
        let scratch = try Scratch()
        let pair = try await SignifyKeyPair.make("mixed", in: scratch)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: pair.publicKey)
        let error = #expect(throws: SignifySecretKeyError.self) {
            try SignifySecretKey.load(path: pair.publicKey, passphrase: .notGiven)
        }
        #expect(error?.description == "'\(pair.publicKey)' is not a signify secret key: its second line decodes to 42 bytes, not 104")
    }

    @Test func refusesAKeyOthersCanReadOrALinkToOne() async throws {
        let scratch = try Scratch()
        let pair = try await SignifyKeyPair.make("open", in: scratch)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: pair.secretKey)
        let error = #expect(throws: SignifySecretKeyError.self) {
            try SignifySecretKey.load(path: pair.secretKey, passphrase: .notGiven)
        }
        #expect(error?.description == "secret key '\(pair.secretKey)' is readable by others (mode 644): a signing key must be private to its owner")
        #expect(error?.hint == "chmod 600 '\(pair.secretKey)'")

        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: pair.secretKey)
        try FileManager.default.createSymbolicLink(atPath: scratch.path("link.sec"), withDestinationPath: pair.secretKey)
        #expect(throws: SignifySecretKeyError.unreadable(path: scratch.path("link.sec"), reason: "it is a symbolic link; name the file itself")) {
            try SignifySecretKey.load(path: scratch.path("link.sec"), passphrase: .notGiven)
        }
    }
}

/// signify reads a passphrase from /dev/tty only, and flushes what was typed
/// ahead (TCSAFLUSH): Python's pty module gives it a terminal and answers each
/// "passphrase:" prompt once it is shown, as a person would.
enum SignifyTerminal {
    static let script = """
        import os, pty, signal, sys
        # A program that never asks, or never ends, fails the test instead of hanging it.
        signal.alarm(120)
        answer = sys.argv[1].encode() + b"\\n"
        pid, fd = pty.fork()
        if pid == 0:
            os.execvp(sys.argv[2], sys.argv[2:])
        seen = b""
        while True:
            try:
                chunk = os.read(fd, 1024)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
            while b"passphrase:" in seen:
                seen = seen.split(b"passphrase:", 1)[1]
                os.write(fd, answer)
        sys.exit(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
        """

    static func answer(_ passphrase: String, _ tool: String, _ arguments: [String]) async throws {
        try await SystemTool.run("python3", ["-c", script, passphrase, try SystemTool.location(of: tool).path] + arguments)
    }
}
