/// One `trigger_condition`, compiled: which events fire it.
enum ConditionMatcher: Sendable {
    case sessionStart
    /// nil product: any purchase.
    case purchase(productID: String?, filters: PropertyFilters)
    case customEvent(name: String, filters: PropertyFilters)
    /// nil campaign: any push.
    case pushClick(campaignID: String?)
    /// A condition type this device does not know: the action loads, this condition never fires.
    case never

    func matches(_ event: TriggerEvent, now: Double) -> Bool {
        switch (self, event) {
        case (.sessionStart, .sessionStart):
            return true
        case (.purchase(let productID, let filters), .purchase(let purchase)):
            return (productID == nil || productID == purchase.productID) && filters.pass(purchase.properties, now: now)
        case (.customEvent(let name, let filters), .customEvent(let eventName, let properties)):
            return name == eventName && filters.pass(properties, now: now)
        case (.pushClick(let campaignID), .pushClick(let clicked)):
            return campaignID == nil || campaignID == clicked
        default:
            return false
        }
    }
}
