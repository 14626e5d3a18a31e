import ArgumentParser
import AssetCache
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// One `--header 'Name: value'`. Any text parses; `problem` then says what is
/// wrong, naming the header but never quoting its value (it may be a secret).
struct HeaderArgument: ExpressibleByArgument, Sendable {
    private let raw: String

    init(argument: String) {
        raw = argument
    }

    private var colon: String.Index? { raw.firstIndex(of: ":") }
    var name: String { colon.map { String(raw[..<$0]) } ?? "" }
    var value: String {
        guard let colon else { return "" }
        return String(raw[raw.index(after: colon)...].drop { $0 == " " || $0 == "\t" })
    }

    /// "Name: value", as libcurl sends it.
    var line: String { "\(name): \(value)" }

    var problem: String? {
        if file != nil { return nil }
        guard colon != nil else {
            return "a --header has no ':' after its name; write it as 'Name: value' (what was given is not shown: it may be a secret)"
        }
        // RFC 9110 §5.6.2 token characters.
        let punctuation = Set("!#$%&'*+-.^_`|~".unicodeScalars)
        guard !name.isEmpty, name.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || punctuation.contains($0)) }) else {
            return "a --header's name (before ':') is not a header name: use letters, digits and '-'"
        }
        // A CR, LF or NUL would end the line and smuggle in another header: the
        // rule every request header is held to before libcurl sees it.
        if HeaderRules.problem(with: line) != nil {
            return "--header '\(name)': its value holds a CR, LF or NUL, which would start another header line"
        }
        // libcurl reads "Name:" with nothing after it as "do not send Name".
        if value.isEmpty { return "--header '\(name)': its value is empty" }
        return nil
    }

    static var defaultCompletionKind: CompletionKind { .default }
}

extension HeaderArgument {
    /// `@FILE` (curl's `-H @file`): the headers are that file's lines.
    var file: String? { raw.hasPrefix("@") ? String(raw.dropFirst()) : nil }

    /// Every header, those of `@FILE` arguments read from their files: one
    /// header a line, blank lines and `#` comments skipped, CR LF or LF. The
    /// file holds secrets, so it is refused when every user may read it, and
    /// its lines are never quoted in an error.
    static func expand(_ arguments: [HeaderArgument]) throws(CommandFailure) -> [HeaderArgument] {
        var headers: [HeaderArgument] = []
        for argument in arguments {
            guard let path = argument.file else {
                headers.append(argument)
                continue
            }
            let text = try readHeaderFile(path)
            // "\r\n" is one Character in Swift: split by newlines, not by "\n".
            for (number, line) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
                if line.allSatisfy({ $0 == " " || $0 == "\t" }) || line.hasPrefix("#") { continue }
                let header = HeaderArgument(argument: String(line))
                if let problem = header.problem {
                    throw CommandFailure(message: "--header @\(path), line \(number + 1): \(problem)", status: ExitStatus.usage)
                }
                headers.append(header)
            }
        }
        return headers
    }

    /// A regular file of at most 64 KiB (``InputFile``) that not every user can read.
    private static func readHeaderFile(_ path: String) throws(CommandFailure) -> String {
        func failure(_ why: String) -> CommandFailure {
            CommandFailure(message: "--header @\(path): \(why)", status: ExitStatus.usage)
        }
        let (fd, info): (Int32, stat)
        switch InputFile.open(path) {
        case .success(let opened): (fd, info) = opened
        case .failure(let refusal):
            throw InputFile.failure(refusal, reading: InputFile.Name(name: "the --header file", file: "a file of 'Name: value' lines"), path)
        }
        defer { close(fd) }
        guard info.st_mode & 0o004 == 0 else {
            throw failure(
                "every user can read it (mode \(String(info.st_mode & 0o777, radix: 8))), and it holds secrets; "
                    + (DirectoryTrust.isShared(info)
                        ? "it is not yours to change: keep them in a file of your own that only the service's user can read"
                        : "make it readable by the service's user only: chmod o-r \(path)"))
        }
        guard info.st_size <= 64 * 1024, let data = readBytes(from: fd, limit: 64 * 1024 + 1), data.count <= 64 * 1024 else {
            throw failure("it is over 64 KiB; a header file holds a few lines")
        }
        guard let text = String(validating: data, as: UTF8.self) else { throw failure("it is not UTF-8 text") }
        return text
    }
}
