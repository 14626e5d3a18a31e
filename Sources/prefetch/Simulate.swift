import ArgumentParser
import AssetCache
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import InAppDelivery

struct Simulate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Replay a file of events through the delivery engine and print what it decides.",
        discussion: """
            Readiness comes from the cache alone: no network, no writes, no lock. The events file \
            holds one JSON object per line, e.g. {"at": 5, "event": "custom_event", "name": "exit intent"}; \
            "at" is seconds after --start-time. Dates in event properties are ISO 8601 strings.
            """)

    @Argument(help: ArgumentHelp("The manifest: a path, or '-' for stdin.", valueName: "manifest"))
    var manifest: String

    @Option(help: ArgumentHelp("The events, as JSON Lines.", valueName: "file"))
    var events: String

    @Option(help: ArgumentHelp("Seconds between accepted triggers.", valueName: "seconds"))
    var minInterval = Seconds(30)

    @Option(help: ArgumentHelp("The device's orientation at start: PORTRAIT or LANDSCAPE.", valueName: "orientation"))
    var orientation = "PORTRAIT"

    @Option(help: ArgumentHelp("Epoch seconds of \"at\": 0 (default: now).", valueName: "epoch"))
    var startTime: Seconds?

    @OptionGroup var common: CommonOptions

    @Flag(help: "Print one JSON object per decision on stdout, instead of the timeline.")
    var json = false

    func validate() throws {
        guard DeviceOrientation(name: orientation) != nil else { throw ValidationError("--orientation must be PORTRAIT or LANDSCAPE") }
    }

    func run() throws {
        do throws(CommandFailure) {
            let source = ManifestSource(argument: self.manifest)
            guard !source.isRemote else {
                throw CommandFailure(message: "simulate reads a local manifest; fetch it with 'prefetch run' first", status: ExitStatus.usage)
            }
            let manifest = try source.loadLocal().manifest
            let triggers = try compile(manifest)
            let timeline = try loadEvents()
            // With no cache yet every asset is missing, as on a device that never prefetched.
            let readiness: any ReadinessSource = try common.openReader() ?? InMemoryReadiness()
            for warning in manifest.warnings + triggers.warnings { common.logger.warning("\(warning)") }
            let configuration = DeliveryConfiguration(
                minimumTriggerInterval: minInterval.value, orientation: DeviceOrientation(name: orientation) ?? .portrait)
            let start = startTime?.value ?? Date().timeIntervalSince1970.rounded(.down)
            let simulation = Simulation(triggers: triggers, readiness: readiness, configuration: configuration, startTime: start)
            let decisions = simulation.replay(timeline)
            DecisionPrinter(json: json, quiet: common.quiet, startTime: start).print(decisions)
        } catch {
            throw error.report()
        }
    }

    private func compile(_ manifest: Manifest) throws(CommandFailure) -> TriggerTable {
        do {
            return try TriggerTable(manifest)
        } catch {
            throw CommandFailure(message: "\(self.manifest): \(error); correct it there and run again", status: ExitStatus.usage)
        }
    }

    private func loadEvents() throws(CommandFailure) -> [TimedEvent] {
        let data = try InputFile.read(events, limit: .max, as: InputFile.Name(name: "the events file", file: "the events file (JSON lines)"))
        do {
            return try EventFile.parse(data)
        } catch {
            throw CommandFailure(message: "\(events):\(error.line): \(error.message); correct that line and run again", status: ExitStatus.usage)
        }
    }
}
