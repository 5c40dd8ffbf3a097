#!/usr/bin/env python3
"""Writes a users CSV of N rows (default 100000) to stdout, like users.csv: the same columns
and a share of its edge cases (nulls, no "@", upper-case domains, non-ASCII local parts
and domains in about one row in ten).
Deterministic: the same N gives the same file.

    python3 examples/plugins/data/gen_users.py 100000 > /tmp/users_100k.csv
"""

import random
import sys


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    rng = random.Random(8)
    # Mostly ASCII, as real addresses are; one value in ten or so has a non-ASCII character.
    names = ["alice", "bob.smith", "kim", "o'neil", "j.doe", "Mary-Ann", "x", "sales", "info"] * 5
    names += ["élodie", "züß", "ΣΊΣΥΦΟΣ", "😀smile", "İnci"]
    domains = ["example.com", "Example.COM", "mail.FR", "x.org", "corp.example.NET"] * 5
    domains += ["münchen.DE", "ΟΔΟΣ.GR"]
    out = sys.stdout
    out.write("user_id,email,signup_ts\n")
    for i in range(1, n + 1):
        r = rng.random()
        if r < 0.02:
            email = ""
        elif r < 0.04:
            email = "not-an-email"
        elif r < 0.05:
            email = "@" + rng.choice(domains)
        else:
            email = f"{rng.choice(names)}{i}@{rng.choice(domains)}"
        day, sec = 1 + i % 28, i % 86_400
        out.write(f"{i},{email},2024-03-{day:02d} {sec // 3600:02d}:{sec // 60 % 60:02d}:{sec % 60:02d}\n")


if __name__ == "__main__":
    main()
