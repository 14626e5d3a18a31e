import Foundation

/// The wall clock, for apps.
public struct SystemClock: DeliveryClock, Sendable {
    public init() {}
    public var now: Double { Date().timeIntervalSince1970 }
}
