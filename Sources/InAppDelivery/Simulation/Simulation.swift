/// Replays timed events through an engine on a ``ManualClock``, so a day of
/// events takes as long as computing it. Delayed messages are released at the
/// moment they fall due, between events, as a real run loop would.
public final class Simulation {
    public let startTime: Double
    public let clock: ManualClock
    public let engine: DeliveryEngine
    public let log = DecisionLog()

    public init(
        triggers: TriggerTable, readiness: any ReadinessSource, configuration: DeliveryConfiguration,
        startTime: Double, presenter: any MessagePresenter = DisplayingPresenter()
    ) {
        self.startTime = startTime
        clock = ManualClock(now: startTime)
        engine = DeliveryEngine(
            triggers: triggers, readiness: readiness, presenter: presenter, clock: clock, configuration: configuration)
        engine.delegate = log
    }

    /// Returns every decision made, including those of messages still delayed
    /// after the last event.
    @discardableResult
    public func replay(_ events: [TimedEvent]) -> [DeliveryDecision] {
        for timed in events {
            advance(to: startTime + timed.at)
            apply(timed.event)
        }
        while let due = engine.nextDueTime {
            clock.now = max(clock.now, due)
            engine.releaseDueMessages()
        }
        return log.decisions
    }

    private func advance(to time: Double) {
        while let due = engine.nextDueTime, due <= time {
            clock.now = max(clock.now, due)
            engine.releaseDueMessages()
        }
        clock.now = max(clock.now, time)
    }

    private func apply(_ event: SimulationEvent) {
        switch event {
        case .trigger(let trigger): engine.handle(trigger)
        case .dismiss: engine.dismiss()
        case .background: engine.appDidEnterBackground()
        case .foreground: engine.appWillEnterForeground()
        case .orientation(let orientation): engine.orientationChanged(to: orientation)
        case .displayNext: engine.displayNext()
        }
    }
}
