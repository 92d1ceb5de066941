#!/usr/bin/env python3
"""Held-out multi-hop retrieval world for benchmarking an agent memory store.

Standard library only, deterministic (fixed SEED).  Writes world.json next to
this script:

  {"facts": [{"id": "w0", "content": "..."}, ...],
   "questions": [{"question": "...", "hops": N, "gold": ["w..", ...],
                  "answer": "...", "kind": "..."}, ...]}

("answer" and "kind" are extra keys for diagnostics; gold/hops are what the
benchmark needs.)  All relations live in the tables below; every gold list is
derived from those tables and verified by self_check() before writing.
"""

import json
import os
import random
import sys

SEED = 40404
rng = random.Random(SEED)
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "world.json")

# --------------------------------------------------------------------------
# Entities
# --------------------------------------------------------------------------
SERVICES = [
    "billing-api",
    "ledger",
    "auth_gateway",
    "Search Indexer",
    "notif-worker",
    "checkout-svc",
    "inventory",
    "pricing-engine",
    "user_profile_api",
    "Fraud Scorer",
    "email-sender",
    "recs",
    "cart-service",
    "shipping_quote",
    "Payout Scheduler",
    "catalog-api",
    "media-transcoder",
    "webhook-relay",
    "geo-lookup",
    "tax_calc",
    "Audit Trail",
    "feature-flags",
    "ratelimiter",
    "invoice-pdf",
    "sso-bridge",
    "metrics_ingest",
    "Report Builder",
    "config-sync",
    "queue-janitor",
    "onboarding-api",
    "image_resizer",
    "Loyalty Points",
    "sms-gateway",
    "refund-svc",
    "partner-portal",
    "ab-testing",
    "contracts-api",
    "cronhub",
    "Churn Predictor",
    "kyc-check",
]

PEOPLE = [
    "Priya Raman",
    "Tomasz Kowalczyk",
    "Amara Okafor",
    "Kenji Watanabe",
    "Lucía Fernández",
    "Oluwaseun Adeyemi",
    "Hannah Becker",
    "Diego Morales",
    "Aisha Rahman",
    "Mateus Carvalho",
    "Ingrid Solberg",
    "Rahul Menon",
    "Fatima Benali",
    "Jonas Lindqvist",
    "Chloé Dubois",
    "Wei Zhang",
    "Siobhan Murphy",
    "Arjun Iyer",
    "Nadia Petrova",
    "Kwame Mensah",
    "Yuki Tanaka",
    "Emeka Nwosu",
    "Sofia Rossi",
    "Gabriel Haddad",
    "Leilani Kahale",
    "Mikhail Volkov",
    "Zainab Yusuf",
    "Ethan Brooks",
    "Camila Ortiz",
    "Henrik Nielsen",
    "Ji-woo Park",
    "Tariq Aziz",
    "Beatriz Souza",
    "Oskar Wiśniewski",
    "Freya Lund",
    "Samuel Osei",
]

TEAMS = [
    "Payments",
    "Platform",
    "Identity",
    "Data Infra",
    "Growth",
    "Core Commerce",
    "Developer Experience",
    "Trust & Safety",
]
CHANNEL_OF = {
    "Payments": "#payments-eng",
    "Platform": "#platform-oncall",
    "Identity": "#ident-squad",
    "Data Infra": "#data-infra",
    "Growth": "#growth-hackers",
    "Core Commerce": "#commerce-core",
    "Developer Experience": "#devex",
    "Trust & Safety": "#tns-alerts",
}

DATASTORES = [
    "pg-main",
    "pg-billing",
    "pg-identity",
    "redis-sessions",
    "redis-cache-02",
    "kafka-events",
    "kafka-audit",
    "s3://acme-invoices",
    "s3://acme-media",
    "mongo-catalog",
    "es-logs",
    "clickhouse-metrics",
    "dynamo-carts",
    "cassandra-feed",
]
REGIONS = [
    "us-east-1",
    "us-west-2",
    "eu-west-1",
    "eu-central-1",
    "ap-southeast-2",
    "ap-northeast-1",
]
CITIES = [
    "Lisbon",
    "Toronto",
    "Nairobi",
    "Bangalore",
    "Berlin",
    "Austin",
    "Seoul",
    "São Paulo",
    "Kraków",
    "Melbourne",
]

MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]
LANGS = ["Go", "Python", "Kotlin", "TypeScript", "Rust", "Java", "Elixir"]

# --------------------------------------------------------------------------
# Relation tables (ground truth)
# --------------------------------------------------------------------------
TEAM = {}  # person -> team
_people = PEOPLE[:]
rng.shuffle(_people)
for i, p in enumerate(_people):
    TEAM[p] = TEAMS[i % len(TEAMS)]
LEAD = {}  # team -> person (a member of that team)
for t in TEAMS:
    LEAD[t] = rng.choice([p for p in PEOPLE if TEAM[p] == t])
CHANNEL = dict(CHANNEL_OF)  # team -> slack channel
CITY = {p: rng.choice(CITIES) for p in PEOPLE}  # person -> city
REGION = {d: rng.choice(REGIONS) for d in DATASTORES}  # datastore -> region
OWNER = {s: rng.choice(PEOPLE) for s in SERVICES}  # service -> person
STORE = {s: rng.choice(DATASTORES) for s in SERVICES}  # service -> datastore
DEP = {}  # service -> its single upstream service (no self, no 2-cycles)
for s in SERVICES:
    while True:
        u = rng.choice(SERVICES)
        if u != s and DEP.get(u) != s:
            DEP[s] = u
            break

REL = {
    "dep": DEP,
    "owner": OWNER,
    "store": STORE,
    "team": TEAM,
    "city": CITY,
    "lead": LEAD,
    "channel": CHANNEL,
    "region": REGION,
}
REL_KINDS = {
    "dep": ("svc", "svc"),
    "owner": ("svc", "person"),
    "store": ("svc", "ds"),
    "team": ("person", "team"),
    "city": ("person", "city"),
    "lead": ("team", "person"),
    "channel": ("team", "channel"),
    "region": ("ds", "region"),
}

# --------------------------------------------------------------------------
# Surface forms (how an agent would write the names)
# --------------------------------------------------------------------------
ACR = {
    "api": "API",
    "sms": "SMS",
    "ab": "AB",
    "kyc": "KYC",
    "pdf": "PDF",
    "sso": "SSO",
    "svc": "Service",
}


def svc_variants(name):
    if " " in name:  # "Search Indexer"
        low = name.lower()
        return [name, low.replace(" ", "-"), "the " + name, low]
    if "-" in name or "_" in name:  # "billing-api" / "auth_gateway"
        sep = "-" if "-" in name else "_"
        other = "_" if sep == "-" else "-"
        toks = name.split(sep)
        title = " ".join(ACR.get(t, t.capitalize()) for t in toks)
        the = "the " + name if toks[-1] in ("svc", "service") else f"the {name} service"
        return [name, name.replace(sep, other), title, the]
    return [name, f"the {name} service", name.capitalize(), name + " svc"]


def ds_variants(name):
    if name.startswith("s3://"):
        return [name, f"the {name[5:]} bucket"]
    if name.startswith("dynamo-"):
        return [name, f"the {name} table"]
    return [name, f"the {name} cluster"]


def surf(kind, ent, r=rng):
    if kind == "svc":
        v = svc_variants(ent)
        return r.choices(v, weights=[55, 15, 15, 15])[0]
    if kind == "person":
        return ent if r.random() < 0.8 else ent.split()[0]
    if kind == "ds":
        v = ds_variants(ent)
        return v[0] if r.random() < 0.8 else v[1]
    return ent


def all_surfaces(kind, ent):
    if kind == "svc":
        return svc_variants(ent)
    if kind == "person":
        return [ent, ent.split()[0]]
    if kind == "ds":
        return ds_variants(ent)
    return [ent]


def rdate():
    return "2024-%02d-%02d" % (rng.randint(1, 12), rng.randint(1, 28))


def fill():
    return {
        "date": rdate(),
        "month": rng.choice(MONTHS),
        "inc": "INC-%d" % rng.randint(1000, 9999),
        "day": rng.choice(DAYS),
    }


def cap(text):
    return text[0].upper() + text[1:] if text.startswith("the ") else text


# --------------------------------------------------------------------------
# Relation phrasings: {a} = head entity, {b} = tail entity
# --------------------------------------------------------------------------
PHRASES = {
    "dep": [  # a (service) depends on b (service)
        "{a} depends on {b}.",
        "{b} is a hard dependency of {a}.",
        "{a} can't boot without {b} being reachable.",
        "Upstream of {a}: {b}.",
        "I learned the hard way that {a} calls {b} on every request.",
        "When {b} went down on {date}, {a} started failing too, since it sits on top of {b}.",
        "deps({a}) = [{b}]",
        "{a} -> {b} (sync HTTP dependency)",
        "The only upstream that {a} talks to is {b}.",
        "{b} is what {a} relies on; break it and {a} breaks.",
        "Before restarting {b}, warn whoever runs {a}, because {a} consumes it.",
        "{a} (upstream: {b})",
        "Dependency map entry: {a} needs {b}.",
    ],
    "owner": [  # a (service) owned by b (person)
        "{b} owns {a}.",
        "{a} is owned by {b}.",
        "{a}: owner {b}",
        "If {a} pages at night, it's {b} who gets woken up.",
        "Ask {b} about anything related to {a}; they maintain it.",
        "{a} sits on {b}'s on-call rotation.",
        "I checked CODEOWNERS: {a} belongs to {b}.",
        "{b} is on the hook for {a}.",
        "The person responsible for {a} is {b}.",
        "Per the {date} service review, {b} remains the maintainer of {a}.",
        "{a} ({b} runs it)",
        "Who to ping for {a}: {b}.",
    ],
    "store": [  # a (service) persists to b (datastore)
        "{a} stores its data in {b}.",
        "{b} is the backing store for {a}.",
        "{a} persists everything to {b}.",
        "datastore for {a}: {b}",
        "{a} reads from and writes to {b}.",
        "I found the connection string for {b} in {a}'s config.",
        "{b} holds {a}'s state.",
        "The storage behind {a} is {b}.",
        "{a} keeps its records in {b}; nothing else is persistent.",
        "During the {date} outage of {b}, {a} lost writes because that's where it persists.",
        "{a} | storage={b}",
        "If you need {a}'s data, query {b}.",
    ],
    "team": [  # a (person) member of b (team)
        "{a} is on the {b} team.",
        "{a} works in {b}.",
        "{b} counts {a} among its engineers.",
        "{a} joined {b} in {month}.",
        "{a}, team: {b}",
        "{a} reports into the {b} group.",
        "Org chart says {a} belongs to {b}.",
        "{a}, from {b}, reviewed my PR today.",
        "I was told {a} sits with the {b} squad.",
        "One of the engineers in {b} is {a}.",
        "{b} member: {a}",
    ],
    "city": [  # a (person) located in b (city)
        "{a} is based in {b}.",
        "{a} works out of the {b} office.",
        "{b} is where {a} lives.",
        "{a}, location: {b}",
        "{a} is on {b} time, so don't expect replies late in their day.",
        "The {b} office is home to {a}.",
        "{a} sits in our {b} office.",
        "{a} relocated to {b} last year.",
        "If you need someone on the ground in {b}, {a} is there.",
        "{a}'s desk is in {b}.",
        "Office for {a}: {b}.",
    ],
    "lead": [  # a (team) led by b (person)
        "{b} leads the {a} team.",
        "The {a} team is led by {b}.",
        "{a} lead: {b}",
        "{b} is the manager of {a}.",
        "Escalations for {a} go to {b}, the team lead.",
        "{b} took over as head of {a} in {month}.",
        "{a}, headed by {b}.",
        "Who runs {a}? {b}.",
        "{b} sets the priorities for {a} as its lead.",
        "I was told to take {a} roadmap questions to its lead, {b}.",
    ],
    "channel": [  # a (team) uses slack channel b
        "The {a} team hangs out in {b}.",
        "{b} is the Slack channel for {a}.",
        "{a} slack: {b}",
        "To reach {a}, post in {b}.",
        "{a} announcements go to {b}.",
        "{b} belongs to the {a} team.",
        "Ping {a} on Slack via {b}.",
        "I asked {a} a question in {b} and got an answer within minutes.",
        "{a}'s team channel is {b}.",
        "Slack channel {b} is owned by {a}.",
    ],
    "region": [  # a (datastore) in region b
        "{a} runs in {b}.",
        "{a} is hosted in {b}.",
        "{b} is where {a} lives.",
        "{a} region: {b}",
        "{a} was provisioned in {b}.",
        "The {b} region hosts {a}.",
        "Primary and replicas of {a} are all in {b}.",
        "I had to switch my AWS console to {b} to find {a}.",
        "{a} ({b})",
        "When {b} had trouble on {date}, {a} was affected because it lives there.",
    ],
}

# --------------------------------------------------------------------------
# Build relation facts
# --------------------------------------------------------------------------
facts = []  # dicts: content, meta
FACT_OF = {}  # (rel, head) -> index in facts

for rel, table in REL.items():
    hk, tk = REL_KINDS[rel]
    for head in sorted(table):
        tail = table[head]
        tpl = rng.choice(PHRASES[rel])
        a, b = surf(hk, head), surf(tk, tail)
        text = cap(tpl.format(a=a, b=b, **fill()))
        FACT_OF[(rel, head)] = len(facts)
        facts.append({"content": text, "meta": {"rel": rel, "head": head, "tail": tail}})
N_REL = len(facts)

# --------------------------------------------------------------------------
# Distractors
# --------------------------------------------------------------------------
SVC_LANG = {s: rng.choice(LANGS) for s in SERVICES}
_ports = rng.sample(range(8000, 9900), len(SERVICES))
SVC_PORT = dict(zip(SERVICES, _ports, strict=False))
TOPICS = [
    "property-based testing",
    "feature flag hygiene",
    "SLOs",
    "Postgres vacuuming",
    "incident writeups",
    "gRPC streaming",
    "flaky tests",
    "cost dashboards",
]


def slug(s):
    return s.lower().replace(" ", "-").replace("_", "-")


def unrelated_svc_pair():
    while True:
        a, b = rng.sample(SERVICES, 2)
        if DEP[a] != b and DEP[b] != a:
            return a, b


def d_svc_single():
    s = rng.choice(SERVICES)
    x = surf("svc", s)
    f = fill()
    opts = [
        ("port", "%s listens on port %d." % (x, SVC_PORT[s])),
        ("lang", f"{x} is written in {SVC_LANG[s]}."),
        (
            "lat",
            "p99 latency for %s is around %d ms." % (x, rng.choice([12, 35, 80, 140, 220, 450])),
        ),
        ("deploy", "We only deploy {} on {}s.".format(x, f["day"])),
        ("bugs", "%s has %d open bugs in the tracker." % (x, rng.randint(2, 40))),
        ("docs", f"Runbook for {x}: docs/runbooks/{slug(s)}.md"),
        ("redeploy", "{} was last redeployed on {} with no issues.".format(x, f["date"])),
        ("metrics", "{} emits metrics under the prefix {}.*".format(x, slug(s).replace("-", "_"))),
        (
            "inc",
            "%s: %s returned 502s for %d minutes on %s."
            % (f["inc"], x, rng.randint(5, 90), f["date"]),
        ),
        ("flaky", f"{x} has a flaky integration test that times out about once a week."),
        ("health", f"{x} exposes its health check at /healthz."),
        ("flags", "%s reads %d feature flags at startup." % (x, rng.randint(3, 30))),
    ]
    k, t = rng.choice(opts)
    return ("svc", k, s), t


def d_person_single():
    p = rng.choice(PEOPLE)
    x = surf("person", p)
    f = fill()
    opts = [
        ("async", f"{x} prefers async code review over meetings."),
        (
            "editor",
            "{} uses {} and has opinions about it.".format(
                x, rng.choice(["Neovim", "Emacs", "VS Code", "IntelliJ", "Helix"])
            ),
        ),
        ("leave", "{} is out on leave until {}.".format(x, f["date"])),
        ("guide", f"{x} wrote the onboarding guide for new hires."),
        ("pr", f"{x} likes PR descriptions with screenshots."),
        (
            "hours",
            "%s is usually online from %d to %d local time."
            % (x, rng.choice([7, 8, 9, 10]), rng.choice([15, 16, 17, 18])),
        ),
        ("talk", f"{x} gave a talk on {rng.choice(TOPICS)} at the last all-hands."),
        ("coffee", f"{x} drinks an alarming amount of espresso."),
    ]
    k, t = rng.choice(opts)
    return ("person", k, p), t


def d_team_single():
    t_ = rng.choice(TEAMS)
    f = fill()
    opts = [
        (
            "standup",
            "The {} team's standup is at {} on weekdays.".format(
                t_, rng.choice(["9:15", "9:30", "10:00", "10:30", "11:00"])
            ),
        ),
        ("retro", "{} holds its retro every other {}.".format(t_, f["day"])),
        ("hc", "%s has %d open headcount this quarter." % (t_, rng.randint(1, 4))),
        ("bash", "{} runs a bug bash on the first {} of each month.".format(t_, f["day"])),
        ("okr", f"{t_}'s OKRs for the quarter are in the planning doc."),
    ]
    k, t = rng.choice(opts)
    return ("team", k, t_), t


def d_ds_single():
    d = rng.choice(DATASTORES)
    x = surf("ds", d)
    f = fill()
    opts = [
        (
            "ver",
            "{} is on engine version {}.".format(
                x, rng.choice(["15.4", "7.2", "3.6", "14.11", "8.0", "6.2"])
            ),
        ),
        (
            "snap",
            "{} gets snapshotted nightly at {} UTC.".format(
                x, rng.choice(["01:00", "02:30", "03:00", "04:15"])
            ),
        ),
        ("disk", "%s is at %d%% disk usage." % (x, rng.randint(40, 93))),
        ("drill", "{} had a failover drill on {}.".format(x, f["date"])),
        ("cost", "%s costs roughly $%d a month." % (x, rng.choice([300, 900, 1800, 4200, 7500]))),
    ]
    k, t = rng.choice(opts)
    return ("ds", k, d), t


def d_misc_single():
    f = fill()
    opts = [
        ("ch", lambda: (CHANNEL[rng.choice(TEAMS)], "%s has a pinned FAQ that nobody reads.")),
        ("ch2", lambda: (CHANNEL[rng.choice(TEAMS)], "%s gets noisy during release week.")),
        ("city", lambda: (rng.choice(CITIES), "The %s office closes early on Fridays.")),
        ("city2", lambda: (rng.choice(CITIES), "The %s office has the good coffee machine.")),
        (
            "region",
            lambda: (rng.choice(REGIONS), "%s had elevated error rates on " + f["date"] + "."),
        ),
    ]
    k, g = rng.choice(opts)
    ent, tpl = g()
    return ("misc", k, ent), tpl % ent


def d_two():
    f = fill()
    c = rng.randrange(10)
    if c == 0:
        a, b = unrelated_svc_pair()
        if SVC_LANG[a] != SVC_LANG[b]:
            return None, None
        return (
            ("migr", a, b),
            "{} and {} were both migrated to {} in {}.".format(
                surf("svc", a), surf("svc", b), SVC_LANG[a], f["month"]
            ),
        )
    if c == 1:
        a, b = unrelated_svc_pair()
        return (
            ("ci", a, b),
            "{} and {} share the same CI pipeline template.".format(surf("svc", a), surf("svc", b)),
        )
    if c == 2:
        p1, p2 = rng.sample(PEOPLE, 2)
        s = rng.choice(SERVICES)
        return (
            ("pair", p1, p2),
            "{} and {} paired on a refactor of {} last sprint.".format(
                surf("person", p1), surf("person", p2), surf("svc", s)
            ),
        )
    if c == 3:
        s = rng.choice(SERVICES)
        p = rng.choice([q for q in PEOPLE if q != OWNER[s]])
        return (
            ("review", p, s),
            "{} reviewed a config change to {} on {}.".format(
                surf("person", p), surf("svc", s), f["date"]
            ),
        )
    if c == 4:
        p = rng.choice(PEOPLE)
        c_ = rng.choice([x for x in CITIES if x != CITY[p]])
        return (
            ("visit", p, c_),
            "{} visited the {} office in {} for an offsite.".format(
                surf("person", p), c_, f["month"]
            ),
        )
    if c == 5:
        p1, p2 = rng.sample(PEOPLE, 2)
        return (
            ("mentor", p1, p2),
            "{} mentors {} on system design.".format(surf("person", p1), surf("person", p2)),
        )
    if c == 6:
        t1, t2 = rng.sample(TEAMS, 2)
        return (("plan", t1, t2), f"{t1} and {t2} share a quarterly planning doc.")
    if c == 7:
        s = rng.choice(SERVICES)
        p = rng.choice([q for q in PEOPLE if q != OWNER[s]])
        return (
            ("dash", p, s),
            "The Grafana dashboards for {} were built by {}.".format(
                surf("svc", s), surf("person", p)
            ),
        )
    if c == 8:
        d1, d2 = rng.sample(DATASTORES, 2)
        return (
            ("upg", d1, d2),
            "{} and {} are scheduled for an engine upgrade in {}.".format(
                surf("ds", d1), surf("ds", d2), f["month"]
            ),
        )
    s = rng.choice(SERVICES)
    p = rng.choice(PEOPLE)
    ch = CHANNEL[rng.choice(TEAMS)]
    return (
        ("pm", p, s),
        "{} posted the {} postmortem in {}.".format(surf("person", p), surf("svc", s), ch),
    )


N_DISTRACT = 154
seen_keys, seen_texts = set(), set(f["content"] for f in facts)
n_two = 0
while len(facts) - N_REL < N_DISTRACT:
    r = rng.random()
    if r < 0.35:
        key, text = d_two()
    elif r < 0.65:
        key, text = d_svc_single()
    elif r < 0.78:
        key, text = d_person_single()
    elif r < 0.86:
        key, text = d_team_single()
    elif r < 0.94:
        key, text = d_ds_single()
    else:
        key, text = d_misc_single()
    if key is None or key in seen_keys or text in seen_texts:
        continue
    # one fact per (entity, attribute) for single-entity distractors
    seen_keys.add(key)
    seen_texts.add(text)
    facts.append({"content": cap(text), "meta": {"rel": "distractor"}})

# shuffle and assign ids
order = list(range(len(facts)))
rng.shuffle(order)
ID_OF = {}
for new_i, old_i in enumerate(order):
    ID_OF[old_i] = "w%d" % new_i
FACT_BY_ID = {ID_OF[i]: facts[i] for i in range(len(facts))}


# --------------------------------------------------------------------------
# Questions
# --------------------------------------------------------------------------
def preimage(rel, tail):
    return [h for h in sorted(REL[rel]) if REL[rel][h] == tail]


def walk(start, hops):
    """hops: list of (rel, 'f'|'r'). Returns (entities, edges) or None."""
    ents, edges = [start], []
    cur = start
    for rel, d in hops:
        if d == "f":
            if cur not in REL[rel]:
                return None
            nxt = REL[rel][cur]
            edges.append((rel, cur))
        else:
            pre = preimage(rel, cur)
            if len(pre) != 1:
                return None
            nxt = pre[0]
            edges.append((rel, nxt))
        ents.append(nxt)
        cur = nxt
    if len(set(ents)) != len(ents):  # no degenerate loops (owner == lead ...)
        return None
    return ents, edges


F, R = "f", "r"
# name: (start kind, hops, count, templates)
QTYPES = [
    # ---------------- 1 hop ----------------
    (
        "dep",
        "svc",
        [("dep", F)],
        7,
        [
            "What does {x} depend on?",
            "which service is {x}'s upstream",
            "{x} can't start without which other service?",
            "What sits directly upstream of {x}?",
            "what service does {x} call into",
            "If I trace {x}'s dependency, which service do I land on?",
        ],
    ),
    (
        "owner",
        "svc",
        [("owner", F)],
        7,
        [
            "Who owns {x}?",
            "who maintains {x}",
            "Who gets paged when {x} breaks?",
            "Who's on the hook for {x}?",
            "who should I ask about {x}",
            "Whose service is {x}?",
        ],
    ),
    (
        "store",
        "svc",
        [("store", F)],
        6,
        [
            "Which datastore does {x} use?",
            "where does {x} keep its data",
            "What's the backing store for {x}?",
            "{x} persists to which datastore?",
            "what does {x} write its state to",
        ],
    ),
    (
        "team",
        "person",
        [("team", F)],
        5,
        [
            "Which team is {x} on?",
            "what team does {x} work in",
            "{x} belongs to which team?",
            "Tell me {x}'s team.",
        ],
    ),
    (
        "city",
        "person",
        [("city", F)],
        5,
        [
            "Where is {x} based?",
            "which office does {x} work from",
            "What city is {x} in?",
            "{x} lives where?",
        ],
    ),
    (
        "lead",
        "team",
        [("lead", F)],
        4,
        [
            "Who leads the {x} team?",
            "who's the lead of {x}",
            "Who manages {x}?",
            "Who do I escalate to on {x}?",
        ],
    ),
    (
        "channel",
        "team",
        [("channel", F)],
        3,
        [
            "What's the Slack channel for {x}?",
            "where do i reach the {x} team on slack",
            "Which channel does {x} use?",
        ],
    ),
    (
        "region",
        "ds",
        [("region", F)],
        4,
        [
            "Which region is {x} in?",
            "where is {x} hosted",
            "What AWS region does {x} run in?",
        ],
    ),
    (
        "rev_dep",
        "svc_in1",
        [("dep", R)],
        3,
        [
            "Which service depends on {x}?",
            "what calls {x}",
            "{x} is upstream of exactly one service. Which one?",
        ],
    ),
    (
        "rev_channel",
        "channel",
        [("channel", R)],
        2,
        [
            "Which team's channel is {x}?",
            "{x} belongs to which team",
        ],
    ),
    (
        "rev_lead",
        "lead",
        [("lead", R)],
        2,
        [
            "Which team does {x} lead?",
            "what team is {x} the lead of",
        ],
    ),
    (
        "rev_owner",
        "owner1",
        [("owner", R)],
        2,
        [
            "Which service does {x} own?",
            "what service is {x} on call for",
        ],
    ),
    # ---------------- 2 hops ----------------
    (
        "dep>owner",
        "svc",
        [("dep", F), ("owner", F)],
        8,
        [
            "Who owns the service that {x} depends on?",
            "{x} depends on something. Who owns it?",
            "who maintains {x}'s upstream",
            "Who do I page if the thing {x} sits on top of goes down?",
            "Whose service does {x} rely on?",
        ],
    ),
    (
        "owner>team",
        "svc",
        [("owner", F), ("team", F)],
        8,
        [
            "What team is {x}'s owner on?",
            "Which team does the person who maintains {x} belong to?",
            "{x} owner's team?",
            "tell me the team of whoever runs {x}",
            "The engineer on call for {x} works in which team?",
        ],
    ),
    (
        "store>region",
        "svc",
        [("store", F), ("region", F)],
        8,
        [
            "Which region hosts the datastore {x} uses?",
            "where is {x}'s database hosted",
            "{x} stores data somewhere. Which region is that in?",
            "In which region does {x}'s data live?",
            "what region is the backing store of {x} in",
        ],
    ),
    (
        "owner>city",
        "svc",
        [("owner", F), ("city", F)],
        7,
        [
            "Where is the owner of {x} based?",
            "which city does {x}'s maintainer work from",
            "If I want to meet whoever is on call for {x} in person, which office do I go to?",
            "{x} has an owner. What city are they in?",
        ],
    ),
    (
        "dep>store",
        "svc",
        [("dep", F), ("store", F)],
        5,
        [
            "Which datastore does {x}'s upstream use?",
            "what does the service {x} depends on persist to",
            "{x} calls another service; where does that one keep its data?",
        ],
    ),
    (
        "team>lead",
        "nonlead",
        [("team", F), ("lead", F)],
        6,
        [
            "Who leads {x}'s team?",
            "who is {x}'s team lead",
            "{x} is on some team. Who runs it?",
            "Who is the manager of the team {x} works in?",
        ],
    ),
    (
        "team>channel",
        "person",
        [("team", F), ("channel", F)],
        5,
        [
            "What Slack channel should I use to reach {x}'s team?",
            "{x}'s team channel",
            "Which Slack channel belongs to the team {x} is on?",
        ],
    ),
    (
        "lead>city",
        "team",
        [("lead", F), ("city", F)],
        4,
        [
            "Where is the lead of {x} based?",
            "which city does the {x} team's lead live in",
            "The {x} team has a lead. Which office are they in?",
        ],
    ),
    (
        "dep>dep",
        "svc",
        [("dep", F), ("dep", F)],
        4,
        [
            "What does {x}'s upstream depend on?",
            "what's two hops upstream of {x}",
            "{x} depends on a service. What does that service depend on?",
        ],
    ),
    (
        "revdep>owner",
        "svc_in1",
        [("dep", R), ("owner", F)],
        3,
        [
            "Who owns the service that depends on {x}?",
            "something depends on {x}. who maintains it",
        ],
    ),
    (
        "revchannel>lead",
        "channel",
        [("channel", R), ("lead", F)],
        2,
        [
            "Who leads the team whose Slack channel is {x}?",
            "who's the lead of the team that hangs out in {x}",
        ],
    ),
    # ---------------- 3 hops ----------------
    (
        "dep>owner>team",
        "svc",
        [("dep", F), ("owner", F), ("team", F)],
        8,
        [
            "What team is the owner of {x}'s upstream on?",
            "{x} depends on a service. Which team is that service's owner in?",
            "which team does the maintainer of the thing {x} calls belong to",
            "Tell me the team of whoever owns the service {x} sits on top of.",
        ],
    ),
    (
        "owner>team>lead",
        "svc",
        [("owner", F), ("team", F), ("lead", F)],
        9,
        [
            "Who leads the team of {x}'s owner?",
            "who's the boss of the team that {x}'s maintainer is on",
            "Tell me the lead of the team that owns {x}.",
            "{x} has an owner on some team. Who leads that team?",
            "Above the person on call for {x}, who leads their team?",
        ],
    ),
    (
        "owner>team>channel",
        "svc",
        [("owner", F), ("team", F), ("channel", F)],
        8,
        [
            "Tell me the Slack channel for the team that owns {x}.",
            "which channel do i post in to reach the team of whoever maintains {x}",
            "What's the Slack channel of {x}'s owner's team?",
            "{x} is broken. Which team channel should I report it in?",
        ],
    ),
    (
        "dep>store>region",
        "svc",
        [("dep", F), ("store", F), ("region", F)],
        8,
        [
            "In which region is the datastore of {x}'s upstream?",
            "{x} depends on a service. Where is that service's datastore hosted?",
            "what region does the database behind {x}'s dependency run in",
            "Which region hosts the storage of the service {x} relies on?",
        ],
    ),
    (
        "dep>owner>city",
        "svc",
        [("dep", F), ("owner", F), ("city", F)],
        6,
        [
            "Where is the owner of {x}'s upstream based?",
            "{x} relies on another service. Which city is that service's owner in?",
            "which office does the maintainer of {x}'s dependency work from",
        ],
    ),
    (
        "team>lead>city",
        "nonlead",
        [("team", F), ("lead", F), ("city", F)],
        6,
        [
            "Where is {x}'s team lead located?",
            "which office does the lead of {x}'s team work in",
            "{x} reports into a team lead. What city is that lead in?",
        ],
    ),
    (
        "dep>dep>owner",
        "svc",
        [("dep", F), ("dep", F), ("owner", F)],
        5,
        [
            "Who owns the upstream of {x}'s upstream?",
            "{x} depends on a service that depends on another. Who owns that last one?",
            "who maintains the service two hops upstream of {x}",
        ],
    ),
]


def start_pool(kind):
    if kind == "svc":
        return SERVICES[:], "svc"
    if kind == "svc_in1":
        return [s for s in SERVICES if len(preimage("dep", s)) == 1], "svc"
    if kind == "person":
        return PEOPLE[:], "person"
    if kind == "nonlead":
        return [p for p in PEOPLE if LEAD[TEAM[p]] != p], "person"
    if kind == "lead":
        return [LEAD[t] for t in TEAMS], "person"
    if kind == "owner1":
        return [p for p in PEOPLE if len(preimage("owner", p)) == 1], "person"
    if kind == "team":
        return TEAMS[:], "team"
    if kind == "channel":
        return [CHANNEL[t] for t in TEAMS], "channel"
    if kind == "ds":
        return DATASTORES[:], "ds"
    raise ValueError(kind)


def q_surface(kind, ent):
    if kind == "svc":
        return svc_variants(ent)[0] if rng.random() < 0.7 else surf("svc", ent)
    if kind == "person":
        return ent
    if kind == "ds":
        return ent
    return ent


def casualize(q):
    q = q.lower()
    return q[:-1] if q.endswith("?") or q.endswith(".") else q


def cap_q(q):
    return q[0].upper() + q[1:] if q.startswith("the ") else q


questions = []
q_texts = set()
for name, skind, hops, count, templates in QTYPES:
    pool, ekind = start_pool(skind)
    rng.shuffle(pool)
    made = 0
    for start in pool:
        if made >= count:
            break
        res = walk(start, hops)
        if res is None:
            continue
        ents, edges = res
        tpl = rng.choice(templates)
        q = cap_q(tpl.format(x=q_surface(ekind, start)))
        if rng.random() < 0.12:
            q = casualize(q)
        if q in q_texts:
            continue
        q_texts.add(q)
        gold = [ID_OF[FACT_OF[e]] for e in edges]
        questions.append(
            {
                "question": q,
                "hops": len(gold),
                "gold": gold,
                "answer": ents[-1],
                "kind": name,
                "_start": start,
                "_hops": hops,
                "_ekind": ekind,
            }
        )
        made += 1
    if made < count:
        print("warning: %s only produced %d/%d" % (name, made, count), file=sys.stderr)


# --------------------------------------------------------------------------
# Self-check
# --------------------------------------------------------------------------
def self_check():
    errs = []
    # every relation edge has exactly one fact, and it mentions both ends
    rel_facts = [f for f in facts if f["meta"]["rel"] != "distractor"]
    assert len(rel_facts) == sum(len(t) for t in REL.values())
    for f in rel_facts:
        m = f["meta"]
        hk, tk = REL_KINDS[m["rel"]]
        if REL[m["rel"]][m["head"]] != m["tail"]:
            errs.append(f"fact disagrees with table: {f!r}")
        low = f["content"].lower()
        for kind, ent in ((hk, m["head"]), (tk, m["tail"])):
            if not any(s.lower() in low for s in all_surfaces(kind, ent)):
                errs.append("entity {!r} not mentioned in {!r}".format(ent, f["content"]))
    # DEP: one upstream each, no self, no 2-cycles
    for s in SERVICES:
        if DEP[s] == s or DEP[DEP[s]] == s:
            errs.append(f"bad dep for {s}")
    # each team lead is a member of the team
    for t in TEAMS:
        if TEAM[LEAD[t]] != t:
            errs.append(f"lead of {t} not a member")
    # questions: walk gold facts from the start entity
    for q in questions:
        if len(q["gold"]) != q["hops"] or len(set(q["gold"])) != q["hops"]:
            errs.append(f"hops mismatch {q!r}")
        if not any(
            s.lower() in q["question"].lower() for s in all_surfaces(q["_ekind"], q["_start"])
        ):
            errs.append("start entity missing from question {!r}".format(q["question"]))
        cur = q["_start"]
        for gid, (rel, d) in zip(q["gold"], q["_hops"], strict=False):
            m = FACT_BY_ID[gid]["meta"]
            if m["rel"] != rel:
                errs.append("wrong relation in gold {} for {!r}".format(gid, q["question"]))
                break
            if d == "f":
                if m["head"] != cur:
                    errs.append("chain break at {} for {!r}".format(gid, q["question"]))
                    break
                cur = m["tail"]
            else:
                if m["tail"] != cur or len(preimage(rel, cur)) != 1:
                    errs.append("reverse chain break at {} for {!r}".format(gid, q["question"]))
                    break
                cur = m["head"]
        else:
            if cur != q["answer"]:
                errs.append("answer mismatch for {!r}".format(q["question"]))
    # phrasing variety requirement
    for rel, ph in PHRASES.items():
        if len(ph) < 8:
            errs.append("relation %s has only %d phrasings" % (rel, len(ph)))
    n = len(facts)
    if not 350 <= n <= 450:
        errs.append("fact count %d out of range" % n)
    if len(set(f["content"] for f in facts)) != n:
        errs.append("duplicate fact text")
    if errs:
        for e in errs:
            print("SELF-CHECK FAIL:", e, file=sys.stderr)
        sys.exit(1)


self_check()

out = {
    "facts": [{"id": "w%d" % i, "content": facts[order[i]]["content"]} for i in range(len(facts))],
    "questions": [{k: v for k, v in q.items() if not k.startswith("_")} for q in questions],
}
with open(OUT, "w", encoding="utf-8") as fh:
    json.dump(out, fh, ensure_ascii=False, indent=1)

by_hops = {}
for q in questions:
    by_hops[q["hops"]] = by_hops.get(q["hops"], 0) + 1
print(
    "wrote %s: %d facts (%d relation, %d distractor), %d questions %s"
    % (OUT, len(facts), N_REL, len(facts) - N_REL, len(questions), dict(sorted(by_hops.items())))
)
