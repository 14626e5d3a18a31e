#!/usr/bin/env python3
"""Runs the command examples of the documentation and compares their outputs.

    scripts/doc-examples.py [--bin DIR] [--update] [FILE.md ...]

Without files: README.md, docs/*.md and the DocC articles (Sources/*/*.docc/*.md).
`make test` runs it after `swift test`; it exits 1 when an output differs.

A runnable example is a ```console block. In it, a line starting with "$ " is a
command, continued by the lines right after it that start with "> " (a line
ending in a backslash, a here-document); the lines after it, up to the next
"$ ", are what it prints, stdout and stderr together. A command that exits with a status other than 0 ends its
output with the line "[exit N]". Blocks of any other language (```sh, ```text)
are shown, not run: installation as root, cron lines, illustrative output.

Each document is one shell session (bash, in the repository's root, stdin from
/dev/null): a variable exported or a job started in one block is there in the
next. The session gets a throwaway directory for /tmp, its own HOME, and free
ports for 8765 and 8443:

- "/tmp/" in a command is the session's own directory, and reads back as "/tmp/"
  in the output, so the documents show the paths a reader gets;
- "8765" and "8443" in a command are free ports on loopback, and read back as
  themselves;
- a command ending in "&" runs in the background: the session waits until it has
  printed its first line (fixture-server prints its URL once it listens), and its
  output is not compared; whatever the document left running is stopped at the
  end of the session.

Both the expected and the real output go through MASKS below before they are
compared, so timings and clock times may differ; everything else, hashes and byte
counts included, must be exactly what the tool prints. A line "…" alone in the
expected output stands for any number of lines (none included).

--update rewrites the expected output of every block that differs and has no
"…" line with what the commands printed (masked parts as printed this time);
for the others it prints the real output to copy from.
"""
import argparse
import difflib
import glob
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC_PORTS = ["8765", "8443"]
ELLIPSIS = "…"

# What may differ from one run to the next, and nothing else.
MASKS = [
    # Durations in summaries: "in 3.89 s", "in 3438 ms".
    (re.compile(r"\bin \d+(\.\d+)? m?s\b"), "in <duration>"),
    # Clock times: "2026-11-22T01:40:10Z".
    (re.compile(r"\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z\b"), "<time>"),
    # Timings and clock times in JSON, and connections opened (how many depends
    # on how the transfers overlapped in time).
    (re.compile(r'"(duration_ms|ready_ms|finished_at|connections)" ?: ?[0-9.e+]+'), r'"\1" : <n>'),
    # What signify makes at random: a key's number, a public key.
    (re.compile(r"(?<![0-9a-f])[0-9a-f]{16}(?![0-9a-f])"), "<key number>"),
    (re.compile(r"^RW[A-Za-z0-9+/]{54}$"), "<signify public key>"),
    # The version `prefetch publish` signs: the time in epoch seconds, or
    # one above the last, in its line, a manifest and a rollback's refusal.
    (re.compile(r"\b(version|above) \d{10}\b"), r"\1 <version>"),
    (re.compile(r'"version" ?: ?\d{10}\b'), '"version": <version>'),
    # Timings, clock times and connections in a Prometheus text file.
    (re.compile(r"^(prefetch_\w*(seconds|timestamp|connections)\w*(\{[^}]*\})?) [0-9.e+]+$"), r"\1 <n>"),
    # The file system's size and free space, and the floor kept on it (a
    # share of its size): the machine's, not the tool's.
    (re.compile(r'"(filesystem_bytes|free_bytes|min_free_bytes|lowest_free_bytes)" ?: ?[0-9]+'), r'"\1" : <n>'),
    (re.compile(r"^(prefetch_(min_)?free_bytes(\{[^}]*\})?) [0-9.e+]+$"), r"\1 <n>"),
    (re.compile(r"^disk    .* free of .*; runs keep .* free \(--min-free\)$"), "disk    <free space>"),
]


def mask(line):
    for pattern, replacement in MASKS:
        line = pattern.sub(replacement, line)
    return line


class Example:
    """One command of a console block, with the output the document shows."""

    def __init__(self, path, line, command):
        self.path, self.line, self.command = path, line, command
        self.expected = []
        # Index range of the expected lines in the document, for --update.
        self.first, self.end = None, None


def parse(path):
    """The console blocks' commands of one document, in order."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    examples, current, in_console, fence = [], None, False, None
    index = 0
    while index < len(lines):
        line = lines[index]
        stripped = line.strip()
        if fence is None:
            match = re.match(r"^(\s*)(```+|~~~+)\s*([\w+-]*)", line)
            if match:
                fence = match.group(2)
                in_console = match.group(3) == "console"
                indent = len(match.group(1))
            index += 1
            continue
        if stripped.startswith(fence) and stripped.strip("`~") == "":
            if current is not None:
                current.end = index
            fence, in_console, current = None, False, None
            index += 1
            continue
        if in_console:
            text = line[indent:] if line[:indent].strip() == "" else line
            if text.startswith("$ "):
                if current is not None:
                    current.end = index
                command, start = text[2:], index
                while index + 1 < len(lines) and lines[index + 1][indent:].startswith("> "):
                    index += 1
                    command = command + "\n" + lines[index][indent + 2:]
                current = Example(path, start + 1, command)
                current.first = index + 1
                examples.append(current)
            elif current is not None:
                current.expected.append(text.rstrip())
            else:
                raise SystemExit(f"{path}:{index + 1}: a console block must start with a '$ ' command")
        index += 1
    return examples, lines


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def session_script(examples, scratch, ports, work):
    """One bash script that runs every command, each one's output to its own file."""
    parts = ["set +e", f"cd {sh_quote(ROOT)}", "exec </dev/null"]
    for number, example in enumerate(examples):
        command = example.command.replace("/tmp/", scratch + "/")
        for documented, port in ports.items():
            command = command.replace(documented, str(port))
        out = f"{work}/out.{number}"
        rc = f"{work}/rc.{number}"
        if command.rstrip().endswith("&") and not command.rstrip().endswith("&&"):
            parts.append(f"{command.rstrip()[:-1]} >{out} 2>&1 &")
            parts.append(
                f"for _ in $(seq 300); do [ -s {out} ] && break; kill -0 $! 2>/dev/null || break; sleep 0.1; done")
            parts.append(f"echo 0 >{rc}")
        else:
            parts.append(f"{{\n{command}\n}} >{out} 2>&1\necho $? >{rc}")
    return "\n".join(parts) + "\n"


def sh_quote(text):
    return "'" + text.replace("'", "'\\''") + "'"


def run_session(path, examples, bin_dir, timeout):
    """Runs one document's commands; returns each one's output lines (already read back)."""
    scratch = tempfile.mkdtemp(prefix="doc-examples.")
    work = tempfile.mkdtemp(prefix="doc-examples-work.")
    ports = {}
    while len(set(ports.values())) < len(DOC_PORTS):
        ports = {documented: free_port() for documented in DOC_PORTS}
    env = {
        "PATH": (bin_dir + os.pathsep if bin_dir else "") + os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": os.path.join(scratch, "home"),
        "LANG": "C.UTF-8",
        "TMPDIR": scratch,
        # The machine's /etc/prefetch/prefetch.conf is not the documents': an
        # example that shows a configuration names it with --config.
        "PREFETCH_CONFIG": "/dev/null",
    }
    os.makedirs(env["HOME"])
    script = os.path.join(work, "session.sh")
    with open(script, "w") as f:
        f.write(session_script(examples, scratch, ports, work))
    process = subprocess.Popen(["bash", script], cwd=ROOT, env=env, start_new_session=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        print(f"{path}: the session took longer than {timeout} s; stopped", file=sys.stderr)
    finally:
        # The document's background jobs (fixture-server) belong to the session's group.
        try:
            os.killpg(process.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        process.wait()
    results = []
    for number in range(len(examples)):
        try:
            with open(f"{work}/out.{number}", encoding="utf-8", errors="replace") as f:
                text = f.read()
            with open(f"{work}/rc.{number}") as f:
                status = int(f.read().strip() or "0")
        except FileNotFoundError:
            results.append(None)
            continue
        text = text.replace(scratch + "/", "/tmp/").replace(scratch, "/tmp")
        for documented, port in ports.items():
            text = text.replace(f"127.0.0.1:{port}", f"127.0.0.1:{documented}")
        lines = [l.rstrip() for l in text.split("\n")]
        while lines and lines[-1] == "":
            lines.pop()
        if example_runs_in_background(examples[number]):
            lines = None
        elif status != 0:
            lines.append(f"[exit {status}]")
        results.append(lines)
    shutil.rmtree(scratch, ignore_errors=True)
    shutil.rmtree(work, ignore_errors=True)
    return results


def example_runs_in_background(example):
    command = example.command.rstrip()
    return command.endswith("&") and not command.endswith("&&")


def matches(expected, actual):
    """Whether the masked lines agree, a "…" line standing for any run of lines."""
    expected = [e if e == ELLIPSIS else mask(e) for e in expected]
    actual = [mask(a) for a in actual]
    memo = {}

    def match(i, j):
        if (i, j) in memo:
            return memo[(i, j)]
        if i == len(expected):
            result = j == len(actual)
        elif expected[i] == ELLIPSIS:
            result = any(match(i + 1, k) for k in range(j, len(actual) + 1))
        else:
            result = j < len(actual) and expected[i] == actual[j] and match(i + 1, j + 1)
        memo[(i, j)] = result
        return result

    return match(0, 0)


def documents():
    paths = [os.path.join(ROOT, "README.md")]
    paths += sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))
    paths += sorted(glob.glob(os.path.join(ROOT, "Sources", "*", "*.docc", "*.md")))
    return paths


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="*")
    parser.add_argument("--bin", help="directory of the built prefetch and fixture-server, put first in PATH")
    parser.add_argument("--update", action="store_true", help="write the real outputs into the documents")
    parser.add_argument("--timeout", type=int, default=900, help="seconds per document")
    args = parser.parse_args()
    failures = commands = 0
    for path in [os.path.abspath(p) for p in args.files] or documents():
        examples, lines = parse(path)
        if not examples:
            continue
        name = os.path.relpath(path, ROOT)
        results = run_session(name, examples, args.bin, args.timeout)
        replacements = []
        for example, actual in zip(examples, results):
            if example_runs_in_background(example):
                continue
            commands += 1
            if actual is None:
                failures += 1
                print(f"{name}:{example.line}: never ran (an earlier command ended the session): $ {example.command}")
                continue
            if matches(example.expected, actual):
                continue
            failures += 1
            print(f"{name}:{example.line}: the output of `{example.command}` differs from the document:")
            for line in difflib.unified_diff(example.expected, actual, "document", "real", lineterm="", n=2):
                print("    " + line)
            if args.update and ELLIPSIS not in example.expected:
                replacements.append((example, actual))
            elif args.update:
                print(f"{name}:{example.line}: has a '…' line: update it by hand")
        if replacements:
            for example, actual in sorted(replacements, key=lambda r: r[0].first, reverse=True):
                indent = re.match(r"^\s*", lines[example.line - 1]).group(0)
                lines[example.first:example.end] = [indent + a if a else a for a in actual]
            with open(path, "w", encoding="utf-8") as f:
                f.write("\n".join(lines))
            print(f"{name}: {len(replacements)} outputs rewritten")
    print(f"doc-examples: {commands} commands, {failures} differ")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
