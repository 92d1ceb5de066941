#!/usr/bin/env python3
"""Held-out retrieval world: a coding agent's accumulated notes about a company monorepo.

Standard library only, deterministic (seed 6161). Writes world.json next to this file:
  {"facts": [{"id": "s0", "content": ...}], "questions": [{"question", "hops", "gold"}]}
Gold chains are derived from the relation tables below, never written by hand, and
self-checked: every gold fact must mention both entities of its hop.
"""

import json
import os
import random
import re

SEED = 6161
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "world.json")

rng = random.Random(SEED)

# --------------------------------------------------------------------------- entities
# (canonical key, surfaces used in text). Matching aliases = surfaces minus a leading "the ".
SERVICES = [
    ("payments.api", ["payments.api"]),
    ("ledger-svc", ["ledger-svc", "the ledger service"]),
    ("psp-adapter", ["the PSP adapter", "psp-adapter"]),
    ("auth_gateway", ["auth_gateway"]),
    ("NotificationHub", ["NotificationHub"]),
    ("search-indexer", ["search-indexer"]),
    ("checkout-web", ["checkout-web"]),
    ("InventorySync", ["InventorySync"]),
    ("pricing_engine", ["pricing_engine"]),
    ("Fraud Scoring", ["Fraud Scoring", "fraud-scoring"]),
    ("catalog.graphql", ["catalog.graphql"]),
    ("order-router", ["order-router"]),
    ("shipping_quotes", ["shipping_quotes"]),
    ("ReportBuilder", ["ReportBuilder"]),
    ("feature-flags", ["feature-flags"]),
    ("user-profile-svc", ["user-profile-svc"]),
    ("email_sender", ["email_sender"]),
    ("Media Transcoder", ["Media Transcoder"]),
    ("tax.calc", ["tax.calc"]),
    ("RecoEngine", ["RecoEngine", "the reco engine"]),
    ("sessiond", ["sessiond"]),
    ("webhook-relay", ["webhook-relay"]),
    ("AuditLogger", ["AuditLogger"]),
    ("geo_lookup", ["geo_lookup"]),
    ("BatchScheduler", ["BatchScheduler"]),
    ("invoice-pdf", ["invoice-pdf"]),
    ("Admin Console", ["Admin Console", "the Admin Console"]),
    ("metrics-shipper", ["metrics-shipper"]),
    ("rate_limiter", ["rate_limiter"]),
    ("CartService", ["CartService"]),
    ("loyalty.points", ["loyalty.points"]),
    ("kyc-checker", ["the KYC checker", "kyc-checker"]),
    ("img-resizer", ["img-resizer"]),
    ("support-bridge", ["support-bridge"]),
    ("dns-updater", ["dns-updater"]),
    ("etl_runner", ["etl_runner"]),
    ("SearchAPI", ["SearchAPI"]),
    ("refunds-worker", ["refunds-worker"]),
    ("mobile-bff", ["the mobile BFF", "mobile-bff"]),
    ("config.loader", ["config.loader"]),
]

ENGINEERS = [  # (full name, handle)
    ("Priya Raman", "@praman"),
    ("Tomasz Wojcik", "@tomw"),
    ("Aisha Bello", "@abello"),
    ("Marcus Lindqvist", "@mlind"),
    ("Hiroshi Tanaka", "@hiro"),
    ("Sofia Castellanos", "@sofic"),
    ("Dmitri Volkov", "@dvolkov"),
    ("Grace Okafor", "@gokafor"),
    ("Liam O'Connell", "@liamoc"),
    ("Nadia Haddad", "@nhaddad"),
    ("Wei Zhang", "@wzhang"),
    ("Rahul Deshpande", "@rahuld"),
    ("Elena Petrova", "@epetrova"),
    ("Kwame Mensah", "@kwame"),
    ("Ingrid Solberg", "@ingrids"),
    ("Mateo Alvarez", "@mateoa"),
    ("Yuki Nakamura", "@yukin"),
    ("Fatima Idrissi", "@fidrissi"),
    ("Oliver Brandt", "@obrandt"),
    ("Chloe Dubois", "@cdubois"),
    ("Arjun Mehta", "@arjunm"),
    ("Beatriz Souza", "@bia"),
    ("Samuel Adeyemi", "@sadeyemi"),
    ("Hannah Becker", "@hbecker"),
    ("Jonas Eriksen", "@jonase"),
    ("Leila Farahani", "@leilaf"),
    ("Victor Nguyen", "@vnguyen"),
    ("Anya Kowalski", "@anyak"),
    ("Diego Ferreira", "@dferreira"),
    ("Meilin Huang", "@meilin"),
    ("Patrick Doyle", "@pdoyle"),
    ("Zainab Yusuf", "@zainaby"),
    ("Felix Hartmann", "@fhartmann"),
    ("Rosa Jimenez", "@rosaj"),
    ("Ethan Brooks", "@ebrooks"),
    ("Olga Ivanova", "@olgai"),
]

TEAMS = [  # (name, surfaces in facts, surfaces in questions)
    ("Payments Core", ["Payments Core", "the Payments Core team"], ["Payments Core"]),
    ("Platform Infra", ["Platform Infra", "the Platform Infra team"], ["Platform Infra"]),
    (
        "Search & Discovery",
        ["Search & Discovery", "the Search & Discovery team"],
        ["Search & Discovery"],
    ),
    (
        "Identity & Access",
        ["Identity & Access", "the IAM team"],
        ["Identity & Access", "the IAM team"],
    ),
    ("Growth", ["Growth", "the Growth team"], ["the Growth team", "Growth"]),
    ("Data Platform", ["Data Platform", "the Data Platform team"], ["Data Platform"]),
    (
        "Fulfillment",
        ["Fulfillment", "the Fulfillment team"],
        ["Fulfillment", "the Fulfillment team"],
    ),
    ("Developer Experience", ["Developer Experience", "DevEx"], ["Developer Experience", "DevEx"]),
]
CHANNEL_OF = {  # natural naming, but still a relation edge that must be retrieved
    "Payments Core": "#pay-core",
    "Platform Infra": "#infra-oncall",
    "Search & Discovery": "#search-squad",
    "Identity & Access": "#iam-help",
    "Growth": "#growth-eng",
    "Data Platform": "#data-plat",
    "Fulfillment": "#ship-it",
    "Developer Experience": "#devex",
}

STORES = [  # (name, kind)
    ("payments_pg", "Postgres"),
    ("ledger-db", "Postgres"),
    ("catalog_pg", "Postgres"),
    ("identity-pg", "Postgres"),
    ("redis-sessions", "Redis"),
    ("redis-ratelimit", "Redis"),
    ("orders.events.v2", "Kafka topic"),
    ("user-signups", "Kafka topic"),
    ("compliance-events", "Kafka topic"),
    ("s3://acme-media-raw", "S3 bucket"),
    ("s3://acme-reports", "S3 bucket"),
    ("products_v7", "Elasticsearch index"),
    ("support-tickets", "Elasticsearch index"),
    ("analytics-ch", "ClickHouse"),
    ("feature_flags_tbl", "DynamoDB table"),
]
REGIONS = [
    ("us-east-1", ["us-east-1", "AWS us-east-1"]),
    ("eu-west-1", ["eu-west-1", "AWS eu-west-1"]),
    ("eu-central-1", ["eu-central-1"]),
    ("ap-southeast-1", ["ap-southeast-1"]),
    ("us-west-2", ["us-west-2"]),
    ("dc-ams2", ["dc-ams2", "the dc-ams2 on-prem cluster"]),
]
CITIES = ["Berlin", "Lisbon", "Toronto", "Bangalore", "Austin", "Warsaw", "Singapore", "Dublin"]

# entity registry: key -> dict(type, surfaces, aliases)
ENT = {}


def _alias(s):
    return s[4:] if s.lower().startswith("the ") else s


def reg(key, typ, surfaces, extra=()):
    assert key not in ENT, key
    al = sorted({_alias(s) for s in surfaces} | set(extra), key=len, reverse=True)
    ENT[key] = {"type": typ, "surfaces": surfaces, "aliases": al}


def code_name(k):
    """How a service appears in paths / YAML / JSON: its repo directory name."""
    return k.lower().replace(" ", "-") if " " in k else k


for k, s in SERVICES:
    reg(k, "service", s, extra=(code_name(k),))
ENG = {}
for full, handle in ENGINEERS:
    first = full.split()[0]
    ENG[full] = {"full": full, "first": first, "handle": handle}
    reg(full, "engineer", [full, first, handle])
for name, fs, qs in TEAMS:
    reg(name, "team", fs + qs)
for t, ch in CHANNEL_OF.items():
    reg(ch, "channel", [ch])
STORE_KIND = {}
for name, kind in STORES:
    STORE_KIND[name] = kind
    reg(name, "store", [name])
for name, s in REGIONS:
    reg(name, "region", s)
for c in CITIES:
    reg(c, "city", [c])

# every alias must identify exactly one entity
_seen = {}
for k, e in ENT.items():
    for a in e["aliases"]:
        assert a.lower() not in _seen, (a, k, _seen.get(a.lower()))
        _seen[a.lower()] = k

_PAT = {
    k: [
        re.compile(r"(?<![\w\-.#@])" + re.escape(a) + r"(?![\w\-@])(?!\.\w)", re.I)
        for a in e["aliases"]
    ]
    for k, e in ENT.items()
}


def mentions(text, key):
    return any(p.search(text) for p in _PAT[key])


def mentioned(text):
    return {k for k in ENT if mentions(text, k)}


def byt(typ):
    return [k for k, e in ENT.items() if e["type"] == typ]


SVC, ENGS, TEAM, STORE, REGION, CITY = (
    byt(t) for t in ("service", "engineer", "team", "store", "region", "city")
)

# --------------------------------------------------------------------------- relation tables
# service -> upstream service (acyclic: only earlier services in a shuffled order)
order = SVC[:]
rng.shuffle(order)
DEP = {}
for i, s in enumerate(order):
    if i >= 6:
        # favour recent ones a bit so chains get some depth
        DEP[s] = rng.choice(order[max(0, i - 12) : i])

OWNER = {s: rng.choice(ENGS) for s in SVC}

# service -> store : 36 services have a store; 6 stores are exclusive to a single service
with_store = rng.sample(SVC, 36)
stores = STORE[:]
rng.shuffle(stores)
exclusive, shared = stores[:6], stores[6:]
STOREOF = {}
for s, st in zip(with_store[:6], exclusive, strict=False):
    STOREOF[s] = st
rest = with_store[6:]
for s, st in zip(rest[: len(shared)], shared, strict=False):
    STOREOF[s] = st
for s in rest[len(shared) :]:
    STOREOF[s] = rng.choice(shared)

# engineer -> team (4-5 each), team -> lead (a member), engineer -> city
engs = ENGS[:]
rng.shuffle(engs)
TEAMOF = {e: TEAM[i % len(TEAM)] for i, e in enumerate(engs)}
LEAD = {t: rng.choice(sorted(e for e in ENGS if TEAMOF[e] == t)) for t in TEAM}
CITYOF = {e: rng.choice(CITIES) for e in ENGS}
CHAN = dict(CHANNEL_OF)
REGIONOF = {st: rng.choice(REGION) for st in STORE}

RELS = {  # name: (table, source type, target type)
    "dep": (DEP, "service", "service"),
    "owner": (OWNER, "service", "engineer"),
    "store": (STOREOF, "service", "store"),
    "team": (TEAMOF, "engineer", "team"),
    "city": (CITYOF, "engineer", "city"),
    "lead": (LEAD, "team", "engineer"),
    "chan": (CHAN, "team", "channel"),
    "region": (REGIONOF, "store", "region"),
}

# --------------------------------------------------------------------------- surfaces


def surf(key):
    e = ENT[key]
    if e["type"] == "engineer":
        g = ENG[key]
        return rng.choices([g["full"], g["first"], g["handle"]], [6, 2, 2])[0]
    if e["type"] == "team":
        return rng.choices(e["surfaces"][:2], [6, 4])[0]
    s = e["surfaces"]
    if len(s) == 1:
        return s[0]
    return rng.choices(s, [7] + [3 / (len(s) - 1)] * (len(s) - 1))[0]


def qsurf(key):
    e = ENT[key]
    if e["type"] == "team":
        return rng.choice(e["surfaces"][2:])
    return surf(key)


def eng_vars(prefix, key):
    g = ENG[key]
    return {
        prefix: surf(key),
        prefix + "_full": g["full"],
        prefix + "_first": g["first"],
        prefix + "_handle": g["handle"],
    }


def dedup_the(text):
    """'the the PSP adapter' -> 'the PSP adapter' when a surface already carries its article."""
    return re.sub(r"\b(the) the\b", r"\1", text, flags=re.I)


def fill(tpl, v):
    return dedup_the(re.sub(r"\{(\w+)\}", lambda m: v[m.group(1)], tpl))


# --------------------------------------------------------------------------- relation phrasings
# s = service, d = upstream service, o = owner, st = store, e = engineer, t = team,
# c = city, l = lead, ch = channel, r = region, kind = store kind
T_DEP = [
    "{s} → {d} (sync HTTP, no circuit breaker yet)",
    "dep: {s} -> {d}",
    "{s} calls {d} on every request, so when {d} is down expect 5xx from {s}",
    "{s} consumes the events that {d} emits",
    "gotcha: {s} vendors the client lib from {d}, so bump them together or the build breaks",
    "I found out the hard way that {s} can't even boot unless {d} is reachable — hard dependency.",
    '{"service": "{s_code}", "depends_on": ["{d_code}"]}',
    "upstream of {s} is {d}.",
    "Spent most of the afternoon chasing timeouts and it turns out the thing nobody wrote down is that {s} makes blocking calls into {d} during traffic peaks.",
    "PR review: please don't add another hop here, {s} already talks to {d} directly",
    "{d} is a hard dependency of {s}",
    "arch note — {s} sits downstream of {d}",
    "services/{s_code}/deps.yaml: `upstream: {d_code}`",
]
T_OWNER = [
    "{s} owner: {o}",
    "{o} owns {s}",
    "CODEOWNERS: /services/{s_code}/ {o_handle}",
    "PagerDuty for {s} routes to {o}, since it's theirs",
    "{s} is {o_first}'s pet project, ask before touching the retry config",
    "Deploys of {s} need a sign-off from its owner, {o}.",
    "{o_full} is the code owner for {s}, so every PR there waits on their review",
    "owner={o_handle} service={s_code}",
    "Slack thread summary: {o_first} confirmed they're still the maintainer of {s} after the reorg.",
    "maintained by {o}: {s}",
    "if {s} breaks, ping {o} — it's their service",
    "Had to dig through three stale wiki pages and an archived Jira epic before figuring out that the person actually on the hook for {s} these days is {o}.",
]
T_STORE = [
    "{s} persists everything to {st}",
    "{s} → {st} (reads + writes)",
    "data: {s} r/w {st}",
    "{st} is the backing store for {s}",
    "gotcha: {s} keeps all its state in {st}, so restoring {st} means restarting {s} too",
    "`{s_code}: { datastore: {st} }`",
    "Everything {s} stores ends up in the {kind} {st}.",
    "I noticed {s} writes straight into {st}, no ORM in between",
    "{st} ← {s} (primary storage)",
    "the only datastore {s} touches is {st}",
    "runbook: if {s} serves stale data, check lag on {st} first, that's where it keeps its data",
    "After the big cleanup last quarter, where half the room argued about whether we even needed a database per service, {s} ended up with {st} as its one and only datastore.",
]
T_TEAM = [
    "{e} is on {t}",
    "{e} — {t}",
    "{e} joined {t} this sprint (moved over from another team)",
    "team: {t} / member: {e}",
    "{e_first} sits in {t}",
    "{t} headcount includes {e}",
    "org chart says {e} reports into {t}",
    "{e_handle} (team: {t})",
    "gotcha: {e_first} is actually part of {t}, I had wrongly assumed otherwise",
    '{"engineer": "{e_full}", "team": "{t}"}',
    "{e} works in {t}.",
    "During the retro someone asked who to loop in about on-call handover, and for the record {e}, who has been around since the early days, belongs to {t}.",
]
T_CITY = [
    "{e} is based in {c}",
    "{e_first} works out of the {c} office",
    "{e} ({c})",
    "office: {c} — {e}",
    "note to self: {e_first} is in {c}, schedule calls accordingly",
    "{c} office: {e}",
    "{e_handle} location={c}",
    "{e} sits in our {c} office",
    "heads-up, {e_first} is in the {c} office so async reviews from them land overnight",
    "{e} commutes to the {c} office most days",
    "When we tried to set up the incident review it took forever to find a slot, because {e} works from the {c} office and half the attendees were on the other side of the planet.",
]
T_LEAD = [
    "{t} lead: {l}",
    "{l} leads {t}",
    "{t} is run by {l}",
    "escalate {t} staffing questions to {l}, the team lead",
    "{l_first} took over as lead of {t}",
    "EM/lead for {t} = {l}",
    "{t}'s tech lead is {l}",
    "headed by {l}: {t}",
    "Slack summary: {l} (lead, {t}) approved the Q3 roadmap",
    '{"team": "{t}", "lead": "{l_handle}"}',
    "If you need someone to break a tie on an architecture disagreement involving {t}, the person with the final say is their lead, {l}.",
]
T_CHAN = [
    "{t} hangs out in {ch}",
    "{ch} is {t}'s channel",
    "ask {t} questions in {ch}",
    "{t} → {ch}",
    "channel for {t}: {ch}",
    "{ch} — the {t} team channel",
    "slack: {t} = {ch}",
    "post {t} announcements to {ch}, not DMs",
    "gotcha: {t} never reads #general, use {ch}",
    "{t}'s Slack channel is {ch}",
    "Spent ten minutes looking for where to ask before realising that {t} does everything in {ch}, release announcements and on-call handoffs included.",
]
T_REGION = [
    "{st} lives in {r}",
    "{st} is hosted in {r}",
    "{st} @ {r}",
    "region({st}) = {r}",
    "{r} hosts {st}",
    "gotcha: {st} is in {r}, so expect cross-region latency from anywhere else",
    "{st}: region {r}",
    "runbook: failover for {st} stays inside {r}, there is no replica anywhere else",
    "I checked the cloud console — {st} is provisioned in {r}.",
    "`{st}: { region: {r} }`",
    "Finance asked why the bill jumped, and part of the answer is that the {kind} {st} runs in {r}, where egress is pricey.",
]
TEMPLATES = {
    "dep": T_DEP,
    "owner": T_OWNER,
    "store": T_STORE,
    "team": T_TEAM,
    "city": T_CITY,
    "lead": T_LEAD,
    "chan": T_CHAN,
    "region": T_REGION,
}


def rel_vars(rel, a, b):
    if rel == "dep":
        return {"s": surf(a), "d": surf(b), "s_code": code_name(a), "d_code": code_name(b)}
    if rel == "owner":
        return {"s": surf(a), "s_code": code_name(a), **eng_vars("o", b)}
    if rel == "store":
        return {"s": surf(a), "s_code": code_name(a), "st": surf(b), "kind": STORE_KIND[b]}
    if rel in ("team", "city"):
        v = eng_vars("e", a)
        v["t" if rel == "team" else "c"] = surf(b)
        return v
    if rel == "lead":
        return {"t": surf(a), **eng_vars("l", b)}
    if rel == "chan":
        t = surf(a)
        return {"t": t, "ch": surf(b)}
    if rel == "region":
        return {"st": surf(a), "r": surf(b), "kind": STORE_KIND[a]}
    raise KeyError(rel)


raw_facts = []  # (text, kind, payload)
for rel, (table, _, _) in RELS.items():
    for a in sorted(table):
        b = table[a]
        tpl = rng.choice(TEMPLATES[rel])
        if rel == "chan" and tpl.startswith("{ch} — the {t} team"):
            v = {"t": ENT[a]["surfaces"][0], "ch": b}
        else:
            v = rel_vars(rel, a, b)
        text = fill(tpl, v)
        raw_facts.append((text, "rel", (rel, a, b)))

# --------------------------------------------------------------------------- distractors
LIBS = [
    "grpc-go",
    "protobuf",
    "urllib3",
    "pydantic",
    "Spring Boot",
    "log4j",
    "openssl",
    "Django",
    "sqlalchemy",
    "tokio",
    "axios",
    "jackson-databind",
    "celery",
    "Node",
]
TESTS = [
    "test_retry_backoff",
    "test_idempotency_key",
    "TestConcurrentWrites",
    "test_webhook_sig",
    "it('renders the cart')",
    "TestShutdownDrain",
    "test_currency_rounding",
    "test_pagination",
]
MONTHS = ["March", "April", "May", "June", "September", "October", "November"]


def ver():
    return f"{rng.randint(1, 9)}.{rng.randint(0, 30)}.{rng.randint(0, 12)}"


def pick(lst, *excl):
    c = [x for x in lst if x not in excl]
    return rng.choice(c)


def two(lst):
    return rng.sample(lst, 2)


def d01():
    s = pick(SVC)
    lib = rng.choice(LIBS)
    return f"{surf(s)}: bumped {lib} {ver()} -> {ver()}, nothing broke as far as I can tell", {s}


def d02():
    s = pick(SVC)
    return (
        f"flaky: {rng.choice(TESTS)} in {surf(s)} fails roughly 1 in {rng.randint(8, 40)} CI runs, "
        f"mostly on the ARM runners"
    ), {s}


def d03():
    s = pick(SVC)
    return (
        f"INC-{rng.randint(1000, 4999)}: {surf(s)} threw 503s for {rng.randint(4, 70)} min — expired "
        f"TLS cert on the ingress, fixed by restarting cert-manager"
    ), {s}


def d04():
    st = pick(STORE)
    return (
        f"{st} costs about ${rng.randint(3, 90) * 100}/month now; FinOps flagged it in the quarterly review",
        {st},
    )


def d05():
    a, b = two(ENGS)
    s = pick(SVC)
    return (
        f"{surf(a)} and {surf(b)} paired on the {surf(s)} memory leak last week, turned out to be "
        f"an unbounded LRU"
    ), {a, b, s}


def d06():
    s = pick(SVC)
    e = pick(ENGS, OWNER[s])
    return (
        f"{surf(e)} reviewed the retry/backoff PR in {surf(s)} (not the owner, just had context from "
        f"the last incident)"
    ), {e, s}


def d07():
    a, b = two(SVC)
    return f"{surf(a)} and {surf(b)} were moved to the distroless base image in the same PR", {a, b}


def d08():
    a, b = two(SVC)
    return (
        f"{surf(a)} and {surf(b)} share the 'edge latency' Grafana dashboard, so the panels mix both",
        {a, b},
    )


def d09():
    e = pick(ENGS)
    return f"{ENG[e]['first']} prefers rebase over merge commits and will ask you to squash", {e}


def d10():
    e = pick(ENGS)
    return f"{surf(e)} runs the Tuesday architecture review; agenda doc is pinned in the wiki", {e}


def d11():
    st = pick(STORE)
    return f"TODO: add a disk-usage alert for {st} before it fills up again", {st}


def d12():
    st = pick(STORE)
    r = pick(REGION, REGIONOF[st])
    return f"proposal to move {st} to {r} was shelved — the egress estimate was too high", {st, r}


def d13():
    s = pick(SVC)
    st = pick(STORE, STOREOF.get(s))
    return (
        f"someone suggested {surf(s)} cache lookups in {st}; rejected in review, not worth the coupling",
        {s, st},
    )


def d14():
    e = pick(ENGS)
    c = pick(CITIES, CITYOF[e])
    return f"{surf(e)} was in {c} for the offsite last week, back online Monday", {e, c}


def d15():
    t = pick(TEAM)
    ch = CHAN[t]
    return f"{ch} is muted by half the company because of the deploy-bot spam", {ch}


def d16():
    t = pick(TEAM)
    return f"{surf(t)} moved their demo slot to Wednesdays", {t}


def d17():
    e = pick(ENGS)
    s = pick(SVC)
    return (
        f"{surf(e)} gave a brown-bag talk on how {surf(s)} handles retries; recording is on the drive",
        {e, s},
    )


def d18():
    s = pick(SVC)
    e = pick(ENGS, OWNER[s])
    return (
        f"{surf(s)} cold-starts in ~{rng.randint(4, 40)}s; {ENG[e]['first']} wants to profile it someday",
        {s, e},
    )


def d19():
    a, b = two(ENGS)
    return f"on-call swap: {surf(a)} covered for {surf(b)} over the long weekend", {a, b}


def d20():
    s = pick(SVC)
    return f"{surf(s)} logs are way too chatty at DEBUG — set LOG_LEVEL=info before tailing", {s}


def d21():
    e = pick(ENGS)
    return f"{surf(e)} is out on leave until {rng.choice(MONTHS)}, don't assign them reviews", {e}


def d22():
    s = pick(SVC)
    lib = rng.choice(LIBS)
    return (
        f"CVE-2024-{rng.randint(1000, 48000)} in {lib} affects {surf(s)}; mitigated by pinning {ver()}",
        {s},
    )


def d23():
    a, b = two(SVC)
    return (
        f"{surf(a)} and {surf(b)} both still send the deprecated v1 auth headers, need to migrate "
        f"before Q{rng.randint(1, 4)}"
    ), {a, b}


def d24():
    s = pick(SVC)
    e = pick(ENGS, OWNER[s])
    return f"{surf(e)} wrote the k6 load-test harness we point at {surf(s)}", {e, s}


def d25():
    st = pick(STORE)
    e = pick(ENGS)
    return (
        f"schema migration {rng.randint(40, 400):04d} on {st} took 40 min and locked writes; "
        f"{ENG[e]['first']} ran it at 2am"
    ), {st, e}


def d26():
    a, b = two(TEAM)
    return f"{surf(a)} and {surf(b)} do joint quarterly planning now", {a, b}


def d27():
    e = pick(ENGS)
    t = pick(TEAM, TEAMOF[e])
    s = pick(SVC)
    return f"{surf(e)} asked in {CHAN[t]} about {surf(s)} timeouts, no answer yet", {e, CHAN[t], s}


def d28():
    r = pick(REGION)
    return (
        f"{surf(r)} had a control-plane blip on {rng.randint(1, 28)} {rng.choice(MONTHS)}; "
        f"our data plane was fine"
    ), {r}


def d29():
    c = pick(CITIES)
    return f"the {c} office wifi blocks outbound port 22, use the VPN for git over ssh", {c}


def d30():
    s = pick(SVC)
    return f"{surf(s)}'s README still lists env vars that were removed months ago", {s}


def d31():
    a, b = two(ENGS)
    s = pick(SVC)
    return (
        f"{surf(a)} and {surf(b)} disagree on whether {surf(s)} should be split in two; "
        f"parked until after the freeze"
    ), {a, b, s}


def d32():
    s = pick(SVC)
    return f"gotcha: the {surf(s)} healthcheck returns 200 even when its worker pool is dead", {s}


def d33():
    s = pick(SVC)
    return (
        f"load test: {surf(s)} held {rng.randint(3, 40) * 100} rps before p99 went over {rng.randint(2, 9)}00ms",
        {s},
    )


def d34():
    s = pick(SVC)
    e = pick(ENGS, OWNER[s])
    return (
        f"{surf(s)} integration tests take {rng.randint(9, 30)} min; {surf(e)} is parallelising them",
        {s, e},
    )


def d35():
    ch = CHAN[pick(TEAM)]
    return (
        f"long thread in {ch} about pinning Terraform providers, consensus was to pin minor versions",
        {ch},
    )


def d36():
    st = pick(STORE)
    return (
        f"snapshot of {st} from {rng.randint(1, 28)} {rng.choice(MONTHS)} restored fine in the DR drill",
        {st},
    )


def d37():
    a, b = two(SVC)
    return f"{surf(a)} and {surf(b)} got their rate limits bumped together for the sale weekend", {
        a,
        b,
    }


def d38():
    a, b = two(ENGS)
    c = pick(CITIES, CITYOF[a], CITYOF[b])
    return f"{surf(a)} and {surf(b)} both flew to {c} for KubeCon", {a, b, c}


def d39():
    t = pick(TEAM)
    return f"{surf(t)} is hiring two backend engineers, referrals go through the recruiting form", {
        t
    }


def d40():
    s = pick(SVC)
    e = pick(ENGS, OWNER[s])
    return (
        f"{ENG[e]['handle']} left a long review comment on the {surf(s)} PR about naming, mostly bikeshedding",
        {e, s},
    )


def d41():
    a, b = two(ENGS)
    return (
        f"After a very long back-and-forth in standup about whether the flaky canary was our fault or "
        f"the mesh's, {surf(a)} and {surf(b)} agreed to spend Friday bisecting it, which is honestly "
        f"the third time this quarter."
    ), {a, b}


def d42():
    s = pick(SVC)
    st = pick(STORE, STOREOF.get(s))
    return (
        f"the {surf(s)} p95 panel sits right next to the {st} replication-lag panel on the same board, "
        f"which confuses everyone"
    ), {s, st}


def d43():
    s = pick(SVC)
    return (
        f"costs: {surf(s)} runs on {rng.randint(3, 20)} spot nodes, ~${rng.randint(4, 60) * 100}/mo",
        {s},
    )


def d44():
    e = pick(ENGS)
    return f"{surf(e)} is the go-to person for anything Terraform, even outside their own area", {e}


def d45():
    a, b = two(SVC)
    e = pick(ENGS, OWNER[a], OWNER[b])
    return (
        f"{surf(e)} migrated {surf(a)} and {surf(b)} off the old service mesh together over two "
        f"weekends"
    ), {e, a, b}


def d46():
    t = pick(TEAM)
    e = rng.choice([x for x in ENGS if TEAMOF[x] != t])
    return f"{surf(e)} sat in on the {ENT[t]['surfaces'][0]} planning meeting as a guest", {e, t}


def d47():
    s = pick(SVC)
    return f"PagerDuty for {surf(s)} was noisy all week, mostly one flapping disk alert", {s}


DISTRACTORS = [v for k, v in sorted(globals().items()) if re.fullmatch(r"d\d\d", k)]
N_DISTRACT = 145
seen_text = {t for t, _, _ in raw_facts}
while sum(1 for f in raw_facts if f[1] == "dist") < N_DISTRACT:
    text, ents = rng.choice(DISTRACTORS)()
    text = dedup_the(text)
    text = text[0].upper() + text[1:] if text[0].islower() and rng.random() < 0.3 else text
    if text in seen_text:
        continue
    seen_text.add(text)
    raw_facts.append((text, "dist", frozenset(ents)))

rng.shuffle(raw_facts)
facts = [{"id": f"s{i}", "content": t} for i, (t, _, _) in enumerate(raw_facts)]
FACT_ID = {}
for i, (t, kind, p) in enumerate(raw_facts):
    if kind == "rel":
        FACT_ID[p] = f"s{i}"

# --------------------------------------------------------------------------- questions
Q = {
    # one hop
    "owner": [
        "Who owns {X}?",
        "{X} owner",
        "who is the code owner for {X}",
        "Who gets paged when {X} falls over?",
        "whose service is {X}",
        "I need a PR merged in {X}. Who has to approve it as owner?",
        "owner of {X}?",
        "who maintains {X} these days",
        "Who signs off on {X} deploys?",
    ],
    "dep": [
        "What does {X} depend on?",
        "{X} upstream",
        "Which service does {X} call?",
        "{X} is timing out on an upstream call. Which service is it waiting on?",
        "what is {X} downstream of",
        "{X} dependency",
        "Which upstream service needs to be up for {X} to work?",
    ],
    "store": [
        "Where does {X} keep its data?",
        "{X} datastore",
        "Which data store backs {X}?",
        "what does {X} persist to",
        "{X} db",
        "I need to inspect {X}'s state directly. Which store holds it?",
        "backing store for {X}?",
    ],
    "team": [
        "What team is {X} on?",
        "{X} team",
        "Which team does {X} belong to?",
        "{X}'s team?",
        "which team has {X} in it",
        "what squad is {X} part of",
    ],
    "city": [
        "Where is {X} based?",
        "{X} office",
        "Which office does {X} work from?",
        "what city is {X} in",
        "{X}'s location? Want to pick a sane meeting time.",
        "{X} office city",
    ],
    "lead": [
        "Who leads {X}?",
        "{X} lead",
        "who's the tech lead of {X}",
        "Who runs {X}?",
        "who do I escalate to on {X}",
        "team lead of {X}?",
    ],
    "chan": [
        "What's the Slack channel for {X}?",
        "{X} channel",
        "where do I ask {X} questions",
        "Which channel does {X} use?",
        "{X} slack",
    ],
    "region": [
        "Which region is {X} in?",
        "{X} region",
        "where is {X} hosted",
        "Which cluster or region runs {X}?",
        "{X} location (region)",
    ],
    "~chan": ["Which team uses {X}?", "{X} belongs to which team", "whose channel is {X}"],
    "~lead": ["Which team does {X} lead?", "{X} is lead of what team", "what team is led by {X}"],
    "~owner": [
        "What service does {X} own?",
        "{X} owns which service",
        "which service is {X}'s pet project",
    ],
    "~store": [
        "Which service writes to {X}?",
        "{X} is the datastore of which service",
        "what service uses {X}",
    ],
    "~dep": ["Which service depends on {X}?", "what calls {X}", "downstream consumer of {X}"],
    # two hops
    "owner.team": [
        "What team is the owner of {X} on?",
        "{X} owner team",
        "Which team does {X}'s owner belong to?",
        "find the team of whoever owns {X}",
        "The owner of {X} — what team are they in?",
        "which team owns {X}",
        "{X}: which team is its maintainer part of?",
    ],
    "owner.city": [
        "Where is the owner of {X} based?",
        "{X} owner office city",
        "which office does whoever maintains {X} work from",
        "I want to grab {X}'s owner in person. Which city are they in?",
        "city of {X}'s code owner",
    ],
    "store.region": [
        "Which region is {X}'s data store in?",
        "{X} db region",
        "where is the datastore behind {X} hosted",
        "In which region does {X}'s data live?",
        "{X} storage region?",
    ],
    "dep.owner": [
        "Who owns the service that {X} depends on?",
        "{X} upstream owner",
        "who should I ping about {X}'s upstream dependency",
        "owner of the thing {X} calls",
        "{X} keeps failing on its upstream. Who owns that upstream service?",
    ],
    "dep.store": [
        "What data store does {X}'s upstream use?",
        "{X} upstream datastore",
        "Which database backs the service {X} depends on?",
        "where does the service {X} calls keep its data",
    ],
    "team.lead": [
        "Who leads {X}'s team?",
        "{X} team lead",
        "who is the lead of the team {X} is on",
        "who does {X} report to (team lead)?",
        "find {X}'s team lead",
    ],
    "team.chan": [
        "What channel does {X}'s team use?",
        "{X} team slack channel",
        "where can I reach {X}'s team",
        "which channel belongs to the team that {X} is on",
    ],
    "lead.city": [
        "Where is the lead of {X} based?",
        "{X} lead office",
        "which city does the lead of {X} work in",
        "{X} team lead location",
    ],
    "dep.dep": [
        "What does {X}'s upstream depend on in turn?",
        "{X} upstream of upstream",
        "Which service is two hops upstream of {X}?",
        "the service {X} calls — what does that one call?",
    ],
    "~chan.lead": [
        "Who leads the team that uses {X}?",
        "{X} team lead",
        "whose team lives in {X}, and who leads it?",
    ],
    "~store.owner": [
        "Who owns the service that writes to {X}?",
        "{X} service owner",
        "whoever owns the service backed by {X} — who is it?",
    ],
    # three hops
    "owner.team.lead": [
        "Who leads the team of {X}'s owner?",
        "{X} owner team lead",
        "find the lead of the team whose member owns {X}",
        "I need to escalate {X} past its owner. Who is the owner's team lead?",
        "lead of the team that owns {X}",
    ],
    "owner.team.chan": [
        "find the channel of the team that owns {X}",
        "{X} owner team channel",
        "Where should I post about {X}? I mean the channel of its owner's team.",
        "Which Slack channel does the team of {X}'s maintainer use?",
    ],
    "dep.owner.team": [
        "What team is the owner of {X}'s upstream on?",
        "{X} upstream owner team",
        "which team does the person owning the service {X} calls belong to",
        "The service {X} depends on has an owner. Which team are they on?",
    ],
    "dep.store.region": [
        "Region of the datastore used by the service {X} depends on?",
        "{X} upstream db region",
        "In which region is the data store of {X}'s dependency hosted?",
        "where does the upstream of {X} keep its data, region-wise",
    ],
    "dep.owner.city": [
        "Where is the owner of {X}'s upstream service based?",
        "{X} upstream owner city",
        "which office does whoever owns {X}'s dependency work from",
    ],
    "dep.dep.owner": [
        "Who owns the service two hops upstream of {X}?",
        "owner of {X}'s upstream's upstream",
        "{X} calls something, which calls something else. Who owns that second one?",
    ],
    "team.lead.city": [
        "Which city is {X}'s team lead in?",
        "{X} team lead office",
        "where does the lead of {X}'s team work from",
    ],
    "dep.dep.store": [
        "what datastore does the service two hops upstream of {X} use",
        "{X} upstream upstream db",
        "Which store backs the dependency of {X}'s dependency?",
    ],
    "~chan.lead.city": ["Where is the lead of the team using {X} based?", "{X} team lead city"],
    "~store.owner.team": [
        "Which team is the owner of the service writing to {X} on?",
        "{X} writer service owner team",
        "find the team of whoever owns the service backed by {X}",
    ],
}
QUOTA = {
    1: {
        "owner": 6,
        "dep": 6,
        "store": 6,
        "team": 5,
        "city": 5,
        "lead": 5,
        "chan": 4,
        "region": 5,
        "~chan": 2,
        "~lead": 2,
        "~owner": 2,
        "~store": 1,
        "~dep": 1,
    },
    2: {
        "owner.team": 7,
        "owner.city": 6,
        "store.region": 7,
        "dep.owner": 7,
        "dep.store": 6,
        "team.lead": 6,
        "team.chan": 6,
        "lead.city": 5,
        "dep.dep": 5,
        "~chan.lead": 3,
        "~store.owner": 2,
    },
    3: {
        "owner.team.lead": 7,
        "owner.team.chan": 7,
        "dep.owner.team": 6,
        "dep.store.region": 6,
        "dep.owner.city": 5,
        "dep.dep.owner": 5,
        "team.lead.city": 5,
        "dep.dep.store": 4,
        "~chan.lead.city": 2,
        "~store.owner.team": 3,
    },
}


def step(rel, x):
    """Follow one edge; returns (next entity, edge key) or None. '~rel' = unique reverse."""
    if rel.startswith("~"):
        r = rel[1:]
        src = [a for a, b in RELS[r][0].items() if b == x]
        return (src[0], (r, src[0], x)) if len(src) == 1 else None
    table = RELS[rel][0]
    return (table[x], (rel, x, table[x])) if x in table else None


def start_type(chain):
    r = chain[0]
    return RELS[r[1:]][2] if r.startswith("~") else RELS[r][1]


questions, used_q = [], set()
for hops in (1, 2, 3):
    for qtype, n in QUOTA[hops].items():
        chain = qtype.split(".")
        assert len(chain) == hops
        cands = sorted(k for k, e in ENT.items() if e["type"] == start_type(chain))
        rng.shuffle(cands)
        made = 0
        for x0 in cands:
            if made == n:
                break
            path, edges, x = [x0], [], x0
            for rel in chain:
                nxt = step(rel, x)
                if nxt is None:
                    break
                x, ek = nxt
                path.append(x)
                edges.append(ek)
            if len(edges) != hops or len(set(path)) != len(path):
                continue
            q = fill(rng.choice(Q[qtype]), {"X": qsurf(x0)})
            if rng.random() < 0.12:  # lower-case, no punctuation, as typed in a hurry
                q = re.sub(r"[?,]", "", q.lower()).replace(" — ", " ")
            if q in used_q:
                continue
            used_q.add(q)
            questions.append(
                {
                    "question": q,
                    "hops": hops,
                    "gold": [FACT_ID[e] for e in edges],
                    "_path": path,
                    "_type": qtype,
                }
            )
            made += 1
        assert made == n, (qtype, made, n)

# --------------------------------------------------------------------------- self-checks
text_of = {f["id"]: f["content"] for f in facts}
for t, kind, p in raw_facts:
    m = mentioned(t)
    if kind == "rel":
        assert m == {p[1], p[2]}, (t, m, p)
    else:
        assert m == set(p), (t, m, set(p))
for q in questions:
    assert q["hops"] == len(q["gold"]) == len(q["_path"]) - 1
    assert mentions(q["question"], q["_path"][0]), q
    for i, fid in enumerate(q["gold"]):
        a, b = q["_path"][i], q["_path"][i + 1]
        assert mentions(text_of[fid], a) and mentions(text_of[fid], b), (q, fid, text_of[fid])
n_rel = sum(1 for f in raw_facts if f[1] == "rel")
n_dist = len(raw_facts) - n_rel
assert 350 <= len(facts) <= 450, len(facts)
assert 0.35 <= n_dist / len(facts) <= 0.45
assert len({f["content"] for f in facts}) == len(facts)
counts = {h: sum(1 for q in questions if q["hops"] == h) for h in (1, 2, 3)}

world = {
    "facts": facts,
    "questions": [
        {"question": q["question"], "hops": q["hops"], "gold": q["gold"]} for q in questions
    ],
}
with open(OUT, "w", encoding="utf-8") as fh:
    json.dump(world, fh, indent=1, ensure_ascii=False)
    fh.write("\n")

if __name__ == "__main__":
    per_rel = {r: sum(1 for f in raw_facts if f[1] == "rel" and f[2][0] == r) for r in RELS}
    print(f"wrote {OUT}")
    print(f"facts={len(facts)} relation={n_rel} distractor={n_dist} ({n_dist / len(facts):.0%})")
    print("relation facts per relation:", per_rel)
    print("phrasings per relation:", {r: len(t) for r, t in TEMPLATES.items()})
    print(f"distractor templates={len(DISTRACTORS)}")
    print(f"questions={len(questions)} by hops={counts}")
    print(
        f"entities: services={len(SVC)} engineers={len(ENGS)} teams={len(TEAM)} stores={len(STORE)} "
        f"regions={len(REGION)} cities={len(CITIES)} channels={len(CHAN)}"
    )
