import AssetCache

/// Text from a manifest, a server or the cache, made fit for a terminal or a log:
/// message ids and types, URLs, failure details, event names. Every printer of
/// text and the log handler pass such text through `safe`; JSON output does not
/// (its encoder escapes control characters, and programs need the exact strings).
///
/// As git's `core.quotePath` and `ls` do, characters that would act on the
/// terminal instead of being shown are written as escapes: `\t`, `\n`, `\r`,
/// `\xHH` for the other C0 controls and DEL, `\u{HHHH}` for C1 controls,
/// bidirectional formatting characters (which reorder what follows them on
/// screen) and the Unicode line separators. Passwords in URLs become `***`.
enum TerminalText {
    static func safe(_ text: String) -> String {
        escaped(Redaction.redactingPasswords(in: text))
    }

    static func escaped(_ text: String) -> String {
        // Plain ASCII, by far the common case, is returned as it is.
        guard text.utf8.contains(where: { $0 < 0x20 || $0 >= 0x7F }),
              text.unicodeScalars.contains(where: needsEscape)
        else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar) else {
                out.unicodeScalars.append(scalar)
                continue
            }
            switch scalar.value {
            case 0x09: out += "\\t"
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case 0..<0x20, 0x7F: out += "\\x" + hex(scalar.value, digits: 2)
            default: out += "\\u{" + hex(scalar.value, digits: 4) + "}"
            }
        }
        return out
    }

    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7F...0x9F: true
        // ALM, LRM, RLM; LRE, RLE, PDF, LRO, RLO; LRI, RLI, FSI, PDI.
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        // Line and paragraph separators break a line as a newline does.
        case 0x2028, 0x2029: true
        default: false
        }
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
