/// A run's asset records, gathered as they finish and handed over in plan order
/// without a second copy of them: for 100,000 assets the records are over 10 MB,
/// and a dictionary of them, or a sorted copy, would double that.
struct RecordsInPlanOrder {
    private var records: [AssetRecord] = []
    /// The plan position of `records[i]`.
    private var positions: [Int32] = []

    init(capacity: Int) {
        records.reserveCapacity(capacity)
        positions.reserveCapacity(capacity)
    }

    mutating func append(_ record: AssetRecord, position: Int) {
        records.append(record)
        positions.append(Int32(position))
    }

    func contains(where predicate: (AssetRecord) -> Bool) -> Bool {
        records.contains(where: predicate)
    }

    /// Every record at its plan position, moved there in place by following
    /// the cycles of the permutation. `append` must have been called once for
    /// each position from 0 to count - 1.
    consuming func ordered() -> [AssetRecord] {
        for start in records.indices {
            while positions[start] != Int32(start) {
                let target = Int(positions[start])
                records.swapAt(start, target)
                positions.swapAt(start, target)
            }
        }
        return records
    }
}
