import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Logging

/// `--log-level` and `PREFETCH_LOG_LEVEL`: swift-log's levels by name.
enum LogLevel: String, CaseIterable, ExpressibleByArgument, Sendable {
    case trace, debug, info, notice, warning, error, critical

    var level: Logger.Level {
        switch self {
        case .trace: .trace
        case .debug: .debug
        case .info: .info
        case .notice: .notice
        case .warning: .warning
        case .error: .error
        case .critical: .critical
        }
    }
}

/// Log lines on stderr as `prefetch: LEVEL: message`, through the console so that
/// they never garble the progress line. Metadata is shown from `debug` down.
struct StderrLogHandler: LogHandler {
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level
    let console: Console

    init(level: Logger.Level, console: Console = .standardError) {
        logLevel = level
        self.console = console
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Messages and metadata name URLs, ids and server answers: escaped, so that
    /// a log line is one line and cannot drive the terminal reading it.
    func log(event: LogEvent) {
        var line = "prefetch: \(event.level.rawValue): " + TerminalText.safe("\(event.message)")
        if logLevel <= .debug {
            let merged = metadata.merging(event.metadata ?? [:]) { $1 }
            if !merged.isEmpty {
                line += " [" + merged.sorted { $0.key < $1.key }.map { "\($0.key)=" + TerminalText.safe("\($0.value)") }.joined(separator: " ") + "]"
            }
        }
        console.writeLine(line)
    }
}

/// The subcommands that take ``CommonOptions``; `main` sets up logging from them.
protocol TakesCommonOptions {
    var common: CommonOptions { get }
}

extension Run: TakesCommonOptions {}
extension Plan: TakesCommonOptions {}
extension Status: TakesCommonOptions {}
extension Verify: TakesCommonOptions {}
extension GC: TakesCommonOptions {}
extension Lease: TakesCommonOptions {}
extension Ready: TakesCommonOptions {}
extension Ls: TakesCommonOptions {}
extension Simulate: TakesCommonOptions {}

extension CommonOptions {
    /// `--log-level`, else `PREFETCH_LOG_LEVEL`, else `error` with `--quiet` and
    /// `warning` without.
    func resolvedLogLevel(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws(CommandFailure) -> Logger.Level {
        if let logLevel { return logLevel.level }
        if let name = environment["PREFETCH_LOG_LEVEL"], !name.isEmpty {
            guard let level = LogLevel(rawValue: name.lowercased()) else {
                let names = LogLevel.allCases.map(\.rawValue).joined(separator: ", ")
                throw CommandFailure(
                    message: "PREFETCH_LOG_LEVEL='\(name)' is not a log level; set it to one of \(names), or unset it",
                    status: ExitStatus.usage)
            }
            return level.level
        }
        return quiet ? .error : .warning
    }

    func bootstrapLogging() throws(CommandFailure) {
        let level = try resolvedLogLevel()
        LoggingSystem.bootstrap { _ in StderrLogHandler(level: level) }
    }

    var logger: Logger { Logger(label: "prefetch") }
}
