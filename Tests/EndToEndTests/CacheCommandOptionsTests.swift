import Foundation
import Testing

/// `status`, `verify` and `gc` with each of their options (see
/// SubcommandOptionsTests for the list): JSON that parses and agrees with the
/// text, nothing on stdout with `--quiet`, warnings only at their log level,
/// `--wait` waiting for a lock another run holds.
@Suite struct CacheCommandOptionsTests {
    static func filled() async throws -> OptionsSetup {
        let setup = try await OptionsSetup.make()
        #expect(try await setup.prefetch(["run", setup.manifest, "--cache-dir", setup.cache, "--quiet"]).status == 0)
        try await setup.server.stop()
        return setup
    }

    @Test func statusOptions() async throws {
        let setup = try await Self.filled()
        let text = try await setup.prefetch(["status", "--cache-dir", setup.cache])
        #expect(text.stdoutText.contains("cache   \(setup.cache)") && text.stdoutText.contains("2 refs"), "\(text.stdoutText)")
        let json = try await setup.prefetch(["status", "--cache-dir", setup.cache, "--json"]).jsonObject()
        #expect(json["refs"] as? Int == 2 && json["exists"] as? Bool == true)
        let quiet = try await setup.prefetch(["status", "--cache-dir", setup.cache, "--quiet"])
        #expect(quiet.status == 0 && quiet.stdout.isEmpty)
        try await expectWarningsFollowTheLogLevel(setup, ["status"])
    }

    /// Issue 36: status ends with what to do next, when there is something.
    @Test func statusEndsWithTheNextStep() async throws {
        let setup = try await OptionsSetup.make()
        let cache = setup.scratch.path("next")
        try FileManager.default.createDirectory(atPath: cache, withIntermediateDirectories: true)
        #expect(try await setup.prefetch(["gc", "--cache-dir", cache]).status == 0)
        let empty = try await setup.prefetch(["status", "--cache-dir", cache])
        #expect(empty.status == 0 && empty.stdoutText.hasSuffix("\nnext    'prefetch run MANIFEST' fills the cache\n"), "\(empty.stdoutText)")

        let missing = try setup.scratch.write("missing.json", try manifestJSON([
            inapp("gone", ["type": "MODAL", "image_url": setup.server.url("img/missing.png")]),
        ]))
        #expect(try await setup.prefetch(["run", missing, "--cache-dir", cache, "--quiet", "--retries", "0"]).status == 1)
        try await setup.server.stop()
        let discarded = try await setup.prefetch(["status", "--cache-dir", cache])
        #expect(discarded.stdoutText.hasSuffix("\nnext    'prefetch ready' says why 1 message was discarded\n"), "\(discarded.stdoutText)")

        // The last run ended two hours ago: one is due.
        let state = "\(cache)/state.json"
        var json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: state))) as? [String: Any])
        var lastRun = try #require(json["last_run"] as? [String: Any])
        lastRun["finished_at"] = Date().timeIntervalSince1970 - 7200
        json["last_run"] = lastRun
        try JSONSerialization.data(withJSONObject: json).write(to: URL(fileURLWithPath: state))
        let due = try await setup.prefetch(["status", "--cache-dir", cache])
        #expect(due.stdoutText.contains("\nnext    a run is due: the last ended 2 h ago; "), "\(due.stdoutText)")
    }

    /// Issue 36: a run that failed after taking the lock leaves no last run;
    /// `status` says it failed, why, and what to do, until a run finishes.
    @Test func statusSaysTheLastRunFailedAndWhy() async throws {
        let setup = try await Self.filled()
        let url = setup.server.url("manifest.json")
        let failed = try await setup.prefetch(["run", url, "--cache-dir", setup.cache, "--quiet", "--retries", "0"])
        #expect(failed.status == 69, "\(failed.stderr)")
        let text = try await setup.prefetch(["status", "--cache-dir", setup.cache])
        let lines = text.stdoutText.split(separator: "\n").map(String.init)
        let failure = try #require(lines.first { $0.hasPrefix("failed  ") }, "\(text.stdoutText)")
        #expect(failure.contains(", exit 69: ") && failure.contains("manifest.json"), "\(failure)")
        #expect(lines.last?.hasPrefix("next    fix what the error names, then 'prefetch run'") == true, "\(text.stdoutText)")
        let json = try await setup.prefetch(["status", "--cache-dir", setup.cache, "--json"]).jsonObject()
        let recorded = try #require(json["last_failure"] as? [String: Any])
        #expect(recorded["exit_status"] as? Int == 69 && (recorded["message"] as? String)?.isEmpty == false)
        #expect(json["last_run"] is [String: Any])

        // A run that finishes clears it.
        #expect(try await setup.prefetch(["run", setup.manifest, "--cache-dir", setup.cache, "--quiet", "--offline"]).status == 0)
        let cleared = try await setup.prefetch(["status", "--cache-dir", setup.cache, "--json"]).jsonObject()
        #expect(cleared["last_failure"] is NSNull)
        let clearedText = try await setup.prefetch(["status", "--cache-dir", setup.cache])
        #expect(!clearedText.stdoutText.contains("failed  "), "\(clearedText.stdoutText)")
    }

    @Test func verifyOptions() async throws {
        let setup = try await Self.filled()
        let text = try await setup.prefetch(["verify", "--cache-dir", setup.cache])
        let json = try await setup.prefetch(["verify", "--cache-dir", setup.cache, "--json"]).jsonObject()
        func count(_ key: String, _ noun: String) -> String {
            let value = json[key] as? Int ?? -1
            return "\(value) \(noun)\(value == 1 ? "" : "s")"
        }
        let counts = "ok: \(count("objects", "object")), \(count("trees", "tree")), \(count("refs", "ref")) verified"
        #expect(text.status == 0 && text.stdoutText == counts + "\n" && json["ok"] as? Bool == true)
        let quiet = try await setup.prefetch(["verify", "--cache-dir", setup.cache, "--quiet"])
        #expect(quiet.status == 0 && quiet.stdout.isEmpty && quiet.stderr.isEmpty)

        // A damaged object: the same finding in both forms, then repaired.
        let damaged = try setup.copyOfCache("damaged")
        let objects = damaged + "/objects"
        let shard = try #require(try FileManager.default.contentsOfDirectory(atPath: objects).sorted().first)
        let object = try #require(try FileManager.default.contentsOfDirectory(atPath: "\(objects)/\(shard)").first)
        try Data("not what it was".utf8).write(to: URL(fileURLWithPath: "\(objects)/\(shard)/\(object)"))
        let found = try await setup.prefetch(["verify", "--cache-dir", damaged])
        let report = try await setup.prefetch(["verify", "--cache-dir", damaged, "--json"])
        let problems = try #require(try report.jsonObject()["problems"] as? [[String: Any]])
        #expect(found.status == 1 && report.status == 1 && !problems.isEmpty)
        for problem in problems {
            let line = "prefetch: error: \(problem["path"] as? String ?? "?"): \(problem["problem"] as? String ?? "?")"
            #expect(found.stderr.contains(line), "\(line) not in \(found.stderr)")
            #expect((problem["repair_removes"] as? [String])?.isEmpty == false && problem["removed"] as? Bool == false)
        }
        #expect(problems.contains { $0["kind"] as? String == "object_corrupt" && $0["path"] as? String == "\(objects)/\(shard)/\(object)" })
        // Issue 36: the last lines count the problems and give the command that repairs.
        let kinds = Set(problems.compactMap { $0["kind"] as? String })
        let summary = "prefetch: error: \(problems.count) problem\(problems.count == 1 ? "" : "s") found ("
        #expect(found.stderr.contains(summary) && kinds.allSatisfy { found.stderr.contains(" \($0)") }, "\(found.stderr)")
        #expect(found.stderr.hasSuffix("prefetch: hint: 'prefetch verify --repair --cache-dir \(damaged)' removes what is broken; the next run fetches it again\n"), "\(found.stderr)")
        let repaired = try await setup.prefetch(["verify", "--cache-dir", damaged, "--repair", "--json"]).jsonObject()
        #expect(repaired["repaired"] as? Bool == true)
        #expect((repaired["problems"] as? [[String: Any]])?.allSatisfy { $0["removed"] as? Bool == true } == true)
        #expect(try await setup.prefetch(["verify", "--cache-dir", damaged, "--json"]).jsonObject()["ok"] as? Bool == true)

        try await expectWarningsFollowTheLogLevel(setup, ["verify"])
        try await expectWaitForTheLock(setup, ["verify", "--repair"])
    }

    @Test func gcOptions() async throws {
        let setup = try await Self.filled()
        // Over a budget of 1 byte, with no manifest's needed refs to keep: the
        // same collection on two copies, told as text and as JSON.
        for copy in ["text", "json"] {
            let cache = try setup.copyOfCache(copy)
            try Data(#"{"budget": 1}"#.utf8).write(to: URL(fileURLWithPath: cache + "/state.json"))
            try FileManager.default.removeItem(atPath: cache + "/needed.json")
        }
        let text = try await setup.prefetch(["gc", "--cache-dir", setup.scratch.path("text")])
        let json = try await setup.prefetch(["gc", "--cache-dir", setup.scratch.path("json"), "--json"]).jsonObject()
        let evicted = json["evicted_refs"] as? Int ?? -1, objects = json["removed_objects"] as? Int ?? -1
        #expect(text.status == 0 && evicted == 2 && objects >= 1)
        let trees = json["removed_trees"] as? Int ?? -1
        let counted = "evicted \(evicted) refs, removed \(objects) object\(objects == 1 ? "" : "s") and \(trees) tree\(trees == 1 ? "" : "s"); "
        #expect(text.stdoutText.hasPrefix(counted), "\(text.stdoutText)")
        #expect(json["bytes_after"] as? Int == 0 && json["budget"] as? Int == 1)

        let quiet = try await setup.prefetch(["gc", "--cache-dir", setup.cache, "--quiet"])
        #expect(quiet.status == 0 && quiet.stdout.isEmpty && quiet.stderr.isEmpty)
        try await expectWarningsFollowTheLogLevel(setup, ["gc"])
        try await expectWaitForTheLock(setup, ["gc"])
    }

    /// `plan` looks up all its URLs' objects shard by shard, each shard opened
    /// once: a linked shard is still not followed. The image, whose object was
    /// there, is an offline miss; the bundle, whose tree is elsewhere, is ready.
    @Test func planDoesNotFollowALinkedShard() async throws {
        let setup = try await Self.filled()
        let objects = setup.cache + "/objects"
        for shard in try FileManager.default.contentsOfDirectory(atPath: objects) {
            try FileManager.default.moveItem(atPath: "\(objects)/\(shard)", toPath: setup.scratch.path("moved-\(shard)"))
            try FileManager.default.createSymbolicLink(atPath: "\(objects)/\(shard)", withDestinationPath: setup.scratch.path("moved-\(shard)"))
        }
        let plan = try await setup.prefetch(["plan", setup.manifest, "--cache-dir", setup.cache, "--json"])
        #expect(plan.stderr.contains("a symbolic link where the cache keeps a directory"), "\(plan.stderr)")
        let messages = try plan.jsonObject()["messages"] as? [[String: Any]] ?? []
        let status = Dictionary(uniqueKeysWithValues: messages.map { ($0["id"] as? String ?? "", $0["status"] as? String ?? "") })
        #expect(status == ["image": "discarded", "bundle": "ready"], "\(messages)")
        #expect("\(messages)".contains("offline_miss"), "\(messages)")
    }

    /// A link where a shard should be is reported at the default level, not with `--log-level error`.
    func expectWarningsFollowTheLogLevel(_ setup: OptionsSetup, _ command: [String]) async throws {
        let cache = try setup.copyOfCache("linked-\(command[0])")
        try OptionsSetup.linkAShard(in: cache)
        let warned = try await setup.prefetch(command + ["--cache-dir", cache])
        #expect(warned.stderr.contains("a symbolic link where the cache keeps"), "\(warned.stderr)")
        let silent = try await setup.prefetch(command + ["--cache-dir", cache, "--log-level", "error"])
        #expect(!silent.stderr.contains("symbolic link"), "\(silent.stderr)")
    }

    /// Refused at once while another run holds the lock; with `--wait`, done once it lets go.
    func expectWaitForTheLock(_ setup: OptionsSetup, _ command: [String]) async throws {
        let lock = try OptionsSetup.HeldLock(setup.cache)
        #expect(try await setup.prefetch(command + ["--cache-dir", setup.cache]).status == 75)
        let waiting = try RunningCommand(command + ["--cache-dir", setup.cache, "--wait", "120", "--log-level", "info"])
        #expect(await waiting.stderrContains("the cache is locked by another run; waiting"))
        lock.release()
        #expect(await waiting.wait().status == 0)
    }
}
