import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

enum Termination {
    /// Returns when SIGINT or SIGTERM arrives. The default actions are
    /// turned off so that the server can close its connections first.
    static func signal() async {
        let queue = DispatchQueue(label: "fixture-server.signals")
        let (signals, continuation) = AsyncStream<Int32>.makeStream()
        var sources: [any DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM] {
            Glibc.signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            sources.append(source)
        }
        for await _ in signals { break }
        sources.forEach { $0.cancel() }
    }
}
