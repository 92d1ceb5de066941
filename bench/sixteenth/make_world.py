#!/usr/bin/env python3
"""Generate world.json: long-term memory notes of an AI assistant that has worked for
months with the technology group of the Nordvest Meteorological Institute, a fictional
national weather service.

Deterministic: one random.Random(160016), no set iteration, output independent of
PYTHONHASHSEED.  All checks run before anything is written; a failed check raises
AssertionError and world.json is left untouched.
"""

import hashlib
import json
import os
import random
import re

rng = random.Random(160016)
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "world.json")
ID_PREFIX = "wx"
N_DISTRACTORS = 130

# --------------------------------------------------------------------------------------
# Entities
# --------------------------------------------------------------------------------------

PEOPLE = [
    ("Astrid Kvalheim", "@akval"),
    ("Bjorn Tveit", "Bamse"),
    ("Camilla Rud", None),
    ("Dagfinn Moe", "Daffy"),
    ("Eirik Hauge", None),
    ("Frida Lunde", "@flunde"),
    ("Gunnar Aasen", None),
    ("Hanne Sletta", None),
    ("Ivar Nesheim", "Ivo"),
    ("Jorunn Vik", None),
    ("Kasper Dahl", "@kdahl"),
    ("Lene Myklebust", None),
    ("Magnus Eide", "Mags"),
    ("Nora Fjeld", None),
    ("Oddvar Rustad", "Rusty"),
    ("Pernille Skaar", None),
    ("Rune Berntsen", None),
    ("Siri Holter", "@sholt"),
    ("Tor Aamodt", None),
    ("Unni Lervik", None),
    ("Vegard Sunde", "Veggie"),
    ("Wenche Ask", None),
    ("Yusuf Demir", "@ydemir"),
    ("Zofia Nowak", "Zosia"),
    ("Amir Haddad", None),
    ("Beatriz Costa", "Bia"),
    ("Chen Wei", "@cwei"),
    ("Dmitri Volkov", "Dima"),
    ("Elin Strom", None),
    ("Fredrik Lie", None),
    ("Guro Bakke", None),
    ("Henrik Solberg", "Sollie"),
    ("Ingrid Ostby", None),
    ("Jonas Krogh", None),
    ("Kari Nygaard", None),
    ("Leif Aune", None),
    ("Marte Dyrnes", "@mdyr"),
    ("Nils Opsahl", None),
    ("Oda Brenna", None),
    ("Priya Raman", "@praman"),
    ("Sindre Hovland", None),
    ("Thea Bergan", None),
]

# team, alias, channel (one channel or mailing list per team)
TEAMS = [
    ("Forecast Modelling Group", "FMG", "#model-runs"),
    ("Observing Networks", "ObsNet", "#station-chatter"),
    ("Warnings & Dissemination", "W&D", "warnings-dev@nmi.example"),
    ("Climate Services", "ClimServ", "#climsvc"),
    ("Reliability Engineering", "SRE", "#pager-room"),
    ("Radar & Satellite", "R&S", "#echoes"),
    ("Digital Products", "DigiProd", "digital@nmi.example"),
    ("Infrastructure Operations", "InfraOps", "#infra-help"),
    ("Aviation Services", "AvServ", "aviation-ops@nmi.example"),
    ("Marine & Coastal", "MarCo", "#sea-state"),
]
CHANNEL_ALIAS = {"#pager-room": "War Room", "#infra-help": "Infra Desk"}

OFFICES = [
    ("Bergvik HQ", "Building K"),
    ("Tromsdal office", None),
    ("Solvang field station", "SFS"),
    ("Flesland airport desk", "AvDesk"),
    ("Kirkenes outpost", None),
    ("Lillevik remote hub", "LRH"),
]

DCS = [
    ("Kjeller DC", "KJ1"),
    ("Hamar DC", "HM2"),
    ("Stavanger colo", None),
    ("Nordsky nord-1", None),
    ("Nordsky vest-2", None),
]

HOSTS = [
    ("cirrus-01", "Old Faithful"),
    ("cirrus-02", None),
    ("cumulus-01", "Brick"),
    ("cumulus-02", None),
    ("nimbus-01", None),
    ("nimbus-02", "Thunderbox"),
    ("stratus-01", None),
    ("stratus-02", None),
    ("virga-01", "Greybeard"),
    ("virga-02", None),
    ("haar-01", None),
    ("haar-02", "Fogbank"),
    ("graupel-01", None),
    ("graupel-02", None),
    ("sleet-01", "Icebox"),
]

# system, alias, upstream system, datastore, datastore alias
SYSTEMS = [
    ("Radar Ingest Service", "Hawkeye", None, "volscan-bucket", None),
    ("Satellite Downlink Processor", "SDP", None, "sat-l1-store", None),
    ("Synop Collector", "Synko", None, "synop_pg", "SynopDB"),
    ("Lightning Locator", "Zeus", None, "strikes-tsdb", None),
    ("Buoy Gateway", None, None, "buoyraw", None),
    ("Station Metadata Registry", "StaMeta", None, "stations_master", "Stationbook"),
    ("Observation Monitor", "Watchtower", "Station Metadata Registry", "monitor-prom", None),
    ("Quality Control Pipeline", "QCP", "Synop Collector", "qcflags_pg", None),
    ("Data Assimilation Engine", "Nudger", "Quality Control Pipeline", "assim-scratch", None),
    ("Global Model Driver", "GMD", "Data Assimilation Engine", "fieldstore-global", None),
    ("Ensemble Runner", "EnsRun", "Global Model Driver", "member-archive", "Membox"),
    ("Job Scheduler", "Cronos", None, None, None),
    ("Post-Processing Farm", "PPF", "Ensemble Runner", "derived-grids", "GridVault"),
    ("Nowcast Engine", "Blink", "Radar Ingest Service", "tilecache-redis", None),
    ("Warning Composer", "Siren", "Nowcast Engine", "warnings_pg", "WarnDB"),
    ("CAP Feed Publisher", "Capstan", "Warning Composer", "cap-outbox", None),
    ("Alert SMS Gateway", "Beacon", "CAP Feed Publisher", "sms-queue", None),
    ("GRIB Distributor", "Gribber", "Post-Processing Farm", "grib-spool", None),
    ("Public Forecast API", "Skyline", "GRIB Distributor", "api-points-es", "Pointcache"),
    ("Weather App Backend", "Drizzle", "Public Forecast API", "appusers_pg", None),
    ("Graphics Renderer", "Mapsmith", "Post-Processing Farm", "render-tiles", None),
    ("Website CMS", "Fjordpress", "Graphics Renderer", "cms_mysql", None),
    ("TAF Editor", None, "Lightning Locator", "taf_drafts", None),
    ("Aviation Briefing Portal", "AvBrief", "TAF Editor", "brief-docs", None),
    ("Marine Bulletin Generator", "Tidewriter", "Buoy Gateway", "marine_texts", None),
    ("Climate Data Archive", "ClimArc", "Quality Control Pipeline", "climate-lake", "ColdLake"),
    ("Hydro Link", None, "Climate Data Archive", None, None),
    ("Road Weather Feed", "Frostline", "Public Forecast API", "roadwx_pg", None),
    ("Product Catalogue", None, None, "products_meta", None),
    ("Data Licensing Portal", "DLP", "Product Catalogue", "licences_pg", None),
    ("Verification Suite", "Scorecard", "Climate Data Archive", "verif-scores", None),
    ("Pollen Forecast Service", "Pollenpal", "Satellite Downlink Processor", "pollen_counts", None),
]

ENT = {}  # primary name -> {"type": ..., "alias": ...}; insertion ordered


def add_entity(name, etype, alias):
    assert name not in ENT, name
    ENT[name] = {"type": etype, "alias": alias}


for _n, _a in PEOPLE:
    add_entity(_n, "person", _a)
for _n, _a, _c in TEAMS:
    add_entity(_n, "team", _a)
for _n, _a, _c in TEAMS:
    add_entity(_c, "channel", CHANNEL_ALIAS.get(_c))
for _n, _a in OFFICES:
    add_entity(_n, "office", _a)
for _n, _a in DCS:
    add_entity(_n, "dc", _a)
for _n, _a in HOSTS:
    add_entity(_n, "host", _a)
for _row in SYSTEMS:
    add_entity(_row[0], "system", _row[1])
for _row in SYSTEMS:
    if _row[3]:
        add_entity(_row[3], "datastore", _row[4])


def of_type(t):
    return [n for n, e in ENT.items() if e["type"] == t]


P_LIST, T_LIST, C_LIST = of_type("person"), of_type("team"), of_type("channel")
O_LIST, DC_LIST, H_LIST = of_type("office"), of_type("dc"), of_type("host")
S_LIST, D_LIST = of_type("system"), of_type("datastore")

# --------------------------------------------------------------------------------------
# Ground-truth assignments
# --------------------------------------------------------------------------------------

upstream = {r[0]: r[2] for r in SYSTEMS if r[2]}
ds_of = {r[0]: r[3] for r in SYSTEMS if r[3]}
sys_of_ds = {d: s for s, d in ds_of.items()}
chan_of = {t: c for t, _a, c in TEAMS}
team_of_chan = {c: t for t, c in chan_of.items()}

_shuf = P_LIST[:]
rng.shuffle(_shuf)
lead_of = {t: _shuf[i] for i, t in enumerate(T_LIST)}
team_led_by = {p: t for t, p in lead_of.items()}
member_of = {}
for _i, _p in enumerate(_shuf[len(T_LIST) :]):
    member_of[_p] = T_LIST[_i % len(T_LIST)] if _i < 20 else rng.choice(T_LIST)
team_of = {}
for _p in P_LIST:
    team_of[_p] = member_of[_p] if _p in member_of else team_led_by[_p]

_shuf = P_LIST[:]
rng.shuffle(_shuf)
office_of = {}
for _i, _p in enumerate(_shuf):
    office_of[_p] = O_LIST[_i % len(O_LIST)] if _i < 24 else rng.choice(O_LIST)

owner_of = {s: rng.choice(P_LIST) for s in S_LIST}

_shuf = D_LIST[:]
rng.shuffle(_shuf)
host_of = {}
for _i, _d in enumerate(_shuf):
    host_of[_d] = H_LIST[_i % len(H_LIST)] if _i < len(H_LIST) else rng.choice(H_LIST)

_shuf = H_LIST[:]
rng.shuffle(_shuf)
dc_of = {}
for _i, _h in enumerate(_shuf):
    dc_of[_h] = DC_LIST[_i % len(DC_LIST)] if _i < 10 else rng.choice(DC_LIST)

# relation name -> (subject type, object type, subject->object mapping)
RELATIONS = [
    ("own", "system", "person", {s: owner_of[s] for s in S_LIST}),
    ("up", "system", "system", {s: upstream[s] for s in S_LIST if s in upstream}),
    ("ds", "system", "datastore", {s: ds_of[s] for s in S_LIST if s in ds_of}),
    ("host", "datastore", "host", {d: host_of[d] for d in D_LIST}),
    ("dc", "host", "dc", {h: dc_of[h] for h in H_LIST}),
    ("member", "person", "team", {p: member_of[p] for p in P_LIST if p in member_of}),
    ("lead", "team", "person", {t: lead_of[t] for t in T_LIST}),
    ("chan", "team", "channel", {t: chan_of[t] for t in T_LIST}),
    ("office", "person", "office", {p: office_of[p] for p in P_LIST}),
]

# --------------------------------------------------------------------------------------
# Relation phrasings ({s} subject, {o} object, {n} ticket number, {k} small number)
# --------------------------------------------------------------------------------------

TPL = {
    "own": [
        "{o} owns {s}.",
        "{s} is owned by {o}.",
        "Questions about {s} go to {o}.",
        "If {s} breaks, page {o}.",
        "system: {s} | owner: {o} | tier: {k}",
        '{"system": "{s}", "owner": "{o}"}',
        "| system | owner |\n| {s} | {o} |",
        "{o}: {s} is mine, ping me before you touch it.",
        "{o} is responsible for {s}.",
        "{s} is maintained by {o}, releases included.",
        "OPS-{n}: route anything about {s} to its owner, {o}.",
        "The person who looks after {s} is {o}.",
        "Maintainer of {s}: {o}.",
        "{s}? That is {o}'s baby, has been for years.",
    ],
    "up": [
        "{s} depends on {o}.",
        "{s} is fed by {o}.",
        "{o} feeds {s}.",
        "{s} can't start without {o}.",
        "upstream of {s}: {o}",
        '{"service": "{s}", "upstream": "{o}"}',
        "{s} reads all of its input from {o}.",
        "If {o} is down, {s} stalls, because that is where it pulls its data from.",
        "{s} sits directly downstream of {o}.",
        "| downstream | upstream |\n| {s} | {o} |",
        "{s} calls {o} for everything it needs.",
        "The one upstream dependency of {s} is {o}.",
        "Data flows {o} -> {s}.",
        "{s} is a consumer of {o}.",
    ],
    "ds": [
        "{s}'s data lives in {o}.",
        "{s} stores its state in {o}.",
        "{o} is the database behind {s}.",
        "{o} backs {s}.",
        "datastore for {s}: {o}",
        '{"app": "{s}", "db": "{o}"}',
        "{s} persists to {o}.",
        "{s} writes everything to {o}.",
        "Where {s} keeps its data: {o}.",
        "All of {s}'s records are held in {o}.",
        "| system | datastore |\n| {s} | {o} |",
        "{s} uses {o} as its only datastore.",
        "Nothing but {s} writes to {o}.",
        "{o} - that is where {s} puts its data.",
    ],
    "host": [
        "{s} runs on {o}.",
        "{s} is hosted on {o}.",
        "{o} hosts {s}.",
        "{s} lives on {o}.",
        "{s}: host={o}",
        '{"datastore": "{s}", "host": "{o}"}',
        "The primary of {s} sits on {o}.",
        "{o} is the server running {s}.",
        "If {o} reboots, {s} goes down with it.",
        "| store | host |\n| {s} | {o} |",
        "{s} was deployed onto {o}.",
        "Looking for {s}? It is on {o}.",
        "{s} @ {o}",
    ],
    "dc": [
        "{s} is racked in {o}.",
        "{s} sits in {o}.",
        "{o} houses {s}.",
        "{s}: location {o}",
        '{"host": "{s}", "site": "{o}"}',
        "{s} was provisioned in {o}.",
        "{s} is physically in {o}.",
        "{s} is one of the machines in {o}.",
        "| host | dc |\n| {s} | {o} |",
        "{o} is where {s} runs.",
        "Inventory line: {s} -> {o}",
        "- host: {s}\n  dc: {o}",
    ],
    "member": [
        "{s} is on {o}.",
        "{s} joined {o} last spring.",
        "{s} works in {o}.",
        "{o} member: {s}",
        '{"person": "{s}", "team": "{o}"}',
        "{s}: I'm on {o} now, fyi.",
        "{s} reports into {o}.",
        "{o} welcomed {s} as a new member.",
        "| name | team |\n| {s} | {o} |",
        "{s} is part of {o}.",
        "{s} belongs to {o}.",
        "team={o}; member={s}",
        "{o} counts {s} among its engineers.",
    ],
    "lead": [
        "{s} is led by {o}.",
        "{o} leads {s}.",
        "{o} heads {s}.",
        "{s} lead: {o}",
        '{"team": "{s}", "lead": "{o}"}',
        "Escalations for {s} go to {o}, the team lead.",
        "{o} manages {s}.",
        "{o}: speaking as lead of {s}, this is approved.",
        "| team | lead |\n| {s} | {o} |",
        "The lead of {s} is {o}.",
        "{o} runs {s} day to day.",
        "{s} reports to {o}.",
    ],
    "chan": [
        "{s} hangs out in {o}.",
        "{s}'s channel is {o}.",
        "{o} is where {s} talks.",
        "To reach {s}, use {o}.",
        "{s} - contact: {o}",
        '{"team": "{s}", "channel": "{o}"}',
        "Questions for {s} belong in {o}.",
        "{o} belongs to {s}.",
        "| team | contact |\n| {s} | {o} |",
        "{s} coordinates in {o}.",
        "Ping {s} via {o}.",
        "{o} is the contact point for {s}.",
    ],
    "office": [
        "{s} works from {o}.",
        "{s} is based at {o}.",
        "{s} sits in {o}.",
        "{o} is {s}'s office.",
        "{s} - base: {o}",
        '{"name": "{s}", "office": "{o}"}',
        "{s}: I'm at {o} most days.",
        "{s} commutes to {o}.",
        "| person | office |\n| {s} | {o} |",
        "You'll find {s} at {o}.",
        "{o} is home base for {s}.",
        "{s}'s usual workplace is {o}.",
    ],
}

# --------------------------------------------------------------------------------------
# Surface forms
# --------------------------------------------------------------------------------------


def alias(name):
    return ENT[name]["alias"]


def choose_form(name, allow_b=True):
    if not alias(name):
        return "p"
    r = rng.random()
    if r < 0.6:
        return "p"
    if r < 0.85 or not allow_b:
        return "a"
    return "b"


def render_name(name, form):
    if form == "p":
        return name
    if form == "a":
        return alias(name)
    a = alias(name)
    return [f"{name} ({a})", f"{a} ({name})", f"{name} aka {a}"][rng.randrange(3)]


def fill(tpl, s, o):
    text = tpl.replace("{s}", s).replace("{o}", o)
    text = text.replace("{n}", str(rng.randint(1000, 9999)))
    return text.replace("{k}", str(rng.randint(1, 3)))


SURFACES = []  # (surface, entity)
for _n, _e in ENT.items():
    SURFACES.append((_n, _n))
    if _e["alias"]:
        SURFACES.append((_e["alias"], _n))
PATTERNS = [
    (re.compile(r"(?<![A-Za-z0-9])" + re.escape(s) + r"(?![A-Za-z0-9])", re.I), e, s)
    for s, e in SURFACES
]


def mentions(text):
    found = []
    for pat, ent, _s in PATTERNS:
        if pat.search(text) and ent not in found:
            found.append(ent)
    return found


def has_surface(text, surf):
    pat = re.compile(r"(?<![A-Za-z0-9])" + re.escape(surf) + r"(?![A-Za-z0-9])", re.I)
    return bool(pat.search(text))


# --------------------------------------------------------------------------------------
# Relation notes
# --------------------------------------------------------------------------------------

FACTS = []  # dicts: kind, content, and for relations rel/subj/obj/sf/of/tpl


def build_relation_notes():
    for rel, _st, _ot, mapping in RELATIONS:
        tpls = TPL[rel]
        order = list(range(len(tpls)))
        rng.shuffle(order)
        for i, (subj, obj) in enumerate(mapping.items()):
            ti = order[i % len(order)]
            tpl = tpls[ti]
            sf = choose_form(subj, "{s}'s" not in tpl)
            of = choose_form(obj, "{o}'s" not in tpl)
            text = fill(tpl, render_name(subj, sf), render_name(obj, of))
            FACTS.append(
                {
                    "kind": "rel",
                    "rel": rel,
                    "subj": subj,
                    "obj": obj,
                    "sf": sf,
                    "of": of,
                    "tpl": ti,
                    "content": text,
                }
            )


build_relation_notes()

# --------------------------------------------------------------------------------------
# Glossary notes (every second name next to its primary name)
# --------------------------------------------------------------------------------------


def aliased(names):
    return [n for n in names if alias(n)]


def build_glossary():
    sysa = aliased(S_LIST)
    third = (len(sysa) + 2) // 3
    g1, g2, g3 = sysa[:third], sysa[third : 2 * third], sysa[2 * third :]
    notes = [
        "Glossary: " + "; ".join(f"{alias(n)} = {n}" for n in g1),
        "Code names cheat-sheet:\n" + "\n".join(f"- {n} aka {alias(n)}" for n in g2),
        "More code names you will see in tickets: "
        + ", ".join(f"{n} ({alias(n)})" for n in g3)
        + ".",
        "Team acronyms - " + ", ".join(f"{alias(n)} = {n}" for n in aliased(T_LIST)),
    ]
    people = aliased(P_LIST)
    handles = [p for p in people if alias(p).startswith("@")]
    nicks = [p for p in people if not alias(p).startswith("@")]
    notes.append("Chat handles (name / handle): " + ", ".join(f"{p} / {alias(p)}" for p in handles))
    notes.append(
        "Nicknames you will hear in standups: "
        + ", ".join(f"{alias(p)} ({p})" for p in nicks)
        + "."
    )
    infra = aliased(H_LIST) + aliased(DC_LIST)
    notes.append("Glossary (infra): " + "; ".join(f"{alias(n)} = {n}" for n in infra))
    notes.append(
        "Datastore nicknames: " + ", ".join(f"{n} aka {alias(n)}" for n in aliased(D_LIST))
    )
    places = aliased(O_LIST) + aliased(C_LIST)
    notes.append(
        "Places and rooms, as people actually say them: "
        + ", ".join(f"{n} ({alias(n)})" for n in places)
    )
    for text in notes:
        FACTS.append({"kind": "glossary", "content": text})


build_glossary()

# --------------------------------------------------------------------------------------
# Distractor notes (mention entities together without stating any relation)
# --------------------------------------------------------------------------------------

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
CITIES = ["Vienna", "Toulouse", "Boulder", "Exeter", "Helsinki", "Bologna"]
STORMS = ["Ingunn", "Gyda", "Oleander", "Brage", "Ulla", "Tyr", "Frode"]


def pick(seq, ok=lambda x: True):
    for _ in range(500):
        x = rng.choice(seq)
        if ok(x):
            return x
    raise AssertionError("pick failed")


def nm(x):
    a = alias(x)
    return a if a and rng.random() < 0.25 else x


def date():
    return f"{rng.randint(1, 28)} {rng.choice(MONTHS)} {rng.randint(2022, 2024)}"


def ancestors(s):
    out = []
    while s in upstream:
        s = upstream[s]
        out.append(s)
    return out


def linked(a, b):
    return a == b or a in ancestors(b) or b in ancestors(a)


def sys_dc(s):
    return dc_of[host_of[ds_of[s]]] if s in ds_of else None


def two_sys():
    a = pick(S_LIST)
    b = pick(S_LIST, lambda x: not linked(a, x))
    return a, b


def two_people():
    a = pick(P_LIST)
    return a, pick(P_LIST, lambda x: x != a)


def d_incident():
    s = pick(S_LIST)
    p = pick(P_LIST, lambda q: q != owner_of[s])
    return (
        f"INC-{rng.randint(1000, 9999)}: {nm(s)} served stale output for about "
        f"{rng.randint(5, 90)} minutes on {date()}. {nm(p)} wrote the timeline; "
        "root cause still unknown."
    )


def d_postmortem():
    a, b = two_sys()
    return (
        f"Postmortem {date()}: {nm(a)} and {nm(b)} alarmed within the same minute. "
        "Turned out to be NTP drift, nothing to do with either codebase."
    )


def d_audit():
    d = pick(D_LIST)
    p = pick(P_LIST, lambda q: q != owner_of[sys_of_ds[d]])
    return (
        f"Access audit Q{rng.randint(1, 4)}: {nm(p)} still had write access to {nm(d)}. "
        "Revoked, no misuse found."
    )


def d_leave():
    p = pick(P_LIST)
    return (
        f"{nm(p)} is on leave from {date()} for {rng.randint(1, 4)} weeks; handover "
        "doc is in the wiki."
    )


def d_training():
    a, b = two_people()
    return f"{nm(a)} and {nm(b)} finished the incident-commander training on {date()}."


def d_praise():
    s = pick(S_LIST)
    a = pick(P_LIST, lambda q: q != owner_of[s])
    b = pick(P_LIST, lambda q: q not in (a, owner_of[s]))
    return f"Kudos from {nm(a)} to {nm(b)} for rescuing the {nm(s)} release on a Friday night."


def d_budget():
    h = pick(H_LIST)
    return (
        f"Budget: hardware refresh for {nm(h)} slipped to next financial year. "
        f"Estimate {rng.randint(80, 400)} kNOK."
    )


def d_move_rejected():
    d = pick(D_LIST)
    h = pick(H_LIST, lambda x: x != host_of[d])
    return f"Proposal to move {nm(d)} onto {nm(h)} was rejected (licensing and disk layout)."


def d_query_rejected():
    a, b = two_sys()
    return (
        f"Request to let {nm(a)} query {nm(b)} directly was turned down by the architecture board."
    )


def d_opinion():
    s = pick(S_LIST)
    p = pick(P_LIST, lambda q: q != owner_of[s])
    return f"{nm(p)} thinks {nm(s)} should be rewritten from scratch. Not on any roadmap."


def d_minutes():
    t = pick(T_LIST)
    p = pick(P_LIST, lambda q: team_of[q] != t)
    dc = pick(DC_LIST)
    return (
        f"Minutes {date()}: {nm(t)} demoed new dashboards; {nm(p)} asked about the "
        f"running cost of {nm(dc)}."
    )


def d_pentest():
    s = pick(S_LIST)
    return (
        f"Pen test finding PT-{rng.randint(10, 99)}: {nm(s)} exposes its version string "
        "in HTTP headers. Severity low, ticket raised."
    )


def d_conference():
    s = pick(S_LIST)
    p = pick(P_LIST, lambda q: q != owner_of[s])
    return (
        f"{nm(p)} gave a talk at a meteorology conference in {rng.choice(CITIES)} "
        f"and used {nm(s)} as an example."
    )


def d_migration_shelved():
    d = pick(D_LIST)
    dc = pick(DC_LIST, lambda x: x != dc_of[host_of[d]])
    return (
        f"Plan to migrate {nm(d)} into {nm(dc)} was drafted in {rng.randint(2021, 2023)} "
        "and then shelved."
    )


def d_talk_team():
    p = pick(P_LIST)
    t = pick(T_LIST, lambda x: x != team_of[p])
    topic = rng.choice(["observability", "on-call hygiene", "cost tagging", "SLOs"])
    return f"{nm(p)} presented a talk on {topic} to {nm(t)}."


def d_visit():
    p = pick(P_LIST)
    o = pick(O_LIST, lambda x: x != office_of[p])
    return f"{nm(p)} visited {nm(o)} for two days to help with the storm-season drill."


def d_capacity():
    a = pick(H_LIST)
    b = pick(H_LIST, lambda x: x != a)
    return (
        f"Capacity review {date()}: {nm(a)} at {rng.randint(50, 95)}% disk, "
        f"{nm(b)} at {rng.randint(10, 49)}%."
    )


def d_power():
    dc = pick(DC_LIST)
    return (
        f"{nm(dc)} costs up {rng.randint(4, 25)}% year on year; finance wants a breakdown by team."
    )


def d_noisy():
    p = pick(P_LIST)
    c = pick(C_LIST, lambda x: x != chan_of[team_of[p]])
    return f"{nm(c)} was very noisy this week; {nm(p)} suggested muting the bots."


def d_offsite():
    a = pick(T_LIST)
    b = pick(T_LIST, lambda x: x != a)
    o = pick(O_LIST)
    return (
        f"Offsite planning: {nm(a)} and {nm(b)} will share a room at {nm(o)} in "
        f"{rng.choice(MONTHS)}."
    )


def d_retro():
    s = pick(S_LIST)
    return (
        f"Retro on {nm(s)} {rng.randint(2, 9)}.{rng.randint(0, 9)}: too many manual "
        "steps, and the rollback was never tested."
    )


def d_cve():
    s = pick(S_LIST)
    return (
        f"Dependency scan flagged CVE-2024-{rng.randint(10000, 49999)} in {nm(s)}; "
        "patched the same day."
    )


def d_cert():
    s = pick(S_LIST)
    return f"TLS certificate for {nm(s)} expires {date()}; renewal ticket is open."


def d_dr():
    dc = pick(DC_LIST)
    return (
        f"DR exercise {date()}: {nm(dc)} was simulated offline for "
        f"{rng.randint(2, 6)} hours. Results mixed, report pending."
    )


def d_pairing():
    s = pick(S_LIST)
    a = pick(P_LIST, lambda q: q != owner_of[s])
    b = pick(P_LIST, lambda q: q not in (a, owner_of[s]))
    return f"{nm(a)} and {nm(b)} paired on the flaky integration test in {nm(s)}."


def d_availability():
    a, b = two_sys()
    return (
        f"Quarterly numbers: {nm(a)} availability 99.{rng.randint(10, 99)}%, "
        f"{nm(b)} 99.{rng.randint(10, 99)}%."
    )


def d_vendor():
    h = pick(H_LIST)
    p = pick(P_LIST)
    return f"Vendor call about the RAID controller in {nm(h)}; {nm(p)} took notes."


def d_chat_members():
    p = pick(P_LIST)
    c = pick(C_LIST, lambda x: x != chan_of[team_of[p]])
    return f"{nm(p)}: does anyone know why {nm(c)} has {rng.randint(150, 600)} members?"


def d_idea():
    a, b = two_sys()
    return f"Idea board: merge {nm(a)} and {nm(b)} into one service? Parked until next year."


def d_benchmark():
    a = pick(D_LIST)
    b = pick(D_LIST, lambda x: x != a)
    return (
        f"Benchmark: {nm(a)} vs {nm(b)} p95 read latency, {rng.randint(3, 20)} ms vs "
        f"{rng.randint(21, 90)} ms."
    )


def d_mfa():
    h = pick(H_LIST)
    return f"MFA is now enforced for SSH on {nm(h)} (change CHG-{rng.randint(100, 999)})."


def d_hackathon():
    s = pick(S_LIST)
    t = pick(T_LIST, lambda x: x != team_of[owner_of[s]])
    return f"{nm(t)} won the internal hackathon with a plugin for {nm(s)}."


def d_decision():
    s = pick(S_LIST, lambda x: x in ds_of)
    dc = pick(DC_LIST, lambda x: x != sys_dc(s))
    return f"Decision log: {nm(s)} will NOT be moved to {nm(dc)} this year."


def d_phone():
    p = pick(P_LIST)
    return f"{nm(p)} prefers a phone call over chat during severe-weather events."


def d_mentor():
    a, b = two_people()
    return f"{nm(a)} is mentoring {nm(b)} this quarter on incident writing."


def d_workshop():
    t = pick(T_LIST)
    p = pick(P_LIST, lambda q: team_of[q] != t)
    return (
        f"{nm(t)} booked a Terraform workshop for {rng.choice(MONTHS)}; {nm(p)} will "
        "join as a guest."
    )


def d_wontfix():
    s = pick(S_LIST)
    d = pick(D_LIST, lambda x: sys_of_ds[x] != s)
    p = pick(P_LIST, lambda q: q != owner_of[s])
    return (
        f"Ticket OPS-{rng.randint(1000, 9999)} closed as won't-fix: {nm(p)} wanted "
        f"{nm(s)} to get read access to {nm(d)}."
    )


def d_storm():
    a, b = two_sys()
    return f"Storm {rng.choice(STORMS)}: {nm(a)} and {nm(b)} both hit peak load; nobody got paged."


def d_swap():
    a, b = two_people()
    return f"{nm(a)} swapped on-call weeks with {nm(b)} in {rng.choice(MONTHS)}."


def d_decom():
    h = pick(H_LIST)
    return f"Proposal to decommission {nm(h)} early was rejected; too much still uses it."


def d_dc_trip():
    p = pick(P_LIST)
    dc = pick(DC_LIST)
    return f"{nm(p)} went to {nm(dc)} on {date()} to badge in a new contractor."


def d_archive_channel():
    a = pick(C_LIST)
    b = pick(C_LIST, lambda x: x != a)
    return f"Proposal to archive {nm(a)} and fold it into {nm(b)} was voted down."


def d_survey():
    t = pick(T_LIST)
    return (
        f"Engineering survey {rng.randint(2022, 2024)}: {nm(t)} scored highest on "
        "on-call satisfaction."
    )


def d_standup():
    p = pick(P_LIST)
    why = rng.choice(["dentist", "school run", "train delays", "a vendor call"])
    return f"{nm(p)}: I'll be late to standup today, {why}."


def d_review():
    s = pick(S_LIST)
    p = pick(P_LIST, lambda q: q != owner_of[s])
    return f"Architecture review of {nm(s)} postponed twice; {nm(p)} is chasing it."


def d_opinion_two():
    a, b = two_sys()
    p = pick(P_LIST, lambda q: q not in (owner_of[a], owner_of[b]))
    return f"Opinion from {nm(p)}: {nm(a)} has far better docs than {nm(b)}."


def d_firmware():
    a = pick(H_LIST)
    b = pick(H_LIST, lambda x: x != a)
    return f"Firmware update on {nm(a)} and {nm(b)} postponed again, waiting on the vendor."


DISTRACTORS = [
    d_incident,
    d_postmortem,
    d_audit,
    d_leave,
    d_training,
    d_praise,
    d_budget,
    d_move_rejected,
    d_query_rejected,
    d_opinion,
    d_minutes,
    d_pentest,
    d_conference,
    d_migration_shelved,
    d_talk_team,
    d_visit,
    d_capacity,
    d_power,
    d_noisy,
    d_offsite,
    d_retro,
    d_cve,
    d_cert,
    d_dr,
    d_pairing,
    d_availability,
    d_vendor,
    d_chat_members,
    d_idea,
    d_benchmark,
    d_mfa,
    d_hackathon,
    d_decision,
    d_phone,
    d_mentor,
    d_workshop,
    d_wontfix,
    d_storm,
    d_swap,
    d_decom,
    d_dc_trip,
    d_archive_channel,
    d_survey,
    d_standup,
    d_review,
    d_opinion_two,
    d_firmware,
]


def build_distractors():
    seen = [f["content"] for f in FACTS]
    made = 0
    while made < N_DISTRACTORS:
        order = DISTRACTORS[:]
        rng.shuffle(order)
        for fn in order:
            if made >= N_DISTRACTORS:
                break
            text = fn()
            if text in seen:
                continue
            seen.append(text)
            FACTS.append({"kind": "distractor", "content": text, "fn": fn.__name__})
            made += 1


build_distractors()

# ids: random, unique
_nums = rng.sample(range(10000), len(FACTS))
for _f, _num in zip(FACTS, _nums):
    _f["id"] = f"{ID_PREFIX}{_num:04d}"

# --------------------------------------------------------------------------------------
# Question chains
# --------------------------------------------------------------------------------------

REL_FACT = {}  # (rel, subj) -> fact
REV_FACT = {}  # (rel, obj) -> fact, for reversible relations
for _f in FACTS:
    if _f["kind"] == "rel":
        assert (_f["rel"], _f["subj"]) not in REL_FACT, "duplicate relation note"
        REL_FACT[(_f["rel"], _f["subj"])] = _f
        if _f["rel"] in ("ds", "chan", "lead"):
            assert (_f["rel"], _f["obj"]) not in REV_FACT, "reverse relation not unique"
            REV_FACT[(_f["rel"], _f["obj"])] = _f

FWD_HOPS = {
    "own": "own",
    "up": "up",
    "ds": "ds",
    "host": "host",
    "dc": "dc",
    "lead": "lead",
    "chan": "chan",
    "office": "office",
}
REV_HOPS = {"ds_r": "ds", "chan_r": "chan", "lead_r": "lead"}
START_TYPE = {
    "own": "system",
    "up": "system",
    "ds": "system",
    "host": "datastore",
    "dc": "host",
    "team": "person",
    "office": "person",
    "lead_r": "person",
    "lead": "team",
    "chan": "team",
    "ds_r": "datastore",
    "chan_r": "channel",
}


def step(cur, hop):
    """(fact, next entity, form of cur in fact, form of next in fact) or None."""
    if hop in FWD_HOPS:
        f = REL_FACT.get((FWD_HOPS[hop], cur))
        return (f, f["obj"], f["sf"], f["of"]) if f else None
    if hop == "team":
        f = REL_FACT.get(("member", cur))
        if f:
            return (f, f["obj"], f["sf"], f["of"])
        f = REV_FACT.get(("lead", cur))
        return (f, f["subj"], f["of"], f["sf"]) if f else None
    f = REV_FACT.get((REV_HOPS[hop], cur))
    return (f, f["subj"], f["of"], f["sf"]) if f else None


def walk(start, hops):
    cur, seen, facts, forms = start, [start], [], []
    prev_to = None
    for hop in hops:
        st = step(cur, hop)
        if st is None:
            return None
        f, nxt, ff, tf = st
        if prev_to is not None and not (prev_to == ff or "b" in (prev_to, ff)):
            return None
        if nxt in seen or f in facts:
            return None
        facts.append(f)
        forms.append(ff)
        seen.append(nxt)
        prev_to = tf
        cur = nxt
    return facts, forms[0], cur


QTPL = {
    "own": [
        "Who owns {X}?",
        "Who is responsible for {X}?",
        "{X} owner?",
        "If {X} breaks, who should I page?",
        "Name the person who maintains {X}.",
        "Which engineer looks after {X}?",
        "Whose system is {X}?",
    ],
    "up": [
        "What does {X} depend on upstream?",
        "Which system feeds {X}?",
        "{X} upstream?",
        "Find the upstream service of {X}.",
        "What can't {X} start without?",
    ],
    "ds": [
        "Where does the data of {X} live?",
        "Which datastore does {X} use?",
        "{X}: which database?",
        "Name the store behind {X}.",
        "What does {X} persist its state to?",
    ],
    "host": [
        "Which host runs {X}?",
        "On what server is {X} hosted?",
        "{X} host?",
        "Find the machine that {X} lives on.",
        "Where is {X} running - which box?",
    ],
    "dc": [
        "Which data centre is {X} in?",
        "Where is {X} physically located?",
        "{X} site or region?",
        "Name the data centre or cloud region hosting {X}.",
    ],
    "team": [
        "Which team is {X} on?",
        "What team does {X} belong to?",
        "{X}'s team?",
        "Find the team {X} works in.",
        "{X} is in which group?",
    ],
    "lead": [
        "Who leads {X}?",
        "Who is the lead of {X}?",
        "{X} team lead?",
        "Name the person heading {X}.",
    ],
    "chan": [
        "Where does {X} chat?",
        "Which channel or list reaches {X}?",
        "How do I contact {X} - which channel?",
        "{X} channel?",
    ],
    "office": [
        "Where does {X} work from?",
        "Which office is {X} based at?",
        "{X} location?",
        "Find {X}'s office.",
        "At which site does {X} sit?",
    ],
    "ds_r": [
        "Which system uses the datastore {X}?",
        "{X} belongs to which system?",
        "Which system's data is kept in {X}?",
    ],
    "chan_r": [
        "Which team uses {X}?",
        "{X} is the channel of which team?",
        "Who talks in {X} - which team?",
    ],
    "own>team": [
        "Which team is {X}'s owner on?",
        "What team does the owner of {X} belong to?",
        "{X} owner's team?",
        "Find the team of the person who owns {X}.",
        "The person responsible for {X} - which team are they in?",
    ],
    "own>office": [
        "Where does the owner of {X} work from?",
        "{X}'s owner sits at which office?",
        "Find the office of whoever maintains {X}.",
        "{X} owner location?",
    ],
    "up>own": [
        "Who owns the system that {X} depends on?",
        "{X} upstream owner?",
        "{X} depends on something. Who looks after it?",
        "Name the owner of {X}'s upstream system.",
        "If whatever feeds {X} breaks, whom do I page?",
    ],
    "up>ds": [
        "Where does the data of {X}'s upstream system live?",
        "Which datastore does the system feeding {X} use?",
        "{X} upstream datastore?",
    ],
    "ds>host": [
        "Which host runs the datastore of {X}?",
        "On what machine does {X}'s data live?",
        "{X} db host?",
        "{X} keeps its data somewhere. Which server runs that store?",
    ],
    "host>dc": [
        "Which data centre holds the host of {X}?",
        "{X} runs on a server. Where is that server located?",
        "{X} host site?",
        "Name the region or data centre of the machine hosting {X}.",
    ],
    "team>lead": [
        "Who leads {X}'s team?",
        "Who is the lead of the team {X} belongs to?",
        "Who is {X}'s team lead?",
        "Find the lead of the team that {X} is on.",
        "{X} works in a team. Who heads it?",
    ],
    "team>chan": [
        "Which channel does {X}'s team use?",
        "Where can I reach {X}'s team?",
        "{X} team channel?",
        "Find the chat channel or mailing list of the team {X} is on.",
    ],
    "chan_r>lead": [
        "Who leads the team that uses {X}?",
        "{X} belongs to a team. Who is its lead?",
        "Whose team hangs out in {X}? Name the lead.",
    ],
    "lead_r>chan": [
        "What channel does the team led by {X} use?",
        "{X} heads a team; where does that team chat?",
        "Which list or channel belongs to the team {X} leads?",
    ],
    "ds_r>own": [
        "Who owns the system whose data lives in {X}?",
        "{X} is used by some system. Who maintains it?",
        "Which person is responsible for the system backed by {X}?",
        "{X} system owner?",
    ],
    "up>up": [
        "What is upstream of {X}'s upstream?",
        "Which system feeds the system that feeds {X}?",
        "{X} depends on something; what does that depend on?",
        "Two hops upstream of {X}: which system?",
    ],
    "lead>office": [
        "Where does the lead of {X} work from?",
        "{X} lead's office?",
        "At which site is {X}'s team lead based?",
        "Find where the person heading {X} sits.",
    ],
    "ds>host>dc": [
        "In which data centre does the data of {X} live?",
        "{X} data: which site or region, physically?",
        "Find the data centre of the host that runs {X}'s datastore.",
        "Where, physically, is {X}'s database server?",
        "{X} keeps data in a store on some host. Which data centre is that host in?",
    ],
    "own>team>chan": [
        "Which channel does the team of {X}'s owner use?",
        "How do I reach the team of the person who owns {X}?",
        "{X} owner team channel?",
        "The owner of {X} is on some team. Where does that team chat?",
    ],
    "own>team>lead": [
        "Who leads the team of {X}'s owner?",
        "Who is the team lead of whoever owns {X}?",
        "{X} owner's team lead?",
        "Name the lead of the team that {X}'s maintainer belongs to.",
    ],
    "up>own>office": [
        "Where does the owner of {X}'s upstream system work?",
        "{X} depends on a system; where is its owner based?",
        "{X} upstream owner office?",
    ],
    "up>own>team": [
        "Which team is the owner of {X}'s upstream system on?",
        "{X} upstream owner's team?",
        "The system feeding {X} has an owner. Which team are they in?",
    ],
    "up>ds>host": [
        "Which host runs the datastore of the system that {X} depends on?",
        "{X} upstream db host?",
        "Find the server holding the data of {X}'s upstream.",
    ],
    "up>up>own": [
        "Who owns the system two hops upstream of {X}?",
        "{X} is fed by a system that is itself fed by another. Who owns that one?",
        "Name the owner of the upstream of {X}'s upstream.",
    ],
    "ds_r>own>team": [
        "Which team is the owner of the system using {X} on?",
        "{X} is some system's datastore; which team does that system's owner belong to?",
        "{X} system owner team?",
    ],
    "ds_r>own>office": [
        "Where does the owner of the system backed by {X} work?",
        "{X} -> system -> owner -> office?",
        "Find the office of whoever owns the system that stores its data in {X}.",
    ],
    "ds_r>up>own": [
        "Who owns the upstream of the system that uses {X}?",
        "{X} backs a system; that system depends on another. Who owns that other one?",
    ],
    "chan_r>lead>office": [
        "Where is the lead of the team using {X} based?",
        "{X} team lead office?",
        "Find the site where the head of the team behind {X} works.",
    ],
    "team>lead>office": [
        "Where does {X}'s team lead work from?",
        "Which office is the lead of {X}'s team based at?",
        "{X} boss location?",
        "{X} is on a team; where does its lead sit?",
    ],
}

PLAN = [
    ("own", 7),
    ("up", 5),
    ("ds", 5),
    ("host", 5),
    ("dc", 4),
    ("team", 5),
    ("lead", 4),
    ("chan", 4),
    ("office", 5),
    ("ds_r", 3),
    ("chan_r", 3),
    ("own>team", 6),
    ("own>office", 5),
    ("up>own", 6),
    ("up>ds", 5),
    ("ds>host", 6),
    ("host>dc", 5),
    ("chan_r>lead", 2),
    ("lead_r>chan", 2),
    ("team>lead", 5),
    ("team>chan", 5),
    ("ds_r>own", 5),
    ("up>up", 4),
    ("lead>office", 4),
    ("ds>host>dc", 6),
    ("own>team>chan", 5),
    ("own>team>lead", 5),
    ("up>own>office", 4),
    ("up>own>team", 4),
    ("up>ds>host", 4),
    ("up>up>own", 4),
    ("ds_r>own>team", 4),
    ("ds_r>own>office", 3),
    ("ds_r>up>own", 3),
    ("chan_r>lead>office", 4),
    ("team>lead>office", 4),
]

QUESTIONS = []


def build_questions():
    used_tpl = {}
    texts = []
    used_gold = []
    for key, n in PLAN:
        hops = key.split(">")
        starts = of_type(START_TYPE[hops[0]])
        cands = []
        for s in starts:
            w = walk(s, hops)
            if w:
                cands.append((s, w))
        assert len(cands) >= n, f"not enough chains for {key}: {len(cands)} < {n}"
        rng.shuffle(cands)
        cands = [c for c in cands if " ".join(sorted(f["id"] for f in c[1][0])) not in used_gold]
        assert len(cands) >= n, f"not enough unused chains for {key}"
        for start, (facts, form0, answer) in cands[:n]:
            used_gold.append(" ".join(sorted(f["id"] for f in facts)))
            if form0 == "b":
                form0 = rng.choice(["p", "a"])
            surf = render_name(start, form0)
            tpls = QTPL[key]
            low = min(used_tpl.get(t, 0) for t in tpls)
            choices = [t for t in tpls if used_tpl.get(t, 0) == low]
            tpl = rng.choice(choices)
            used_tpl[tpl] = used_tpl.get(tpl, 0) + 1
            text = tpl.replace("{X}", surf)
            assert text not in texts, text
            texts.append(text)
            QUESTIONS.append(
                {
                    "question": text,
                    "hops": len(hops),
                    "gold": [f["id"] for f in facts],
                    "_key": key,
                    "_start": start,
                    "_surf": surf,
                    "_answer": answer,
                }
            )


build_questions()

# --------------------------------------------------------------------------------------
# Checks
# --------------------------------------------------------------------------------------

ACCEPT = {
    "own": [("own", "f")],
    "up": [("up", "f")],
    "ds": [("ds", "f")],
    "host": [("host", "f")],
    "dc": [("dc", "f")],
    "team": [("member", "f"), ("lead", "r")],
    "lead": [("lead", "f")],
    "chan": [("chan", "f")],
    "office": [("office", "f")],
    "ds_r": [("ds", "r")],
    "chan_r": [("chan", "r")],
    "lead_r": [("lead", "r")],
}


def check_all():
    ids = [f["id"] for f in FACTS]
    assert len(ids) == len(set(ids)), "duplicate ids"
    assert all(re.fullmatch(r"[a-z]{2}\d{4}", i) for i in ids)
    texts = [f["content"] for f in FACTS]
    assert len(texts) == len(set(texts)), "duplicate fact text"
    assert 350 <= len(FACTS) <= 500, len(FACTS)
    n_dis = sum(1 for f in FACTS if f["kind"] == "distractor")
    assert 0.28 <= n_dis / len(FACTS) <= 0.40, n_dis / len(FACTS)

    # entity counts and second names
    n_alias = sum(1 for e in ENT.values() if e["alias"])
    assert 50 <= n_alias <= 90, n_alias
    assert 35 <= len(P_LIST) <= 45 and 25 <= len(D_LIST) <= 30 and 12 <= len(H_LIST) <= 15

    # no surface form is a substring of another (case-insensitive)
    surfs = [s for s, _e in SURFACES]
    for i, a in enumerate(surfs):
        for j, b in enumerate(surfs):
            if i != j:
                assert a.lower() not in b.lower(), f"substring clash: {a!r} in {b!r}"

    # every second name right next to its primary in at least one note
    for name, e in ENT.items():
        a = e["alias"]
        if not a:
            continue
        forms = [
            f"{name} ({a})",
            f"{a} ({name})",
            f"{name} aka {a}",
            f"{a} aka {name}",
            f"{name} / {a}",
            f"{a} / {name}",
            f"{a} = {name}",
            f"{name} = {a}",
        ]
        assert any(fm in t for t in texts for fm in forms), f"alias not introduced: {a}"

    # relation notes: forms occur, no third entity, one per (rel, subj)
    keys = []
    phr = {}
    for f in FACTS:
        if f["kind"] != "rel":
            continue
        keys.append((f["rel"], f["subj"]))
        phr.setdefault(f["rel"], [])
        if f["tpl"] not in phr[f["rel"]]:
            phr[f["rel"]].append(f["tpl"])
        for ent, form in ((f["subj"], f["sf"]), (f["obj"], f["of"])):
            need = [ent, alias(ent)] if form == "b" else [ent if form == "p" else alias(ent)]
            for s in need:
                assert has_surface(f["content"], s), (s, f["content"])
        m = mentions(f["content"])
        assert sorted(m) == sorted([f["subj"], f["obj"]]), (m, f["content"])
    assert len(keys) == len(set(keys))
    for rel, _st, _ot, mapping in RELATIONS:
        assert len(phr[rel]) >= 8, (rel, len(phr[rel]))
        assert sum(1 for k in keys if k[0] == rel) == len(mapping)
    assert len(RELATIONS) >= 9

    # persons: exactly one team note (member or lead) and one office note
    for p in P_LIST:
        n_team = sum(
            1
            for f in FACTS
            if f["kind"] == "rel"
            and (
                (f["rel"] == "member" and f["subj"] == p) or (f["rel"] == "lead" and f["obj"] == p)
            )
        )
        assert n_team == 1, p
        assert sum(1 for k in keys if k == ("office", p)) == 1, p
    # reversed relations unique
    for rel in ("ds", "chan", "lead"):
        objs = [f["obj"] for f in FACTS if f["kind"] == "rel" and f["rel"] == rel]
        assert len(objs) == len(set(objs)), rel

    # distractors never name a relation pair they could be mistaken for (spot checks)
    for f in FACTS:
        if f["kind"] == "distractor":
            assert "\n" not in f["content"]

    # questions
    by_id = {f["id"]: f for f in FACTS}
    cnt = {}
    for h in (1, 2, 3):
        cnt[h] = sum(1 for q in QUESTIONS if q["hops"] == h)
    assert cnt == {1: 50, 2: 60, 3: 50}, cnt
    qtexts = [q["question"] for q in QUESTIONS]
    assert len(qtexts) == len(set(qtexts))
    golds = [" ".join(sorted(q["gold"])) for q in QUESTIONS]
    assert len(golds) == len(set(golds)), "two questions share a gold chain"
    wording = {}
    for q in QUESTIONS:
        hops = q["_key"].split(">")
        assert q["hops"] == len(q["gold"]) == len(hops)
        cur = q["_start"]
        prev_form = None
        for k, (hop, fid) in enumerate(zip(hops, q["gold"])):
            f = by_id[fid]
            assert f["kind"] == "rel"
            ok = False
            for rel, d in ACCEPT[hop]:
                if f["rel"] == rel and d == "f" and f["subj"] == cur:
                    ok, nxt, ff, tf = True, f["obj"], f["sf"], f["of"]
                elif f["rel"] == rel and d == "r" and f["obj"] == cur:
                    ok, nxt, ff, tf = True, f["subj"], f["of"], f["sf"]
            assert ok, (q["question"], hop)
            if k == 0:
                # the question names the start in a form used by the first gold fact
                sform = "p" if q["_surf"] == cur else "a"
                assert q["_surf"] == (cur if sform == "p" else alias(cur))
                assert ff == sform or ff == "b", q["question"]
            else:
                assert ff == prev_form or "b" in (ff, prev_form), q["question"]
            prev_form = tf
            cur = nxt
        assert cur == q["_answer"]
        assert len(set(q["gold"])) == len(q["gold"])
        m = mentions(q["question"])
        assert m == [q["_start"]], (m, q["question"])
        assert has_surface(q["question"], q["_surf"])
        w = q["question"].replace(q["_surf"], "{X}", 1)
        assert "{X}" in w
        wording[w.lower()] = wording.get(w.lower(), 0) + 1
    assert max(wording.values()) <= 4, max(wording.values())
    assert len(wording) >= 70, len(wording)
    return wording, phr


WORDING, PHRASINGS = check_all()

# --------------------------------------------------------------------------------------
# Write
# --------------------------------------------------------------------------------------

rng.shuffle(FACTS)
world = {
    "facts": [{"id": f["id"], "content": f["content"]} for f in FACTS],
    "questions": [
        {"question": q["question"], "hops": q["hops"], "gold": q["gold"]} for q in QUESTIONS
    ],
}
data = json.dumps(world, indent=1, ensure_ascii=True).encode("ascii") + b"\n"
with open(OUT, "wb") as fh:
    fh.write(data)

print("domain: technology group of the Nordvest Meteorological Institute (weather service)")
print(f"facts: {len(FACTS)}")
for _rel, _st, _ot, _m in RELATIONS:
    print(f"  {_rel:7s} {_st:>9s} -> {_ot:9s} notes={len(_m):3d} phrasings={len(PHRASINGS[_rel])}")
print(f"  relation notes: {sum(1 for f in FACTS if f['kind'] == 'rel')}")
print(f"  glossary notes: {sum(1 for f in FACTS if f['kind'] == 'glossary')}")
print(f"  distractor notes: {sum(1 for f in FACTS if f['kind'] == 'distractor')}")
print(
    "entities: "
    + ", ".join(
        f"{t}={len(of_type(t))}"
        for t in ["person", "team", "channel", "office", "dc", "host", "system", "datastore"]
    )
)
print(f"entities with a second name: {sum(1 for e in ENT.values() if e['alias'])}")
print(
    "questions: "
    + ", ".join(f"{h}-hop={sum(1 for q in QUESTIONS if q['hops'] == h)}" for h in (1, 2, 3))
)
print(f"distinct question templates: {len(WORDING)} (max uses {max(WORDING.values())})")
print(f"md5(world.json): {hashlib.md5(data).hexdigest()}")
