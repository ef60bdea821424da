# SPDX-License-Identifier: GPL-2.0
"""The cookie-trace checks that several VM tests make of one traced run of
the crafted-collision directories (tests/vm/test-bpf-collide on the kit's
before/after, tests/vm/test-bpf-anykernel on stock and Debian's kernel,
with either kind of hook).  The guest side is the same in each: ls -f of
/collide and /collide63 into the share, then one getdents pass of the
64-bit and the i386 dirprobe over each, traced with --comm dirprobe.
"""
import collections
import re

from cklib import jsonl


def name(e):
    """An event's name: JSON strings hold bytes as \\u00XX; back to the raw
    bytes, then text."""
    return e["name"].encode("latin-1").decode("utf-8", "replace")


def check_collide(check, d, trace_json, groups_txt, wide):
    """The truths of one traced run.  d: the share (ls-collide,
    ls-collide63, hashes.tsv, pairs31, pairs63); trace_json: the stream as
    JSON Lines; groups_txt: cookie-groups of it (the final list: "group N :" lines); wide: True where a
    64-bit reader gets 63-bit cookies (after, stock, Debian), False where
    every cookie is 31-bit (before).  Returns the passes, {(probe, dir):
    [(name, major, minor, cookie, chain_index, chain_len, ino), ...]}, so
    that two runs can be compared."""
    ev = jsonl(trace_json)
    fd = [e for e in ev if e["kind"] == "filldir"]
    drops = [e for e in ev if e["kind"] == "drop"]
    check(not drops, f"no drop records ({len(fd)} filldir events)")
    ref = {}
    for l in open(f"{d}/hashes.tsv"):
        n, maj, mnr = l.split("\t")[:3]
        ref[n] = (int(maj, 16), int(mnr, 16))
    pairs31 = [frozenset(l.split()) for l in open(f"{d}/pairs31")]
    pairs63 = [frozenset(l.split()) for l in open(f"{d}/pairs63")]
    dirs = {}
    for dn in ("collide", "collide63"):
        dirs[dn] = set(open(f"{d}/ls-{dn}").read().split("\n")) - {""}
    passes = collections.defaultdict(list)      # (tgid) -> events, one probe run each
    for e in fd:
        passes[e["tgid"]].append(e)
    check(len(passes) == 4, f"4 probe passes traced (got {len(passes)})")
    seen = {}
    for tgid, es in sorted(passes.items()):
        names = [name(e) for e in es]
        which = next((dn for dn, s in dirs.items() if set(names) == s), None)
        compat = all(e["compat"] for e in es)
        probe = "i386" if compat else "64-bit"
        label = f"{probe} probe on /{which}"
        c = collections.Counter(names)
        check(which is not None and all(k == 1 for k in c.values()),
              f"{label}: {len(names)} events, every name exactly once "
              f"(repeated: {[n for n, k in c.items() if k > 1][:3]})")
        if which is None:
            continue
        seen[(probe, which)] = [(name(e), e["major"], e["minor"], e["cookie"],
                                 e["chain_index"], e["chain_len"], e["ino"]) for e in es]
        bad = [n for n, e in zip(names, es) if n in ref and ref[n] != (e["major"], e["minor"])]
        nref = sum(1 for n in names if n in ref)
        check(nref == len(names) - 2 and not bad,
              f"{label}: major/minor of {nref} names equal cookie-hash's (mismatch: {bad[:3]})")
        real = [e for e in es if name(e) not in (".", "..")]
        maxbits = max(e["cookie"].bit_length() for e in real)
        want = 63 if (wide and not compat) else 31
        check(maxbits == want, f"{label}: widest cookie {maxbits} bits (want {want})")
        check(all(e["width"] == (31 if compat else 63) for e in es),
              f"{label}: width decision {'compat task' if compat else 'native task'}")
    # Groups, from cookie-groups (the shared parser) on the host: the final list,
    # one line per group ("group N :"; the live lines say "new"/"grows").
    groups = [l for l in open(groups_txt) if re.match(r"group \d+ :", l)]

    def members(l):
        return frozenset(re.findall(r"(\S+)\(ino \d+\)", l))
    g31 = {members(l) for l in groups if "(31-bit)" in l and "c31-" in l}
    g63w = {members(l) for l in groups if "(63-bit)" in l and "c31-" in l}
    g63 = [(members(l), "(63-bit)" in l) for l in groups if "c63-" in l]
    check(g31 == set(pairs31), f"each crafted 31-bit pair is one collision group "
          f"({len(g31)} groups for {len(pairs31)} pairs)")
    check(not g63w, "no 31-bit crafted pair collides at 63-bit width")
    check(all(m in pairs63 for m, _ in g63) and len(g63) == (2 if wide else 1),
          f"the crafted 63-bit pair is one group per width ({len(g63)}: "
          f"{'31- and 63-bit' if wide else '31-bit only: every cookie is 31-bit'})")
    chain = [e for e in fd if any(name(e) in p for p in pairs63)]
    check(chain and all(e["chain_len"] == 2 for e in chain if e["width"] == 63 and wide),
          "63-bit pair: the 64-bit readers see it as one fname chain of 2")
    return seen
