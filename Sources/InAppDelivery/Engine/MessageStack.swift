/// The in-memory stack of messages waiting for the user to become eligible.
/// Last in, first out: the most recently triggered is the most relevant.
struct MessageStack: Sendable {
    private var entries: [PendingMessage] = []

    var isEmpty: Bool { entries.isEmpty }

    /// Top first.
    var ids: [String] { entries.reversed().map(\.id) }

    mutating func push(_ entry: PendingMessage) {
        entries.append(entry)
    }

    mutating func pop() -> PendingMessage? {
        entries.popLast()
    }

    func contains(_ id: String) -> Bool {
        entries.contains { $0.id == id }
    }
}
