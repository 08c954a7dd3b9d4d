#!/usr/bin/env python3
"""Regenerates gitleaks_negatives.jsonl and gitleaks_positives.jsonl: the literal sample lines
of gitleaks' own rule tests (cmd/generate/config/rules/*.go), every one of them.

Usage: extract_gitleaks.py <gitleaks checkout>   (writes next to this script)

- Negatives: every string literal of every `fps` list or map (the false-positive samples a
  rule must not report). Map forms (`ValidateWithPaths`) give their values: the file name
  that made some of them negatives is lost, and we have no file names anyway.
- Positives: every string literal of every `tps` list (the true-positive samples), with the
  secret found in it by the rule's own regex from config/gitleaks.toml (its `secretGroup`, else
  the first non-empty group, else the whole match) and the part of it that is the credential
  (`core`: without a key name, a user, a webhook URL's fixed part). Samples the regex cannot be compiled for
  in Python, or finds nothing in, are left out and counted on stderr.
  Elements built by calls (`utils.GenerateSampleSecret(…)`, `secrets.NewSecret(…)`) are not
  literal lines: secrets.tsv covers the rules' generated samples.

Both files hold one JSON object per line. A positive's secret is stored split by `%%` wherever
it occurs, and so is every run of 20+ token characters in a negative (removed by the test), so
this repository does not itself trip secret scanners.
gitleaks is MIT-licensed: LICENSE.gitleaks in this folder.
"""
import json
import os
import re
import sys
import tomllib

sys.path.insert(0, os.path.dirname(__file__))


def go_string(src, i):
    """The Go string literal at src[i] (raw or interpreted): (value, index after it)."""
    if src[i] == "`":
        j = src.index("`", i + 1)
        return src[i + 1:j], j + 1
    out = []
    j = i + 1
    while src[j] != '"':
        c = src[j]
        if c == "\\":
            n = src[j + 1]
            simple = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "'": "'",
                      "a": "\a", "b": "\b", "f": "\f", "v": "\v"}
            if n in simple:
                out.append(simple[n])
                j += 2
            elif n == "x":
                out.append(chr(int(src[j + 2:j + 4], 16)))
                j += 4
            elif n == "u":
                out.append(chr(int(src[j + 2:j + 6], 16)))
                j += 6
            elif n == "U":
                out.append(chr(int(src[j + 2:j + 10], 16)))
                j += 10
            else:  # octal
                out.append(chr(int(src[j + 1:j + 4], 8)))
                j += 4
        else:
            out.append(c)
            j += 1
    return "".join(out), j + 1


def elements(src, i, close):
    """The top-level elements from src[i] up to the matching `close`: for each, its literal
    value (string literals joined with `+`) or None when it is built some other way."""
    out, parts, other, depth = [], [], False, 0
    while True:
        c = src[i]
        if src.startswith("//", i):
            i = src.index("\n", i)
            continue
        if src.startswith("/*", i):
            i = src.index("*/", i) + 2
            continue
        if c in "`\"" and depth == 0:
            s, i = go_string(src, i)
            parts.append(s)
            continue
        if c in "`\"":
            _, i = go_string(src, i)
            continue
        if c in "([{":
            depth += 1
            other = True
        elif c in ")]}" and depth > 0:
            depth -= 1
        elif (c == close and depth == 0) or (c == "," and depth == 0):
            if parts or other:
                out.append("".join(parts) if parts and not other else None)
            parts, other = [], False
            if c == close:
                return out, i + 1
        elif c == ":" and depth == 0:
            parts, other = [], False  # a map: the key so far is dropped, the value follows
        elif not c.isspace() and c != "+":
            other = True
        i += 1


def module_lists(src):
    """`var name = []string{…}` at the top of a file: lists the rules combine with `append`."""
    out = {}
    for m in re.finditer(r"^var (\w+) = \[\]string\{", src, re.M):
        values, _ = elements(src, m.end(), "}")
        out[m.group(1)] = [v for v in values if v is not None]
    return out


def lists(body, name, shared):
    """Every literal element of the `name` lists in one function body; `append(a, b...)` of
    the file's shared lists is resolved."""
    out, skipped = [], 0
    for m in re.finditer(rf"\b{name}\s*:?=\s*append\((\w+),\s*(\w+)\.\.\.\)", body):
        if m.group(1) in shared and m.group(2) in shared:
            out += shared[m.group(1)] + shared[m.group(2)]
            body = body[: m.start()] + body[m.end():]
    pattern = re.compile(
        rf"\b{name}\s*:?=\s*(?:\[\]string\{{|map\[string\]string\{{|append\({name}\s*,|append\()")
    for m in pattern.finditer(body):
        close = ")" if m.group(0).rstrip().endswith("(") or m.group(0).endswith(",") else "}"
        values, _ = elements(body, m.end(), close)
        for v in values:
            if v is None:
                skipped += 1
            else:
                out.append(v)
    return out, skipped


def functions(src):
    starts = [m.start() for m in re.finditer(r"^func ", src, re.M)] + [len(src)]
    return [src[a:b] for a, b in zip(starts, starts[1:])]


def compile_rule(rx):
    # Go: `(?i)` mid-pattern, `\z`, POSIX classes. Python wants inline flags first; retry with
    # the whole pattern case-insensitive when that is the only difference.
    rx = rx.replace("[[:alnum:]]", "[a-zA-Z0-9]").replace("\\z", "\\Z")
    try:
        return re.compile(rx)
    except re.error:
        return re.compile(rx.replace("(?i)", ""), re.I)


def find_secret(rule, text):
    m = rule["compiled"].search(text)
    if not m:
        return None
    group = rule.get("secretGroup")
    if group and group <= len(m.groups()) and m.group(group):
        return m.group(group)
    for g in m.groups():
        if g:
            return g
    return m.group(0)


WEBHOOK_PATHS = ("/services/", "/workflows/", "/triggers/", "/webhookb2/", "/webhooks/")


def core_of(rule, secret):
    """The part of a match that is the credential: gitleaks' secret group sometimes holds its
    name (`password: v`), the user of `user:password`, or a whole webhook URL."""
    for p in WEBHOOK_PATHS:
        if p in secret:
            return secret[secret.index(p) + len(p):]
    if rule in ("curl-auth-user", "sidekiq-secret", "sidekiq-sensitive-url") and ":" in secret:
        user, password = secret.split(":", 1)
        password = password.strip("\"'{}")
        return password if len(password) >= 3 else user.strip("\"'{}")
    m = re.match(r"""^[\w.\-]{1,40}["']?\s*[:=]\s*[|>]?\s*["']?(.+?)["']?\s*$""", secret, re.S)
    if m and rule in ("kubernetes-secret-yaml", "hashicorp-tf-password"):
        return m.group(1).strip("\"'")
    return secret.strip("\"'")


def split_long_words(text):
    """Splits every run of 20+ token characters with `%%`: several negatives are real-looking
    keys (other rules' samples, published example keys)."""
    return re.sub(r"[A-Za-z0-9_+/=.~-]{20,}", lambda m: split(m.group(0)), text)


def split(secret):
    return secret[: len(secret) // 2] + "%%" + secret[len(secret) // 2:]


def main():
    root = sys.argv[1]
    here = os.path.dirname(os.path.abspath(__file__))
    cfg = tomllib.load(open(os.path.join(root, "config/gitleaks.toml"), "rb"))
    rules = {}
    for r in cfg["rules"]:
        if "regex" in r:
            try:
                r["compiled"] = compile_rule(r["regex"])
                rules[r["id"]] = r
            except re.error:
                pass
    rules_dir = os.path.join(root, "cmd/generate/config/rules")
    negatives, positives = [], []
    skipped = {"negatives built by calls": 0, "negatives holding %%": 0, "positives built by calls": 0,
               "positives without a rule regex": 0, "positives the regex does not match": 0,
               "positives holding %%": 0}
    for name in sorted(os.listdir(rules_dir)):
        if not name.endswith(".go") or name.endswith("_test.go"):
            continue
        src = open(os.path.join(rules_dir, name)).read()
        shared = module_lists(src)
        for body in functions(src):
            rid = re.search(r'RuleID:\s*"([^"]+)"', body)
            rid = rid.group(1) if rid else None
            fps, n = lists(body, "fps", shared)
            skipped["negatives built by calls"] += n
            for text in fps:
                if "%%" in text:
                    skipped["negatives holding %%"] += 1
                    continue
                negatives.append({"file": name, "rule": rid, "text": split_long_words(text)})
            tps, n = lists(body, "tps", shared)
            skipped["positives built by calls"] += n
            for text in tps:
                rule = rules.get(rid)
                if rule is None:
                    skipped["positives without a rule regex"] += 1
                    continue
                secret = find_secret(rule, text)
                if not secret or len(secret) < 4:
                    skipped["positives the regex does not match"] += 1
                    continue
                if "%%" in text:
                    skipped["positives holding %%"] += 1
                    continue
                core = core_of(rid, secret)
                positives.append({"file": name, "rule": rid,
                                  "text": text.replace(secret, split(secret)),
                                  "secret": split(secret),
                                  "core": split(core) if core in secret else core})
    for fname, rows in [("gitleaks_negatives.jsonl", negatives),
                        ("gitleaks_positives.jsonl", positives)]:
        with open(os.path.join(here, fname), "w") as f:
            for row in rows:
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"{len(negatives)} negatives, {len(positives)} positives; left out: {skipped}",
          file=sys.stderr)


if __name__ == "__main__":
    main()
