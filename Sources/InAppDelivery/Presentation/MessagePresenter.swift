/// What the app puts on screen. The engine decides what may be shown; the
/// presenter has the last word, as `beforeInAppMessageDisplayed:` does in the
/// seed SDKs, and then shows it until the app calls `dismiss()`.
public protocol MessagePresenter: AnyObject {
    func displayChoice(for presentation: Presentation) -> DisplayChoice
    /// Called after the engine has recorded the message as visible.
    func present(_ presentation: Presentation)
}

extension MessagePresenter {
    /// Presenters that only decide (tests, the simulator) have nothing to draw.
    public func present(_ presentation: Presentation) {}
}
