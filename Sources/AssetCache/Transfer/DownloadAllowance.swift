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
}
