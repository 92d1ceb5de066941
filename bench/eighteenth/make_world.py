#!/usr/bin/env python3
"""Deterministic generator for the "eighteenth" retrieval world.

Domain: the assistant memory of an engineer in the live-operations and
platform engineering group of a made-up game studio ("Lanternfish Games").

Run `python3 make_world.py` in this directory: writes world.json next to this
file and prints counts plus the md5 of the written bytes.  Standard library
only; every random choice comes from one random.Random(SEED); no set or
hash-order iteration, so output is identical under any PYTHONHASHSEED.
"""

import hashlib
import json
import os
import random
import re

SEED = 18181818
rng = random.Random(SEED)

# --------------------------------------------------------------------------
# Entities
# --------------------------------------------------------------------------
CITIES = ["Lisbon", "Montreal", "Osaka", "Krakow", "Austin", "Melbourne", "Tallinn", "Guadalajara"]

PEOPLE = [
    "Amara Okonkwo",
    "Bastien Leclerc",
    "Chiara Benedetti",
    "Dmitri Volkov",
    "Elif Yildiz",
    "Farah Haddad",
    "Gustavo Reyes",
    "Hana Kobayashi",
    "Ingrid Solberg",
    "Jonah Whitfield",
    "Kavya Raman",
    "Lucas Ferreira",
    "Maren Holt",
    "Nikolai Petrov",
    "Oona Lehtinen",
    "Priya Deshmukh",
    "Quentin Marchand",
    "Rosa Delgado",
    "Soren Lindqvist",
    "Tamsin Achterberg",
    "Uriel Navarro",
    "Vesna Kovac",
    "Wen Zhao",
    "Xavier Ortega",
    "Yara Nassar",
    "Zofia Wrobel",
    "Arjun Pillai",
    "Bettina Kraus",
    "Cormac Doyle",
    "Dalia Mansour",
    "Emeka Obi",
    "Freya Lund",
    "Gideon Marsh",
    "Hiro Tanabe",
    "Isla McAllister",
    "Joaquin Serrano",
    "Keiko Aramaki",
    "Leif Dahl",
    "Mireille Fontaine",
    "Nadia Rahimi",
    "Otto Brenner",
    "Paloma Quiroga",
    "Rafael Costa",
    "Saoirse Byrne",
]
HANDLES = [
    "@moth",
    "@zed",
    "@kettle",
    "@pixelgran",
    "@driftwood",
    "@nightjar",
    "@tofu",
    "@owlbear",
    "@sprocket",
    "@lowtide",
    "@fennec",
]

EXTERNAL = [
    "Percy Ambrose",
    "Delphine Okoro",
    "Mateus Brandt",
    "Greta Villanueva",
    "Ilya Marchetti",
    "Colette Rayner",
    "Bram Hoekstra",
    "Wanjiru Kamau",
]

TEAMS = [
    ("Matchmaking Core", "#queue-pop"),
    ("Game Server Fleet", "#hangar-bay"),
    ("Commerce & Payments", "#till-talk"),
    ("Telemetry Pipeline", "#firehose"),
    ("Build Infrastructure", "#smelter"),
    ("Fair Play", "#watchtower"),
    ("Player Support Tooling", "#ticket-forge"),
    ("Community Platform", "#town-square"),
    ("Identity & Accounts", "#keyring"),
    ("Live Events", "#showtime"),
    ("Observability", "#lighthouse"),
    ("Edge Networking", "#switchyard"),
]
TEAM_ALIASES = [
    ("Matchmaking Core", "MMC"),
    ("Commerce & Payments", "ComPay"),
    ("Build Infrastructure", "Team Anvil"),
]

SERVICES = [
    "queuewright",
    "skillgauge",
    "partyline",
    "lobbyhall",
    "shardkeeper",
    "heartbeatd",
    "patchtide",
    "tillpoint",
    "coinvault",
    "receiptcheck",
    "pricebook",
    "streamgate",
    "eventsieve",
    "metricmill",
    "crashcatch",
    "kilnrunner",
    "cratebin",
    "sigilcheck",
    "wardeye",
    "banhammer",
    "replayscope",
    "tickettrail",
    "refundbot",
    "modqueue",
    "newsbeacon",
    "authgate",
    "profiled",
    "friendgraph",
    "eventclock",
    "rewardrail",
    "tracehound",
    "relaymesh",
]
CODENAMES = [
    "Bluejay",
    "Marmalade",
    "Tin Soldier",
    "Sparrowhawk",
    "Gingersnap",
    "Quicksilver",
    "Old Faithful",
]

DATASTORES = [
    "pg-orca",
    "pg-halibut",
    "pg-juniper",
    "pg-basalt",
    "pg-cobalt",
    "redis-tansy",
    "redis-clover",
    "redis-wren",
    "redis-fennel",
    "cass-velvet",
    "cass-marigold",
    "kafka-drift",
    "kafka-ember",
    "s3-quarry",
    "s3-attic",
    "es-lantern",
    "ch-ironwood",
    "ch-saffron",
    "mongo-thistle",
    "scylla-pebble",
]
DS_ALIASES = ["Moby", "Riverbus", "Timber"]

CLUSTERS = [
    "k8s-umber",
    "k8s-cinder",
    "k8s-slate",
    "k8s-tundra",
    "k8s-mistral",
    "k8s-bramble",
    "k8s-quartz",
    "k8s-harbor",
    "k8s-nimbus",
]
REGIONS = ["eu-west-7", "us-east-5", "ap-northeast-4", "sa-east-3", "eu-north-6", "us-west-8"]

VENDORS = [
    "Quillpay",
    "Northgate CDN",
    "Palisade Shield",
    "Tessellate Analytics",
    "Brightwire Messaging",
    "Halcyon Desk",
    "Corvid Voice",
    "Mosaic Localization",
]
VENDOR_ALIASES = [("Northgate CDN", "NGC"), ("Corvid Voice", "Crowtalk")]
SERVICE_VENDOR = [
    ("tillpoint", "Quillpay"),
    ("refundbot", "Quillpay"),
    ("receiptcheck", "Quillpay"),
    ("patchtide", "Northgate CDN"),
    ("relaymesh", "Northgate CDN"),
    ("wardeye", "Palisade Shield"),
    ("metricmill", "Tessellate Analytics"),
    ("crashcatch", "Tessellate Analytics"),
    ("newsbeacon", "Brightwire Messaging"),
    ("tickettrail", "Halcyon Desk"),
    ("partyline", "Corvid Voice"),
    ("eventclock", "Mosaic Localization"),
]

ENTS = []  # list of entity dicts, creation order
BY_KEY = {}  # key -> entity (lookup only, never iterated)


def ent(kind, name, alias=None):
    e = {"key": kind + ":" + name, "kind": kind, "name": name, "alias": alias}
    ENTS.append(e)
    BY_KEY[e["key"]] = e
    return e


cities = [ent("city", c) for c in CITIES]
people = [ent("person", p) for p in PEOPLE]
externals = [ent("external", x) for x in EXTERNAL]
teams = [ent("team", t) for t, _ in TEAMS]
channels = [ent("channel", c) for _, c in TEAMS]
services = [ent("service", s) for s in SERVICES]
datastores = [ent("datastore", d) for d in DATASTORES]
clusters = [ent("cluster", k) for k in CLUSTERS]
regions = [ent("region", r) for r in REGIONS]
vendors = [ent("vendor", v) for v in VENDORS]

# second names (aliases)
for p, h in zip(rng.sample(people, len(HANDLES)), HANDLES):
    p["alias"] = h
for s, c in zip(rng.sample(services, len(CODENAMES)), CODENAMES):
    s["alias"] = c
for t, a in TEAM_ALIASES:
    BY_KEY["team:" + t]["alias"] = a
for d, a in zip(rng.sample(datastores, len(DS_ALIASES)), DS_ALIASES):
    d["alias"] = a
for v, a in VENDOR_ALIASES:
    BY_KEY["vendor:" + v]["alias"] = a

ALIASED_PEOPLE = [p for p in people if p["alias"]]

# --------------------------------------------------------------------------
# Ground-truth relations (all functional subject -> object)
# --------------------------------------------------------------------------
REL = []  # (rel, subj, obj) in deterministic order

# person -> team (two per team first, rest random); lead chosen among members
order = people[:]
rng.shuffle(order)
team_of = {}
for i, p in enumerate(order):
    team_of[p["key"]] = teams[i % len(teams)] if i < 2 * len(teams) else rng.choice(teams)
lead_of = {}
lead_keys = []
for t in teams:
    members = [p for p in people if team_of[p["key"]] is t]
    lead = rng.choice(members)
    lead_of[t["key"]] = lead
    lead_keys.append(lead["key"])
non_leads = [p for p in people if p["key"] not in lead_keys]

for t in teams:
    REL.append(("lead", t, lead_of[t["key"]]))
for t, c in zip(teams, channels):
    REL.append(("channel", t, c))
for p in people:
    # a lead's membership is implied by the lead note, so no separate
    # membership note is written for leads (keeps every pair single-sourced)
    if p["key"] not in lead_keys:
        REL.append(("team", p, team_of[p["key"]]))
for p in people:
    REL.append(("city", p, rng.choice(cities)))

ds_pool = datastores[:] + [rng.choice(datastores) for _ in range(len(services) - len(datastores))]
rng.shuffle(ds_pool)
for s, d in zip(services, ds_pool):
    REL.append(("writes_to", s, d))
for s in services:
    owner = rng.choice(non_leads) if rng.random() < 0.85 else rng.choice(people)
    REL.append(("owner", s, owner))

upstream = {}
with_up = rng.sample(services, 24)
for s in services:
    if s not in with_up:
        continue
    cands = [u for u in services if u is not s and upstream.get(u["key"]) is not s]
    u = rng.choice(cands)
    upstream[s["key"]] = u
    REL.append(("upstream", s, u))
for sname, vname in SERVICE_VENDOR:
    REL.append(("vendor", BY_KEY["service:" + sname], BY_KEY["vendor:" + vname]))

cl_pool = clusters[:] + [rng.choice(clusters) for _ in range(len(datastores) - len(clusters))]
rng.shuffle(cl_pool)
for d, k in zip(datastores, cl_pool):
    REL.append(("hosted_on", d, k))
rg_pool = regions[:] + [rng.choice(regions) for _ in range(len(clusters) - len(regions))]
rng.shuffle(rg_pool)
for k, r in zip(clusters, rg_pool):
    REL.append(("region", k, r))
ext_pool = externals[:]
rng.shuffle(ext_pool)
for v, x in zip(vendors, ext_pool):
    REL.append(("contact", v, x))

# --------------------------------------------------------------------------
# Phrasings.  {s}/{o}: subject/object as written; {sp}/{op}: possessive;
# {spk}: a chat handle of an uninvolved colleague; {t}: small number.
# --------------------------------------------------------------------------
TEMPLATES = {
    "owner": [  # service -> person
        "{o} owns {s}.",
        "{s} is owned by {o}.",
        "{o}, who owns {s}, asked for more dashboards before the season launch.",
        "{o} maintains {s} and reviews every PR that touches it.",
        "{sp} owner and first on-call: {o}.",
        "Page {o} if {s} breaks.",
        "svc={s} owner={o} tier={t}",
        "{spk}: fyi {o} is the owner of {s}, send bugs their way",
        "I asked {o} about the retry storm in {s}; they own it, so they'll fix it.",
        "Questions about {s} go to {o}.",
        "Ownership of {s} sits with {o}.",
    ],
    "writes_to": [  # service -> datastore
        "{s} writes to {o}.",
        "All of {sp} writes land in {o}.",
        "{o} is written to by {s}.",
        "{s} persists its state in {o}.",
        "{sp} datastore is {o}.",
        "svc={s} store={o}",
        "{spk}: fyi {s} keeps its data on {o}",
        "I traced {sp} write path today and everything ends up in {o}.",
        "{s}, which stores everything in {o}, had a quiet week.",
        "If {o} goes read-only, {s} can't save anything.",
    ],
    "upstream": [  # service -> service
        "{s} depends on {o}.",
        "{s} calls {o} for everything upstream.",
        "{o} is the upstream of {s}.",
        "{sp} upstream: {o}.",
        "svc={s} upstream={o}",
        "{spk}: if {o} is slow then {s} is slow, it's the only thing upstream of it",
        "I checked {sp} call graph; its single upstream dependency is {o}.",
        "{s}, which sits downstream of {o}, inherits all of its latency.",
        "{s} is fed by {o}.",
        "When {o} goes down, {s} goes down with it: hard upstream dependency.",
    ],
    "vendor": [  # service -> vendor
        "{s} uses {o}.",
        "{s} is built on {o}.",
        "{o} powers {s}.",
        "{sp} vendor is {o}.",
        "svc={s} vendor={o} contract=annual",
        "{spk}: tbh {s} is a thin wrapper around {o}",
        "I read the procurement notes for {s}: that capability is bought from {o}.",
        "{s}, which relies on {o}, has no fallback provider.",
        "If {o} has an outage, {s} degrades within minutes.",
        "The third-party provider behind {s} is {o}.",
    ],
    "team": [  # person -> team
        "{s} is on {o}.",
        "{s} joined {o} as an engineer.",
        "{o} counts {s} among its engineers.",
        "{s}, who works on {o}, volunteered for the hiring panel.",
        "member={s} team={o}",
        "{spk}: {s} sits with {o}, loop them in",
        "I paired with {s} this week; they're part of {o}.",
        "{sp} team is {o}.",
        "{s} reports into {o}.",
        "Need someone from {o}? {s} is a member.",
    ],
    "city": [  # person -> city
        "{s} is based in {o}.",
        "{s} works out of the {o} office.",
        "The {o} office roster lists {s}.",
        "{s}, who sits in our {o} studio, offered to review the runbook.",
        "person={s} office={o}",
        "{spk}: {s} is in {o}, mind the timezone when you schedule",
        "I finally met {s} in person at their home office in {o}.",
        "{sp} home office: {o}.",
        "If you need {s} face to face, go to {o}; that's where their desk is.",
        "{o} is home base for {s}.",
    ],
    "lead": [  # team -> person
        "{o} leads {s}.",
        "{s} is led by {o}.",
        "{o}, who heads {s}, signed off on the Q3 roadmap.",
        "{o} runs {s}.",
        "{sp} lead is {o}.",
        "Escalations for {s} go to its lead, {o}.",
        "team={s} lead={o}",
        "{spk}: {o} is the {s} lead, ask them for sign-off",
        "I asked {o} for headcount; they run {s}.",
        "Headcount requests for {s} need approval from the team lead, {o}.",
    ],
    "channel": [  # team -> channel
        "{s} hangs out in {o}.",
        "{sp} channel is {o}.",
        "{o} is the channel for {s}.",
        "Questions for {s} go in {o}.",
        "team={s} chat={o}",
        "{spk}: pls post {s} stuff in {o}, not DMs",
        "I pinged {s} in {o} and got an answer within minutes.",
        "{o} belongs to {s}.",
        "{o}, which {s} set up, is where their announcements land.",
        "Want {sp} attention? Post in {o}.",
    ],
    "hosted_on": [  # datastore -> cluster
        "{s} runs on {o}.",
        "{s} is hosted on {o}.",
        "{o} hosts {s}.",
        "{sp} cluster is {o}.",
        "ds={s} cluster={o}",
        "{spk}: fyi {s} lives on {o}",
        "I found {sp} pods on {o}; that's its home cluster.",
        "{s}, which sits on {o}, needs a bigger volume before the holidays.",
        "Draining {o} takes {s} offline, so warn people first.",
        "{o} is the home of {s}.",
    ],
    "region": [  # cluster -> region
        "{s} is in {o}.",
        "{s} runs in {o}.",
        "{o} hosts {s}.",
        "{sp} region is {o}.",
        "cluster={s} region={o}",
        "{spk}: {s} is in {o}, keep that in mind for data residency",
        "I looked up {s} in the inventory; it's deployed to {o}.",
        "{s}, which lives in {o}, gets the new node pools first.",
        "A regional outage in {o} would take down {s}.",
        "{s} was provisioned in {o}.",
    ],
    "contact": [  # vendor -> external person
        "Our contact at {s} is {o}.",
        "{o} is our account manager at {s}.",
        "{sp} account rep is {o}.",
        "vendor={s} contact={o}",
        "{spk}: for {s} escalations email {o} directly",
        "I spoke with {o}, our rep at {s}, about the renewal pricing.",
        "{o}, who handles our {s} account, is out until Monday.",
        "{s} assigned {o} to our account.",
        "Escalate {s} issues to {o}.",
        "Account management for {s} is handled by {o}.",
    ],
}

ALIAS_TEMPLATES = {
    "person": [
        "{a} on Slack is {p}.",
        "Glossary: {a} = {p}.",
        "{p} goes by {a} in chat.",
        "FYI {a} is {pp} handle.",
    ],
    "service": [
        "{a} is the codename for {p}.",
        "{p} was codenamed {a} during development and people still call it that.",
        "Glossary: {a} -> {p}.",
    ],
    "team": ["{a} is short for {p}.", "Glossary: {a} = {p}."],
    "datastore": ["People call {p} '{a}'.", "{a} is the nickname for {p}."],
    "vendor": ["{a} = {p} (internal shorthand).", "Everyone says {a} when they mean {p}."],
}

SUFFIXES = [
    " (came up in the {d} sync with {x1} and {x2})",
    " Noted while {x1} was onboarding.",
    " Source: a thread in {ch}.",
    " {x1} mentioned this during INC-{n}.",
    " Heard it from {x1} at the {c} offsite.",
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


def rdate():
    m = rng.randrange(12)
    d = rng.randint(1, 28)
    f = rng.randrange(3)
    if f == 0:
        return "2024-%02d-%02d" % (m + 1, d)
    if f == 1:
        return "%s %d" % (MONTHS[m][:3], d)
    return "%d %s" % (d, MONTHS[m])


def poss(x):
    return x + "'" if x.endswith("s") else x + "'s"


def nm(e, form):
    return e["alias"] if form == "alias" else e["name"]


def mention(e, p):
    """Name an entity in free text: second name with probability p."""
    if e["alias"] and rng.random() < p:
        return e["alias"]
    return e["name"]


def pick_other(pool, exclude, k=1):
    cands = [x for x in pool if x not in exclude]
    return rng.sample(cands, k)


FACTS = []  # dicts: id, content, kind, plus relation metadata
REL_FACT = {}  # (rel, subj key) -> fact
ALIAS_FACT = {}  # entity key -> alias fact
TEMPLATE_USE = {}  # rel -> list of template indexes used

# relation notes
for relname in [
    "owner",
    "writes_to",
    "upstream",
    "vendor",
    "team",
    "city",
    "lead",
    "channel",
    "hosted_on",
    "region",
    "contact",
]:
    rows = [r for r in REL if r[0] == relname]
    rng.shuffle(rows)
    tl = list(range(len(TEMPLATES[relname])))
    rng.shuffle(tl)
    TEMPLATE_USE[relname] = []
    for i, (_, s, o) in enumerate(rows):
        ti = tl[i % len(tl)]
        TEMPLATE_USE[relname].append(ti)
        tpl = TEMPLATES[relname][ti]
        sf = "alias" if s["alias"] and rng.random() < 0.35 else "primary"
        of = "alias" if o["alias"] and rng.random() < 0.35 else "primary"
        fields = {
            "s": nm(s, sf),
            "o": nm(o, of),
            "sp": poss(nm(s, sf)),
            "op": poss(nm(o, of)),
            "t": rng.randint(1, 3),
        }
        if "{spk}" in tpl:
            spk = pick_other(ALIASED_PEOPLE, [s, o])[0]
            fields["spk"] = spk["alias"]
            text = tpl.format(**fields)
            if relname != "channel" and rng.random() < 0.3:
                text = "[%s] %s" % (rng.choice(channels)["name"], text)
        else:
            text = tpl.format(**fields)
            if "=" not in tpl and rng.random() < 0.3:
                sx = rng.choice(SUFFIXES)
                if relname == "city" and "{c}" in sx:
                    sx = SUFFIXES[0]
                x1, x2 = pick_other(people, [s, o], 2)
                ch = pick_other(channels, [o])[0]
                text += sx.format(
                    d=rdate(),
                    x1=mention(x1, 0.3),
                    x2=mention(x2, 0.3),
                    ch=ch["name"],
                    n=rng.randint(1000, 9999),
                    c=rng.choice(cities)["name"],
                )
        if rng.random() < 0.25:
            text = "[%s] %s" % (rdate(), text)
        f = {
            "kind": "rel",
            "rel": relname,
            "subj": s,
            "obj": o,
            "sf": sf,
            "of": of,
            "content": text,
        }
        key = (relname, s["key"])
        assert key not in REL_FACT, key
        REL_FACT[key] = f
        FACTS.append(f)

# alias (glossary) notes: exactly one per entity with a second name
for e in ENTS:
    if not e["alias"]:
        continue
    tpl = rng.choice(ALIAS_TEMPLATES[e["kind"]])
    text = tpl.format(a=e["alias"], p=e["name"], pp=poss(e["name"]))
    f = {"kind": "alias", "ent": e, "content": text}
    ALIAS_FACT[e["key"]] = f
    FACTS.append(f)

# distractors: same entities, no relation stated
DISTRACTORS = [
    "INC-{n}: {S} error rate hit {pct}% after the {day} deploy; {P1} and {P2} were on the bridge call.",
    "Postmortem for the {S} outage is booked for {d}; {P1} is drafting the timeline.",
    "{P1} thinks {D} is overprovisioned by about {pct}%.",
    "Capacity review: {K} averaged {pct}% CPU last week.",
    "{P1} is on leave from {d} to {d2}.",
    "{P1} and {P2} are co-presenting at the {C} offsite on {d}.",
    "Reminder: the {V} contract renewal is due in {month}.",
    "{V} invoice for {month} came in {pct}% over forecast; {P1} is looking into it.",
    "{T} demo day moved to {d}; {P1} is emceeing.",
    "{S} p99 latency last week: {ms} ms against a target of {ms2} ms.",
    "Load test for {S} planned for {d}; {P1} will watch the dashboards.",
    "{P1} suggested renaming {CH} but nobody agreed.",
    "Retro ({d}): {T} wants fewer overnight pages and a quieter alert policy.",
    "Flaky integration test in {S} CI again; {P1} muted it until {d}.",
    "Cost report: {K} is the {ord} most expensive cluster this quarter.",
    "Restore drill for {D} passed in {mins} minutes.",
    "{R} had a short networking blip on {d}; our error budget was untouched.",
    "{P1} recommended '{book}' at standup.",
    "Game jam team: {P1}, {P2}, {P3} and {P4} built a fishing minigame in 48 hours.",
    "Patch {ver} go/no-go: {P1}, {P2} and {P3} voted go; release notes for {S} still pending.",
    "Security review of {S} flagged two medium findings, ticket SEC-{n}.",
    "Schema migration on {D} meant {mins} minutes of read-only time on {d}.",
    "{V} pitched us their new enterprise tier; {P1} was unimpressed.",
    "Hackathon idea from {P1}: visualize {S} traffic as a heatmap on the office TVs.",
    "{CH} got noisy during the {event} launch; maybe add a bot filter.",
    "Season event '{event}' starts {d}; {S} and {S2} need extra headroom.",
    "Upgrade of {K} to Kubernetes 1.{kv} scheduled for {d}.",
    "I disagree with {P1} about rewriting {S} in Rust; the current code is fine.",
    "Onboarding buddies: {P1} with {P2}, {P3} with {P4}.",
    "{T} offsite budget approved: ${money}.",
    "Support trend: {n3} tickets mentioned {S} this week, mostly timeouts.",
    "{P1} and {P2} argued about tabs vs spaces in {CH} for an hour.",
    "Vacation overlap in {month}: {P1}, {P2} and {P3} are all out the same week.",
    "{D} disk usage grew {pct}% month over month; someone should propose a retention policy.",
    "{P1} shared a good talk on tail latency; worth watching before the {S} redesign.",
    "Note to self: ask {P1} how the {K} node pool autoscaler is tuned.",
    "Chaos test on {K} on {d} went fine; {S} recovered in {secs} seconds.",
    "{P1} won the studio ping-pong tournament again.",
    "Interview loop on {d}: {P1}, {P2} and {P3} on the panel.",
    "The {C} office is closed on {d} for a public holiday.",
    "Feature flag cleanup in {S}: {n3} stale flags removed.",
    "{P1} asked whether {D} and {D2} could share a backup window; undecided.",
    "Quarterly review with {V}: uptime {up}%, {P1} and {P2} attended.",
    "{T} and {T2} are doing a joint bug bash on {d}.",
]
BOOKS = [
    "Designing Data-Intensive Applications",
    "The Phoenix Project",
    "Accelerate",
    "Thinking in Systems",
    "Team Topologies",
]
EVENTS = ["Frostfall", "Harvest Moon Cup", "Neon Rally", "Tidecaller", "Ember Week"]
ORD = ["second", "third", "fourth", "fifth"]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]

n_structured = len(FACTS)
n_distract = (n_structured + 1) // 2  # => distractors are ~1/3 of all notes
dorder = list(range(len(DISTRACTORS)))
rng.shuffle(dorder)
for i in range(n_distract):
    tpl = DISTRACTORS[dorder[i % len(dorder)]]
    ps = rng.sample(people, 4)
    ss = rng.sample(services, 2)
    ds = rng.sample(datastores, 2)
    ts = rng.sample(teams, 2)
    fields = {
        "P1": mention(ps[0], 0.25),
        "P2": mention(ps[1], 0.25),
        "P3": mention(ps[2], 0.25),
        "P4": mention(ps[3], 0.25),
        "S": mention(ss[0], 0.2),
        "S2": mention(ss[1], 0.2),
        "D": mention(ds[0], 0.2),
        "D2": mention(ds[1], 0.2),
        "K": rng.choice(clusters)["name"],
        "R": rng.choice(regions)["name"],
        "V": mention(rng.choice(vendors), 0.3),
        "T": mention(ts[0], 0.3),
        "T2": mention(ts[1], 0.3),
        "CH": rng.choice(channels)["name"],
        "C": rng.choice(cities)["name"],
        "d": rdate(),
        "d2": rdate(),
        "n": rng.randint(1000, 9999),
        "pct": rng.randint(3, 60),
        "ms": rng.randint(120, 900),
        "ms2": rng.choice([100, 150, 200, 250]),
        "mins": rng.randint(2, 45),
        "secs": rng.randint(5, 90),
        "ord": rng.choice(ORD),
        "book": rng.choice(BOOKS),
        "ver": "%d.%d.%d" % (rng.randint(3, 5), rng.randint(0, 12), rng.randint(0, 9)),
        "event": rng.choice(EVENTS),
        "kv": rng.randint(28, 31),
        "money": rng.choice(["4,500", "7,200", "12,000", "9,800"]),
        "month": rng.choice(MONTHS),
        "n3": rng.randint(12, 400),
        "day": rng.choice(DAYS),
        "up": rng.choice(["99.95", "99.9", "99.7"]),
    }
    text = tpl.format(**fields)
    if rng.random() < 0.3:
        text = "[%s] %s" % (rdate(), text)
    FACTS.append({"kind": "distractor", "content": text})

# ids
nums = rng.sample(range(10000), len(FACTS))
for f, n in zip(FACTS, nums):
    f["id"] = "lv%04d" % n

# --------------------------------------------------------------------------
# Questions
# --------------------------------------------------------------------------
KIND_RELS = [
    ("service", ["owner", "writes_to", "upstream", "vendor"]),
    ("person", ["team", "city"]),
    ("team", ["lead", "channel"]),
    ("datastore", ["hosted_on"]),
    ("cluster", ["region"]),
    ("vendor", ["contact"]),
]
KIND_RELS_D = dict(KIND_RELS)

# NP templates for intermediate hops: (template, needs_bare_inner)
NP = {
    "owner": [
        ("the owner of {X}", False),
        ("whoever owns {X}", False),
        ("the person who owns {X}", False),
        ("{Xp} owner", True),
        ("the engineer responsible for {X}", False),
    ],
    "writes_to": [
        ("the datastore {X} writes to", True),
        ("the datastore that {X} writes to", False),
        ("{Xp} datastore", True),
        ("the database behind {X}", False),
    ],
    "upstream": [
        ("the upstream service of {X}", False),
        ("the service {X} depends on", True),
        ("{Xp} upstream service", True),
        ("whatever {X} calls upstream", True),
    ],
    "vendor": [
        ("the vendor {X} relies on", True),
        ("{Xp} vendor", True),
        ("the third-party provider behind {X}", False),
    ],
    "team": [
        ("{Xp} team", True),
        ("the team {X} is on", True),
        ("the team that {X} belongs to", False),
        ("the team of {X}", False),
    ],
    "lead": [
        ("the lead of {X}", False),
        ("whoever leads {X}", False),
        ("{Xp} lead", True),
        ("the person running {X}", False),
    ],
    "hosted_on": [
        ("the cluster hosting {X}", False),
        ("the cluster {X} runs on", True),
        ("{Xp} cluster", True),
    ],
}
FINAL = {
    "owner": [
        ("Who owns {X}?", False),
        ("Who is the owner of {X}?", False),
        ("Who should I page if {X} breaks?", False),
        ("{Xp} owner?", True),
        ("Who's on call for {X}?", False),
        ("Which person is responsible for {X}?", False),
        ("Look up who owns {X}.", False),
    ],
    "writes_to": [
        ("Which datastore does {X} write to?", False),
        ("Where does {X} persist its data?", False),
        ("What datastore is behind {X}?", False),
        ("{X} writes to which datastore?", True),
        ("Which datastore does {X} use?", False),
        ("Find the datastore {X} writes to.", False),
        ("Name the datastore used by {X}.", False),
    ],
    "upstream": [
        ("What is the upstream service of {X}?", False),
        ("Which service does {X} depend on?", False),
        ("What does {X} call upstream?", False),
        ("{Xp} upstream?", True),
        ("Name the service sitting upstream of {X}.", False),
    ],
    "vendor": [
        ("Which vendor does {X} use?", False),
        ("Which third-party vendor is {X} built on?", False),
        ("Who is the external provider behind {X}?", False),
        ("{Xp} vendor?", True),
        ("Tell me which vendor {X} relies on.", False),
    ],
    "team": [
        ("Which team is {X} on?", False),
        ("What team does {X} belong to?", False),
        ("{Xp} team?", True),
        ("Which team does {X} work in?", False),
        ("Find out which team {X} is part of.", False),
        ("Name the team of {X}.", False),
    ],
    "city": [
        ("Where is {X} based?", False),
        ("Which city is {X} based in?", False),
        ("Which office does {X} work from?", False),
        ("What city does {X} sit in?", False),
        ("Tell me which city {X} works out of.", False),
        ("Which city is home base for {X}?", False),
    ],
    "lead": [
        ("Who leads {X}?", False),
        ("Who is the lead of {X}?", False),
        ("Who runs {X}?", False),
        ("{Xp} lead?", True),
        ("Find the lead of {X}.", False),
    ],
    "channel": [
        ("What channel should I use for {X}?", False),
        ("Which chat channel does {X} use?", False),
        ("Where do I post to reach {X}?", False),
        ("{Xp} channel?", True),
        ("Find the channel for {X}.", False),
    ],
    "hosted_on": [
        ("Which cluster hosts {X}?", False),
        ("What cluster does {X} run on?", False),
        ("{Xp} cluster?", True),
        ("On which cluster does {X} live?", False),
        ("Find the cluster that {X} is hosted on.", False),
    ],
    "region": [
        ("Which region is {X} in?", False),
        ("In which region does {X} run?", False),
        ("{Xp} region?", True),
        ("What region was {X} provisioned in?", False),
        ("Tell me the region of {X}.", False),
    ],
    "contact": [
        ("Who is our contact at {X}?", False),
        ("Who's the account manager at {X}?", False),
        ("Who handles our account at {X}?", False),
        ("{Xp} account rep?", True),
        ("Find our rep at {X}.", False),
    ],
}


def x_at_end(tpl):
    return tpl.rstrip("?.").endswith("{X}")


def tail_np(tpl):
    """NPs that must close the sentence: 'whoever ...' clauses and reduced
    relatives that end in a verb/preposition ('the datastore X writes to')."""
    return tpl.startswith(("whoever", "whatever")) or not (tpl.endswith("{X}") or "{Xp}" in tpl)


def fill(tpl, x):
    return tpl.replace("{Xp}", poss(x)).replace("{X}", x)


def question_text(start, qform, rels):
    name = nm(start, qform)
    if start["kind"] == "team" and not name.startswith("Team ") and rng.random() < 0.5:
        name = "the %s team" % name
    x, bare, wh = name, True, False
    for i, r in enumerate(rels[:-1]):
        # a sentence-closing NP is allowed only if every later level can
        # keep it at the end of the sentence
        later = [NP[q] for q in rels[i + 1 : -1]] + [FINAL[rels[-1]]]
        wh_ok = all(any(x_at_end(t) and not nb for t, nb in lv) for lv in later)
        opts = [
            t
            for t, nb in NP[r]
            if (bare or not nb) and (not wh or x_at_end(t)) and (wh_ok or not tail_np(t))
        ]
        t = rng.choice(opts)
        x = fill(t, x)
        bare, wh = False, tail_np(t) or (wh and x_at_end(t))
    opts = [t for t, nb in FINAL[rels[-1]] if (bare or not nb) and (not wh or x_at_end(t))]
    q = fill(rng.choice(opts), x)
    if re.match(r"(the|whoever|whatever) ", q):
        q = q[0].upper() + q[1:]
    return q


def build_steps(start, qform, path):
    """Gold chain: list of (fact, in_ent, in_form, out_ent, out_form)."""
    steps = []
    cur, form = start, qform
    for f in path:
        if f["sf"] != form:
            steps.append((ALIAS_FACT[cur["key"]], cur, form, cur, f["sf"]))
        steps.append((f, cur, f["sf"], f["obj"], f["of"]))
        cur, form = f["obj"], f["of"]
    if form == "alias":
        steps.append((ALIAS_FACT[cur["key"]], cur, "alias", cur, "primary"))
    return steps


def paths_from(e, depth):
    out = []
    for r in KIND_RELS_D.get(e["kind"], []):
        f = REL_FACT.get((r, e["key"]))
        if f is None:
            continue
        out.append([f])
        if depth > 1:
            for rest in paths_from(f["obj"], depth - 1):
                out.append([f] + rest)
    return out


CANDS = []
for e in ENTS:
    if e["kind"] not in KIND_RELS_D:
        continue
    forms = ["primary"] + (["alias"] if e["alias"] else [])
    for qform in forms:
        for path in paths_from(e, 3):
            chain = [e] + [f["obj"] for f in path]
            keys = [c["key"] for c in chain]
            if len(keys) != len(list(dict.fromkeys(keys))):
                continue  # answer/bridge repeats an entity
            rels = [f["rel"] for f in path]
            if rels == ["upstream"] * 3:
                continue
            steps = build_steps(e, qform, path)
            if len(steps) > 3:
                continue
            CANDS.append(
                {
                    "start": e,
                    "qform": qform,
                    "path": path,
                    "rels": rels,
                    "steps": steps,
                    "chain": chain,
                }
            )


def tokens(s):
    return re.findall(r"[a-z0-9]+", s.lower())


def leaks(q, cand):
    ql = q.lower()
    qt = tokens(q)
    for c in cand["chain"][1:]:
        for n in [c["name"], c["alias"]]:
            if not n:
                continue
            if n.lower() in ql:
                return True
            for tk in tokens(n):
                if len(tk) >= 4 and tk in qt:
                    return True
    return False


QUESTIONS = []
start_use = {}
seen_q = []
MAX_PER_START = 3


def select(hops, total, full_quota):
    pool = [c for c in CANDS if len(c["steps"]) == hops]
    full = [c for c in pool if len(c["rels"]) == hops]
    short = [c for c in pool if len(c["rels"]) < hops]
    picked = []

    def round_robin(cands, quota):
        groups = {}
        gorder = []
        for c in cands:
            k = "/".join(c["rels"])
            if k not in groups:
                groups[k] = []
                gorder.append(k)
            groups[k].append(c)
        rng.shuffle(gorder)
        for k in gorder:
            rng.shuffle(groups[k])
        got = 0
        progress = True
        while got < quota and progress:
            progress = False
            for k in gorder:
                if got >= quota:
                    break
                g = groups[k]
                while g:
                    c = g.pop()
                    sk = c["start"]["key"]
                    if start_use.get(sk, 0) >= MAX_PER_START:
                        continue
                    sig = (sk, c["qform"], tuple(c["rels"]))
                    if sig in seen_q:
                        continue
                    q = None
                    for _ in range(6):
                        t = question_text(c["start"], c["qform"], c["rels"])
                        if not leaks(t, c):
                            q = t
                            break
                    if q is None:
                        continue
                    seen_q.append(sig)
                    start_use[sk] = start_use.get(sk, 0) + 1
                    picked.append((q, c))
                    got += 1
                    progress = True
                    break
        return got

    n = round_robin(full, full_quota)
    n += round_robin(short, total - n)
    if n < total:
        n += round_robin(full, total - n)
    assert n == total, (hops, n)
    return picked


for hops, total, fq in [(3, 50, 34), (2, 60, 42), (1, 50, 50)]:
    for q, c in select(hops, total, fq):
        QUESTIONS.append(
            {"question": q, "hops": hops, "gold": [s[0]["id"] for s in c["steps"]], "_c": c}
        )

# order questions by hops (1, 2, 3), shuffled inside each group
final_questions = []
for h in [1, 2, 3]:
    grp = [q for q in QUESTIONS if q["hops"] == h]
    rng.shuffle(grp)
    final_questions.extend(grp)

# --------------------------------------------------------------------------
# Self-checks
# --------------------------------------------------------------------------
ids = [f["id"] for f in FACTS]
assert len(ids) == len(set(ids)), "duplicate ids"
assert len(FACTS) >= 320, len(FACTS)
id2fact = {f["id"]: f for f in FACTS}
hc = [sum(1 for q in final_questions if q["hops"] == h) for h in (1, 2, 3)]
assert hc == [50, 60, 50], hc
qtexts = [q["question"] for q in final_questions]
assert len(qtexts) == len(set(qtexts)), "duplicate question text"

# no entity name is a substring of another entity's names
allnames = []
for e in ENTS:
    allnames.append((e["key"], e["name"]))
    if e["alias"]:
        allnames.append((e["key"], e["alias"]))
for k1, n1 in allnames:
    for k2, n2 in allnames:
        if k1 != k2:
            assert n1.lower() not in n2.lower(), (n1, n2)

# each relation: >= 8 distinct phrasings actually used; one note per pair
for r, used in TEMPLATE_USE.items():
    assert len(set(used)) >= 8, (r, len(set(used)))
for f in FACTS:
    if f["kind"] == "rel":
        c = f["content"]
        for e, form in [(f["subj"], f["sf"]), (f["obj"], f["of"])]:
            assert nm(e, form) in c, (nm(e, form), c)
            other = "primary" if form == "alias" else "alias"
            if e["alias"]:
                assert nm(e, other) not in c, c
    if f["kind"] == "alias":
        assert f["ent"]["name"] in f["content"]
        assert f["ent"]["alias"] in f["content"]

for q in final_questions:
    c = q["_c"]
    g = q["gold"]
    assert len(g) == q["hops"] and len(g) == len(set(g))
    for gid in g:
        assert gid in id2fact
    steps = c["steps"]
    # question names the start entity in the form the chain assumes
    assert nm(c["start"], c["qform"]) in q["question"]
    prev_ent, prev_form = c["start"], c["qform"]
    for f, ie, iform, oe, oform in steps:
        text = f["content"]
        assert ie is prev_ent and iform == prev_form
        assert nm(ie, iform) in text, (nm(ie, iform), text)
        assert nm(oe, oform) in text, (nm(oe, oform), text)
        prev_ent, prev_form = oe, oform
    answer = c["chain"][-1]
    assert prev_ent is answer and prev_form == "primary"
    ql = q["question"].lower()
    for e in c["chain"][1:]:
        assert e["name"].lower() not in ql, q["question"]
        if e["alias"]:
            assert e["alias"].lower() not in ql, q["question"]

# --------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------
out_facts = [{"id": f["id"], "content": f["content"]} for f in FACTS]
rng.shuffle(out_facts)
world = {
    "facts": out_facts,
    "questions": [
        {"question": q["question"], "hops": q["hops"], "gold": q["gold"]} for q in final_questions
    ],
}
data = (json.dumps(world, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "world.json"), "wb") as fh:
    fh.write(data)

n_rel = sum(1 for f in FACTS if f["kind"] == "rel")
n_alias = sum(1 for f in FACTS if f["kind"] == "alias")
n_dis = sum(1 for f in FACTS if f["kind"] == "distractor")
print("facts: %d (relation %d, alias %d, distractor %d)" % (len(FACTS), n_rel, n_alias, n_dis))
for r in TEMPLATES:
    print(
        "  %-10s notes=%2d phrasings=%2d used=%2d"
        % (r, len(TEMPLATE_USE[r]), len(TEMPLATES[r]), len(set(TEMPLATE_USE[r])))
    )
print("questions: 1-hop %d, 2-hop %d, 3-hop %d" % tuple(hc))
with_alias = sum(
    1 for q in final_questions if any(s[0]["kind"] == "alias" for s in q["_c"]["steps"])
)
alias_start = sum(1 for q in final_questions if q["_c"]["qform"] == "alias")
print(
    "questions whose gold includes an alias note: %d "
    "(question names start by second name: %d)" % (with_alias, alias_start)
)
sigs = {}
for q in final_questions:
    k = "%d:%s%s" % (
        q["hops"],
        "/".join(q["_c"]["rels"]),
        "+alias" if len(q["_c"]["rels"]) < q["hops"] else "",
    )
    sigs[k] = sigs.get(k, 0) + 1
for k in sorted(sigs):
    print("  %-40s %d" % (k, sigs[k]))
print("md5:", hashlib.md5(data).hexdigest())
