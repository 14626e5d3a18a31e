#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// One `key = value` line of a configuration file, and where it is.
struct ConfigEntry: Sendable {
    var key: String
    var value: String
    var file: String
    var line: Int

    var place: String { "\(file):\(line)" }
}

/// prefetch.conf as read from disk: `key = value` lines, `#` comment lines and
/// blank lines. It says what the service trusts (keys, the manifest's URL), so
/// it is opened like every other input file (``InputFile``: no link followed,
/// never a FIFO) and refused when someone but its owner or root could change it.
enum ConfigFile {
    static let sizeLimit = 64 * 1024

    /// The file's lines; nil when it is `absent`: the system's and the user's
    /// files may not exist; a user's may also be out of reach (a HOME that is
    /// not the caller's, as under `sudo -u`); a `--config` must be there.
    static func read(_ path: String, absent: Set<Int32>) throws(CommandFailure) -> [ConfigEntry]? {
        var status = stat()
        if lstat(path, &status) != 0, absent.contains(errno) { return nil }
        let opened: (fd: Int32, info: stat)
        switch InputFile.open(path) {
        case .success(let file): opened = file
        case .failure(let refusal):
            throw CommandFailure(message: "cannot read configuration file '\(path)': \(refusal)", status: ExitStatus.usage)
        }
        defer { close(opened.fd) }
        if let problem = FileTrust.problem(path: path, info: opened.info) {
            throw CommandFailure(message: "refusing configuration file \(problem)", status: ExitStatus.usage)
        }
        guard let data = readBytes(from: opened.fd, limit: sizeLimit + 1, expected: Int(clamping: opened.info.st_size)) else {
            throw CommandFailure(message: "cannot read configuration file '\(path)': \(String(cString: strerror(errno)))", status: ExitStatus.usage)
        }
        guard data.count <= sizeLimit else {
            throw CommandFailure(message: "configuration file '\(path)' is larger than 64 KiB; it holds a few settings", status: ExitStatus.usage)
        }
        return try parse(data, file: path)
    }

    static func parse(_ data: Data, file: String) throws(CommandFailure) -> [ConfigEntry] {
        guard let text = String(validating: data, as: UTF8.self) else {
            throw CommandFailure(message: "configuration file '\(file)' is not UTF-8 text", status: ExitStatus.usage)
        }
        var entries: [ConfigEntry] = []
        for (index, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).enumerated() {
            let place = "\(file):\(index + 1)"
            let line = trimmed(raw)
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.unicodeScalars.contains(where: { $0.properties.generalCategory == .control && $0 != "\t" }) {
                throw CommandFailure(message: "\(place): a control character; write one 'key = value' a line", status: ExitStatus.usage)
            }
            guard let equals = line.firstIndex(of: "=") else {
                throw CommandFailure(message: "\(place): no '='; write 'key = value' (a '#' starts a comment line)", status: ExitStatus.usage)
            }
            let key = trimmed(line[..<equals])
            let value = trimmed(line[line.index(after: equals)...])
            guard !key.isEmpty else {
                throw CommandFailure(message: "\(place): no key before '='", status: ExitStatus.usage)
            }
            // "manifest https://…?a=b": the '=' found is the value's.
            if let blank = key.firstIndex(where: { $0 == " " || $0 == "\t" }) {
                throw CommandFailure(message: "\(place): no '=' after '\(key[..<blank])'; write 'key = value'", status: ExitStatus.usage)
            }
            guard !value.isEmpty else {
                throw CommandFailure(message: "\(place): '\(key)' has no value after '='", status: ExitStatus.usage)
            }
            entries.append(ConfigEntry(key: key, value: value, file: file, line: index + 1))
        }
        return entries
    }

    /// `path` as written in `file`: a relative one is relative to the file's
    /// directory, so the file can move with what it names (keys.d among them).
    static func resolve(_ path: String, beside file: String) -> String {
        guard !path.hasPrefix("/"), let slash = file.lastIndex(of: "/") else { return path }
        return "\(file[...slash])\(path)"
    }

    /// Without the spaces, tabs and CR (a file saved on Windows) around it.
    private static func trimmed(_ text: Substring) -> String {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        return String(text.drop(while: blank).reversed().drop(while: blank).reversed())
    }
}
