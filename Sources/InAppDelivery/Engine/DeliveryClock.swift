/// Where the engine gets the time, and its only source of it: the engine has no
/// timers or threads, so a driven clock replays a day of events in milliseconds.
public protocol DeliveryClock {
    /// Epoch seconds.
    var now: Double { get }
}
