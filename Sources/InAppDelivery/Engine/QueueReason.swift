/// Why a message went onto (or back onto) the stack instead of the screen.
/// Raw values are the `reason` strings of `simulate --json`.
public enum QueueReason: String, Sendable {
    /// Triggered while the app was in the background.
    case background
    case messageVisible = "message_visible"
    case presenterLater = "presenter_later"
    /// Accepted with a `delay`: it joins the stack when the delay has passed.
    case delay
    /// An asset is not in the cache yet and a prefetch run is fetching it
    /// (``DeliveryEngine/prefetchStarted()``): offered again as soon as the run
    /// decides the message, discarded at its `timeout`.
    case assetsPending = "assets_pending"
}
