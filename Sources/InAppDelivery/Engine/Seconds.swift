/// Times in messages: whole seconds without a fraction, others with one.
enum Seconds {
    static func format(_ value: Double) -> String {
        if value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}
