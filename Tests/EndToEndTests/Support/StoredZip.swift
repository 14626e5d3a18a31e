import Foundation

/// A ZIP of stored (uncompressed) files written here byte by byte, for archives
/// the fixtures should not hold, such as one whose paths are longer than PATH_MAX.
enum StoredZip {
    /// `date`: every entry's MS-DOS date (0x21: 1980-01-01).
    static func make(_ files: [(name: String, bytes: [UInt8])], date: UInt16 = 0x21) -> Data {
        var archive: [UInt8] = []
        var central: [UInt8] = []
        for file in files {
            let name = Array(file.name.utf8)
            let crc = crc32(file.bytes)
            let offset = UInt32(archive.count)
            // Local header: version 2.0, no flags, stored, at 00:00 of `date`.
            archive += le32(0x0403_4B50) + le16(20) + le16(0) + le16(0) + le16(0) + le16(date)
            archive += le32(crc) + le32(UInt32(file.bytes.count)) + le32(UInt32(file.bytes.count))
            archive += le16(UInt16(name.count)) + le16(0) + name + file.bytes
            // Central record: made by Unix, a regular file of mode 0644.
            central += le32(0x0201_4B50) + le16(3 << 8 | 20) + le16(20) + le16(0) + le16(0) + le16(0) + le16(date)
            central += le32(crc) + le32(UInt32(file.bytes.count)) + le32(UInt32(file.bytes.count))
            central += le16(UInt16(name.count)) + le16(0) + le16(0) + le16(0) + le16(0)
            central += le32(UInt32(0o100644) << 16) + le32(offset) + name
        }
        let end = le32(0x0605_4B50) + le16(0) + le16(0) + le16(UInt16(files.count)) + le16(UInt16(files.count))
            + le32(UInt32(central.count)) + le32(UInt32(archive.count)) + le16(0)
        return Data(archive + central + end)
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    /// `prefix` and four bytes more whose CRC-32 is `target`'s (issue 37's
    /// forged entry: another file that the central directory cannot tell
    /// from the cached one). CRC-32's last table lookups are undone from the
    /// CRC wanted back to the four table indices, then the bytes that make
    /// the register after `prefix` take them are chosen.
    static func forgingCRC(of target: [UInt8], prefix: [UInt8]) -> [UInt8] {
        let table = (0..<256).map { index -> UInt32 in
            var value = UInt32(index)
            for _ in 0..<8 { value = value & 1 == 1 ? (value >> 1) ^ 0xEDB8_8320 : value >> 1 }
            return value
        }
        var byTopByte = [Int](repeating: 0, count: 256)
        for (index, value) in table.enumerated() { byTopByte[Int(value >> 24)] = index }
        let wanted = ~crc32(target)
        var indices = [Int](repeating: 0, count: 4)
        var register = wanted
        for step in (0..<4).reversed() {
            indices[step] = byTopByte[Int(register >> 24)]
            register = (register ^ table[indices[step]]) << 8
        }
        var state = ~crc32(prefix)
        var forged = prefix
        for index in indices {
            forged.append(UInt8((state ^ UInt32(index)) & 0xFF))
            state = (state >> 8) ^ table[index]
        }
        return forged
    }

    private static func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
    private static func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) } }
}
