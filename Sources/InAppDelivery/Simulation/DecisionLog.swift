/// A delegate that keeps every decision, in order.
public final class DecisionLog: DeliveryDelegate {
    public private(set) var decisions: [DeliveryDecision] = []

    public init() {}

    public func deliveryEngine(_ engine: DeliveryEngine, didDecide decision: DeliveryDecision) {
        decisions.append(decision)
    }
}
