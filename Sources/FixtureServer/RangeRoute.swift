/// The query parameters that shape how Range requests are answered: the ways
/// real servers support, cap or refuse them, and hostile answers for tests.
struct RangeRoute: Equatable {
    enum Mode: Equatable {
        /// Several ranges in one request get one `multipart/byteranges` answer (nginx).
        case multipart
        /// Only the first range is answered, as a plain 206 (a server serving one range a request).
        case first
        /// A request of 2 or more ranges is answered with 416.
        case refuseMultiple
        /// Every Range is answered with 200 and the whole file.
        case ignore
    }

    /// Answers that break the rules on purpose (`bad_range=`).
    enum Hostility: Equatable {
        /// A plain 206 whose Content-Range names other bytes than the first range asked.
        case mismatch
        /// A multipart answer with one more part that overlaps the first.
        case overlap
        /// A part whose range begins at the file's end.
        case pastEnd
        /// A part (or a single range's body) that never ends.
        case endless
        /// A multipart answer (even to one range) whose body does not use the
        /// boundary its Content-Type names: it cannot be parsed.
        case garbled
    }

    var mode = Mode.multipart
    /// nginx's `max_ranges`: more satisfiable ranges than this get 200 and the whole file.
    var maxRanges: Int?
    var acceptRanges = true
    var gzip = false
    /// Relative to the root: served instead of the route's file, validators
    /// and all, once `after` requests to this route were answered.
    var then: String?
    var after: Int?
    var hostility: Hostility?

    mutating func apply(name: String, value: String, problems: inout [String]) {
        switch name {
        case "ranges":
            let modes: [String: Mode] = ["multipart": .multipart, "first": .first, "416multi": .refuseMultiple, "ignore": .ignore]
            mode = QueryValue.choice(name, value, modes, &problems) ?? .multipart
        case "max_ranges": maxRanges = QueryValue.count(name, value, &problems)
        case "accept_ranges": acceptRanges = QueryValue.flag(name, value, &problems)
        case "gzip": gzip = QueryValue.flag(name, value, &problems)
        case "then": then = value
        case "after": after = QueryValue.count(name, value, &problems)
        case "bad_range":
            let kinds: [String: Hostility] = ["mismatch": .mismatch, "overlap": .overlap, "past_end": .pastEnd, "endless": .endless, "garbled": .garbled]
            hostility = QueryValue.choice(name, value, kinds, &problems)
        default: break
        }
    }
}
