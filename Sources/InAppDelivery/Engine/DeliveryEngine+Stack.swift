import AssetCache

extension DeliveryEngine {
    /// What happens to a message a trigger accepted. Returns whether the stack was
    /// offered, so that an event does not offer it twice.
    func accept(_ entry: PendingMessage) -> Bool {
        if entry.action.message.isControl {
            // A control message stands for "this user saw nothing": it is recorded
            // at once and, having been accepted, still counts for the interval.
            record(.control, entry.id)
            return false
        }
        if entry.action.delay > 0 {
            delayed.add(entry)
            record(.queued, entry.id, reason: .queued(.delay), detail: "for \(Seconds.format(entry.action.delay)) s")
            return false
        }
        return place(entry)
    }

    /// Puts a message on top of the stack and offers it when the user can see it.
    @discardableResult
    func place(_ entry: PendingMessage) -> Bool {
        stack.push(entry)
        if !isInForeground {
            record(.queued, entry.id, reason: .queued(.background))
            return false
        }
        if let visible {
            record(.queued, entry.id, reason: .queued(.messageVisible), detail: "'\(visible.id)' is visible")
            return false
        }
        offerTop()
        return true
    }

    /// Offers the top of the stack, most recent first. A message discarded on the
    /// way lets the next one be offered; one that waits stops the offer, or the
    /// presenter would be asked about it again at once.
    func offerTop() {
        while isInForeground, visible == nil, let entry = stack.pop() {
            let check = DisplayCheck(now: clock.now, orientation: orientation, readiness: readiness, prefetching: isPrefetching)
            switch check.check(entry) {
            case .discard(let reason, let detail):
                record(.discarded, entry.id, reason: .discarded(reason), detail: detail)
            case .awaitAssets:
                awaitingAssets.append(entry)
                record(.queued, entry.id, reason: .queued(.assetsPending))
            case .showable(let assets):
                let presentation = Presentation(
                    id: entry.id, message: entry.action.message, assets: assets,
                    triggeredAt: entry.triggeredAt, isLocal: entry.isLocal)
                switch presenter.displayChoice(for: presentation) {
                case .now:
                    visible = presentation
                    record(.displayed, entry.id)
                    presenter.present(presentation)
                    return
                case .later:
                    stack.push(entry)
                    record(.queued, entry.id, reason: .queued(.presenterLater))
                    return
                case .discard:
                    record(.discarded, entry.id, reason: .discarded(.presenterDiscarded))
                }
            }
        }
    }
}

extension DeliveryEngine {
    // MARK: A prefetch run in progress

    /// A prefetch run has started (at session start, typically): from now on a
    /// message whose asset is not in the cache yet waits for the run, queued
    /// with reason `assets_pending`, instead of being discarded. Feed the run's
    /// ``Prefetcher/decisions()`` to ``prefetchDecided(_:)`` and call
    /// ``prefetchEnded()`` when it returns.
    public func prefetchStarted() {
        releaseDueMessages()
        isPrefetching = true
    }

    /// The run decided message `id`: if it was waiting for its assets, it is
    /// offered now, on top of the stack, as when it was triggered.
    public func prefetchDecided(_ id: String) {
        releaseDueMessages()
        guard let index = awaitingAssets.firstIndex(where: { $0.id == id }) else { return }
        place(awaitingAssets.remove(at: index))
    }

    /// The run is over: what still waits is offered once more, and discarded
    /// if its assets are still missing.
    public func prefetchEnded() {
        isPrefetching = false
        releaseDueMessages()
        let waiting = awaitingAssets
        awaitingAssets = []
        for entry in waiting { place(entry) }
    }

    /// Messages that waited for a run past their `timeout` are discarded for it.
    func discardOverdueWaiters() {
        let now = clock.now
        guard awaitingAssets.contains(where: { now > $0.deadline }) else { return }
        let overdue = awaitingAssets.filter { now > $0.deadline }
        awaitingAssets.removeAll { now > $0.deadline }
        for entry in overdue {
            let detail = "waited \(Seconds.format(now - entry.triggeredAt)) s for its assets; timeout \(Seconds.format(entry.action.timeout)) s"
            record(.discarded, entry.id, reason: .discarded(.displayTimeout), detail: detail)
        }
    }
}
