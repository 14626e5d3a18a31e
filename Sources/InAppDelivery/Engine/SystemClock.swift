#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The wall clock, for apps.
public struct SystemClock: DeliveryClock, Sendable {
    public init() {}
    public var now: Double { Date().timeIntervalSince1970 }
}
