#!/usr/bin/env python3
"""Checks trace-report's page script (docs/DESIGN.md, "The report page").

  scripts/check-page-js.py [ROOT]      (ROOT: the repository, default .)

1. Its modules, libtrace/emit/report/js/*.js, are all listed in the Makefile's
   REPORT_JS, in the order of their numbers, each once, and every file listed
   exists.
2. The first module opens the page's closure, the last one closes it, and each
   one between is one closure, "var Name = (function () {" ... "})();".
3. The variables the page's closure itself declares (in the first and last
   modules) are constants (NAMES_IN_CAPITALS, or html, the document element)
   or the documented page state (PAGE_STATE below, as 00-base.js says); the
   modules keep every other state inside their own closure.
4. No function in the page's script (the modules and runs.js) is over 80 lines,
   from the line of its "function" to the line of its closing brace, the
   closures of rule 2 aside.  Functions are found with a small scanner that
   knows JS's strings, template literals, comments and regex literals, so a
   brace inside one of them is not counted.

Prints one line per fault and exits 1, or a summary line and exits 0.
"""
import os
import re
import sys

MAX_LINES = 80
JS_DIR = "libtrace/emit/report/js"
ALSO = ["libtrace/emit/report/runs.js", "libtrace/emit/report/graphview.js", "libtrace/emit/report/format.js"]
WRAPPER = re.compile(r"^(var [A-Za-z_$][\w$]* = )?\(function \(\) \{$")
# after these words a '/' starts a regex literal, not a division
PAGE_STATE = {"data", "runs", "run", "activeTab", "errorCount"}
REGEX_AFTER_WORDS = {"return", "typeof", "case", "in", "of", "new", "delete", "void",
                     "throw", "else", "do", "instanceof"}


def listed_modules(root):
    """The files the Makefile's REPORT_JS names, in order."""
    text = open(os.path.join(root, "Makefile"), encoding="utf-8").read()
    m = re.search(r"^REPORT_JS\s*:=((?:.*\\\n)*.*)$", text, re.M)
    if not m:
        return None
    value = m.group(1).replace("\\\n", " ")
    m2 = re.match(r"\s*\$\(addprefix\s+([^,]+),(.*)\)\s*$", value)
    if m2:
        prefix = m2.group(1).strip()
        return [prefix + name for name in m2.group(2).split()]
    return value.split()


def scan_functions(text):
    """(name, first line, last line) of every function in JS source text."""
    found = []
    stack = []          # per open brace: the function it opens, or None
    pending = None      # a function seen whose body's brace has not come yet
    paren = 0
    prev = ""           # the last significant token: a word, or a punctuator
    i, line, n = 0, 1, len(text)
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
            continue
        if c in " \t\r":
            i += 1
            continue
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            line += text.count("\n", i, end)
            i = end
            continue
        if c in "'\"`":
            j = i + 1
            while j < n and text[j] != c:
                if text[j] == "\\":
                    j += 1
                elif text[j] == "\n" and c != "`":
                    break
                j += 1
            line += text.count("\n", i, j)
            i = j + 1
            prev = "str"
            continue
        if c == "/":
            word = prev if re.match(r"^[\w$]+$", prev) else None
            if prev in ("str", ")", "]") or (word and word not in REGEX_AFTER_WORDS):
                i += 1
                prev = "/"
                continue
            j, in_class = i + 1, False
            while j < n and text[j] != "\n":
                if text[j] == "\\":
                    j += 2
                    continue
                if text[j] == "[":
                    in_class = True
                elif text[j] == "]":
                    in_class = False
                elif text[j] == "/" and not in_class:
                    break
                j += 1
            j += 1
            while j < n and (text[j].isalnum()):
                j += 1
            i = j
            prev = "str"
            continue
        m = re.compile(r"[A-Za-z_$][\w$]*|\d[\w.]*").match(text, i)
        if m:
            word = m.group(0)
            if word == "function":
                nm = re.compile(r"\s*([A-Za-z_$][\w$]*)?").match(text, m.end())
                line_text = text[text.rfind("\n", 0, i) + 1:text.find("\n", i)]
                pending = {"name": nm.group(1) or "(anonymous)", "line": line,
                           "wrapper": bool(WRAPPER.match(line_text)), "paren": paren}
            prev = word
            i = m.end()
            continue
        if c == "(":
            paren += 1
        elif c == ")":
            paren -= 1
        elif c == "{":
            if pending is not None and paren == pending["paren"]:
                stack.append(pending)
                pending = None
            else:
                stack.append(None)
        elif c == "}":
            if stack:
                f = stack.pop()
                if f is not None:
                    found.append((f["name"], f["line"], line, f["wrapper"]))
        prev = c
        i += 1
    return found


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    faults = []
    listed = listed_modules(root)
    on_disk = sorted(os.path.join(JS_DIR, f) for f in os.listdir(os.path.join(root, JS_DIR))
                     if f.endswith(".js"))
    if listed is None:
        faults.append("Makefile: no REPORT_JS list")
        listed = []
    for f in on_disk:
        if f not in listed:
            faults.append("%s: a module the Makefile's REPORT_JS does not list" % f)
    for f in listed:
        if not os.path.isfile(os.path.join(root, f)):
            faults.append("Makefile: REPORT_JS lists %s, which does not exist" % f)
        elif listed.count(f) > 1:
            faults.append("Makefile: REPORT_JS lists %s %d times" % (f, listed.count(f)))
    if listed != sorted(listed):
        faults.append("Makefile: REPORT_JS is not in the order of the modules' numbers")
    modules = [f for f in listed if os.path.isfile(os.path.join(root, f))]
    for k, f in enumerate(modules):
        lines = [x for x in open(os.path.join(root, f), encoding="utf-8").read().split("\n")
                 if x.strip()]
        code = [x for x in lines if not re.match(r"^\s*(/\*|\*|//)", x)]
        if k == 0:
            if not code or code[0] != "(function () {":
                faults.append("%s: the first module does not open the page's closure" % f)
        elif k == len(modules) - 1:
            if not code or code[-1] != "})();":
                faults.append("%s: the last module does not close the page's closure" % f)
        elif not code or not re.match(r"^var [A-Z]\w* = \(function \(\) \{$", code[0]) \
                or code[-1] != "})();":
            faults.append('%s: not one closure, "var Name = (function () {" ... "})();"' % f)
    for f in modules[:1] + modules[-1:] if len(modules) > 1 else modules:
        for k, x in enumerate(open(os.path.join(root, f), encoding="utf-8").read().split("\n")):
            m = re.match(r"^  (?:var|let|const) ([A-Za-z_$][\w$]*)", x)
            if m and m.group(1) not in PAGE_STATE and m.group(1) != "html" \
                    and not re.match(r"^[A-Z][A-Z0-9_]*$", m.group(1)):
                faults.append("%s:%d: the page's closure declares %s, neither a constant nor "
                              "the page state" % (f, k + 1, m.group(1)))
    count, longest = 0, ("", "", 0)
    for f in modules + [a for a in ALSO if os.path.isfile(os.path.join(root, a))]:
        for name, first, last, wrapper in scan_functions(
                open(os.path.join(root, f), encoding="utf-8").read()):
            if wrapper:
                continue
            count += 1
            size = last - first + 1
            if size > longest[2]:
                longest = (f, name, size)
            if size > MAX_LINES:
                faults.append("%s:%d: function %s is %d lines (at most %d)"
                              % (f, first, name, size, MAX_LINES))
    for x in faults:
        print("check-page-js: " + x)
    if faults:
        return 1
    print("check-page-js: %d modules listed in order, %d functions, the longest %s in %s "
          "(%d lines, at most %d)" % (len(modules), count, longest[1],
                                      os.path.basename(longest[0]), longest[2], MAX_LINES))
    return 0


if __name__ == "__main__":
    sys.exit(main())
