/// A count with its noun as English says it: "1 tree", "2 trees", "0 trees".
enum Plural {
    static func count(_ value: Int, _ noun: String, plural: String? = nil) -> String {
        "\(value) \(value == 1 ? noun : plural ?? noun + "s")"
    }
}
