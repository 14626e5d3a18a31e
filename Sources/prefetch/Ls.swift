import ArgumentParser
import AssetCache
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

struct Ls: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ls",
        abstract: "List the cached objects, least recently used first: URLs, kinds, size, last use, pinned, leased.")

    @OptionGroup var common: CommonOptions

    @Flag(help: "Print the objects as JSON on stdout.")
    var json = false

    func run() throws {
        do throws(CommandFailure) {
            let store = try common.openReader()
            // The current manifest's files, as the readiness index names them.
            let index = try common.readIndex(from: store, triggers: false)
            let pinned = Set(index?.messages.flatMap { $0.assets.compactMap(\.object) } ?? [])
            let objects = store?.listing(pinned: pinned) ?? []
            if json {
                writeJSON(objects, store: store)
            } else if !common.quiet {
                print(store == nil ? "no cache at \(TerminalText.safe(common.cacheDirectory)) yet" : text(objects))
            }
        } catch {
            throw error.report()
        }
    }

    /// A header, then one line per object; every field from the cache escaped.
    private func text(_ objects: [CachedObject]) -> String {
        let rows = [["OBJECT", "SIZE", "LAST USE", "PINNED", "LEASED", "KIND", "URL"]] + objects.map { object in
            [
                String(object.sha256.prefix(12)),
                ByteCount.format(object.bytes + (object.treeBytes ?? 0)),
                object.lastUsed.map { Date(timeIntervalSince1970: $0.rounded(.down)).formatted(.iso8601) } ?? "-",
                object.pinned ? "pinned" : "-",
                object.leased ? "leased" : "-",
                object.kinds.isEmpty ? "-" : object.kinds.map(\.rawValue).joined(separator: ","),
                object.urls.isEmpty ? "(no ref: the next gc removes it)" : object.urls.map(TerminalText.safe).joined(separator: " "),
            ]
        }
        let widths = (0..<6).map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { column, field in
                column < 6 ? field + String(repeating: " ", count: widths[column] - field.count) : field
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }

    private func writeJSON(_ objects: [CachedObject], store: CacheStore?) {
        var writer = PrettyJSON { Console.standardOutput.write($0) }
        writer.object { json in
            json.key("cache_dir"); json.string(common.cacheDirectory)
            json.key("exists"); json.bool(store != nil)
            json.key("objects")
            json.array(objects) { json, object in
                json.object { json in
                    json.key("sha256"); json.string(object.sha256)
                    json.key("urls"); json.array(object.urls) { json, url in json.string(url) }
                    json.key("kinds"); json.array(object.kinds) { json, kind in json.string(kind.rawValue) }
                    json.key("bytes"); json.integer(object.bytes)
                    json.key("tree_bytes")
                    if let treeBytes = object.treeBytes { json.integer(treeBytes) } else { json.null() }
                    json.key("last_used")
                    if let lastUsed = object.lastUsed { json.number(lastUsed) } else { json.null() }
                    json.key("pinned"); json.bool(object.pinned)
                    json.key("leased"); json.bool(object.leased)
                }
            }
        }
        writer.flushNow()
        Console.standardOutput.write([0x0A])
    }
}
