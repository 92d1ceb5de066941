#!/usr/bin/env python3
"""Generate world.json: the long-term memory of an AI assistant working for
staff at "Lanternfish Post", a fictional film and TV post-production studio.

Deterministic: a single random.Random(SEED) makes every choice, nothing
iterates over a set, so the output is identical for any PYTHONHASHSEED.

Run:  python3 make_world.py
"""

import hashlib
import json
import os
import random
import re
import sys

SEED = 1111
rng = random.Random(SEED)
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "world.json")

N_DISTRACTORS = 92
Q_COUNTS = {1: 50, 2: 60, 3: 50}
TEMPLATE_CAP = 5

# --------------------------------------------------------------------------
# Entities.  Every entity: key -> {"kind", "name", "aliases"}; aliases[0] is
# the canonical name.  Aliases beginning with "the " are natural-language
# forms; kw() strips the article for tables / keyword queries.
# --------------------------------------------------------------------------
ENT = {}


def add(key, kind, aliases, **extra):
    assert key not in ENT, key
    ENT[key] = dict(kind=kind, name=aliases[0], aliases=list(aliases), **extra)


CITIES = [
    ("ci_bristol", "Bristol"),
    ("ci_leeds", "Leeds"),
    ("ci_montreal", "Montreal"),
    ("ci_wellington", "Wellington"),
    ("ci_vancouver", "Vancouver"),
    ("ci_glasgow", "Glasgow"),
]
for k, n in CITIES:
    add(k, "city", [n])

HOSTS = [
    ("h_bax", ["the Bristol Annex server room", "BAX-SR"]),
    ("h_euw2", ["AWS eu-west-2", "eu-west-2"]),
    ("h_gcp", ["GCP northamerica-northeast1", "the Montreal GCP region"]),
    ("h_kestrel", ["kestrel-db01"]),
    ("h_harbour", ["the Harbourside colo", "HBS cage 14"]),
    ("h_vault", ["vault-nas-02", "vault2"]),
]
for k, a in HOSTS:
    add(k, "host", a)

# store key, aliases, host
STORES = [
    ("d_shotdb", ["shotdb", "the shot database"], "h_kestrel"),
    ("d_assetdb", ["assetdb", "the Asset DB"], "h_kestrel"),
    ("d_proj", ["/mnt/proj", "the proj volume"], "h_vault"),
    ("d_edit", ["/mnt/edit", "the editorial volume"], "h_vault"),
    ("d_rjq", ["rjq", "the render-jobs queue"], "h_bax"),
    ("d_lic", ["lic_usage", "the licence-usage DB"], "h_bax"),
    ("d_dailies", ["s3://lf-dailies", "the dailies bucket"], "h_euw2"),
    ("d_xfer", ["xfer.spool", "the transfer spool queue"], "h_euw2"),
    ("d_review", ["gs://lf-review-media", "the review-media bucket"], "h_gcp"),
    ("d_sfx", ["sfxlib", "the sound-library bucket"], "h_gcp"),
    ("d_luts", ["/vol/luts", "the LUT volume"], "h_harbour"),
    ("d_events", ["pipeline.events", "the events topic"], "h_harbour"),
]
for k, a, _h in STORES:
    add(k, "store", a)

# team key, aliases, channel
TEAMS = [
    ("t_edit", ["Editorial", "the edit team"], "#edit-bay"),
    ("t_comp", ["Compositing", "the comp team"], "#comp-chat"),
    ("t_colour", ["Colour", "the grading team"], "#grade-room"),
    ("t_sound", ["Sound Post", "the sound team"], "soundpost@lanternfish.tv"),
    ("t_pdev", ["Pipeline Dev", "the pipeline dev team"], "#pipeline-dev"),
    ("t_pops", ["Pipeline Ops", "the pipeline ops crew"], "#pipeops-oncall"),
    ("t_it", ["Systems & IT", "the IT team"], "#it-help"),
    ("t_prod", ["Production", "the production office"], "production-all@lanternfish.tv"),
    ("t_dio", ["Data I/O", "the data-wrangling team"], "#data-io"),
]
for k, a, ch in TEAMS:
    add(k, "team", a)
    add("c_" + k[2:], "channel", [ch])

# person key, full name, handle, nickname, team, city, is_lead, surname usable
PEOPLE = [
    ("p_priya", "Priya Raman", "@priya.raman", None, "t_edit", "ci_bristol", True, True),
    ("p_tomasz", "Tomasz Wojcik", "@twojcik", "Tom W", "t_comp", "ci_montreal", True, True),
    ("p_hana", "Hana Okafor", "@hana_o", None, "t_colour", "ci_leeds", True, True),
    ("p_declan", "Declan Moss", "@moss", None, "t_sound", "ci_glasgow", True, True),
    ("p_ingrid", "Ingrid Solberg", "@ingrid", "Inge", "t_pdev", "ci_wellington", True, True),
    ("p_marcus", "Marcus Bell", "@mb", None, "t_pops", "ci_bristol", True, True),
    ("p_ruth", "Ruth Adeyemi", "@radeyemi", None, "t_it", "ci_leeds", True, True),
    ("p_felipe", "Felipe Santos", "@felipe_s", "Flip", "t_prod", "ci_vancouver", True, True),
    ("p_aoife", "Aoife Brennan", "@aoife.b", None, "t_dio", "ci_glasgow", True, True),
    # members
    ("p_nadia", "Nadia Heron", "@nheron", "Nads", "t_pdev", "ci_wellington", False, False),
    ("p_sam", "Sam Fletcher", "@sam_f", "Fletch", "t_dio", "ci_bristol", False, False),
    ("p_oliver", "Oliver Grant", "@ogrant", "Olly", "t_edit", "ci_bristol", False, True),
    ("p_mei", "Mei Zhou", "@meiz", None, "t_comp", "ci_vancouver", False, True),
    ("p_kwame", "Kwame Asante", "@kwame.asante", "KA", "t_comp", "ci_montreal", False, True),
    ("p_lucy", "Lucy Harrow", "@lharrow", None, "t_colour", "ci_leeds", False, True),
    ("p_rafael", "Rafael Duarte", "@raf", "Rafa", "t_pops", "ci_montreal", False, True),
    ("p_bea", "Beatrix Novak", "@bnovak", "Bea", "t_sound", "ci_glasgow", False, True),
    ("p_jonah", "Jonah Pike", "@jonah_p", "JP", "t_it", "ci_leeds", False, True),
    ("p_chloe", "Chloe Fairbairn", "@chloe", None, "t_prod", "ci_vancouver", False, True),
    ("p_ethan", "Ethan Kowalczyk", "@ek", None, "t_pdev", "ci_bristol", False, True),
    ("p_yuki", "Yuki Tanaka", "@ytanaka", None, "t_comp", "ci_wellington", False, True),
    ("p_gareth", "Gareth Pryce", "@gpryce", "Gaz", "t_it", "ci_bristol", False, True),
    ("p_sofia", "Sofia Marchetti", "@sofia.m", None, "t_colour", "ci_montreal", False, True),
    ("p_liam", "Liam O'Rourke", "@liam_or", None, "t_dio", "ci_glasgow", False, True),
    ("p_amara", "Amara Nwosu", "@amara", None, "t_edit", "ci_leeds", False, True),
    ("p_viktor", "Viktor Lindqvist", "@vlindqvist", "Vik", "t_pops", "ci_wellington", False, True),
    ("p_tess", "Tess Calloway", "@tcalloway", None, "t_prod", "ci_bristol", False, True),
    ("p_arjun", "Arjun Malhotra", "@arjun.m", "AJ", "t_pdev", "ci_vancouver", False, True),
    ("p_isla", "Isla McKenzie", "@isla_mck", "Mack", "t_sound", "ci_glasgow", False, True),
    ("p_noah", "Noah Feldman", "@nfeldman", None, "t_it", "ci_montreal", False, True),
    ("p_grace", "Grace Whitfield", "@gwhit", "Whit", "t_edit", "ci_wellington", False, True),
    ("p_pablo", "Pablo Ibarra", "@pibarra", None, "t_comp", "ci_vancouver", False, True),
    ("p_zara", "Zara Qureshi", "@zq", None, "t_dio", "ci_leeds", False, True),
    ("p_hugo", "Hugo Lambert", "@hugo", None, "t_pdev", "ci_montreal", False, True),
    ("p_maya", "Maya Castellanos", "@mayac", None, "t_colour", "ci_vancouver", False, True),
    ("p_callum", "Callum Reid", "@creid", "Cal", "t_pops", "ci_glasgow", False, True),
    ("p_elena", "Elena Petrova", "@elena.p", "Lena", "t_prod", "ci_leeds", False, True),
    ("p_bram", "Bram de Vries", "@devries", None, "t_sound", "ci_bristol", False, True),
]
for k, full, handle, nick, team, city, is_lead, sur_ok in PEOPLE:
    first, last = full.split(" ", 1)
    forms = {"full": full, "first": first, "handle": handle}
    if nick:
        forms["nick"] = nick
    if sur_ok:
        forms["surname"] = last
    aliases = [full, first, handle] + ([nick] if nick else []) + ([last] if sur_ok else [])
    add(k, "person", aliases, forms=forms)

# system key, canonical name, second name (or None), domain team (owner pool)
SYSTEMS = [
    ("s_poola", "Farm Pool A", "pool-a", "t_pops"),
    ("s_gpu", "GPU Pool", "farm.gpu", "t_pops"),
    ("s_night", "Overnight Pool", "pool-night", "t_pops"),
    ("s_deadline", "Deadline Repository", "deadline-repo", "t_pops"),
    ("s_wrangler", "Render Wrangler", "wrangler-svc", "t_pops"),
    ("s_xcode", "Transcoder", "xcode-svc", "t_pops"),
    ("s_thumb", "Thumbnailer", "thumbd", "t_pops"),
    ("s_tarn", "Tarn", "isilon-tarn", "t_it"),
    ("s_fjord", "Fjord", "qumulo-fjord", "t_it"),
    ("s_cold", "Cold Archive", "lto-archive", "t_it"),
    ("s_bkp", "Backup Orchestrator", "bkp-orch", "t_it"),
    ("s_auth", "Auth Proxy", "authproxy", "t_it"),
    ("s_lighthouse", "Lighthouse", "lighthouse-mon", "t_it"),
    ("s_rlm", "Foundry licence server", "rlm-foundry", "t_it"),
    ("s_flex", "Autodesk licence server", "flexlm-adsk", "t_it"),
    ("s_licmon", "Licence Monitor", "licmon", "t_it"),
    ("s_heron", "Heron", "heron-am", "t_pdev"),
    ("s_sgsync", "ShotGrid Sync", "shotgrid_sync", "t_pdev"),
    ("s_pub", "Publish Service", "pub-svc", "t_pdev"),
    ("s_vtrack", "Version Tracker", "vtrack", "t_pdev"),
    ("s_abrowse", "Asset Browser", None, "t_pdev"),
    ("s_evt", "Event Router", "evt.router", "t_pdev"),
    ("s_pathres", "Path Resolver", "pathres", "t_pdev"),
    ("s_mdidx", "Metadata Indexer", "md-indexer", "t_pdev"),
    ("s_conform", "Conform Checker", "conform-chk", "t_edit"),
    ("s_edl", "Editorial Bridge", "edl-bridge", "t_edit"),
    ("s_tc", "Timecode Service", "tc-svc", "t_edit"),
    ("s_srp", "Screening Room Player", "SRP", "t_edit"),
    ("s_magpie", "Magpie", "magpie-review", "t_comp"),
    ("s_notes", "Notes Collector", "notes.collector", "t_comp"),
    ("s_comptpl", "Comp Template Service", "comp.templates", "t_comp"),
    ("s_lut", "LUT Server", "lut-srv", "t_colour"),
    ("s_gradesync", "Grade Sync", "grade_sync", "t_colour"),
    ("s_dailies", "Dailies Builder", "dailies-bld", "t_colour"),
    ("s_sfx", "SFX Search", "sfx-search", "t_sound"),
    ("s_stem", "Stem Bouncer", None, "t_sound"),
    ("s_adr", "ADR Cue Tool", "adr-cues", "t_sound"),
    ("s_fletcher", "Fletcher", "fletcher-xfer", "t_dio"),
    ("s_ingest", "Ingest Gateway", "ingest-gw", "t_dio"),
    ("s_aspera", "Aspera Bridge", "aspera-br", "t_dio"),
    ("s_sftp", "Vendor SFTP", None, "t_dio"),
    ("s_deliv", "Delivery Portal", "deliv.portal", "t_prod"),
    ("s_sched", "Schedule Board", "sched.board", "t_prod"),
    ("s_budget", "Budget Tracker", None, "t_prod"),
]
for k, n, alt, _dom in SYSTEMS:
    add(k, "system", [n] + ([alt] if alt else []))

# X depends on Y  (X calls / leans on Y; Y feeds X)
DEPS = [
    ("s_poola", "s_deadline"),
    ("s_gpu", "s_deadline"),
    ("s_night", "s_deadline"),
    ("s_deadline", "s_tarn"),
    ("s_wrangler", "s_deadline"),
    ("s_wrangler", "s_evt"),
    ("s_xcode", "s_gpu"),
    ("s_thumb", "s_xcode"),
    ("s_bkp", "s_cold"),
    ("s_bkp", "s_tarn"),
    ("s_lighthouse", "s_evt"),
    ("s_licmon", "s_rlm"),
    ("s_licmon", "s_flex"),
    ("s_heron", "s_pathres"),
    ("s_heron", "s_auth"),
    ("s_sgsync", "s_evt"),
    ("s_sgsync", "s_auth"),
    ("s_pub", "s_heron"),
    ("s_pub", "s_thumb"),
    ("s_vtrack", "s_sgsync"),
    ("s_vtrack", "s_heron"),
    ("s_abrowse", "s_heron"),
    ("s_abrowse", "s_pathres"),
    ("s_pathres", "s_fjord"),
    ("s_mdidx", "s_evt"),
    ("s_mdidx", "s_fjord"),
    ("s_conform", "s_edl"),
    ("s_conform", "s_tc"),
    ("s_edl", "s_tc"),
    ("s_srp", "s_magpie"),
    ("s_srp", "s_auth"),
    ("s_magpie", "s_xcode"),
    ("s_notes", "s_magpie"),
    ("s_notes", "s_sgsync"),
    ("s_comptpl", "s_pathres"),
    ("s_lut", "s_pathres"),
    ("s_gradesync", "s_lut"),
    ("s_dailies", "s_xcode"),
    ("s_dailies", "s_vtrack"),
    ("s_sfx", "s_mdidx"),
    ("s_stem", "s_night"),
    ("s_adr", "s_tc"),
    ("s_fletcher", "s_auth"),
    ("s_ingest", "s_fletcher"),
    ("s_ingest", "s_mdidx"),
    ("s_aspera", "s_ingest"),
    ("s_sftp", "s_ingest"),
    ("s_deliv", "s_aspera"),
    ("s_deliv", "s_conform"),
    ("s_sched", "s_sgsync"),
    ("s_budget", "s_sched"),
    ("s_rlm", "s_lighthouse"),
]

# system -> store where it keeps its data
SYSTEM_STORE = [
    ("s_deadline", "d_rjq"),
    ("s_wrangler", "d_rjq"),
    ("s_xcode", "d_dailies"),
    ("s_thumb", "d_dailies"),
    ("s_rlm", "d_lic"),
    ("s_flex", "d_lic"),
    ("s_licmon", "d_lic"),
    ("s_heron", "d_assetdb"),
    ("s_sgsync", "d_shotdb"),
    ("s_pub", "d_proj"),
    ("s_vtrack", "d_shotdb"),
    ("s_abrowse", "d_assetdb"),
    ("s_evt", "d_events"),
    ("s_pathres", "d_proj"),
    ("s_conform", "d_edit"),
    ("s_edl", "d_edit"),
    ("s_tc", "d_edit"),
    ("s_srp", "d_review"),
    ("s_magpie", "d_review"),
    ("s_notes", "d_shotdb"),
    ("s_comptpl", "d_proj"),
    ("s_lut", "d_luts"),
    ("s_gradesync", "d_proj"),
    ("s_dailies", "d_dailies"),
    ("s_sfx", "d_sfx"),
    ("s_stem", "d_proj"),
    ("s_adr", "d_edit"),
    ("s_fletcher", "d_xfer"),
    ("s_ingest", "d_xfer"),
    ("s_aspera", "d_xfer"),
    ("s_deliv", "d_xfer"),
    ("s_sched", "d_shotdb"),
]

# --------------------------------------------------------------------------
# Name-form helpers
# --------------------------------------------------------------------------
PERSON_FORM_WEIGHTS = [("full", 4), ("first", 3), ("handle", 3), ("nick", 2), ("surname", 1)]
# questions lean harder on handles / nicknames / surnames
QUESTION_FORM_WEIGHTS = [("full", 2), ("first", 2), ("handle", 3), ("nick", 7), ("surname", 2)]


def pick_alias(key, weights=PERSON_FORM_WEIGHTS):
    e = ENT[key]
    if e["kind"] == "person":
        forms = [(f, w) for f, w in weights if f in e["forms"]]
        total = sum(w for _f, w in forms)
        r = rng.random() * total
        for f, w in forms:
            r -= w
            if r < 0:
                return e["forms"][f]
        return e["forms"][forms[-1][0]]
    return rng.choice(e["aliases"])


def kw(s):
    return s[4:] if s.startswith("the ") else s


def cap(s):
    return "The " + s[4:] if s.startswith("the ") else s


# --------------------------------------------------------------------------
# Relation phrasings.  {A}/{B} natural forms, {Ak}/{Bk} article-free forms.
# --------------------------------------------------------------------------
T_OWNER = [  # A = person, B = system
    "{A} owns {B}.",
    "{B} is looked after by {A}.",
    "ping {A} about {B}",
    "{A} is who you ask about {B}.",
    "| {Bk} | owner | {Ak} |",
    "owner({Bk}) = {Ak}",
    "{Bk}:\n  owner: {Ak}",
    '{{"service": "{Bk}", "owner": "{Ak}"}}',
    "note to self: anything weird with {B} goes to {A}, it's theirs.",
    "Standup recap: {A} confirmed they own {B} going forward.",
    "{B} belongs to {A}, don't touch its config without asking.",
    "{Ak} -> owner of {Bk}",
    "If {B} breaks, it's {A}'s pager that goes off.",
    "Who keeps {B} alive? {A}.",
    "{B} (maintained by {A})",
    "{A} took over ownership of {B} after the spring reorg, so every change request for it now goes through them.",
    "> who owns {B}?\n> {A}, always has been",
]
T_DEP = [  # A depends on B
    "{A} depends on {B}.",
    "{A} leans on {B}.",
    "Nothing in {A} works when {B} is down.",
    "{B} feeds {A}.",
    "{A} calls {B} on every request.",
    "{Ak} → {Bk} (hard dep)",
    "deps: {Ak} -> {Bk}",
    "{Ak}:\n  depends_on: [{Bk}]",
    "Learned the hard way: restart {B} and {A} falls over.",
    "{B} sits upstream of {A}.",
    "{A} pulls everything it needs from {B}.",
    "| {Ak} | needs | {Bk} |",
    "Arch review summary: {A} can't run without {B}. It calls it directly, so plan their maintenance windows together.",
    "{A} won't even start if it can't reach {B}.",
    '{{"svc": "{Ak}", "requires": "{Bk}"}}',
    "heads up: {A} is a client of {B}",
    "> why did {A} die last night?\n> {B} was down, it can't live without it",
    "Whiteboard session, summarised: {A} makes a call to {B} before every job it accepts, so whenever {B} is slow, {A} looks slow too and people blame the wrong thing.",
]
T_STORE = [  # A = system, B = store
    "{A} keeps its data in {B}.",
    "{A}'s data lives in {B}.",
    "{A} writes everything to {B}.",
    "{B} is the backing store for {A}.",
    "storage for {Ak}: {Bk}",
    "{Ak} ⇒ data in {Bk}",
    "{Ak}:\n  datastore: {Bk}",
    "| {Ak} | store | {Bk} |",
    "note to self: when {B} fills up, {A} stops saving anything.",
    "{A}'s output lands on {B}.",
    "Everything {A} persists goes to {B}.",
    '{{"service": "{Ak}", "data": "{Bk}"}}',
    "Checked with the devs: {B} holds all of {A}'s state, nothing is kept on local disk.",
    "{A} persists to {B}.",
    "> where does {A} put its stuff?\n> {B}",
    "Post-mortem takeaway, for the record: {A} writes all of its state to {B}, so when that filled up in the spring the service silently dropped work for two hours.",
]
T_HOST = [  # A = store, B = host/site/region
    "{A} is hosted on {B}.",
    "{A} lives on {B}.",
    "{B} runs {A}.",
    "{Ak} @ {Bk}",
    "location of {Ak}: {Bk}",
    "{Ak}:\n  host: {Bk}",
    "| {Ak} | host | {Bk} |",
    "{B} is where {A} physically sits.",
    "{A} is on {B}, not where you'd guess.",
    "Migrated {A} to {B} last quarter; that's where it is now.",
    '{{"store": "{Ak}", "site": "{Bk}"}}',
    "If {B} goes dark, so does {A}.",
    "> which box is {A} on?\n> {B}",
    "Infra migration log, step 4 done: {A} now runs on {B}. Old mount points stay as symlinks for a month, so tell people if their scripts break.",
]
T_MEMBER = [  # A = person, B = team
    "{A} is in {B}.",
    "{A} works in {B}.",
    "{A} joined {B} back in March.",
    "team({Ak}) = {Bk}",
    "| {Ak} | team | {Bk} |",
    "{A}: member of {B}",
    "{A} sits with {B}.",
    "{Ak}:\n  team: {Bk}",
    '{{"person": "{Ak}", "team": "{Bk}"}}',
    "{B} has {A} on it.",
    "{A} reports into {B}.",
    "Reminder: {A} is one of {B}'s people.",
    "Org chart says {A} belongs to {B}.",
    "{A} moved over to {B} last month and is settling in fine.",
    "> what team is {A} on again?\n> {B}",
    "Onboarding note kept from the welcome email: {A} is joining {B}, desk by the window, laptop arrives Monday and accounts should be ready by then.",
]
T_LEAD = [  # A = person, B = team
    "{A} leads {B}.",
    "{B} is led by {A}.",
    "{A} heads up {B}.",
    "lead of {Bk}: {Ak}",
    "| {Bk} | lead | {Ak} |",
    "{Bk}:\n  lead: {Ak}",
    "{A} runs {B}.",
    "Escalations for {B} go to {A}, who leads it.",
    "{A} is {B}'s lead.",
    "{Bk} <- led by {Ak}",
    '{{"team": "{Bk}", "lead": "{Ak}"}}',
    "Met {A} today; they're the one in charge of {B}.",
    "> who's the boss of {B}?\n> {A}",
    "From the all-hands slides: {A} leads {B} now, so budget questions, hiring and priorities for that team go to them rather than to the producers.",
]
T_CHAN = [  # A = team, B = channel / list
    "{A} uses {B}.",
    "To reach {A}, use {B}.",
    "{B} is where {A} talks.",
    "team channel for {Ak}: {Bk}",
    "| {Ak} | channel | {Bk} |",
    "{Ak}:\n  contact: {Bk}",
    "Ask {A} anything via {B}.",
    "{Bk} → {Ak}",
    '{{"team": "{Ak}", "channel": "{Bk}"}}',
    "note to self: {A} ignores DMs, only {B} gets an answer.",
    "> where do I ask {A} stuff?\n> {B}, they answer fast there",
    "Comms tidy-up agreed in Tuesday's meeting: {A} will use {B} for everything (requests, outages, questions) and the old ad-hoc group chats get archived at the end of the month.",
    "{B} belongs to {A}.",
    "{A} can be reached at {B}.",
]
T_CITY = [  # A = person, B = city
    "{A} works from {B}.",
    "{A} is based in {B}.",
    "{A}, {B} office",
    "location({Ak}) = {Bk}",
    "| {Ak} | office | {Bk} |",
    "{Ak}:\n  office: {Bk}",
    "{A} is in the {B} office.",
    "Remember {A} is on {B} time.",
    '{{"person": "{Ak}", "city": "{Bk}"}}',
    "{A} sits in {B}.",
    "{B} is home base for {A}.",
    "{A} works out of our {B} office.",
    "Timezone check before booking: {A} is in {B}, so no calls before their 9am.",
    "> what timezone is {A} on?\n> whatever {B} is on, that's where they work",
    "Travel policy note: since {A} works from {B}, per diems are claimed in local currency and any flights get booked through the {B} office manager, not through us.",
]
REL_TEMPLATES = {
    "owner": T_OWNER,
    "dep": T_DEP,
    "store": T_STORE,
    "host": T_HOST,
    "member": T_MEMBER,
    "lead": T_LEAD,
    "chan": T_CHAN,
    "city": T_CITY,
}

# --------------------------------------------------------------------------
# Build relations:  rel = {kind, a, b}  (a -> b as in the templates)
# --------------------------------------------------------------------------
RELS = []


def rel(kind, a, b):
    RELS.append({"kind": kind, "a": a, "b": b})


for k, n, alt, dom in SYSTEMS:
    pool = [p[0] for p in PEOPLE if p[4] == dom]
    rel("owner", rng.choice(pool), k)
for a, b in DEPS:
    rel("dep", a, b)
for a, b in SYSTEM_STORE:
    rel("store", a, b)
for k, _a, h in STORES:
    rel("host", k, h)
for k, full, handle, nick, team, city, is_lead, _s in PEOPLE:
    rel("lead" if is_lead else "member", k, team)
for k, _a, _ch in TEAMS:
    rel("chan", k, "c_" + k[2:])
for k, full, handle, nick, team, city, is_lead, _s in PEOPLE:
    rel("city", k, city)

# Render each relation with a phrasing; spread phrasings evenly per kind.
for kind, temps in REL_TEMPLATES.items():
    rs = [r for r in RELS if r["kind"] == kind]
    order = []
    while len(order) < len(rs):
        idx = list(range(len(temps)))
        rng.shuffle(idx)
        order.extend(idx)
    for r, ti in zip(rs, order):
        A = pick_alias(r["a"])
        B = pick_alias(r["b"])
        text = temps[ti].format(A=A, B=B, Ak=kw(A), Bk=kw(B))
        r["text"] = cap(text)
        r["template"] = "%s/%d" % (kind, ti)

# --------------------------------------------------------------------------
# Distractors: notes about the same people/systems that state no relation.
# --------------------------------------------------------------------------
SYS_KEYS = [s[0] for s in SYSTEMS]
PER_KEYS = [p[0] for p in PEOPLE]
STORE_KEYS = [s[0] for s in STORES]
HOST_KEYS = [h[0] for h in HOSTS]
TEAM_KEYS = [t[0] for t in TEAMS]
CHAN_KEYS = ["c_" + t[0][2:] for t in TEAMS]
CITY_KEYS = [c[0] for c in CITIES]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]
MONTHS = ["January", "March", "April", "June", "September", "October", "November"]


def S():
    return pick_alias(rng.choice(SYS_KEYS))


def P():
    return pick_alias(rng.choice(PER_KEYS))


def two(keys):
    a, b = rng.sample(keys, 2)
    return pick_alias(a), pick_alias(b)


def nth():
    n = rng.randint(2, 28)
    return "%d%s" % (
        n,
        {1: "st", 2: "nd", 3: "rd"}.get(n % 10 if n not in (11, 12, 13) else 0, "th"),
    )


def conference():
    p = rng.choice(PEOPLE)
    city = rng.choice([c for c in CITY_KEYS if c != p[5]])
    return "%s was in %s for a conference last week." % (pick_alias(p[0]), pick_alias(city))


DISTRACTORS = [
    lambda: (
        "%s was down for %d minutes on %s; root cause still unknown."
        % (S(), rng.randint(12, 90), rng.choice(DAYS))
    ),
    lambda: (
        "%s always wants %s on the coffee run."
        % (P(), rng.choice(["oat milk", "a flat white", "decaf", "green tea", "a double espresso"]))
    ),
    lambda: (
        "The %s support contract renews in %s, roughly £%dk a year."
        % (S(), rng.choice(MONTHS), rng.randint(4, 40))
    ),
    lambda: (
        "%s is on leave %d–%d %s."
        % (P(), rng.randint(1, 9), rng.randint(12, 24), rng.choice(MONTHS))
    ),
    lambda: "%s's birthday is on the %s, cake in the kitchen." % (P(), nth()),
    lambda: "%s throws a harmless deprecation warning on startup; ignore it." % S(),
    lambda: (
        "%s hit %d%% capacity last week, cleanup ticket filed."
        % (cap(pick_alias(rng.choice(STORE_KEYS))), rng.randint(78, 97))
    ),
    lambda: (
        "%s has a scheduled power test on Saturday morning." % pick_alias(rng.choice(HOST_KEYS))
    ),
    lambda: "The %s office closes early on Fridays in summer." % pick_alias(rng.choice(CITY_KEYS)),
    lambda: (
        "Budget review: %s came in %d%% over forecast this quarter." % (S(), rng.randint(5, 30))
    ),
    lambda: "%s asked for a second monitor and a better chair." % P(),
    lambda: "%s and %s argued about tabs vs spaces for twenty minutes." % two(PER_KEYS),
    lambda: "%s says %s's UI is painfully slow on Monday mornings." % (P(), S()),
    lambda: "%s brought up %s in the retro, mostly complaining about the logs." % (P(), S()),
    lambda: (
        "%s is having an offsite next %s."
        % (cap(pick_alias(rng.choice(TEAM_KEYS))), rng.choice(DAYS))
    ),
    lambda: (
        "%s got really noisy during the delivery crunch; consider muting it."
        % pick_alias(rng.choice(CHAN_KEYS))
    ),
    lambda: "Coffee machine in the %s office is broken again." % pick_alias(rng.choice(CITY_KEYS)),
    lambda: conference(),
    lambda: (
        "Upgrade of %s to v%d.%d is pencilled in for the %s."
        % (S(), rng.randint(2, 9), rng.randint(0, 9), nth())
    ),
    lambda: "%s logs rotate every %d days." % (S(), rng.choice([3, 7, 14, 30])),
    lambda: "Vendor call about %s: they promised a patch 'soon'." % S(),
    lambda: "%s is learning Houdini on weekends." % P(),
    lambda: (
        "%s snapshot policy: hourly for %dh, then daily."
        % (cap(pick_alias(rng.choice(STORE_KEYS))), rng.choice([24, 48, 72]))
    ),
    lambda: "%s finished the Nuke training course, certificate on the wall." % P(),
    lambda: "%s and %s were both patched in the same maintenance window." % two(SYS_KEYS),
    lambda: (
        "INC-%d: %s returned 502s for a few minutes, no data lost." % (rng.randint(1000, 4999), S())
    ),
    lambda: "%s hates being pinged after 6pm." % P(),
    lambda: (
        "%s ordered pizza for the late delivery night." % cap(pick_alias(rng.choice(TEAM_KEYS)))
    ),
    lambda: (
        "The fans on %s are loud; someone taped a note to the rack."
        % pick_alias(rng.choice(HOST_KEYS))
    ),
    lambda: (
        "Cost note: egress from %s was about $%d last month."
        % (pick_alias(rng.choice(STORE_KEYS)), rng.randint(120, 900))
    ),
    lambda: "%s is running a 10k for charity, sponsor sheet by the printer." % P(),
    lambda: "%s wants %s renamed to something friendlier; nobody agreed." % (P(), S()),
    lambda: "%s latency graph has gaps every night around 02:00." % S(),
    lambda: "%s gave a great lunch-and-learn on ACES last %s." % (P(), rng.choice(DAYS)),
    lambda: "%s asked whether %s supports OpenTimelineIO. No idea yet." % (P(), S()),
    lambda: "%s and %s are doing the pub quiz together again." % two(PER_KEYS),
    lambda: (
        "%s is hiring a junior; JD draft is in the shared drive."
        % cap(pick_alias(rng.choice(TEAM_KEYS)))
    ),
    lambda: (
        "The %s office moves to the new floor in %s."
        % (pick_alias(rng.choice(CITY_KEYS)), rng.choice(MONTHS))
    ),
    lambda: "%s dashboard colours changed and everyone hates it." % S(),
    lambda: "Licence true-up for %s is due in %s." % (S(), rng.choice(MONTHS)),
    lambda: "%s recommended a ramen place that turned out to be great." % P(),
    lambda: "%s firmware update postponed again." % pick_alias(rng.choice(HOST_KEYS)),
    lambda: "Topic in %s changed to the holiday rota." % pick_alias(rng.choice(CHAN_KEYS)),
    lambda: (
        "Demo of %s for the new producers went fine, %d people showed up."
        % (S(), rng.randint(5, 20))
    ),
    lambda: "%s is allergic to peanuts, remember for team lunches." % P(),
    lambda: (
        "%s retention is %d days unless someone asks for longer."
        % (cap(pick_alias(rng.choice(STORE_KEYS))), rng.choice([30, 60, 90, 180]))
    ),
    lambda: (
        "%s retro moved to %s 3pm." % (cap(pick_alias(rng.choice(TEAM_KEYS))), rng.choice(DAYS))
    ),
    lambda: (
        "%s and %s both showed red on the status page during the storm, back within the hour."
        % two(SYS_KEYS)
    ),
    lambda: "Overheard %s saying %s needs a proper runbook someday." % (P(), S()),
]
DISTRACTOR_CAP = 3
d_used = [0] * len(DISTRACTORS)
distractor_texts = []
guard = 0
while len(distractor_texts) < N_DISTRACTORS:
    guard += 1
    assert guard < 10000
    ti = rng.randrange(len(DISTRACTORS))
    if d_used[ti] >= DISTRACTOR_CAP:
        continue
    t = DISTRACTORS[ti]()
    if t in distractor_texts:
        continue
    d_used[ti] += 1
    distractor_texts.append(t)

# --------------------------------------------------------------------------
# Shuffle relation facts and distractors together, number them.
# --------------------------------------------------------------------------
pool = [("rel", i) for i in range(len(RELS))] + [("dis", i) for i in range(len(distractor_texts))]
rng.shuffle(pool)
facts = []
for n, (typ, i) in enumerate(pool, 1):
    fid = "ps%04d" % n
    if typ == "rel":
        RELS[i]["id"] = fid
        facts.append({"id": fid, "content": RELS[i]["text"]})
    else:
        facts.append({"id": fid, "content": distractor_texts[i]})


# --------------------------------------------------------------------------
# Indexes and hops.  A hop maps an entity to (relation, next entity) and is
# only defined when that relation is unique for the entity.
# --------------------------------------------------------------------------
def rels_where(kind, side, key):
    return [r for r in RELS if r["kind"] == kind and r[side] == key]


def hop(name, ent):
    if name == "owner":  # system -> owning person
        rs, nxt = rels_where("owner", "b", ent), "a"
    elif name == "owned":  # person -> the one system they own
        rs, nxt = rels_where("owner", "a", ent), "b"
    elif name == "dep":  # system -> system it depends on
        rs, nxt = rels_where("dep", "a", ent), "b"
    elif name == "deprev":  # system -> system that depends on it
        rs, nxt = rels_where("dep", "b", ent), "a"
    elif name == "store":  # system -> store
        rs, nxt = rels_where("store", "a", ent), "b"
    elif name == "storerev":  # store -> the one system using it
        rs, nxt = rels_where("store", "b", ent), "a"
    elif name == "host":  # store -> host
        rs, nxt = rels_where("host", "a", ent), "b"
    elif name == "team":  # person -> team (member or lead)
        rs, nxt = rels_where("member", "a", ent) + rels_where("lead", "a", ent), "b"
    elif name == "lead":  # team -> lead
        rs, nxt = rels_where("lead", "b", ent), "a"
    elif name == "leadrev":  # person -> team they lead
        rs, nxt = rels_where("lead", "a", ent), "b"
    elif name == "chan":  # team -> channel
        rs, nxt = rels_where("chan", "a", ent), "b"
    elif name == "chanrev":  # channel -> team
        rs, nxt = rels_where("chan", "b", ent), "a"
    elif name == "city":  # person -> city
        rs, nxt = rels_where("city", "a", ent), "b"
    else:
        raise KeyError(name)
    if len(rs) != 1:
        return None
    return rs[0], rs[0][nxt]


# --------------------------------------------------------------------------
# Question types: (start kind, hops, count, templates with {X} / {Xk})
# --------------------------------------------------------------------------
QTYPES = [
    # ---------------- 1 hop ----------------
    (
        "owner",
        "system",
        ["owner"],
        7,
        [
            "Who owns {X}?",
            "Who should I ping about {X}?",
            "{Xk} owner?",
            "{X} is acting up again. Who looks after it?",
            "Tell me who is responsible for {X}.",
            "Find the owner of {X}.",
        ],
    ),
    (
        "owned",
        "person",
        ["owned"],
        3,
        [
            "Which system is {X} the owner of?",
            "What does {X} look after?",
        ],
    ),
    (
        "dep",
        "system",
        ["dep"],
        5,
        [
            "What does {X} depend on?",
            "Which service does {X} call under the hood?",
            "{Xk} upstream dependency",
            "Name the system that {X} leans on.",
        ],
    ),
    (
        "deprev",
        "system",
        ["deprev"],
        4,
        [
            "Which system depends on {X}?",
            "What breaks downstream if {X} goes down?",
            "Which service is fed by {X}?",
        ],
    ),
    (
        "store",
        "system",
        ["store"],
        6,
        [
            "Where does {X} keep its data?",
            "{Xk} datastore",
            "What is the backing store for {X}?",
            "I need to restore {X} from backup. Which store holds its data?",
            "Tell me where {X} persists its state.",
        ],
    ),
    (
        "storerev",
        "store",
        ["storerev"],
        2,
        [
            "Which system writes to {X}?",
            "Which service keeps its data in {X}?",
        ],
    ),
    (
        "host",
        "store",
        ["host"],
        4,
        [
            "Where is {X} hosted?",
            "{Xk} host",
            "Which host or site runs {X}?",
            "Facilities wants to know what's physically behind {X}. Where does it live?",
        ],
    ),
    (
        "member",
        "person",
        ["team"],
        5,
        [
            "Which team is {X} in?",
            "What team does {X} work in?",
            "{X} team?",
            "I'm updating the org chart. Which team does {X} belong to?",
            "Tell me {X}'s team.",
        ],
    ),
    (
        "lead",
        "team",
        ["lead"],
        3,
        [
            "Who leads {X}?",
            "Who is the lead of {X}?",
            "{Xk} lead",
        ],
    ),
    (
        "leadrev",
        "person",
        ["leadrev"],
        2,
        [
            "Which team does {X} lead?",
            "What team is {X} in charge of?",
        ],
    ),
    (
        "chan",
        "team",
        ["chan"],
        2,
        [
            "Which channel does {X} use?",
            "How do I reach {X}?",
        ],
    ),
    (
        "chanrev",
        "channel",
        ["chanrev"],
        2,
        [
            "Which team uses {X}?",
            "Whose channel is {X}?",
        ],
    ),
    (
        "city",
        "person",
        ["city"],
        5,
        [
            "Which city does {X} work from?",
            "Where is {X} based?",
            "{X} office location",
            "Scheduling a call with {X}. Which office are they in?",
        ],
    ),
    # ---------------- 2 hops ----------------
    (
        "owner_team",
        "system",
        ["owner", "team"],
        8,
        [
            "Which team is the owner of {X} in?",
            "{X}'s owner is on which team?",
            "Which team does the person who owns {X} belong to?",
            "{Xk} owner team",
        ],
    ),
    (
        "owner_city",
        "system",
        ["owner", "city"],
        7,
        [
            "Where is the person who owns {X} based?",
            "Which office does {X}'s owner work from?",
            "{Xk} owner city",
            "I want to talk to whoever owns {X} in person. Which city do I travel to?",
        ],
    ),
    (
        "store_host",
        "system",
        ["store", "host"],
        7,
        [
            "Where is the store behind {X} hosted?",
            "Which host runs the datastore that {X} writes to?",
            "{Xk} storage host",
            "The DC team is asking: {X}'s data sits on which host or site?",
        ],
    ),
    (
        "dep_owner",
        "system",
        ["dep", "owner"],
        7,
        [
            "Who owns the system that {X} depends on?",
            "{X} is broken because its upstream is down. Who owns that upstream system?",
            "Who looks after whatever {X} leans on?",
            "{Xk} dependency owner",
        ],
    ),
    (
        "dep_store",
        "system",
        ["dep", "store"],
        5,
        [
            "Where does the system {X} depends on keep its data?",
            "Which store backs {X}'s upstream dependency?",
            "{Xk} upstream datastore",
        ],
    ),
    (
        "team_lead",
        "person",
        ["team", "lead"],
        6,
        [
            "Who leads the team that {X} is in?",
            "Who is {X}'s team lead?",
            "I need to escalate something about {X}'s work. Who leads their team?",
            "{X} team lead",
            "Tell me the lead of {X}'s team.",
        ],
    ),
    (
        "team_chan",
        "person",
        ["team", "chan"],
        6,
        [
            "Which channel should I use to reach {X}'s team?",
            "Where does {X}'s team chat?",
            "{X} team channel",
            "I need to reach {X}'s whole team at once. What channel or list do they use?",
            "Find the channel of the team {X} works in.",
        ],
    ),
    (
        "tlead_city",
        "team",
        ["lead", "city"],
        3,
        [
            "Where is the lead of {X} based?",
            "Which city does {X}'s lead work from?",
            "{Xk} lead office",
        ],
    ),
    (
        "chan_lead",
        "channel",
        ["chanrev", "lead"],
        4,
        [
            "Who leads the team that uses {X}?",
            "Who is the lead of the team behind {X}?",
            "{X} team lead",
        ],
    ),
    (
        "dep_dep",
        "system",
        ["dep", "dep"],
        3,
        [
            "What does {X}'s dependency itself depend on?",
            "Two levels up from {X}: which system does its upstream depend on?",
            "{Xk} dependency of dependency",
        ],
    ),
    (
        "storerev_owner",
        "store",
        ["storerev", "owner"],
        2,
        [
            "Who owns the only system that keeps its data in {X}?",
            "{X} is filling up. Who owns the system writing to it?",
        ],
    ),
    (
        "deprev_owner",
        "system",
        ["deprev", "owner"],
        2,
        [
            "Who owns the system that depends on {X}?",
            "I'm taking {X} down for maintenance. Who owns the service that relies on it?",
        ],
    ),
    # ---------------- 3 hops ----------------
    (
        "owner_team_chan",
        "system",
        ["owner", "team", "chan"],
        8,
        [
            "Which channel does the team of {X}'s owner use?",
            "I'm writing the on-call rota. Which channel reaches the team of whoever owns {X}?",
            "{Xk} owner team channel",
            "Where should I post to reach the team that {X}'s owner is in?",
            "Tell me the channel for the team whose member owns {X}.",
        ],
    ),
    (
        "owner_team_lead",
        "system",
        ["owner", "team", "lead"],
        8,
        [
            "Who leads the team of the person who owns {X}?",
            "{X}'s owner's team lead: who is it?",
            "{Xk} owner team lead",
            "To escalate an outage of {X} past its owner, who leads the owner's team?",
            "Find the lead of the team that {X}'s owner belongs to.",
        ],
    ),
    (
        "dep_owner_team",
        "system",
        ["dep", "owner", "team"],
        6,
        [
            "Which team is the owner of {X}'s dependency in?",
            "{X} calls another system. Which team does that system's owner belong to?",
            "{Xk} dependency owner team",
        ],
    ),
    (
        "dep_owner_city",
        "system",
        ["dep", "owner", "city"],
        5,
        [
            "Where is the owner of the system {X} depends on based?",
            "{Xk} upstream owner city",
            "Which city does the person who owns {X}'s upstream work from?",
        ],
    ),
    (
        "dep_store_host",
        "system",
        ["dep", "store", "host"],
        6,
        [
            "Where is the data of the system that {X} depends on hosted?",
            "{Xk} upstream store host",
            "Which host runs the store behind {X}'s dependency?",
            "Capacity planning: {X} relies on another service. On which host or site does that service's data live?",
        ],
    ),
    (
        "dep_dep_owner",
        "system",
        ["dep", "dep", "owner"],
        4,
        [
            "Who owns the dependency of {X}'s dependency?",
            "Go two hops upstream from {X}. Who owns that system?",
        ],
    ),
    (
        "team_lead_city",
        "person",
        ["team", "lead", "city"],
        6,
        [
            "Where is {X}'s team lead based?",
            "Which city does the lead of {X}'s team work from?",
            "{X} team lead city",
            "I'm flying out to meet {X}'s team lead. Which city?",
        ],
    ),
    (
        "chan_lead_city",
        "channel",
        ["chanrev", "lead", "city"],
        4,
        [
            "Where does the lead of the team using {X} work?",
            "{X} team lead office",
            "The team on {X} has a lead. Which city are they in?",
        ],
    ),
    (
        "storerev_owner_team",
        "store",
        ["storerev", "owner", "team"],
        3,
        [
            "Which team is the owner of the system that writes to {X} in?",
            "{Xk} writer's owner team",
            "Only one service uses {X}. Which team is that service's owner on?",
        ],
    ),
]

KIND_KEYS = {
    "system": SYS_KEYS,
    "person": PER_KEYS,
    "store": STORE_KEYS,
    "team": TEAM_KEYS,
    "channel": CHAN_KEYS,
}


def walk(start, hops):
    ents, rs = [start], []
    cur = start
    for h in hops:
        res = hop(h, cur)
        if res is None:
            return None
        r, cur = res
        if r in rs or cur in ents:
            return None
        rs.append(r)
        ents.append(cur)
    return ents, rs


questions = []
qmeta = []
start_use = {}
gold_seen = []
for qname, skind, hops, count, temps in QTYPES:
    cands = []
    for k in KIND_KEYS[skind]:
        w = walk(k, hops)
        if w is not None:
            cands.append(w)
    rng.shuffle(cands)
    # prefer start entities used least so far (stable sort keeps shuffle order)
    cands.sort(key=lambda c: start_use.get(c[0][0], 0))
    tuse = [0] * len(temps)
    picked = 0
    for ents, rs in cands:
        if picked == count:
            break
        gold = [r["id"] for r in rs]
        if gold in gold_seen:
            continue
        least = min(tuse)
        choices = [i for i, u in enumerate(tuse) if u == least and u < TEMPLATE_CAP]
        assert choices, qname
        ti = rng.choice(choices)
        X = pick_alias(ents[0], QUESTION_FORM_WEIGHTS)
        q = cap(temps[ti].format(X=X, Xk=kw(X)))
        if any(q == qq["question"] for qq in questions):
            continue
        tuse[ti] += 1
        picked += 1
        start_use[ents[0]] = start_use.get(ents[0], 0) + 1
        gold_seen.append(gold)
        questions.append({"question": q, "hops": len(hops), "gold": gold})
        qmeta.append({"type": qname, "ents": ents, "rels": rs, "named": X, "template": ti})
    if picked != count:
        sys.exit("not enough candidates for %s: %d/%d" % (qname, picked, count))


# --------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------
def mentions(text, key):
    for a in ENT[key]["aliases"] + [kw(x) for x in ENT[key]["aliases"]]:
        pat = r"(?<![A-Za-z0-9_])" + re.escape(a) + r"(?![A-Za-z0-9_])"
        if re.search(pat, text, flags=re.IGNORECASE):
            return True
    return False


errors = []
ids = [f["id"] for f in facts]
id_set = {}
for i in ids:
    if i in id_set:
        errors.append("duplicate id " + i)
    id_set[i] = True
contents = [f["content"] for f in facts]
if len(contents) != len(dict.fromkeys(contents)):
    errors.append("duplicate fact content")

# alias uniqueness across all entities (case-insensitive)
owner_of_alias = {}
for k, e in ENT.items():
    for a in e["aliases"]:
        la = a.lower()
        if la in owner_of_alias and owner_of_alias[la] != k:
            errors.append("alias %r shared by %s and %s" % (a, owner_of_alias[la], k))
        owner_of_alias[la] = k

# every relation fact names both entities
for r in RELS:
    for side in ("a", "b"):
        if not mentions(r["text"], r[side]):
            errors.append("fact %s does not mention %s: %r" % (r["id"], r[side], r["text"]))

# functional relations
for s in SYS_KEYS:
    if len(rels_where("owner", "b", s)) != 1:
        errors.append("system %s owner count" % s)
    if len(rels_where("store", "a", s)) > 1:
        errors.append("system %s has >1 store" % s)
for d in STORE_KEYS:
    if len(rels_where("host", "a", d)) != 1:
        errors.append("store %s host count" % d)
    if not rels_where("store", "b", d):
        errors.append("store %s unused" % d)
for p in PER_KEYS:
    if len(rels_where("member", "a", p) + rels_where("lead", "a", p)) != 1:
        errors.append("person %s team count" % p)
    if len(rels_where("city", "a", p)) != 1:
        errors.append("person %s city count" % p)
for t in TEAM_KEYS:
    if len(rels_where("lead", "b", t)) != 1 or len(rels_where("chan", "a", t)) != 1:
        errors.append("team %s lead/channel count" % t)

# distractors must not use relation vocabulary
BAD = [
    " owns ",
    "owner",
    "depends",
    " leads ",
    "led by",
    "based in",
    "works from",
    "hosted",
    "keeps its data",
    "backing store",
    "team lead",
    "belongs to",
    "upstream",
    "feeds",
    "maintained by",
]
for t in distractor_texts:
    for b in BAD:
        if b in t.lower():
            errors.append("distractor uses relation wording %r: %r" % (b, t))

# questions
hop_counts = {1: 0, 2: 0, 3: 0}
for q, m in zip(questions, qmeta):
    hop_counts[q["hops"]] += 1
    if len(q["gold"]) != q["hops"]:
        errors.append("gold length mismatch: " + q["question"])
    for g in q["gold"]:
        if g not in id_set:
            errors.append("unknown gold id %s" % g)
    ents, rs = m["ents"], m["rels"]
    if not mentions(q["question"], ents[0]):
        errors.append("question does not name its start entity: " + q["question"])
    for i, r in enumerate(rs):
        # fact i must mention the entity reached so far, and the next one
        if not (mentions(r["text"], ents[i]) and mentions(r["text"], ents[i + 1])):
            errors.append("chain break at %d in %r" % (i, q["question"]))
        if r["id"] != q["gold"][i]:
            errors.append("gold order mismatch in %r" % q["question"])
    # re-walk independently: every hop unique in the world
    w = walk(ents[0], QTYPES[[x[0] for x in QTYPES].index(m["type"])][2])
    if w is None or [r["id"] for r in w[1]] != q["gold"]:
        errors.append("chain not unique / not reproducible: " + q["question"])
tcount = {}
for m in qmeta:
    t = QTYPES[[x[0] for x in QTYPES].index(m["type"])][4][m["template"]]
    tcount[t] = tcount.get(t, 0) + 1
for t, c in tcount.items():
    if c > TEMPLATE_CAP:
        errors.append("template used %d times: %r" % (c, t))
if hop_counts != Q_COUNTS:
    errors.append("hop counts %r != %r" % (hop_counts, Q_COUNTS))
if len(questions) != len(dict.fromkeys(q["question"] for q in questions)):
    errors.append("duplicate questions")

if errors:
    for e in errors:
        print("ERROR:", e)
    sys.exit(1)

# --------------------------------------------------------------------------
# Write and report
# --------------------------------------------------------------------------
world = {"facts": facts, "questions": questions}
data = json.dumps(world, ensure_ascii=False, indent=1) + "\n"
with open(OUT, "w", encoding="utf-8") as fh:
    fh.write(data)

kinds = {}
for k, e in ENT.items():
    kinds[e["kind"]] = kinds.get(e["kind"], 0) + 1
rk = {}
for r in RELS:
    rk[r["kind"]] = rk.get(r["kind"], 0) + 1
words = sorted(len(f["content"].split()) for f in facts)
print("entities:", ", ".join("%s=%d" % (k, v) for k, v in kinds.items()))
print("relation facts: %d (%s)" % (len(RELS), ", ".join("%s=%d" % kv for kv in rk.items())))
print("distractor facts: %d" % len(distractor_texts))
print("total facts: %d" % len(facts))
print(
    "questions: %d (1-hop=%d, 2-hop=%d, 3-hop=%d)"
    % (len(questions), hop_counts[1], hop_counts[2], hop_counts[3])
)
print(
    "question templates used: %d (max uses of one template: %d)"
    % (len(tcount), max(tcount.values()))
)
print(
    "fact length (words): median=%d, max=%d, >20 words=%d"
    % (words[len(words) // 2], words[-1], sum(1 for w in words if w > 20))
)
print("md5(world.json) =", hashlib.md5(data.encode("utf-8")).hexdigest())
