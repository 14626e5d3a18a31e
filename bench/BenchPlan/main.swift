import AssetCache
import Foundation

// `prefetch plan --json` without the command line, for valgrind (bench/callgrind.sh)
// and for the with/without figures of the plan's speed mechanisms (issue 27,
// bench/mechanisms.py): the command's async main runs on libdispatch's threads,
// which valgrind 3.19 cannot follow. Same library calls, in the same order, on
// the main thread.
//
//   BenchPlan decode MANIFEST             Manifest.decode only
//   BenchPlan plan MANIFEST CACHE_DIR     decode, open the cache, plan, the JSON report
//   BenchPlan summary MANIFEST CACHE_DIR  the same with the totals only (`plan` without --json)
//
// Each mechanism of `prefetch plan` can be turned off, one at a time:
//   --encoder        the report through JSONEncoder instead of PrettyJSON
let off = Set(CommandLine.arguments.filter { $0.hasPrefix("--") })
let arguments = CommandLine.arguments.filter { !$0.hasPrefix("--") }
guard arguments.count >= 3, let data = FileManager.default.contents(atPath: arguments[2]) else {
    FileHandle.standardError.write(Data("usage: BenchPlan decode|plan|summary MANIFEST [CACHE_DIR] [--encoder]\n".utf8))
    exit(64)
}

func plan(_ arguments: [String], data: Data, off: Set<String>) throws {
    let manifest = try Manifest.decode(data)
    if arguments[1] != "decode", arguments.count == 4 {
        let store = try CacheStore.openForReading(at: arguments[3])
        let report = Planner.plan(manifest, store: store, cacheDirectory: arguments[3])
        if arguments[1] == "plan" {
            if off.contains("--encoder") {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .withoutEscapingSlashes]
                FileHandle.standardOutput.write(try encoder.encode(report))
            } else {
                FileHandle.standardOutput.write(Data(report.prettyJSON()))
            }
        } else {
            print(report.totals)
        }
    }
    print("\(manifest.actions.count) actions")
}

try plan(arguments, data: data, off: off)
