#!/usr/bin/env python3
"""Regenerates secrets.tsv: one synthetic secret per gitleaks rule, drawn at random from the
rule's own secret pattern (never a real credential).

Usage: generate.py <gitleaks.toml> > secrets.tsv   (gitleaks' config/gitleaks.toml, v8)

Each secret is stored split by `%%` (removed by the test) so that this repository does not
itself trip secret scanners or push protection. Deterministic: the same toml gives the same file.
"""
import math
import random
import re
import re._constants as C
import re._parser as P
import sys
import tomllib

# Rules whose samples need a surrounding structure (files, commands, multi-line YAML) or are
# covered by hand-written cases in the test instead (private keys, curl, generic).
SKIP = {
    "pkcs12-file", "private-key", "curl-auth-header", "curl-auth-user", "generic-api-key",
    "kubernetes-secret-yaml", "nuget-config-password", "hashicorp-tf-password",
    "freemius-secret-key", "aws-amazon-bedrock-api-key-short-lived", "jwt-base64",
    "microsoft-teams-webhook", "slack-webhook-url", "sidekiq-secret", "sidekiq-sensitive-url",
}
# The keyword a person would use for the provider, when the rule id's first word is not it.
PROVIDER = {"cisco": "meraki", "new": "newrelic", "defined": "dnkey", "octopus": "octopus",
            "intra42": "intra", "gcp": "google", "hashicorp": "terraform"}
PRINTABLE = [chr(c) for c in range(33, 127)]
WORD = [chr(c) for c in range(48, 58)] + [chr(c) for c in range(65, 91)] + [chr(c) for c in range(97, 123)] + ["_"]


def to_python(rx):
    rx = rx.replace("[[:alnum:]]", "[a-zA-Z0-9]").replace("\\z", "\\Z")
    # Go allows (?i) mid-pattern; only generation matters here, so drop it after the start.
    head, rest = (rx[:4], rx[4:]) if rx.startswith("(?i)") else ("", rx)
    return head + rest.replace("(?i)", "")


def chars_of(items):
    out = set()
    negate = False
    for op, av in items:
        if op is C.NEGATE:
            negate = True
        elif op is C.LITERAL:
            out.add(chr(av))
        elif op is C.RANGE:
            out.update(chr(c) for c in range(av[0], av[1] + 1))
        elif op is C.CATEGORY:
            if av is C.CATEGORY_DIGIT:
                out.update("0123456789")
            elif av is C.CATEGORY_WORD:
                out.update(WORD)
            elif av is C.CATEGORY_SPACE:
                out.add(" ")
    if negate:
        return [c for c in PRINTABLE if c not in out]
    return sorted(out)


def gen(tree, rng, groups):
    s = []
    for op, av in tree:
        if op is C.LITERAL:
            s.append(chr(av))
        elif op is C.NOT_LITERAL:
            s.append(rng.choice([c for c in WORD if c != chr(av)]))
        elif op is C.ANY:
            s.append(".")  # an unescaped dot in a token shape (`xoxe.xoxb-`) means a dot
        elif op is C.IN:
            s.append(rng.choice(chars_of(av)))
        elif op is C.BRANCH:
            s.append(gen(rng.choice(av[1]), rng, groups))
        elif op is C.SUBPATTERN:
            text = gen(av[3], rng, groups)
            if av[0] is not None:
                groups[av[0]] = text
            s.append(text)
        elif op in (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT):
            lo, hi, sub = av
            if hi is C.MAXREPEAT:
                hi = lo + 12
            hi = min(hi, lo + 24)
            n = rng.randint(lo, hi) if lo < hi else lo
            s.append("".join(gen(sub, rng, groups) for _ in range(n)))
        elif op is C.CATEGORY:
            s.append(rng.choice(chars_of([(op, av)])))
        # AT (anchors), ASSERT, GROUPREF: nothing to emit
    return "".join(s)


def entropy(s):
    n = len(s)
    return -sum(s.count(c) / n * math.log2(s.count(c) / n) for c in set(s)) if n else 0.0


def secret_for(rule, rng):
    py = to_python(rule["regex"])
    tree = P.parse(py)
    group = rule.get("secretGroup", 1)
    has_group = P.parse(py).state.groups > 1
    for _ in range(200):
        groups = {}
        full = gen(tree, rng, groups)
        secret = groups.get(group) if has_group else full
        if secret is None:
            secret = full
        secret = re.sub(r"(\\[nr])+$", "", secret).strip("\"'` ;\n[")
        if any(c.isdigit() for c in secret) or not re.search(r"[0-9]", py):
            if entropy(secret) >= rule.get("entropy", 0):
                return secret
    return secret


def literal_prefix(tree, group):
    """The fixed text the secret starts with (`glpat-`, `_gitlab_session=`): public, so the test
    only requires the random part after it to be gone."""
    out = []
    for op, av in tree:
        if op is C.AT:
            continue
        if op is C.SUBPATTERN:
            if av[0] == group or group is None:
                return "".join(out) + literal_prefix(av[3], None)
            return "".join(out)
        if op is C.LITERAL:
            out.append(chr(av))
            continue
        break
    return "".join(out)


def split(secret):
    a, b = len(secret) // 3, 2 * len(secret) // 3
    return f"{secret[:a]}%%{secret[a:b]}%%{secret[b:]}"


def main():
    cfg = tomllib.load(open(sys.argv[1], "rb"))
    rng = random.Random(12)
    print("# rule\tprovider\tsecret\tthe part that must not survive (both split by %%; see README.md)")
    for rule in cfg["rules"]:
        if rule["id"] in SKIP or not rule.get("regex"):
            continue
        secret = secret_for(rule, rng)
        py = to_python(rule["regex"])
        tree = P.parse(py)
        group = rule.get("secretGroup", 1) if tree.state.groups > 1 else None
        prefix = literal_prefix(tree, group)
        core = secret[len(prefix):] if secret.startswith(prefix) else secret
        provider = rule["id"].split("-")[0]
        provider = PROVIDER.get(provider, provider)
        print(f"{rule['id']}\t{provider}\t{split(secret)}\t{split(core)}")


main()
