/// A purchase as the app logs it. Triggers look at the product id and the
/// properties; price, currency and quantity travel along for the delegate.
public struct Purchase: Sendable, Equatable {
    public var productID: String
    public var price: Double
    public var currency: String
    public var quantity: Int
    public var properties: [String: EventProperty]

    public init(
        productID: String, price: Double = 0, currency: String = "USD", quantity: Int = 1,
        properties: [String: EventProperty] = [:]
    ) {
        self.productID = productID
        self.price = price
        self.currency = currency
        self.quantity = quantity
        self.properties = properties
    }
}
