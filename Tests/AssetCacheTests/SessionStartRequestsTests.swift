import Foundation
import Testing
import AssetCache
#if canImport(Glibc)
import Glibc
#endif

/// The public side of session-start requests, for an app (and `ready --wait`):
/// which names count as systemd's DirectoryNotEmpty= counts them, and whether
/// a request is pending. Through the command: EndToEndTests/SessionStartTests.
@Suite struct SessionStartRequestsTests {
    @Test func namesCountAsSystemdCountsThem() {
        for name in ["request", "a.b", "kiosk-1", "x.json", "bak", "old.x"] {
            #expect(SessionStartRequests.isRequest(name), "\(name)")
        }
        for name in [".taken-1f", ".", "..", "notes~", "x.bak", "x.dpkg-new", "x.dpkg-old", "x.rpmsave", "x.swp", "x.old", "x.new",
                     "x.ignore", "lost+found", "aquota.user", ""] {
            #expect(!SessionStartRequests.isRequest(name), "\(name)")
        }
    }

    @Test func pendingMeansADirectoryNotALinkHoldingARequest() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("session-start-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let dir = root + "/requests"
        #expect(!SessionStartRequests.pending(in: dir), "no directory")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: false)
        #expect(!SessionStartRequests.pending(in: dir), "empty")
        #expect(FileManager.default.createFile(atPath: dir + "/.taken-0", contents: nil))
        #expect(FileManager.default.createFile(atPath: dir + "/request~", contents: nil))
        #expect(!SessionStartRequests.pending(in: dir), "hidden and backup names only")
        #expect(FileManager.default.createFile(atPath: dir + "/request", contents: nil))
        #expect(SessionStartRequests.pending(in: dir))
        #expect(symlink(dir, root + "/link") == 0)
        #expect(!SessionStartRequests.pending(in: root + "/link"), "a link to it is not followed")

        #expect(SessionStartRequests.directory(environment: [:]) == "/run/prefetch/session-start")
        #expect(SessionStartRequests.directory(environment: ["PREFETCH_REQUEST_DIR": ""]) == "/run/prefetch/session-start")
        #expect(SessionStartRequests.directory(environment: ["PREFETCH_REQUEST_DIR": dir]) == dir)
    }
}
