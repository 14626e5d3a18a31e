/// The simulator's presenter: shows every message it is offered, which then
/// stays visible until a `dismiss` event (docs/delivery.md).
public final class DisplayingPresenter: MessagePresenter {
    public init() {}

    public func displayChoice(for presentation: Presentation) -> DisplayChoice { .now }
}
