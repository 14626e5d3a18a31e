import Foundation

/// A Prometheus text-format file read strictly, as node_exporter's textfile
/// collector would: every line a comment, a HELP/TYPE line or a sample.
struct PrometheusText {
    struct Sample {
        var name: String
        var labels: [String: String]
        var value: Double
    }

    var samples: [Sample] = []
    var help: [String: String] = [:]
    var types: [String: String] = [:]

    struct Malformed: Error, CustomStringConvertible {
        var description: String
    }

    init(_ text: String) throws {
        guard text.hasSuffix("\n") else { throw Malformed(description: "the file does not end with a newline") }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            if line.hasPrefix("# HELP ") || line.hasPrefix("# TYPE ") {
                let parts = line.dropFirst(7).split(separator: " ", maxSplits: 1).map(String.init)
                guard parts.count == 2 else { throw Malformed(description: "bad comment line: \(line)") }
                if line.hasPrefix("# HELP ") { help[parts[0]] = parts[1] } else { types[parts[0]] = parts[1] }
                continue
            }
            samples.append(try Self.sample(line))
        }
    }

    private static func sample(_ line: Substring) throws -> Sample {
        let pattern = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? ([^ ]+)$/
        guard let match = line.wholeMatch(of: pattern), let value = Double(match.3) else {
            throw Malformed(description: "bad sample line: \(line)")
        }
        var labels: [String: String] = [:]
        if let body = match.2 {
            for pair in body.matches(of: /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?/) {
                labels[String(pair.1)] = String(pair.2)
            }
        }
        return Sample(name: String(match.1), labels: labels, value: value)
    }

    /// The one sample of `name` whose labels include `labels`.
    func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        let found = samples.filter { sample in sample.name == name && labels.allSatisfy { sample.labels[$0.key] == $0.value } }
        return found.count == 1 ? found[0].value : nil
    }

    func series(_ name: String) -> [Sample] { samples.filter { $0.name == name } }
}
