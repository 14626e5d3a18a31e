import FixtureServer
import Foundation
import Testing

/// Issue 28, the package's own configuration: prefetch.conf names the manifest,
/// the cache and the limits, keys.d beside it the keys that vouch for the
/// manifest, so an operator never edits the unit. Flags win over the
/// environment, the environment over the file; a file anyone else could write,
/// a link, an unknown key or a bad value is exit 2 naming the file and line.
@Suite struct ConfigFileTests {
    struct Setup {
        let scratch: Scratch
        let server: FixtureServer
        let publisher: SignifyKeyPair
        let manifestURL: String
        let unsignedURL: String
        /// Where prefetch.conf and keys.d live: a stand-in for /etc/prefetch.
        var etc: String { scratch.path("etc") }
        var config: String { scratch.path("etc/prefetch.conf") }
        var keys: String { scratch.path("etc/keys.d") }

        static func make() async throws -> Setup {
            let scratch = try Scratch()
            let www = scratch.path("www")
            let names = try writeStyleSheets(2, in: www)
            let server = try await FixtureServer.start(root: www)
            let publisher = try await SignifyKeyPair.make("publisher", in: scratch)
            let text = try manifestJSON(htmlMessages(names, server: server.url), signed: SignedFields())
            try Data(text.utf8).write(to: URL(fileURLWithPath: "\(www)/signed.json"))
            try await publisher.sign("\(www)/signed.json")
            try Data(text.utf8).write(to: URL(fileURLWithPath: "\(www)/unsigned.json"))
            try FileManager.default.createDirectory(atPath: scratch.path("etc"), withIntermediateDirectories: true)
            return Setup(
                scratch: scratch, server: server, publisher: publisher,
                manifestURL: server.url("signed.json?cache_control=no-cache"),
                unsignedURL: server.url("unsigned.json?cache_control=no-cache"))
        }

        func writeConfig(_ lines: [String], mode: Int = 0o644) throws {
            try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: config))
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: config)
        }

        func addKey(_ name: String = "publisher.pub", contents: String? = nil) throws {
            try FileManager.default.createDirectory(atPath: keys, withIntermediateDirectories: true)
            let data = try contents.map { Data($0.utf8) } ?? Data(contentsOf: URL(fileURLWithPath: publisher.publicKey))
            try data.write(to: URL(fileURLWithPath: "\(keys)/\(name)"))
        }

        /// `prefetch ARGUMENTS --config etc/prefetch.conf`, as the unit's `prefetch run` with /etc/prefetch.
        func prefetch(_ arguments: [String], environment: [String: String] = [:]) async throws -> CommandResult {
            try await CommandRunner.prefetch(arguments + ["--config", config], environment: environment)
        }
    }

    @Test func configurationNamesTheManifestAndTheCacheAndRunNeedsNoArgument() async throws {
        let setup = try await Setup.make()
        // A relative cache-dir is beside the file, as keys.d is.
        try setup.writeConfig([
            "# what the unit's run uses", "", "manifest = \(setup.unsignedURL)", "cache-dir = cache", "  budget=10M  ",
        ])
        let result = try await setup.prefetch(["run", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try result.report().totals.ready == 2)
        #expect(FileManager.default.fileExists(atPath: "\(setup.etc)/cache/FORMAT"))
        let status = try await setup.prefetch(["status", "--json"])
        #expect(status.status == 0, "\(status.stderr)")
        let state = try #require(try JSONSerialization.jsonObject(with: status.stdout) as? [String: Any])
        #expect(state["budget"] as? Int == 10 << 20, "\(status.stdoutText)")

        // No subcommand at all: run is the default one.
        let bare = try await CommandRunner.prefetch(["--config", setup.config, "--quiet"])
        #expect(bare.status == 0, "\(bare.stderr)")
        try await setup.server.stop()
    }

    @Test func aFlagWinsOverTheEnvironmentWhichWinsOverTheFile() async throws {
        let setup = try await Setup.make()
        try setup.writeConfig(["manifest = \(setup.unsignedURL)", "cache-dir = \(setup.scratch.path("from-file"))"])
        let flag = try await setup.prefetch(["run", "--quiet", "--cache-dir", setup.scratch.path("from-flag")],
                                            environment: ["PREFETCH_CACHE_DIR": setup.scratch.path("from-env")])
        #expect(flag.status == 0, "\(flag.stderr)")
        let environment = try await setup.prefetch(["run", "--quiet"], environment: ["PREFETCH_CACHE_DIR": setup.scratch.path("from-env")])
        #expect(environment.status == 0, "\(environment.stderr)")
        #expect(setup.scratch.listing().filter { $0.hasPrefix("from-") && !$0.contains("/") } == ["from-env", "from-flag"])

        // The manifest named on the command line wins over the file's: this one does not exist.
        let named = try await setup.prefetch(["run", setup.scratch.path("missing.json")])
        #expect(named.status == 2)
        #expect(named.stderr.contains("missing.json"), "\(named.stderr)")
        try await setup.server.stop()
    }

    @Test func anUnknownKeyOrABadValueIsExitTwoNamingTheFileAndLine() async throws {
        let setup = try await Setup.make()
        try setup.writeConfig(["# a comment", "manifest = \(setup.unsignedURL)", "budegt = 10M"])
        for command in ["run", "status", "gc"] {
            let result = try await setup.prefetch([command])
            #expect(result.status == 2, "\(command): \(result.stderr)")
            #expect(result.stderr.contains("prefetch: error: \(setup.config):3: unknown key 'budegt'; did you mean 'budget'?"), "\(result.stderr)")
        }
        try setup.writeConfig(["budget = lots"])
        let value = try await setup.prefetch(["status"])
        #expect(value.status == 2)
        #expect(value.stderr.contains("\(setup.config):1: 'budget' takes a whole number of bytes, or one with a K, M or G suffix"), "\(value.stderr)")
        #expect(value.stderr.contains("not 'lots'"), "\(value.stderr)")
        try setup.writeConfig(["manifest \(setup.unsignedURL)"])
        let noEquals = try await setup.prefetch(["status"])
        #expect(noEquals.status == 2)
        #expect(noEquals.stderr.contains("\(setup.config):1: no '='"), "\(noEquals.stderr)")
        #expect(setup.server.requests().isEmpty)
        try await setup.server.stop()
    }

    /// Issue 36: a boolean takes the words people write, every boolean the
    /// same ones; a size takes what its flag takes; an error names the key,
    /// never the internal flag a key became.
    @Test func valuesTakeTheWordsUsersWriteAndAnErrorNamesTheAcceptedForms() async throws {
        let setup = try await Setup.make()
        let cache = setup.scratch.path("cache")
        try setup.writeConfig([])
        #expect(try await setup.prefetch(["run", setup.unsignedURL, "--cache-dir", cache, "--quiet"]).status == 0)
        for (yes, no) in [("yes", "no"), ("true", "false"), ("on", "off"), ("1", "0"), ("Yes", "OFF")] {
            for value in [yes, no] {
                try setup.writeConfig(["delta = \(value)", "metered = \(value)", "require-integrity = \(value)", "strict = \(value)", "budget = 10 MB"])
                let result = try await setup.prefetch(["status", "--cache-dir", cache])
                #expect(result.status == 0, "\(value): \(result.stderr)")
            }
        }
        try setup.writeConfig(["# sizes", "budget = 10 XB"])
        let size = try await setup.prefetch(["status"])
        #expect(size.status == 2)
        #expect(size.stderr.contains("prefetch: error: \(setup.config):2: 'budget' takes a whole number of bytes, or one with a K, M or G suffix in powers of 1024"), "\(size.stderr)")
        try setup.writeConfig(["delta = maybe"])
        let delta = try await setup.prefetch(["status"])
        #expect(delta.status == 2)
        #expect(delta.stderr.contains("\(setup.config):1: 'delta' takes yes or no (true/false, on/off and 1/0 too), not 'maybe'"), "\(delta.stderr)")
        #expect(!delta.stderr.contains("--delta-config"), "\(delta.stderr)")
        try setup.writeConfig(["metered = sometimes"])
        let metered = try await setup.prefetch(["status"])
        #expect(metered.status == 2 && !metered.stderr.contains("--metered-config"), "\(metered.stderr)")
        #expect(metered.stderr.contains("'metered' takes auto, or yes or no"), "\(metered.stderr)")
        try await setup.server.stop()
    }

    @Test func aFileOthersCanWriteOrALinkIsRefused() async throws {
        let setup = try await Setup.make()
        try setup.writeConfig(["manifest = \(setup.unsignedURL)", "cache-dir = cache"], mode: 0o666)
        let everyone = try await setup.prefetch(["run"])
        #expect(everyone.status == 2)
        #expect(everyone.stderr.contains("refusing configuration file '\(setup.config)': it is writable by everyone (mode 666)"), "\(everyone.stderr)")
        try FileManager.default.setAttributes([.posixPermissions: 0o664], ofItemAtPath: setup.config)
        let group = try await setup.prefetch(["status"])
        #expect(group.status == 2)
        #expect(group.stderr.contains("writable by its group"), "\(group.stderr)")

        // Like every input file, a link is not followed, even to a good file.
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: setup.config)
        let link = setup.scratch.path("link.conf")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: setup.config)
        let linked = try await CommandRunner.prefetch(["run", "--config", link])
        #expect(linked.status == 2)
        #expect(linked.stderr.contains("cannot read configuration file '\(link)': it is a symbolic link"), "\(linked.stderr)")
        // A --config that is not there is a mistake; the default files may be absent.
        let missing = try await CommandRunner.prefetch(["status", "--config", setup.scratch.path("nothing.conf")])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("no such readable file"), "\(missing.stderr)")
        #expect(setup.server.requests().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: "\(setup.etc)/cache"))
        try await setup.server.stop()
    }

    @Test func keysDotDVouchesForTheManifestAndAnUnsignedOneIsRefused() async throws {
        let setup = try await Setup.make()
        try setup.addKey()
        // An editor's backup and a note are not keys, and are not read.
        try setup.addKey("publisher.pub~", contents: "not a key")
        try setup.addKey("README", contents: "keys go here")
        try setup.writeConfig(["manifest = \(setup.unsignedURL)", "audience = \(SignedFields.channel)", "cache-dir = cache"])
        // No .sig on the server: refused as a .sig that cannot be fetched is (exit 69).
        let unsigned = try await setup.prefetch(["run", "--json"])
        #expect(unsigned.status == 69, "\(unsigned.stderr)")
        #expect(unsigned.stderr.contains("manifest refused: signature missing"), "\(unsigned.stderr)")
        #expect(unsigned.stdout.isEmpty)
        // Signed, but by a key that keys.d does not hold: exit 2.
        let stranger = try await SignifyKeyPair.make("stranger", in: setup.scratch)
        try await stranger.sign(setup.scratch.path("www/unsigned.json"))
        let foreign = try await setup.prefetch(["run", "--json"])
        #expect(foreign.status == 2, "\(foreign.stderr)")
        #expect(foreign.stderr.contains("manifest refused: unknown key"), "\(foreign.stderr)")
        #expect(!setup.server.requests().contains { $0.target.hasPrefix("/style") }, "a refused manifest's assets were fetched")

        try setup.writeConfig(["manifest = \(setup.manifestURL)", "audience = \(SignedFields.channel)", "cache-dir = cache"])
        let signed = try await setup.prefetch(["run", "--json"])
        #expect(signed.status == 0, "\(signed.stderr)")
        #expect(try signed.report().totals.ready == 2)
        try await setup.server.stop()
    }

    @Test func aKeyFileThatIsNotAKeyIsExitTwoNamingIt() async throws {
        let setup = try await Setup.make()
        try setup.addKey()
        try setup.addKey("old.pub", contents: "untrusted comment: half a key\nRWQ=\n")
        try setup.writeConfig(["manifest = \(setup.manifestURL)", "audience = \(SignedFields.channel)", "cache-dir = cache"])
        let result = try await setup.prefetch(["run"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("trusted key '\(setup.keys)/old.pub' is not a signify public key"), "\(result.stderr)")
        #expect(setup.server.requests().isEmpty)
        // status is the check the README has an operator run after adding a key.
        let status = try await setup.prefetch(["status"])
        #expect(status.status == 2, "\(status.stdoutText)")
        #expect(status.stderr.contains("trusted key '\(setup.keys)/old.pub' is not a signify public key"), "\(status.stderr)")
        // Revoking a key is deleting its file.
        try FileManager.default.removeItem(atPath: "\(setup.keys)/old.pub")
        let revoked = try await setup.prefetch(["run", "--quiet"])
        #expect(revoked.status == 0, "\(revoked.stderr)")
        try await setup.server.stop()
    }

    @Test func noConfigReadsNoFileAndTheUsersFileIsFoundByXDG() async throws {
        let setup = try await Setup.make()
        try setup.writeConfig(["budegt = 10M", "manifest = \(setup.unsignedURL)"])
        let named = ["PREFETCH_CONFIG": setup.config]
        let none = try await CommandRunner.prefetch(
            ["run", setup.unsignedURL, "--no-config", "--quiet", "--cache-dir", setup.scratch.path("cache")], environment: named)
        #expect(none.status == 0, "\(none.stderr)")
        let read = try await CommandRunner.prefetch(["status"], environment: named)
        #expect(read.status == 2, "PREFETCH_CONFIG names the file: \(read.stderr)")
        let noManifest = try await CommandRunner.prefetch(["run", "--no-config", "--cache-dir", setup.scratch.path("cache")], environment: named)
        #expect(noManifest.status == 2)
        #expect(noManifest.stderr.contains("no manifest: give a path, '-' or a URL, or set 'manifest = URL' in /etc/prefetch/prefetch.conf"), "\(noManifest.stderr)")

        // No --config and no PREFETCH_CONFIG: $XDG_CONFIG_HOME/prefetch/prefetch.conf (here, its bad key).
        try FileManager.default.createDirectory(atPath: setup.scratch.path("xdg"), withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: setup.etc, toPath: setup.scratch.path("xdg/prefetch"))
        let user = try await CommandRunner.prefetch(["status"], environment: ["PREFETCH_CONFIG": "", "XDG_CONFIG_HOME": setup.scratch.path("xdg")])
        #expect(user.status == 2)
        #expect(user.stderr.contains("\(setup.scratch.path("xdg/prefetch/prefetch.conf")):1: unknown key 'budegt'"), "\(user.stderr)")
        try await setup.server.stop()
    }

    /// The conffile the package ships sets nothing, and every example in it,
    /// uncommented, is a valid line: an operator who uncomments one gets no exit 2.
    @Test func theShippedFileSetsNothingAndItsExamplesAreValid() async throws {
        let scratch = try Scratch()
        let shipped = Package.root.appendingPathComponent("contrib/debian/prefetch.conf").path
        let text = try String(contentsOfFile: shipped, encoding: .utf8)
        let examples = text.split(separator: "\n").filter { $0.hasPrefix("#") && $0.contains(" = ") && !$0.hasPrefix("# ") }.map { $0.dropFirst() }
        #expect(examples.count >= 10, "\(examples)")
        #expect(!text.split(separator: "\n").contains { !$0.hasPrefix("#") && !$0.isEmpty })
        try FileManager.default.createDirectory(atPath: scratch.path("cache"), withIntermediateDirectories: true)
        let uncommented = try scratch.write("prefetch.conf", examples.joined(separator: "\n") + "\n")
        for config in [shipped, uncommented] {
            let result = try await CommandRunner.prefetch(["status", "--config", config, "--cache-dir", scratch.path("cache")])
            #expect(result.status == 0, "\(config): \(result.stderr)")
        }
    }
}
