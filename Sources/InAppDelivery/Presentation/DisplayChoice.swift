/// The presenter's answer for a message about to be shown.
public enum DisplayChoice: Sendable, Equatable {
    case now
    /// Back on top of the stack, offered again when the user is next eligible.
    case later
    /// Dropped (`presenter_discarded`); a later event may fire it again.
    case discard
}
