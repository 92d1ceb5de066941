#!/usr/bin/env python3
"""Build world.json: the long-term memory of an AI assistant working for the
Harbour Technology Group of the (fictional) Skerrow Port Authority, a container port.

Standard library only.  Every random choice comes from one random.Random(150015).
No set is ever iterated, so the output is identical for any PYTHONHASHSEED.
All checks run before anything is written; a failed check raises AssertionError.
"""

import hashlib
import json
import os
import random
import re

SEED = 150015
rng = random.Random(SEED)
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "world.json")
ID_PREFIX = "sk"

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

# ---------------------------------------------------------------------------
# Entities.  (primary name, second name or None, ...)
# ---------------------------------------------------------------------------
SITES = [
    ("North Mole Tower", None),
    ("Gatehouse B", None),
    ("Lindqvist Street office", None),
    ("Marine Operations Centre", "MOC"),
    ("Dunmere Business Park", None),
    ("Eastbank Workshop", None),
]

# (name, alias, hostname code, is_cloud)
DCS = [
    ("Quayside Data Hall", "DH1", "qs", False),
    ("Carrow Hill DC", "DH2", "ch", False),
    ("Brackwater colo", None, "bw", False),
    ("Stratus nordic-1", None, "n1", True),
    ("Stratus central-3", None, "c3", True),
]

HOSTS = [
    "gannet",
    "fulmar",
    "razorbill",
    "kittiwake",
    "guillemot",
    "puffin",
    "petrel",
    "cormorant",
    "shearwater",
    "eider",
    "merganser",
    "dunlin",
    "whimbrel",
    "sanderling",
]

# (team, alias, chat channel or mailing list)
TEAMS = [
    ("Terminal Systems", "TermSys", "#tos-help"),
    ("Marine Systems", None, "marine-it@skerrowport.example"),
    ("Gate & Landside Apps", "GLA", "#truckside"),
    ("Finance Applications", "FinApps", "finance-apps@skerrowport.example"),
    ("Platform Engineering", "PlatEng", "#platform-eng"),
    ("Data & Integration", "D&I", "#data-int"),
    ("Security Operations", "SecOps", "soc@skerrowport.example"),
    ("Field Devices", "OT crew", "#ot-field"),
    ("Workplace IT", None, "servicedesk@skerrowport.example"),
    ("Engineering Applications", "EngApps", "#maint-apps"),
]

PEOPLE = [
    ("Ingrid Halvorsen", "@ihal"),
    ("Tomasz Wierzbicki", "Tomek"),
    ("Aoife Brennan", None),
    ("Kwame Mensah", "@kmensah"),
    ("Priya Raghunathan", "@priyar"),
    ("Lars Ekström", None),
    ("Mei-Ling Zhou", "@mlzhou"),
    ("Rafael Quintero", "@rafaq"),
    ("Siobhan Doyle", None),
    ("Dmitri Volkov", "Dima"),
    ("Fatima Benali", None),
    ("Hamish Grant", "@hgrant"),
    ("Yuki Tanabe", None),
    ("Oluwaseun Adeyemi", "@seun.a"),
    ("Beatriz Carvalho", "Bia"),
    ("Niklas Brandt", None),
    ("Chiara Lombardi", None),
    ("Gareth Pryce", "@gpryce"),
    ("Anneke de Vries", None),
    ("Samir Haddad", None),
    ("Ewa Nowicka", None),
    ("Jonah Whitfield", "@jwhit"),
    ("Leilani Kahale", None),
    ("Martin Ferrante", None),
    ("Ruth Abernethy", "Ruthie"),
    ("Tariq Farouk", None),
    ("Oskar Lindgren", "@oskarl"),
    ("Nadia Petrenko", None),
    ("Callum Reid", None),
    ("Sunita Iyer", "Sunny"),
    ("Henrik Dahl", None),
    ("Grace Oduya", None),
    ("Pavel Novak", None),
    ("Marisol Vega", "@mvega"),
    ("Declan Moore", None),
    ("Keiko Arai", None),
    ("Bram Jansen", None),
    ("Olga Sørensen", None),
    ("Felix Amsel", None),
    ("Zainab Okoro", "Zee"),
]

# (system, alias, datastore or None, datastore alias)
SYSTEMS = [
    ("Vessel Call Register", "VCR", "pg-vessel-01", None),
    ("Berth Planner", "BERTHA", "pg-berth-01", None),
    ("AIS Receiver", "aisd", "ts-ais-raw", None),
    ("Tide & Draught Service", "Draughtsman", "ts-tides", None),
    ("Weather Feed Ingest", "Squall", "s3-weather-drop", None),
    ("Pilotage Booking", None, "mysql-pilotage", None),
    ("Tug Dispatch", None, "mysql-tugs", None),
    ("Yard Management System", "YMS", "ora-yard-prd", "YARDP"),
    ("Stowage Viewer", None, None, None),
    ("Crane Telemetry Collector", "Jibwatch", "influx-cranes", None),
    ("Reefer Monitor", "ColdWatch", "influx-reefer", None),
    ("Gate Appointment Portal", "Slotbook", "pg-gate-appt", None),
    ("Gate OCR Service", "Lensman", "s3-ocr-frames", None),
    ("Truck Queue Display", None, None, None),
    ("Rail Transfer Scheduler", "Railhead", "pg-rail-01", None),
    ("Empty Depot Tracker", None, "mongo-empties", None),
    ("Customs Declaration Bridge", "Tollgate", "pg-customs-01", None),
    ("Hazmat Manifest Checker", "HMC", "pg-hazmat", None),
    ("Port Community Hub", "Quaynet", "mongo-pch", None),
    ("Billing Engine", "Ledgerline", "ora-billing-prd", "BILLP"),
    ("Invoice Portal", None, None, None),
    ("Payroll Connector", None, "sftp-payroll-drop", None),
    ("Shift Roster", "Watchbill", "pg-roster", None),
    ("Maintenance Work Orders", "Spanner", "mssql-maint", None),
    ("Spare Parts Inventory", None, "mssql-parts", None),
    ("Access Control Gateway", "Turnstile", "pg-access-01", None),
    ("CCTV Archive", None, "nas-cctv-01", None),
    ("Identity Directory", "Keyring", "ldap-dir-01", None),
    ("Event Bus", "Conveyor", "kafka-main", "KFK1"),
    ("Data Warehouse", "Lighthouse", "dw-columnar-01", None),
    ("Customer Notifications", "Foghorn", "redis-notify", None),
    ("Damage Report App", None, None, None),
]

# system -> the one system it depends on (a forest, so every system has at most one upstream)
DEPENDS = [
    ("Berth Planner", "Vessel Call Register"),
    ("Vessel Call Register", "AIS Receiver"),
    ("Pilotage Booking", "Tide & Draught Service"),
    ("Tug Dispatch", "Pilotage Booking"),
    ("Tide & Draught Service", "Weather Feed Ingest"),
    ("Stowage Viewer", "Yard Management System"),
    ("Yard Management System", "Berth Planner"),
    ("Crane Telemetry Collector", "Event Bus"),
    ("Reefer Monitor", "Event Bus"),
    ("Gate Appointment Portal", "Port Community Hub"),
    ("Gate OCR Service", "Gate Appointment Portal"),
    ("Truck Queue Display", "Gate OCR Service"),
    ("Rail Transfer Scheduler", "Yard Management System"),
    ("Empty Depot Tracker", "Port Community Hub"),
    ("Customs Declaration Bridge", "Port Community Hub"),
    ("Hazmat Manifest Checker", "Customs Declaration Bridge"),
    ("Port Community Hub", "Identity Directory"),
    ("Billing Engine", "Yard Management System"),
    ("Invoice Portal", "Billing Engine"),
    ("Payroll Connector", "Shift Roster"),
    ("Shift Roster", "Identity Directory"),
    ("Maintenance Work Orders", "Spare Parts Inventory"),
    ("Access Control Gateway", "Identity Directory"),
    ("Data Warehouse", "Event Bus"),
    ("Customer Notifications", "Gate Appointment Portal"),
    ("Damage Report App", "Maintenance Work Orders"),
]

ALIAS = {}  # primary name -> second name
ETYPE = {}  # primary name -> entity type


def add_entity(name, etype, alias=None):
    assert name not in ETYPE, "duplicate entity " + name
    ETYPE[name] = etype
    if alias:
        ALIAS[name] = alias


for _n, _a in SITES:
    add_entity(_n, "site", _a)
for _n, _a, _c, _cl in DCS:
    add_entity(_n, "datacentre", _a)
for _t, _a, _ch in TEAMS:
    add_entity(_t, "team", _a)
    add_entity(_ch, "channel")
for _n, _a in PEOPLE:
    add_entity(_n, "person", _a)
for _n, _a, _st, _sta in SYSTEMS:
    add_entity(_n, "system", _a)
    if _st:
        add_entity(_st, "datastore", _sta)

SITE_NAMES = [s[0] for s in SITES]
DC_NAMES = [d[0] for d in DCS]
TEAM_NAMES = [t[0] for t in TEAMS]
CHANNEL_OF = {t[0]: t[2] for t in TEAMS}
PERSON_NAMES = [p[0] for p in PEOPLE]
SYS_NAMES = [s[0] for s in SYSTEMS]
STORE_OF = {s[0]: s[2] for s in SYSTEMS if s[2]}
STORE_NAMES = [s[2] for s in SYSTEMS if s[2]]
DEP_OF = dict(DEPENDS)

# ---------------------------------------------------------------------------
# Random world structure
# ---------------------------------------------------------------------------
# hosts -> data centre / cloud region (every DC gets at least one host)
host_order = HOSTS[:]
rng.shuffle(host_order)
HOST_DC = {}
for i, h in enumerate(host_order):
    HOST_DC[h] = DCS[i][0] if i < len(DCS) else rng.choice(DC_NAMES)
DC_CODE = {d[0]: d[2] for d in DCS}
DC_CLOUD = {d[0]: d[3] for d in DCS}
used_numbers = []
for h in rng.sample(HOSTS, 8):
    while True:
        num = rng.randint(2, 48)
        if num not in used_numbers:
            used_numbers.append(num)
            break
    code = DC_CODE[HOST_DC[h]]
    alias = f"vm-{code}-{num:02d}" if DC_CLOUD[HOST_DC[h]] else f"sk{code}-{num:02d}"
    ALIAS[h] = alias
for h in HOSTS:
    add_entity(h, "host", ALIAS.get(h))

# datastores -> hosts
STORE_HOST = {st: rng.choice(HOSTS) for st in STORE_NAMES}

# teams: first ten people of a shuffled list lead the ten teams, the rest are members
people_order = PERSON_NAMES[:]
rng.shuffle(people_order)
LEAD_OF = {}  # team -> lead
TEAM_OF = {}  # person -> team
for i, t in enumerate(TEAM_NAMES):
    LEAD_OF[t] = people_order[i]
    TEAM_OF[people_order[i]] = t
MEMBER_OF = {}
for i, p in enumerate(people_order[len(TEAM_NAMES) :]):
    MEMBER_OF[p] = TEAM_NAMES[i % len(TEAM_NAMES)]
    TEAM_OF[p] = MEMBER_OF[p]

OFFICE_OF = {p: rng.choice(SITE_NAMES) for p in PERSON_NAMES}
OWNER_OF = {s: rng.choice(PERSON_NAMES) for s in SYS_NAMES}

# ---------------------------------------------------------------------------
# Relation phrasings (>= 8 per kind).  {s} = subject, {o} = object.
# ---------------------------------------------------------------------------
REL_TEMPLATES = {
    # system -> person
    "owns": [
        "{o} owns {s}.",
        "{s} is owned by {o}.",
        "Anything about {s} goes to {o}.",
        "If {s} pages at night it's {o}'s phone that rings.",
        "system: {s}\nowner: {o}",
        "{s} -> owner: {o}",
        "| {s} | owner | {o} |",
        'Chat ({d}): "who do I talk to about {s}?" / "{o}, it\'s theirs"',
        "Ticket comment: reassigning to {o} because {s} is their system; "
        "please stop routing these to the service desk.",
        "Minutes {d}: confirmed {o} stays accountable for {s} after the reorg. Budget unchanged.",
        "{s}, which {o} is responsible for, moves to fortnightly releases from {m}.",
        "- service: {s}\n  responsible: {o}",
        '{{"system": "{s}", "owner": "{o}"}}',
        "Ping {o} for anything to do with {s}.",
        "{o}'s baby is {s}: they carry the pager for it and sign off its changes.",
    ],
    # system -> system (subject depends on object)
    "depends_on": [
        "{s} depends on {o}.",
        "{s} calls {o} on every request.",
        "{s} reads from {o}.",
        "{s} is fed by {o}.",
        "{o} feeds {s}.",
        "deps: {s} -> {o}",
        "upstream of {s}: {o}",
        "service: {s}\ndepends_on:\n  - {o}",
        "| {s} | calls | {o} |",
        "If {o} goes down, {s} stops working within minutes; it keeps no cache of its own.",
        'Chat ({d}): "{s} won\'t even start unless {o} is reachable, learned that the hard way"',
        "Minutes {d}: {s} keeps pulling nightly from {o} until the new API ships; "
        "nothing changes for users.",
        "The numbers {s} shows come straight out of {o}.",
        '{{"consumer": "{s}", "provider": "{o}"}}',
        "{o} is the upstream that {s} relies on.",
    ],
    # system -> datastore
    "stores_in": [
        "{s} keeps its data in {o}.",
        "{s} stores everything in {o}.",
        "{o} is where {s} writes its records.",
        "{s}'s database is {o}.",
        "db for {s}: {o}",
        "system: {s}\ndatastore: {o}",
        "| {s} | {o} | primary store |",
        '{{"app": "{s}", "db": "{o}"}}',
        "The {s} tables live in {o}.",
        "Ticket comment: restore test for {s} done. Pulled last night's dump of {o}, "
        "its backing store, into staging and it came up clean.",
        "{o} holds the data behind {s}.",
        "Data for {s} is persisted to {o}.",
        "{s} => {o}",
    ],
    # datastore -> host
    "runs_on": [
        "{s} runs on {o}.",
        "{s} is hosted on {o}.",
        "{o} hosts {s}.",
        "{s} @ {o}",
        "store: {s}\nhost: {o}",
        "| {s} | host | {o} |",
        "The {s} instance lives on {o}.",
        "If you need to ssh to the {s} box, it's {o}.",
        'Chat ({d}): "{s} is on {o}, please don\'t reboot it during a vessel window"',
        "- db: {s}\n  server: {o}",
        "{o} is the machine that {s} sits on.",
        '{{"datastore": "{s}", "host": "{o}"}}',
    ],
    # host -> data centre / cloud region
    "located_in": [
        "{s} is in {o}.",
        "{s} lives in {o}.",
        "{o} houses {s}.",
        "{s} — {o}",
        "host: {s}\nlocation: {o}",
        "| {s} | dc | {o} |",
        "Asset register: {s}, located at {o}, support contract to 2027.",
        "{s} was provisioned in {o}.",
        'Chat ({d}): "{s}? that one\'s in {o}"',
        '{{"host": "{s}", "dc": "{o}"}}',
        "If {o} loses power, {s} goes down with it.",
    ],
    # person -> team
    "member_of": [
        "{s} is in {o}.",
        "{s} joined {o} in {m}.",
        "{s} works in the {o} team.",
        "{s} is a member of {o}.",
        "team: {o}\nmember: {s}",
        "| {s} | team | {o} |",
        "{o} welcomed {s} this week; onboarding buddy assigned.",
        "{s} reports into {o}.",
        "{s}, who is on the {o} team, will present at the next all-hands.",
        '{{"person": "{s}", "team": "{o}"}}',
        "{o} headcount now includes {s}.",
        "{s} -> {o}",
    ],
    # team -> person
    "led_by": [
        "{o} leads {s}.",
        "{s} is led by {o}.",
        "{s} lead: {o}",
        "{o} heads up {s}.",
        "Team lead for {s} is {o}.",
        "| {s} | lead | {o} |",
        "Escalations for {s} go to their lead, {o}.",
        "Minutes {d}: {o}, as lead of {s}, signed off the Q3 roadmap.",
        "team: {s}\nlead: {o}",
        "{s}'s manager is {o}.",
        "{o} runs {s}.",
    ],
    # team -> channel / mailing list
    "channel": [
        "{s} hangs out in {o}.",
        "{s}'s channel is {o}.",
        "To reach {s}, write to {o}.",
        "{o} is the place for {s}.",
        "team: {s}\nchannel: {o}",
        "| {s} | contact | {o} |",
        "Questions for {s} go to {o}.",
        "{o} belongs to {s}.",
        'Chat ({d}): "ask via {o}, that\'s where {s} answer stuff"',
        '{{"team": "{s}", "contact": "{o}"}}',
        "{s} can be reached at {o}.",
    ],
    # person -> office / site
    "works_from": [
        "{s} works from {o}.",
        "{s} is based at {o}.",
        "{s} sits at {o}.",
        "{s}'s desk is at {o}.",
        "{s} @ {o}",
        "name: {s}\noffice: {o}",
        "| {s} | office | {o} |",
        "If you want to catch {s} in person, go to {o}.",
        "{s}, who works out of {o}, has offered to host the next lunch-and-learn.",
        'Chat ({d}): "I\'m at {o} most days, come find me" — {s}',
        '{{"name": "{s}", "site": "{o}"}}',
        "{o} is home base for {s}.",
    ],
}
REL_KINDS = list(REL_TEMPLATES)

BOTH_STYLES = ["{p} ({a})", "{p} ({a})", "{a} ({p})", "{p} aka {a}", "{p} / {a}"]
NEXT_TO = ["{p} ({a})", "{a} ({p})", "{p} aka {a}", "{a} aka {p}", "{p} / {a}", "{a} = {p}"]
GLOSSARY = {
    "person": [
        "People directory: {a} = {p}",
        "FYI {p} aka {a} in chat and tickets.",
        "Note: {p} ({a}) prefers to be tagged rather than emailed.",
    ],
    "other": [
        "Glossary: {a} = {p}",
        "Note: {p} ({a}); people use both names.",
        "FYI {p} aka {a} in chat and tickets.",
        "Reminder: {a} ({p}) — both names show up on the dashboards.",
    ],
}


def a_date():
    return f"2025-{rng.randint(2, 8):02d}-{rng.randint(1, 28):02d}"


def a_month():
    return MONTHS[rng.randint(1, 8)]


PENDING_INTRO = {}  # aliased entity -> True while its first relation fact must show both names
GLOSSARY_INTRO = []
for _name in ETYPE:
    if _name in ALIAS:
        if rng.random() < 0.3:
            GLOSSARY_INTRO.append(_name)
        else:
            PENDING_INTRO[_name] = True


def render_ref(name, intro=True):
    """Return (text, forms) for a mention of an entity."""
    alias = ALIAS.get(name)
    if alias is None:
        return name, [name]
    if intro and PENDING_INTRO.get(name):
        PENDING_INTRO[name] = False
        return rng.choice(BOTH_STYLES).format(p=name, a=alias), [name, alias]
    if rng.random() < 0.3:
        return alias, [alias]
    return name, [name]


facts = []  # dicts: content, kind, tpl, subj, obj, forms


def add_fact(content, kind, tpl=None, subj=None, obj=None, forms=None):
    facts.append(
        {
            "content": content,
            "kind": kind,
            "tpl": tpl,
            "subj": subj,
            "obj": obj,
            "forms": forms or {},
        }
    )


# ---------------------------------------------------------------------------
# Relation facts
# ---------------------------------------------------------------------------
rels = []
for s in SYS_NAMES:
    rels.append(("owns", s, OWNER_OF[s]))
for s, o in DEPENDS:
    rels.append(("depends_on", s, o))
for s in SYS_NAMES:
    if s in STORE_OF:
        rels.append(("stores_in", s, STORE_OF[s]))
for st in STORE_NAMES:
    rels.append(("runs_on", st, STORE_HOST[st]))
for h in HOSTS:
    rels.append(("located_in", h, HOST_DC[h]))
for p in PERSON_NAMES:
    if p in MEMBER_OF:
        rels.append(("member_of", p, MEMBER_OF[p]))
for t in TEAM_NAMES:
    rels.append(("led_by", t, LEAD_OF[t]))
for t in TEAM_NAMES:
    rels.append(("channel", t, CHANNEL_OF[t]))
for p in PERSON_NAMES:
    rels.append(("works_from", p, OFFICE_OF[p]))
rng.shuffle(rels)

tpl_cycle = {}
tpl_next = {}
for k in REL_KINDS:
    order = list(range(len(REL_TEMPLATES[k])))
    rng.shuffle(order)
    tpl_cycle[k] = order
    tpl_next[k] = 0

for kind, s, o in rels:
    ti = tpl_cycle[kind][tpl_next[kind] % len(tpl_cycle[kind])]
    tpl_next[kind] += 1
    s_txt, s_forms = render_ref(s)
    o_txt, o_forms = render_ref(o)
    text = REL_TEMPLATES[kind][ti].format(s=s_txt, o=o_txt, d=a_date(), m=a_month())
    add_fact(text, kind, tpl=ti, subj=s, obj=o, forms={s: s_forms, o: o_forms})

# glossary notes for second names not introduced inside a relation fact
for name in GLOSSARY_INTRO:
    styles = GLOSSARY["person" if ETYPE[name] == "person" else "other"]
    text = rng.choice(styles).format(p=name, a=ALIAS[name])
    add_fact(text, "glossary", forms={name: [name, ALIAS[name]]})

# ---------------------------------------------------------------------------
# Distractors: same names, none of the relations above
# ---------------------------------------------------------------------------
TOPICS = [
    "container dwell-time analytics",
    "the Kubernetes upgrade",
    "SSO rollout",
    "backup tooling",
    "the new quay cranes",
    "winter storm readiness",
    "log retention",
    "the EDI cleanup",
    "patch automation",
    "cost tagging",
]
COURSES = [
    "ITIL 4 Foundation",
    "incident commander",
    "first aid at work",
    "AWS practitioner",
    "secure coding",
    "working at height",
    "PostgreSQL tuning",
    "presentation skills",
]
CONFS = ["PortTech Europe", "SREcon", "FOSDEM", "the Nordic Logistics Summit", "KubeCon"]


def R(name):
    return render_ref(name, intro=False)[0]


def rp():
    return rng.choice(PERSON_NAMES)


def rs():
    return rng.choice(SYS_NAMES)


def two(names):
    a, b = rng.sample(names, 2)
    return a, b


def unrelated_systems():
    while True:
        a, b = two(SYS_NAMES)
        if DEP_OF.get(a) != b and DEP_OF.get(b) != a:
            return a, b


def d_visit():
    p = rp()
    site = rng.choice([x for x in SITE_NAMES if x != OFFICE_OF[p]])
    return f"{R(p)} visited {R(site)} on {a_date()} for the crane commissioning."


def d_talk():
    p = rp()
    t = rng.choice([x for x in TEAM_NAMES if x != TEAM_OF[p]])
    return f"{R(p)} gave a brown-bag talk to {R(t)} about {rng.choice(TOPICS)}."


def d_move_dc():
    st = rng.choice(STORE_NAMES)
    dc = rng.choice([x for x in DC_NAMES if x != HOST_DC[STORE_HOST[st]]])
    return f"Proposal to move {R(st)} to {R(dc)} was rejected: egress costs too high."


def d_move_host():
    st = rng.choice(STORE_NAMES)
    h = rng.choice([x for x in HOSTS if x != STORE_HOST[st]])
    return f"Request to move {R(st)} onto {R(h)} was declined; that box is already at capacity."


def d_reject_read():
    a, b = unrelated_systems()
    return (
        f"Request to let {R(a)} query {R(b)} directly was turned down at design review; "
        "use an approved interface instead."
    )


def d_two_people():
    a, b = two(PERSON_NAMES)
    return a, b


DISTRACTORS = [
    lambda: (
        f"INC-{rng.randint(1000, 9999)}: {R(rs())} returned 502s for {rng.randint(4, 95)} "
        f"minutes on {a_date()}; root cause was an expired TLS certificate."
    ),
    lambda: f"{R(rp())} wrote up the postmortem for the {R(rs())} outage on {a_date()}.",
    lambda: (
        f"Audit finding A-{rng.randint(10, 99)}: {R(rs())} still accepts TLS 1.0 on its admin "
        f"port. Due {a_date()}."
    ),
    lambda: f"{R(rp())} on annual leave {a_date()} for {rng.randint(3, 15)} days.",
    lambda: f"{R(rp())} completed the {rng.choice(COURSES)} course.",
    lambda: (
        f"Shout-out to {R(rp())} for staying late on {a_date()} to get the {R(rs())} cutover "
        "over the line."
    ),
    lambda: (
        f"Budget: licence renewal for {R(rs())} approved at €{rng.randint(8, 140)}k for next year."
    ),
    lambda: (
        f"Proposal to rewrite {R(rs())} from scratch was rejected at the architecture board on "
        f"{a_date()}."
    ),
    d_move_dc,
    lambda: "{} and {} both go into the {} patch window.".format(
        *[R(x) for x in two(SYS_NAMES)], a_date()
    ),
    lambda: "Someone suggested merging {} and {} into one product; nobody picked it up.".format(
        *[R(x) for x in unrelated_systems()]
    ),
    lambda: "Vendor review: {} scored higher than {} on usability, lower on documentation.".format(
        *[R(x) for x in two(SYS_NAMES)]
    ),
    lambda: f"{R(rp())} thinks {R(rs())} should have been retired years ago.",
    lambda: (
        "Minutes {}: {} demoed a new dashboard mock-up for {}; {} asked about mobile "
        "support. No decisions.".format(a_date(), R(rp()), R(rs()), R(rp()))
    ),
    d_visit,
    d_talk,
    lambda: (
        f"{R(rng.choice(STORE_NAMES))} upgraded to a new major version over the weekend of "
        f"{a_date()}."
    ),
    lambda: f"{R(rng.choice(STORE_NAMES))} disk usage at {rng.randint(70, 96)}%; ticket raised.",
    lambda: f"{R(rng.choice(HOSTS))} had a failed PSU swapped on {a_date()}.",
    lambda: f"{R(rng.choice(HOSTS))} is due a firmware update in {a_month()}.",
    lambda: f"{R(rng.choice(DC_NAMES))} fire-suppression test scheduled for {a_date()}.",
    lambda: (
        f"{rng.choice(list(CHANNEL_OF.values()))} got very noisy during the storm on {a_date()}."
    ),
    lambda: f"{R(rng.choice(TEAM_NAMES))} offsite moved to {a_month()}.",
    lambda: "{} and {} are pairing on {} this sprint.".format(
        *[R(x) for x in d_two_people()], rng.choice(TOPICS)
    ),
    lambda: (
        f"{R(rp())} asked for admin rights on {R(rs())}; declined under the least-privilege policy."
    ),
    d_reject_read,
    lambda: f"{R(rp())} flagged that the {R(rs())} login page is slow on the gate tablets.",
    lambda: (
        f"Pen test report for {R(rs())} came back with {rng.randint(2, 5)} medium findings; "
        "fixes tracked."
    ),
    lambda: "{} is covering the Tuesday change advisory board while {} is away.".format(
        *[R(x) for x in d_two_people()]
    ),
    lambda: (
        f"Training budget: {R(rp())} approved for the {rng.choice(COURSES)} exam in {a_month()}."
    ),
    lambda: (
        f"{R(rs())} release {rng.randint(2, 9)}.{rng.randint(0, 20)} shipped on {a_date()} "
        "with the new search screen."
    ),
    lambda: "{} reckons {} and {} overlap too much. Opinion only, nothing decided.".format(
        R(rp()), *[R(x) for x in two(SYS_NAMES)]
    ),
    lambda: (
        f"Lessons learned ({a_date()}): the {R(rs())} incident was spotted by customers before "
        "monitoring. Action: add synthetic checks."
    ),
    lambda: (
        f"Proposal from {R(rp())} to replace {R(rs())} with a SaaS product was rejected on "
        "data-residency grounds."
    ),
    lambda: f"{R(rp())} has been nominated for the harbour-wide innovation award.",
    lambda: (
        f"{R(rng.choice(HOSTS))} CPU at {rng.randint(60, 99)}% during the {a_date()} vessel "
        "surge; no impact."
    ),
    lambda: (
        f"{R(rng.choice(TEAM_NAMES))} retro ({a_date()}): too many meetings, not enough focus time."
    ),
    lambda: f"{R(rp())} will be at {rng.choice(CONFS)} in {a_month()}.",
    lambda: (
        f"{R(rng.choice(STORE_NAMES))} nightly backup took {rng.randint(12, 80)} minutes longer "
        f"than usual on {a_date()}."
    ),
    d_move_host,
    lambda: f"{R(rp())} says the {R(rs())} user manual is out of date.",
    lambda: (
        f'Chat ({a_date()}): "has anyone else seen {R(rs())} time out this morning?" — {R(rp())}'
    ),
    lambda: "{} and {} disagree on whether {} needs a rewrite; parked for now.".format(
        *[R(x) for x in d_two_people()], R(rs())
    ),
    lambda: (
        f"Cost review: {R(rng.choice(DC_NAMES))} spend up {rng.randint(3, 30)}% quarter on quarter."
    ),
    lambda: f"{R(rp())} raised a concern in the all-hands that {R(rs())} has no test environment.",
    lambda: (
        "Minutes {}: {} and {} to draft a retirement plan for {}. Rejected for this "
        "financial year.".format(a_date(), *[R(x) for x in d_two_people()], R(rs()))
    ),
    lambda: (
        f"Ticket comment: {R(rp())} cannot reproduce the {R(rs())} export bug on "
        f"{a_date()}; closing as not reproducible."
    ),
    lambda: f"{R(rp())} sent round cake to say thanks after the {R(rs())} audit passed.",
]

TARGET_TOTAL = 384
n_distractors = TARGET_TOTAL - len(facts)
dis_order = list(range(len(DISTRACTORS)))
seen_text = [f["content"] for f in facts]
i = 0
while n_distractors > 0:
    if i % len(dis_order) == 0:
        rng.shuffle(dis_order)
    text = DISTRACTORS[dis_order[i % len(dis_order)]]()
    i += 1
    if text in seen_text:
        continue
    seen_text.append(text)
    add_fact(text, "distractor")
    n_distractors -= 1

# shuffle everything together, then give opaque ids
rng.shuffle(facts)
id_numbers = rng.sample(range(1, 10000), len(facts))
for f, num in zip(facts, id_numbers):
    f["id"] = f"{ID_PREFIX}{num:04d}"

# ---------------------------------------------------------------------------
# Hop index: hop name -> {from entity: (fact index, to entity)}
# ---------------------------------------------------------------------------
HOP_KINDS = {
    "OWN": ("owns", "fwd"),
    "DEP": ("depends_on", "fwd"),
    "STO": ("stores_in", "fwd"),
    "STOi": ("stores_in", "rev"),
    "RUN": ("runs_on", "fwd"),
    "LOC": ("located_in", "fwd"),
    "TEAM": (("member_of", "fwd"), ("led_by", "rev")),
    "LEAD": ("led_by", "fwd"),
    "CHAN": ("channel", "fwd"),
    "CHANi": ("channel", "rev"),
    "OFF": ("works_from", "fwd"),
}


def hop_specs(hop):
    spec = HOP_KINDS[hop]
    return spec if isinstance(spec[0], tuple) else (spec,)


def build_index(fact_list):
    index = {h: {} for h in HOP_KINDS}
    for fi, f in enumerate(fact_list):
        for h in HOP_KINDS:
            for kind, direction in hop_specs(h):
                if f["kind"] != kind:
                    continue
                a, b = (f["subj"], f["obj"]) if direction == "fwd" else (f["obj"], f["subj"])
                assert a not in index[h], f"gold not unique: two facts give {h} for {a}"
                index[h][a] = (fi, b)
    return index


STEP = build_index(facts)


def walk(path, start):
    ents = [start]
    fis = []
    cur = start
    for hop in path:
        if cur not in STEP[hop]:
            return None
        fi, nxt = STEP[hop][cur]
        fis.append(fi)
        ents.append(nxt)
        cur = nxt
    if len(set(ents)) != len(ents) or len(set(fis)) != len(fis):
        return None
    for k in range(len(fis) - 1):
        bridge = ents[k + 1]
        if not set(facts[fis[k]]["forms"][bridge]) & set(facts[fis[k + 1]]["forms"][bridge]):
            return None
    return ents, fis


# ---------------------------------------------------------------------------
# Questions: (path, quota, templates)
# ---------------------------------------------------------------------------
Q_SPECS = [
    # ---- one hop (50)
    (
        ("OWN",),
        7,
        [
            "Who owns {x}?",
            "{x} — whose is it?",
            "I need whoever is on the hook for {x}.",
            "ping who for {x}?",
            "If {x} breaks at 3am, whose phone should ring?",
        ],
    ),
    (
        ("DEP",),
        5,
        [
            "What does {x} depend on?",
            "{x} pulls its data from which upstream system?",
            "which system feeds {x}?",
        ],
    ),
    (
        ("STO",),
        5,
        [
            "Where does {x} keep its data?",
            "which datastore is behind {x}?",
            "{x}'s database: what's it called?",
        ],
    ),
    (
        ("STOi",),
        3,
        [
            "Which system writes its data to {x}?",
            "{x} holds data for which application?",
        ],
    ),
    (
        ("RUN",),
        5,
        [
            "Which box is {x} on?",
            "what host runs {x}?",
            "Need to patch the server under {x}. Which host is it?",
        ],
    ),
    (
        ("LOC",),
        4,
        [
            "Which data centre or cloud region is {x} in?",
            "where does the host {x} physically live?",
        ],
    ),
    (
        ("TEAM",),
        6,
        [
            "Which team is {x} in?",
            "{x}'s team?",
            "what team does {x} belong to?",
        ],
    ),
    (
        ("LEAD",),
        4,
        [
            "Who leads {x}?",
            "who's in charge of the {x} team?",
        ],
    ),
    (
        ("CHAN",),
        3,
        [
            "How do I reach {x}? Which channel or list?",
            "What's the contact channel for {x}?",
        ],
    ),
    (
        ("CHANi",),
        2,
        [
            "Which team is behind {x}?",
            "{x} — whose channel is that?",
        ],
    ),
    (
        ("OFF",),
        6,
        [
            "Where does {x} sit?",
            "which office is {x} based at?",
            "Planning to drop by and see {x} tomorrow. Which site should I go to?",
        ],
    ),
    # ---- two hops (60)
    (
        ("OWN", "OFF"),
        6,
        [
            "Where does the owner of {x} work from?",
            "{x}'s owner: which site are they at?",
            "find the office of whoever owns {x}",
        ],
    ),
    (
        ("OWN", "TEAM"),
        5,
        [
            "Which team is the owner of {x} in?",
            "what team does {x}'s owner belong to?",
        ],
    ),
    (
        ("STO", "RUN"),
        6,
        [
            "Which host runs the datastore behind {x}?",
            "which box is {x}'s database on?",
        ],
    ),
    (
        ("RUN", "LOC"),
        5,
        [
            "In which data centre or region does {x} ultimately live?",
            "the server hosting {x} — which data centre is it in?",
        ],
    ),
    (
        ("DEP", "OWN"),
        6,
        [
            "Who owns the system that {x} depends on?",
            "{x} has a single upstream. whose is it?",
            "Find the owner of whatever feeds {x}.",
        ],
    ),
    (
        ("DEP", "STO"),
        4,
        [
            "Where does the upstream of {x} keep its data?",
            "which datastore belongs to the system feeding {x}?",
        ],
    ),
    (
        ("TEAM", "LEAD"),
        6,
        [
            "Who is {x}'s team lead?",
            "who leads the team {x} is in?",
        ],
    ),
    (
        ("TEAM", "CHAN"),
        5,
        [
            "Where do I post to reach {x}'s team?",
            "What channel or list does the team that {x} belongs to use?",
        ],
    ),
    (
        ("LEAD", "OFF"),
        4,
        [
            "Where does the lead of {x} sit?",
            "Which site does the head of {x} work from?",
        ],
    ),
    (
        ("CHANi", "LEAD"),
        3,
        [
            "Who leads the team that uses {x}?",
            "Someone posted in {x} asking for help. Who is in charge of that team?",
        ],
    ),
    (
        ("STOi", "OWN"),
        5,
        [
            "Who owns the system that writes to {x}?",
            "{x} is filling up. find me the owner of the application that uses it",
        ],
    ),
    (
        ("DEP", "DEP"),
        3,
        [
            "What does {x}'s upstream system itself depend on?",
        ],
    ),
    (
        ("STOi", "DEP"),
        2,
        [
            "The system that stores its data in {x}: what does it depend on?",
        ],
    ),
    # ---- three hops (50)
    (
        ("STO", "RUN", "LOC"),
        6,
        [
            "Which data centre or cloud region ultimately holds {x}'s data?",
            "Find the region or data centre where the host of {x}'s datastore lives.",
            "We're doing DR planning for {x}. Which data centre is its database server in?",
        ],
    ),
    (
        ("OWN", "TEAM", "CHAN"),
        5,
        [
            "Which channel should I use to reach the team of {x}'s owner?",
            "the person who owns {x} — what's their team's contact channel?",
        ],
    ),
    (
        ("OWN", "TEAM", "LEAD"),
        5,
        [
            "Who leads the team that {x}'s owner belongs to?",
            "I want to escalate above the owner of {x}. Who is their team lead?",
        ],
    ),
    (
        ("DEP", "STO", "RUN"),
        5,
        [
            "Which host runs the datastore of the system {x} depends on?",
            "{x}'s upstream keeps its data somewhere. which box is that on?",
        ],
    ),
    (
        ("DEP", "OWN", "OFF"),
        5,
        [
            "Where does the owner of {x}'s upstream system sit?",
            "find the site where the person owning whatever feeds {x} works",
        ],
    ),
    (
        ("DEP", "OWN", "TEAM"),
        4,
        [
            "Which team is the owner of the system {x} depends on part of?",
        ],
    ),
    (
        ("TEAM", "LEAD", "OFF"),
        5,
        [
            "Where does {x}'s team lead work from?",
            "i want to visit {x}'s team lead in person. which office?",
        ],
    ),
    (
        ("CHANi", "LEAD", "OFF"),
        3,
        [
            "Where is the lead of the team behind {x} based?",
        ],
    ),
    (
        ("STOi", "OWN", "OFF"),
        5,
        [
            "Where does the owner of the system that uses {x} sit?",
            "{x} belongs to some application; where is that application's owner based?",
        ],
    ),
    (
        ("STOi", "OWN", "TEAM"),
        4,
        [
            "The app that writes to {x}: which team is its owner in?",
        ],
    ),
    (
        ("DEP", "DEP", "OWN"),
        3,
        [
            "Who owns the upstream of {x}'s upstream?",
        ],
    ),
]

questions = []  # dicts with question, hops, gold + internal meta
start_use = {}
for path, quota, templates in Q_SPECS:
    first_hop = path[0]
    cands = []
    for start in STEP[first_hop]:
        res = walk(path, start)
        if res is not None:
            cands.append(res)
    rng.shuffle(cands)
    chosen = []
    limit = 0
    while len(chosen) < quota:
        assert limit < 10, f"not enough chains for {path}"
        for ents, fis in cands:
            if len(chosen) >= quota:
                break
            if any(c[0] is ents for c in chosen):
                continue
            if start_use.get(ents[0], 0) <= limit:
                chosen.append((ents, fis))
                start_use[ents[0]] = start_use.get(ents[0], 0) + 1
        limit += 1
    t_order = list(range(len(templates)))
    rng.shuffle(t_order)
    for qi, (ents, fis) in enumerate(chosen):
        start = ents[0]
        forms = facts[fis[0]]["forms"][start]
        alias = ALIAS.get(start)
        if alias in forms and (start not in forms or rng.random() < 0.4):
            x = alias
        else:
            x = start
        text = templates[t_order[qi % len(t_order)]].format(x=x)
        questions.append(
            {
                "question": text,
                "hops": len(path),
                "gold": [facts[fi]["id"] for fi in fis],
                "_path": path,
                "_ents": ents,
                "_x": x,
            }
        )
rng.shuffle(questions)


# ---------------------------------------------------------------------------
# Checks (nothing is written unless all pass)
# ---------------------------------------------------------------------------
def all_forms(name):
    return [name] + ([ALIAS[name]] if name in ALIAS else [])


def names_in(text):
    low = text.lower()
    return [n for n in ETYPE if any(f.lower() in low for f in all_forms(n))]


def check():
    # ids and facts
    ids = [f["id"] for f in facts]
    assert len(ids) == len(set(ids)), "duplicate ids"
    assert all(re.fullmatch(r"[a-z]{2}\d{4}", x) for x in ids), "bad id format"
    assert 320 <= len(facts) <= 450, f"fact count {len(facts)} out of range"
    texts = [f["content"] for f in facts]
    assert len(texts) == len(set(texts)), "duplicate fact text"

    # no name is a substring of another name (case-insensitive), so mentions are unambiguous
    surface = []
    for n in ETYPE:
        for form in all_forms(n):
            surface.append((form.lower(), n))
    for a, na in surface:
        for b, nb in surface:
            if a != b:
                assert a not in b, f"name collision: {a!r} inside {b!r}"
    assert len(set(s for s, _ in surface)) == len(surface), "duplicate surface names"

    # relation facts: recorded forms appear, and no third entity is mentioned
    for f in facts:
        for ent, forms in f["forms"].items():
            for form in forms:
                assert form in f["content"], f"{form!r} missing from {f['content']!r}"
        if f["kind"] in REL_TEMPLATES:
            found = names_in(f["content"])
            assert sorted(found) == sorted([f["subj"], f["obj"]]), (f["content"], found)

    # one fact per (relation, subject); reversed relations used by questions are unique too
    idx = build_index(facts)
    for p in PERSON_NAMES:
        assert p in idx["TEAM"] and p in idx["OFF"], p

    # >= 8 phrasings per relation kind
    for k in REL_KINDS:
        used = sorted(set(f["tpl"] for f in facts if f["kind"] == k))
        assert len(used) >= 8, f"only {len(used)} phrasings for {k}"

    # every second name next to its primary name somewhere
    for name, alias in ALIAS.items():
        pats = [p.format(p=name, a=alias) for p in NEXT_TO]
        assert any(any(p in t for p in pats) for t in texts), f"alias {alias} never introduced"

    # questions
    id_pos = {f["id"]: i for i, f in enumerate(facts)}
    hop_counts = {1: 0, 2: 0, 3: 0}
    skeletons = {}
    qtexts = [q["question"] for q in questions]
    assert len(qtexts) == len(set(qtexts)), "duplicate question"
    for q in questions:
        assert q["hops"] == len(q["gold"]) == len(q["_path"]), q
        hop_counts[q["hops"]] += 1
        for g in q["gold"]:
            assert g in id_pos, f"unknown gold id {g}"
        cur = q["_ents"][0]
        prev_fi = None
        for hop, g in zip(q["_path"], q["gold"]):
            fi = id_pos[g]
            f = facts[fi]
            ok = False
            for kind, direction in hop_specs(hop):
                a, b = (f["subj"], f["obj"]) if direction == "fwd" else (f["obj"], f["subj"])
                if f["kind"] == kind and a == cur:
                    ok = True
                    nxt = b
            assert ok, f"chain broken at {g} for {q['question']}"
            assert idx[hop][cur][0] == fi, "gold is not the unique fact for this hop"
            if prev_fi is not None:
                shared = set(facts[prev_fi]["forms"][cur]) & set(f["forms"][cur])
                assert shared, f"bridge {cur} not named alike in {q['gold']}"
            prev_fi = fi
            cur = nxt
        assert cur == q["_ents"][-1]
        start = q["_ents"][0]
        assert q["_x"] in facts[id_pos[q["gold"][0]]]["forms"][start]
        assert q["_x"] in q["question"]
        assert names_in(q["question"]) == [start], (q["question"], names_in(q["question"]))
        sk = q["question"].replace(q["_x"], "{E}")
        skeletons[sk] = skeletons.get(sk, 0) + 1
    assert hop_counts == {1: 50, 2: 60, 3: 50}, hop_counts
    worst = max(skeletons.values())
    assert worst <= 4, f"a question template is used {worst} times"
    return hop_counts, len(skeletons)


hop_counts, n_templates = check()

world = {
    "facts": [{"id": f["id"], "content": f["content"]} for f in facts],
    "questions": [
        {"question": q["question"], "hops": q["hops"], "gold": q["gold"]} for q in questions
    ],
}
data = (json.dumps(world, ensure_ascii=False, indent=2) + "\n").encode("utf-8")
with open(OUT, "wb") as fh:
    fh.write(data)

# ---------------------------------------------------------------------------
# Summary
# ---------------------------------------------------------------------------
print("Skerrow Port Authority — Harbour Technology Group memory")
etypes = ["person", "team", "channel", "site", "system", "datastore", "host", "datacentre"]
print("entities:", ", ".join(f"{t}={sum(1 for v in ETYPE.values() if v == t)}" for t in etypes))
print("entities with a second name:", len(ALIAS))
for k in REL_KINDS + ["glossary", "distractor"]:
    print(f"  facts {k:<11} {sum(1 for f in facts if f['kind'] == k):>4}")
print(f"  facts total       {len(facts):>4}")
print("questions by hops:", ", ".join(f"{h}-hop={n}" for h, n in hop_counts.items()))
print("distinct question templates:", n_templates)
print("md5(world.json):", hashlib.md5(data).hexdigest())
