/// One central-directory entry as libzip reports it, before any check.
struct ArchiveEntry {
    var index: UInt64
    /// The name as libzip decodes it (UTF-8, or CP437 converted to UTF-8).
    var name: String
    /// The name's bytes as the central directory stores them, which the path rules
    /// also see: decoding could turn a control character into a printable one, and
    /// libzip's C string stops at a NUL byte.
    var rawName: [UInt8]
    var size: Int64
    var compressedSize: Int64
    var compressionMethod: Int32
    var encryptionMethod: UInt16
    /// `st_mode` from the external attributes, when the entry was made on UNIX.
    var unixMode: UInt32?

    var isDirectory: Bool { name.hasSuffix("/") }

    /// The name quoted for a message, control characters made visible: the stored
    /// bytes when they are UTF-8 (libzip would show a CP437 reading of a control
    /// character, or stop at a NUL), else libzip's decoding.
    var quotedName: String {
        String(validating: rawName, as: UTF8.self).map(Self.quoted) ?? Self.quoted(name)
    }

    /// Raw name bytes for a message, decoded leniently.
    static func quoted(rawName: [UInt8]) -> String {
        quoted(String(decoding: rawName, as: UTF8.self))
    }

    private static func quoted(_ name: String) -> String {
        var text = ""
        for scalar in name.unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F {
                text += "\\x" + UInt8(scalar.value).twoHexDigits
            } else {
                text.unicodeScalars.append(scalar)
            }
        }
        return "'\(text)'"
    }
}
