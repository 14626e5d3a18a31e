#!/usr/bin/env python3
"""Checks every relative link of the documentation: README.md, *.md at the top,
docs/ and the DocC catalogs. A link must name a file or folder inside the
repository, and its #anchor, if any, a heading of that file (GitHub's slugs).
Links with a scheme (https:, man:) are left alone; DocC's own <doc:…> links are
checked by `make docs`. Exits 1 and names each broken link.

    scripts/doc-links.py
"""
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LINK = re.compile(r"(?<!!)\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)|<a\s+href=\"([^\"]+)\"")
REFERENCE = re.compile(r"^\s*\[[^\]]+\]:\s*<?(\S+?)>?(\s|$)", re.M)


def documents():
    paths = sorted(glob.glob(os.path.join(ROOT, "*.md")))
    paths += sorted(glob.glob(os.path.join(ROOT, "docs", "**", "*.md"), recursive=True))
    paths += sorted(glob.glob(os.path.join(ROOT, "Sources", "*", "*.docc", "**", "*.md"), recursive=True))
    return paths


def without_code(text, inline=True):
    """The text with fenced blocks (and inline code) blanked, line numbers kept."""
    lines, fence = text.split("\n"), None
    for index, line in enumerate(lines):
        match = re.match(r"^\s*(```+|~~~+)", line)
        if fence is None and match:
            fence, lines[index] = match.group(1), ""
        elif fence is not None:
            if line.strip() == fence:
                fence = None
            lines[index] = ""
    text = "\n".join(lines)
    return re.sub(r"`[^`\n]*`", "", text) if inline else text


def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to '-'."""
    heading = re.sub(r"`", "", heading.strip().lower())
    heading = re.sub(r"[^\w\- ]", "", heading)
    return heading.replace(" ", "-")


def anchors(path):
    with open(path, encoding="utf-8") as f:
        text = without_code(f.read(), inline=False)
    seen, result = {}, set()
    for match in re.finditer(r"(?m)^#{1,6}\s+(.+?)\s*#*\s*$", text):
        base = slug(match.group(1))
        count = seen.get(base, 0)
        seen[base] = count + 1
        result.add(base if count == 0 else f"{base}-{count}")
    for match in re.finditer(r"<a\s+(?:name|id)=\"([^\"]+)\"", text):
        result.add(match.group(1))
    return result


def check(path):
    problems = []
    with open(path, encoding="utf-8") as f:
        text = without_code(f.read())
    targets = [(m.start(), m.group(1) or m.group(2)) for m in LINK.finditer(text)]
    targets += [(m.start(), m.group(1)) for m in REFERENCE.finditer(text)]
    for offset, target in targets:
        line = text.count("\n", 0, offset) + 1
        where = f"{os.path.relpath(path, ROOT)}:{line}"
        if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target):
            continue
        file_part, _, anchor = target.partition("#")
        resolved = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
        if os.path.commonpath([resolved, ROOT]) != ROOT:
            problems.append(f"{where}: '{target}' leaves the repository")
            continue
        if not os.path.exists(resolved):
            problems.append(f"{where}: '{target}' names no file in the repository")
            continue
        if anchor and resolved.endswith(".md") and anchor not in anchors(resolved):
            problems.append(f"{where}: '{target}': {os.path.relpath(resolved, ROOT)} has no heading '#{anchor}'")
    return problems, len(targets)


def main():
    problems, count = [], 0
    for path in documents():
        found, links = check(path)
        problems += found
        count += links
    for problem in problems:
        print(problem)
    print(f"doc-links: {count} links, {len(problems)} broken")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
