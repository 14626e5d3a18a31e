import AssetCache

/// Reads a JSON Lines events file (docs/delivery.md). Blank lines are skipped; every
/// other line must be a whole event, in time order, or the file is refused
/// naming the line: a replay of half a file would answer a question nobody asked.
public enum EventFile {
    public static func parse(_ text: String) throws(EventFileError) -> [TimedEvent] {
        try parse(Array(text.utf8))
    }

    /// The file's bytes: each line is read as strictly as a manifest (valid UTF-8,
    /// no key twice), by the same reader.
    public static func parse(_ bytes: some Collection<UInt8>) throws(EventFileError) -> [TimedEvent] {
        var events: [TimedEvent] = []
        // Split on the byte, so that "\r\n" ends a line too (the "\r" is JSON whitespace).
        for (index, line) in Array(bytes).split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            guard !line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) else { continue }
            let event = try parse(line: line, number: number)
            if let previous = events.last, event.at < previous.at {
                throw EventFileError(line: number, "\"at\" \(Seconds.format(event.at)) is before the previous event's \(Seconds.format(previous.at))")
            }
            events.append(event)
        }
        return events
    }

    /// One line's object; the error names the column, the caller the line.
    static func object(_ line: ArraySlice<UInt8>, number: Int) throws(EventFileError) -> [String: JSONValue] {
        let read = line.withUnsafeBytes { bytes in
            Result { () throws(JSONReadError) in
                try JSONReader.read(bytes, name: "line") { json throws(JSONReadError) -> [String: JSONValue]? in
                    guard try json.next() == .object else {
                        try json.skip()
                        return nil
                    }
                    return try json.members()
                }
            }
        }
        let object: [String: JSONValue]?
        do {
            object = try read.get()
        } catch {
            let path = error.path.map { $0.isEmpty ? "" : "\($0): " } ?? ""
            throw EventFileError(line: number, path + error.message(line: false))
        }
        guard let object else { throw EventFileError(line: number, "expected a JSON object") }
        return object
    }

    static func parse(line: ArraySlice<UInt8>, number: Int) throws(EventFileError) -> TimedEvent {
        let object = try object(line, number: number)
        let fields = EventFields(object: object, line: number)
        guard case .number(let at)? = object["at"], at.isFinite, at >= 0 else {
            throw EventFileError(line: number, "\"at\" must be a number of seconds, 0 or more")
        }
        let name = try fields.string("event")
        let event: SimulationEvent
        switch name {
        case "session_start":
            event = .trigger(.sessionStart)
        case "custom_event":
            event = .trigger(.customEvent(name: try fields.string("name"), properties: try fields.properties()))
        case "purchase":
            let purchase = Purchase(
                productID: try fields.string("product_id"),
                price: try fields.optionalNumber("price") ?? 0,
                currency: try fields.optionalString("currency") ?? "USD",
                quantity: try fields.optionalInteger("quantity") ?? 1,
                properties: try fields.properties())
            event = .trigger(.purchase(purchase))
        case "push_click":
            event = .trigger(.pushClick(campaignID: try fields.optionalString("campaign_id")))
        case "dismiss": event = .dismiss
        case "background": event = .background
        case "foreground": event = .foreground
        case "display_next": event = .displayNext
        case "orientation":
            let value = try fields.string("value")
            guard let orientation = DeviceOrientation(name: value) else {
                throw EventFileError(line: number, "\"value\" must be PORTRAIT or LANDSCAPE, not '\(value)'")
            }
            event = .orientation(orientation)
        default:
            throw EventFileError(line: number, "unknown event '\(name)'")
        }
        return TimedEvent(at: at, event: event, line: number)
    }
}
