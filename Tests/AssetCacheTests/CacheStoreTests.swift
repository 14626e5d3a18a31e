import Foundation
import Testing
@testable import AssetCache

@Suite struct CacheStoreTests {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID().uuidString)").path

    @Test func createsTheLayoutAndCommitsOnceByContent() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let store = try CacheStore.openForWriting(at: root)
        #expect(try String(contentsOfFile: "\(root)/FORMAT", encoding: .utf8) == "asset-cache 1\n")
        let sha = String(repeating: "ab", count: 32)
        for _ in 0..<2 {
            let temp = store.temporaryFile("download")
            try Data("hello".utf8).write(to: URL(fileURLWithPath: temp.path))
            #expect(try store.commitObject(from: temp, sha256: sha) == "\(root)/objects/ab/\(sha)")
            #expect(!FileManager.default.fileExists(atPath: temp.path))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: "\(root)/objects/ab") == [sha])
        let mode = try FileManager.default.attributesOfItem(atPath: store.objectPath(sha))[.posixPermissions] as? Int
        #expect(mode == 0o444)
    }

    @Test func writesAndReadsRefs() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let store = try CacheStore.openForWriting(at: root)
        let url = try AssetURL(parsing: "http://cdn.test/a.png")
        let ref = AssetRef(url: url.string, object: "00", etag: "\"e\"", lastModified: nil, fetchedAt: 1, maxAge: nil, bytes: 5, kind: .image)
        try store.writeRef(ref, for: url)
        #expect(store.readRef(for: url) == ref)
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.tmpDirectory).isEmpty)
    }

    /// `gc` keeps what `needed.json` names, else what an older release's
    /// state.json named; needed.json is written only when the set changes.
    @Test func neededRefsAreReadFromNeededJSONElseAnOlderStateAndWrittenOnChange() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let store = try CacheStore.openForWriting(at: root)
        #expect(store.readNeededRefs().isEmpty)
        try Data(#"{"budget": 5, "last_run": {"finished_at": 1, "duration_ms": 1, "messages": 1, "ready": 1, "discarded": 0, "deferred": 0, "expired": 0, "assets": 1, "downloaded_bytes": 0, "needed": ["old.json"]}}"#.utf8)
            .write(to: URL(fileURLWithPath: "\(root)/state.json"))
        #expect(store.readNeededRefs() == ["old.json"])
        try store.rememberNeededRefs(["b.json", "a.json", "b.json"])
        #expect(store.readNeededRefs() == ["a.json", "b.json"])
        let path = "\(root)/needed.json"
        let inode = try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int
        try store.rememberNeededRefs(["a.json", "b.json"])
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int == inode, "the same set was written again")
        try store.rememberNeededRefs(["a.json"])
        #expect(store.readNeededRefs() == ["a.json"])
    }

    @Test func refusesAForeignDirectoryAndTouchesNothing() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: URL(fileURLWithPath: "\(root)/notes.txt"))
        #expect(throws: StoreError.self) { try CacheStore.openForWriting(at: root) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: root) == ["notes.txt"])
    }

    @Test func secondWriterIsLockedOut() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let first = try CacheStore.openForWriting(at: root)
        do {
            _ = try CacheStore.openForWriting(at: root)
            Issue.record("a second writer opened a locked cache")
        } catch {
            guard case .locked = error else { Issue.record("unexpected \(error)"); return }
        }
        _ = first
    }

    @Test func sweepsLeftoversButKeepsPartials() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        do {
            let store = try CacheStore.openForWriting(at: root)
            try FileManager.default.createDirectory(atPath: "\(store.tmpDirectory)/partial", withIntermediateDirectories: false)
            try Data().write(to: URL(fileURLWithPath: store.temporaryFile("download").path))
        }
        let store = try CacheStore.openForWriting(at: root)
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.tmpDirectory) == ["partial"])
    }
}
