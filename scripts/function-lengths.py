#!/usr/bin/env python3
"""Lists the functions in Sources/ longer than a limit (80 lines by default),
longest first, and exits 1 when there is one: a function that has grown past a
screen with several concerns gives each step a name and a home first
(DEVELOPERS.md). Counted from the line of `func`/`init`/`deinit`, or of a
computed property's `var`, to its closing brace, comments and blank lines
included; the braces of strings and comments are skipped.

    python3 scripts/function-lengths.py [--limit 80] [--all] [DIR ...]
"""

import argparse
import os
import re
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DECLARATION = re.compile(r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|private|fileprivate|static|class|final|"
                         r"override|mutating|nonmutating|convenience|required|nonisolated|isolated|consuming|borrowing|"
                         r"@inline\(__always\)|@discardableResult)\s+)*(func\s+[^\s(<]+|init[?!]?|deinit|subscript)\b")


def code_braces(line, state):
    """The braces of `line` outside strings and comments; `state` carries a
    block comment or a multi-line string across lines."""
    braces = []
    index = 0
    while index < len(line):
        if state["block"]:
            end = line.find("*/", index)
            if end < 0:
                return braces
            state["block"] = False
            index = end + 2
            continue
        if state["multiline"]:
            end = line.find('"""', index)
            if end < 0:
                return braces
            state["multiline"] = False
            index = end + 3
            continue
        char = line[index]
        if line.startswith("//", index):
            return braces
        if line.startswith("/*", index):
            state["block"] = True
            index += 2
        elif line.startswith('"""', index):
            state["multiline"] = True
            index += 3
        elif char == '"':
            index += 1
            while index < len(line) and line[index] != '"':
                index += 2 if line[index] == "\\" else 1
            index += 1
        elif char in "{}":
            braces.append(char)
            index += 1
        else:
            index += 1
    return braces


def functions(path):
    """(name, first line, length) of every function body in the file."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    state = {"block": False, "multiline": False}
    depth = 0
    open_functions = []  # (name, start line, depth its body opens at)
    pending = None  # a declaration whose body has not opened yet
    found = []
    for number, line in enumerate(lines, 1):
        match = None if state["block"] or state["multiline"] else DECLARATION.match(line)
        if match:
            pending = (match.group(1).replace("func ", ""), number)
        for brace in code_braces(line, state):
            if brace == "{":
                depth += 1
                if pending:
                    open_functions.append((pending[0], pending[1], depth))
                    pending = None
            else:
                if open_functions and open_functions[-1][2] == depth:
                    name, start, _ = open_functions.pop()
                    found.append((name, start, number - start + 1))
                depth -= 1
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--limit", type=int, default=80)
    parser.add_argument("--all", action="store_true", help="list every function over 40 lines, not only those over the limit")
    parser.add_argument("dirs", nargs="*", default=[os.path.join(TOP, "Sources")])
    args = parser.parse_args()
    rows = []
    for top in args.dirs:
        for root, _, files in os.walk(top):
            for name in files:
                if name.endswith(".swift"):
                    path = os.path.join(root, name)
                    rows += [(length, os.path.relpath(path, TOP), start, function) for function, start, length in functions(path)]
    rows.sort(reverse=True)
    shown = [row for row in rows if row[0] > (40 if args.all else args.limit)]
    for length, path, start, function in shown:
        print(f"{length:4d}  {path}:{start}  {function}")
    over = sum(1 for row in rows if row[0] > args.limit)
    print(f"function-lengths: {len(rows)} functions, {over} over {args.limit} lines")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
