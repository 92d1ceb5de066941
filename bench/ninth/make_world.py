#!/usr/bin/env python3
"""Generate world "ninth": the memory of an assistant that works for the Clinical
Technology department of a (fictional) hospital trust in the north-west of England.

Standard library only. Deterministic: one fixed seed, lists only (dicts are iterated in
insertion order, sets are used for membership tests only), so the output is byte-identical
under any PYTHONHASHSEED. Writes world.json next to this file, runs every self-check, and
prints the counts and the md5 of world.json.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re

SEED = 20917
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "world.json")

# --------------------------------------------------------------------------------------
# Entities. Each entity has render forms (strings that may be written into a text) and
# match aliases (strings whose presence counts as a mention).
# --------------------------------------------------------------------------------------

# (canonical, extra render forms, extra match aliases)
SYSTEMS = [
    ("PACS", ["the PACS"], []),
    ("RIS", ["the RIS"], []),
    ("LIS", ["the LIS"], []),
    ("EPMA", [], []),
    ("Nurse Call", ["the Nurse Call server"], []),
    ("pump-gateway", ["the pump gateway"], ["pump gateway"]),
    ("VitalsLink", [], []),
    ("TeleCentral", [], []),
    ("bed-board", ["the bed board"], ["bed board"]),
    ("Porter App", ["the Porter App"], []),
    ("SterilTrack", [], []),
    ("Ferryman", ["the Ferryman engine"], []),
    ("dose-calc", [], []),
    ("BloodTrack", [], []),
    ("AnaesRec", [], []),
    ("dialysis-hub", [], []),
    ("ECGVault", [], []),
    ("ventlog", [], []),
    ("ScanDesk", [], []),
    ("asset_tracker", [], []),
    ("PPM Planner", ["the PPM Planner"], []),
    ("TheatreBoard", [], []),
    ("results_router", [], []),
    ("Discharge Hub", ["the Discharge Hub"], []),
    ("CardioView", [], []),
    ("glucose-sync", [], []),
    ("POCT Manager", ["the POCT Manager"], []),
    ("MedFridge", [], []),
    ("RTLS", ["the RTLS"], []),
    ("order_comms", [], []),
    ("Dictation Service", ["the Dictation Service"], []),
    ("endo-capture", [], []),
    ("RetinaScreen", [], []),
    ("Pharmacy Robot", ["the Pharmacy Robot"], []),
    ("labelprint", [], []),
    ("ward-kiosk", [], []),
    ("Telederm", [], []),
    ("CathRec", [], []),
    ("ObsChart", [], []),
    ("sepsis_alert", [], []),
    ("RadDose", [], []),
    ("fetal-mon", [], []),
]

STORES = [
    ("vna-store", ["the VNA"], ["VNA"]),
    ("monitoring_ts", [], []),
    ("labresults-pg", ["the labresults-pg database"], []),
    ("oraph01", [], []),
    ("the Asset Register", [], ["Asset Register"]),
    ("dose_history", [], []),
    ("hl7-archive", ["the HL7 archive"], ["HL7 archive"]),
    ("cssd-db", [], []),
    ("the Rota workbook", [], ["Rota workbook"]),
    ("alarm-events", ["the alarm-events queue"], []),
    ("bedstate-redis", [], []),
    ("dialysis_sessions", [], []),
    ("images-cold", ["the images-cold bucket"], []),
    ("CDW", ["the Clinical Data Warehouse", "the CDW"], ["Clinical Data Warehouse"]),
    ("mq-adt", [], []),
    ("theatre_log", [], []),
    ("fhir-store", ["the FHIR store"], ["FHIR store"]),
    ("calib-share", ["the calib-share drive"], []),
]

HOSTS = [
    ("Brunswick DC", ["the Brunswick data centre"], ["Brunswick"]),
    ("Tarn House", ["the Tarn House server room"], []),
    ("Azure UK South", ["UK South", "uksouth"], ["UK South", "uksouth"]),
    ("eu-west-2", ["AWS eu-west-2"], []),
    ("Block C", ["the Block C comms room"], []),
    ("HX-4", ["the HX-4 cluster"], []),
]

CITIES = [
    "Kendal",
    "Penrith",
    "Carlisle",
    "Lancaster",
    "Whitehaven",
    "Keswick",
    "Ulverston",
    "Workington",
]

TEAMS = [
    "Ullswater",
    "Windermere",
    "Coniston",
    "Derwent",
    "Buttermere",
    "Wastwater",
    "Ennerdale",
    "Thirlmere",
    "Haweswater",
    "Grasmere",
]

CHANNELS = [
    ("#ct-pumps", ["the ct-pumps channel"], ["ct-pumps"]),
    ("#bench-talk", ["the bench-talk channel"], ["bench-talk"]),
    ("#imaging-kit", ["the imaging-kit channel"], ["imaging-kit"]),
    ("#ward-tech", ["the ward-tech channel"], ["ward-tech"]),
    ("#night-bleep", ["the night-bleep channel"], ["night-bleep"]),
    ("#lab-interfaces", ["the lab-interfaces channel"], ["lab-interfaces"]),
    ("#scope-room", ["the scope-room channel"], ["scope-room"]),
    ("#kit-returns", ["the kit-returns channel"], ["kit-returns"]),
    ("renal-eng@example.com", ["the renal-eng list"], ["renal-eng"]),
    ("theatres-ct@example.com", ["the theatres-ct list"], ["theatres-ct"]),
]

# full name, handle, nickname (or None). Handle conventions are deliberately mixed:
# initial+surname, first+initial, first.last, first_initial, surname only, initials,
# first-two-letters, nickname, bare first name.
PEOPLE = [
    ("Amara Okoye", "@aokoye", None),
    ("Gareth Pryce", "@gaz", "Gaz"),
    ("Siobhan Kealy", "@siobhan.kealy", None),
    ("Tomasz Wróbel", "@wrobel", "Tomek"),
    ("Priya Raman", "@priyar", None),
    ("Declan Moss", "@dm", "Dec"),
    ("Hannah Lindqvist", "@hannah_l", None),
    ("Kwame Asante", "@kwame-as", None),
    ("Rhiannon Bevan", "@rbevan", "Rhi"),
    ("Ifeoma Nwosu", "@ife", "Ife"),
    ("Callum Reid", "@callum.reid", None),
    ("Mei Tanaka", "@meit", None),
    ("Femi Adebayo", "@fadebayo", None),
    ("Bronwen Hughes", "@bronwen_h", None),
    ("Javier Molina", "@molina", None),
    ("Niamh Gallagher", "@ng", None),
    ("Farid Haddad", "@farid-ha", None),
    ("Eilidh Ross", "@eilidhr", None),
    ("Sunil Chaudhary", "@sunny", "Sunny"),
    ("Grace Whitfield", "@gwhitfield", None),
    ("Marek Novak", "@marek.novak", None),
    ("Aisha Karimi", "@aisha_k", None),
    ("Owen Thwaite", "@thwaite", None),
    ("Beatriz Santos", "@bs", "Bia"),
    ("Lachlan Fraser", "@lachlan-fr", None),
    ("Yusuf Demir", "@yusufd", None),
    ("Morag Ellison", "@mellison", None),
    ("Chidi Eze", "@chidi.eze", None),
    ("Petra Holm", "@petra_h", None),
    ("Ruairi Doyle", "@doyle", None),
    ("Zainab Qureshi", "@zq", None),
    ("Henrik Dahl", "@henrik-da", None),
    ("Lucy Armitage", "@lucya", None),
    ("Dominic Hale", "@domh", "Dom"),
    ("Esther Banda", "@ebanda", None),
    ("Vikram Joshi", "@vik", "Vik"),
    ("Sinead Byrne", "@sinead.byrne", None),
    ("Ana Ferreira", "@ana_f", None),
    ("Tariq Malik", "@tariq", None),
    ("Freya Nilsen", "@freya.n", None),
]

ENT = {}  # id -> entity dict (insertion ordered)
KIND = {}  # kind -> list of ids


def add_entity(kind, name, forms, match):
    eid = "%s:%s" % (kind, name)
    assert eid not in ENT, eid
    ENT[eid] = {"id": eid, "kind": kind, "name": name, "forms": forms, "match": match}
    KIND.setdefault(kind, []).append(eid)
    return eid


def build_entities():
    for name, extra, m in SYSTEMS:
        add_entity("system", name, {"name": [name], "any": [name] + extra}, [name] + extra + m)
    for name, extra, m in STORES:
        add_entity("store", name, {"name": [name], "any": [name] + extra}, [name] + extra + m)
    for name, extra, m in HOSTS:
        add_entity("host", name, {"name": [name], "any": [name] + extra}, [name] + extra + m)
    for c in CITIES:
        add_entity(
            "city", c, {"name": [c], "any": [c, c, "the %s campus" % c, "the %s site" % c]}, [c]
        )
    for t in TEAMS:
        add_entity("team", t, {"name": [t], "any": [t, "team " + t, "the %s team" % t]}, [t])
    for name, extra, m in CHANNELS:
        add_entity(
            "channel", name, {"name": [name], "any": [name, name] + extra}, [name] + extra + m
        )
    for full, handle, nick in PEOPLE:
        first = full.split()[0]
        forms = {"full": [full], "first": [first], "handle": [handle], "name": [full]}
        match = [full, first, handle]
        if nick:
            forms["nick"] = [nick]
            if nick != first:
                match.append(nick)
        add_entity("person", full, forms, match)


# --------------------------------------------------------------------------------------
# Mention detection
# --------------------------------------------------------------------------------------

_RX = {}


def alias_rx(alias):
    if alias not in _RX:
        _RX[alias] = re.compile(
            r"(?<![\w@#.\-])" + re.escape(alias) + r"(?![\w\-])(?!\.\w)", re.IGNORECASE
        )
    return _RX[alias]


def mentions(text):
    """Entity ids mentioned in text, in entity order."""
    found = []
    for eid, e in ENT.items():
        for a in e["match"]:
            if alias_rx(a).search(text):
                found.append(eid)
                break
    return found


# --------------------------------------------------------------------------------------
# Rendering
# --------------------------------------------------------------------------------------

SLOT = re.compile(r"\{([A-Za-z]+)(?::([a-z]+))?\}")
PERSON_WEIGHTS = [("full", 35), ("first", 25), ("handle", 25), ("nick", 15)]
QUESTION_WEIGHTS = [("full", 20), ("first", 20), ("handle", 35), ("nick", 45)]


def pick_form(rng, ent, hint, weights=PERSON_WEIGHTS):
    if ent["kind"] == "person":
        if hint:
            if hint == "nick" and "nick" not in ent["forms"]:
                hint = "first"
            return hint, ent["forms"][hint][0]
        opts = [(f, w) for f, w in weights if f in ent["forms"]]
        total = sum(w for _, w in opts)
        r = rng.randrange(total)
        for f, w in opts:
            if r < w:
                return f, ent["forms"][f][0]
            r -= w
        raise AssertionError
    key = hint or "any"
    choice = rng.choice(ent["forms"][key])
    return ("name" if choice == ent["name"] else "alt"), choice


def cap(s):
    first = s.split(" ", 1)[0]
    if first in ("the", "team"):
        return s[0].upper() + s[1:]
    return s


def render(rng, template, slots, used=None, weights=PERSON_WEIGHTS):
    """slots: lower-case slot name -> entity id. Upper-case slot name capitalises."""
    chosen = {}
    if used is None:
        used = {}

    def sub(m):
        name, hint = m.group(1), m.group(2)
        if name == "n":
            return str(rng.randrange(3, 60))
        if name == "band":
            return rng.choice(["6", "7", "8a"])
        if name == "date":
            return "%d %s" % (rng.randrange(1, 29), rng.choice(["March", "May", "June", "October"]))
        if name == "day":
            return rng.choice(["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"])
        low = name.lower()
        eid = slots[low]
        key = (low, hint)
        if key not in chosen:
            form, text = pick_form(rng, ENT[eid], hint, weights)
            chosen[key] = text
            used.setdefault(low, form)
        text = chosen[key]
        return cap(text) if name != low else text

    return SLOT.sub(sub, template)


# --------------------------------------------------------------------------------------
# Relation phrasings. Slots: feeds (s downstream, u upstream), owner (s, p), uses (s, d),
# member (p, t), based (p, c), lead (t, p), channel (t, ch), hosted (d, h).
# --------------------------------------------------------------------------------------

REL_SLOTS = {
    "feeds": ("s", "u"),
    "owner": ("s", "p"),
    "uses": ("s", "d"),
    "member": ("p", "t"),
    "based": ("p", "c"),
    "lead": ("t", "p"),
    "channel": ("t", "ch"),
    "hosted": ("d", "h"),
}
REL_KINDS = {
    "feeds": ("system", "system"),
    "owner": ("system", "person"),
    "uses": ("system", "store"),
    "member": ("person", "team"),
    "based": ("person", "city"),
    "lead": ("team", "person"),
    "channel": ("team", "channel"),
    "hosted": ("store", "host"),
}

PHRASINGS = {
    "feeds": [
        "{S} takes its feed from {u}.",
        "{U} feeds {s}.",
        "{S} sits downstream of {u}; when {u} stalls, {s} stops updating.",
        "upstream of {s}: {u}",
        "{s:name} <- {u:name}",
        "system: {s:name}\n  upstream: {u:name}\n  feed: one-way",
        "Note to self: {s} is useless while {u} is down, every message it shows comes from there.",
        "From the interface review: whatever {s} puts on screen originally came out of {u}.",
        "{S} polls {u} every few seconds for new data.",
        "If {u} falls over, expect calls about {s} within minutes, because {s} depends on it.",
        "Dependency map, row {n}: {s} depends on {u}.",
        "The supplier was clear that {s} can't run without {u}; that is where it gets its input.",
        "{u:name} -> {s:name} (data flow)",
        "Email summary: the upgrade of {s} has to wait for {u}, since {s} consumes its output directly.",
    ],
    "owner": [
        "{S} is owned by {p}.",
        "{P} owns {s}.",
        "If {s} misbehaves, page {p}.",
        "{s:name} -> {p:handle} (system owner)",
        "system: {s:name}\nowner: {p:full}\nreview: annual",
        "I asked who signs off changes to {s}. Answer: {p}, the named custodian.",
        "{P} has been system custodian for {s} since the restructure.",
        "Any change to {s} needs approval from its owner, {p}.",
        "{s}: {p}'s responsibility, start to finish.",
        "Minutes, medical devices group: ownership of {s} confirmed as {p}.",
        "Anything about {s}, go to {p} first; it's their system.",
        "{P} told me {s} is theirs end to end, config, contract and all.",
        "Escalation path for {s}: straight to the owner, {p}.",
        "The asset sheet names {p} as accountable owner of {s}.",
        "{p:handle}: yes, {s} is mine, send the change request my way.",
    ],
    "uses": [
        "{S} writes everything to {d}.",
        "{D} is the database behind {s}.",
        "{S} keeps its records in {d}.",
        "{s:name} => {d:name}",
        "service: {s:name}\ndatastore: {d:name}\nbackup: nightly",
        "If {d} is unreachable, {s} cannot save anything.",
        "Data for {s} lives in {d}.",
        "During the DPIA we traced where {s} stores patient data: {d}.",
        "{S} persists to {d}, confirmed with the supplier.",
        "Restore order for {s}: bring back {d} first, that is its store.",
        "Storage for {s}: {d}.",
        "{s} keeps its state in {d}, nowhere else.",
        "Backing up {s} really means backing up {d}, which is where its data goes.",
    ],
    "member": [
        "{P} is on {t}.",
        "{P} joined {t} in the spring reorganisation.",
        "{t:name} roster includes {p}.",
        "{p:handle} -> {t:name}",
        "name: {p:full}\nteam: {t:name}\nband: {band}",
        "{P} sits with {t}.",
        "Newsletter: welcome {p} to {t}!",
        "{P} works in {t}.",
        "Org chart: {p} reports into {t}.",
        "{P} said they've been part of {t} for a few years now.",
        "I'm told {p} is one of the {t:name} engineers.",
        "{T} gained {p} this quarter.",
        "Roster check - {p}: {t:name}.",
    ],
    "based": [
        "{P} works out of {c}.",
        "{P} is based at the {c:name} campus.",
        "{p}'s desk is at {c}.",
        "{p:handle} @ {c:name}",
        "name: {p:full}\nsite: {c:name}",
        "If you need {p} in person, go to {c}, that's where they are.",
        "{P} is one of our {c:name} people.",
        "{P} drives into the {c:name} site every morning.",
        "Location for {p}: {c}.",
        "{c:name} campus: {p}, full time.",
        "{P} would rather stay in {c:name}, which is where they are based now.",
        "Staff directory lists {p} under {c:name}.",
    ],
    "lead": [
        "{T} is led by {p}.",
        "{P} leads {t}.",
        "{t:name} lead: {p}",
        "{t:name} -> lead: {p:handle}",
        "team: {t:name}\nlead: {p:full}",
        "{P} took over as head of {t} last year.",
        "Team decisions in {t} go to {p}, who runs it.",
        "{P} is the section lead for {t}.",
        "Meeting summary: {p} confirmed as lead of {t} for another year.",
        "The person in charge of {t} is {p}.",
        "{T}'s lead is {p}.",
        "I raise anything about {t} with {p}, since they head it.",
    ],
    "channel": [
        "{T} talks in {ch}.",
        "{CH} is {t}'s channel.",
        "To reach {t}, post in {ch}.",
        "{t:name} -> {ch:name}",
        "team: {t:name}\nchannel: {ch:name}",
        "{T} uses {ch} for everything, handovers included.",
        "Questions for {t}? Try {ch}.",
        "{T}'s home channel: {ch}.",
        "Meeting note: {t} agreed to move all their chatter to {ch}.",
        "If you want {t} to see something, drop it in {ch}.",
        "{CH} belongs to {t}.",
        "comms for {t:name}: {ch:name}",
    ],
    "hosted": [
        "{D} is hosted in {h}.",
        "{D} runs in {h}.",
        "{d:name} @ {h:name}",
        "{H} hosts {d}.",
        "store: {d:name}\nlocation: {h:name}",
        "If {h} loses power, {d} goes with it.",
        "{D} sits on kit in {h}.",
        "Infra inventory: {d} -> {h}.",
        "We moved {d} into {h} last year and it has stayed there.",
        "Where does {d} live? {h}.",
        "The DR plan lists {h} as the primary home of {d}.",
        "Hosting for {d}: {h}.",
        "{D} is physically in {h}, per the CMDB.",
    ],
}

# --------------------------------------------------------------------------------------
# Distractors: notes naming entities without stating any graph relation.
# kind -> (slots as (name, entity kind), templates, count). Constraints in DISTRACTOR_OK.
# --------------------------------------------------------------------------------------

DISTRACTORS = [
    (
        "sys_trouble",
        [("s", "system")],
        [
            "{S} froze twice on the night shift; a restart fixed it both times.",
            "Incident {n}: {s} showed stale results for twenty minutes on Ward {n}.",
            "{S} is back on the risk register after last week's outage.",
            "A Datix came in about {s}: clinicians say the screen lags badly.",
            "Clock drift on {s} again, about forty seconds behind.",
            "{S} threw a certificate warning at login this morning.",
        ],
        12,
    ),
    (
        "sys_admin",
        [("s", "system")],
        [
            "Licence renewal for {s} is due at the end of March.",
            "The supplier wants to push a patch to {s} next {day} night.",
            "{S} needs a penetration test before the new contract starts.",
            "Reminder: {s} is in scope for this year's MHRA audit.",
            "Capital bid for replacing {s} went to the finance panel.",
            "Training slides for {s} are out of date; someone should refresh them.",
        ],
        10,
    ),
    (
        "sys_pair",
        [("s", "system"), ("x", "system")],
        [
            "{S} and {x} are both in Sunday's maintenance window.",
            "For the usability study, compare the login screens of {s} and {x}.",
            "Procurement asked whether {s} could one day replace {x}.",
            "Someone mixed up {s} and {x} on the huddle whiteboard.",
            "{S} and {x} both failed the same accessibility check.",
        ],
        10,
    ),
    (
        "person_note",
        [("p", "person")],
        [
            "{P} prefers a Teams call to a phone call.",
            "{P} doesn't take meetings before ten.",
            "{P} is vegetarian; note it for the away day catering.",
            "{P} is on annual leave for the first two weeks of August.",
            "{p}'s birthday is on {date}; a card is going round.",
            "{P} passed the IPEM exam, remember to congratulate them.",
            "{P} asked to be left off the Friday status email.",
            "{P} is back from parental leave on the 1st.",
        ],
        14,
    ),
    (
        "person_sys",
        [("p", "person"), ("s", "system")],
        [
            "{P} asked me how to export a report from {s}.",
            "{P} is doing the supplier training for {s} next month.",
            "{P} logged a fault on {s} after a call from a ward.",
            "{P} demoed {s} to the new starters on {day}.",
            "{P} thinks {s} is overdue a hardware refresh.",
            "{P} complained that {s} logs them out every ten minutes.",
        ],
        14,
    ),
    (
        "person_chan",
        [("p", "person"), ("ch", "channel")],
        [
            "{P} asked in {ch} whether anyone has a spare SpO2 probe.",
            "{P} muted {ch}; too many bot messages.",
            "{P} posted the car park closure notice in {ch}.",
            "{P} shared a photo of the new test rig in {ch}.",
            "{P} was told off for posting patient details in {ch}.",
        ],
        9,
    ),
    (
        "pair_city",
        [("p", "person"), ("q", "person"), ("c", "city")],
        [
            "{P} and {q} are driving to {c} together for the regional study day.",
            "{P} is meeting {q} in the {c:name} canteen on {day}.",
            "{P} and {q} both got stuck on the train outside {c:name}.",
            "{P} offered {q} a lift back from {c:name} after the conference.",
        ],
        7,
    ),
    (
        "city_note",
        [("c", "city")],
        [
            "Parking at {c} is impossible before 8am.",
            "{C} gets new badge readers from Monday.",
            "Fire drill at {c} on {day} at 11.",
            "The lift to the {c:name} workshop is out of order again.",
        ],
        6,
    ),
    (
        "person_team",
        [("p", "person"), ("t", "team")],
        [
            "{P} is on the interview panel for a {t:name} band {band} post.",
            "{P} gave {t} a lunchtime talk on electrical safety testing.",
            "{P} would like a rotation with {t} next year.",
            "{P} helped {t} move benches during the refurb.",
            "{P} reviewed {t}'s PPM backlog as an outside pair of eyes.",
        ],
        9,
    ),
    (
        "team_note",
        [("t", "team")],
        [
            "{T} is running the Christmas quiz this year.",
            "{T} had the best PPM completion rate in Q2.",
            "{T} is short-staffed until the new hires start.",
            "{T} asked for a bigger share of the test equipment budget.",
        ],
        6,
    ),
    (
        "store_note",
        [("d", "store")],
        [
            "{D} ran out of disk on Sunday night.",
            "{D} needs a schema change before the next upgrade.",
            "Retention review: {d} holds more than eight years of data.",
            "The backup job for {d} failed twice this week.",
            "Someone ran a full table scan on {d} at 9am and everything crawled.",
        ],
        8,
    ),
    (
        "store_sys",
        [("d", "store"), ("s", "system")],
        [
            "Someone suggested moving {s} onto {d}; the idea went nowhere.",
            "We benchmarked {d} for a possible {s} migration, nothing came of it.",
            "Please do not point {s} at {d}, even for testing.",
            "Could {s} read reference data from {d}? Parked for now.",
        ],
        8,
    ),
    (
        "store_host",
        [("d", "store"), ("h", "host")],
        [
            "Trial restore of {d} into {h} took four hours.",
            "{D} was costed for {h}, but the business case was turned down.",
            "Could {d} be replicated to {h} for DR? Still an open question.",
            "Moving {d} to {h} was discussed and rejected on latency grounds.",
        ],
        6,
    ),
    (
        "host_note",
        [("h", "host")],
        [
            "{H} has a maintenance window on the 3rd from 22:00.",
            "Air con failed in {h} last week; it hit 31 degrees.",
            "{H} costs are up twelve percent this quarter.",
            "Access to {h} now needs a named escort.",
        ],
        5,
    ),
    (
        "team_chan",
        [("t", "team"), ("ch", "channel")],
        [
            "{T} was asked to stop cross-posting into {ch}.",
            "{T} got a thank-you in {ch} for fixing the defib trolley.",
            "{T} announced their quiz night in {ch} by mistake.",
        ],
        5,
    ),
    (
        "chan_note",
        [("ch", "channel")],
        [
            "{CH} has a pinned guide on raising an estates job.",
            "The bot in {ch} is posting every alert twice.",
            "{CH} is getting archived messages restored after the migration.",
            "Nobody has answered in {ch} since {day}.",
        ],
        4,
    ),
    (
        "person_store",
        [("p", "person"), ("d", "store")],
        [
            "{P} asked for read access to {d} for a clinical audit.",
            "{P} wants a nightly extract from {d} for a research project.",
            "{P} flagged a duplicate patient record in {d}.",
        ],
        5,
    ),
    (
        "person_pair",
        [("p", "person"), ("q", "person")],
        [
            "{P} is mentoring {q} through the apprenticeship.",
            "{P} swapped an on-call weekend with {q}.",
            "{P} and {q} are co-presenting at the IPEM conference.",
            "{P} owes {q} a coffee for covering the Thursday bleep.",
        ],
        6,
    ),
    (
        "person_sys_chan",
        [("p", "person"), ("s", "system"), ("ch", "channel")],
        [
            "{P} asked in {ch} why {s} was so slow this morning.",
            "{P} posted screenshots of the {s:name} error in {ch}.",
            "{P} wondered in {ch} whether {s} would be down during the upgrade.",
        ],
        5,
    ),
    (
        "person_sys_pair",
        [("p", "person"), ("s", "system"), ("x", "system")],
        [
            "{P} drew a diagram of {s} and {x} for the induction pack.",
            "{P} is writing the business case to retire {s} and {x} together.",
        ],
        3,
    ),
]

# --------------------------------------------------------------------------------------
# Question phrasing.
#   hop -> (relation, direction) ; direction "f": subject -> object, "r": object -> subject
# --------------------------------------------------------------------------------------

HOPS = {
    "owner": ("owner", "f"),
    "feeds": ("feeds", "f"),
    "store": ("uses", "f"),
    "team": ("member", "f"),
    "site": ("based", "f"),
    "lead": ("lead", "f"),
    "chan": ("channel", "f"),
    "host": ("hosted", "f"),
    "owns": ("owner", "r"),
    "leads": ("lead", "r"),
    "chan_of": ("channel", "r"),
    "used_by": ("uses", "r"),
    "fed": ("feeds", "r"),
}

# Inner noun phrases. (template, position of {x}: "end" | "mid" | "poss", clause?)
INNER = {
    "owner": [
        ("the owner of {x}", "end", False),
        ("{x}'s owner", "poss", False),
        ("whoever owns {x}", "end", False),
        ("the person who owns {x}", "end", False),
        ("the custodian of {x}", "end", False),
        ("the person responsible for {x}", "end", False),
    ],
    "feeds": [
        ("the system that feeds {x}", "end", False),
        ("{x}'s upstream system", "poss", False),
        ("whatever {x} takes its feed from", "mid", True),
        ("the upstream system of {x}", "end", False),
        ("the system {x} depends on", "mid", True),
    ],
    "store": [
        ("the data store {x} uses", "mid", True),
        ("{x}'s database", "poss", False),
        ("the store behind {x}", "end", False),
        ("the database written to by {x}", "end", False),
    ],
    "team": [
        ("{x}'s team", "poss", False),
        ("the team {x} is on", "mid", True),
        ("the team that includes {x}", "end", False),
        ("the team {x} belongs to", "mid", True),
    ],
    "lead": [
        ("the lead of {x}", "end", False),
        ("{x}'s lead", "poss", False),
        ("the person who leads {x}", "end", False),
        ("whoever heads {x}", "end", False),
    ],
    "owns": [
        ("the system {x} owns", "mid", True),
        ("the system owned by {x}", "end", False),
        ("{x}'s system", "poss", False),
    ],
    "leads": [("the team {x} leads", "mid", True), ("the team led by {x}", "end", False)],
    "chan_of": [
        ("the team that uses {x}", "end", False),
        ("the team whose channel is {x}", "end", False),
        ("the team behind {x}", "end", False),
    ],
    "used_by": [
        ("the system that uses {x}", "end", False),
        ("the only system writing to {x}", "end", False),
    ],
    "fed": [
        ("the system that depends on {x}", "end", False),
        ("the system fed by {x}", "end", False),
        ("whatever {x} feeds", "mid", True),
    ],
}

# Final frames. (template, position of {x})
FINAL = {
    "owner": [
        ("Who owns {x}?", "end"),
        ("Who is the owner of {x}?", "end"),
        ("Who do I page if {x} breaks?", "mid"),
        ("Who is the system custodian for {x}?", "end"),
        ("Name the owner of {x}.", "end"),
        ("Tell me who is accountable for {x}.", "end"),
        ("{x}: who owns it?", "mid"),
        ("Which person looks after {x}?", "end"),
        ("who signs off changes to {x}?", "end"),
    ],
    "feeds": [
        ("Which system feeds {x}?", "end"),
        ("What does {x} take its feed from?", "mid"),
        ("What is upstream of {x}?", "end"),
        ("Name the system {x} depends on.", "mid"),
        ("If {x} shows no new data, which upstream system should I check first?", "mid"),
        ("Where does {x} get its input from?", "mid"),
        ("Which system does {x} rely on?", "mid"),
    ],
    "store": [
        ("Which data store does {x} use?", "mid"),
        ("Where does {x} keep its data?", "mid"),
        ("What database sits behind {x}?", "end"),
        ("Name the store that {x} writes to.", "mid"),
        ("Which store would I have to restore to bring back {x}?", "end"),
        ("What does {x} persist to?", "mid"),
    ],
    "team": [
        ("Which team is {x} on?", "mid"),
        ("What team does {x} belong to?", "mid"),
        ("Name the team {x} works in.", "mid"),
        ("Which of the lake teams is {x} part of?", "mid"),
        ("Tell me {x}'s team.", "poss"),
        ("Which team would I find {x} in?", "mid"),
        ("Which team includes {x}?", "end"),
    ],
    "site": [
        ("Where is {x} based?", "mid"),
        ("Which campus does {x} work from?", "mid"),
        ("Which town is {x} based in?", "mid"),
        ("If I want to catch {x} in person, which site do I go to?", "mid"),
        ("What city does {x} work out of?", "mid"),
        ("Remind me where {x} sits.", "mid"),
        ("Which campus is home base for {x}?", "end"),
    ],
    "lead": [
        ("Who leads {x}?", "end"),
        ("Who is the lead of {x}?", "end"),
        ("Who runs {x}?", "end"),
        ("Name the person who heads {x}.", "end"),
        ("Who is in charge of {x}?", "end"),
    ],
    "chan": [
        ("Which channel does {x} use?", "mid"),
        ("Where do I post to reach {x}?", "end"),
        ("What is the chat channel for {x}?", "end"),
        ("Which channel should I use to get hold of {x}?", "end"),
        ("Where does {x} talk?", "mid"),
    ],
    "host": [
        ("Where is {x} hosted?", "mid"),
        ("Which data centre or cloud region hosts {x}?", "end"),
        ("Where does {x} run?", "mid"),
        ("Name the hosting location of {x}.", "end"),
        ("If I need to check the kit behind {x}, where do I look?", "mid"),
    ],
    "owns": [
        ("Which system does {x} own?", "mid"),
        ("What is {x} the custodian of?", "mid"),
        ("Name the system owned by {x}.", "end"),
        ("Which system belongs to {x}?", "end"),
    ],
    "leads": [
        ("Which team does {x} lead?", "mid"),
        ("What team is headed by {x}?", "end"),
        ("Name the team {x} runs.", "mid"),
    ],
    "chan_of": [
        ("Which team uses {x}?", "end"),
        ("Whose channel is {x}?", "mid"),
        ("Which team is behind {x}?", "end"),
    ],
    "used_by": [
        ("Which system uses {x}?", "end"),
        ("What writes to {x}?", "end"),
        ("Name the system that keeps its data in {x}.", "end"),
    ],
    "fed": [
        ("Which system depends on {x}?", "end"),
        ("What does {x} feed?", "mid"),
        ("Name the system downstream of {x}.", "end"),
    ],
}

KEYWORD = {
    "owner": "owner",
    "feeds": "upstream",
    "store": "datastore",
    "team": "team",
    "site": "site",
    "lead": "lead",
    "chan": "channel",
    "host": "hosting",
    "owns": "owned system",
    "leads": "team led",
    "chan_of": "team",
    "used_by": "used by",
    "fed": "downstream",
}
ARROW = {
    "owner": "owner",
    "feeds": "upstream",
    "store": "store",
    "team": "team",
    "site": "city",
    "lead": "lead",
    "chan": "channel",
    "host": "hosted in",
    "owns": "owns",
    "leads": "leads",
    "chan_of": "channel of",
    "used_by": "used by",
    "fed": "feeds",
}

CONTEXT = {
    "system": (
        [
            "I'm prepping for the audit of {x}.",
            "{X} has been flaky all week.",
            "There's a change request in for {x}.",
            "The supplier is coming in about {x} tomorrow.",
            "A ward manager keeps complaining about {x}.",
        ],
        "that system",
    ),
    "person": (
        [
            "{X} is covering my on-call tomorrow.",
            "I have a 1:1 with {x} this afternoon.",
            "{X} emailed me about a purchase order.",
            "I need a form signed by {x}.",
        ],
        None,
    ),
    "team": (
        [
            "{X} is hosting the next department meeting.",
            "I'm writing the quarterly report for {x}.",
        ],
        "that team",
    ),
    "channel": (["Someone pinged me from {x}.", "{X} has gone very quiet lately."], "that channel"),
    "store": (["{X} is nearly full.", "Backups of {x} failed last night."], "that store"),
}
FRAME_WORDS = ("Who", "Which", "What", "Where", "Name", "Tell", "Remind", "If")
CASUAL = ["Quick one: ", "Before the huddle: ", "For the handover notes: ", "Sanity check: "]

ONE_HOP = [
    ("owner", 7),
    ("feeds", 5),
    ("store", 5),
    ("team", 5),
    ("site", 5),
    ("lead", 4),
    ("chan", 4),
    ("host", 4),
    ("owns", 3),
    ("leads", 3),
    ("chan_of", 2),
    ("used_by", 2),
    ("fed", 1),
]
TWO_HOP = [
    ("owner.site", 6),
    ("owner.team", 6),
    ("store.host", 6),
    ("feeds.owner", 6),
    ("feeds.store", 4),
    ("team.lead", 6),
    ("team.chan", 5),
    ("lead.site", 4),
    ("feeds.feeds", 4),
    ("owns.store", 3),
    ("owns.feeds", 2),
    ("chan_of.lead", 3),
    ("leads.chan", 3),
    ("used_by.owner", 2),
]
THREE_HOP = [
    ("owner.team.lead", 6),
    ("owner.team.chan", 6),
    ("feeds.owner.site", 5),
    ("feeds.owner.team", 5),
    ("feeds.store.host", 5),
    ("team.lead.site", 6),
    ("feeds.feeds.owner", 4),
    ("chan_of.lead.site", 3),
    ("owns.store.host", 4),
    ("owns.feeds.owner", 2),
    ("used_by.owner.site", 2),
    ("fed.owner.team", 2),
]


# --------------------------------------------------------------------------------------
# Graph
# --------------------------------------------------------------------------------------


def build_graph(rng):
    systems, people, teams = KIND["system"], KIND["person"], KIND["team"]
    stores, hosts, cities, channels = KIND["store"], KIND["host"], KIND["city"], KIND["channel"]
    edges = []  # (rel, subject, object)

    # feeds: a random topological order; 30 systems get one upstream from earlier in it
    order = systems[:]
    rng.shuffle(order)
    with_up = sorted(rng.sample(range(1, len(order)), 30))
    for i in with_up:
        # bias towards recent systems so that chains get deep
        lo = max(0, i - 8)
        edges.append(("feeds", order[i], order[rng.randrange(lo, i)]))

    # owner: 28 people own one system, 7 own two, 5 own none
    ppl = people[:]
    rng.shuffle(ppl)
    slots = ppl[:28] + ppl[28:35] * 2
    rng.shuffle(slots)
    for s, p in zip(systems, slots):
        edges.append(("owner", s, p))

    # uses: 36 systems; 5 stores used once, 13 stores used 2-3 times
    st = stores[:]
    rng.shuffle(st)
    multi = st[5:]
    uses = st[:5] + multi * 2 + rng.sample(multi, 5)
    rng.shuffle(uses)
    users = rng.sample(systems, 36)
    for s, d in zip(users, uses):
        edges.append(("uses", s, d))

    # member: 4 per team; lead: one of them
    ppl = people[:]
    rng.shuffle(ppl)
    for i, t in enumerate(teams):
        members = ppl[4 * i : 4 * i + 4]
        for p in members:
            edges.append(("member", p, t))
        edges.append(("lead", t, rng.choice(members)))

    # based: 5 per city
    ppl = people[:]
    rng.shuffle(ppl)
    for i, p in enumerate(ppl):
        edges.append(("based", p, cities[i % len(cities)]))

    # channel: one-to-one
    ch = channels[:]
    rng.shuffle(ch)
    for t, c in zip(teams, ch):
        edges.append(("channel", t, c))

    # hosted: 3 stores per host
    st = stores[:]
    rng.shuffle(st)
    for i, d in enumerate(st):
        edges.append(("hosted", d, hosts[i % len(hosts)]))
    return edges


class Graph:
    def __init__(self, edges):
        self.edges = edges
        self.fwd, self.rev = {}, {}
        for e in edges:
            self.fwd.setdefault((e[0], e[1]), []).append(e)
            self.rev.setdefault((e[0], e[2]), []).append(e)

    def one(self, rel, ent, direction):
        idx = self.fwd if direction == "f" else self.rev
        return idx.get((rel, ent), [])

    def get(self, rel, ent):
        got = self.fwd.get((rel, ent), [])
        return got[0][2] if got else None


def distractor_ok(kind, a, g):
    """a: slot -> entity id. No distractor may state (or sit on top of) a true edge."""
    p, q, s, x = a.get("p"), a.get("q"), a.get("s"), a.get("x")
    if p and s and g.get("owner", s) == p:
        return False
    if p and x and g.get("owner", x) == p:
        return False
    if s and x and (g.get("feeds", s) == x or g.get("feeds", x) == s):
        return False
    if "d" in a and s and g.get("uses", s) == a["d"]:
        return False
    if "d" in a and "h" in a and g.get("hosted", a["d"]) == a["h"]:
        return False
    if "ch" in a and p and g.get("channel", g.get("member", p)) == a["ch"]:
        return False
    if "ch" in a and "t" in a and g.get("channel", a["t"]) == a["ch"]:
        return False
    if "t" in a and p and (g.get("member", p) == a["t"] or g.get("lead", a["t"]) == p):
        return False
    if "c" in a and p and g.get("based", p) == a["c"]:
        return False
    if "c" in a and q and g.get("based", q) == a["c"]:
        return False
    if p and q and g.get("member", p) == g.get("member", q):
        return False  # pairs from different teams only
    return True


# --------------------------------------------------------------------------------------
# Questions
# --------------------------------------------------------------------------------------


def walk(g, start, hops):
    """Follow hops from start. Returns [(edge, next entity)] or None if any hop is not
    unique or an entity repeats."""
    seen = [start]
    cur, out = start, []
    for h in hops:
        rel, d = HOPS[h]
        got = g.one(rel, cur, d)
        if len(got) != 1:
            return None
        e = got[0]
        nxt = e[2] if d == "f" else e[1]
        if nxt in seen:
            return None
        seen.append(nxt)
        out.append((e, nxt))
        cur = nxt
    return out


def start_kind(hop):
    rel, d = HOPS[hop]
    return REL_KINDS[rel][0 if d == "f" else 1]


def np_fits(pos, np):
    if pos == "poss":
        return np["simple"]
    if pos == "mid":
        return not np["clause"]
    return True


def question_text(rng, g, start, hops, style):
    """Returns (question, start form used)."""
    ent = ENT[start]
    used = {}
    if style == "context":
        sents, back = CONTEXT[ent["kind"]]
        ctx = render(rng, rng.choice(sents), {"x": start}, used, QUESTION_WEIGHTS)
        if back is None:
            back = (
                ent["forms"].get("nick", ent["forms"]["first"])[0]
                if rng.random() < 0.5
                else ent["forms"]["first"][0]
            )
        np = {"text": back, "simple": True, "clause": False}
    else:
        np = {
            "text": render(rng, "{x}", {"x": start}, used, QUESTION_WEIGHTS),
            "simple": True,
            "clause": False,
        }
    if style in ("keyword", "arrow"):
        if style == "keyword":
            q = np["text"] + " " + " ".join(KEYWORD[h] for h in hops) + "?"
        else:
            q = np["text"] + " -> " + " -> ".join(ARROW[h] for h in hops) + "?"
        return cap(q), used["x"]
    for h in hops[:-1]:
        opts = [t for t in INNER[h] if np_fits(t[1], np)]
        tmpl, pos, clause = rng.choice(opts)
        text = tmpl.replace("{x}", np["text"])
        np = {
            "text": text,
            "simple": pos == "poss",
            "clause": np["clause"] if pos == "end" else clause,
        }
    opts = [t for t in FINAL[hops[-1]] if np_fits(t[1], np)]
    tmpl, pos = rng.choice(opts)
    q = tmpl.replace("{x}", np["text"])
    q = cap(q)
    if style == "context":
        q = ctx + " " + q[0].upper() + q[1:] if q.startswith("who ") else ctx + " " + q
    elif style == "casual":
        if q.split(" ", 1)[0] in FRAME_WORDS:
            q = q[0].lower() + q[1:]
        q = rng.choice(CASUAL) + q
    return q, used["x"]


def lower_case(q):
    q = q.lower().replace("?", "").replace(",", "").replace("!", "")
    return q.rstrip(".").strip()


def build_questions(rng, g, rel_fact_id):
    plan = [(1, ONE_HOP), (2, TWO_HOP), (3, THREE_HOP)]
    styles = ["plain"] * 96 + ["context"] * 26 + ["casual"] * 8 + ["keyword"] * 17 + ["arrow"] * 13
    rng.shuffle(styles)
    items = []
    usage = {}
    for n, patterns in plan:
        for pat, count in patterns:
            hops = pat.split(".")
            assert len(hops) == n
            cands = []
            for s in KIND[start_kind(hops[0])]:
                w = walk(g, s, hops)
                if w is not None:
                    cands.append((s, w))
            assert len(cands) >= count, (pat, len(cands), count)
            rng.shuffle(cands)
            # prefer starts not used yet, stable on the shuffled order
            cands.sort(key=lambda c: usage.get(c[0], 0))
            for s, w in cands[:count]:
                usage[s] = usage.get(s, 0) + 1
                items.append((n, pat, hops, s, w))
    assert len(items) == 160
    questions = []
    seen = set()
    lower_budget = 16
    lower_pool = [i for i, st in enumerate(styles) if st in ("plain", "context", "casual")]
    lower_idx = set(rng.sample(lower_pool, lower_budget))
    for i, (n, pat, hops, s, w) in enumerate(items):
        style = styles[i]
        for _ in range(50):
            q, form = question_text(rng, g, s, hops, style)
            if i in lower_idx:
                q = lower_case(q)
            if q.lower() not in seen:
                break
        else:
            raise AssertionError("could not make a distinct question for %s" % pat)
        seen.add(q.lower())
        gold = [rel_fact_id[e] for e, _ in w]
        questions.append(
            {
                "question": q,
                "hops": n,
                "gold": gold,
                "_pattern": pat,
                "_style": style + ("+lower" if i in lower_idx else ""),
                "_start": s,
                "_answer": w[-1][1],
                "_form": form,
                "_path": [s] + [nx for _, nx in w],
                "_edges": [e for e, _ in w],
            }
        )
    rng.shuffle(questions)
    return questions


# --------------------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------------------


def main():
    rng = random.Random(SEED)
    build_entities()
    check_aliases()
    g = Graph(build_graph(rng))

    # relation facts, phrasings dealt from a shuffled deck per relation
    facts = []
    decks = {}
    edge_form = {}
    for e in g.edges:
        rel = e[0]
        deck = decks.setdefault(rel, [])
        if not deck:
            deck.extend(range(len(PHRASINGS[rel])))
            rng.shuffle(deck)
        t = deck.pop()
        a, b = REL_SLOTS[rel]
        used = {}
        text = render(rng, PHRASINGS[rel][t], {a: e[1], b: e[2]}, used)
        edge_form[e] = used
        facts.append({"content": text, "_rel": rel, "_edge": e, "_tmpl": t, "_ents": [e[1], e[2]]})

    # distractors
    for kind, slots, templates, count in DISTRACTORS:
        made = 0
        deck = []
        combos = set()
        texts = set(f["content"] for f in facts)
        while made < count:
            a = {}
            for name, k in slots:
                pool = [x for x in KIND[k] if x not in a.values()]
                a[name] = rng.choice(pool)
            if not distractor_ok(kind, a, g):
                continue
            combo = tuple(sorted(a.values()))
            if combo in combos:
                continue  # one note per entity combination and kind
            combos.add(combo)
            if not deck:
                deck.extend(range(len(templates)))
                rng.shuffle(deck)
            t = deck.pop()
            text = render(rng, templates[t], a)
            if text in texts:
                continue
            texts.add(text)
            facts.append(
                {
                    "content": text,
                    "_rel": None,
                    "_kind": kind,
                    "_tmpl": t,
                    "_ents": [a[n] for n, _ in slots],
                }
            )
            made += 1

    rng.shuffle(facts)
    for i, f in enumerate(facts):
        f["id"] = "m%03d" % (i + 1)
    rel_fact_id = {f["_edge"]: f["id"] for f in facts if f["_rel"]}

    questions = build_questions(rng, g, rel_fact_id)
    check_world(g, facts, questions, edge_form)

    world = {
        "facts": [{"id": f["id"], "content": f["content"]} for f in facts],
        "questions": [
            {"question": q["question"], "hops": q["hops"], "gold": q["gold"]} for q in questions
        ],
    }
    data = json.dumps(world, ensure_ascii=False, indent=1) + "\n"
    with open(OUT, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(data)
    report(g, facts, questions, edge_form, hashlib.md5(data.encode("utf-8")).hexdigest())


# --------------------------------------------------------------------------------------
# Self-checks
# --------------------------------------------------------------------------------------


def check_aliases():
    counts = {k: len(v) for k, v in KIND.items()}
    assert counts == {
        "system": 42,
        "store": 18,
        "host": 6,
        "city": 8,
        "team": 10,
        "channel": 10,
        "person": 40,
    }, counts
    firsts = [ENT[p]["forms"]["first"][0].lower() for p in KIND["person"]]
    assert len(firsts) == len(set(firsts)), "first names must be unique"
    owner_of = {}
    for eid, e in ENT.items():
        for a in e["match"]:
            assert owner_of.setdefault(a.lower(), eid) == eid, ("alias on two entities", a)
    for eid, e in ENT.items():
        strings = e["match"] + [s for v in e["forms"].values() for s in v]
        for s in strings:
            # every written form is recognised as this entity and as nothing else
            assert mentions(s) == [eid], (eid, s, mentions(s))


def check_world(g, facts, questions, edge_form):
    ids = [f["id"] for f in facts]
    assert len(ids) == len(set(ids))
    texts = [f["content"] for f in facts]
    assert len(texts) == len(set(texts)), "duplicate fact text"
    assert 350 <= len(facts) <= 450
    n_dis = sum(1 for f in facts if f["_rel"] is None)
    assert 0.37 <= n_dis / len(facts) <= 0.43, n_dis / len(facts)

    # relations are functional forward; lead is a member; channel one-to-one
    for (rel, subj), es in g.fwd.items():
        assert len(es) == 1, (rel, subj)
    for t in KIND["team"]:
        assert g.get("member", g.get("lead", t)) == t
    chans = [g.get("channel", t) for t in KIND["team"]]
    assert len(set(chans)) == len(chans)
    # feeds is acyclic
    for s in KIND["system"]:
        seen, cur = [s], g.get("feeds", s)
        while cur is not None:
            assert cur not in seen, "feeds cycle"
            seen.append(cur)
            cur = g.get("feeds", cur)
    keys = [e for e in g.edges]
    assert len(keys) == len(set(keys))

    # phrasing variety: every relation uses >= 10 distinct phrasings
    for rel in PHRASINGS:
        used = set(f["_tmpl"] for f in facts if f["_rel"] == rel)
        assert len(used) >= 10, (rel, len(used))

    # each fact names exactly the entities it was built from
    for f in facts:
        got = mentions(f["content"])
        want = [e for e in ENT if e in f["_ents"]]
        assert got == want, (f["content"], got, want)
        low = f["content"].lower()
        assert "the the " not in low and "team team" not in low, f["content"]

    # questions
    hops = [q["hops"] for q in questions]
    assert {h: hops.count(h) for h in (1, 2, 3)} == {1: 50, 2: 60, 3: 50}
    qs = [q["question"].lower() for q in questions]
    assert len(qs) == len(set(qs)), "duplicate question"
    by_id = {f["id"]: f for f in facts}
    for q in questions:
        assert len(q["gold"]) == q["hops"]
        assert all(x in by_id for x in q["gold"])
        # the question names its start entity and no other entity
        assert mentions(q["question"]) == [q["_start"]], (q["question"], mentions(q["question"]))
        # chain: fact 1 is about the start; fact i+1 is about the entity fact i leads to
        cur = q["_start"]
        path = [cur]
        for hop, fid in zip(q["_pattern"].split("."), q["gold"]):
            f = by_id[fid]
            assert f["_rel"] is not None, "gold fact is a distractor"
            rel, d = HOPS[hop]
            e = f["_edge"]
            assert e[0] == rel
            src, dst = (e[1], e[2]) if d == "f" else (e[2], e[1])
            assert src == cur, ("chain broken", q["question"])
            assert cur in mentions(f["content"]) and dst in mentions(f["content"])
            # the hop has exactly one answer among all relation facts
            same = [
                x
                for x in facts
                if x["_rel"] == rel and (x["_edge"][1] if d == "f" else x["_edge"][2]) == cur
            ]
            assert len(same) == 1, ("ambiguous hop", q["question"])
            cur = dst
            path.append(cur)
        assert len(path) == len(set(path)), "chain revisits an entity"
        assert cur == q["_answer"]

    # nothing that looks like a secret
    blob = "\n".join(texts + [q["question"] for q in questions])
    for w in ("password", "secret", "token", "api key", "apikey"):
        assert w not in blob.lower(), w
    assert not re.search(r"[A-Za-z0-9]{25,}", blob)
    for m in re.finditer(r"[\w.+-]+@([\w-]+(?:\.[\w-]+)+)", blob):
        assert m.group(1) == "example.com", m.group(0)


def report(g, facts, questions, edge_form, md5):
    rel_facts = [f for f in facts if f["_rel"]]
    dis = [f for f in facts if not f["_rel"]]
    print("entities:", ", ".join("%s %d" % (k, len(v)) for k, v in KIND.items()))
    print(
        "facts: %d (relation %d, distractor %d = %.1f%%)"
        % (len(facts), len(rel_facts), len(dis), 100.0 * len(dis) / len(facts))
    )
    for rel in PHRASINGS:
        n = sum(1 for f in rel_facts if f["_rel"] == rel)
        u = len(set(f["_tmpl"] for f in rel_facts if f["_rel"] == rel))
        print("  %-8s facts %2d  phrasings written %2d used %2d" % (rel, n, len(PHRASINGS[rel]), u))
    ne = [len(f["_ents"]) for f in dis]
    print(
        "distractors naming 1/2/3 entities: %d/%d/%d, kinds %d, templates %d"
        % (
            ne.count(1),
            ne.count(2),
            ne.count(3),
            len(DISTRACTORS),
            sum(len(d[2]) for d in DISTRACTORS),
        )
    )
    multi = sum(1 for f in facts if "\n" in f["content"])
    print("multi-line facts:", multi)
    hops = [q["hops"] for q in questions]
    print(
        "questions: %d (1-hop %d, 2-hop %d, 3-hop %d)"
        % (len(questions), hops.count(1), hops.count(2), hops.count(3))
    )
    styles = {}
    for q in questions:
        styles[q["_style"]] = styles.get(q["_style"], 0) + 1
    print("question styles:", ", ".join("%s %d" % (k, styles[k]) for k in sorted(styles)))
    # person questions: how the question names the person vs the first gold fact
    pq = [q for q in questions if ENT[q["_start"]]["kind"] == "person"]
    differ = 0
    forms = {}
    for q in pq:
        e = q["_edges"][0]
        slot = REL_SLOTS[e[0]][0 if e[1] == q["_start"] else 1]
        ff = edge_form[e][slot]
        forms[q["_form"]] = forms.get(q["_form"], 0) + 1
        if ff != q["_form"]:
            differ += 1
    print(
        "questions starting at a person: %d (forms %s); named differently from gold fact: %d"
        % (len(pq), ", ".join("%s %d" % (k, forms[k]) for k in sorted(forms)), differ)
    )
    print("md5 world.json:", md5)


if __name__ == "__main__":
    main()
