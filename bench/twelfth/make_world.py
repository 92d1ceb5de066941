#!/usr/bin/env python3
"""Deterministic generator for bench/twelfth/world.json.

World: the long-term memory of an AI assistant working for the Research
Computing & Lab Operations group of (fictional) Ardmore University.

One random.Random(SEED) makes every choice.  No set is ever iterated, so the
output is identical for any PYTHONHASHSEED.  Standard library only.

    python3 make_world.py      # writes world.json next to this file
"""

import hashlib
import json
import os
import random
import re

SEED = 12_0612
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "world.json")
ID_PREFIX = "rc"
N_DISTRACTORS = 110
QUOTA = {1: 50, 2: 60, 3: 50}
MAX_TEMPLATE_USES = 4
MAX_START_USES = 3

rng = random.Random(SEED)

# --------------------------------------------------------------------------
# Entities
# --------------------------------------------------------------------------
BUILDINGS = [
    ("b_kes", "Kestrel Building"),
    ("b_hal", "Halden Lab Block"),
    ("b_qla", "Quarry Lane Annex"),
    ("b_bsp", "Beacon Science Park"),
    ("b_omh", "Old Mill House"),
    ("b_mar", "Marlow Library"),
]

# id, name, alias
HOSTS = [
    ("h_mr1", "MR-1", "Machine Room 1"),
    ("h_dcn", "DC-North", "the North data centre"),
    ("h_s07", "stor07", "gpfs-head-07"),
    ("h_hsc", "HSC-2", "the Halden server closet"),
    ("h_tv3", "TV-3", "tape vault 3"),
    ("h_euw", "eu-west-2", "the London cloud region"),
]

# id, name, alias, host
STORES = [
    ("d_seq", "SeqDB", "seqdb.prod", "h_hsc"),
    ("d_lus", "Lustre scratch", "/lustre/scratch", "h_dcn"),
    ("d_cry", "the cryo-raw bucket", "s3://ardmore-cryo-raw", "h_euw"),
    ("d_pv", "ProjectVault", "/gpfs/projects", "h_s07"),
    ("d_cold", "ColdStore", "coldstore-lto", "h_tv3"),
    ("d_lims", "LIMSDB", None, "h_mr1"),
    ("d_ms", "the MSData share", "smb://msdata", "h_s07"),
    ("d_home", "HomeFS", "/home", "h_dcn"),
    ("d_q", "IngestQ", "rmq vhost /ingest", "h_mr1"),
    ("d_bak", "BackupBucket", None, "h_euw"),
    ("d_img", "ImageStore", None, "h_mr1"),
    ("d_kfs", "KestrelFS", "kfs01", "h_s07"),
]

# id, name, short name, channel, home building
GROUPS = [
    ("g_hpc", "HPC Platform", "the platform team", "#hpc-platform", "b_qla"),
    ("g_rse", "Research Software Engineering", "RSE", "#rse-dev", "b_qla"),
    ("g_rds", "Research Data Services", "RDS", "rds-help@ardmore.ac.uk", "b_omh"),
    ("g_stew", "Research Data Stewardship", "the data stewards", "#data-stewards", "b_omh"),
    ("g_em", "Cryo-EM & Microscopy Facility", "the EM facility", "#em-facility", "b_kes"),
    ("g_seq", "Genomics Sequencing Facility", "the sequencing core", "#seq-core", "b_hal"),
    (
        "g_ms",
        "Mass Spectrometry Facility",
        "the MS facility",
        "ms-users@lists.ardmore.ac.uk",
        "b_bsp",
    ),
    ("g_sd", "IT Service Desk", "the service desk", "#servicedesk-triage", "b_mar"),
    ("g_lab", "Lab Operations", "LabOps", "#labops", "b_bsp"),
]

# id, first, last, title, nickname, handle, group, is_lead
PEOPLE = [
    ("p_wat", "Kenji", "Watanabe", "Prof", None, "kwat", "g_hpc", True),
    ("p_wil", "Tomasz", "Wilk", None, None, "tomw", "g_hpc", False),
    ("p_wal", "Connor", "Walsh", None, None, "cwalsh_hpc", "g_hpc", False),
    ("p_vol", "Dmitri", "Volkov", None, "Dima", None, "g_hpc", False),
    ("p_qur", "Zara", "Qureshi", None, None, "zq", "g_hpc", False),
    ("p_ram", "Priya", "Raman", "Dr", "Pri", None, "g_rse", True),
    ("p_mey", "Lucas", "Meyer", None, None, "lmeyer42", "g_rse", False),
    ("p_bra", "Felix", "Brandt", None, None, "@fbrandt", "g_rse", False),
    ("p_bia", "Chiara", "Bianchi", None, "Kiki", None, "g_rse", False),
    ("p_gol", "Hannah", "Goldberg", "Dr", None, "hgold", "g_rds", True),
    ("p_lin", "Oskar", "Lindqvist", None, None, "@oskarl", "g_rds", False),
    ("p_far", "Leila", "Farahani", None, None, "leila.f", "g_rds", False),
    ("p_dem", "Yusuf", "Demir", None, "Yus", None, "g_rds", False),
    ("p_ros", "Elena", "Rossi", "Prof", None, None, "g_stew", True),
    ("p_bre", "Aoife", "Brennan", None, None, "aoifeb", "g_stew", False),
    ("p_ekl", "Tobias", "Eklund", None, "Tobi", None, "g_stew", False),
    ("p_che", "Mei Lin", "Chen", None, None, "meilin.c", "g_stew", False),
    ("p_tal", "Petra", "Talos", "Dr", None, None, "g_em", True),
    ("p_kea", "Siobhan", "Keane", None, "Shiv", None, "g_em", False),
    ("p_ort", "Rafael", "Ortega", None, "Rafa", "raf.o", "g_em", False),
    ("p_haa", "Benedikt", "Haas", "Dr", None, "bhaas", "g_em", False),
    ("p_dua", "Ines", "Duarte", None, None, "ines_d", "g_em", False),
    ("p_oka", "Ngozi", "Okafor", "Dr", None, "@nokafor", "g_seq", True),
    ("p_rez", "Hamid", "Rezaei", None, None, "hrez", "g_seq", False),
    ("p_ade", "Samuel", "Adeyemi", None, "Sam", None, "g_seq", False),
    ("p_nov", "Beatrix", "Novak", None, "Bea", None, "g_seq", False),
    ("p_meh", "Arjun", "Mehta", None, None, "@arjun", "g_seq", False),
    ("p_men", "Grace", "Mensah", "Dr", None, "gmensah", "g_ms", True),
    ("p_bel", "Fatima", "Bello", None, "Tima", None, "g_ms", False),
    ("p_lem", "Victor", "Lemaire", None, None, "vlem", "g_ms", False),
    ("p_had", "Nadia", "Haddad", "Dr", None, None, "g_ms", False),
    ("p_pri", "Owen", "Price", "Mr", None, "oprice", "g_sd", True),
    ("p_hol", "Marcus", "Holt", None, "Moose", None, "g_sd", False),
    ("p_fra", "Callum", "Fraser", None, "Cal", None, "g_sd", False),
    ("p_whi", "Jade", "Whitlock", None, None, "jwhit", "g_sd", False),
    ("p_abe", "Ruth", "Abernathy", None, "Ruthie", None, "g_lab", True),
    ("p_ose", "Daniel", "Osei", "Dr", None, "dosei", "g_lab", False),
    ("p_sor", "Greta", "Sorensen", None, None, "gs-labops", "g_lab", False),
]

# id, name, alias, owning group (domain), data store, upstream system
SYSTEMS = [
    ("s_slurm", "Slurm", "slurmctld", "g_hpc", None, "s_ldap"),
    ("s_ood", "Open OnDemand", "OOD", "g_hpc", "d_home", "s_slurm"),
    ("s_jhub", "JupyterHub", "jhub", "g_rse", "d_home", "s_slurm"),
    ("s_flex", "FlexLM", "lic01", "g_hpc", None, None),
    ("s_lens", "LicenceLens", "lic_lens", "g_rse", "d_pv", "s_flex"),
    ("s_dtn", "Globus DTN", "dtn01", "g_hpc", "d_lus", "s_ldap"),
    ("s_night", "NightOwl", "nightowl-backup", "g_hpc", "d_bak", "s_labtrack"),
    ("s_tape", "TapeMover", "hsm-mover", "g_hpc", "d_cold", "s_night"),
    ("s_watch", "Watchtower", None, "g_hpc", "d_pv", "s_slurm"),
    ("s_quota", "QuotaBot", "quota_bot", "g_hpc", "d_pv", "s_watch"),
    ("s_ldap", "CampusLDAP", "ldap01", "g_sd", None, None),
    ("s_onb", "Onboarder", "acct-prov", "g_sd", "d_home", "s_help"),
    ("s_help", "HelpPoint", None, "g_sd", None, "s_ldap"),
    ("s_pager", "PagerPal", None, "g_sd", "d_q", "s_watch"),
    ("s_cost", "CostCentre", "chargeback.svc", "g_rds", "d_pv", "s_book"),
    ("s_git", "RSE GitLab", "git.rcs", "g_rse", "d_pv", "s_ldap"),
    ("s_ci", "RunnerFleet", "ci-runners", "g_rse", "d_lus", "s_git"),
    ("s_harbor", "Harbor registry", "registry.rcs", "g_rse", "d_pv", "s_ci"),
    ("s_krios", "Krios control PC", "EMCTRL-01", "g_em", "d_kfs", "s_book"),
    ("s_talos", "Talos control PC", "talos-ctl", "g_em", "d_kfs", "s_book"),
    ("s_cryo", "CryoSync", "cryo-sync", "g_em", "d_cry", "s_krios"),
    ("s_relion", "RelionRig", "relion-rig", "g_em", "d_lus", "s_cryo"),
    ("s_omero", "OMERO", "omero.kestrel", "g_em", "d_img", "s_talos"),
    ("s_kview", "KestrelView", "KV", "g_em", "d_img", "s_omero"),
    ("s_shuttle", "RunShuttle", "runshuttle.svc", "g_seq", "d_q", "s_trail"),
    ("s_ingest", "SeqIngest", "seq_ingest", "g_seq", "d_seq", "s_shuttle"),
    ("s_demux", "DemuxFlow", "demux-flow", "g_seq", "d_lus", "s_ingest"),
    ("s_var", "VarCall", "varcall.nf", "g_seq", "d_pv", "s_demux"),
    ("s_trail", "SampleTrail", "STR", "g_lab", "d_lims", "s_labtrack"),
    ("s_orbi", "Orbitrap acquisition PC", "MS-ACQ-2", "g_ms", "d_ms", "s_book"),
    ("s_mspipe", "MSPipe", "ms.pipe.v2", "g_ms", "d_ms", "s_orbi"),
    ("s_prot", "ProtDB portal", "protdb", "g_ms", "d_pv", "s_mspipe"),
    ("s_labtrack", "LabTrack", "labtrack-prod", "g_lab", "d_lims", None),
    ("s_book", "BookIt", "bookit-v3", "g_lab", "d_lims", "s_ldap"),
    ("s_cold", "ColdWatch", None, "g_lab", "d_q", None),
    ("s_label", "LabelForge", None, "g_lab", None, "s_trail"),
    ("s_eln", "LabJournal", "eln.ardmore", "g_rds", "d_bak", "s_ldap"),
    ("s_shelf", "DataShelf", "datashelf.meta", "g_stew", "d_pv", "s_dtn"),
    ("s_mint", "MintDOI", "mint_doi", "g_stew", None, "s_shelf"),
    ("s_grid", "GridHarvest", None, "g_rds", "d_cold", "s_dtn"),
    ("s_gate", "ArchiveGate", "archive.gate", "g_rds", "d_cold", "s_tape"),
    ("s_consent", "ConsentLedger", None, "g_stew", "d_seq", "s_trail"),
]

ENT = {}  # id -> {"type", "forms": {formname: surface}}
ORDER = {}  # type -> [ids] in definition order


def add_ent(eid, etype, forms):
    ENT[eid] = {"type": etype, "forms": forms}
    ORDER.setdefault(etype, []).append(eid)


for bid, name in BUILDINGS:
    add_ent(bid, "building", {"name": name})
for hid, name, alias in HOSTS:
    add_ent(hid, "host", {"name": name, "alias": alias})
for did, name, alias, _ in STORES:
    f = {"name": name}
    if alias:
        f["alias"] = alias
    add_ent(did, "store", f)
for gid, name, short, chan, _ in GROUPS:
    add_ent(gid, "group", {"name": name, "alias": short})
    add_ent("c" + gid[1:], "channel", {"name": chan})
for pid, first, last, title, nick, handle, _, _ in PEOPLE:
    f = {"full": first + " " + last, "first": first, "surname": last}
    if title:
        f["title"] = title + " " + last
    if nick:
        f["nick"] = nick
    if handle:
        f["handle"] = handle
    add_ent(pid, "person", f)
for sid, name, alias, _, _, _ in SYSTEMS:
    f = {"name": name}
    if alias:
        f["alias"] = alias
    add_ent(sid, "system", f)

CANON = {"person": "full"}  # canonical form name per type (default "name")


def canon_form(eid):
    return CANON.get(ENT[eid]["type"], "name")


def alias_kinds(eid):
    t = ENT[eid]["type"]
    f = ENT[eid]["forms"]
    if t == "person":
        return [k for k in ("nick", "handle") if k in f]
    return ["alias"] if "alias" in f else []


# --------------------------------------------------------------------------
# Relations
# --------------------------------------------------------------------------
GROUP_PEOPLE = {}
for pid, _, _, _, _, _, gid, _ in PEOPLE:
    GROUP_PEOPLE.setdefault(gid, []).append(pid)
ALL_PEOPLE = [p[0] for p in PEOPLE]
GROUP_HOME = {g[0]: g[4] for g in GROUPS}
ALL_BUILDINGS = [b[0] for b in BUILDINGS]

RELS = []  # (kind, subj, obj)
for sid, _, _, dom, store, up in SYSTEMS:
    if rng.random() < 0.12:
        owner = rng.choice(ALL_PEOPLE)
    else:
        owner = rng.choice(GROUP_PEOPLE[dom])
    RELS.append(("owner", sid, owner))
for sid, _, _, dom, store, up in SYSTEMS:
    if up:
        RELS.append(("dep", sid, up))
for sid, _, _, dom, store, up in SYSTEMS:
    if store:
        RELS.append(("store", sid, store))
for did, _, _, host in STORES:
    RELS.append(("host", did, host))
for pid, _, _, _, _, _, gid, lead in PEOPLE:
    if lead:
        RELS.append(("lead", gid, pid))
    else:
        RELS.append(("member", pid, gid))
for gid, _, _, _, _ in GROUPS:
    RELS.append(("chan", gid, "c" + gid[1:]))
for pid, _, _, _, _, _, gid, _ in PEOPLE:
    if rng.random() < 0.7:
        b = GROUP_HOME[gid]
    else:
        b = rng.choice(ALL_BUILDINGS)
    RELS.append(("works", pid, b))

# placeholder names for subject / object per kind
SLOTS = {
    "owner": ("s", "p"),
    "dep": ("a", "b"),
    "store": ("s", "d"),
    "host": ("d", "h"),
    "member": ("p", "g"),
    "lead": ("g", "p"),
    "chan": ("g", "c"),
    "works": ("p", "b"),
}

# --------------------------------------------------------------------------
# Fact phrasings.  {sp} marks a person slot rendered as a chat speaker.
# --------------------------------------------------------------------------
T = {}
T["owner"] = [
    "{p} owns {s}.",
    "{s} is maintained by {p}.",
    "{s} — owner: {p}",
    "| {s} | owner | {p} |",
    "service: {s}\nowner: {p}\nsupport: business hours",
    '{{"system": "{s}", "owner": "{p}"}}',
    "{s} -> owner -> {p}",
    "{sp}: {s} is mine now, ping me if it misbehaves",
    "Note to self: anything wrong with {s}, chase {p} — it's theirs.",
    "Ops sync {date}: ownership of {s} formally sits with {p}.",
    "INC-{n} comment: routing to {p}, who maintains {s}.",
    "If {s} falls over, {p} is the one on the hook.",
    "{p} has looked after {s} since the spring migration.",
    "{sp}: fyi I'm the maintainer for {s} now, the old wiki page is wrong",
    "Asked around: {s} belongs to {p}.",
    "Handover notes from the spring reorg: {s} was orphaned for a while, but {p} has formally taken it on and is now the person to page when it breaks.",
]
T["dep"] = [
    "{a} depends on {b}.",
    "{b} feeds {a}.",
    "{a} pulls its input from {b}.",
    "Data flow: {b} → {a}",
    "| {a} | depends on | {b} |",
    "upstream of {a}: {b}",
    "{a}:\n  depends_on: [{b}]",
    "(chat) heads up — if {b} goes down, {a} stalls; it can't run without it",
    "Arch review {date}: confirmed {a} sits downstream of {b}.",
    "INC-{n}: {a} failing because its upstream, {b}, was unreachable.",
    "{a} is fed nightly by {b}.",
    '{{"service": "{a}", "upstream": "{b}"}}',
    "Everything {a} processes comes out of {b}.",
    "I keep forgetting: {a} won't start unless {b} is up.",
    "Post-incident review {date}: the outage cascaded because {a} can't do anything useful without {b}; when {b} went read-only, {a} silently queued work for six hours.",
]
T["store"] = [
    "{s} keeps its data in {d}.",
    "{s} writes to {d}.",
    "{d} is where {s} stores everything.",
    "| {s} | data store | {d} |",
    "{s} storage: {d}",
    "{s}:\n  storage_backend: {d}",
    "{s} persists to → {d}",
    "(chat) where does {s} put its files? — {d}, always has",
    "Storage review {date}: {s} stays on {d} for another year.",
    "Ticket note: {s} output lands in {d}; check quota there first.",
    "All of {s}'s records live in {d}.",
    '{{"app": "{s}", "backend": "{d}"}}',
    "Reminder to self: {s} data goes to {d}, not the shared drive.",
    "Capacity planning, {date}: we looked at moving {s} elsewhere but it stays put, so it keeps writing everything to {d} for at least another year.",
]
T["host"] = [
    "{d} runs on {h}.",
    "{d} is hosted in {h}.",
    "{h} hosts {d}.",
    "| {d} | hosted on | {h} |",
    "location of {d}: {h}",
    "{d}:\n  host: {h}",
    "(chat) {d} physically sits in {h}, fyi",
    "DC planning {date}: {d} remains in {h} until the next review.",
    "Alert on {d} — escalate to whoever runs {h}, that's where it lives.",
    "{d} lives on {h}.",
    '{{"store": "{d}", "runs_on": "{h}"}}',
    "Note to self: {d} is on {h}, not where the wiki says.",
    "Inventory check {date}: confirmed {d} is still served from {h}; the CMDB entry was stale but the inventory spreadsheet was right all along.",
]
T["member"] = [
    "{p} is in {g}.",
    "{p} joined {g} last year.",
    "{p} works in {g}.",
    "| {p} | team | {g} |",
    "{p} — team: {g}",
    "name: {p}\ngroup: {g}",
    "org chart: {p} → {g}",
    "{sp}: I'm with {g}, not the other lot",
    "New starter notes: {p} sits with {g}.",
    "{g} counts {p} among its members.",
    '{{"person": "{p}", "team": "{g}"}}',
    "HR sync {date}: {p} moved into {g}.",
    "Ticket {n}: requester {p} is part of {g}; approval routed accordingly.",
    "Must remember: {p} belongs to {g}.",
    "Org chart refresh {date}: after the reshuffle {p} ended up in {g}, which surprised a few people but makes sense given their background.",
]
T["lead"] = [
    "{p} leads {g}.",
    "{g} is headed by {p}.",
    "| {g} | lead | {p} |",
    "{g} — lead: {p}",
    "team: {g}\nlead: {p}",
    "{sp}: speaking as head of {g}, I'd rather we didn't",
    "All-hands {date}: {p} confirmed as head of {g}.",
    "{p} runs {g}.",
    '{{"group": "{g}", "lead": "{p}"}}',
    "Escalations for {g} go to its lead, {p}.",
    "After the all-hands on {date} it's official: {p} is now head of {g}, so budget questions for that team go to them from now on.",
]
T["chan"] = [
    "{g} uses {c}.",
    "{c} is {g}'s channel.",
    "| {g} | channel | {c} |",
    "{g} — chat: {c}",
    'team: {g}\nchannel: "{c}"',
    "To reach {g}, use {c}.",
    "Comms review {date}: {g} keeps {c} as its main channel.",
    '{{"team": "{g}", "contact": "{c}"}}',
    "channels: {g} → {c}",
    "(chat) where do I ask {g} stuff? — {c}",
    "Comms tidy-up {date}: we killed off the old lists, and {g} now only answers questions posted in {c}; anything sent elsewhere gets ignored.",
]
T["works"] = [
    "{p} works from {b}.",
    "{p} is based in {b}.",
    "| {p} | building | {b} |",
    "{p} — desk: {b}",
    "name: {p}\nsite: {b}",
    "{sp}: I'm over in {b} most days if you need me",
    "{p} sits in {b}, second floor.",
    "Seating plan {date}: {p} stays at {b}.",
    '{{"person": "{p}", "building": "{b}"}}',
    "You'll find {p} in {b}.",
    "{p}'s office is in {b}.",
    "(chat) is {p} in today? — check {b}, that's where they work",
    "Ticket {n}: laptop for {p} to be delivered to {b}.",
    "Facilities update {date}: following the desk moves, {p} is permanently based in {b} now, so post and parcels should go there.",
]

MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


def rand_date():
    style = rng.randrange(3)
    d, m = rng.randint(1, 28), rng.randrange(12)
    if style == 0:
        return "%d %s" % (d, MONTHS[m])
    if style == 1:
        return "2024-%02d-%02d" % (m + 1, d)
    return "%d/%d" % (d, m + 1)


def wchoice(opts):
    total = sum(w for _, w in opts)
    r = rng.random() * total
    for k, w in opts:
        r -= w
        if r < 0:
            return k
    return opts[-1][0]


# --------------------------------------------------------------------------
# Mentions: (surface string, [form names])
# --------------------------------------------------------------------------
def person_linked(eid, kind=None):
    f = ENT[eid]["forms"]
    kinds = alias_kinds(eid)
    if kind is None:
        kind = rng.choice(kinds)
    if kind == "handle":
        v = rng.randrange(3)
        if v == 0:
            s = "%s (%s)" % (f["full"], f["handle"])
        elif v == 1:
            s = "%s (%s)" % (f["handle"], f["full"])
        else:
            s = "%s (%s on chat)" % (f["full"], f["handle"])
    else:
        v = rng.randrange(3)
        if v == 0:
            s = "%s (%s)" % (f["nick"], f["full"])
        elif v == 1:
            s = "%s \u201c%s\u201d %s" % (f["first"], f["nick"], f["surname"])
        else:
            s = "%s (%s to everyone)" % (f["full"], f["nick"])
    return (s, ["full", kind])


def other_linked(eid):
    f = ENT[eid]["forms"]
    t = ENT[eid]["type"]
    v = rng.randrange(3)
    if t == "group":
        if v == 2:
            return ("%s (%s)" % (f["name"], f["alias"]), ["name", "alias"])
        return ("%s (aka %s)" % (f["name"], f["alias"]), ["name", "alias"])
    if v == 2 and " " in f["alias"]:
        v = 0
    if v == 0:
        s = "%s (%s)" % (f["name"], f["alias"])
    elif v == 1:
        s = "%s (%s)" % (f["alias"], f["name"])
    else:
        s = "%s (id: %s)" % (f["name"], f["alias"])
    return (s, ["name", "alias"])


def linked(eid, kind=None):
    if ENT[eid]["type"] == "person":
        return person_linked(eid, kind)
    return other_linked(eid)


def mention(eid, speaker=False, plain=False):
    if plain:
        while True:
            m = mention(eid, speaker)
            if len(m[1]) == 1:
                return m
    t = ENT[eid]["type"]
    f = ENT[eid]["forms"]
    if t == "person":
        if speaker:
            if "handle" in f:
                if rng.random() < 0.25:
                    return ("%s (%s)" % (f["handle"], f["full"]), ["handle", "full"])
                return (f["handle"], ["handle"])
            if "nick" in f:
                return (f["nick"], ["nick"])
            return (f["first"], ["first"])
        opts = [("full", 40), ("first", 10), ("surname", 4)]
        if "title" in f:
            opts.append(("title", 12))
        if "nick" in f:
            opts.append(("nick", 10))
        if "handle" in f:
            opts.append(("handle", 10))
        if alias_kinds(eid):
            opts.append(("linked", 14))
        k = wchoice(opts)
        if k == "linked":
            return person_linked(eid)
        return (f[k], [k])
    if "alias" not in f:
        return (f["name"], ["name"])
    if t == "group":
        k = wchoice([("name", 55), ("alias", 30), ("linked", 15)])
    else:
        k = wchoice([("name", 50), ("alias", 32), ("linked", 18)])
    if k == "linked":
        return other_linked(eid)
    return (f[k], [k])


# --------------------------------------------------------------------------
# Build relation facts
# --------------------------------------------------------------------------
FACTS = []  # dicts: kind, subj, obj, tpl, slots{placeholder: eid}, m{eid: (str, forms)}, extra
by_kind = {}
for r in RELS:
    by_kind.setdefault(r[0], []).append(r)

for kind in ["owner", "dep", "store", "host", "member", "lead", "chan", "works"]:
    tpls = list(T[kind])
    deck = []
    for _, subj, obj in by_kind[kind]:
        if not deck:
            deck = list(tpls)
            rng.shuffle(deck)
        tpl = deck.pop()
        sk, ok = SLOTS[kind]
        slots = {sk: subj, ok: obj}
        if "{sp}" in tpl:
            pk = "p"
            slots["sp"] = slots.pop(pk)
        m = {}
        for ph in sorted(slots):
            e = slots[ph]
            m[e] = mention(e, speaker=(ph == "sp"), plain=("{%s}'s" % ph) in tpl)
        FACTS.append(
            {
                "kind": kind,
                "subj": subj,
                "obj": obj,
                "tpl": tpl,
                "slots": slots,
                "m": m,
                "extra": {"n": str(rng.randint(10000, 99999)), "date": rand_date()},
            }
        )


def fact_has(fi, eid, forms_needed):
    fm = FACTS[fi]["m"].get(eid)
    return fm is not None and all(x in fm[1] for x in forms_needed)


def link_candidates(eid):
    """(fact index, is_speaker) for slots of eid that may carry a linked name."""
    out = []
    for i, fa in enumerate(FACTS):
        for ph in sorted(fa["slots"]):
            if fa["slots"][ph] == eid and ("{%s}'s" % ph) not in fa["tpl"]:
                out.append((i, ph == "sp"))
    return out


def speaker_linked(eid, kind):
    f = ENT[eid]["forms"]
    return ("%s (%s)" % (f[kind], f["full"]), [kind, "full"])


# Post-pass: every second name is linked to the canonical name in some fact,
# and every canonical name appears somewhere.
ALL_EIDS = []
for t in ["building", "host", "store", "group", "channel", "person", "system"]:
    ALL_EIDS.extend(ORDER[t])
for eid in ALL_EIDS:
    cf = canon_form(eid)
    cands = link_candidates(eid)
    if not cands:
        raise SystemExit("entity without linkable facts: " + eid)
    for ak in alias_kinds(eid):
        if not any(fact_has(i, eid, [cf, ak]) for i in range(len(FACTS))):
            free = [c for c in cands if len(FACTS[c[0]]["m"][eid][1]) == 1] or cands
            fi, spk = rng.choice(free)
            FACTS[fi]["m"][eid] = speaker_linked(eid, ak) if spk else linked(eid, ak)
    if not any(fact_has(i, eid, [cf]) for i in range(len(FACTS))):
        fi, spk = rng.choice(cands)
        FACTS[fi]["m"][eid] = (ENT[eid]["forms"][cf], [cf])
    # an alias-only entity must still be linked after the canonical fix
    for ak in alias_kinds(eid):
        if not any(fact_has(i, eid, [cf, ak]) for i in range(len(FACTS))):
            raise SystemExit("alias link lost for " + eid)


def cap(text):
    if text.startswith("the "):
        return "The " + text[4:]
    return text


def render(fa):
    kw = dict(fa["extra"])
    for ph in sorted(fa["slots"]):
        kw[ph] = fa["m"][fa["slots"][ph]][0]
    return cap(fa["tpl"].format(**kw))


for fa in FACTS:
    fa["content"] = render(fa)

# --------------------------------------------------------------------------
# Distractors
# --------------------------------------------------------------------------
DISTRACT = [
    "{p} prefers email to chat for anything non-urgent.",
    "{p} takes oat milk, no sugar — remember for the away day.",
    "{p} is on leave the last two weeks of August.",
    "{p} asked not to be @-mentioned before 9am.",
    "{p} has been learning Rust in their spare time.",
    "{p} brought lemon drizzle to the Friday demo. Excellent.",
    "{p} will give a lightning talk on reproducible notebooks next month.",
    "{p} finds the new expenses portal baffling; offered to help.",
    "{p} is doing the Three Peaks for charity, sponsor link in the wiki.",
    "Reminder: {p} is out {date}, dentist.",
    "{s} threw disk-full warnings overnight; cleared itself by 7am.",
    "Power blip at {hh}:{mm} took {s} down for about ten minutes.",
    "Planned maintenance on {s} slipped to next Thursday.",
    "{s} upgrade to v{va}.{vb} went fine, no complaints.",
    "Renewal quote for {s} came in at £{n}.",
    "{s} logs were rotated; they'd grown past 40 GB.",
    "Users keep calling {s} slow but the metrics look normal.",
    "Security scan flagged an old TLS cipher on {s}; low priority.",
    "{s} docs page still has a screenshot from 2019.",
    "INC-{n}: {s} returned 502s for twenty minutes, root cause unknown.",
    "{d} is at {pct}% capacity.",
    "{d} costs roughly £{n} a month at current usage.",
    "Snapshot schedule for {d} changed to every six hours.",
    "{h} had a cooling alarm on {date}; false alarm.",
    "Spare PSU for {h} is on back-order, £{n}.",
    "Badge access for {h} is being re-audited this month.",
    "{c} was noisy today, mostly about the coffee machine.",
    "Someone posted a cat picture in {c} again.",
    "{g} is hiring a part-time research software engineer.",
    "{g} away day is booked for {date}.",
    "Retro moved to Wednesday 15:00; bring one thing that went well.",
    "Budget meeting: no decisions, revisit in Q3.",
    "Fire drill Tuesday at 11 — ignore the alarm pages.",
    "Standup now 9:45 on Thursdays.",
    "Licence renewals season again; expect a flood of quotes.",
    "{p} and {p2} are both on the fire-warden rota this term.",
    "{p} beat {p2} at the pub quiz, apparently by one point.",
    "{p} and {p2} swapped their on-call weekends in {mon}.",
    "{s} and {s2} were patched in the same maintenance window.",
    "{s} and {s2} both showed up in the vulnerability scan; false positives.",
    "{p} asked whether {s} could get a dark mode.",
    "{p} mentioned {s} at the town hall as an example of decent docs.",
    "{g} and {g2} are sharing the away-day venue this year.",
    "Both {d} and {d2} are due for a capacity review in Q4.",
    "{p} thinks the {s} logo is hideous. Noted, ignored.",
    "Lunch-and-learn {date}: {p} demoed a Grafana panel, nothing to action.",
    "{p} was stuck in the lift for 40 minutes on {date}; fine now.",
    "{s} had its TLS certificate renewed {date}, expires in a year.",
    "Coffee with {p}: mostly chatted about cycling routes.",
    "Cost note: {s} licences went up {pct}% this year.",
]


def dfill(tpl):
    kw = {
        "n": str(rng.randint(100, 9999)),
        "date": rand_date(),
        "pct": str(rng.randint(55, 97)),
        "hh": "%02d" % rng.randint(0, 23),
        "mm": "%02d" % rng.randint(0, 59),
        "va": str(rng.randint(2, 9)),
        "vb": str(rng.randint(0, 12)),
        "mon": rng.choice(MONTHS),
    }
    pairs = [
        ("p", "person"),
        ("s", "system"),
        ("d", "store"),
        ("h", "host"),
        ("c", "channel"),
        ("g", "group"),
    ]
    for ph, t in pairs:
        if "{" + ph + "}" in tpl or "{" + ph + "2}" in tpl:
            a, b = rng.sample(ORDER[t], 2)
            kw[ph] = mention(a)[0]
            kw[ph + "2"] = mention(b)[0]
    return cap(tpl.format(**kw))


DISTRACTORS = []
seen = set()
deck = []
guard = 0
while len(DISTRACTORS) < N_DISTRACTORS:
    guard += 1
    if guard > 10000:
        raise SystemExit("cannot make distractors")
    if not deck:
        deck = list(DISTRACT)
        rng.shuffle(deck)
    txt = dfill(deck.pop())
    if txt in seen:
        continue
    seen.add(txt)
    DISTRACTORS.append(txt)

# --------------------------------------------------------------------------
# Shuffle and number
# --------------------------------------------------------------------------
items = [("rel", i) for i in range(len(FACTS))] + [("dis", i) for i in range(len(DISTRACTORS))]
rng.shuffle(items)
FACT_ID = {}
OUT_FACTS = []
for n, (kind, i) in enumerate(items, 1):
    fid = "%s%04d" % (ID_PREFIX, n)
    if kind == "rel":
        FACT_ID[i] = fid
        OUT_FACTS.append({"id": fid, "content": FACTS[i]["content"]})
    else:
        OUT_FACTS.append({"id": fid, "content": DISTRACTORS[i]})

# --------------------------------------------------------------------------
# Chains
# --------------------------------------------------------------------------
REL = {}
REV = {}
for i, fa in enumerate(FACTS):
    REL.setdefault(fa["kind"], {})
    if fa["subj"] in REL[fa["kind"]]:
        raise SystemExit("duplicate relation " + repr((fa["kind"], fa["subj"])))
    REL[fa["kind"]][fa["subj"]] = i
    REV.setdefault(fa["kind"], {}).setdefault(fa["obj"], []).append(i)


def follow(ent, step):
    kind, d = step
    if kind == "grp":
        if ent in REL["member"]:
            i = REL["member"][ent]
            return FACTS[i]["obj"], i
        lst = REV["lead"].get(ent, [])
        if len(lst) == 1:
            return FACTS[lst[0]]["subj"], lst[0]
        return None
    if d == 1:
        i = REL[kind].get(ent)
        if i is None:
            return None
        return FACTS[i]["obj"], i
    lst = REV[kind].get(ent, [])
    if len(lst) != 1:
        return None
    return FACTS[lst[0]]["subj"], lst[0]


def expand(eid, forms):
    s = list(forms)
    if ENT[eid]["type"] == "person":
        if "full" in s:
            s += ["first", "surname"]
            if "title" in ENT[eid]["forms"]:
                s.append("title")
        if "title" in s:
            s.append("surname")
    return sorted(set(s))


def linkable(eid, f1, f2):
    a = expand(eid, f1)
    b = expand(eid, f2)
    return any(x in b for x in a)


CHAINS = {
    # 1 hop
    "own_f": ("system", [("owner", 1)]),
    "own_r": ("person", [("owner", -1)]),
    "dep_f": ("system", [("dep", 1)]),
    "dep_r": ("system", [("dep", -1)]),
    "store_f": ("system", [("store", 1)]),
    "store_r": ("store", [("store", -1)]),
    "host_f": ("store", [("host", 1)]),
    "host_r": ("host", [("host", -1)]),
    "mem_f": ("person", [("member", 1)]),
    "lead_f": ("group", [("lead", 1)]),
    "lead_r": ("person", [("lead", -1)]),
    "chan_f": ("group", [("chan", 1)]),
    "chan_r": ("channel", [("chan", -1)]),
    "works_f": ("person", [("works", 1)]),
    # 2 hops
    "own_grp": ("system", [("owner", 1), ("grp", 0)]),
    "own_works": ("system", [("owner", 1), ("works", 1)]),
    "store_host": ("system", [("store", 1), ("host", 1)]),
    "dep_own": ("system", [("dep", 1), ("owner", 1)]),
    "dep_store": ("system", [("dep", 1), ("store", 1)]),
    "dep_dep": ("system", [("dep", 1), ("dep", 1)]),
    "mem_lead": ("person", [("member", 1), ("lead", 1)]),
    "mem_chan": ("person", [("member", 1), ("chan", 1)]),
    "lead_works": ("group", [("lead", 1), ("works", 1)]),
    "chan_lead": ("channel", [("chan", -1), ("lead", 1)]),
    "owned_store": ("person", [("owner", -1), ("store", 1)]),
    "owned_dep": ("person", [("owner", -1), ("dep", 1)]),
    "deprev_own": ("system", [("dep", -1), ("owner", 1)]),
    "lead_grp_chan": ("person", [("lead", -1), ("chan", 1)]),
    # 3 hops
    "own_grp_chan": ("system", [("owner", 1), ("grp", 0), ("chan", 1)]),
    "own_grp_lead": ("system", [("owner", 1), ("member", 1), ("lead", 1)]),
    "dep_own_works": ("system", [("dep", 1), ("owner", 1), ("works", 1)]),
    "dep_store_host": ("system", [("dep", 1), ("store", 1), ("host", 1)]),
    "mem_lead_works": ("person", [("member", 1), ("lead", 1), ("works", 1)]),
    "chan_lead_works": ("channel", [("chan", -1), ("lead", 1), ("works", 1)]),
    "dep_own_grp": ("system", [("dep", 1), ("owner", 1), ("grp", 0)]),
    "owned_store_host": ("person", [("owner", -1), ("store", 1), ("host", 1)]),
    "dep_dep_own": ("system", [("dep", 1), ("dep", 1), ("owner", 1)]),
    "deprev_own_works": ("system", [("dep", -1), ("owner", 1), ("works", 1)]),
    "own_grp_lead_any": ("system", [("owner", 1), ("grp", 0), ("lead", 1)]),
}

Q = {
    "own_f": [
        "Who owns {x}?",
        "Who maintains {x}?",
        "{x} — who is the owner?",
        "I need the person responsible for {x}. Who is it?",
        "owner of {x}?",
    ],
    "own_r": [
        "Which system does {x} look after?",
        "What is {x} the owner of?",
        "Name the one system maintained by {x}.",
    ],
    "dep_f": [
        "What does {x} depend on?",
        "Which system feeds {x}?",
        "Where does {x} pull its input from?",
        "{x} upstream?",
    ],
    "dep_r": [
        "Which system is fed by {x}?",
        "What sits directly downstream of {x}?",
        "Which service depends on {x}?",
    ],
    "store_f": [
        "Where does {x} keep its data?",
        "Which data store does {x} write to?",
        "storage backend of {x}",
        "Find the store that holds {x}'s data.",
    ],
    "store_r": ["Which system writes to {x}?", "Whose data lives in {x}? Name the system."],
    "host_f": [
        "Which host runs {x}?",
        "Where is {x} hosted?",
        "{x} runs on which machine or region?",
    ],
    "host_r": ["What data store lives on {x}?", "Which store does {x} host?"],
    "mem_f": [
        "Which group is {x} in?",
        "What team does {x} belong to?",
        "{x}'s team?",
        "Quick one: which group has {x} on it?",
    ],
    "lead_f": ["Who leads {x}?", "Who is the head of {x}?", "lead of {x}"],
    "lead_r": ["Which group does {x} lead?", "What team is {x} in charge of?"],
    "chan_f": [
        "What is {x}'s chat channel or list?",
        "Where should I post to reach {x}?",
        "channel for {x}?",
    ],
    "chan_r": ["Which group uses {x}?", "{x} belongs to which team?"],
    "works_f": [
        "Which building does {x} work from?",
        "Where is {x} based?",
        "I want to drop by {x}'s desk — which building?",
        "{x} location (building)",
    ],
    "own_grp": [
        "Which group is the owner of {x} in?",
        "What team does the person who maintains {x} belong to?",
        "{x} broke. Which team does its owner sit in?",
        "team of {x}'s maintainer",
    ],
    "own_works": [
        "Which building does the owner of {x} work from?",
        "Where is {x}'s maintainer based?",
        "I want to walk over to whoever owns {x}. Which building?",
    ],
    "store_host": [
        "Which host runs the store that {x} writes to?",
        "Where is {x}'s data store hosted?",
        "host behind {x}'s storage",
        "Ops wants to know where {x}'s data physically lives. Which host or region runs its data store?",
    ],
    "dep_own": [
        "Who owns the system that {x} depends on?",
        "Who maintains {x}'s upstream?",
        "{x} is stalled waiting on its upstream system. Whose system is that?",
        "owner of whatever feeds {x}",
    ],
    "dep_store": [
        "Where does the system feeding {x} keep its data?",
        "Which data store does {x}'s upstream write to?",
        "storage of {x}'s upstream",
    ],
    "dep_dep": [
        "What does {x}'s upstream itself depend on?",
        "Which system is two steps upstream of {x}?",
        "What feeds the system that feeds {x}?",
    ],
    "mem_lead": [
        "Who leads {x}'s group?",
        "Who is {x}'s team lead?",
        "{x} needs sign-off from the head of their team. Who is that?",
    ],
    "mem_chan": [
        "Which channel does {x}'s team use?",
        "Where do I post to reach {x}'s group?",
        "team channel for {x}",
    ],
    "lead_works": [
        "Where does the lead of {x} work from?",
        "Which building is the head of {x} based in?",
        "building of whoever runs {x}",
    ],
    "chan_lead": [
        "Who leads the group that uses {x}?",
        "Who heads the team behind {x}?",
        "Someone in {x} wants to escalate. Who leads the team that owns that channel?",
    ],
    "owned_store": [
        "Where does the system {x} looks after keep its data?",
        "Which data store does the one system owned by {x} write to?",
    ],
    "owned_dep": [
        "What does the system maintained by {x} depend on?",
        "{x} owns exactly one system. What is its upstream?",
    ],
    "deprev_own": [
        "Who owns the system that {x} feeds?",
        "Who maintains whatever sits directly downstream of {x}?",
    ],
    "lead_grp_chan": [
        "Which channel does the group {x} leads use?",
        "Where does the team headed by {x} talk?",
    ],
    "own_grp_chan": [
        "Which channel does the team of {x}'s owner use?",
        "I need to reach the group that {x}'s owner is in. Where do I post?",
        "channel of the team {x}'s maintainer belongs to",
    ],
    "own_grp_lead": [
        "Who leads the team of the person who owns {x}?",
        "{x}'s owner needs approval from their team lead. Who is that?",
        "head of the group that {x}'s maintainer sits in",
    ],
    "own_grp_lead_any": ["Whose team is it? Give the lead of the group the {x} owner works in."],
    "dep_own_works": [
        "Which building does the owner of {x}'s upstream work from?",
        "Where is the maintainer of the system feeding {x} based?",
        "{x} has been starved of input all morning. Which building does the person who owns its upstream system work from?",
    ],
    "dep_store_host": [
        "Which host runs the data store of the system that feeds {x}?",
        "Where is the storage of {x}'s upstream hosted?",
        "host of the store used by whatever {x} depends on",
    ],
    "mem_lead_works": [
        "Which building does {x}'s team lead work from?",
        "Where is the head of {x}'s group based?",
        "I want to see {x}'s team lead in person. Which building?",
    ],
    "chan_lead_works": [
        "Where does the lead of the team behind {x} work?",
        "Someone posted in {x} asking where that team's lead sits. Which building?",
    ],
    "dep_own_grp": [
        "Which group is the owner of {x}'s upstream in?",
        "team of the person who maintains the system {x} pulls from",
        "{x} can't get data from its upstream. Which team is that upstream's owner part of?",
    ],
    "owned_store_host": [
        "Which host runs the store used by the system {x} looks after?",
        "Where is the data of the one system owned by {x} hosted?",
    ],
    "dep_dep_own": [
        "Who owns the system two steps upstream of {x}?",
        "Who maintains what feeds {x}'s upstream?",
    ],
    "deprev_own_works": [
        "Which building does the owner of the system fed by {x} work from?",
        "{x} is about to go down for maintenance. Where does the owner of its downstream system sit?",
    ],
}
# "own_grp_lead_any" duplicates own_grp_lead semantics; keep it disabled.
del CHAINS["own_grp_lead_any"]
del Q["own_grp_lead_any"]

ALL_FORMS = []  # (eid, surface)
for eid in ALL_EIDS:
    for k in sorted(ENT[eid]["forms"]):
        ALL_FORMS.append((eid, ENT[eid]["forms"][k]))


def word_re(s):
    return re.compile(r"(?<![\w@#/.-])" + re.escape(s) + r"(?![\w-])")


FORM_RE = [(eid, s, word_re(s)) for eid, s in ALL_FORMS]


def norm(text):
    return text.replace("The ", "the ")


def foreign_mentions(text, allowed_strings, allowed_eids):
    """Entity forms present in text that belong to entities not allowed."""
    t = norm(text)
    for s in sorted(allowed_strings, key=len, reverse=True):
        t = t.replace(s, " ")
    hits = []
    for eid, s, rx in FORM_RE:
        if eid in allowed_eids:
            continue
        if rx.search(t):
            hits.append((eid, s))
    return hits


def enumerate_chain(ctype):
    etype, steps = CHAINS[ctype]
    out = []
    for start in ORDER[etype]:
        cur = start
        ents = [start]
        gold = []
        ok = True
        for st in steps:
            r = follow(cur, st)
            if r is None:
                ok = False
                break
            cur, fi = r
            ents.append(cur)
            gold.append(fi)
        if not ok:
            continue
        if len(set(ents)) != len(ents):
            continue
        if len(set(gold)) != len(gold):
            continue
        if not all(
            linkable(ents[i], FACTS[gold[i - 1]]["m"][ents[i]][1], FACTS[gold[i]]["m"][ents[i]][1])
            for i in range(1, len(ents) - 1)
        ):
            continue
        out.append((start, gold, ents))
    return out


ALIASY = ("alias", "nick", "handle", "title")


def start_surface(start, fi):
    forms = expand(start, FACTS[fi]["m"][start][1])
    opts = []
    for k in forms:
        if k in ENT[start]["forms"]:
            w = {"handle": 6, "nick": 5, "title": 5, "alias": 4, "surname": 1}.get(k, 2)
            opts.append(((k, ENT[start]["forms"][k]), w))
    return wchoice(opts)


CANDS = {c: enumerate_chain(c) for c in CHAINS}
QUESTIONS = []
QMETA = []
tpl_use = {}
start_use = {}
used_gold = []
for hops in (1, 2, 3):
    ctypes = [c for c in CHAINS if len(CHAINS[c][1]) == hops]
    pools = {c: list(CANDS[c]) for c in ctypes}
    for c in ctypes:
        rng.shuffle(pools[c])
    made = 0
    active = list(ctypes)
    while made < QUOTA[hops]:
        if not active:
            raise SystemExit("ran out of candidates at hops=%d (made %d)" % (hops, made))
        order = list(active)
        rng.shuffle(order)
        for c in order:
            if made >= QUOTA[hops]:
                break
            tpls = [(c, k) for k in range(len(Q[c])) if tpl_use.get((c, k), 0) < MAX_TEMPLATE_USES]
            pool = pools[c]
            picked = None
            while pool and tpls:
                start, gold, ents = pool.pop()
                if start_use.get(start, 0) >= MAX_START_USES or gold in used_gold:
                    continue
                least = min(tpl_use.get(t, 0) for t in tpls)
                tk = rng.choice([t for t in tpls if tpl_use.get(t, 0) == least])
                form, surf = start_surface(start, gold[0])
                text = cap(Q[c][tk[1]].format(x=surf))
                if any(qq == text for qq in QUESTIONS):
                    continue
                hits = foreign_mentions(text, [surf], [start])
                if hits:
                    continue
                picked = (start, gold, ents, tk, text, form, surf)
                break
            if picked is None:
                active.remove(c)
                continue
            start, gold, ents, tk, text, form, surf = picked
            tpl_use[tk] = tpl_use.get(tk, 0) + 1
            start_use[start] = start_use.get(start, 0) + 1
            used_gold.append(gold)
            QUESTIONS.append(text)
            QMETA.append(
                {
                    "ctype": c,
                    "hops": hops,
                    "start": start,
                    "gold": gold,
                    "ents": ents,
                    "tpl": tk,
                    "form": form,
                    "surf": surf,
                }
            )
            made += 1

# --------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------
errors = []


def err(msg):
    errors.append(msg)


# surface names unique across entities
seen_surf = {}
for eid, s in ALL_FORMS:
    if s in seen_surf and seen_surf[s] != eid:
        err("surface clash %r: %s / %s" % (s, seen_surf[s], eid))
    seen_surf[s] = eid

# fact ids / content
ids = [f["id"] for f in OUT_FACTS]
if len(set(ids)) != len(ids):
    err("duplicate ids")
contents = [f["content"] for f in OUT_FACTS]
if len(set(contents)) != len(contents):
    err("duplicate fact content")
if len(OUT_FACTS) < 320:
    err("fewer than 320 facts")

# relation facts mention exactly their two entities, each rendered surface present
for i, fa in enumerate(FACTS):
    for e in (fa["subj"], fa["obj"]):
        if fa["m"][e][0] not in fa["content"] and cap(fa["m"][e][0]) not in fa["content"]:
            err("mention missing in fact %d" % i)
    hits = foreign_mentions(
        fa["content"], [fa["m"][e][0] for e in (fa["subj"], fa["obj"])], [fa["subj"], fa["obj"]]
    )
    if hits:
        err("fact %d %r mentions other entities %r" % (i, fa["content"], hits))

# at least 8 phrasings per relation kind
tpl_per_kind = {}
for fa in FACTS:
    tpl_per_kind.setdefault(fa["kind"], [])
    if fa["tpl"] not in tpl_per_kind[fa["kind"]]:
        tpl_per_kind[fa["kind"]].append(fa["tpl"])
for k in sorted(tpl_per_kind):
    if len(tpl_per_kind[k]) < 8:
        err("kind %s has only %d phrasings" % (k, len(tpl_per_kind[k])))

# aliases linked, canonical names present
for eid in ALL_EIDS:
    cf = canon_form(eid)
    if not any(fact_has(i, eid, [cf]) for i in range(len(FACTS))):
        err("canonical name never used: " + eid)
    for ak in alias_kinds(eid):
        if not any(fact_has(i, eid, [cf, ak]) for i in range(len(FACTS))):
            err("alias never linked: %s %s" % (eid, ak))

# distractors: no relation-like pairs (person+group, person+building, system+store ...)
for txt in DISTRACTORS:
    present = [eid for eid, s, rx in FORM_RE if rx.search(norm(txt))]
    types = sorted(set(ENT[e]["type"] for e in present))
    bad_pairs = [
        ("group", "person"),
        ("building", "person"),
        ("store", "system"),
        ("host", "store"),
        ("channel", "group"),
    ]
    for a, b in bad_pairs:
        if a in types and b in types:
            err("distractor relates %s/%s: %r" % (a, b, txt))

# questions
fid_set = set(ids)
counts = {1: 0, 2: 0, 3: 0}
for q, meta in zip(QUESTIONS, QMETA):
    counts[meta["hops"]] += 1
    etype, steps = CHAINS[meta["ctype"]]
    if len(meta["gold"]) != meta["hops"] or len(steps) != meta["hops"]:
        err("hop mismatch: " + q)
    # re-derive chain from the start entity
    cur = meta["start"]
    ents = [cur]
    for st, fi in zip(steps, meta["gold"]):
        r = follow(cur, st)
        if r is None or r[1] != fi:
            err("chain not unique / inconsistent: " + q)
            break
        cur = r[0]
        ents.append(cur)
    if ents != meta["ents"]:
        err("chain entities differ: " + q)
    # gold facts mention the entities they connect
    for j, fi in enumerate(meta["gold"]):
        for e in (ents[j], ents[j + 1]):
            if e not in FACTS[fi]["m"]:
                err("gold fact lacks entity: " + q)
    # bridges linkable inside the gold facts
    for j in range(1, len(ents) - 1):
        e = ents[j]
        if not linkable(
            e, FACTS[meta["gold"][j - 1]]["m"][e][1], FACTS[meta["gold"][j]]["m"][e][1]
        ):
            err("bridge not linkable: " + q)
    # start named in question with a form present/derivable in the first gold fact
    if meta["surf"] not in q and cap(meta["surf"]) not in q:
        err("start mention missing: " + q)
    if meta["form"] not in expand(meta["start"], FACTS[meta["gold"][0]]["m"][meta["start"]][1]):
        err("start form not in first gold fact: " + q)
    # question names no bridge / answer entity
    if foreign_mentions(q, [meta["surf"]], [meta["start"]]):
        err("question mentions other entities: " + q)
    # ids exist
    for fi in meta["gold"]:
        if FACT_ID[fi] not in fid_set:
            err("gold id missing")
if counts != QUOTA:
    err("question counts %r" % counts)
if len(set(QUESTIONS)) != len(QUESTIONS):
    err("duplicate questions")
for k, v in sorted(tpl_use.items()):
    if v > MAX_TEMPLATE_USES:
        err("template overused %r" % (k,))

if errors:
    for e in errors[:50]:
        print("ERROR:", e)
    raise SystemExit("%d validation errors" % len(errors))

# --------------------------------------------------------------------------
# Write
# --------------------------------------------------------------------------
out = {
    "facts": OUT_FACTS,
    "questions": [
        {"question": q, "hops": m["hops"], "gold": [FACT_ID[fi] for fi in m["gold"]]}
        for q, m in zip(QUESTIONS, QMETA)
    ],
}
data = json.dumps(out, ensure_ascii=False, indent=1) + "\n"
with open(OUT, "w", encoding="utf-8") as fh:
    fh.write(data)

kind_counts = {}
for fa in FACTS:
    kind_counts[fa["kind"]] = kind_counts.get(fa["kind"], 0) + 1
ctype_counts = {}
for m in QMETA:
    ctype_counts[m["ctype"]] = ctype_counts.get(m["ctype"], 0) + 1
print("facts: %d (relation %d, distractor %d)" % (len(OUT_FACTS), len(FACTS), len(DISTRACTORS)))
print(
    "relation facts by kind: "
    + ", ".join("%s=%d" % (k, kind_counts[k]) for k in sorted(kind_counts))
)
print(
    "phrasings used per kind: "
    + ", ".join("%s=%d" % (k, len(tpl_per_kind[k])) for k in sorted(tpl_per_kind))
)
print(
    "entities: "
    + ", ".join(
        "%s=%d" % (t, len(ORDER[t]))
        for t in ["system", "person", "group", "channel", "store", "host", "building"]
    )
)
print(
    "questions: %d (1-hop %d, 2-hop %d, 3-hop %d)"
    % (len(QUESTIONS), counts[1], counts[2], counts[3])
)
print(
    "question chain types: "
    + ", ".join("%s=%d" % (k, ctype_counts[k]) for k in sorted(ctype_counts))
)
print("question templates used: %d (max uses %d)" % (len(tpl_use), max(tpl_use.values())))
form_counts = {}
for m in QMETA:
    form_counts[m["form"]] = form_counts.get(m["form"], 0) + 1
print(
    "questions name their start entity by: "
    + ", ".join("%s=%d" % (k, form_counts[k]) for k in sorted(form_counts))
)
print("md5(world.json): " + hashlib.md5(data.encode("utf-8")).hexdigest())
