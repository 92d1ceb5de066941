#!/usr/bin/env python3
"""Deterministic generator for the "Kestrel Coastal Airways" memory benchmark world.

A fictional regional airline's operations and IT group.  The assistant's long-term
memory holds short notes (relation notes, glossary notes, distractors); questions
chain 1-3 relation notes.  Run `python3 make_world.py` to write world.json next to
this file.  Only the standard library is used and a single seeded RNG drives every
random choice, so the output is identical under any PYTHONHASHSEED.
"""

import hashlib
import json
import os
import random
import re

RNG = random.Random(170017)
HERE = os.path.dirname(os.path.abspath(__file__))

# --------------------------------------------------------------------------- entities
# (primary name, second name or None)

PEOPLE = [
    ("Mirela Dunphy", "@mirel"),
    ("Osric Tallent", "@osric"),
    ("Priya Venkataraman", "@pvenk"),
    ("Joaquim Serrano", None),
    ("Halvard Moen", "@halv"),
    ("Temperance Okoro", "@tem"),
    ("Lucan Ferreira", None),
    ("Beatrix Holloway", "@bea.h"),
    ("Dmitri Sokolov", None),
    ("Ngozi Adeyemi", "@ngozi_a"),
    ("Callum Birkett", None),
    ("Yuki Hashimoto", "@yukih"),
    ("Rosalind Achterberg", None),
    ("Tobias Lindqvist", "@tobbe"),
    ("Farah Qureshi", None),
    ("Emeka Nwosu", "@emn"),
    ("Signe Ravnkilde", None),
    ("Marcus Delacroix", None),
    ("Ilse Brandvold", None),
    ("Kwame Asante", "@kwame"),
    ("Orla Fitzgerald", None),
    ("Rafael Montoya", None),
    ("Saoirse Kavanagh", "@sao"),
    ("Viktor Hrabal", None),
    ("Amara Chukwu", None),
    ("Ewan Strachan", "@ewan.s"),
    ("Leontine Vermeer", None),
    ("Bashir Rahimi", None),
    ("Greta Sommerfeld", None),
    ("Hamish Blackwood", "@hamb"),
    ("Ines Carvalho", None),
    ("Jonah Whitlock", None),
    ("Katarzyna Wolska", "@kasia"),
    ("Lorcan Deasy", None),
    ("Mei-Ling Cho", None),
    ("Nikolai Petrov", None),
    ("Oona Rautio", "@oona"),
    ("Pieter Claes", None),
    ("Quentin Marchetti", None),
    ("Runa Eiriksdottir", "@runa.e"),
    ("Stellan Borg", None),
    ("Thandiwe Mokoena", None),
    ("Ulrich Brenner", None),
    ("Valentina Ruiz", None),
]

# team, second name, channel
TEAMS = [
    ("Crew Systems", "CrewSys", "#crew-sys"),
    ("Flight Ops Engineering", "FOE", "#flightops-eng"),
    ("Maintenance Informatics", "Wrench Desk", "#mx-informatics"),
    ("Station Technology", None, "#station-tech"),
    ("Revenue & Loyalty Platforms", "RLP", "#revenue-platforms"),
    ("Infrastructure & Hosting", "Tin Shed", "#infra-hosting"),
    ("Ops Analytics", None, "#ops-analytics"),
    ("Integration Services", None, "#integrations"),
    ("Dispatch Tooling", None, "#dispatch-tools"),
    ("Safety & Compliance Systems", None, "#safety-systems"),
    ("Identity & Access", None, "#iam-help"),
    ("Cabin Digital", None, "#cabin-digital"),
    ("Network Engineering", "NetEng", "#net-eng"),
    ("Service Desk Automation", None, "#desk-bots"),
]

STATIONS = [
    ("Brackwater Regional", "BKW"),
    ("Saltmarsh Municipal", "SLM"),
    ("Kelderby Airport", "KDY"),
    ("Fenmoor Airfield", "FNM"),
    ("Tarrow Point", "TWP"),
    ("Glenhollow Field", "GLH"),
    ("Corrick Bay", None),
    ("Aldmere Head Office", None),
]
# heavier weight = more staff based there
STATION_WEIGHTS = [6, 3, 3, 2, 2, 2, 1, 6]

SITES = [
    ("Quarrytop DC", "QT1"),
    ("Larkspur Colocation", "LSC"),
    ("Eastgate Data Centre", "EGDC"),
    ("Hangar Nine server room", "H9 cage"),
    ("Nimbus North region", None),
]

# host, pet name, site
HOSTS = [
    ("pgsql-prd-07", "Puffin", "Quarrytop DC"),
    ("pgsql-prd-11", "Guillemot", "Quarrytop DC"),
    ("ora-prd-02", "Heron", "Quarrytop DC"),
    ("redis-prd-04", "Plover", "Quarrytop DC"),
    ("ora-prd-05", None, "Larkspur Colocation"),
    ("mssql-prd-01", "Tern", "Larkspur Colocation"),
    ("pgsql-prd-12", "Dunlin", "Larkspur Colocation"),
    ("mq-prd-03", None, "Larkspur Colocation"),
    ("mongo-prd-03", "Kittiwake", "Eastgate Data Centre"),
    ("kafka-prd-01", None, "Eastgate Data Centre"),
    ("elastic-prd-06", None, "Eastgate Data Centre"),
    ("pgsql-prd-31", None, "Eastgate Data Centre"),
    ("nas-prd-02", None, "Hangar Nine server room"),
    ("files-prd-09", None, "Hangar Nine server room"),
    ("vm-app-114", "Curlew", "Nimbus North region"),
    ("vm-app-208", None, "Nimbus North region"),
]

# datastore, second name, host
DATASTORES = [
    ("pairing_store", None, "pgsql-prd-07"),
    ("rosterdb", "Roster Vault", "pgsql-prd-07"),
    ("crew_quals", None, "pgsql-prd-11"),
    ("flightplan_db", "FPDB", "ora-prd-02"),
    ("notam_cache", None, "redis-prd-04"),
    ("fuel_ledger", None, "ora-prd-02"),
    ("wx_grid", None, "files-prd-09"),
    ("dispatch_releases", None, "ora-prd-05"),
    ("techlog_db", "Logbook", "mssql-prd-01"),
    ("mx_workorders", "WO store", "mssql-prd-01"),
    ("parts_ledger", None, "ora-prd-05"),
    ("hangar_slots", None, "pgsql-prd-11"),
    ("turnaround_events", None, "mongo-prd-03"),
    ("bag_matches", None, "mongo-prd-03"),
    ("pnr_vault", "Passenger Vault", "pgsql-prd-12"),
    ("loyalty_points", None, "pgsql-prd-12"),
    ("safety_reports", None, "pgsql-prd-31"),
    ("iam_directory", "Phonebook", "vm-app-114"),
    ("cabin_reports", None, "pgsql-prd-31"),
    ("cabin_media", None, "nas-prd-02"),
    ("ops_event_stream", None, "kafka-prd-01"),
    ("ops_warehouse", "Big Barn", "vm-app-208"),
    ("netflow_archive", None, "nas-prd-02"),
    ("ticket_index", None, "elastic-prd-06"),
    ("disruption_cases", None, "pgsql-prd-31"),
    ("fleet_telemetry", None, "files-prd-09"),
    ("schedule_master", None, "pgsql-prd-12"),
]

# system, second name, datastore, upstream system or None, owning team
SYSTEMS = [
    ("Crew Pairing Optimizer", "Tandem", "pairing_store", "Timetable Builder", "Crew Systems"),
    ("Roster Publisher", "Rota", "rosterdb", "Crew Pairing Optimizer", "Crew Systems"),
    ("Crew Qualification Tracker", "QualTrack", "crew_quals", "Identity Broker", "Crew Systems"),
    (
        "Flight Plan Builder",
        "Wayfinder",
        "flightplan_db",
        "Weather Ingest",
        "Flight Ops Engineering",
    ),
    ("NOTAM Aggregator", "Noticeboard", "notam_cache", None, "Flight Ops Engineering"),
    (
        "Fuel Planning Service",
        "FPS",
        "fuel_ledger",
        "Flight Plan Builder",
        "Flight Ops Engineering",
    ),
    ("Weather Ingest", "Cumulus", "wx_grid", None, "Flight Ops Engineering"),
    (
        "Dispatch Release Console",
        "DRC",
        "dispatch_releases",
        "Fuel Planning Service",
        "Dispatch Tooling",
    ),
    ("Aircraft Tech Log", "eLog", "techlog_db", "Fleet Health Monitor", "Maintenance Informatics"),
    (
        "Maintenance Planner",
        "Overhaul",
        "mx_workorders",
        "Aircraft Tech Log",
        "Maintenance Informatics",
    ),
    ("Parts Inventory", "Spares", "parts_ledger", "Maintenance Planner", "Maintenance Informatics"),
    (
        "Hangar Slot Scheduler",
        "Bayline",
        "hangar_slots",
        "Maintenance Planner",
        "Maintenance Informatics",
    ),
    ("Turnaround Tracker", "Stopwatch", "turnaround_events", "Ops Event Bus", "Station Technology"),
    (
        "Baggage Reconciliation",
        "BagRec",
        "bag_matches",
        "Passenger Manifest Service",
        "Station Technology",
    ),
    ("Gate Assignment Tool", None, "turnaround_events", "Timetable Builder", "Station Technology"),
    (
        "Passenger Manifest Service",
        None,
        "pnr_vault",
        "Booking Engine",
        "Revenue & Loyalty Platforms",
    ),
    ("Booking Engine", "Atlas", "pnr_vault", "Timetable Builder", "Revenue & Loyalty Platforms"),
    ("Loyalty Ledger", "Perch", "loyalty_points", "Booking Engine", "Revenue & Loyalty Platforms"),
    (
        "Check-in Kiosk Backend",
        None,
        "pnr_vault",
        "Passenger Manifest Service",
        "Station Technology",
    ),
    (
        "Safety Reporting Portal",
        "Candor",
        "safety_reports",
        "Identity Broker",
        "Safety & Compliance Systems",
    ),
    (
        "Compliance Audit Tracker",
        "Auditrail",
        "safety_reports",
        "Safety Reporting Portal",
        "Safety & Compliance Systems",
    ),
    ("Identity Broker", "Doorman", "iam_directory", None, "Identity & Access"),
    ("Cabin Crew App", "Galley", "cabin_reports", "Roster Publisher", "Cabin Digital"),
    ("Inflight Content Manager", "Reel", "cabin_media", None, "Cabin Digital"),
    ("Ops Event Bus", "Tannoy", "ops_event_stream", None, "Infrastructure & Hosting"),
    ("Ops Dashboard", None, "ops_warehouse", "Ops Event Bus", "Ops Analytics"),
    ("Network Monitor", None, "netflow_archive", None, "Network Engineering"),
    ("Service Desk Bot", "Ticketbot", "ticket_index", "Identity Broker", "Service Desk Automation"),
    ("Disruption Manager", "Stormchaser", "disruption_cases", "Ops Event Bus", "Dispatch Tooling"),
    ("Fleet Health Monitor", None, "fleet_telemetry", None, "Ops Analytics"),
    ("Crew Hotel Booker", None, "rosterdb", "Roster Publisher", "Crew Systems"),
    ("Timetable Builder", None, "schedule_master", None, "Integration Services"),
]

ENT = {}  # primary name -> {"kind", "name", "alias"}
ENT_ORDER = []  # primary names in creation order
BY_KIND = {}  # kind -> [primary names]


def add_entity(kind, name, alias):
    assert name not in ENT, name
    ENT[name] = {"kind": kind, "name": name, "alias": alias}
    ENT_ORDER.append(name)
    BY_KIND.setdefault(kind, []).append(name)


for _n, _a in PEOPLE:
    add_entity("person", _n, _a)
for _n, _a, _c in TEAMS:
    add_entity("team", _n, _a)
for _n, _a, _c in TEAMS:
    add_entity("channel", _c, None)
for _n, _a in STATIONS:
    add_entity("station", _n, _a)
for _n, _a in SITES:
    add_entity("site", _n, _a)
for _n, _a, _s in HOSTS:
    add_entity("host", _n, _a)
for _n, _a, _h in DATASTORES:
    add_entity("datastore", _n, _a)
for _row in SYSTEMS:
    add_entity("system", _row[0], _row[1])

# --------------------------------------------------------------------------- relations
REL_ORDER = [
    "sys_owner",
    "sys_up",
    "sys_ds",
    "ds_host",
    "host_site",
    "person_team",
    "team_lead",
    "team_chan",
    "person_base",
]
REL_KINDS = {
    "sys_owner": ("system", "person"),
    "sys_up": ("system", "system"),
    "sys_ds": ("system", "datastore"),
    "ds_host": ("datastore", "host"),
    "host_site": ("host", "site"),
    "person_team": ("person", "team"),
    "team_lead": ("team", "person"),
    "team_chan": ("team", "channel"),
    "person_base": ("person", "station"),
}
REL = {r: {} for r in REL_ORDER}  # relation -> {subject: object} (functional)

for _n, _a, _s in HOSTS:
    REL["host_site"][_n] = _s
for _n, _a, _h in DATASTORES:
    REL["ds_host"][_n] = _h
for _n, _a, _c in TEAMS:
    REL["team_chan"][_n] = _c
for _row in SYSTEMS:
    REL["sys_ds"][_row[0]] = _row[2]
    if _row[3] is not None:
        REL["sys_up"][_row[0]] = _row[3]

# people -> teams: shuffled, dealt round-robin (3-4 per team)
_people = list(BY_KIND["person"])
RNG.shuffle(_people)
MEMBERS = {t[0]: [] for t in TEAMS}
for _i, _p in enumerate(_people):
    _team = TEAMS[_i % len(TEAMS)][0]
    REL["person_team"][_p] = _team
    MEMBERS[_team].append(_p)

# team leads: one member of the team
for _n, _a, _c in TEAMS:
    REL["team_lead"][_n] = RNG.choice(MEMBERS[_n])

# system owners: a member of the owning team, spreading load
_owned = {p: 0 for p in BY_KIND["person"]}
for _row in SYSTEMS:
    _cands = [(_owned[p], RNG.random(), p) for p in MEMBERS[_row[4]]]
    _cands.sort()
    _owner = _cands[0][2]
    _owned[_owner] += 1
    REL["sys_owner"][_row[0]] = _owner

# people -> base station
_weighted = []
for (_n, _a), _w in zip(STATIONS, STATION_WEIGHTS):
    _weighted.extend([_n] * _w)
for _p in BY_KIND["person"]:
    REL["person_base"][_p] = RNG.choice(_weighted)

LINKED = set()  # for look-ups only (never iterated)
for _r in REL_ORDER:
    for _s, _o in REL[_r].items():
        LINKED.add((_s, _o))
        LINKED.add((_o, _s))

WRITERS = {}
for _s, _d in REL["sys_ds"].items():
    WRITERS.setdefault(_d, []).append(_s)

# --------------------------------------------------------------------------- mentions
MENTION_STATS = {"primary": 0, "alias": 0, "both": 0}
FORM_QUEUE = []  # exact 60/25/15 quota for relation-note mentions, filled later


def mention(key, stats=False):
    """Primary name ~60%, second name ~25%, both ~15% (if a second name exists)."""
    e = ENT[key]
    if e["alias"] is None:
        return e["name"]
    if stats and FORM_QUEUE:
        form = FORM_QUEUE.pop()
    else:
        r = RNG.random()
        form = "primary" if r < 0.60 else ("alias" if r < 0.85 else "both")
    if stats:
        MENTION_STATS[form] += 1
    if form == "primary":
        return e["name"]
    if form == "alias":
        return e["alias"]
    return "%s (%s)" % (e["name"], e["alias"])


def fix_possessive(text):
    return re.sub(r"(\w)s's\b", r"\1s'", text)


# --------------------------------------------------------------------------- templates
# {s} subject, {o} object; {q}/{a} chat handles of two other people; {tier} a number.
# A template prefixed with "!" is only used when the datastore has a single writer.
REL_TEMPLATES = {
    "sys_owner": [
        "{s} is owned by {o} these days.",
        "{o} owns {s} and approves its releases.",
        "Owner of {s}: {o}, per the service catalogue.",
        "{s} — owner: {o} (since the reorg)",
        "If {s} breaks at night, page {o}.",
        "Questions about {s} go to {o}.",
        "{o} is the person accountable for {s}.",
        "system: {s} | owner: {o} | tier: {tier}",
        "{q}: who's on the hook for {s}? {a}: {o}, since the reorg",
        "{o} took over {s} from the contractors and still has it.",
        "It was {o} who inherited {s} when the old team dissolved.",
        "Met {o} today — {s} is theirs, end to end.",
        "Since {o} runs {s}, schema changes need their approval.",
        "Responsible engineer for {s} is {o}.",
        "{q}: need a reviewer for {s} / {a}: ask {o}, it's their baby",
    ],
    "sys_up": [
        "{s} depends on {o} for its input.",
        "{s} pulls all of its data from {o}.",
        "{o} feeds {s} every few minutes.",
        "Upstream system of {s}: {o}.",
        "{s} — upstream dependency: {o}",
        "When {o} is down, {s} stops updating.",
        "{s} won't start unless {o} is reachable.",
        "{s} consumes the feed published by {o}.",
        "Everything {s} shows comes out of {o}.",
        "dep map: {s} -> {o} (hard dependency)",
        "{q}: why is {s} stale again? {a}: {o} is lagging, it reads from there",
        "The only upstream {s} has is {o}.",
        "Remember that {s}, which sits downstream of {o}, needs a restart after their deploys.",
        "{o} is what {s} is built on top of.",
        "Gaps in {s}? Check {o} first — it's the source.",
    ],
    "sys_ds": [
        "{s} writes everything to {o}.",
        "{s} keeps its state in {o}.",
        "{o} is the backing store for {s}.",
        "Datastore for {s}: {o}, prod only.",
        "{s} — primary db: {o}",
        "!Nothing but {s} writes to {o}.",
        "service: {s} | store: {o} | env: prod",
        "All of {s}'s records end up in {o}.",
        "{o} holds the data that {s} persists.",
        "{q}: where does {s} persist stuff? {a}: {o}",
        "If {o} fills up, {s} stops saving.",
        "Restoring {s} means restoring {o}; that's where its data lives.",
        "{s} persists to {o}, nightly backups included.",
        "The app tier of {s} talks to one database, {o}.",
    ],
    "ds_host": [
        "{s} lives on {o}, prod instance.",
        "{s} is hosted on {o}.",
        "{o} hosts {s} in production.",
        "{s} — host: {o} (primary)",
        "db: {s} | host: {o}",
        "To reach {s}, ssh to {o}.",
        "{o} is where {s} runs.",
        "If {o} reboots, {s} goes offline with it.",
        "Location of {s}: box {o}.",
        "{q}: which box is {s} on? {a}: {o}, same as always",
        "The instance behind {s} sits on {o}.",
        "We moved {s} onto {o} last spring; it's stayed there.",
        "{o} carries the {s} instance.",
    ],
    "host_site": [
        "{s} is located in {o}.",
        "{s} is racked at {o}.",
        "{o} houses {s} and its spare.",
        "{s} — physical site: {o}",
        "host: {s} | dc: {o}",
        "Physical access to {s} means a trip to {o}.",
        "{s} sits in {o}, row C.",
        "If power drops at {o}, {s} goes dark.",
        "The box {s}, physically in {o}, has dual PSUs.",
        "{q}: where is {s} physically? {a}: {o}",
        "Remote hands at {o} look after {s}.",
        "{s}'s rack is in {o}.",
        "You'll find {s} in {o}, next to the UPS.",
    ],
    "person_team": [
        "{s} is on {o} now.",
        "{s} works in {o} these days.",
        "{o} has included {s} since January.",
        "{s} — team: {o} (permanent)",
        "name: {s} | team: {o}",
        "{s} joined {o} in the autumn.",
        "{s} reports into {o} now.",
        "{o} gained {s} last quarter.",
        "{s}, who sits with {o}, is the go-to for release notes.",
        "{q}: which team is {s} in now? {a}: {o}",
        "{s} is one of the engineers in {o}.",
        "Org chart: {o} > {s}",
        "As part of {o}, {s} handles the on-call handovers.",
        "Say welcome to {s}, new in {o}!",
    ],
    "team_lead": [
        "{o} has led {s} since March.",
        "{s} is led by {o}.",
        "{s} — team lead: {o}",
        "Head of {s} right now: {o}.",
        "team: {s} | lead: {o}",
        "{o} runs {s} day to day.",
        "Escalations within {s} stop at {o}, the team lead.",
        "{o} was made lead of {s} in the spring.",
        "{q}: who's the boss over at {s}? {a}: {o}",
        "{s} answers to {o} on everything.",
        "Headcount requests for {s} go through {o}, who heads it.",
        "The manager of {s} is {o}.",
        "Since {o} took charge of {s}, standups are at 9:15.",
    ],
    "team_chan": [
        "{s} hangs out in {o}.",
        "{s}'s Slack channel is {o}.",
        "{o} is where {s} talks shop.",
        "{s} — Slack channel: {o}",
        "team: {s} | chan: {o}",
        "To reach {s}, post in {o}.",
        "{o} belongs to {s} (team channel).",
        "Questions for {s}? Drop them in {o}.",
        "{q}: where do I ask {s} something? {a}: try {o}",
        "{s} moved all their discussion to {o}.",
        "The home channel of {s} is {o}.",
        "{o}: the {s} team room.",
        "{s} announces releases in {o}, their team channel.",
    ],
    "person_base": [
        "{s} is based at {o}.",
        "{s} works out of {o}.",
        "{s} — home base: {o}",
        "{o} is home base for {s}.",
        "name: {s} | base: {o}",
        "{s} sits at {o}, desk by the window.",
        "If you need {s} in person, go to {o}.",
        "{s} commutes to {o} every day.",
        "{q}: where does {s} work from? {a}: {o}",
        "{o} has {s} on site full time.",
        "{s}, who is stationed at {o}, covers the early shift.",
        "{s}'s desk is at {o}.",
        "Badge for {s} was issued at {o}, their home station.",
    ],
}

# wrappers adding a third entity (a person or a channel) without stating a relation
WITNESS_WRAPPERS = [
    "Per {w}: {n}.",
    "{n} (confirmed by {w}).",
    "From {w}'s handover doc: {n}.",
    "{n} — came up in the 1:1 with {w}.",
    "Ops sync, {w} presenting: {n}.",
]
CHANNEL_WRAPPERS = [
    "Posted in {c}: {n}.",
    "{n} (thread in {c}).",
]

GLOSS_ONE = {
    "person": [
        "{p}'s chat handle is {a}.",
        "{a} on Slack is {p}.",
        "FYI, {a} in chat = {p}.",
        "Handle {a} belongs to {p}.",
    ],
    "system": [
        "{a} is what everyone calls {p}.",
        "Code name for {p}: {a}.",
        "{p}, a.k.a. {a} internally.",
        "When people say {a} they mean {p}.",
    ],
    "team": ["{p} is usually just called {a}.", "{a} = {p} (internal nickname)."],
    "station": ["{a} is the station code for {p}.", "{p} shows up as {a} on rosters."],
    "site": ["{a} is shorthand for {p}.", "Tickets say {a} when they mean {p}."],
    "host": ["{a} is the pet name for host {p}.", "{p} is nicknamed {a} on the ops board."],
    "datastore": ["{a} is the nickname for {p}.", "People call {p} the {a} sometimes."],
}
GLOSS_MULTI = [
    "Glossary: {items}.",
    "Name cheat sheet — {items}.",
    "Aliases you'll hear: {items}.",
]
GLOSS_ITEM = ["{a} = {p}", "{a} is {p}", "{p} → {a}"]

# --------------------------------------------------------------------------- questions
# (hops, relation chain, number of questions, templates); {x} = start entity
QUESTION_SPECS = [
    (
        1,
        ["sys_owner"],
        8,
        [
            "Who owns {x}?",
            "Who is the owner of {x}?",
            "Whose system is {x}?",
            "{x} is acting up — who should I page?",
            "I'm reviewing a change to {x}. Who needs to sign off as its owner?",
            "who's responsible for {x} these days?",
            "Tell me who looks after {x}.",
            "If I have a question about {x}, which person do I take it to?",
        ],
    ),
    (
        1,
        ["sys_up"],
        6,
        [
            "What does {x} depend on?",
            "Which system is upstream of {x}?",
            "Where does {x} get its data from?",
            "{x} looks stale. Which upstream system should I check first?",
            "quick one: what feeds {x}?",
            "Name the system that {x} is built on top of.",
        ],
    ),
    (
        1,
        ["sys_ds"],
        6,
        [
            "Which datastore does {x} write to?",
            "Where does {x} persist its data?",
            "What database backs {x}?",
            "I need to restore {x} from backup. Which datastore is that?",
            "Tell me the store behind {x}.",
            "{x} keeps its state where?",
        ],
    ),
    (
        1,
        ["ds_host"],
        5,
        [
            "Which host is {x} on?",
            "What server runs {x}?",
            "I want to ssh to the box with {x}. Which one is it?",
            "where does {x} live, host-wise?",
            "Name the machine hosting {x}.",
        ],
    ),
    (
        1,
        ["host_site"],
        5,
        [
            "Which data centre is {x} in?",
            "Where is {x} physically located?",
            "{x} needs a disk swap. Which site do I send someone to?",
            "what site is {x} racked at?",
            "Tell me the facility that houses {x}.",
        ],
    ),
    (
        1,
        ["person_team"],
        6,
        [
            "Which team is {x} on?",
            "What team does {x} belong to?",
            "{x} just messaged me. What team are they in?",
            "who does {x} work with — which team?",
            "Tell me {x}'s team.",
            "Which group is {x} part of?",
        ],
    ),
    (
        1,
        ["team_lead"],
        5,
        [
            "Who leads {x}?",
            "Who is the head of {x}?",
            "I need headcount approval for {x}. Who runs that team?",
            "who's the manager over at {x}?",
            "Name the lead of {x}.",
        ],
    ),
    (
        1,
        ["team_chan"],
        4,
        [
            "Which channel does {x} use?",
            "Where can I reach {x} on Slack?",
            "I have a question for {x}. Which channel should I post it in?",
            "what's {x}'s team channel?",
        ],
    ),
    (
        1,
        ["person_base"],
        5,
        [
            "Where is {x} based?",
            "Which station does {x} work out of?",
            "I'd like to meet {x} in person. Where do I go?",
            "what's {x}'s home base?",
            "Tell me where {x} sits.",
        ],
    ),
    (
        2,
        ["sys_owner", "person_team"],
        9,
        [
            "Which team is the owner of {x} on?",
            "What team does {x}'s owner belong to?",
            "{x} broke overnight. Which team does the person who owns it work in?",
            "Tell me the team of whoever owns {x}.",
            "the person responsible for {x} — what team are they on?",
            "Which group does the owner of {x} sit in?",
            "I'm filing a ticket about {x}. Which team is its owner part of?",
            "which team is {x}'s owner in, again?",
            "Name the team that the maintainer of {x} works for.",
        ],
    ),
    (
        2,
        ["sys_owner", "person_base"],
        7,
        [
            "Where is the owner of {x} based?",
            "Which station does {x}'s owner work out of?",
            "I want to talk to whoever owns {x} face to face. Where should I go?",
            "Tell me the home base of the person responsible for {x}.",
            "where does the {x} owner sit?",
            "The owner of {x} — which station are they at?",
            "Find out where the person who looks after {x} is stationed.",
        ],
    ),
    (
        2,
        ["sys_ds", "ds_host"],
        8,
        [
            "Which host does {x}'s datastore live on?",
            "What server holds the database behind {x}?",
            "{x} is slow. Which box is its datastore on?",
            "Tell me the host of the store {x} writes to.",
            "where's the db for {x} hosted?",
            "On which machine does the data of {x} sit?",
            "I'm patching servers tonight. Which one carries the datastore of {x}?",
            "Name the host behind {x}'s backing store.",
        ],
    ),
    (
        2,
        ["ds_host", "host_site"],
        6,
        [
            "Which data centre is {x}'s host in?",
            "Where is the server that runs {x} physically?",
            "{x} went offline. Which site houses its host?",
            "Tell me the site of the box hosting {x}.",
            "what facility is {x}'s machine racked at?",
            "In which DC does the host of {x} sit?",
        ],
    ),
    (
        2,
        ["sys_up", "sys_owner"],
        7,
        [
            "Who owns the system that {x} depends on?",
            "Who is the owner of {x}'s upstream?",
            "{x} is missing data. Who owns the system feeding it?",
            "Tell me who looks after whatever {x} pulls its data from.",
            "whose system is upstream of {x}?",
            "Which person is responsible for the system {x} is built on?",
            "If {x}'s source goes down, who do I page?",
        ],
    ),
    (
        2,
        ["sys_up", "sys_ds"],
        6,
        [
            "Which datastore does {x}'s upstream system write to?",
            "Where does the system feeding {x} persist its data?",
            "Tell me the database behind the system that {x} depends on.",
            "what store backs {x}'s upstream?",
            "I'm tracing {x}'s data lineage. Which datastore does its source system use?",
            "Name the backing store of whatever feeds {x}.",
        ],
    ),
    (
        2,
        ["person_team", "team_lead"],
        6,
        [
            "Who leads {x}'s team?",
            "Who is the head of the team {x} is on?",
            "{x} wants time off. Who runs their team?",
            "Tell me who manages the team {x} belongs to.",
            "who's {x}'s team lead?",
            "Name the lead of the group {x} is part of.",
        ],
    ),
    (
        2,
        ["person_team", "team_chan"],
        6,
        [
            "Which channel does {x}'s team use?",
            "Where does the team {x} works in talk on Slack?",
            "I want to loop in {x}'s colleagues. Which channel should I post in?",
            "Tell me the team channel for {x}.",
            "what channel is {x}'s team in?",
            "Name the home channel of the team {x} belongs to.",
        ],
    ),
    (
        2,
        ["team_lead", "person_base"],
        5,
        [
            "Where is the lead of {x} based?",
            "Which station does {x}'s head work out of?",
            "Tell me where the lead of {x} sits.",
            "I'm meeting whoever runs {x}. Which station do I travel to?",
            "where's {x}'s manager located?",
        ],
    ),
    (
        3,
        ["sys_owner", "person_team", "team_chan"],
        9,
        [
            "Which channel does the team of {x}'s owner use?",
            "Where does the team of the person who owns {x} chat?",
            "{x} is down. Which channel should I post in to reach its owner's team?",
            "Tell me the channel of the team that {x}'s owner is on.",
            "what channel does {x}'s owner's team hang out in?",
            "Name the Slack channel used by the team of whoever is responsible for {x}.",
            "I'm announcing a change to {x}. Which channel belongs to the team its owner works in?",
            "The owner of {x} is on some team — what's that team's channel?",
            "In which channel would I find the team of the person who looks after {x}?",
        ],
    ),
    (
        3,
        ["sys_owner", "person_team", "team_lead"],
        8,
        [
            "Who leads the team of {x}'s owner?",
            "Who is the head of the team that the owner of {x} belongs to?",
            "{x} needs more budget. Who runs the team its owner is on?",
            "Tell me the lead of the team whose member owns {x}.",
            "who manages the person who owns {x}? I mean their team lead.",
            "Name the team lead above whoever is responsible for {x}.",
            "I want to escalate about {x} past its owner. Who leads the owner's team?",
            "the owner of {x} reports into a team — who heads that team?",
        ],
    ),
    (
        3,
        ["sys_ds", "ds_host", "host_site"],
        9,
        [
            "Which data centre holds the host of {x}'s datastore?",
            "Where is the server hosting the database behind {x} physically located?",
            "{x} has a storage problem. Which site is its datastore's host in?",
            "Tell me the site of the box that runs the store {x} writes to.",
            "what DC is {x}'s db host in?",
            "Name the facility housing the machine that holds {x}'s data.",
            "I'm planning DR for {x}. Which data centre does its datastore's server sit in?",
            "The datastore behind {x} runs on some host — which site is that host at?",
            "In which site is the server that carries the backing store of {x}?",
        ],
    ),
    (
        3,
        ["sys_up", "sys_owner", "person_team"],
        7,
        [
            "Which team is the owner of {x}'s upstream system on?",
            "What team does the person who owns the system feeding {x} belong to?",
            "{x} is getting bad data from upstream. Which team is the upstream owner on?",
            "Tell me the team of whoever owns the system {x} depends on.",
            "whose team is behind {x}'s upstream? i.e. the upstream owner's team",
            "Name the team the owner of {x}'s data source works in.",
            "The system {x} pulls from has an owner — which team are they part of?",
        ],
    ),
    (
        3,
        ["sys_up", "sys_ds", "ds_host"],
        7,
        [
            "Which host holds the datastore of {x}'s upstream system?",
            "On what server does the database of the system feeding {x} live?",
            "{x}'s source looks corrupted. Which box is the source's datastore on?",
            "Tell me the host behind the store used by whatever {x} depends on.",
            "what machine runs the db of {x}'s upstream?",
            "Name the server carrying the backing store of the system {x} is built on.",
            "The system upstream of {x} writes to a datastore — which host is it on?",
        ],
    ),
    (
        3,
        ["person_team", "team_lead", "person_base"],
        5,
        [
            "Where is {x}'s team lead based?",
            "Which station does the head of {x}'s team work out of?",
            "Tell me where the person who leads {x}'s team sits.",
            "I need to see {x}'s team lead in person. Where do I go?",
            "where's the manager of the team {x} is on located?",
        ],
    ),
    (
        3,
        ["sys_up", "sys_owner", "person_base"],
        5,
        [
            "Where is the owner of {x}'s upstream system based?",
            "Which station does the person who owns the system feeding {x} work out of?",
            "Tell me the home base of whoever is responsible for {x}'s data source.",
            "{x} lost its feed. Where does the owner of its upstream sit?",
            "the system {x} depends on — where is its owner stationed?",
        ],
    ),
]

# --------------------------------------------------------------------------- distractors
SLOT_KIND = {
    "P": "person",
    "P2": "person",
    "S": "system",
    "S2": "system",
    "T": "team",
    "T2": "team",
    "ST": "station",
    "H": "host",
    "D": "datastore",
    "C": "channel",
    "SITE": "site",
}

DISTRACTOR_TEMPLATES = [
    "{P} thinks the {S} UI needs a proper refresh before winter.",
    "{S} release 4.2 slipped to next sprint; nobody seems worried.",
    "Reminder: {P} is on leave the week of the 14th.",
    "{P} recommended the noodle bar near {ST}, cash only.",
    "{P} flew through {ST} on the way to a conference in Lisbon.",
    "{T} won the spring hackathon with a bot that explains delay codes.",
    "Ask about the {D} retention policy at the next architecture review.",
    "{H} threw a disk warning on Tuesday; it cleared itself by lunch.",
    "{SITE} has a fire drill on Thursday morning, expect badge queues.",
    "{C} got very noisy during the snow disruption last week.",
    "Opinion: {S} logs are far too verbose to be useful.",
    "{P} and {P2} are pairing on the winter de-icing report.",
    "Plan: evaluate replacing the PDF export in {S} next quarter.",
    "{P} prefers async updates over calls, mornings especially.",
    "{S} dashboards render badly on the big screen in the OCC.",
    "Note to self: get a card for {P}'s birthday on Friday.",
    "{T} is hiring two contractors for the summer schedule crunch.",
    "{P} asked whether {S} could support dark mode.",
    "Audit season starts in March and {D} is in scope this time.",
    "Patch window for {H} moved to Sunday 02:00 local.",
    "{P} gave a great lunch-and-learn on crew fatigue modelling.",
    "{P} filed a bug against {S} about daylight-saving handling.",
    "{P} was asked to review the {T} roadmap draft.",
    "{P} is visiting {ST} next week for the ramp safety audit.",
    "{S} and {S2} both had outages on the same night, unrelated causes.",
    "{T} and {T2} are sharing a sprint demo slot on Wednesday.",
    "{P} once spent a whole weekend untangling a migration script for {D}.",
    "Someone suggested archiving {C}; {P} disagreed strongly.",
    "{P} said the {S} API docs are badly out of date.",
    "{SITE} cooling upgrade is pencilled in for August.",
    "{P} brought pastries from the bakery by {ST} — excellent.",
    "{S} got a shout-out in the CEO's newsletter this month.",
    "Retro for the {S} incident is on the 3rd; {P} is facilitating.",
    "Night shift logged another fan noise complaint about {H}.",
    "{T} wants a shared glossary of IATA delay codes.",
    "{P} is training for a half marathon in May.",
    "{P} mentioned that {P2} is great at untangling SQL.",
    "Budget freeze means no new laptops for {T} until Q3.",
    "{C} has a pinned post about the new expense tool.",
    "Load test of {S} is scheduled for after the summer peak.",
    "{P} likes the window desk whenever they're in the office.",
    "The {D} schema diagram is outdated; {P} promised to redraw it.",
    "{S} will probably be renamed once marketing weighs in.",
    "Heard {P} is learning Norwegian, just for fun.",
]
PLAIN_DISTRACTORS = [
    "The coffee machine on the hangar mezzanine is broken again.",
    "Winter schedule goes live on the last Sunday of October.",
    "User prefers bullet-point summaries over long prose.",
    "Remember to use UTC in all incident timelines.",
    "Lunch options near the ops building are grim on Mondays.",
    "Friday demos are moving to 15:00 from next month.",
    "The new expense tool wants receipts as PDFs, not photos.",
    "Snow forecast for the weekend; expect a busy disruption desk.",
    "User likes short answers first, details after.",
    "Fire alarm test every first Tuesday at 10:00.",
    "Change freeze runs from 20 December to 3 January.",
    "The all-hands slide template changed again, sigh.",
    "Parking permits need renewing before April.",
    "Quarterly security training is due by the end of the month.",
    "User said to stop suggesting meeting times before 9.",
    "Printer on the second floor only works from the wired network.",
]
DISTRACTOR_BANNED = [
    "owner",
    "owns",
    "depends",
    "upstream",
    "hosted",
    "based at",
    "writes to",
    " leads",
    "racked",
    "lives on",
    "team lead",
    "reports into",
    "works out of",
    "home base",
]


# --------------------------------------------------------------------------- helpers
def surface_forms(key):
    e = ENT[key]
    forms = [e["name"]]
    if e["alias"]:
        forms.append(e["alias"])
    return forms


FORM_TO_KEY = {}
for _k in ENT_ORDER:
    for _f in surface_forms(_k):
        assert _f.lower() not in FORM_TO_KEY, "duplicate surface form %r" % _f
        FORM_TO_KEY[_f.lower()] = _k
_ALL_FORMS = sorted(FORM_TO_KEY, key=lambda f: (-len(f), f))
MENTION_RE = re.compile(
    r"(?<![A-Za-z0-9_])(" + "|".join(re.escape(f) for f in _ALL_FORMS) + r")(?![A-Za-z0-9_])",
    re.IGNORECASE,
)


def detect(text):
    """Entity keys mentioned in text, in order of first appearance."""
    found = []
    for m in MENTION_RE.finditer(text):
        k = FORM_TO_KEY[m.group(1).lower()]
        if k not in found:
            found.append(k)
    return found


def handle_people(exclude):
    return [p for p in BY_KIND["person"] if ENT[p]["alias"] and p not in exclude]


def n_words(text):
    return len(text.split())


# --------------------------------------------------------------------------- build notes
def build_relation_notes():
    notes = []
    n_aliased = 0
    for rel in REL_ORDER:
        for subj, obj in REL[rel].items():
            n_aliased += (ENT[subj]["alias"] is not None) + (ENT[obj]["alias"] is not None)
    n_alias = round(0.25 * n_aliased)
    n_both = round(0.15 * n_aliased)
    FORM_QUEUE.extend(
        ["alias"] * n_alias + ["both"] * n_both + ["primary"] * (n_aliased - n_alias - n_both)
    )
    RNG.shuffle(FORM_QUEUE)
    for rel in REL_ORDER:
        pairs = list(REL[rel].items())
        RNG.shuffle(pairs)
        temps = list(REL_TEMPLATES[rel])
        RNG.shuffle(temps)
        idx = 0
        for subj, obj in pairs:
            chosen = None
            for k in range(len(temps)):
                t = temps[(idx + k) % len(temps)]
                if t.startswith("!") and len(WRITERS.get(obj, [])) != 1:
                    continue
                chosen = t
                idx = idx + k + 1
                break
            assert chosen is not None
            tmpl = chosen.lstrip("!")
            extras = []
            fill = {
                "s": mention(subj, True),
                "o": mention(obj, True),
                "tier": str(RNG.randint(1, 3)),
            }
            if "{q}" in tmpl:
                pool = handle_people([subj, obj])
                q, a = RNG.sample(pool, 2)
                fill["q"] = ENT[q]["alias"]
                fill["a"] = ENT[a]["alias"]
                extras = [q, a]
            text = tmpl.format(**fill)
            if "{q}" not in tmpl and "|" not in tmpl and ">" not in tmpl:
                r = RNG.random()
                core = text.rstrip(".")
                if r < 0.16:
                    pool = [p for p in BY_KIND["person"] if p not in (subj, obj)]
                    w = RNG.choice(pool)
                    wrap = RNG.choice(WITNESS_WRAPPERS)
                    text = wrap.format(w=mention(w), n=core)
                    extras = [w]
                elif r < 0.22 and rel in ("sys_owner", "sys_up", "sys_ds", "ds_host", "host_site"):
                    c = RNG.choice(BY_KIND["channel"])
                    wrap = RNG.choice(CHANNEL_WRAPPERS)
                    text = wrap.format(c=c, n=core)
                    extras = [c]
            text = fix_possessive(text.replace("!.", "!").replace("?.", "?"))
            notes.append(
                {
                    "kind": "rel",
                    "rel": rel,
                    "subj": subj,
                    "obj": obj,
                    "template": tmpl,
                    "ents": [subj, obj] + extras,
                    "content": text,
                }
            )
    return notes


def build_glossary_notes():
    notes = []
    kinds = ["person", "system", "team", "station", "site", "host", "datastore"]
    for kind in kinds:
        keys = [k for k in BY_KIND[kind] if ENT[k]["alias"]]
        RNG.shuffle(keys)
        i = 0
        while i < len(keys):
            size = RNG.choice([1, 1, 2, 2, 3])
            group = keys[i : i + size]
            i += size
            if len(group) == 1:
                k = group[0]
                tmpl = RNG.choice(GLOSS_ONE[kind])
                text = tmpl.format(p=ENT[k]["name"], a=ENT[k]["alias"])
            else:
                items = []
                for k in group:
                    it = RNG.choice(GLOSS_ITEM)
                    items.append(it.format(p=ENT[k]["name"], a=ENT[k]["alias"]))
                text = RNG.choice(GLOSS_MULTI).format(items="; ".join(items))
            notes.append({"kind": "gloss", "ents": list(group), "content": text})
    return notes


def slots_ok(chosen):
    keys = list(chosen.values())
    for i in range(len(keys)):
        for j in range(i + 1, len(keys)):
            if keys[i] == keys[j] or (keys[i], keys[j]) in LINKED:
                return False
    return True


def build_distractors():
    notes = []
    seen = []
    for tmpl in DISTRACTOR_TEMPLATES:
        slots = re.findall(r"\{(\w+)\}", tmpl)
        made = 0
        tries = 0
        used = []
        while made < 3:
            tries += 1
            assert tries < 500, tmpl
            chosen = {}
            for s in slots:
                chosen[s] = RNG.choice(BY_KIND[SLOT_KIND[s]])
            if not slots_ok(chosen):
                continue
            combo = tuple(chosen[s] for s in slots)
            if combo in used:
                continue
            fill = {s: mention(k) for s, k in chosen.items()}
            text = fix_possessive(tmpl.format(**fill))
            if text in seen:
                continue
            seen.append(text)
            used.append(combo)
            notes.append(
                {"kind": "distractor", "ents": [chosen[s] for s in slots], "content": text}
            )
            made += 1
    for text in PLAIN_DISTRACTORS:
        notes.append({"kind": "distractor", "ents": [], "content": text})
    return notes


# --------------------------------------------------------------------------- questions
def follow(start, chain):
    path = [start]
    for rel in chain:
        cur = path[-1]
        if cur not in REL[rel]:
            return None
        path.append(REL[rel][cur])
    return path


def chain_ok(chain, path):
    if len(set(path)) != len(path):
        return False
    start = path[0]
    if chain[:2] == ["sys_up", "sys_owner"]:
        if REL["sys_owner"][path[1]] == REL["sys_owner"][start]:
            return False
    if chain[:2] == ["sys_up", "sys_ds"]:
        if REL["sys_ds"][path[1]] == REL["sys_ds"][start]:
            return False
    return True


def build_questions(rel_index):
    usage = {k: 0 for k in ENT_ORDER}
    questions = []
    for hops, chain, count, temps in QUESTION_SPECS:
        assert len(chain) == hops and len(temps) == count
        first_kind = REL_KINDS[chain[0]][0]
        cands = []
        for k in BY_KIND[first_kind]:
            path = follow(k, chain)
            if path is not None and chain_ok(chain, path):
                cands.append(k)
        assert len(cands) >= count, (chain, len(cands))
        keyed = [(usage[k], RNG.random(), k) for k in cands]
        keyed.sort()
        picked = [k for _, _, k in keyed[:count]]
        temps = list(temps)
        RNG.shuffle(temps)
        for start, tmpl in zip(picked, temps):
            usage[start] += 1
            path = follow(start, chain)
            e = ENT[start]
            if e["alias"] and RNG.random() < 0.4:
                x = e["alias"]
                used_alias = True
            else:
                x = e["name"]
                used_alias = False
            text = fix_possessive(tmpl.format(x=x))
            gold = [rel_index[(rel, path[i])] for i, rel in enumerate(chain)]
            questions.append(
                {
                    "question": text,
                    "hops": hops,
                    "gold": gold,
                    "_start": start,
                    "_answer": path[-1],
                    "_path": path,
                    "_chain": chain,
                    "_template": tmpl,
                    "_alias": used_alias,
                }
            )
    return questions


# --------------------------------------------------------------------------- checks
def self_checks(facts, questions, rel_notes, gloss, distractors):
    # script formatting
    with open(os.path.abspath(__file__), encoding="utf-8") as fh:
        for no, line in enumerate(fh, 1):
            assert len(line.rstrip("\n")) <= 100, "line %d too long" % no

    # surface forms: unique and no substring relations (case-insensitive)
    forms = sorted(FORM_TO_KEY)
    for a in forms:
        for b in forms:
            if a != b:
                assert a not in b, "surface form %r inside %r" % (a, b)
    n_alias = sum(1 for k in ENT_ORDER if ENT[k]["alias"])
    assert 60 <= n_alias <= 80, n_alias

    # counts
    assert len(facts) >= 300, len(facts)
    assert 120 <= len(distractors) <= 160, len(distractors)
    ids = [f["id"] for f in facts]
    assert len(set(ids)) == len(ids)
    assert all(re.fullmatch(r"al\d{4}", i) for i in ids)
    contents = [f["content"] for f in facts]
    assert len(set(contents)) == len(contents), "duplicate note text"
    for f in facts:
        w = n_words(f["content"])
        assert 5 <= w <= 30, (w, f["content"])

    # functional relations: exactly one note per (relation, subject)
    seen = {}
    for n in rel_notes:
        key = (n["rel"], n["subj"])
        assert key not in seen, key
        seen[key] = n
        assert REL[n["rel"]][n["subj"]] == n["obj"]
    for rel in REL_ORDER:
        for s in REL[rel]:
            assert (rel, s) in seen
        used = sorted(set(n["template"] for n in rel_notes if n["rel"] == rel))
        assert len(used) >= 10, (rel, len(used))
        ks, ko = REL_KINDS[rel]
        for s, o in REL[rel].items():
            assert ENT[s]["kind"] == ks and ENT[o]["kind"] == ko

    # upstream graph is acyclic; leads are members of their team
    for s in REL["sys_up"]:
        cur, steps = s, 0
        while cur in REL["sys_up"]:
            cur = REL["sys_up"][cur]
            steps += 1
            assert steps < 50, "cycle at %s" % s
    for t, p in REL["team_lead"].items():
        assert REL["person_team"][p] == t

    # every note mentions exactly the entities it was built with
    for n in rel_notes + gloss + distractors:
        found = detect(n["content"])
        assert sorted(found) == sorted(set(n["ents"])), (n["content"], found, n["ents"])
    for n in gloss:
        for k in n["ents"]:
            assert ENT[k]["alias"] in n["content"] and ENT[k]["name"] in n["content"]
    glossed = [k for n in gloss for k in n["ents"]]
    assert sorted(glossed) == sorted(k for k in ENT_ORDER if ENT[k]["alias"])
    for n in distractors:
        low = n["content"].lower()
        for bad in DISTRACTOR_BANNED:
            assert bad not in low, (bad, n["content"])

    # questions
    by_id = {f["id"]: f for f in facts}
    hop_counts = [sum(1 for q in questions if q["hops"] == h) for h in (1, 2, 3)]
    assert len(questions) == 160 and hop_counts == [50, 60, 50], hop_counts
    assert len(set(q["question"] for q in questions)) == 160
    combos = [(tuple(q["_chain"]), q["_start"]) for q in questions]
    assert len(set(combos)) == len(combos)
    for q in questions:
        assert len(q["gold"]) == q["hops"]
        prev = q["_start"]
        for gid, rel in zip(q["gold"], q["_chain"]):
            f = by_id[gid]
            assert f["_note"]["kind"] == "rel" and f["_note"]["rel"] == rel
            assert f["_note"]["subj"] == prev
            prev = f["_note"]["obj"]
        assert prev == q["_answer"]
        assert len(set(q["_path"])) == len(q["_path"])
        found = detect(q["question"])
        assert found == [q["_start"]], (q["question"], found)
        low = q["question"].lower()
        for form in surface_forms(q["_answer"]):
            assert form.lower() not in low
        assert "{" not in q["question"] and "}" not in q["question"]
    assert not FORM_QUEUE
    tot = sum(MENTION_STATS.values())
    assert abs(MENTION_STATS["primary"] - 0.60 * tot) <= 2
    assert abs(MENTION_STATS["alias"] - 0.25 * tot) <= 2
    n_templates = len(set(q["_template"] for q in questions))
    assert n_templates >= 120, n_templates
    assert sum(1 for q in questions if q["_alias"]) >= 20
    return n_alias, n_templates


# --------------------------------------------------------------------------- main
def main():
    rel_notes = build_relation_notes()
    gloss = build_glossary_notes()
    distractors = build_distractors()
    notes = rel_notes + gloss + distractors
    RNG.shuffle(notes)
    id_nums = RNG.sample(range(1000, 10000), len(notes))
    facts = []
    rel_index = {}
    for n, num in zip(notes, id_nums):
        fid = "al%04d" % num
        facts.append({"id": fid, "content": n["content"], "_note": n})
        if n["kind"] == "rel":
            rel_index[(n["rel"], n["subj"])] = fid
    questions = build_questions(rel_index)
    RNG.shuffle(questions)

    n_alias, n_templates = self_checks(facts, questions, rel_notes, gloss, distractors)

    out = {
        "facts": [{"id": f["id"], "content": f["content"]} for f in facts],
        "questions": [
            {"question": q["question"], "hops": q["hops"], "gold": list(q["gold"])}
            for q in questions
        ],
    }
    data = json.dumps(out, ensure_ascii=False, indent=1).encode("utf-8") + b"\n"
    path = os.path.join(HERE, "world.json")
    with open(path, "wb") as fh:
        fh.write(data)

    kinds = {}
    for k in ENT_ORDER:
        kinds[ENT[k]["kind"]] = kinds.get(ENT[k]["kind"], 0) + 1
    print("entities:", len(ENT_ORDER), ", ".join("%s=%d" % kv for kv in kinds.items()))
    print("entities with second names:", n_alias)
    print(
        "facts:",
        len(facts),
        "(relation %d, glossary %d, distractor %d)"
        % (len(rel_notes), len(gloss), len(distractors)),
    )
    for rel in REL_ORDER:
        ns = [n for n in rel_notes if n["rel"] == rel]
        print(
            "  %-12s notes=%3d phrasings=%d" % (rel, len(ns), len(set(n["template"] for n in ns)))
        )
    tot = sum(MENTION_STATS.values())
    print(
        "mention forms (aliased entities in relation notes):",
        ", ".join("%s=%d (%.0f%%)" % (k, v, 100.0 * v / tot) for k, v in MENTION_STATS.items()),
    )
    print(
        "questions:",
        len(questions),
        "hops 1/2/3 =",
        [sum(1 for q in questions if q["hops"] == h) for h in (1, 2, 3)],
    )
    print("distinct question wordings (templates):", n_templates)
    print("questions naming start by second name:", sum(1 for q in questions if q["_alias"]))
    print("md5:", hashlib.md5(data).hexdigest())


if __name__ == "__main__":
    main()
