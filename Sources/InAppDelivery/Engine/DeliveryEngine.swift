import AssetCache

/// Decides which in-app message a user sees and when (docs/delivery.md): triggers and
/// their filters, priority, the minimum interval, the LIFO stack, and the
/// discards made at display time.
///
/// Not thread-safe and not meant to be: like a view controller it belongs to the
/// one context that feeds it events, and it has no timers or threads of its own.
/// Every time it needs comes from the injected clock; messages waiting on a
/// `delay` are released whenever the engine is next called, and a driver that
/// wants them on time calls ``releaseDueMessages()`` at ``nextDueTime``.
public final class DeliveryEngine {
    public let triggers: TriggerTable
    public weak var delegate: (any DeliveryDelegate)?
    public private(set) var orientation: DeviceOrientation
    public private(set) var isInForeground = true
    /// The message on screen, until `dismiss()`.
    public internal(set) var visible: Presentation?

    let readiness: any ReadinessSource
    let presenter: any MessagePresenter
    let clock: any DeliveryClock
    var stack = MessageStack()
    var delayed = DelayQueue()
    /// Messages whose assets a prefetch run in progress is fetching.
    var awaitingAssets: [PendingMessage] = []
    /// Between ``prefetchStarted()`` and ``prefetchEnded()``.
    public internal(set) var isPrefetching = false
    var rateLimiter: RateLimiter

    public init(
        triggers: TriggerTable, readiness: any ReadinessSource, presenter: any MessagePresenter,
        clock: any DeliveryClock, configuration: DeliveryConfiguration = DeliveryConfiguration(),
        delegate: (any DeliveryDelegate)? = nil
    ) {
        self.triggers = triggers
        self.readiness = readiness
        self.presenter = presenter
        self.clock = clock
        self.delegate = delegate
        orientation = configuration.orientation
        rateLimiter = RateLimiter(minimumInterval: configuration.minimumTriggerInterval)
    }

    /// Compiles the manifest's triggers first; see ``TriggerTable/init(_:)``.
    public convenience init(
        manifest: Manifest, readiness: any ReadinessSource, presenter: any MessagePresenter,
        clock: any DeliveryClock, configuration: DeliveryConfiguration = DeliveryConfiguration(),
        delegate: (any DeliveryDelegate)? = nil
    ) throws(ManifestError) {
        self.init(
            triggers: try TriggerTable(manifest), readiness: readiness, presenter: presenter,
            clock: clock, configuration: configuration, delegate: delegate)
    }

    /// Ids of the messages waiting on the stack, top first.
    public var stackedIDs: [String] { stack.ids }

    /// When the next delayed message joins the stack, or the next message
    /// waiting for a prefetch run reaches its timeout, if one is waiting.
    public var nextDueTime: Double? {
        let timeout = awaitingAssets.map { $0.deadline }.min()
        return [delayed.nextDue, timeout].compactMap { $0 }.min()
    }

    /// A trigger event: fires the highest-priority live action it matches (ties
    /// by manifest order), subject to the minimum interval.
    public func handle(_ event: TriggerEvent) {
        releaseDueMessages()
        let now = clock.now
        var offered = false
        if let action = winner(for: event, at: now) {
            switch rateLimiter.check(action, at: now) {
            case .allowed:
                rateLimiter.accept(at: now)
                offered = accept(PendingMessage(action: action, triggeredAt: now, isLocal: false))
            case .limited(let elapsed, let required):
                let detail = "\(Seconds.format(elapsed)) s since the last accepted trigger; \(Seconds.format(required)) s required"
                record(.rateLimited, action.id, reason: .minimumInterval, detail: detail)
            }
        } else {
            record(DeliveryDecision(at: now, action: .noMatchingTrigger, trigger: nil, event: event))
        }
        if event.offersStack && !offered { offerTop() }
    }

    /// A message the app made itself goes on the stack like a triggered one, but
    /// is no trigger: the minimum interval neither applies to it nor counts it.
    public func add(localMessage message: InAppMessage, id: String) {
        releaseDueMessages()
        _ = accept(PendingMessage(action: TriggeredAction(localID: id, message: message), triggeredAt: clock.now, isLocal: true))
    }

    /// The manual "show the top of the stack"; never rate-limited.
    public func displayNext() {
        releaseDueMessages()
        offerTop()
    }

    public func dismiss() {
        releaseDueMessages()
        visible = nil
    }

    /// Triggers keep firing in the background; what they accept waits on the stack.
    public func appDidEnterBackground() {
        releaseDueMessages()
        isInForeground = false
    }

    public func appWillEnterForeground() {
        releaseDueMessages()
        isInForeground = true
        offerTop()
    }

    public func orientationChanged(to orientation: DeviceOrientation) {
        releaseDueMessages()
        self.orientation = orientation
    }

    /// Moves every delayed message whose time has come onto the stack, in the
    /// order they fall due.
    public func releaseDueMessages() {
        discardOverdueWaiters()
        while let entry = delayed.popDue(at: clock.now) {
            place(entry)
        }
    }

    /// A message waiting or on screen is not fired again: the same event twice
    /// must not stack it twice. Once shown and dismissed, or discarded, it may.
    func isPending(_ id: String) -> Bool {
        visible?.id == id || stack.contains(id) || delayed.contains(id) || awaitingAssets.contains { $0.id == id }
    }

    private func winner(for event: TriggerEvent, at now: Double) -> TriggeredAction? {
        var best: TriggeredAction?
        for action in triggers.matching(event, at: now) where !isPending(action.id) {
            // Strictly greater, so the first in manifest order keeps a tie.
            if best.map({ action.priority > $0.priority }) ?? true { best = action }
        }
        return best
    }

    func record(_ action: DeliveryDecision.Action, _ id: String, reason: DecisionReason? = nil, detail: String? = nil) {
        record(DeliveryDecision(at: clock.now, action: action, trigger: id, reason: reason, detail: detail))
    }

    func record(_ decision: DeliveryDecision) {
        delegate?.deliveryEngine(self, didDecide: decision)
    }
}
