/// "did you mean …?" for a mistyped name: the closest candidate by edit
/// distance, when it is close enough to be the one meant (a configuration key,
/// a manifest's key or trigger type; `CommandName` in prefetch holds command
/// names to its own, stricter, bound).
package enum Suggestion {
    package static func closest(to word: String, among candidates: [String]) -> String? {
        let scored = candidates.map { (candidate: $0, distance: editDistance(Array(word), Array($0))) }
        guard let best = scored.min(by: { $0.distance < $1.distance }) else { return nil }
        return best.distance <= max(2, word.count / 3) ? best.candidate : nil
    }

    /// Insertions, deletions, substitutions and swaps of two neighbours, each
    /// one edit (optimal string alignment): "stauts" is one swap from "status",
    /// "budegt" from "budget".
    package static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}
