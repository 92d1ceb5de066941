#!/usr/bin/env python3
"""Build world.json for the "eighth" held-out memory-retrieval world.

The world is the memory of a personal assistant agent that has worked for a
year for one engineering manager at Fernhill Freight, a mid-sized cold-chain
logistics company (refrigerated trucking, cross-dock warehouses, carrier
integrations).  Facts are meeting notes, 1:1 notes, reminders, email
summaries, half-sentences and copied config fragments.

Standard library only.  Deterministic: fixed seed, no iteration over sets,
so two runs write byte-identical output.  Every generation runs the
self-checks at the bottom (plain asserts).

Usage:  python3 make_world.py      (writes world.json next to this file)
"""

import hashlib
import json
import os
import random
import re

SEED = 88_2024
rng = random.Random(SEED)
HERE = os.path.dirname(os.path.abspath(__file__))

# ---------------------------------------------------------------------------
# Entities
# ---------------------------------------------------------------------------
# type codes: S service/tool, P person, T team, C channel/list, D data store,
#             R region/cluster, Y office city
ENT = {}
ORDER = {}


def add(etype, eid, aliases, bare=None, w0=None):
    assert eid not in ENT, eid
    ENT[eid] = {
        "type": etype,
        "aliases": list(aliases),
        "bare": list(bare or aliases[:1]),
        "w0": w0,
    }
    ORDER.setdefault(etype, []).append(eid)


# -- services / products / internal tools (40) ------------------------------
SERVICES = [
    # kebab-case
    ["route-optimizer"],
    ["dock-scheduler"],
    ["reefer-telemetry"],
    ["manifest-builder"],
    ["eta-predictor"],
    ["carrier-gateway"],
    ["label-printer"],
    ["yard-map"],
    ["pod-uploader"],
    ["quote-engine"],
    ["slot-booker"],
    # snake_case
    ["pallet_tracker"],
    ["temp_alerts"],
    ["invoice_sync"],
    ["driver_roster"],
    ["geofence_worker"],
    ["fuel_card_import"],
    ["customs_docs"],
    # CamelCase
    ["ColdWatch"],
    ["DockPilot"],
    ["CargoLens"],
    ["LoadPlanner"],
    ["TruckBook"],
    ["ShipNotify"],
    ["FleetPulse"],
    ["RampView"],
    # multi-word
    ["Customer Portal", "the Customer Portal"],
    ["Driver App", "the Driver App"],
    ["Claims Desk"],
    ["Partner Hub"],
    ["Ops Dashboard", "the Ops Dashboard"],
    ["Rate Explorer"],
    # acronyms
    ["TMS", "the TMS"],
    ["WMS", "the WMS"],
    ["OTIF"],
    ["ELD"],
    # "the X"
    ["the Dispatcher", "Dispatcher"],
    ["the Beacon", "Beacon"],
    ["the Weighbridge", "Weighbridge"],
    ["the Switchboard", "Switchboard"],
]
for al in SERVICES:
    add("S", "svc:" + al[0].replace("the ", "").replace(" ", "_"), al, w0=0.75)

# -- people (36): first, last, handle, nickname ------------------------------
PEOPLE = [
    ("Amara", "Okafor", "@aokafor", None),
    ("Bogdan", "Ilic", "@bogdan.i", "Bogi"),
    ("Chiara", "Benedetti", "@chiarab", None),
    ("Dmitri", "Volkov", "@dvolkov", "Dima"),
    ("Esther", "Mwangi", "@emwangi", None),
    ("Farhan", "Qureshi", "@farhanq", None),
    ("Greta", "Lindqvist", "@glindqvist", None),
    ("Hiroshi", "Tanaka", "@hiro-t", "Hiro"),
    ("Ingrid", "Solberg", "@isolberg", None),
    ("Javier", "Ortega", "@jortega", "Javi"),
    ("Keziah", "Boateng", "@kez", "Kez"),
    ("Lucian", "Marsh", "@lmarsh", None),
    ("Mireille", "Dubois", "@mireille", None),
    ("Nikhil", "Sharma", "@nsharma", "Nik"),
    ("Oluwaseun", "Adeyemi", "@seun_a", "Seun"),
    ("Pilar", "Castillo", "@pcastillo", None),
    ("Quentin", "Roux", "@qroux", None),
    ("Rashida", "Bello", "@rbello", None),
    ("Soren", "Kjaer", "@skjaer", None),
    ("Tamsin", "Pryce", "@tamsinp", None),
    ("Ulrich", "Brandt", "@ubrandt", None),
    ("Valentina", "Greco", "@vgreco", None),
    ("Wendell", "Osei", "@wosei", None),
    ("Ximena", "Paredes", "@xparedes", None),
    ("Yusuf", "Demir", "@ydemir", None),
    ("Zofia", "Nowak", "@znowak", None),
    ("Anselm", "Richter", "@arichter", None),
    ("Beatriz", "Lobo", "@blobo", "Bea"),
    ("Cormac", "Doyle", "@cdoyle", None),
    ("Delphine", "Arnaud", "@darnaud", None),
    ("Emeka", "Nwosu", "@enwosu", None),
    ("Fenna", "de Vries", "@fenna.dv", None),
    ("Gideon", "Achterberg", "@gideon_a", None),
    ("Halvard", "Berg", "@hberg", None),
    ("Imogen", "Thwaite", "@ithwaite", None),
    ("Jovana", "Petrovic", "@jpetrovic", None),
]
for first, last, handle, nick in PEOPLE:
    al = [first + " " + last, first, handle] + ([nick] if nick else [])
    add("P", "per:" + first.lower(), al, bare=[first] + ([nick] if nick else []))

# -- teams (8) ---------------------------------------------------------------
for name in ["Kestrel", "Osprey", "Heron", "Lynx", "Marten", "Puffin", "Wren", "Bison"]:
    add(
        "T",
        "team:" + name.lower(),
        [name, "team " + name, "the " + name + " team", name + " squad"],
        bare=[name],
    )

# -- channels / mailing lists (8) -------------------------------------------
for ch in ["fleet-eng", "dockside", "cold-chain-dev", "yard-talk", "data-plumbing", "mobile-crew"]:
    add("C", "chan:" + ch, ["#" + ch, ch], w0=0.8)
for ml in ["platform-dev", "billing-eng"]:
    add("C", "chan:" + ml, [ml + "@example.com", "the " + ml + " list", ml], w0=0.5)

# -- data stores (16) --------------------------------------------------------
STORES = [
    ["shipments-db", "the shipments-db Postgres"],
    ["telemetry_ts", "the telemetry_ts Timescale instance"],
    ["reefer-events", "the reefer-events queue"],
    ["dispatch-queue", "the dispatch-queue RabbitMQ"],
    ["fh-pod-images", "the fh-pod-images bucket"],
    ["the Rate Card sheet", "the Rate Card spreadsheet", "Rate Card"],
    ["Snowdrift", "the Snowdrift warehouse"],
    ["carrier_cache", "the carrier_cache Redis"],
    ["claims-archive", "the claims-archive bucket"],
    ["yard_mysql"],
    ["ledger-pg"],
    ["maptiles-bucket"],
    ["the Lane Pricing workbook", "Lane Pricing"],
    ["ops_mart", "the ops_mart dataset"],
    ["notif-outbox", "the notif-outbox queue"],
    ["es-freight", "the es-freight index"],
]
for al in STORES:
    add("D", "store:" + al[-1 if al[0].startswith("the ") else 0].replace(" ", "_"), al, w0=0.65)

# -- regions / clusters / hosting locations (6) -----------------------------
for al in [
    ["eu-west-1"],
    ["us-east-2"],
    ["ap-south-1"],
    ["prod-blue", "the prod-blue cluster"],
    ["kube-north", "the kube-north cluster"],
    ["colo-7", "the colo-7 cage"],
]:
    add("R", "reg:" + al[0], al, w0=0.7)

# -- office cities (8) -------------------------------------------------------
for city in ["Lisbon", "Toronto", "Pune", "Nairobi", "Kraków", "Austin", "Melbourne", "Glasgow"]:
    bare = [city] + (["Krakow"] if city == "Kraków" else [])
    add("Y", "city:" + city.lower(), bare + ["the " + city + " office"], bare=bare, w0=None)


def alias(eid):
    """Pick a surface form for an entity."""
    e = ENT[eid]
    al = e["aliases"]
    t = e["type"]
    if t == "P":
        r = rng.random()
        if r < 0.45:
            return al[0]
        if r < 0.75:
            return al[1]
        if r < 0.90 or len(al) < 4:
            return al[2]
        return al[3]
    if t == "T":
        return rng.choice(al)
    if t == "Y":
        return rng.choice(e["bare"]) if rng.random() < 0.75 else al[-1]
    if len(al) == 1 or rng.random() < e["w0"]:
        return al[0]
    return rng.choice(al[1:])


def bare(eid):
    return rng.choice(ENT[eid]["bare"])


# alias regexes: an alias counts as mentioned only when it is not glued to
# further word characters or hyphens on either side.
ALIAS_RE = []
for _eid, _e in ENT.items():
    for _a in _e["aliases"]:
        ALIAS_RE.append((re.compile(r"(?<![\w-])" + re.escape(_a) + r"(?![\w-])", re.I), _eid))


def mentions(text):
    found = []
    for rx, eid in ALIAS_RE:
        if eid not in found and rx.search(text):
            found.append(eid)
    return sorted(found)


# ---------------------------------------------------------------------------
# Ground-truth structure
# ---------------------------------------------------------------------------
S_, P_, T_, C_, D_, R_, Y_ = (ORDER[k] for k in "SPTCDRY")

team_of, members = {}, {t: [] for t in T_}
pp = P_[:]
rng.shuffle(pp)
for i, p in enumerate(pp):
    t = T_[i % len(T_)]
    team_of[p] = t
    members[t].append(p)
lead_of = {t: members[t][0] for t in T_}
leader_team = {lead_of[t]: t for t in T_}

city_of = {}
pp = P_[:]
rng.shuffle(pp)
for i, p in enumerate(pp):
    city_of[p] = Y_[i % len(Y_)] if i < 2 * len(Y_) else rng.choice(Y_)

chan_of_team = {}
cc = C_[:]
rng.shuffle(cc)
for t, c in zip(T_, cc):
    chan_of_team[t] = c

owner_of = {}
so = S_[:]
rng.shuffle(so)
pool = P_[:]
rng.shuffle(pool)
pool = pool[:30]
for i, s in enumerate(so):
    owner_of[s] = pool[i] if i < len(pool) else rng.choice(pool)

dep_of = {}
so = S_[:]
rng.shuffle(so)
for i, s in enumerate(so):
    if i >= 6 and rng.random() < 0.85:
        dep_of[s] = rng.choice(so[:i])  # DAG: only earlier services

store_of = {}
so = S_[:]
rng.shuffle(so)
dd = D_[:]
rng.shuffle(dd)
for i, s in enumerate(so[:34]):
    store_of[s] = dd[i] if i < len(dd) else rng.choice(D_)

region_of = {}
dd = D_[:]
rng.shuffle(dd)
for i, d in enumerate(dd):
    region_of[d] = R_[i] if i < len(R_) else rng.choice(R_)

# ---------------------------------------------------------------------------
# Relation phrasings (each edge = one fact)
# ---------------------------------------------------------------------------
REL = {
    # service -> service it depends on   ({s} depends on {s2})
    "depends": (
        "s",
        "s2",
        [
            "{s} depends on {s2}.",
            "{s} -> {s2} (hard dep)",
            "if {s2} goes down, {s} goes down with it",
            "{s2} is upstream of {s}.",
            "deps for {s}: {s2}",
            "Learned in the architecture review that {s} can't even start unless {s2} is reachable.",
            "{s2} is what {s} relies on under the hood",
            "service: {s}\ndepends_on:\n  - {s2}",
            "Reminder: any breaking change to {s2} will hit {s}, which calls it directly.",
            "{s} sits on top of {s2}.",
            "so {s} is basically a thin wrapper around {s2}? yes, confirmed",
            "{s2} is a dependency of {s}, per the on-call handbook",
            "Long design-doc summary: after three rounds of back and forth about retries, timeouts and whether to cache anything at all, the conclusion is that {s} keeps calling {s2} synchronously.",
            "{s} consumes {s2}",
        ],
    ),
    # service -> owner
    "owner": (
        "s",
        "p",
        [
            "{p} owns {s}.",
            "{s} is owned by {p}.",
            "if {s} breaks, ping {p}",
            "{p} is the go-to for {s}",
            "questions about {s} go to {p}",
            "service: {s}\nowner: {p}",
            "{s} -> {p} (owner)",
            "1:1 note: {p} reminded me {s} is fully theirs now",
            "{p} has been running {s} since last spring",
            "Per the service catalog cleanup, the accountable owner listed for {s} is {p}.",
            "{s}: {p}'s baby",
            "pages for {s} land with {p}, who owns it",
            "agreed that {p} stays the owner of {s} after the reshuffle",
            "who's on the hook for {s}? {p}",
            "Email summary: {p} confirmed they will keep owning {s} going forward, no handover planned.",
        ],
    ),
    # service -> data store
    "uses": (
        "s",
        "d",
        [
            "{s} stores its data in {d}.",
            "{s} writes to {d}",
            "{d} is the backing store for {s}.",
            "{s} -> {d} (storage)",
            "app: {s}\n  datastore: {d}",
            "everything {s} persists ends up in {d}",
            "{d} is used by {s}",
            "if {d} is slow, {s} is slow, it reads from it on every request",
            "note to self: {s} keeps its state in {d}, remember for the migration plan",
            "During the capacity review we went system by system, and the one hammering {d} all day turned out to be {s}.",
            "{s} reads from {d}.",
            "{s} = {d} underneath",
            "the data behind {s} lives in {d}",
        ],
    ),
    # person -> team
    "member": (
        "p",
        "t",
        [
            "{p} is on {t}.",
            "{p} joined {t}",
            "{p} works in {t}.",
            "{p} — {t}",
            "name: {p} | team: {t}",
            "{p} sits with {t}",
            "{t} includes {p}",
            "{p} moved over to {t} for good",
            "heads-up: {p} is part of {t} now, so route their PTO requests accordingly",
            "Org chart, updated after the spring reorg, has {p} in {t}.",
            "{p} is a {tb} engineer",
            "one of {tb}'s people: {p}",
            "Email from HR, summarised: {p} is officially a member of {t} as of the first of the month.",
        ],
    ),
    # person -> office city
    "based": (
        "p",
        "y",
        [
            "{p} is based in {y}.",
            "{p} works from the {yb} office.",
            "{p} (based in {yb})",
            "{p} -> {yb}",
            "name: {p}; location: {yb}",
            "{yb} is home base for {p}",
            "{p} is in {yb}, so schedule calls accordingly",
            "remember {p} sits in {y}",
            "{p} badges into the {yb} office most days",
            "The seating chart facilities sent over puts {p} at a desk in {y}.",
            "{p}, based out of {yb}",
            "{p} lives and works in {yb}",
            "if you need {p} in person, go to {yb}",
        ],
    ),
    # team -> lead
    "lead": (
        "t",
        "p",
        [
            "{p} leads {t}.",
            "{t} is led by {p}.",
            "{tb} lead: {p}",
            "{p} is the {tb} lead",
            "{p} runs {t}.",
            "escalations for {t} go to {p}, who leads it",
            "{t} -> {p} (lead)",
            "team: {tb}\nlead: {p}",
            "{p} took over as head of {t}",
            "Had coffee with {p} today; they have been heading {t} since the reorg and want fewer status meetings.",
            "{p} manages {t}",
            "{tb}'s lead is {p}",
            "who leads {t}? {p}.",
        ],
    ),
    # team -> chat channel / mailing list
    "channel": (
        "t",
        "c",
        [
            "{t} uses {c}.",
            "{t} hangs out in {c}",
            "{c} is {tb}'s channel",
            "to reach {t}, post in {c}",
            "{t} -> {c}",
            "team: {tb}\nchannel: {c}",
            "{t} announcements go out on {c}",
            "{c} belongs to {t}",
            "asks for {t} should go to {c}, not DMs",
            "After the comms cleanup last autumn, {t} kept exactly one place for discussion, and that is {c}.",
            "{tb}'s home channel: {c}",
            "{t} coordinates in {c}",
        ],
    ),
    # data store -> region / cluster
    "hosted": (
        "d",
        "r",
        [
            "{d} lives in {r}.",
            "{d} is hosted in {r}.",
            "{d} -> {r}",
            "store: {d}\nregion: {r}",
            "{r} holds {d}",
            "{d} runs on {r}",
            "{d} sits in {r}",
            "we keep {d} in {r} for latency reasons",
            "if {r} has an outage, {d} goes with it",
            "From the infra inventory: {d} is deployed to {r}.",
            "{d} @ {r}",
            "{d}'s home is {r}",
            "{r} is where {d} is provisioned",
        ],
    ),
}

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


def render(tmpl, slots):
    m = {}
    for name, eid in slots.items():
        m[name] = alias(eid)
        m[name + "b"] = bare(eid)
    m["date"] = "%s %d" % (rng.choice(MONTHS), rng.randint(2, 27))
    m["n"] = str(rng.randint(1200, 4999))
    m["pct"] = str(rng.randint(12, 45))
    return tmpl.format(**m)


facts = []  # dicts: key, content, kind, rel, ents
decks = {}
tmpl_use = {r: [0] * len(REL[r][2]) for r in REL}


def pick_tmpl(rel):
    if not decks.get(rel):
        d = list(range(len(REL[rel][2])))
        rng.shuffle(d)
        decks[rel] = d
    return decks[rel].pop()


EDGES = {r: [] for r in REL}  # rel -> [(a, b, key)]


def add_rel(rel, a, b):
    sa, sb, tmpls = REL[rel]
    i = pick_tmpl(rel)
    tmpl_use[rel][i] += 1
    key = "r%d" % len(facts)
    facts.append(
        {
            "key": key,
            "content": render(tmpls[i], {sa: a, sb: b}),
            "kind": "rel",
            "rel": rel,
            "ents": sorted([a, b]),
        }
    )
    EDGES[rel].append((a, b, key))


for s in S_:
    if s in dep_of:
        add_rel("depends", s, dep_of[s])
for s in S_:
    add_rel("owner", s, owner_of[s])
for s in S_:
    if s in store_of:
        add_rel("uses", s, store_of[s])
for p in P_:
    add_rel("member", p, team_of[p])
for p in P_:
    add_rel("based", p, city_of[p])
for t in T_:
    add_rel("lead", t, lead_of[t])
for t in T_:
    add_rel("channel", t, chan_of_team[t])
for d in D_:
    add_rel("hosted", d, region_of[d])

N_REL = len(facts)

# ---------------------------------------------------------------------------
# Distractors: name entities but state none of the relations
# ---------------------------------------------------------------------------


def related_dep(a, b):
    return dep_of.get(a) == b or dep_of.get(b) == a


DISTRACT = [
    # two people met in a city that is neither one's office
    (
        {"p": "P", "p2": "P", "y": "Y"},
        lambda e: e["y"] not in (city_of[e["p"]], city_of[e["p2"]]),
        [
            "{p} and {p2} met up in {yb} for the vendor workshop; both flew in for it.",
            "coffee with {p} and {p2} while we were all in {yb} for the offsite",
            "{p} bumped into {p2} at the {yb} airport and apparently they talked hiring for an hour",
            "Note from the trip: {p} and {p2} co-presented at the {yb} meetup on {date}.",
        ],
    ),
    # someone reviewed / touched a service they do not own
    (
        {"p": "P", "s": "S"},
        lambda e: owner_of[e["s"]] != e["p"],
        [
            "{p} reviewed the design doc for {s}; left ~40 comments, mostly about retries.",
            "{p} sat in on the {s} design review as an outside reviewer",
            "asked {p} for a second opinion on the {s} schema change, not their area but they know the patterns",
            "{p} filed a bug against {s} after the last release",
            "INC-{n}: {s} returned 502s for 14 minutes; {p} was incident commander.",
            "postmortem for the {s} outage: {p} wrote the timeline",
            "{p} demoed {s} at the all-hands and it landed well",
            "{p} thinks {s} should be rewritten from scratch. Strong opinions, loosely held.",
            "{p} volunteered to write the onboarding guide for {s}",
            "...and then {p} said something about the {s} rollout slipping again, didn't catch the rest",
        ],
    ),
    # a store evaluated but not chosen
    (
        {"s": "S", "d": "D"},
        lambda e: store_of.get(e["s"]) != e["d"],
        [
            "Evaluated {d} for {s} but decided against it, too expensive at our volume.",
            "{s} spike: tried pointing it at {d} instead, rolled it back after a day",
            "proposal to move {s} onto {d} was rejected at arch review",
            "someone asked whether {s} could read from {d} directly; answer was no",
        ],
    ),
    # a question asked in another team's channel
    (
        {"p": "P", "c": "C"},
        lambda e: chan_of_team[team_of[e["p"]]] != e["c"],
        [
            "{p} asked a question in {c} about on-call swaps",
            "{p} cross-posted the outage summary to {c} by mistake",
            "saw {p} lurking in {c} during the incident",
            "{p} shared the hiring rubric in {c}, got a lot of emoji reactions",
        ],
    ),
    (
        {"p": "P", "c": "C", "s": "S"},
        lambda e: chan_of_team[team_of[e["p"]]] != e["c"] and owner_of[e["s"]] != e["p"],
        [
            "{p} asked in {c} whether {s} supports bulk export",
            "{p} posted a screenshot of the {s} error page in {c} asking if anyone else saw it",
        ],
    ),
    # performance, birthdays, preferences, leave
    (
        {"p": "P"},
        None,
        [
            "{p} perf review: strong on incident handling, needs to delegate more. Draft due Friday.",
            "Calibration note: {p} is a solid 'exceeds' this cycle, push for it",
            "{p} asked about the promo timeline again; promised an answer by end of month",
            "1:1 with {p}: wants more scope, a bit worried about burnout",
            "{p}'s birthday is on {date}, get a card and something chocolate",
            "{p} prefers written updates over calls and hates meetings before 10",
            "{p} is vegetarian, remember for the team dinner",
            "{p} out on PTO from {date} for a week",
            "Lunch with {p} on Thursday, talk about career growth",
            "remind me to send {p} the conference budget form",
            "{p} finished the leadership course, ask how it went",
            "wait, {p} is out next week?? check before promising the demo",
        ],
    ),
    (
        {"p": "P", "p2": "P"},
        None,
        [
            "{p} is covering on-call for {p2} next week",
            "{p} is mentoring {p2} through onboarding",
            "{p} and {p2} disagree about the incident severity scale; set up a chat",
            "{p} nominated {p2} for the quarterly kudos",
            "...and then {p} said something about {p2}'s proposal, didn't catch the rest",
            "Email from {p}: asks whether {p2} can join the interview loop on {date}.",
        ],
    ),
    # travel to a city that is not their office
    (
        {"p": "P", "y": "Y"},
        lambda e: e["y"] != city_of[e["p"]],
        [
            "{p} flying to {yb} on Tuesday for the customer visit",
            "book a hotel in {yb} for {p}, conference runs Wed to Fri",
            "{p} will be in {yb} for a wedding the week of {date}, slow replies expected",
            "{p} asked if the travel budget covers a trip to {yb} in spring",
        ],
    ),
    (
        {"p": "P", "y": "Y", "s": "S"},
        lambda e: e["y"] != city_of[e["p"]] and owner_of[e["s"]] != e["p"],
        [
            "{p} gave a talk in {yb} about lessons learned from {s}",
        ],
    ),
    # two services, unrelated
    (
        {"s": "S", "s2": "S"},
        lambda e: not related_dep(e["s"], e["s2"]),
        [
            "{s} and {s2} both alerted during the storm last night; unrelated root causes",
            "someone proposed merging {s} and {s2} into one codebase, nobody was keen",
            "load test next week will hit {s} and {s2} at the same time",
        ],
    ),
    # team budget / retro / hiring
    (
        {"t": "T"},
        None,
        [
            "{t} asked for two more headcount in the Q3 budget",
            "Budget note: {tb}'s cloud spend is {pct}% over forecast",
            "{t} retro: too many meetings, not enough focus time. Try no-meeting Wednesdays.",
            "{tb} team photo for the newsletter is due Friday",
        ],
    ),
    (
        {"t": "T", "p": "P"},
        lambda e: team_of[e["p"]] != e["t"] and lead_of[e["t"]] != e["p"],
        [
            "{p} is on the interview panel for {tb}'s senior backend role",
            "{p} mentioned they'd love a rotation on {t} someday, not now though",
            "{p} is presenting to {t} on Thursday about observability",
            "{p} helped {t} with their quarterly planning doc",
        ],
    ),
    (
        {"t": "T", "y": "Y"},
        None,
        [
            "{tb} offsite is going to be in {yb} this year",
            "{t} wants to run a hackathon in {yb} in the autumn",
        ],
    ),
    (
        {"t": "T", "t2": "T"},
        None,
        [
            "joint planning between {t} and {t2} moved to next sprint",
            "{t} and {t2} are arguing about who gets the shared QA budget",
        ],
    ),
    # infra odds and ends
    (
        {"r": "R"},
        None,
        [
            "{r} maintenance window Saturday 02:00-04:00 UTC, tell people",
            "egress costs out of {r} doubled after the reporting change",
            "{r} had a control-plane blip at 03:10, no customer impact",
        ],
    ),
    (
        {"d": "D"},
        None,
        [
            "{d} bill went up {pct}% month over month; ask finance why",
            "{d} hit 80% disk on Monday, cleanup ticket filed",
            "retention policy for {d} needs a legal review before Q4",
            "Email summary: vendor contract covering {d} renews in June, needs sign-off from me.",
        ],
    ),
    (
        {"d": "D", "d2": "D"},
        None,
        [
            "benchmarked {d} against {d2} for the reporting workload, no clear winner",
            "finance wants a cost comparison of {d} and {d2} by next sprint",
        ],
    ),
    (
        {"d": "D", "r": "R"},
        lambda e: region_of[e["d"]] != e["r"],
        [
            "we considered moving {d} to {r} but the cost model didn't work out",
            "DR drill: practiced restoring a snapshot of {d} into {r}, took 40 minutes",
        ],
    ),
    (
        {"c": "C"},
        None,
        [
            "{c} was extremely noisy today, muted until Monday",
            "someone should clean up the pinned posts in {c}",
            "{c} digest: mostly questions about the holiday rota",
        ],
    ),
    (
        {"y": "Y"},
        None,
        [
            "{yb} office wifi is down again, facilities ticket open",
            "{yb} office is closed on the 3rd for a public holiday",
            "new coffee machine in the {yb} office, finally",
        ],
    ),
    (
        {"s": "S"},
        None,
        [
            "{s} roadmap: deprecate the v1 endpoints by Q4",
            "{s} p99 latency up {pct}% since the last deploy, keep an eye on it",
            "# scratch, copied from the {s} repo\ntimeout_ms: 3000\nretries: 3",
            "flags for {s}: new_pricing=false, dark_launch=true",
            "{s} changelog mentions a new bulk export, check with the customer team",
        ],
    ),
]
dis_use = [[0] * len(k[2]) for k in DISTRACT]

n_dis = max(round(N_REL * 0.41 / 0.59), 355 - N_REL)
seen = set(f["content"] for f in facts)
while len(facts) - N_REL < n_dis:
    ki = rng.randrange(len(DISTRACT))
    slots_spec, cond, tmpls = DISTRACT[ki]
    slots = {}
    for name, typ in slots_spec.items():
        choices = [e for e in ORDER[typ] if e not in slots.values()]
        slots[name] = rng.choice(choices)
    if cond is not None and not cond(slots):
        continue
    ti = rng.randrange(len(tmpls))
    text = render(tmpls[ti], slots)
    if text in seen:
        continue
    seen.add(text)
    dis_use[ki][ti] += 1
    facts.append(
        {
            "key": "d%d" % len(facts),
            "content": text,
            "kind": "dis",
            "rel": None,
            "ents": sorted(slots.values()),
        }
    )

# ---------------------------------------------------------------------------
# Questions
# ---------------------------------------------------------------------------
STEP = {  # name: (relation, reverse?, from type, to type)
    "owner": ("owner", False, "S", "P"),
    "owns": ("owner", True, "P", "S"),
    "dep": ("depends", False, "S", "S"),
    "dependent": ("depends", True, "S", "S"),
    "store": ("uses", False, "S", "D"),
    "used_by": ("uses", True, "D", "S"),
    "team": ("member", False, "P", "T"),
    "city": ("based", False, "P", "Y"),
    "lead": ("lead", False, "T", "P"),
    "leads": ("lead", True, "P", "T"),
    "chan": ("channel", False, "T", "C"),
    "chan_of": ("channel", True, "C", "T"),
    "region": ("hosted", False, "D", "R"),
}


def step_targets(st, e):
    rel, rev, _, _ = STEP[st]
    if rev:
        return [(a, k) for a, b, k in EDGES[rel] if b == e]
    return [(b, k) for a, b, k in EDGES[rel] if a == e]


def walk(pattern, start):
    if ENT[start]["type"] != STEP[pattern[0]][2]:
        return None
    ents, gold = [start], []
    for st in pattern:
        outs = step_targets(st, ents[-1])
        if len(outs) != 1:
            return None
        nxt, k = outs[0]
        if nxt in ents:
            return None
        ents.append(nxt)
        gold.append(k)
    return ents, gold


# Noun phrases that refer to the next entity in a chain, given a phrase {x}
# for the current one.
NP = {
    "owner": [
        "the owner of {x}",
        "{x}'s owner",
        "the person who owns {x}",
        "the person responsible for {x}",
        "whoever owns {x}",
    ],
    "dep": [
        "the service {x} depends on",
        "{x}'s upstream dependency",
        "the upstream dependency of {x}",
        "the thing {x} calls under the hood",
        "whatever {x} relies on",
    ],
    "store": [
        "the data store behind {x}",
        "{x}'s datastore",
        "the store {x} writes to",
        "the storage used by {x}",
    ],
    "team": ["{x}'s team", "the team {x} is on", "the team that {x} belongs to", "the team of {x}"],
    "lead": ["the lead of {x}", "{x}'s lead", "whoever leads {x}", "the person heading {x}"],
    "owns": [
        "the service {x} owns",
        "the thing {x} is responsible for",
        "{x}'s service",
        "the service owned by {x}",
    ],
    "leads": ["the team {x} leads", "the team led by {x}"],
    "chan_of": ["the team that uses {x}", "the team in {x}", "whichever team lives in {x}"],
    "used_by": ["the only service using {x}", "the one service that reads from {x}"],
    "dependent": ["the service that depends on {x}", "the one service built on top of {x}"],
}

# Final question frames per last hop; second item 1 = frame carries its own
# context sentence (not combined with an extra context sentence).
FRAMES = {
    "owner": [
        ("Who owns {x}?", 0),
        ("Who is the owner of {x}?", 0),
        ("If {x} breaks, who do I ping?", 0),
        ("Remind me who's responsible for {x}.", 0),
        ("Which person is accountable for {x}?", 0),
        ("Who should questions about {x} go to?", 0),
        ("I need to escalate something about {x}. Who owns it?", 1),
        ("Who's on the hook for {x}?", 0),
        ("Can you look up who looks after {x}?", 0),
        ("Find me the owner of {x}.", 0),
        ("{x}'s owner, who is that again?", 0),
    ],
    "dep": [
        ("What does {x} depend on?", 0),
        ("Which service does {x} rely on?", 0),
        ("What's upstream of {x}?", 0),
        ("Remind me what {x} calls under the hood.", 0),
        ("If {x} is failing, which upstream service should I check first?", 0),
        ("Name the dependency of {x}.", 0),
        ("{x} is down again. What service does it depend on?", 1),
        ("Which service is {x} built on top of?", 0),
        ("Tell me what sits underneath {x}.", 0),
        ("What is the upstream dependency of {x}?", 0),
    ],
    "store": [
        ("Which data store does {x} use?", 0),
        ("Where does {x} keep its data?", 0),
        ("What's the backing store for {x}?", 0),
        ("Remind me which database or queue {x} writes to.", 0),
        ("What storage sits behind {x}?", 0),
        ("We're planning a migration for {x}. Which store does it read from?", 1),
        ("Tell me the datastore used by {x}.", 0),
        ("Which store holds the data for {x}?", 0),
        ("{x}'s datastore, which one is it?", 0),
    ],
    "team": [
        ("Which team is {x} on?", 0),
        ("What team does {x} belong to?", 0),
        ("Remind me which team {x} works in.", 0),
        ("Who does {x} sit with, team-wise?", 0),
        ("What's the team of {x}?", 0),
        ("I'm setting up a meeting with {x}. Which team are they on?", 1),
        ("Find out {x}'s team for me.", 0),
        ("Which squad has {x} in it?", 0),
        ("Tell me the team that includes {x}.", 0),
    ],
    "city": [
        ("Where is {x} based?", 0),
        ("Which office does {x} work from?", 0),
        ("What city is {x} in?", 0),
        ("Remind me where {x} sits.", 0),
        ("If I want to see {x} in person, which city do I fly to?", 0),
        ("I'd like to grab coffee with {x}. Which office are they in?", 1),
        ("Which location is {x} working out of?", 0),
        ("Tell me the home office of {x}.", 0),
        ("What's {x}'s home office?", 0),
        ("Which city should I book travel to in order to meet {x}?", 0),
    ],
    "lead": [
        ("Who leads {x}?", 0),
        ("Who is the lead of {x}?", 0),
        ("Who runs {x}?", 0),
        ("Remind me who heads {x}.", 0),
        ("Who's in charge of {x}?", 0),
        ("I need sign-off from {x}'s lead. Who is that?", 1),
        ("Name the person leading {x}.", 0),
        ("Who manages {x}?", 0),
        ("Who would I escalate to as the lead of {x}?", 0),
    ],
    "chan": [
        ("Which channel does {x} use?", 0),
        ("Where does {x} hang out?", 0),
        ("What's the channel for {x}?", 0),
        ("Where should I post to reach {x}?", 0),
        ("Remind me which channel or list belongs to {x}.", 0),
        ("I have a question for {x}. Where do I post it?", 1),
        ("Which Slack channel or mailing list does {x} coordinate in?", 0),
        ("Where does {x} post announcements?", 0),
        ("Tell me the chat channel used by {x}.", 0),
    ],
    "region": [
        ("Which region is {x} in?", 0),
        ("Where is {x} hosted?", 0),
        ("What cluster does {x} run on?", 0),
        ("Remind me where {x} lives.", 0),
        ("Which region or cluster hosts {x}?", 0),
        ("{x} is slow today. Which region is it hosted in?", 1),
        ("Where does {x} physically sit?", 0),
        ("Tell me the cluster holding {x}.", 0),
        ("In which region is {x} deployed?", 0),
    ],
    "owns": [
        ("Which service does {x} own?", 0),
        ("What is {x} responsible for?", 0),
        ("What does {x} own?", 0),
        ("Remind me which tool {x} looks after.", 0),
        ("Which system is {x} the owner of?", 0),
        ("Name the service owned by {x}.", 0),
        ("{x} just pinged me about an outage. Which service do they own?", 1),
        ("What's {x} on the hook for?", 0),
    ],
    "leads": [
        ("Which team does {x} lead?", 0),
        ("What team is led by {x}?", 0),
        ("Remind me which team {x} runs.", 0),
        ("Which team has {x} as its lead?", 0),
        ("What does {x} head up?", 0),
        ("{x} is chairing the planning meeting. Which team do they lead?", 1),
        ("Name the team managed by {x}.", 0),
        ("Which squad reports to {x}?", 0),
    ],
    "chan_of": [
        ("Whose team is in {x}?", 0),
        ("Which team uses {x}?", 0),
        ("Which team does {x} belong to?", 0),
        ("Remind me which team hangs out in {x}.", 0),
        ("Who is {x} for, team-wise?", 0),
        ("Someone posted in {x}. Which team's space is that?", 1),
        ("Name the team behind {x}.", 0),
        ("Which team coordinates in {x}?", 0),
    ],
    "used_by": [
        ("Which service uses {x}?", 0),
        ("What reads from {x}?", 0),
        ("Which system keeps its data in {x}?", 0),
        ("Remind me what writes to {x}.", 0),
        ("Which service is backed by {x}?", 0),
        ("We want to decommission {x}. Which service would that hit?", 1),
        ("Name the service whose data lives in {x}.", 0),
        ("What's sitting on top of {x}?", 0),
    ],
    "dependent": [
        ("Which service depends on {x}?", 0),
        ("What relies on {x}?", 0),
        ("What's downstream of {x}?", 0),
        ("Remind me which service calls {x}.", 0),
        ("If {x} goes down, which service breaks with it?", 0),
        ("Name the service built on top of {x}.", 0),
        ("We're changing {x}'s API. Which service consumes it?", 1),
        ("Which service sits on top of {x}?", 0),
    ],
}

KW = {  # keyword-query words per hop
    "owner": ["owner"],
    "dep": ["upstream dep", "dependency", "deps"],
    "store": ["datastore", "storage", "db"],
    "team": ["team"],
    "city": ["office", "city", "location"],
    "lead": ["lead", "team lead"],
    "chan": ["channel", "chat channel"],
    "region": ["region", "cluster"],
    "owns": ["owned service", "service owned"],
    "leads": ["team led", "led team"],
    "chan_of": ["team", "owning team"],
    "used_by": ["consumer", "service using it"],
    "dependent": ["downstream", "dependent service"],
}
ARROW = {
    "owner": "owner",
    "dep": "depends on",
    "store": "store",
    "team": "team",
    "city": "based where",
    "lead": "lead",
    "chan": "channel",
    "region": "region",
    "owns": "owns what",
    "leads": "leads which team",
    "chan_of": "whose channel",
    "used_by": "used by",
    "dependent": "depended on by",
}
CTX = {  # context-first sentence; second sentence refers back
    "S": [
        "{x} paged me twice last night.",
        "I'm writing the quarterly summary and {x} keeps coming up.",
        "{x} is on the agenda for Thursday's ops review.",
        "Finance is asking about the running cost of {x}.",
    ],
    "P": [
        "I have a 1:1 with {x} tomorrow.",
        "{x} asked me for help with a cross-team thing.",
        "I'm drafting the offsite invite list and {x} is on it.",
    ],
    "T": ["{x} is presenting at the all-hands next week.", "I'm reviewing headcount for {x}."],
    "C": ["Someone tagged me in {x} this morning.", "{x} has been busy all day."],
    "D": ["{x} costs jumped again this month.", "There's a disk alert on {x}."],
}
BACKREF = {"S": "that service", "T": "that team", "C": "that channel", "D": "that store"}
PREFIX = [
    "Quick one: ",
    "Hey, ",
    "Sorry to bug you again, ",
    "Before my 3pm: ",
    "Random question: ",
]
LOWER_FIRST = (
    "Who ",
    "Who's ",
    "What ",
    "What's ",
    "Which ",
    "Where ",
    "Remind ",
    "If ",
    "Name ",
    "Tell ",
    "Find ",
    "Can ",
    "In ",
    "Whose ",
)
CAP_WORDS = ("the ", "whoever ", "whatever ", "whichever ", "that ")


def placement(tmpl):
    rest = tmpl[tmpl.index("{x}") + 3 :]
    if rest.startswith("'s"):
        return "poss"
    if rest == "" or rest[0] in ".?!,":
        return "end"
    return "mid"


ACCEPT = {
    "poss": ("name", "poss"),
    "mid": ("name", "poss", "tail"),
    "end": ("name", "poss", "tail", "rc"),
}


FREE_REL = ("whoever ", "whatever ", "whichever ")


def apply(tmpls, x, kind):
    ok = [t for t in tmpls if kind in ACCEPT[placement(t)]]
    if x.startswith("that "):
        # avoid "the service that service depends on"
        ok = [t for t in ok if not re.search(r"the \w+ \{x\}", t)]
    t = rng.choice(ok)
    pl = placement(t)
    if pl == "poss":
        nk = "poss"
    elif pl == "mid" or kind == "rc" or t.startswith(FREE_REL):
        nk = "rc"  # phrase ends in a clause: only usable at the end
    else:
        nk = "tail"
    return t.replace("{x}", x), nk


def cap(q):
    if q.startswith(CAP_WORDS):
        return q[0].upper() + q[1:]
    return q


def build_question(pattern, start):
    u = rng.random()
    if u < 0.09:
        words = []
        for st in pattern:
            words.append(rng.choice([w for w in KW[st] if not words or w != words[-1]]))
        kw = " ".join(words)
        return "%s %s%s" % (alias(start), kw, rng.choice(["", "?"])), "keyword"
    if u < 0.16:
        return alias(start) + " -> " + " -> ".join(ARROW[st] for st in pattern) + "?", "arrow"
    typ = ENT[start]["type"]
    ctx = u < 0.31 and typ in CTX
    if ctx:
        first = rng.choice(CTX[typ]).replace("{x}", alias(start))
        x = bare(start) if typ == "P" else BACKREF[typ]
    else:
        x = alias(start)
    kind = "name"
    for st in pattern[:-1]:
        x, kind = apply(NP[st], x, kind)
    frames = [f for f, c in FRAMES[pattern[-1]] if not (ctx and c)]
    q, _ = apply(frames, x, kind)
    q = cap(q)
    if ctx:
        return cap(first) + " " + q, "context"
    if rng.random() < 0.12 and q.startswith(LOWER_FIRST):
        return rng.choice(PREFIX) + q[0].lower() + q[1:], "prefixed"
    return q, "frame"


PLAN = {
    1: [
        ("owner", 6),
        ("dep", 5),
        ("store", 5),
        ("team", 5),
        ("city", 5),
        ("lead", 4),
        ("chan", 4),
        ("region", 4),
        ("owns", 3),
        ("leads", 3),
        ("chan_of", 2),
        ("used_by", 2),
        ("dependent", 2),
    ],
    2: [
        ("owner.city", 6),
        ("owner.team", 6),
        ("store.region", 6),
        ("dep.owner", 6),
        ("dep.store", 5),
        ("team.lead", 6),
        ("team.chan", 5),
        ("lead.city", 4),
        ("dep.dep", 4),
        ("owns.store", 3),
        ("owns.dep", 3),
        ("chan_of.lead", 3),
        ("leads.chan", 3),
    ],
    3: [
        ("owner.team.lead", 6),
        ("owner.team.chan", 6),
        ("dep.owner.city", 6),
        ("dep.owner.team", 5),
        ("dep.store.region", 6),
        ("team.lead.city", 6),
        ("dep.dep.owner", 4),
        ("chan_of.lead.city", 3),
        ("owns.store.region", 4),
        ("owns.dep.owner", 2),
        ("used_by.owner.city", 2),
    ],
}

key2fact = {f["key"]: f for f in facts}
questions = []
qmeta = []
qseen = set()
for hops in (1, 2, 3):
    for pat_s, count in PLAN[hops]:
        pattern = pat_s.split(".")
        assert len(pattern) == hops
        cands = [e for e in ORDER[STEP[pattern[0]][2]] if walk(pattern, e)]
        assert len(cands) >= count, (pat_s, len(cands), count)
        for start in rng.sample(cands, count):
            ents, gold = walk(pattern, start)
            for _ in range(50):
                q, form = build_question(pattern, start)
                if q not in qseen:
                    break
            assert q not in qseen
            qseen.add(q)
            questions.append({"question": q, "hops": hops, "gold": gold})
            qmeta.append({"pattern": pat_s, "start": start, "ents": ents, "form": form})

# ~10% typed lower case without punctuation
lower_idx = sorted(
    rng.sample([i for i, m in enumerate(qmeta) if m["form"] not in ("keyword", "arrow")], 16)
)


def lowercase(q):
    q = q.lower()
    q = re.sub(r"[?!,;]", "", q)
    q = re.sub(r"\.(?=\s|$)", "", q)
    q = re.sub(r":(?=\s)", "", q)
    return re.sub(r"\s+", " ", q).strip()


for i in lower_idx:
    questions[i]["question"] = lowercase(questions[i]["question"])
    qmeta[i]["form"] += "+lower"

# shuffle facts and assign public ids
order = list(range(len(facts)))
rng.shuffle(order)
key2id = {}
out_facts = []
for n, i in enumerate(order):
    f = facts[i]
    key2id[f["key"]] = "h%d" % n
    out_facts.append({"id": "h%d" % n, "content": f["content"]})
for q in questions:
    q["gold"] = [key2id[k] for k in q["gold"]]

# ---------------------------------------------------------------------------
# Self-checks
# ---------------------------------------------------------------------------
# every alias maps to exactly one entity, and no alias contains another
# entity's alias
lower_alias = {}
for eid, e in ENT.items():
    for a in e["aliases"]:
        assert a.lower() not in lower_alias, ("alias clash", a)
        lower_alias[a.lower()] = eid
        assert mentions(a) == [eid], ("alias overlaps another entity", a, mentions(a))
first_names = [p[0] for p in PEOPLE]
assert len(set(first_names)) == len(first_names)

# entity counts
cnt = {t: len(ORDER[t]) for t in ORDER}
assert cnt == {"S": 40, "P": 36, "T": 8, "C": 8, "D": 16, "R": 6, "Y": 8}, cnt

# structure sanity: functional relations, DAG
for rel in ("depends", "owner", "uses", "member", "based", "lead", "channel", "hosted"):
    heads = [a for a, _, _ in EDGES[rel]]
    assert len(heads) == len(set(heads)), rel
for t in T_:
    assert team_of[lead_of[t]] == t

# relation facts mention exactly their two endpoints; distractors only theirs
for f in facts:
    m = mentions(f["content"])
    assert m == f["ents"], (f["kind"], f["content"], m, f["ents"])

# phrasing counts
for rel, (_, _, tmpls) in REL.items():
    assert len(tmpls) >= 10, rel
    assert len(set(tmpls)) == len(tmpls), rel

# distractors never state a relation: no distractor names exactly the two
# endpoints of a relation edge of a kind its template could express is
# already enforced by the constraints; additionally check that no distractor
# is textually equal to a relation phrasing
texts = [f["content"] for f in facts]
assert len(set(texts)) == len(texts), "duplicate fact text"
n_total = len(facts)
n_d = sum(1 for f in facts if f["kind"] == "dis")
assert 350 <= n_total <= 450, n_total
assert 0.35 <= n_d / n_total <= 0.45, n_d / n_total

# questions
assert len(questions) == 160
hop_counts = {h: sum(1 for q in questions if q["hops"] == h) for h in (1, 2, 3)}
assert hop_counts == {1: 50, 2: 60, 3: 50}, hop_counts
assert len(set(q["question"] for q in questions)) == len(questions), "duplicate question"
id2fact = {f["id"]: f for f in out_facts}
for q, m in zip(questions, qmeta):
    assert q["hops"] == len(q["gold"])
    # question names the start entity (and no other entity)
    assert mentions(q["question"]) == [m["start"]], (q["question"], mentions(q["question"]))
    ents = m["ents"]
    assert len(set(ents)) == len(ents), "chain revisits an entity"
    pattern = m["pattern"].split(".")
    for i, gid in enumerate(q["gold"]):
        fm = mentions(id2fact[gid]["content"])
        assert ents[i] in fm and ents[i + 1] in fm, (q, gid)
        # answer of every hop is unique among all relation facts
        assert len(step_targets(pattern[i], ents[i])) == 1
    assert len(set(q["gold"])) == len(q["gold"])

# nothing secret-looking
for t in texts + [q["question"] for q in questions]:
    assert not re.search(r"(?i)password|passwd|secret|token|api[_-]?key|private key", t), t
    assert not re.search(r"[A-Za-z0-9+/=]{25,}", t), t
    for em in re.findall(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+", t):
        assert em.endswith("@example.com"), em

# ---------------------------------------------------------------------------
# Write
# ---------------------------------------------------------------------------
world = {"facts": out_facts, "questions": questions}
path = os.path.join(HERE, "world.json")
data = json.dumps(world, ensure_ascii=False, indent=1) + "\n"
with open(path, "w", encoding="utf-8", newline="\n") as fh:
    fh.write(data)

# summary
print("wrote", path)
print("md5", hashlib.md5(data.encode("utf-8")).hexdigest())
print(
    "facts %d (relation %d, distractor %d = %.1f%%)" % (n_total, N_REL, n_d, 100.0 * n_d / n_total)
)
for rel in REL:
    used = sum(1 for c in tmpl_use[rel] if c)
    print(
        "  %-8s facts %3d  phrasings %2d (used %2d)"
        % (rel, len(EDGES[rel]), len(REL[rel][2]), used)
    )
print("distractor kinds %d, templates %d" % (len(DISTRACT), sum(len(k[2]) for k in DISTRACT)))
ne = {}
for f in facts:
    if f["kind"] == "dis":
        ne[len(f["ents"])] = ne.get(len(f["ents"]), 0) + 1
print("distractors by number of entities named", dict(sorted(ne.items())))
nl = sum(1 for f in facts if "\n" in f["content"])
print("multi-line (config-like) facts", nl)
print("questions", hop_counts)
forms = {}
for m in qmeta:
    forms[m["form"]] = forms.get(m["form"], 0) + 1
print("question forms", dict(sorted(forms.items())))
pats = {}
for m in qmeta:
    pats[m["pattern"]] = pats.get(m["pattern"], 0) + 1
print("patterns", pats)
print("frames per last hop", {k: len(v) for k, v in FRAMES.items()})
print("entities", cnt)
