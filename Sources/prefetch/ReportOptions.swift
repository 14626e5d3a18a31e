import ArgumentParser

/// How `run` and `plan` print their report.
struct ReportOptions: ParsableArguments {
    @Flag(help: "Print the report as JSON on stdout: every message's verdict, every asset's outcome, the totals.")
    var json = false

    @Flag(help: "List every message, not only the discarded ones and those a download limit deferred.")
    var verbose = false
}
