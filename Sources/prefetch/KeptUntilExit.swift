/// Values the process needs until it exits and no longer: they are never freed.
/// A plan of 10,000 messages is hundreds of thousands of small allocations (the
/// manifest's model and the report); the kernel takes the whole heap back at
/// exit at once, where freeing them one by one cost more than printing the report.
enum KeptUntilExit {
    private final class Box<Value> {
        let value: Value
        init(_ value: Value) { self.value = value }
    }

    static func keep<Value>(_ value: Value) {
        _ = Unmanaged.passRetained(Box(value))
    }
}
