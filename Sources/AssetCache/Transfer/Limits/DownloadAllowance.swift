/// What one asset's transfer may download before the run defers it to a later
/// run instead (docs/limits.md): its share of the run's ``ByteBudget``, and on
/// a metered link the largest body it may have. The transfer checks both when
/// its response head arrives (Content-Length) and as the body arrives, and stops
/// with `TransferResult.deferral` set, its partial body kept for resume.
package struct DownloadAllowance: Sendable {
    package var budget: ByteBudget?
    /// `--metered-max-asset-bytes` for an asset that is not urgent on a metered link.
    package var maxAssetBytes: Int64?
    /// Bytes already taken from `budget` for this transfer (the size its ref remembers).
    package var held: Int64 = 0
    /// Body bytes of every attempt, error pages included: what the budget is charged.
    private(set) var received: Int64 = 0
    /// Called once, when the final response's head is known or the transfer
    /// ends before one: the next asset in plan order may claim the budget.
    package var headKnown: (@Sendable () -> Void)?

    package init(budget: ByteBudget? = nil, maxAssetBytes: Int64? = nil, held: Int64 = 0, headKnown: (@Sendable () -> Void)? = nil) {
        self.budget = budget
        self.maxAssetBytes = maxAssetBytes
        self.held = held
        self.headKnown = headKnown
    }

    /// Why an asset of `bytes` (nil: not known yet) may not be fetched now,
    /// taking them from the budget if it may. The metered cap first: it does
    /// not depend on what the other assets spent.
    package mutating func admit(bytes: Int64?) -> DiscardReason? {
        if let maxAssetBytes, let bytes, bytes > maxAssetBytes { return .metered }
        guard let budget else { return nil }
        if let bytes {
            guard budget.take(bytes) else { return .byteBudget }
            held = bytes
            return nil
        }
        return budget.left > 0 ? nil : .byteBudget
    }

    /// What leaves an asset for a later run, and why, in words for the log.
    struct Refusal: Equatable {
        var reason: DiscardReason
        var why: String
    }

    /// On a 2xx head announcing `length` body bytes after the `prefix` the file
    /// already holds: whether they fit the metered cap and the run's budget,
    /// taking them from the budget if so.
    mutating func admitHead(length: Int64, prefix: Int64) -> Refusal? {
        let assetBytes = prefix + length
        if let maxAssetBytes, assetBytes > maxAssetBytes {
            return Refusal(reason: .metered, why: "its Content-Length is \(assetBytes) bytes")
        }
        guard let budget else { return nil }
        let more = received + length - held
        guard more > 0 else { return nil }
        guard budget.take(more) else {
            return Refusal(reason: .byteBudget, why: "its Content-Length is \(length) bytes and \(max(0, budget.left + held - received)) are left")
        }
        held += more
        return nil
    }

    /// Body bytes that arrived: past what is held, more must be taken, and the
    /// transfer stops when there is none (the bytes in hand are counted anyway).
    mutating func charge(_ bytes: Int64) -> Refusal? {
        received += bytes
        guard let budget, received > held else { return nil }
        let more = received - held
        held = received
        if budget.take(more) { return nil }
        budget.force(more)
        return Refusal(reason: .byteBudget, why: "the run's \(budget.limit) bytes are spent")
    }

    /// The transfer ended: what it held and did not receive goes back, and the
    /// next asset in plan order may claim the budget.
    func settle() {
        budget?.giveBack(held - received)
        headKnown?()
    }
}
