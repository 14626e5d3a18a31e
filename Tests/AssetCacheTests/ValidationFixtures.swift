import Foundation

/// Paths of the committed fixtures (fixtures/generate.py) and scratch folders for
/// the validation and unpacking tests.
enum ValidationFixtures {
    static let assets = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // AssetCacheTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // package root
        .appendingPathComponent("fixtures/assets")

    /// fixtures/hostile (fixtures/generate_hostile.py): one file per attack.
    static let hostile = assets.deletingLastPathComponent().appendingPathComponent("hostile")
    static func hostile(_ name: String) -> String { hostile.appendingPathComponent(name).path }

    static func image(_ name: String) -> String { assets.appendingPathComponent("img/\(name)").path }
    static func html(_ name: String) -> String { assets.appendingPathComponent("html/\(name)").path }

    static func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    /// A new empty folder, removed when the value goes away.
    final class Scratch {
        let path: String

        init() throws {
            path = FileManager.default.temporaryDirectory
                .appendingPathComponent("asset-cache-validation-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        }

        deinit { try? FileManager.default.removeItem(atPath: path) }

        func file(_ name: String, contents: Data) throws -> String {
            let file = (path as NSString).appendingPathComponent(name)
            try contents.write(to: URL(fileURLWithPath: file))
            return file
        }

        func listing() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: path).sorted() }

        /// Every file below `directory`, as relative paths, directories with a trailing "/".
        func tree(_ directory: String) throws -> [String] {
            let root = (path as NSString).appendingPathComponent(directory)
            let names = try FileManager.default.subpathsOfDirectory(atPath: root)
            return names.map { name in
                var isDirectory: ObjCBool = false
                _ = FileManager.default.fileExists(atPath: (root as NSString).appendingPathComponent(name), isDirectory: &isDirectory)
                return isDirectory.boolValue ? name + "/" : name
            }.sorted()
        }
    }
}

extension Result {
    var validationFailure: Failure? {
        if case .failure(let failure) = self { return failure }
        return nil
    }
}
