/// Told of every decision, `no_matching_trigger` included (the seed SDKs'
/// `noMatchingTriggerForEvent`), so an app can log or count what users missed.
public protocol DeliveryDelegate: AnyObject {
    func deliveryEngine(_ engine: DeliveryEngine, didDecide decision: DeliveryDecision)
}
