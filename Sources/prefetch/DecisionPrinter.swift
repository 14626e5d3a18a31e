#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import InAppDelivery

/// Writes `simulate`'s decisions: one JSON line each (`--json`), or a timeline
/// for people with a closing count.
struct DecisionPrinter {
    var json: Bool
    var quiet: Bool
    /// Times are printed as seconds after it, as the events file gives them.
    var startTime: Double

    func print(_ decisions: [DeliveryDecision]) {
        if !json && quiet { return }
        var out = ""
        for decision in decisions {
            out += json ? jsonLine(decision) : timelineLine(decision)
            out += "\n"
        }
        if !json { out += summary(decisions) + "\n" }
        Console.standardOutput.write(out.utf8)
    }

    /// Written by hand so that the keys keep docs/report.md's order: at, action,
    /// trigger, reason (and the event that matched nothing).
    func jsonLine(_ decision: DeliveryDecision) -> String {
        var fields = [
            "\"at\": \(Self.seconds(decision.at - startTime))",
            "\"action\": \(Self.quote(decision.action.rawValue))",
            "\"trigger\": \(decision.trigger.map(Self.quote) ?? "null")",
            "\"reason\": \(decision.reason.map { Self.quote($0.description) } ?? "null")",
        ]
        if let event = decision.event { fields.append("\"event\": \(Self.quote(event.kind))") }
        return "{" + fields.joined(separator: ", ") + "}"
    }

    func timelineLine(_ decision: DeliveryDecision) -> String {
        let at = Self.seconds(decision.at - startTime) + " s"
        var line = at.leftPadded(to: 10) + "  " + decision.action.rawValue.rightPadded(to: 20)
        // Trigger ids, event names and details come from the manifest and the
        // events file: escaped.
        if let event = decision.event {
            line += "  " + TerminalText.safe(event.description)
        } else {
            line += "  " + TerminalText.safe(decision.trigger ?? "")
        }
        if let reason = decision.reason { line += "  " + TerminalText.safe(reason.description) }
        if let detail = decision.detail { line += " (" + TerminalText.safe(detail) + ")" }
        return line
    }

    func summary(_ decisions: [DeliveryDecision]) -> String {
        let actions: [DeliveryDecision.Action] = [.displayed, .queued, .rateLimited, .discarded, .control, .noMatchingTrigger]
        let counts = actions.map { action in "\(decisions.filter { $0.action == action }.count) \(action.rawValue)" }
        return "\(decisions.count) decisions: " + counts.joined(separator: ", ")
    }

    static func seconds(_ value: Double) -> String {
        if value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    static func quote(_ text: String) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        let data = (try? encoder.encode(text)) ?? Data("\"\"".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }

    fileprivate func rightPadded(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
