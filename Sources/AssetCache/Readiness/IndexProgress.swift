/// What the readiness index says of each message while a run decides them
/// (docs/cache-format.md#during-a-run): pure bookkeeping, no I/O, so that
/// ``RunningIndex`` only decides when to write it.
///
/// A message keeps the verdict the last index gave it until the run has every
/// asset it waits on; then `Readiness.verdict` decides it from those assets'
/// records, exactly as the report will. A message no index had yet is
/// `deferred` with reason `pending` until then.
struct IndexProgress {
    /// The actions of the manifest, in its order.
    private let actions: [TriggeredAction]
    /// The run's time, against which expiry is judged (as the report's).
    private let now: Double
    private var entries: MessageEntries
    /// The message the index shows for each action.
    private(set) var shown: [ReadinessIndex.Message]
    /// The last index's messages that this manifest does not have: they stay
    /// until the run's end, which drops them.
    private(set) var carried: [ReadinessIndex.Message]
    /// Per action: the assets it waits on that have no record yet; 0 once decided
    /// (or never waiting), `Self.undecidable` once the run was stopped before it.
    private var remaining: [Int32]
    private var decided: [Bool]
    /// The record position of every URL and kind the run fetches.
    private let positions: [KindedURL: Int32]
    /// Per record position p: the actions waiting on it are
    /// `waiters[waiterStart[p]..<waiterStart[p + 1]]` (one flat array, not one per position).
    private let waiterStart: [Int32]
    private let waiters: [Int32]
    /// Per record position: what its record found, once it is in.
    private var copies: [FoundCopy?]
    /// Changes not yet written, and whether one was an urgent message's.
    private(set) var changed = false
    private(set) var urgentChanged = false
    /// A run that is stopping decides nothing from a failure: it may be the stop's own.
    private var stopping = false

    private static let undecidable: Int32 = -1

    /// What a record says of one URL as one kind.
    private struct FoundCopy {
        var state: AssetState
        var sha256: String?
    }

    /// Records are placed as the report places them: `plan.fetch`'s items in
    /// order, one record per kind in the kinds' order.
    init(manifest: Manifest, plan: AssetPlan, previous: ReadinessIndex?, store: CacheStore, now: Double) {
        actions = manifest.actions
        self.now = now
        entries = MessageEntries(store: store)
        var positions: [KindedURL: Int32] = [:]
        positions.reserveCapacity(plan.fetchedRecords)
        var next: Int32 = 0
        for item in plan.fetch {
            for kind in item.kinds {
                positions[KindedURL(url: item.url, kind: kind)] = next
                next += 1
            }
        }
        self.positions = positions
        copies = Array(repeating: nil, count: plan.fetchedRecords)
        var remaining = [Int32](repeating: 0, count: actions.count)
        decided = Array(repeating: false, count: actions.count)

        var before: [String: ReadinessIndex.Message] = [:]
        for message in previous?.messages ?? [] { before[message.id] = message }
        var shown: [ReadinessIndex.Message] = []
        shown.reserveCapacity(actions.count)
        // Each action's waits, as (position, action) in action order.
        var waits: [(position: Int32, action: Int32)] = []
        for (index, action) in actions.enumerated() {
            shown.append(before.removeValue(forKey: action.id) ?? Self.pending(action))
            // The plan fetched no asset of an expired or held-back action: its verdict needs none.
            guard !action.isExpired(at: now), action.heldBack == nil, action.prefetch else { continue }
            action.message.forEachAsset { url, kind in
                guard let position = positions[KindedURL(url: url, kind: kind)] else { return }
                waits.append((position, Int32(index)))
                remaining[index] += 1
            }
        }
        // Grouped by position, a counting sort: an action's order is kept within each.
        var start = [Int32](repeating: 0, count: plan.fetchedRecords + 1)
        for wait in waits { start[Int(wait.position) + 1] += 1 }
        for position in 0..<plan.fetchedRecords { start[position + 1] += start[position] }
        var free = start
        var waiters = [Int32](repeating: 0, count: waits.count)
        for wait in waits {
            waiters[Int(free[Int(wait.position)])] = wait.action
            free[Int(wait.position)] += 1
        }
        self.shown = shown
        waiterStart = start
        self.waiters = waiters
        self.remaining = remaining
        carried = (previous?.messages ?? []).filter { before[$0.id] != nil }
    }

    /// A message of the manifest that no index has had yet.
    private static func pending(_ action: TriggeredAction) -> ReadinessIndex.Message {
        var assets: [ReadinessIndex.Asset] = []
        action.message.forEachAsset { url, kind in assets.append(ReadinessIndex.Asset(url: url.redacted, kind: kind)) }
        return ReadinessIndex.Message(
            id: action.id, status: .deferred, reason: ReadinessIndex.Undecided.pending, detail: nil,
            priority: action.priority, triggers: action.conditions, assets: assets, decidedAt: nil)
    }

    /// Decides every action that waits on no asset: those the run fetches nothing for.
    mutating func start(at wallClock: Double) -> [Int] {
        actions.indices.filter { remaining[$0] == 0 }.map { index in
            decide(index, at: wallClock)
            return index
        }
    }

    /// From now on a failure decides nothing: the stop may have caused it.
    mutating func stop() {
        stopping = true
    }

    /// Takes an asset's records (`position` is the first's); returns the actions decided by them.
    mutating func take(_ records: [AssetRecord], at position: Int, wallClock: Double) -> [Int] {
        var newlyDecided: [Int] = []
        for (offset, record) in records.enumerated() {
            let at = position + offset
            guard at < copies.count else { continue }
            copies[at] = FoundCopy(state: record.state, sha256: record.sha256)
            let failed = record.path == nil
            for waiter in waiterStart[at]..<waiterStart[at + 1] {
                let index = Int(waiters[Int(waiter)])
                guard remaining[index] > 0 else { continue }
                if failed && stopping {
                    remaining[index] = Self.undecidable
                    continue
                }
                remaining[index] -= 1
                if remaining[index] == 0 {
                    decide(index, at: wallClock)
                    newlyDecided.append(index)
                }
            }
        }
        return newlyDecided
    }

    private mutating func decide(_ index: Int, at wallClock: Double) {
        decided[index] = true
        let action = actions[index]
        let verdict = Readiness.verdict(for: action, at: now) { url, kind in
            copy(of: KindedURL(url: url, kind: kind))?.state
        }
        // The lookup reads copies of the arrays (shared, not copied): `entries` is being changed meanwhile.
        let (positions, copies) = (self.positions, self.copies)
        let message = entries.message(for: action, verdict: verdict, decidedAt: wallClock) { key in
            guard let found = positions[key].flatMap({ copies[Int($0)] }), case .available(let path) = found.state,
                  let sha256 = found.sha256 else { return nil }
            return (path, sha256)
        }
        // The same verdict as the index gave keeps its time and costs no write.
        guard !shown[index].sameVerdict(as: message) else { return }
        shown[index] = message
        changed = true
        if action.isUrgent { urgentChanged = true }
    }

    private func copy(of key: KindedURL) -> FoundCopy? {
        positions[key].flatMap { copies[Int($0)] }
    }

    /// The messages of an index written now; clears the changes it holds.
    mutating func snapshot() -> [ReadinessIndex.Message] {
        changed = false
        urgentChanged = false
        return shown + carried
    }

    /// Whether the run decided the action: a stopped run leaves the others as the last index had them.
    func isDecided(_ index: Int) -> Bool {
        decided[index]
    }

    /// A stopped run's undecided messages that were new: the run's end writes them so.
    mutating func markStopped() {
        for index in shown.indices where !decided[index] && shown[index].reason == ReadinessIndex.Undecided.pending
            && shown[index].decidedAt == nil {
            shown[index].reason = ReadinessIndex.Undecided.runStopped
        }
    }
}
