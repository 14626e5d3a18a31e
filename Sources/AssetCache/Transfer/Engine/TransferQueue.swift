/// Something that waits its turn: higher `priority` first, then lower `sequence`.
protocol TransferQueueItem {
    var priority: Int { get }
    var sequence: Int { get }
}

/// Transfers not yet handed to libcurl. The engine keeps this queue itself because
/// libcurl's own pending queue is first-in first-out and ignores priority; it is a
/// sorted array because it holds at most a few thousand entries and the
/// per-host rule needs to look past a blocked head.
struct TransferQueue<Element: TransferQueueItem> {
    private(set) var elements: [Element] = []

    var isEmpty: Bool { elements.isEmpty }
    var count: Int { elements.count }

    mutating func insert(_ element: Element) {
        var low = 0
        var high = elements.count
        while low < high {
            let mid = (low + high) / 2
            if Self.precedes(elements[mid], element) { low = mid + 1 } else { high = mid }
        }
        elements.insert(element, at: low)
    }

    /// The first element in order that `isAllowed` accepts; others keep their place.
    mutating func popFirst(where isAllowed: (Element) -> Bool) -> Element? {
        guard let index = elements.firstIndex(where: isAllowed) else { return nil }
        return elements.remove(at: index)
    }

    mutating func remove(where matches: (Element) -> Bool) -> Element? {
        guard let index = elements.firstIndex(where: matches) else { return nil }
        return elements.remove(at: index)
    }

    mutating func removeAll() -> [Element] {
        defer { elements.removeAll() }
        return elements
    }

    private static func precedes(_ a: Element, _ b: Element) -> Bool {
        a.priority != b.priority ? a.priority > b.priority : a.sequence < b.sequence
    }
}
