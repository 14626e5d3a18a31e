/// Messages accepted with a `delay`, waiting for their time. Nothing here fires
/// by itself: the engine releases what is due whenever it is called, and the
/// driver asks ``DeliveryEngine/nextDueTime`` when to call it.
struct DelayQueue: Sendable {
    /// Sorted by due time; equal times keep their trigger order.
    private var entries: [PendingMessage] = []

    var nextDue: Double? { entries.first?.due }

    mutating func add(_ entry: PendingMessage) {
        let index = entries.firstIndex { $0.due > entry.due } ?? entries.endIndex
        entries.insert(entry, at: index)
    }

    mutating func popDue(at now: Double) -> PendingMessage? {
        guard let first = entries.first, first.due <= now else { return nil }
        return entries.removeFirst()
    }

    func contains(_ id: String) -> Bool {
        entries.contains { $0.id == id }
    }
}
