#!/usr/bin/env python3
"""Generate world.json: the notes an AI assistant kept while working for the
digital services department of (fictional) Marrowby City Council.

Deterministic: one random.Random(SEED) makes every choice, no set is iterated.
Run:  python3 make_world.py
"""

import hashlib
import json
import os
import random

SEED = 130013
rng = random.Random(SEED)
HERE = os.path.dirname(os.path.abspath(__file__))

# ---------------------------------------------------------------- entities
TEAMS = [  # (team name, its channel or mailing list)
    ("Resident Services", "#res-services"),
    ("Payments and Revenue", "payments-revenue@marrowby.gov.uk"),
    ("Environment Digital", "#env-digital"),
    ("Libraries and Culture Digital", "#libraries-dev"),
    ("Planning Systems", "planning-systems@marrowby.gov.uk"),
    ("Integration Hub", "#integration-hub"),
    ("Data Platform", "#data-platform"),
    ("Identity and Access", "#iam-team"),
    ("Hosting and Infrastructure", "hosting-ops@marrowby.gov.uk"),
]
OFFICES = [
    "Civic Centre",
    "Tanner Street Hub",
    "Old Library Annex",
    "Riverside House",
    "Northgate Depot",
    "Castle Mews",
]
HOSTS = [
    ("Bramley Road data centre", "BRDC"),
    ("Azure UK South", None),
    ("AWS eu-west-2", None),
    ("Northgate server room", "NGSR"),
    ("Azure UK West", None),
    ("GCP europe-west2", None),
]
STORES = [
    ("Permits Postgres cluster", "pg-permits-01"),
    ("Waste bookings database", "wastedb"),
    ("Council tax ledger", "ctax-ledger"),
    ("Library catalogue MongoDB", "libcat-mongo"),
    ("Planning documents bucket", "mby-planning-docs"),
    ("Events queue", "mby-events-sb"),
    ("Marrowby data lake", "lake-raw"),
    ("Resident identity store", "idstore"),
    ("Finance file share", "fs02-finance"),
    ("Payments ledger database", "pay-ledger"),
    ("Analytics warehouse", "WH_MBY"),
    ("Notifications queue", "notify-q"),
]
SERVICES = [
    ("Parking Permits API", "permits-api"),
    ("Parking Permits Portal", "permits-web"),
    ("Waste Collection Booking", "WCB"),
    ("Bulky Waste Scheduler", "Juniper"),
    ("Library App", "libapp"),
    ("Library Catalogue Search", "Bookworm"),
    ("eBook Lending Connector", "ebook-connector"),
    ("Council Tax Portal", "CTP"),
    ("Council Tax Billing Engine", "ctax-billing"),
    ("Single Person Discount Checker", "spd-check"),
    ("Planning Applications Portal", "PAP"),
    ("Planning Comments Service", "planning-comments"),
    ("Building Control Tracker", "Scaffold"),
    ("Payments Gateway", "paygate"),
    ("Direct Debit Manager", "DDM"),
    ("Refunds Service", None),
    ("Resident Account", "MyMarrowby"),
    ("Address Lookup Service", "Signpost"),
    ("Notifications Service", "notify-svc"),
    ("Email Relay", "Pigeon"),
    ("SMS Gateway", "sms-gw"),
    ("Integration Bus", "Canal"),
    ("GIS Map Service", "gis-maps"),
    ("Street Works Register", "SWR"),
    ("Missed Bin Reporter", "missed-bin"),
    ("Fly-tipping Reports", "Tipster"),
    ("Events Ingest", "events-ingest"),
    ("Data Lake Loader", "lake-loader"),
    ("Reporting Dashboards", "Lantern"),
    ("Open Data Publisher", None),
    ("Identity Broker", "idp-broker"),
    ("Staff SSO", "Gatehouse"),
    ("Document Store Service", "docstore"),
    ("Case Management System", "casework"),
    ("Contact Centre Connector", "cc-connector"),
    ("Room Booking", None),
    ("Libraries Events Calendar", "lib-events"),
    ("Housing Benefits Interface", "HBI"),
    ("Electoral Register Sync", "ersync"),
    ("Print and Post Service", "Franking"),
]
PLATFORM = [
    "Payments Gateway",
    "Address Lookup Service",
    "Notifications Service",
    "Identity Broker",
    "Integration Bus",
    "Document Store Service",
    "GIS Map Service",
    "Email Relay",
    "Events Ingest",
    "Case Management System",
]
PEOPLE = [  # (first, surname, nickname, chat handle)
    ("Priya", "Shah", None, "@pshah"),
    ("David", "Okafor", "Dave", "d.okafor"),
    ("Chris", "Adeyemi", "CJ", "@chris.a"),
    ("Chris", "Lowe", None, "clowe"),
    ("Morgan", "Hale", None, "@mhale"),
    ("Ellis", "Morgan", "El", "ellis_m"),
    ("Sam", "Patel", None, "@sampatel"),
    ("Samira", "Patel", "Sami", "spatel2"),
    ("Jo", "Whitlock", None, "jwhitlock"),
    ("Joanna", "Price", "Jojo", "@jprice"),
    ("Fiona", "McAllister", "Mac", "fi.mca"),
    ("Tomasz", "Nowak", "Tom", "@tnowak"),
    ("Grace", "Eze", None, "g_eze"),
    ("Hamza", "Qureshi", None, "@hamzaq"),
    ("Lena", "Brooks", None, "lbrooks"),
    ("Oliver", "Grant", "Olly", "@ogrant"),
    ("Ruth", "Kinsella", None, "rkinsella"),
    ("Ade", "Bankole", None, "@adeb"),
    ("Niamh", "Gallagher", None, "niamh.g"),
    ("Kwame", "Mensah", "KM", "KMensah"),
    ("Isla", "Ferguson", None, "@islaf"),
    ("Ben", "Tallis", "Benny", "btallis"),
    ("Maria", "Santos", None, "@msantos"),
    ("Peter", "Lindqvist", "Lindy", "plindqvist"),
    ("Hannah", "Cole", None, "@hcole"),
    ("Raj", "Mehta", None, "rmehta"),
    ("Zoe", "Hartley", "Zed", "@zhartley"),
    ("Callum", "Reid", None, "creid"),
    ("Aisha", "Bello", None, "@aishab"),
    ("Gareth", "Pryce", None, "gpryce"),
    ("Yusuf", "Demir", None, "@ydemir"),
    ("Emma", "Clarke", None, "eclarke"),
    ("Wen", "Li", "Wendy", "@wenli"),
    ("Stuart", "Mackie", "Stu", "smackie"),
    ("Nadia", "Rahman", None, "@nrahman"),
]

ENTS = {}  # id -> {kind, primary, obvious: [forms], alias: [forms], ...}


def add(eid, kind, primary, obvious, alias, **extra):
    ENTS[eid] = dict(kind=kind, primary=primary, obvious=obvious, alias=alias, **extra)


for i, (name, chan) in enumerate(TEAMS):
    add("team%d" % i, "team", name, [name], [])
    add("chan%d" % i, "channel", chan, [chan], [], is_list="@" in chan)
for i, name in enumerate(OFFICES):
    add("office%d" % i, "office", name, [name], [])
for i, (name, second) in enumerate(HOSTS):
    add("host%d" % i, "host", name, [name], [second] if second else [])
for i, (name, second) in enumerate(STORES):
    add("store%d" % i, "store", name, [name], [second] if second else [])
for i, (name, second) in enumerate(SERVICES):
    add("svc%d" % i, "service", name, [name], [second] if second else [])
for i, (first, last, nick, handle) in enumerate(PEOPLE):
    add(
        "p%d" % i,
        "person",
        first + " " + last,
        [first + " " + last, first, last],
        ([nick] if nick else []) + [handle],
        first=first,
        last=last,
        nick=nick,
        handle=handle,
    )

# every surface form must belong to exactly one entity: drop the shared ones
form_count = {}
for e in ENTS.values():
    seen = []
    for f in e["obvious"] + e["alias"]:
        if f.lower() not in seen:
            seen.append(f.lower())
            form_count[f.lower()] = form_count.get(f.lower(), 0) + 1
DROPPED = []
for e in ENTS.values():
    assert form_count[e["primary"].lower()] == 1, e["primary"]
    for key in ("obvious", "alias"):
        keep = [f for f in e[key] if form_count[f.lower()] == 1]
        DROPPED.extend(f for f in e[key] if f not in keep and f not in DROPPED)
        e[key] = keep
    if e["kind"] == "person" and e["nick"] not in e["alias"]:
        e["nick"] = None


def ids(kind):
    return [k for k, e in ENTS.items() if e["kind"] == kind]


PEOPLE_IDS, TEAM_IDS, OFFICE_IDS = ids("person"), ids("team"), ids("office")
HOST_IDS, STORE_IDS, SVC_IDS = ids("host"), ids("store"), ids("service")
SVC_BY_NAME = {ENTS[s]["primary"]: s for s in SVC_IDS}

# --------------------------------------------------------------- relations
leads = rng.sample(PEOPLE_IDS, len(TEAM_IDS))
LEAD = dict(zip(TEAM_IDS, leads))  # team -> person
LEADS = {p: t for t, p in LEAD.items()}  # person -> team
nonleads = [p for p in PEOPLE_IDS if p not in LEADS]
rng.shuffle(nonleads)
MEMBER = {}
for i, p in enumerate(nonleads):
    MEMBER[p] = TEAM_IDS[i % len(TEAM_IDS)] if i < 2 * len(TEAM_IDS) else rng.choice(TEAM_IDS)
CHANNEL = {t: "chan" + t[4:] for t in TEAM_IDS}  # team -> channel
CHAN_TEAM = {c: t for t, c in CHANNEL.items()}
shuffled = PEOPLE_IDS[:]
rng.shuffle(shuffled)
OFFICE = {}
for i, p in enumerate(shuffled):
    OFFICE[p] = OFFICE_IDS[i] if i < len(OFFICE_IDS) else rng.choice(OFFICE_IDS)
OFFICE = {p: OFFICE[p] for p in PEOPLE_IDS}
OWNER = {s: rng.choice(PEOPLE_IDS) for s in SVC_IDS}
with_store = rng.sample(SVC_IDS, 34)
STORE = {}
for i, s in enumerate(with_store):
    STORE[s] = STORE_IDS[i] if i < len(STORE_IDS) else rng.choice(STORE_IDS)
STORE = {s: STORE[s] for s in SVC_IDS if s in STORE}
shuffled = STORE_IDS[:]
rng.shuffle(shuffled)
HOST = {}
for i, st in enumerate(shuffled):
    HOST[st] = HOST_IDS[i] if i < len(HOST_IDS) else rng.choice(HOST_IDS)
HOST = {st: HOST[st] for st in STORE_IDS}
# platform services mostly call exactly one other service; the rest vary
platform_ids = [SVC_BY_NAME[n] for n in PLATFORM]
plat_counts = [0] * 1 + [1] * 9
other_counts = [0] * 7 + [1] * 10 + [2] * 8 + [3] * 5
rng.shuffle(plat_counts)
rng.shuffle(other_counts)
dep_counts = [plat_counts.pop() if s in platform_ids else other_counts.pop() for s in SVC_IDS]
DEPS = {}
for s, k in zip(SVC_IDS, dep_counts):
    chosen = []
    while len(chosen) < k:
        t = rng.choice(platform_ids) if rng.random() < 0.65 else rng.choice(SVC_IDS)
        if t == s or t in chosen or s in DEPS.get(t, []):
            continue
        chosen.append(t)
    DEPS[s] = chosen

RELS = []  # dict(kind, s, o)
for p in PEOPLE_IDS:
    if p in MEMBER:
        RELS.append(dict(kind="member", s=p, o=MEMBER[p]))
    RELS.append(dict(kind="office", s=p, o=OFFICE[p]))
for t in TEAM_IDS:
    RELS.append(dict(kind="lead", s=t, o=LEAD[t]))
    RELS.append(dict(kind="channel", s=t, o=CHANNEL[t]))
for s in SVC_IDS:
    RELS.append(dict(kind="owner", s=s, o=OWNER[s]))
    if s in STORE:
        RELS.append(dict(kind="store", s=s, o=STORE[s]))
    for t in DEPS[s]:
        RELS.append(dict(kind="dep", s=s, o=t))
for st in STORE_IDS:
    RELS.append(dict(kind="host", s=st, o=HOST[st]))
REL_INDEX = {(r["kind"], r["s"], r["o"]): i for i, r in enumerate(RELS)}
assert len(REL_INDEX) == len(RELS)

# --------------------------------------------------- relation phrasings
# <s> subject, <o> object, <k> "channel"/"mailing list", <kk> "channel"/"list"
PHRASES = {
    "member": [
        "<s> is on the <o> team.",
        "<s> joined <o> in the spring reorg.",
        "Team roster row | <s> | <o> |",
        "person: <s>\nteam: <o>",
        '{"person": "<s>", "team": "<o>"}',
        "<s> -> <o> (team membership)",
        "Chat: 'hi all, <s> here, I'm part of <o> now'",
        "Note to self: <s> works in the <o> team.",
        "Meeting summary: <o> welcomed <s> as its newest member.",
        "Ticket comment: reassigning to <s> since they sit within <o>.",
        "<o> counts <s> among its engineers.",
    ],
    "office": [
        "<s> works out of <o>.",
        "<s>'s desk is at <o>.",
        "Seating plan row: <s> | <o>",
        "- name: <s>\n  office: <o>",
        "<s> => <o> (base office)",
        "Chat from <s>: 'I'm based at <o> if anyone wants to drop by.'",
        "<o> is where <s> is based.",
        "I keep forgetting: <s> is based at <o>, not head office.",
        '{"staff": "<s>", "building": "<o>"}',
        "Visitors looking for <s> should head to <o>.",
        "Badge audit: home building for <s> is <o>.",
    ],
    "lead": [
        "<o> leads the <s> team.",
        "The <s> team is led by <o>.",
        "Team lead for <s>: <o>",
        "<s> -> lead: <o>",
        "team: <s>\nlead: <o>",
        '{"team": "<s>", "team_lead": "<o>"}',
        "<o> heads up <s>.",
        "Meeting summary: <o> chaired the <s> stand-up in their role as team lead.",
        "Org chart | <s> | <o> (lead) |",
        "Ticket comment: needs sign-off from <o>, who runs the <s> team.",
        "I've noted that <s> answers to <o> as its manager.",
    ],
    "channel": [
        "The <s> team's <k> is <o>.",
        "<s> uses <o> for team comms.",
        "To reach <s>, post to <o>.",
        "team: <s> | comms: <o>",
        "<s> => <o>",
        "contact:\n  team: <s>\n  <kk>: <o>",
        "Chat: 'ping <s> over in <o>, they watch it closely'",
        "<o> is where the <s> folks coordinate.",
        "Meeting summary: <s> agreed to keep all team discussion in <o>.",
        '{"team": "<s>", "contact": "<o>"}',
        "I should remember that questions for <s> belong in <o>.",
    ],
    "owner": [
        "<s> is owned by <o>.",
        "<o> owns <s>.",
        "<o> maintains <s>.",
        "Service owner of <s>: <o>",
        "| <s> | owner: <o> |",
        "service: <s>\nowner: <o>",
        '{"service": "<s>", "maintainer": "<o>"}',
        "<s> -> owned by <o>",
        "Ticket comment: assigning to <o>, since <s> is theirs.",
        "Chat: '<o> is the one to ask about <s>, it's their baby.'",
        "Meeting summary: <o> confirmed they remain accountable owner for <s>.",
        "If <s> breaks, page <o>; they look after it.",
    ],
    "store": [
        "<s> stores its data in <o>.",
        "<s> keeps all of its records in <o>.",
        "<s> persists to <o>.",
        "Data store for <s>: <o>",
        "<s> | datastore | <o>",
        "service: <s>\nstorage: <o>",
        '{"service": "<s>", "persists_to": "<o>"}',
        "<s> ==> <o> (persistence)",
        "<o> is where <s> saves its data.",
        "Ticket comment: the data for <s> lives in <o>, check there first.",
        "Chat: '<s> writes everything to <o>, so back that up first'",
    ],
    "host": [
        "<s> runs on <o>.",
        "<s> is hosted in <o>.",
        "<o> hosts <s>.",
        "Hosting: <s> @ <o>",
        "Store/location row | <s> | <o> |",
        "store: <s>\nlocation: <o>",
        '{"store": "<s>", "runs_in": "<o>"}',
        "<s> --> <o> (hosting)",
        "Meeting summary: ops confirmed <s> lives in <o>.",
        "Ticket comment: <s> is provisioned on <o>.",
        "I double-checked: <s> sits in <o>.",
    ],
    "dep": [
        "<s> depends on <o>.",
        "<s> calls <o>.",
        "<o> is called by <s>.",
        "<s> -> <o> (call graph edge)",
        "Upstream dependency of <s>: <o>",
        "service: <s>\ndepends_on: <o>",
        '{"caller": "<s>", "callee": "<o>"}',
        "<s> relies on <o>.",
        "Ticket comment: <s> failed because <o> was down; it can't work without it.",
        "Meeting summary: noted that <s> has a hard dependency on <o>.",
        "Chat: 'heads up, <s> makes API calls to <o>'",
        "<o> serves requests coming from <s>.",
    ],
}


def link_string(eid):
    e = ENTS[eid]
    if e["kind"] == "person":
        handle = e["handle"] if e["handle"] in e["alias"] else None
        base = e["primary"]
        if e["nick"]:
            base = "%s '%s' %s" % (e["first"], e["nick"], e["last"])
        return base + (" (%s)" % handle if handle else "")
    return "%s (%s)" % (e["primary"], e["alias"][0])


def plain_form(eid):
    e = ENTS[eid]
    if e["kind"] == "person":
        opts = (
            [(e["primary"], 45)]
            + [(f, 12) for f in e["obvious"][1:]]
            + [(f, 15) for f in e["alias"]]
        )
        return rng.choices([o[0] for o in opts], weights=[o[1] for o in opts])[0]
    if e["alias"] and rng.random() < 0.3:
        return e["alias"][0]
    return e["primary"]


# one fact per aliased entity shows the second name next to the first
LINK = {}  # entity -> rel index
for eid, e in ENTS.items():
    if e["alias"]:
        cands = [i for i, r in enumerate(RELS) if eid in (r["s"], r["o"])]
        LINK[eid] = rng.choice(cands)

FACTS = []  # dict(content, rel (index or None), forms: {eid: [forms]}, tpl)
by_kind = {}
for i, r in enumerate(RELS):
    by_kind.setdefault(r["kind"], []).append(i)
REL_FACT = {}
for kind, idxs in by_kind.items():
    tpls = PHRASES[kind][:]
    rng.shuffle(tpls)
    order = idxs[:]
    rng.shuffle(order)
    for n, ri in enumerate(order):
        r = RELS[ri]
        tpl = tpls[n % len(tpls)]
        forms, text = {}, {}
        for slot in ("s", "o"):
            eid = r[slot]
            if LINK.get(eid) == ri:
                text[slot] = link_string(eid)
                forms[eid] = ENTS[eid]["obvious"] + ENTS[eid]["alias"]
            else:
                text[slot] = plain_form(eid)
                forms[eid] = [text[slot]]
        chan = ENTS[r["o"]] if kind == "channel" else None
        content = tpl.replace("<s>", text["s"]).replace("<o>", text["o"])
        if chan:
            content = content.replace("<kk>", "list" if chan["is_list"] else "channel")
            content = content.replace("<k>", "mailing list" if chan["is_list"] else "channel")
        REL_FACT[ri] = len(FACTS)
        FACTS.append(dict(content=content, rel=ri, forms=forms, tpl=tpl))

# ------------------------------------------------------------ distractors
DISTRACT = [
    "<p> gave a lunch-and-learn on accessibility testing.",
    "<p> is on annual leave from 14 to 25 July.",
    "<v> had a 40-minute outage on 3 March; root cause still open.",
    "<v> passed its WCAG 2.2 audit in May.",
    "<p> and <p2> both attended the service assessment training.",
    "<v> and <v2> were both flagged in the Q3 risk register.",
    "<p> prefers async written updates over meetings.",
    "<st> was patched during the October maintenance window.",
    "<v> traffic peaks on Monday mornings.",
    "<p> is learning Welsh on the train.",
    "The <t> team's away day is booked for November.",
    "<h> had a cooling incident last summer.",
    "<p> suggested renaming <v> to something residents understand.",
    "<c> got very noisy during the election count.",
    "<p> wrote the runbook template everyone copies.",
    "<v> release 4.2 went out on a Friday, against advice.",
    "<of> has new bike racks and a broken lift.",
    "Reminder: <p>'s birthday is on 9 April.",
    "<v> error rate dropped below 0.1% after the hotfix.",
    "<st> hit 80% disk usage in week 32.",
    "Chat: '<p>, thanks for the cake!'",
    "<v> is scheduled for a penetration test in Q2.",
    "<p> holds an AWS Solutions Architect certificate.",
    "<p> and <p2> co-presented at the LocalGov Digital meetup.",
    "Ticket comment: <v> shows the wrong date format on its confirmation page.",
    "<p> thinks <v> should eventually be retired.",
    "Meeting summary: budget for <v> and <v2> deferred to next quarter.",
    "<st> backups were restored successfully in a January drill.",
    "<p> once compared <v> to a haunted house.",
    "<h> prices went up 6% this year.",
    "I should ask <p> for the slides from the data ethics talk.",
    "<v> now shows a cookie banner that residents dislike.",
    "<p> mentioned <p2> in the kudos thread.",
    "<v> got a shout-out in the council newsletter.",
]
N_DISTRACT = 108
SLOT_KIND = {
    "<p>": "person",
    "<p2>": "person",
    "<v>": "service",
    "<v2>": "service",
    "<st>": "store",
    "<h>": "host",
    "<t>": "team",
    "<c>": "channel",
    "<of>": "office",
}
contents = [f["content"] for f in FACTS]
dtpls = DISTRACT[:]
rng.shuffle(dtpls)
n = 0
while n < N_DISTRACT:
    tpl = dtpls[n % len(dtpls)]
    text, used, forms = tpl, [], {}
    for slot in ["<p>", "<p2>", "<v>", "<v2>", "<st>", "<h>", "<t>", "<c>", "<of>"]:
        if slot in text:
            eid = rng.choice([x for x in ids(SLOT_KIND[slot]) if x not in used])
            used.append(eid)
            form = plain_form(eid)
            forms[eid] = [form]
            text = text.replace(slot, form)
    if text in contents:
        continue
    contents.append(text)
    FACTS.append(dict(content=text, rel=None, forms=forms, tpl=tpl))
    n += 1

# number the facts after shuffling relations and distractors together
order = list(range(len(FACTS)))
rng.shuffle(order)
FID = {}
for pos, fi in enumerate(order):
    FID[fi] = "mw%04d" % (pos + 1)

# ------------------------------------------------------------- questions


def step(name, x):
    """Follow one relation from x; return (target, rel index) or None."""

    def rel(kind, s, o):
        return (o, REL_INDEX[(kind, s, o)])

    if name == "member":
        return rel("member", x, MEMBER[x]) if x in MEMBER else None
    if name == "team_of":
        if x in MEMBER:
            return rel("member", x, MEMBER[x])
        return (LEADS[x], REL_INDEX[("lead", LEADS[x], x)])
    if name == "leads":
        return (LEADS[x], REL_INDEX[("lead", LEADS[x], x)]) if x in LEADS else None
    if name == "office":
        return rel("office", x, OFFICE[x])
    if name == "lead":
        return rel("lead", x, LEAD[x])
    if name == "channel":
        return rel("channel", x, CHANNEL[x])
    if name == "chan_team":
        return (CHAN_TEAM[x], REL_INDEX[("channel", CHAN_TEAM[x], x)])
    if name == "owner":
        return rel("owner", x, OWNER[x])
    if name == "store":
        return rel("store", x, STORE[x]) if x in STORE else None
    if name == "host":
        return rel("host", x, HOST[x])
    if name == "dep":
        return rel("dep", x, DEPS[x][0]) if len(DEPS[x]) == 1 else None
    raise KeyError(name)


# (start kind, steps, how many, templates); {e} is the named entity
QTYPES = [
    # ---------------- one hop
    (
        "person",
        ["member"],
        7,
        [
            "Which team is {e} in?",
            "What team does {e} belong to?",
            "{e} team?",
            "Tell me which team {e} works in.",
        ],
    ),
    (
        "person",
        ["office"],
        7,
        [
            "Where does {e} work from?",
            "Which office is {e} based in?",
            "{e}'s office?",
            "I need to drop off a laptop for {e}. Which building are they in?",
        ],
    ),
    (
        "team",
        ["lead"],
        6,
        ["Who leads the {e} team?", "Who is the team lead of {e}?", "{e} team lead"],
    ),
    ("person", ["leads"], 3, ["Which team does {e} lead?", "Name the team that {e} heads."]),
    (
        "team",
        ["channel"],
        5,
        [
            "What is the {e} team's channel or mailing list?",
            "Where should I post to reach the {e} team?",
            "{e} contact channel",
        ],
    ),
    ("channel", ["chan_team"], 3, ["Which team uses {e}?", "{e} belongs to which team?"]),
    (
        "service",
        ["owner"],
        6,
        [
            "Who owns {e}?",
            "Who is the owner of {e}?",
            "{e} owner",
            "The {e} deploy failed overnight. Who maintains it?",
        ],
    ),
    (
        "service",
        ["store"],
        5,
        ["Where does {e} store its data?", "Which data store does {e} use?", "{e} data store"],
    ),
    ("store", ["host"], 4, ["Where does {e} run?", "Which host or region runs {e}?"]),
    ("service", ["dep"], 4, ["Which service does {e} depend on?", "What does {e} call?"]),
    # ---------------- two hops
    (
        "service",
        ["owner", "office"],
        6,
        [
            "Where does the owner of {e} work from?",
            "Which office is {e}'s owner based in?",
            "{e} owner office",
        ],
    ),
    (
        "service",
        ["owner", "team_of"],
        6,
        [
            "Which team is the person who owns {e} in?",
            "What team does {e}'s maintainer belong to?",
            "We're writing the service map. Which team does the owner of {e} sit in?",
        ],
    ),
    (
        "service",
        ["store", "host"],
        6,
        [
            "Where does the data store behind {e} run?",
            "Which host runs the store that {e} uses?",
            "{e} storage host",
        ],
    ),
    (
        "person",
        ["team_of", "lead"],
        7,
        [
            "Who leads {e}'s team?",
            "Who is the team lead for the team {e} is in?",
            "Find the manager of the team that {e} works in.",
        ],
    ),
    (
        "person",
        ["team_of", "channel"],
        6,
        [
            "What channel does {e}'s team use?",
            "Where do I post to reach the team that {e} belongs to?",
            "{e} team contact",
        ],
    ),
    (
        "team",
        ["lead", "office"],
        5,
        [
            "Where is the lead of the {e} team based?",
            "Which office does the {e} team lead work from?",
        ],
    ),
    (
        "service",
        ["dep", "owner"],
        5,
        [
            "Who owns the service that {e} depends on?",
            "{e} has one upstream dependency. Who maintains that dependency?",
        ],
    ),
    (
        "service",
        ["dep", "store"],
        5,
        [
            "Where does the service {e} calls store its data?",
            "Find the data store of {e}'s dependency.",
        ],
    ),
    (
        "service",
        ["dep", "dep"],
        3,
        [
            "What does the dependency of {e} itself depend on?",
            "Which service is called by the service that {e} calls?",
        ],
    ),
    (
        "channel",
        ["chan_team", "lead"],
        5,
        [
            "Who leads the team that uses {e}?",
            "Someone posted in {e} asking for approval. Who is that team's lead?",
        ],
    ),
    (
        "person",
        ["leads", "channel"],
        6,
        [
            "What is the channel of the team {e} leads?",
            "Where does the team headed by {e} talk?",
            "Contact point for the team run by {e}",
        ],
    ),
    # ---------------- three hops
    (
        "service",
        ["owner", "team_of", "channel"],
        8,
        [
            "What channel does the team of {e}'s owner use?",
            "{e} owner team channel",
            "I need to reach the team of whoever owns {e}. Which channel or list?",
        ],
    ),
    (
        "service",
        ["owner", "team_of", "lead"],
        7,
        [
            "Who leads the team that {e}'s owner is in?",
            "Give me the team lead of the person who maintains {e}.",
            "Escalation for {e}: who is the team lead above its owner?",
        ],
    ),
    (
        "service",
        ["dep", "store", "host"],
        8,
        [
            "Where does the data store of the service {e} depends on run?",
            "{e} dependency storage host",
            "Which host runs the store used by {e}'s upstream service?",
        ],
    ),
    (
        "service",
        ["dep", "owner", "office"],
        6,
        [
            "In which office does the owner of {e}'s dependency work?",
            "Which building should I visit to find whoever maintains the service {e} calls?",
        ],
    ),
    (
        "service",
        ["dep", "owner", "team_of"],
        5,
        [
            "Which team is the owner of the service {e} depends on in?",
            "Identify the team of the maintainer of {e}'s upstream service.",
        ],
    ),
    (
        "person",
        ["team_of", "lead", "office"],
        8,
        [
            "Where does {e}'s team lead work from?",
            "Which office is the lead of {e}'s team based in?",
        ],
    ),
    (
        "channel",
        ["chan_team", "lead", "office"],
        6,
        [
            "Where is the lead of the team using {e} based?",
            "Which office does the team lead behind {e} sit in?",
        ],
    ),
    (
        "service",
        ["dep", "dep", "owner"],
        2,
        [
            "Who owns the service that {e}'s dependency calls?",
            "Trace {e} two dependencies down: who maintains that service?",
        ],
    ),
]


def has_obvious(eid, forms):
    return any(f in ENTS[eid]["obvious"] for f in forms)


def bridged(eid, forms_a, forms_b):
    """Two mentions visibly name the same entity: a shared form, or the full
    name on one side and a plain part of it (first name, surname) on the other."""
    full = ENTS[eid]["primary"]
    return (
        any(f in forms_b for f in forms_a)
        or (full in forms_a and has_obvious(eid, forms_b))
        or (full in forms_b and has_obvious(eid, forms_a))
    )


QUESTIONS = []  # dict(question, hops, gold rel indices, chain, form, tpl)
tpl_use = {}
# no dependency/owner/store/member/office fact is gold for more than GOLD_CAP
# questions (lead, channel and host facts are few, so they recur more)
GOLD_CAP = 4
CAPPED = ["dep", "owner", "store", "member", "office"]
gold_use = {}
# scarce chain types (more dependency hops) are filled first
for qt in sorted(range(len(QTYPES)), key=lambda i: -QTYPES[i][1].count("dep")):
    start_kind, steps, count, tpls = QTYPES[qt]
    assert count <= 4 * len(tpls)
    starts = ids(start_kind)
    rng.shuffle(starts)
    made = 0
    for x in starts:
        if made == count:
            break
        chain, gold = [x], []
        for name in steps:
            r = step(name, chain[-1])
            if r is None:
                break
            chain.append(r[0])
            gold.append(r[1])
        if len(gold) != len(steps) or len(set(chain)) != len(chain):
            continue
        if any(gold_use.get(g, 0) >= GOLD_CAP for g in gold if RELS[g]["kind"] in CAPPED):
            continue
        fforms = [FACTS[REL_FACT[g]]["forms"] for g in gold]
        if not all(
            bridged(chain[k + 1], fforms[k][chain[k + 1]], fforms[k + 1][chain[k + 1]])
            for k in range(len(gold) - 1)
        ):
            continue
        opts = fforms[0][x][:]
        if ENTS[x]["primary"] in opts:
            opts += [f for f in ENTS[x]["obvious"] if f not in opts]
        form = rng.choice(opts)
        free = [t for t in tpls if tpl_use.get(t, 0) < 4]
        tpl = rng.choice(free)
        tpl_use[tpl] = tpl_use.get(tpl, 0) + 1
        for g in gold:
            gold_use[g] = gold_use.get(g, 0) + 1
        text = tpl.replace("{e}", form)
        QUESTIONS.append(
            dict(question=text, hops=len(steps), gold=gold, chain=chain, form=form, tpl=tpl)
        )
        made += 1
    assert made == count, (steps, made, count)

rng.shuffle(QUESTIONS)
QUESTIONS.sort(key=lambda q: q["hops"])

# ------------------------------------------------------------- validation
fact_ids = [FID[i] for i in range(len(FACTS))]
assert len(set(fact_ids)) == len(FACTS) >= 320
assert len(set(contents)) == len(contents)
n_rel = sum(1 for f in FACTS if f["rel"] is not None)
assert n_rel == len(RELS) and len(FACTS) - n_rel == N_DISTRACT
for kind in PHRASES:
    used = []
    for f in FACTS:
        if f["rel"] is not None and RELS[f["rel"]]["kind"] == kind and f["tpl"] not in used:
            used.append(f["tpl"])
    assert len(used) >= 8, kind
for eid, ri in LINK.items():  # every second name / nickname / handle is linked
    text = FACTS[REL_FACT[ri]]["content"]
    for f in ENTS[eid]["alias"]:
        assert (
            f in text and ENTS[eid]["first" if ENTS[eid]["kind"] == "person" else "primary"] in text
        ), (eid, text)
hop_counts = [sum(1 for q in QUESTIONS if q["hops"] == h) for h in (1, 2, 3)]
assert hop_counts == [50, 60, 50], hop_counts
assert max(tpl_use.values()) <= 4
assert all(n <= GOLD_CAP for g, n in gold_use.items() if RELS[g]["kind"] in CAPPED)
assert len(set(q["question"] for q in QUESTIONS)) == len(QUESTIONS)
for q in QUESTIONS:
    assert q["form"] in q["question"]
    assert q["form"] in ENTS[q["chain"][0]]["obvious"] + ENTS[q["chain"][0]]["alias"]
    for k, g in enumerate(q["gold"]):
        r = RELS[g]
        a, b = q["chain"][k], q["chain"][k + 1]
        assert (r["s"], r["o"]) in ((a, b), (b, a)), q
        assert FACTS[REL_FACT[g]]["rel"] == g
    assert bridged(
        q["chain"][0], [q["form"]], FACTS[REL_FACT[q["gold"][0]]]["forms"][q["chain"][0]]
    )
    for k in range(len(q["gold"]) - 1):
        e = q["chain"][k + 1]
        assert bridged(
            e,
            FACTS[REL_FACT[q["gold"][k]]]["forms"][e],
            FACTS[REL_FACT[q["gold"][k + 1]]]["forms"][e],
        ), q

world = {
    "facts": [{"id": FID[fi], "content": FACTS[fi]["content"]} for fi in order],
    "questions": [
        {
            "question": q["question"],
            "hops": q["hops"],
            "gold": [FID[REL_FACT[g]] for g in q["gold"]],
        }
        for q in QUESTIONS
    ],
}
known = [f["id"] for f in world["facts"]]
assert all(g in known for q in world["questions"] for g in q["gold"])

data = json.dumps(world, indent=1, ensure_ascii=False) + "\n"
with open(os.path.join(HERE, "world.json"), "w", encoding="utf-8") as fh:
    fh.write(data)

print(
    "entities: %d people, %d teams, %d channels, %d offices, %d services, %d stores, %d hosts"
    % (
        len(PEOPLE_IDS),
        len(TEAM_IDS),
        len(TEAM_IDS),
        len(OFFICE_IDS),
        len(SVC_IDS),
        len(STORE_IDS),
        len(HOST_IDS),
    )
)
print("facts: %d (%d relation, %d distractor)" % (len(FACTS), n_rel, len(FACTS) - n_rel))
print("relation facts by kind: " + ", ".join("%s %d" % (k, len(v)) for k, v in by_kind.items()))
print("questions: %d (1-hop %d, 2-hop %d, 3-hop %d)" % (len(QUESTIONS), *hop_counts))
print("question templates used: %d, max uses %d" % (len(tpl_use), max(tpl_use.values())))
print("dropped ambiguous name forms: " + ", ".join(DROPPED))
print("md5(world.json) = " + hashlib.md5(data.encode("utf-8")).hexdigest())
