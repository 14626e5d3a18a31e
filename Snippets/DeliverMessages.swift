//! Feed events to the delivery engine and show what it decides.
// snippet.hide
import AssetCache
import Foundation
import InAppDelivery

func example(manifest: Manifest, store: CacheStore) throws {
// snippet.show
/// Draws messages; the engine decides which and when.
final class ConsolePresenter: MessagePresenter {
    func displayChoice(for presentation: Presentation) -> DisplayChoice {
        .now  // or .later to keep it on the stack, .discard to drop it
    }

    func present(_ presentation: Presentation) {
        print("showing \(presentation.id) from \(presentation.assets.map(\.path))")
    }
}

/// Told of every decision, including events that matched no trigger.
final class DecisionPrinter: DeliveryDelegate {
    func deliveryEngine(_ engine: DeliveryEngine, didDecide decision: DeliveryDecision) {
        print(decision.action.rawValue, decision.trigger ?? "-", decision.reason?.description ?? "")
    }
}

let presenter = ConsolePresenter()
let printer = DecisionPrinter()
// Readiness comes from the cache at display time; an invalid filter in the
// manifest throws a ManifestError naming its JSON path.
let engine = try DeliveryEngine(
    manifest: manifest, readiness: store, presenter: presenter, clock: SystemClock(),
    configuration: DeliveryConfiguration(minimumTriggerInterval: 30), delegate: printer)

engine.handle(.sessionStart)
engine.handle(.customEvent(name: "exit intent", properties: ["cart_total": .number(42)]))
engine.dismiss()
engine.handle(.purchase(Purchase(productID: "sku-1", price: 9.99, currency: "USD", quantity: 1)))
// snippet.hide
}
