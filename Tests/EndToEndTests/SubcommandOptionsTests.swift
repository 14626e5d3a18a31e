import Foundation
import Testing

/// Every option a subcommand's help offers does what it says there (issue 16,
/// point 4): each is run and its effect checked, here or in the suite named in
/// `elsewhere`, and the help offers nothing more.
@Suite struct SubcommandOptionsTests {
    static let common: Set = ["--cache-dir", "--quiet", "--log-level"]
    static let exercised: [String: Set<String>] = [
        "run": common.union(["--json", "--verbose", "--offline", "--budget", "--per-host", "--max-unpacked-size"]),
        "plan": common.union(["--json", "--verbose"]),
        "status": common.union(["--json"]),
        "verify": common.union(["--json", "--repair", "--wait"]),
        "gc": common.union(["--json", "--wait"]),
        "simulate": common.union(["--json", "--events"]),
    ]
    /// Every subcommand's, checked in another suite.
    static let commonElsewhere = ["--config": "ConfigFileTests", "--no-config": "ConfigFileTests"]
    static let elsewhere: [String: [String: String]] = [
        "run": [
            "--concurrency": "ProgressTests", "--wait": "CrashSafetyTests", "--max-run-time": "InterruptionTests",
            "--max-asset-size": "ServerFaultTests", "--retries": "ServerFaultTests", "--connect-timeout": "ServerFaultTests",
            "--stall-timeout": "ServerFaultTests", "--max-time": "ServerFaultTests", "--max-redirs": "ServerFaultTests",
            "--cacert": "PrivateCATests", "--header": "ManifestHeaderTests", "--limit-rate": "LimitRateTests",
            "--trusted-key": "SignedManifestTests", "--metrics-file": "MetricsFileTests",
            "--audience": "ManifestFreshnessTests", "--require-integrity": "DowngradeAndSecretsTests",
            "--allow-keylog": "DowngradeAndSecretsTests",
            "--scrub-bytes": "ScrubTests", "--scrub-percent": "ScrubTests", "--head-start": "HeadStartTests",
            "--max-download-bytes": "ByteBudgetTests", "--metered": "MeteredTests", "--metered-max-asset-bytes": "MeteredTests",
            "--jitter": "JitterTests", "--no-delta": "DeltaRefreshTests",
            "--link-wait": "LinkDownTests", "--strict": "ManifestWarningTests", "--min-free": "FreeSpaceFloorTests",
        ],
        "plan": [
            "--trusted-key": "SignedManifestTests", "--audience": "ManifestFreshnessTests",
            "--require-integrity": "DowngradeAndSecretsTests", "--strict": "ManifestWarningTests",
        ],
        "simulate": ["--min-interval": "SimulateTests", "--orientation": "SimulateTests", "--start-time": "SimulateTests"],
        "gc": ["--budget": "LeaseTests"],
        "status": ["--min-free": "FreeSpaceFloorTests"],
        "lease": [
            "--cache-dir": "LeaseCommandTests", "--quiet": "LeaseCommandTests", "--log-level": "LeaseCommandTests",
            "--wait": "ReaderHostageTests",
        ],
        "session-start": ["--request-dir": "SessionStartTests", "--consume": "SessionStartTests", "--quiet": "SessionStartTests"],
    ]
    /// Subcommands that read no configuration file, so take no --config.
    static let unconfigured: Set = ["session-start"]

    @Test(arguments: ["run", "plan", "status", "verify", "gc", "lease", "simulate", "session-start"])
    func helpOffersExactlyTheOptionsThatAreChecked(_ command: String) async throws {
        let help = try await CommandRunner.prefetch(["help", command])
        // An option's own line starts with it ("  --json", "  -h, --help"); its help text may name others.
        let offered = Set(help.stdoutText.split(separator: "\n").compactMap { line -> String? in
            let words = line.split(separator: " ")
            guard words.first?.hasPrefix("-") == true else { return nil }
            return words.first { $0.hasPrefix("--") }.map { String($0.trimmingCharacters(in: [","])) }
        })
        let checked = Self.exercised[command, default: []].union(Self.elsewhere[command, default: [:]].keys)
            .union(Self.unconfigured.contains(command) ? [] : Array(Self.commonElsewhere.keys))
        #expect(offered.subtracting(["--version", "--help"]) == checked, "\(help.stdoutText)")
    }

    @Test func runOptions() async throws {
        let setup = try await OptionsSetup.make()
        let quiet = try await setup.prefetch(["run", setup.manifest, "--cache-dir", setup.cache, "--quiet"])
        #expect(quiet.status == 0 && quiet.stdout.isEmpty && quiet.stderr.isEmpty, "\(quiet.stderr)")

        let json = try await setup.prefetch(["run", setup.manifest, "--cache-dir", setup.cache, "--json"])
        #expect(try json.report().totals.ready == 2)
        #expect(json.stderr.contains(OptionsSetup.skipWarning))
        let silent = try await setup.prefetch(["run", setup.manifest, "--cache-dir", setup.cache, "--log-level", "error"])
        #expect(silent.status == 0 && !silent.stderr.contains(OptionsSetup.skipWarning))
        let verbose = try await setup.prefetch(["run", setup.manifest, "--cache-dir", setup.cache, "--verbose"])
        #expect(verbose.stdoutText.contains(" image ") && verbose.stdoutText.contains(" bundle"), "\(verbose.stdoutText)")

        setup.server.resetLog()
        let offline = try await setup.prefetch(["run", setup.manifest, "--cache-dir", setup.scratch.path("empty"), "--offline", "--json"])
        #expect(offline.status == 1 && setup.server.requests().isEmpty)
        #expect(try offline.report().assets.allSatisfy { $0.error?.kind == "offline_miss" })

        let budget = try await setup.prefetch(["run", setup.manifest, "--cache-dir", setup.cache, "--budget", "1K", "--quiet"])
        #expect(budget.status == 0)
        let status = try await setup.prefetch(["status", "--cache-dir", setup.cache, "--json"])
        #expect(try status.jsonObject()["budget"] as? Int == 1024)

        let unpacked = try await setup.prefetch(["run", setup.manifest, "--cache-dir", setup.scratch.path("small"), "--max-unpacked-size", "10", "--json"])
        #expect(try unpacked.report().message("bundle")?.status == "discarded")
        #expect(try unpacked.report().message("image")?.status == "ready")
        try await setup.server.stop()
    }

    @Test func perHostLimitsTransfersToOneHost() async throws {
        let setup = try await OptionsSetup.make()
        let slow = try setup.scratch.write("slow.json", try manifestJSON((1...4).map { index in
            inapp("m\(index)", ["type": "MODAL", "image_url": setup.server.url("img/rgb.png?delay_ms=100&n=\(index)")])
        }))
        let result = try await setup.prefetch(["run", slow, "--cache-dir", setup.cache, "--per-host", "1", "--quiet"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(setup.server.requests().count == 4)
        #expect(setup.server.peakInFlight == 1)
        try await setup.server.stop()
    }

    @Test func planOptions() async throws {
        let setup = try await OptionsSetup.make()
        #expect(try await setup.prefetch(["run", setup.manifest, "--cache-dir", setup.cache, "--quiet"]).status == 0)
        try await setup.server.stop()
        let plan = ["plan", setup.manifest, "--cache-dir", setup.cache]

        let text = try await setup.prefetch(plan)
        #expect(text.status == 0 && text.stdoutText.hasPrefix("2 messages: 2 ready") && text.stderr.contains(OptionsSetup.skipWarning))
        #expect(!text.stdoutText.contains(" image "), "only discarded messages are listed")
        #expect(try await setup.prefetch(plan + ["--verbose"]).stdoutText.contains(" image "))
        #expect(try await setup.prefetch(plan + ["--json"]).report().totals.ready == 2)
        let quiet = try await setup.prefetch(plan + ["--quiet"])
        #expect(quiet.status == 0 && quiet.stdout.isEmpty && quiet.stderr.isEmpty)
        let silent = try await setup.prefetch(plan + ["--log-level", "error"])
        #expect(silent.status == 0 && !silent.stderr.contains(OptionsSetup.skipWarning))
        // An empty cache directory: nothing cached. A missing one: a typo to say.
        try FileManager.default.createDirectory(atPath: setup.scratch.path("empty"), withIntermediateDirectories: true)
        let elsewhere = try await setup.prefetch(["plan", setup.manifest, "--cache-dir", setup.scratch.path("empty"), "--json"])
        #expect(elsewhere.status == 1)
        #expect(try elsewhere.report().totals.discarded == 2)
        let typo = try await setup.prefetch(["plan", setup.manifest, "--cache-dir", setup.scratch.path("typo"), "--json"])
        #expect(typo.status == 2)
        #expect(typo.stderr.contains("no cache at '\(setup.scratch.path("typo"))': the directory does not exist"))
    }

    @Test func simulateOptions() async throws {
        let setup = try await OptionsSetup.make()
        #expect(try await setup.prefetch(["run", setup.manifest, "--cache-dir", setup.cache, "--quiet"]).status == 0)
        try await setup.server.stop()
        let events = try setup.scratch.write("events.jsonl", "{\"at\": 0, \"event\": \"session_start\"}\n{\"at\": 1, \"event\": \"dismiss\"}\n")
        let simulate = ["simulate", setup.manifest, "--events", events, "--start-time", "1767225600", "--cache-dir", setup.cache]

        let json = try await setup.prefetch(simulate + ["--json"])
        let lines = json.stdoutText.split(separator: "\n")
        #expect(json.status == 0 && !lines.isEmpty)
        for line in lines { #expect(try JSONSerialization.jsonObject(with: Data(line.utf8)) is [String: Any]) }
        #expect(lines.first?.contains("\"displayed\"") == true, "a message is shown from the cache: \(json.stdoutText)")
        let uncached = try await setup.prefetch(simulate.dropLast() + [setup.scratch.path("none"), "--json"])
        #expect(!uncached.stdoutText.contains("\"displayed\""), "\(uncached.stdoutText)")
        let quiet = try await setup.prefetch(simulate + ["--quiet"])
        #expect(quiet.status == 0 && quiet.stdout.isEmpty && quiet.stderr.isEmpty)
        #expect(try await setup.prefetch(simulate).stderr.contains(OptionsSetup.skipWarning))
        let silent = try await setup.prefetch(simulate + ["--log-level", "error"])
        #expect(silent.status == 0 && !silent.stderr.contains(OptionsSetup.skipWarning))
    }
}
