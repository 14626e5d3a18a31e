import AssetCache
import Foundation

// `prefetch plan --json` without the command line, for valgrind (bench/callgrind.sh):
// the command's async main runs on libdispatch's threads, which valgrind 3.19
// cannot follow. Same library calls, in the same order, on the main thread.
//
//   BenchPlan decode MANIFEST             Manifest.decode only
//   BenchPlan plan MANIFEST CACHE_DIR     decode, open the cache, plan, the JSON report
//   BenchPlan summary MANIFEST CACHE_DIR  the same with the totals only (`plan` without --json)
let arguments = CommandLine.arguments
guard arguments.count >= 3, let data = FileManager.default.contents(atPath: arguments[2]) else {
    FileHandle.standardError.write(Data("usage: BenchPlan decode|plan MANIFEST [CACHE_DIR]\n".utf8))
    exit(64)
}
let manifest = try Manifest.decode(data)
if arguments[1] != "decode", arguments.count == 4 {
    let store = try CacheStore.openForReading(at: arguments[3])
    let report = Planner.plan(manifest, store: store, cacheDirectory: arguments[3])
    if arguments[1] == "plan" {
        FileHandle.standardOutput.write(Data(report.prettyJSON()))
    } else {
        print(report.totals)
    }
}
print("\(manifest.actions.count) actions")
