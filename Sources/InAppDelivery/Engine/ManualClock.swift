/// A clock that moves only when told: tests and `prefetch simulate` drive it.
/// A class, so that the engine and its driver see the same time.
public final class ManualClock: DeliveryClock {
    public var now: Double

    public init(now: Double) {
        self.now = now
    }

    public func advance(by seconds: Double) {
        now += seconds
    }
}
