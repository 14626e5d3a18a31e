import FixtureServer
import Foundation
import Testing

/// `run --min-free` (docs/limits.md#free-space) on a small file system of the
/// test's own (a tmpfs, ``SmallFileSystem``) that another file mostly takes:
/// the run never takes its free space below the floor, watched while it runs;
/// session-start messages are ready, what does not fit is deferred
/// (`storage_low`), nothing is discarded for space, and once the other file
/// shrinks the next run makes everything ready.
@Suite(.serialized) struct FreeSpaceFloorTests {
    /// 24 MiB: the default floor is 10% of it, 2.4 MiB.
    static let fileSystemBytes = 24 << 20
    static let room = 3 << 20

    /// Two session-start messages first whatever their priority, then eight
    /// others of 450 kB, one of them chunked (claimed as it arrives), and a
    /// ZIP of 1.6 MB that takes as much again unpacked, which both cannot
    /// have: 6.2 MB of assets for 3 MiB of room, 0.3 MiB of which the run's
    /// index and state.json keep.
    static let pages = [
        LimitSite.Page(id: "start", bytes: 450_000, priority: 0, urgent: true),
        LimitSite.Page(id: "start-too", bytes: 450_000, priority: 0, urgent: true),
        LimitSite.Page(id: "bundle", bytes: 1_600_000, priority: 9, zipped: true),
    ] + (1...7).map { LimitSite.Page(id: "p\($0)", bytes: 450_000, priority: 8 - $0) }
        + [LimitSite.Page(id: "streamed", bytes: 450_000, priority: 0, chunked: true)]

    /// A small file system with `room` bytes free above the default floor.
    static func smallFileSystem(in scratch: Scratch) throws -> (SmallFileSystem, floor: Int) {
        let fs = try SmallFileSystem(at: scratch.path("small"), bytes: fileSystemBytes)
        let (free, size) = fs.space
        let floor = (size + 9) / 10
        try fs.fill("other-program.db", bytes: free - floor - room)
        return (fs, floor)
    }

    @Test func aColdRunKeepsTheFloorDefersWhatDoesNotFitAndALaterRunFetchesIt() async throws {
        let scratch = try Scratch()
        let (fs, floor) = try Self.smallFileSystem(in: scratch)
        defer { fs.unmount() }
        let site = try await LimitSite(Self.pages, scratch: scratch, cache: "\(fs.path)/cache")
        let metrics = scratch.path("prefetch.prom")

        let watch = FreeSpaceWatch(fs.path)
        let first = try await site.run(["--metrics-file", metrics])
        let seen = watch.stop()
        #expect(first.status == 0, "\(first.stderr)")
        #expect(seen.samples > 10)
        #expect(seen.lowest >= floor, "free space went down to \(seen.lowest) bytes, under the floor of \(floor)")

        let report = try first.report()
        let verdicts = LimitSite.verdicts(report)
        #expect(verdicts["start"] == "ready" && verdicts["start-too"] == "ready", "\(verdicts)")
        #expect(report.totals.discarded == 0, "\(verdicts)")
        #expect(verdicts.values.allSatisfy { $0 == "ready" || $0 == "deferred:storage_low" }, "\(verdicts)")
        let deferred = verdicts.filter { $0.value == "deferred:storage_low" }.keys
        #expect(deferred.count >= 3, "\(verdicts)")
        // Its body and its unpacked tree never both fit: whichever was refused, it waits.
        #expect(verdicts["bundle"] == "deferred:storage_low")
        let space = try #require(report.free_space)
        #expect(space.min_free_bytes == floor)
        #expect(space.lowest_free_bytes >= floor && space.free_bytes >= floor)
        #expect(space.deferred_messages == deferred.count)
        #expect(report.assets.filter { $0.outcome == "deferred" }.allSatisfy { $0.reason == "storage_low" })

        let someDeferred = try #require(deferred.sorted().first)
        let ready = try await CommandRunner.prefetch(["ready", someDeferred, "--cache-dir", site.cache])
        #expect(ready.status == 1)
        #expect(ready.stdoutText == "\(someDeferred)\tdeferred\tstorage_low\n")
        let prometheus = try PrometheusText(String(decoding: try Data(contentsOf: URL(fileURLWithPath: metrics)), as: UTF8.self))
        #expect(prometheus.series("prefetch_messages").contains {
            $0.labels["status"] == "deferred" && $0.labels["reason"] == "storage_low" && $0.value == Double(deferred.count)
        })
        #expect(prometheus.series("prefetch_min_free_bytes").first?.value == Double(floor))
        #expect((prometheus.series("prefetch_free_bytes").first?.value ?? 0) >= Double(floor))

        // The other program gives its space back: the next run has room for all.
        fs.shrink("other-program.db", to: 0)
        let second = try await site.run([])
        try await site.server.stop()
        #expect(second.status == 0, "\(second.stderr)")
        let later = try second.report()
        #expect(LimitSite.verdicts(later).values.allSatisfy { $0 == "ready" }, "\(LimitSite.verdicts(later))")
        #expect(later.free_space?.deferred_messages == 0)
    }

    /// Before it defers anything, a run evicts what its manifest does not need.
    @Test func aRunEvictsWhatItsManifestDoesNotNeedBeforeDeferring() async throws {
        let scratch = try Scratch()
        let fs = try SmallFileSystem(at: scratch.path("small"), bytes: Self.fileSystemBytes)
        defer { fs.unmount() }
        let old = (1...4).map { LimitSite.Page(id: "old\($0)", bytes: 700_000, priority: $0) }
        let new = (1...4).map { LimitSite.Page(id: "new\($0)", bytes: 600_000, priority: $0) }
        let site = try await LimitSite(old + new, scratch: scratch, cache: "\(fs.path)/cache")
        // An earlier manifest's assets, cached while there was room.
        let earlier = try scratch.write("old.json", try manifestJSON(old.map { page in
            ["id": page.id, "type": "inapp", "trigger_condition": [["type": "open"]],
             "data": ["type": "HTML", "asset_urls": [site.url(page.id)]]]
        }))
        let cached = try await CommandRunner.prefetch(["run", earlier, "--cache-dir", site.cache, "--json"])
        #expect(cached.status == 0, "\(cached.stderr)")
        let (free, size) = fs.space
        let floor = (size + 9) / 10
        // Room for about one new asset: three must come from evicting the old.
        try fs.fill("other-program.db", bytes: free - floor - 900_000)

        let newOnly = try scratch.write("new.json", try manifestJSON(new.map { page in
            ["id": page.id, "type": "inapp", "trigger_condition": [["type": "custom_event", "data": ["event_name": page.id]]],
             "data": ["type": "HTML", "asset_urls": [site.url(page.id)]]]
        }))
        let watch = FreeSpaceWatch(fs.path)
        let run = try await CommandRunner.prefetch(["run", newOnly, "--cache-dir", site.cache, "--json", "--log-level", "info"])
        let seen = watch.stop()
        try await site.server.stop()
        #expect(run.status == 0, "\(run.stderr)")
        #expect(seen.lowest >= floor, "free space went down to \(seen.lowest) bytes, under the floor of \(floor)")
        let report = try run.report()
        #expect(LimitSite.verdicts(report).values.allSatisfy { $0 == "ready" }, "\(LimitSite.verdicts(report)) \(run.stderr)")
        let evicted = try #require(report.free_space?.evicted_refs)
        #expect(evicted >= 3)
        #expect(run.stderr.contains("made room above the free-space floor (--min-free)"))
    }

    /// Another program fills the disk while a body arrives: the write that
    /// finds no space (ENOSPC) defers the asset like the floor would, its
    /// partial body kept, and the cache keeps what it had.
    @Test func aDiskFilledMidRunDefersTheAssetAndLosesNothing() async throws {
        let scratch = try Scratch()
        let fs = try SmallFileSystem(at: scratch.path("small"), bytes: Self.fileSystemBytes)
        defer { fs.unmount() }
        let pages = [
            LimitSite.Page(id: "kept", bytes: 100_000, priority: 2),
            LimitSite.Page(id: "slow", bytes: 3_000_000, priority: 1, query: "&rate=2000000"),
        ]
        let site = try await LimitSite(pages, scratch: scratch, cache: "\(fs.path)/cache")
        let earlier = try scratch.write("kept.json", try manifestJSON([
            ["id": "kept", "type": "inapp", "trigger_condition": [["type": "open"]],
             "data": ["type": "HTML", "asset_urls": [site.url("kept")]]],
        ]))
        #expect(try await CommandRunner.prefetch(["run", earlier, "--cache-dir", site.cache]).status == 0)

        // No floor: only the disk itself says no.
        let downloads = try DirectoryWatch("\(site.cache)/tmp")
        let run = try RunningCommand(["run", site.manifest, "--cache-dir", site.cache, "--json", "--min-free", "0"])
        _ = await downloads.created(prefix: "download")
        // Room for the run's index and state.json, not for the rest of the body.
        try fs.fill("other-program.db", bytes: fs.space.free - 300_000)
        let result = await run.wait()
        #expect(result.status == 0, "\(result.stderr)")
        let report = try result.report()
        #expect(LimitSite.verdicts(report) == ["kept": "ready", "slow": "deferred:storage_low"])
        #expect(report.asset(site.url("kept"))?.outcome == "revalidated")
        // The body so far, and its validator beside it.
        let partials = try FileManager.default.contentsOfDirectory(atPath: "\(site.cache)/tmp/partial")
        #expect(partials.count == 2 && partials.filter { $0.hasSuffix(".json") }.count == 1, "\(partials)")

        fs.shrink("other-program.db", to: 0)
        site.server.resetLog()
        let later = try await site.run([])
        let requests = site.server.requests().filter { $0.path.contains("slow.bin") }
        try await site.server.stop()
        #expect(LimitSite.verdicts(try later.report()) == ["kept": "ready", "slow": "ready"])
        // Resumed from the bytes written before the disk filled (the first
        // run's request may be logged late, when the server saw it closed).
        #expect(requests.contains { $0.headers["range"]?.hasPrefix("bytes=") == true }, "\(requests.map(\.headers))")
        #expect(try later.report().totals.downloaded_bytes < 3_000_000)
        let path = try #require(try later.report().message("slow")?.assets.first?.path)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(contentsOf: URL(fileURLWithPath: scratch.path("www/slow.bin"))))
    }

    /// `--min-free` takes a size or a share of the file system; `status`
    /// shows the floor and the free space.
    @Test func theFloorIsASizeOrAPercentageAndStatusShowsIt() async throws {
        let scratch = try Scratch()
        let fs = try SmallFileSystem(at: scratch.path("small"), bytes: Self.fileSystemBytes)
        defer { fs.unmount() }
        let site = try await LimitSite([LimitSite.Page(id: "one", bytes: 100_000, priority: 1)], scratch: scratch, cache: "\(fs.path)/cache")
        // Everything but 1% of the file system is to stay free: nothing fits.
        let none = try await site.run(["--min-free", "99%"])
        #expect(none.status == 0, "\(none.stderr)")
        #expect(LimitSite.verdicts(try none.report()) == ["one": "deferred:storage_low"])
        #expect(try none.report().free_space?.min_free_bytes == (fs.space.size * 99 + 99) / 100)
        let some = try await site.run(["--min-free", "1M"])
        #expect(LimitSite.verdicts(try some.report()) == ["one": "ready"])
        #expect(try some.report().free_space?.min_free_bytes == 1 << 20)

        let status = try await CommandRunner.prefetch(["status", "--cache-dir", site.cache, "--json", "--min-free", "5%"])
        let json = try #require(try JSONSerialization.jsonObject(with: status.stdout) as? [String: Any])
        #expect(json["filesystem_bytes"] as? Int == fs.space.size)
        #expect(json["min_free_bytes"] as? Int == (fs.space.size * 5 + 99) / 100)
        #expect((json["free_bytes"] as? Int ?? 0) > 0)
        let text = try await CommandRunner.prefetch(["status", "--cache-dir", site.cache])
        #expect(text.stdoutText.contains("; runs keep 2.4 MiB free (--min-free)"), "\(text.stdoutText)")

        // The configuration file's min-free, for run and status alike.
        let config = try scratch.write("prefetch.conf", "min-free = 99%\n")
        let configured = try await site.run(["--config", config])
        #expect(try configured.report().free_space?.min_free_bytes == (fs.space.size * 99 + 99) / 100)
        let shown = try await CommandRunner.prefetch(["status", "--cache-dir", site.cache, "--json", "--config", config])
        let shownJSON = try #require(try JSONSerialization.jsonObject(with: shown.stdout) as? [String: Any])
        #expect(shownJSON["min_free_bytes"] as? Int == (fs.space.size * 99 + 99) / 100)

        let wrong = try await site.run(["--min-free", "110%"])
        #expect(wrong.status == 2)
        #expect(wrong.stderr.contains("--min-free takes a size"), "\(wrong.stderr)")
        let misspelt = try scratch.write("bad.conf", "min-free = lots\n")
        let refused = try await CommandRunner.prefetch(["status", "--cache-dir", site.cache, "--config", misspelt])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("bad.conf:1: 'min-free' takes a size"), "\(refused.stderr)")
        try await site.server.stop()
    }
}
