/// What a run carries over from the metrics file the run before it wrote:
/// counters go on counting from there, and the time of the last success
/// survives failed runs. The file is read like any input: only the series named
/// in `carried`, with exactly the expected labels, a well-formed line and a
/// plausible value are taken; anything else is ignored, and a counter that
/// starts again from zero is a reset Prometheus already handles.
struct PreviousMetrics {
    struct Series: Hashable {
        var name: String
        /// The labels after the common ones.
        var labels: [String: String]
    }

    private(set) var counters: [Series: Int64] = [:]
    private(set) var lastSuccess: Double?

    init(text: String, commonLabels: [(String, String)], carried: Set<Series>, lastSuccessName: String) {
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let sample = Self.sample(line), sample.labels.count >= commonLabels.count,
                  zip(sample.labels, commonLabels).allSatisfy({ $0 == $1 }) else { continue }
            let own = sample.labels.dropFirst(commonLabels.count)
            let series = Series(name: sample.name, labels: Dictionary(own.map { ($0.0, $0.1) }, uniquingKeysWith: { first, _ in first }))
            guard series.labels.count == own.count else { continue }
            if carried.contains(series), let count = Int64(exactly: sample.value), count >= 0 {
                counters[series] = count
            } else if series.name == lastSuccessName, series.labels.isEmpty, sample.value > 0 {
                lastSuccess = sample.value
            }
        }
    }

    /// One sample line of the text format: `name{key="value",…} value [timestamp]`.
    static func sample(_ line: Substring) -> (name: String, labels: [(String, String)], value: Double)? {
        var rest = line
        let name = rest.prefix { $0 != "{" && $0 != " " }
        guard !name.isEmpty else { return nil }
        rest = rest.dropFirst(name.count)
        var labels: [(String, String)] = []
        if rest.first == "{" {
            rest = rest.dropFirst()
            while rest.first != "}" {
                let key = rest.prefix { $0 != "=" }
                rest = rest.dropFirst(key.count)
                guard !key.isEmpty, rest.hasPrefix("=\"") else { return nil }
                rest = rest.dropFirst(2)
                var value = ""
                while let character = rest.popFirst(), character != "\"" {
                    guard character == "\\" else { value.append(character); continue }
                    guard let escaped = rest.popFirst() else { return nil }
                    value.append(escaped == "n" ? "\n" : escaped)
                }
                labels.append((String(key), value))
                if rest.first == "," { rest = rest.dropFirst() }
                guard !rest.isEmpty else { return nil }
            }
            rest = rest.dropFirst()
        }
        guard rest.first == " ", let field = rest.split(separator: " ").first,
              let value = Double(field), value.isFinite else { return nil }
        return (String(name), labels, value)
    }
}
