#!/usr/bin/env python3
"""Build world.json: the long-term memory of an AI assistant that works for the
IT and engineering department of the Northmarch Blood & Transplant Service
(NBTS), a fictional regional blood, tissue and stem-cell service.

Standard library only. A single random.Random(140014) makes every choice, and
no set is ever iterated, so the output is identical for any PYTHONHASHSEED.
Every check runs before anything is written; a failed check raises
AssertionError and world.json is left untouched.

Usage:  python3 make_world.py
"""

import hashlib
import json
import os
import random
import re
from collections import Counter

SEED = 140014
RNG = random.Random(SEED)
ID_PREFIX = "nb"
HERE = os.path.dirname(os.path.abspath(__file__))
OUT_PATH = os.path.join(HERE, "world.json")

N_DISTRACTORS = 165
QUESTION_PLAN = {1: 50, 2: 60, 3: 50}
MAX_TEMPLATE_USES = 4
MIN_PHRASINGS = 8
MIN_FACTS = 320
ALIAS_GAP = 8  # max characters between a primary name and its second name

# --------------------------------------------------------------------------
# Entities
# --------------------------------------------------------------------------

# (full name, second names: nicknames and chat handles)
PEOPLE = [
    ("Priya Raman", ["@praman"]),
    ("Tomasz Wojcik", ["Tomek"]),
    ("Aisling Byrne", []),
    ("Kwame Mensah", ["@kwam"]),
    ("Bethan Pryce", []),
    ("Oluwaseun Adeyemi", ["Seun"]),
    ("Marguerite Fontaine", ["Maggie", "@mfontaine"]),
    ("Rhodri Evans", []),
    ("Hamid Karimi", []),
    ("Signe Halvorsen", ["@signeh"]),
    ("Declan Moriarty", ["@dmoriarty"]),
    ("Farah Siddiqui", []),
    ("Gregor MacLeod", []),
    ("Ines Carvalho", []),
    ("Jonah Whitlock", []),
    ("Keiko Tanabe", []),
    ("Lachlan Ferris", []),
    ("Mireille Dubois", []),
    ("Niamh Gallagher", []),
    ("Osric Pembleton", []),
    ("Pavla Novak", []),
    ("Quentin Hale", []),
    ("Rosalind Achebe", ["Ros"]),
    ("Sunil Varma", ["@sunil.v"]),
    ("Thandiwe Khumalo", ["Thandi"]),
    ("Ulrich Brandt", []),
    ("Valentina Greco", ["Val", "@vgreco"]),
    ("Wendell Osei", []),
    ("Xiomara Reyes", ["Xio"]),
    ("Yusuf Demir", []),
    ("Zofia Lindqvist", ["@zof"]),
    ("Alasdair Crane", ["Ally"]),
    ("Bronwen Tate", []),
    ("Cormac Doyle", []),
    ("Delphine Marsh", []),
    ("Emeka Obi", []),
    ("Fenella Royce", []),
    ("Gideon Ashworth", ["Gid"]),
    ("Hollis Granger", ["@hgranger"]),
    ("Imogen Clare", []),
    ("Jasper Okafor", []),
    ("Kirsty Dunmore", []),
    ("Leopold Sterne", ["Leo"]),
    ("Morwenna Kitto", []),
    ("Nikhil Bose", ["@nbose"]),
    ("Orla Keane", []),
    ("Piotr Zielinski", ["@piotrz"]),
    ("Ravi Chandran", []),
    ("Saoirse Quinlan", []),
    ("Tobias Lund", []),
    ("Ursula Penhallow", ["Ulla"]),
    ("Vikram Sethi", []),
]

# (team, second names, chat channel or mailing list)
TEAMS = [
    ("Donor Systems", [], "#donor-eng"),
    ("Lab Platforms", [], "#lab-eng"),
    ("Supply Chain Apps", ["SCA"], "supplychain-apps@nbts.example"),
    ("Hospital Services", [], "#hosp-svc"),
    ("Data & Reporting", ["D&R"], "#data-and-reporting"),
    ("Platform Infrastructure", [], "#infra-platform"),
    ("Security Engineering", [], "sec-eng@nbts.example"),
    ("Integration Engineering", [], "#integration"),
    ("Corporate Apps", [], "corp-apps@nbts.example"),
    ("Observability & Tooling", ["O&T"], "#obs-tooling"),
]

OFFICES = [
    ("Calder House", []),
    ("Filton Processing Centre", ["FPC"]),
    ("Wyre Road Laboratory", []),
    ("Ashby Donor Centre", []),
    ("Tynefield Distribution Hub", ["TDH"]),
    ("Marlow Street Annexe", []),
]

# (data centre / cloud region, second names, kind)
LOCATIONS = [
    ("Kelso Park data centre", ["KP1"], "onprem"),
    ("Harbourgate data centre", ["HG2"], "onprem"),
    ("Brackenfield co-lo", [], "onprem"),
    ("AWS eu-west-2", ["AWS London"], "aws"),
    ("AWS eu-west-1", ["AWS Ireland"], "aws"),
    ("Azure UK South", ["uksouth"], "azure"),
    ("Azure UK West", [], "azure"),
]

# (host identifier, second names, kind)
HOSTS = [
    ("nbx-db-01", ["Granite"], "onprem"),
    ("nbx-db-02", ["Basalt"], "onprem"),
    ("nbx-db-03", [], "onprem"),
    ("nbx-db-05", ["Flint"], "onprem"),
    ("nbx-ora-01", ["Big Iron"], "onprem"),
    ("nbx-vm-07", [], "onprem"),
    ("nbx-vm-14", [], "onprem"),
    ("nbx-ts-01", [], "onprem"),
    ("nbx-es-02", ["Haystack"], "onprem"),
    ("nbx-fs-01", [], "onprem"),
    ("nbx-nas-01", ["Attic"], "onprem"),
    ("rds-prod-a", [], "aws"),
    ("eks-prod-blue", ["Bluebottle"], "aws"),
    ("s3-archive-a", [], "aws"),
    ("ec2-mongo-1", [], "aws"),
    ("aks-prod-1", ["Kingfisher"], "azure"),
    ("azsql-prod-2", [], "azure"),
    ("cosmos-prod-1", [], "azure"),
]

# (data store, second names, hosts it could plausibly run on)
STORES = [
    ("Donor Master DB", ["pg-donor-main"], ["nbx-db-01", "nbx-db-02", "rds-prod-a"]),
    ("Appointments DB", ["pg-appts"], ["nbx-db-02", "rds-prod-a", "azsql-prod-2"]),
    (
        "Portal Session Cache",
        ["redis-portal"],
        ["eks-prod-blue", "aks-prod-1", "nbx-vm-07"],
    ),
    ("Mobile Sessions DB", [], ["nbx-db-03", "azsql-prod-2"]),
    ("Outbound Message Log", [], ["cosmos-prod-1", "ec2-mongo-1", "nbx-db-05"]),
    ("Consent Vault DB", ["pg-consent"], ["nbx-db-01", "nbx-db-05"]),
    ("Address Reference DB", [], ["nbx-db-03", "rds-prod-a"]),
    ("Results Oracle", ["ora-results"], ["nbx-ora-01"]),
    ("Analyser Staging Area", ["fs-analyser-in"], ["nbx-fs-01", "nbx-nas-01"]),
    ("Label Template Store", [], ["nbx-fs-01", "nbx-vm-14"]),
    ("Equipment Register DB", [], ["nbx-db-02", "nbx-db-03"]),
    ("Quality Records DB", ["pg-quality"], ["nbx-db-05", "azsql-prod-2"]),
    ("Component Tracking DB", ["pg-components"], ["nbx-db-01", "nbx-db-02"]),
    ("Stock Ledger DB", ["pg-stock"], ["nbx-db-01", "nbx-db-05"]),
    ("Cold Chain Timeseries", ["tsdb-coldchain"], ["nbx-ts-01"]),
    ("Courier Jobs Mongo", ["mongo-courier"], ["ec2-mongo-1", "cosmos-prod-1"]),
    ("Telematics Bucket", ["s3-telematics"], ["s3-archive-a"]),
    ("Plasma Export DB", [], ["nbx-db-03", "azsql-prod-2"]),
    ("Forecast Feature Store", [], ["eks-prod-blue", "s3-archive-a"]),
    ("Orders MySQL", ["mysql-orders"], ["rds-prod-a", "nbx-vm-14"]),
    ("Crossmatch Results DB", [], ["nbx-ora-01", "nbx-db-02"]),
    ("Recall Case Store", [], ["nbx-db-05", "azsql-prod-2"]),
    ("Tissue Registry DB", [], ["nbx-db-03", "nbx-db-01"]),
    ("Stem Cell Search Index", ["solr-stemcell"], ["nbx-es-02", "eks-prod-blue"]),
    ("Insight Warehouse", ["dw-insight"], ["azsql-prod-2", "rds-prod-a"]),
    ("Gateway Config DB", [], ["eks-prod-blue", "aks-prod-1"]),
    ("Backup Catalogue DB", [], ["nbx-nas-01", "nbx-db-03"]),
    ("Broker Journal", [], ["nbx-vm-07", "nbx-vm-14"]),
    ("Scanned Documents Archive", ["blob-scans"], ["nbx-nas-01", "s3-archive-a"]),
    ("Identity Directory", ["ldap-core"], ["nbx-vm-07", "nbx-vm-14"]),
    ("Secrets Backend", [], ["nbx-vm-14", "aks-prod-1"]),
    ("Audit Index", ["es-audit"], ["nbx-es-02"]),
    ("Finance Staging DB", [], ["nbx-db-02", "azsql-prod-2"]),
    ("Interface Message Store", [], ["nbx-db-05", "nbx-vm-07"]),
    ("Roster DB", [], ["azsql-prod-2", "cosmos-prod-1"]),
    ("Ticket DB", [], ["aks-prod-1", "azsql-prod-2"]),
    ("Metrics Store", ["prom-lts"], ["nbx-ts-01", "eks-prod-blue"]),
    ("Log Archive", ["s3-logs"], ["s3-archive-a", "nbx-nas-01"]),
]

# (service, second names, home team, data store, upstream services)
SERVICES = [
    (
        "Donor Registry",
        ["DonReg"],
        "Donor Systems",
        "Donor Master DB",
        ["Address Lookup", "Consent Records"],
    ),
    (
        "Appointment Booker",
        ["Bookit"],
        "Donor Systems",
        "Appointments DB",
        ["Donor Registry", "Session Planner"],
    ),
    (
        "Donor Portal",
        [],
        "Donor Systems",
        "Portal Session Cache",
        ["Appointment Booker", "API Gateway"],
    ),
    (
        "Session Planner",
        ["Caravan"],
        "Donor Systems",
        "Mobile Sessions DB",
        ["Fleet Telematics"],
    ),
    (
        "Mobile Clinic Sync",
        ["MCS"],
        "Donor Systems",
        "Mobile Sessions DB",
        ["Session Planner"],
    ),
    ("Eligibility Checker", [], "Donor Systems", "Donor Master DB", ["Donor Registry"]),
    (
        "Donor Messaging Service",
        ["Pigeon"],
        "Donor Systems",
        "Outbound Message Log",
        ["Notification Gateway"],
    ),
    (
        "Consent Records",
        [],
        "Donor Systems",
        "Consent Vault DB",
        ["Audit Trail Service"],
    ),
    ("Address Lookup", [], "Donor Systems", "Address Reference DB", []),
    (
        "Virology Results Hub",
        ["VRH"],
        "Lab Platforms",
        "Results Oracle",
        ["Analyser Gateway"],
    ),
    (
        "Analyser Gateway",
        [],
        "Lab Platforms",
        "Analyser Staging Area",
        ["Barcode Resolver"],
    ),
    (
        "Sample Tracking",
        ["Tracer"],
        "Lab Platforms",
        "Results Oracle",
        ["Barcode Resolver"],
    ),
    (
        "Blood Grouping Service",
        [],
        "Lab Platforms",
        "Results Oracle",
        ["Analyser Gateway"],
    ),
    ("Barcode Resolver", [], "Lab Platforms", "Label Template Store", []),
    (
        "Equipment Calibration Log",
        [],
        "Lab Platforms",
        "Equipment Register DB",
        ["Staff SSO"],
    ),
    (
        "Quality Deviation Tracker",
        ["QDT"],
        "Lab Platforms",
        "Quality Records DB",
        ["Staff SSO", "Audit Trail Service"],
    ),
    (
        "Component Processing Tracker",
        ["CPT"],
        "Supply Chain Apps",
        "Component Tracking DB",
        ["Sample Tracking", "Label Printing Service"],
    ),
    (
        "Label Printing Service",
        [],
        "Supply Chain Apps",
        "Label Template Store",
        ["Barcode Resolver"],
    ),
    (
        "Inventory Ledger",
        ["Stockroom"],
        "Supply Chain Apps",
        "Stock Ledger DB",
        ["Component Processing Tracker"],
    ),
    (
        "Cold Chain Monitor",
        [],
        "Supply Chain Apps",
        "Cold Chain Timeseries",
        ["Sensor Ingest"],
    ),
    (
        "Sensor Ingest",
        [],
        "Supply Chain Apps",
        "Cold Chain Timeseries",
        ["Message Broker"],
    ),
    (
        "Courier Dispatch",
        ["Relay"],
        "Supply Chain Apps",
        "Courier Jobs Mongo",
        ["Fleet Telematics", "Inventory Ledger"],
    ),
    ("Fleet Telematics", ["Wheelhouse"], "Supply Chain Apps", "Telematics Bucket", []),
    (
        "Plasma Export Planner",
        ["PEP"],
        "Supply Chain Apps",
        "Plasma Export DB",
        ["Inventory Ledger"],
    ),
    (
        "Platelet Forecast",
        [],
        "Supply Chain Apps",
        "Forecast Feature Store",
        ["Inventory Ledger", "Warehouse Loader"],
    ),
    (
        "Hospital Ordering Portal",
        ["HOP"],
        "Hospital Services",
        "Orders MySQL",
        ["API Gateway", "Inventory Ledger", "Staff SSO"],
    ),
    (
        "Crossmatch Service",
        ["Matchbox"],
        "Hospital Services",
        "Crossmatch Results DB",
        ["Virology Results Hub", "Blood Grouping Service"],
    ),
    (
        "Issue & Return Tracker",
        ["IRT"],
        "Hospital Services",
        "Stock Ledger DB",
        ["Inventory Ledger"],
    ),
    (
        "Recall Manager",
        ["Lookback"],
        "Hospital Services",
        "Recall Case Store",
        ["Issue & Return Tracker"],
    ),
    (
        "Haemovigilance Reporter",
        ["HVR"],
        "Hospital Services",
        "Recall Case Store",
        ["Recall Manager"],
    ),
    (
        "Tissue Bank Registry",
        [],
        "Hospital Services",
        "Tissue Registry DB",
        ["Consent Records"],
    ),
    (
        "Stem Cell Donor Search",
        ["Marrowfinder"],
        "Hospital Services",
        "Stem Cell Search Index",
        ["Donor Registry"],
    ),
    (
        "Hospital Billing",
        ["Tally"],
        "Hospital Services",
        "Orders MySQL",
        ["Finance Bridge", "Hospital Ordering Portal"],
    ),
    (
        "Warehouse Loader",
        ["Insight ETL"],
        "Data & Reporting",
        "Insight Warehouse",
        ["Donor Registry", "Inventory Ledger", "Hospital Ordering Portal"],
    ),
    (
        "Dashboard Service",
        ["Pulse"],
        "Data & Reporting",
        "Insight Warehouse",
        ["Warehouse Loader"],
    ),
    (
        "Regulatory Returns Builder",
        [],
        "Data & Reporting",
        "Insight Warehouse",
        ["Warehouse Loader"],
    ),
    (
        "API Gateway",
        ["Portcullis"],
        "Platform Infrastructure",
        "Gateway Config DB",
        ["Staff SSO"],
    ),
    (
        "Backup Orchestrator",
        [],
        "Platform Infrastructure",
        "Backup Catalogue DB",
        ["Secrets Vault"],
    ),
    ("Message Broker", ["Switchyard"], "Platform Infrastructure", "Broker Journal", []),
    (
        "Notification Gateway",
        ["Bellrope"],
        "Platform Infrastructure",
        "Outbound Message Log",
        ["Message Broker"],
    ),
    (
        "Document Scanning",
        [],
        "Platform Infrastructure",
        "Scanned Documents Archive",
        ["Message Broker"],
    ),
    ("Staff SSO", ["Turnstile"], "Security Engineering", "Identity Directory", []),
    ("Secrets Vault", ["Lockbox"], "Security Engineering", "Secrets Backend", []),
    (
        "Audit Trail Service",
        ["Scribe"],
        "Security Engineering",
        "Audit Index",
        ["Message Broker"],
    ),
    (
        "Finance Bridge",
        [],
        "Integration Engineering",
        "Finance Staging DB",
        ["Message Broker"],
    ),
    (
        "HL7 Interface Engine",
        ["Rosetta"],
        "Integration Engineering",
        "Interface Message Store",
        ["Message Broker"],
    ),
    (
        "Rostering System",
        ["Rosterly"],
        "Corporate Apps",
        "Roster DB",
        ["Staff SSO", "Payroll Interface"],
    ),
    (
        "Payroll Interface",
        [],
        "Corporate Apps",
        "Finance Staging DB",
        ["Finance Bridge"],
    ),
    ("Service Desk", ["Bluebell"], "Corporate Apps", "Ticket DB", ["Staff SSO"]),
    (
        "Monitoring Platform",
        ["Watchtower"],
        "Observability & Tooling",
        "Metrics Store",
        ["Log Collector"],
    ),
    ("Log Collector", [], "Observability & Tooling", "Log Archive", []),
    (
        "Alert Router",
        ["Foghorn"],
        "Observability & Tooling",
        "Metrics Store",
        ["Monitoring Platform", "Notification Gateway"],
    ),
]

# --------------------------------------------------------------------------
# Phrasings. Slots: s service, u upstream service, p person, t team,
# c channel, o office, d data store, h host, l location.
# --------------------------------------------------------------------------

KIND_SLOTS = {
    "owns": ("s", "p"),
    "depends_on": ("s", "u"),
    "stores_in": ("s", "d"),
    "hosted_on": ("d", "h"),
    "located_in": ("h", "l"),
    "member_of": ("p", "t"),
    "leads": ("t", "p"),
    "channel": ("t", "c"),
    "works_from": ("p", "o"),
}
KINDS = list(KIND_SLOTS)

TEMPLATES = {
    "owns": [
        "{p} owns {s}.",
        "{s} is owned by {p}.",
        "Questions about {s} go to {p}.",
        "If {s} breaks, page {p}.",
        "{p}'s baby is {s} - built most of it, too.",
        "{s}: owner = {p}",
        "Spoke to {p}, who is the accountable owner for {s}.",
        "The service owner for {s} is {p}.",
        "ownership of {s} sits with {p} (per the service catalogue)",
        "{p} is on the hook for {s}; changes to it need their sign-off.",
        "fyi {s} -> owner {p}",
        "Anything that goes wrong with {s} ends up on {p}'s plate, since it's theirs.",
        "{s} belongs to {p}.",
        "{p} looks after {s} and signs off its changes.",
    ],
    "depends_on": [
        "{s} depends on {u}.",
        "{s} calls {u}.",
        "{u} is called by {s}.",
        "{s} can't start without {u}.",
        "{s} pulls its reference data from {u}.",
        "{s} is fed by {u}.",
        "{u} feeds {s}.",
        "{s} reads from {u}.",
        "dependency: {s} -> {u}",
        "{s} relies on {u}; when {u} is down, {s} goes down with it.",
        "{s}, which sits downstream of {u}, needs a restart whenever {u} is redeployed.",
        "upstream of {s}: {u}",
        "{u} is a hard dependency of {s}.",
        "{s} needs {u} up before it'll even boot",
    ],
    "stores_in": [
        "{s} keeps its data in {d}.",
        "{s} stores everything in {d}.",
        "{d} is where {s} writes its records.",
        "{s}'s database is {d}.",
        "data for {s} lives in {d}",
        "{d} holds the data for {s}.",
        "{s} persists to {d}.",
        "{s} - backing store: {d}",
        "The tables behind {s} are in {d}.",
        "{s}, whose data sits in {d}, is in scope for the DR test.",
        "{d} is the store behind {s}.",
        "{s} saves its state to {d}.",
        "{s} db = {d}",
    ],
    "hosted_on": [
        "{d} runs on {h}.",
        "{h} hosts {d}.",
        "{d} is hosted on {h}.",
        "{d} lives on {h}.",
        "{h}, which runs {d}, is one of the busier boxes we have.",
        "the {d} instance is on {h}",
        "{d}: host {h}",
        "You'll find {d} on {h}.",
        "{h} is the server behind {d}.",
        "{d} is deployed to {h}.",
        "{h} carries {d} (checked against the CMDB).",
        "{d} sits on {h}.",
        "{d} @ {h}",
    ],
    "located_in": [
        "{h} is in {l}.",
        "{h} sits in {l}.",
        "{l} houses {h}.",
        "{h} is located in {l}.",
        "{h} - location: {l}",
        "{l} is where {h} runs.",
        "{h}, which lives in {l}, is on the quarterly patch cycle.",
        "if you need {h}, it's in {l}",
        "{l} hosts {h}.",
        "{h} runs out of {l}.",
        "{h} is one of the machines in {l}.",
        "{h} is provisioned in {l}.",
        "{h} -> {l} (per the asset register)",
    ],
    "member_of": [
        "{p} is in {t}.",
        "{p} joined {t} in the spring.",
        "{p} is a member of {t}.",
        "{t} includes {p}.",
        "{p} works in the {t} team.",
        "{p} - {t} team",
        "{t} has {p} on it.",
        "{p} sits in {t}.",
        "{p} reports into {t}.",
        "{p} is one of the engineers on {t}.",
        "Met {p} from {t} today; sharp.",
        "{t}'s roster includes {p}.",
        "{p} (team: {t})",
    ],
    "leads": [
        "{p} leads {t}.",
        "{t} is led by {p}.",
        "{p} is the team lead for {t}.",
        "{t}'s lead is {p}.",
        "{p} heads up {t}.",
        "{p} runs the {t} team.",
        "{t} - lead: {p}",
        "{p}, who leads {t}, signed off the quarterly plan.",
        "the {t} team reports to {p}",
        "{p} manages {t}.",
        "{p} is in charge of {t}.",
        "{t} lead = {p}",
    ],
    "channel": [
        "{t} chats in {c}.",
        "{c} is {t}'s channel.",
        "The {t} team's channel is {c}.",
        "To reach {t}, use {c}.",
        "{t} coordinates via {c}.",
        "{c} belongs to {t}.",
        "{t} contact point: {c}",
        "Anything for {t} should go to {c}.",
        "{t} uses {c} for day-to-day discussion.",
        "{c}, where {t} hangs out, is the quickest way to get a reply.",
        "{t} -> {c}",
    ],
    "works_from": [
        "{p} works from {o}.",
        "{p} is based at {o}.",
        "{p} sits at {o}.",
        "{o} is {p}'s office.",
        "{p}'s desk is at {o}.",
        "{p} is at {o} most days.",
        "{p} - based at {o}",
        "You can find {p} at {o}.",
        "{p} works out of {o}.",
        "{o} is home base for {p}.",
        "{p} commutes to {o}.",
        "Office for {p}: {o}",
        "{p} @ {o}",
    ],
}

COMBO_PATTERNS = ["{n} ({a})", "{a} ({n})", "{n} (aka {a})"]

# Distractors: realistic notes about the same names that state none of the
# relations. *_alt slots are guaranteed NOT to be the true related entity.
DISTRACTOR_TEMPLATES = [
    "{s} was down for {n} minutes on {date}; root cause was an expired TLS certificate.",
    "P2 incident on {s} on {date}: slow responses traced to a missing index. Fixed the same afternoon.",
    "{p} ran the post-incident review for the {s} outage on {date}.",
    "{h} was rebooted on {date} for kernel patches - nothing unusual afterwards.",
    "{h} hit {disk}% disk on {date}; old exports were cleared out.",
    "{l} had a cooling alarm on {date}; no services were affected.",
    "{d} showed about {n} seconds of replication lag during the {month} month-end run.",
    "{c} got very noisy during the {s} incident, so people were asked to use threads.",
    "The MHRA inspection in {month} asked for evidence of access reviews on {s}.",
    "Internal audit noted that {d} backups had not been test-restored since {month}.",
    "{p} is pulling together evidence for the ISO 27001 surveillance audit.",
    "Pen test findings for {s}: two mediums, no highs. Retest booked for {month}.",
    "{p} is on annual leave from {date} for two weeks.",
    "{p} is on parental leave until {month}.",
    "{p} will be at a conference in Leeds on {date}.",
    "{p} passed the AWS Solutions Architect exam in {month}.",
    "{p} signed up for the Kubernetes admin course.",
    "{p} and {p2} did the GDPR refresher together on {date}.",
    "{p} gave a lunch-and-learn on PostgreSQL query plans.",
    "Shout-out to {p} for staying late to help with the {s} release.",
    "{p2} said {p} gave really clear feedback on the {s} design doc.",
    "The licence renewal for {s} is budgeted at £{k}k for next financial year.",
    "Finance queried the cloud spend on {h} in {month}.",
    "{t} asked for £{k}k extra for contractors this year; not approved yet.",
    "Proposal: move {d} to {h_alt} next year. Nothing is scheduled.",
    "Someone suggested re-homing {h} to {l_alt}; parked until the budget round.",
    "There was talk of switching {s} over to {d_alt}, but the work hasn't started.",
    "{p} might move to {o_alt} after the refurb - nothing agreed yet.",
    "We may rename {c} at some point; no decision yet.",
    "{p} thinks {s} should be rewritten before it grows any further.",
    "{p} reckons {d} is over-provisioned.",
    "{p} would happily see {s} retired.",
    "{t} had its away-day at a farm near Hexham in {month}.",
    "{t} is hiring two engineers this spring.",
    "The coffee machine at {o} is broken again.",
    "Fire drill at {o} on {date}; everyone was out in four minutes.",
    "{s} release {ver} went out on {date} with the new search filters.",
    "{s} has {n} open tickets in its backlog.",
    "{p} asked for read-only access to {d} for a one-off report.",
    "{p} and {p2} paired on a flaky test in {s}.",
    "{p} raised a change request to bump the {s} logging level.",
    "{d} was upgraded to a new minor version on {date}.",
    "{h} is on the hardware refresh list for next year.",
    "Vendor support for the framework under {s} ends in {month}.",
    "{p} gave a talk to {t_other} about incident comms.",
    "{p} helped {t_other} with some capacity planning in {month}.",
    "{s} error rate went up to {pct}% after the {date} deploy, then settled.",
    "{p} complained (again) that the {s} test suite takes forty minutes.",
    "{l} passed its annual physical security review.",
    "{p} is mentoring {p2} this quarter.",
    "{p} was off sick on {date}.",
    "The {s} user survey came back mostly positive; {n} responses.",
    "Someone proposed handing {s} over to {p_alt}; it was not agreed.",
    "{p} is thinking about a move to {t_other}, but has not applied.",
    "{h} threw ECC memory warnings on {date}; a DIMM was swapped.",
    "{o} is closed on {date} for electrical testing.",
    "{p} suggested {s} should cache more aggressively.",
    "{p} wants a second opinion on the {s} retry logic before the {month} freeze.",
    "{s} p95 latency was {ms} ms last week - inside target.",
    "{p} reviewed the {s} runbook and found two stale links.",
    "{p} booked the big meeting room at {o} for quarterly planning.",
    "The {t} retro overran by forty minutes again.",
    "{t} is trialling a no-meetings Wednesday.",
    "{c} now has a bot that posts the weekly change calendar.",
    "{d} restore test on {date} took {n} minutes end to end.",
    "{d} will need a schema change for the new consent fields - not started.",
    "Capacity review: {h} is averaging {pct}% CPU.",
    "{l} has a generator test scheduled for {date}.",
    "{p} is volunteering at the {month} donation session in the town hall.",
    "{p} got a long-service award at the {month} all-hands.",
    "{p} and {p2} disagree about whether {s} needs a queue in front of it.",
    "{p} thinks the {s} alerting thresholds are far too twitchy.",
    "Draft idea: split {s} into two services. Nobody has picked it up.",
    "{s} is on the list for the accessibility review in {month}.",
    "{p} spotted a typo in the {s} error messages and fixed it.",
    "TLS certificates for {s} expire on {date}; renewal ticket raised.",
    "The cloud cost report flags {d} as one of the priciest items this quarter.",
    "The car park at {o} is being resurfaced on {date}.",
    "{p} sent round a good write-up on the {month} change freeze.",
]

MONTHS = ["February", "March", "April", "May", "June", "July", "August", "September"]

# --------------------------------------------------------------------------
# Questions. Hop names: owner, dep, store, host, loc, team, lead, chan, office.
# --------------------------------------------------------------------------

# chain name -> (start entity type, hops, how many questions)
CHAINS = {
    "owner": ("service", ["owner"], 7),
    "dep": ("service", ["dep"], 6),
    "store": ("service", ["store"], 6),
    "host": ("store", ["host"], 6),
    "loc": ("host", ["loc"], 5),
    "team": ("person", ["team"], 6),
    "lead": ("team", ["lead"], 4),
    "chan": ("team", ["chan"], 4),
    "office": ("person", ["office"], 6),
    "owner_team": ("service", ["owner", "team"], 8),
    "owner_office": ("service", ["owner", "office"], 7),
    "store_host": ("service", ["store", "host"], 7),
    "host_loc": ("store", ["host", "loc"], 7),
    "team_lead": ("person", ["team", "lead"], 7),
    "team_chan": ("person", ["team", "chan"], 6),
    "dep_owner": ("service", ["dep", "owner"], 6),
    "dep_store": ("service", ["dep", "store"], 6),
    "lead_office": ("team", ["lead", "office"], 6),
    "owner_team_lead": ("service", ["owner", "team", "lead"], 8),
    "owner_team_chan": ("service", ["owner", "team", "chan"], 7),
    "store_host_loc": ("service", ["store", "host", "loc"], 8),
    "dep_store_host": ("service", ["dep", "store", "host"], 7),
    "dep_owner_team": ("service", ["dep", "owner", "team"], 7),
    "dep_owner_office": ("service", ["dep", "owner", "office"], 7),
    "team_lead_office": ("person", ["team", "lead", "office"], 6),
}

QUESTION_TEMPLATES = {
    "owner": [
        "Who owns {x}?",
        "Who is the owner of {x}?",
        "who do i ask about {x}?",
        "Find the person responsible for {x}.",
        "{x} - whose service is it?",
    ],
    "dep": [
        "Which service does {x} depend on?",
        "{x} relies on which upstream service?",
        "Name the service that {x} needs upstream.",
        "what's upstream of {x}?",
    ],
    "store": [
        "Where does {x} keep its data?",
        "Which data store backs {x}?",
        "Find the database behind {x}.",
        "what store does {x} write to?",
    ],
    "host": [
        "Which host runs {x}?",
        "What server is {x} on?",
        "Find the machine that hosts {x}.",
        "{x} lives on which host?",
    ],
    "loc": [
        "Which data centre or cloud region is {x} in?",
        "Where is the host {x} located?",
        "In which DC or region does {x} run?",
        "{x}: which site or region?",
    ],
    "team": [
        "Which team is {x} in?",
        "What team does {x} belong to?",
        "Find {x}'s team.",
        "{x} is on which team?",
    ],
    "lead": [
        "Who leads {x}?",
        "Who is the lead of the {x} team?",
        "Name the head of {x}.",
        "who runs the {x} team?",
    ],
    "chan": [
        "Where does {x} chat?",
        "Which channel or mailing list does the {x} team use?",
        "What's the best channel to reach {x}?",
        "{x} - which channel?",
    ],
    "office": [
        "Which office does {x} work from?",
        "Where is {x} based?",
        "Find {x}'s office.",
        "what site is {x} at?",
    ],
    "owner_team": [
        "Which team is the owner of {x} in?",
        "What team does {x}'s owner belong to?",
        "Find the team of whoever owns {x}.",
        "the person who owns {x} is on which team?",
    ],
    "owner_office": [
        "Which office does the owner of {x} work from?",
        "Where is {x}'s owner based?",
        "Find the site where the person who owns {x} works.",
        "which office is {x}'s owner at?",
    ],
    "store_host": [
        "Which host runs the data store behind {x}?",
        "What server is {x}'s database on?",
        "Find the machine hosting the store {x} writes to.",
        "which box runs {x}'s db?",
    ],
    "host_loc": [
        "Which data centre or region runs the host under {x}?",
        "Where is the server that hosts {x}?",
        "Find the site of the machine that {x} runs on.",
        "{x}'s host is in which DC or region?",
    ],
    "team_lead": [
        "Who leads {x}'s team?",
        "Who is the lead of the team {x} is in?",
        "{x}'s team lead?",
        "Find the head of the team that {x} belongs to.",
    ],
    "team_chan": [
        "Where does {x}'s team chat?",
        "Which channel does the team {x} belongs to use?",
        "Find the channel or list for {x}'s team.",
        "how do i reach the team {x} is on?",
    ],
    "dep_owner": [
        "Who owns the service {x} depends on?",
        "Find the owner of whatever {x} calls upstream.",
        "Whose service is upstream of {x}?",
        "who should i talk to about the service {x} relies on?",
    ],
    "dep_store": [
        "Where does the service that {x} depends on keep its data?",
        "Which data store backs {x}'s upstream service?",
        "Find the database of the service {x} relies on.",
    ],
    "lead_office": [
        "Where is the lead of {x} based?",
        "Which office does {x}'s team lead work from?",
        "Find the office of whoever leads {x}.",
        "the {x} lead works from which site?",
    ],
    "owner_team_lead": [
        "Who leads the team of the person who owns {x}?",
        "{x}'s owner's team lead?",
        "Find the team lead above whoever owns {x}.",
        "who heads the team that {x}'s owner is in?",
    ],
    "owner_team_chan": [
        "Where does the team of {x}'s owner chat?",
        "Which channel should I use to reach the team of {x}'s owner?",
        "Find the channel or list of the team whose member owns {x}.",
        "how do i reach the team that {x}'s owner belongs to?",
    ],
    "store_host_loc": [
        "Which data centre or cloud region hosts the store behind {x}?",
        "Where does {x}'s data physically live - which DC or region?",
        "Find the site of the host that runs {x}'s database.",
        "{x}'s db host is in which data centre or region?",
    ],
    "dep_store_host": [
        "Which host runs the database of the service {x} depends on?",
        "Find the server behind the data store of {x}'s upstream service.",
        "what box holds the data of the service {x} calls?",
    ],
    "dep_owner_team": [
        "Which team is the owner of {x}'s upstream service in?",
        "Find the team of whoever owns the service {x} relies on.",
        "the service {x} depends on - its owner is on which team?",
    ],
    "dep_owner_office": [
        "Where does the owner of the service {x} calls work?",
        "Which office is the owner of {x}'s upstream dependency based at?",
        "Find the office of the person who owns what {x} depends on.",
    ],
    "team_lead_office": [
        "Which office does {x}'s team lead work from?",
        "Where is the lead of {x}'s team based?",
        "Find the site of whoever leads the team {x} is in.",
        "{x}'s team lead - which office?",
    ],
}

# --------------------------------------------------------------------------
# Entity registry and name matching
# --------------------------------------------------------------------------

ENT = {}  # primary name -> {"type", "name", "aliases", "forms"}
ENT_ORDER = []


def add_entity(etype, name, aliases):
    assert name not in ENT, f"duplicate entity name {name}"
    forms = [name] + list(aliases)
    if etype == "person":
        forms.append(name.split()[0])  # bare first name, unique by check
    ENT[name] = {"type": etype, "name": name, "aliases": list(aliases), "forms": forms}
    ENT_ORDER.append(name)


for _n, _a in PEOPLE:
    add_entity("person", _n, _a)
for _n, _a, _c in TEAMS:
    add_entity("team", _n, _a)
    add_entity("channel", _c, [])
for _n, _a in OFFICES:
    add_entity("office", _n, _a)
for _n, _a, _k in LOCATIONS:
    add_entity("location", _n, _a)
for _n, _a, _k in HOSTS:
    add_entity("host", _n, _a)
for _n, _a, _h in STORES:
    add_entity("store", _n, _a)
for _n, _a, _t, _d, _u in SERVICES:
    add_entity("service", _n, _a)


def form_regex(form):
    return re.compile(
        r"(?<![A-Za-z0-9_@#\-])" + re.escape(form) + r"(?![A-Za-z0-9_\-])",
        re.IGNORECASE,
    )


FORM_RE = []  # (entity, form, compiled regex), deterministic order
for _e in ENT_ORDER:
    for _f in ENT[_e]["forms"]:
        FORM_RE.append((_e, _f, form_regex(_f)))


def mentions(text):
    """entity -> list of its forms found in text (entity order is stable)."""
    found = {}
    for ent, form, rx in FORM_RE:
        if rx.search(text):
            found.setdefault(ent, []).append(form)
    return found


def of_type(etype):
    return [e for e in ENT_ORDER if ENT[e]["type"] == etype]


# --------------------------------------------------------------------------
# Build the relational world
# --------------------------------------------------------------------------


def build_relations():
    people = [p for p, _ in PEOPLE]
    RNG.shuffle(people)
    team_names = [t for t, _, _ in TEAMS]
    lead = {}
    team_of = {}
    for i, t in enumerate(team_names):
        lead[t] = people[i]
        team_of[people[i]] = t
    for i, p in enumerate(people[len(team_names) :]):
        team_of[p] = team_names[i % len(team_names)]
    roster = {
        t: [lead[t]] + [p for p in people if team_of[p] == t and p != lead[t]] for t in team_names
    }

    office_names = [o for o, _ in OFFICES]
    office_of = {}
    order = [p for p, _ in PEOPLE]
    RNG.shuffle(order)
    for i, p in enumerate(order):
        office_of[p] = office_names[i] if i < len(office_names) else RNG.choice(office_names)

    loc_of = {}
    for kind in ["onprem", "aws", "azure"]:
        locs = [n for n, _, k in LOCATIONS if k == kind]
        hosts = [n for n, _, k in HOSTS if k == kind]
        RNG.shuffle(locs)
        RNG.shuffle(hosts)
        for i, h in enumerate(hosts):
            loc_of[h] = locs[i] if i < len(locs) else RNG.choice(locs)

    host_of = {}
    host_names = [n for n, _, _ in HOSTS]
    RNG.shuffle(host_names)
    for h in host_names:  # every host carries at least one store
        options = [s for s, _, cands in STORES if h in cands and s not in host_of]
        if options:
            host_of[RNG.choice(options)] = h
    for s, _, cands in STORES:
        if s not in host_of:
            host_of[s] = RNG.choice(cands)

    owner_of = {}
    for s, _, t, _, _ in SERVICES:
        owner_of[s] = RNG.choice(roster[t])

    rels = []
    for s, _, _, d, ups in SERVICES:
        rels.append(("owns", s, owner_of[s]))
        rels.append(("stores_in", s, d))
        for u in ups:
            rels.append(("depends_on", s, u))
    for d, _, _ in STORES:
        rels.append(("hosted_on", d, host_of[d]))
    for h, _, _ in HOSTS:
        rels.append(("located_in", h, loc_of[h]))
    for t, _, c in TEAMS:
        rels.append(("leads", t, lead[t]))
        rels.append(("channel", t, c))
    for p, _ in PEOPLE:
        if lead[team_of[p]] != p:
            rels.append(("member_of", p, team_of[p]))
        rels.append(("works_from", p, office_of[p]))
    RNG.shuffle(rels)
    truth = {
        "owner_of": owner_of,
        "team_of": team_of,
        "office_of": office_of,
        "host_of": host_of,
        "loc_of": loc_of,
        "store_of": {s: d for s, _, _, d, _ in SERVICES},
    }
    return rels, truth


PENDING = {}  # entity -> second names still to be introduced next to the primary


def pick_form(ent, allow_combo):
    e = ENT[ent]
    if allow_combo and PENDING.get(ent):
        alias = PENDING[ent].pop(0)
        return RNG.choice(COMBO_PATTERNS).format(n=e["name"], a=alias)
    r = RNG.random()
    if e["type"] == "person":
        first = e["name"].split()[0]
        if r < 0.5:
            return e["name"]
        if r < 0.77 or not e["aliases"]:
            return first
        if r < 0.92 or not allow_combo:
            return RNG.choice(e["aliases"])
        return RNG.choice(COMBO_PATTERNS).format(n=e["name"], a=RNG.choice(e["aliases"]))
    if not e["aliases"] or r < 0.64:
        return e["name"]
    if r < 0.92 or not allow_combo:
        return RNG.choice(e["aliases"])
    return RNG.choice(COMBO_PATTERNS).format(n=e["name"], a=RNG.choice(e["aliases"]))


def render(template, slots):
    """slots: slot letter -> entity or literal ("=" prefix). Returns text."""
    values = {}
    for key in re.findall(r"\{([a-z0-9_]+)\}", template):
        if key in values:
            continue
        val = slots[key]
        if val.startswith("="):
            values[key] = val[1:]
            continue
        single = template.count("{" + key + "}") == 1
        possessive = ("{" + key + "}'s") in template
        values[key] = pick_form(val, single and not possessive)
    return fix_possessive(template.format(**values))


def fix_possessive(text):
    """Names ending in s take a bare apostrophe: "Corporate Apps' lead"."""
    return re.sub(r"(?<=[A-Za-z]s)'s(?![A-Za-z])", "'", text)


def build_relation_facts(rels):
    by_kind = {k: [] for k in KINDS}
    for r in rels:
        by_kind[r[0]].append(r)
    facts = []
    for kind in KINDS:
        tpls = list(range(len(TEMPLATES[kind])))
        RNG.shuffle(tpls)
        for i, (_, a, b) in enumerate(by_kind[kind]):
            ti = tpls[i % len(tpls)]
            sa, sb = KIND_SLOTS[kind]
            text = render(TEMPLATES[kind][ti], {sa: a, sb: b})
            facts.append({"content": text, "kind": kind, "a": a, "b": b, "tpl": ti})
    return facts


def build_distractors(truth, n_wanted):
    people = of_type("person")
    services = of_type("service")
    stores = of_type("store")
    hosts = of_type("host")
    locs = of_type("location")
    teams = of_type("team")
    chans = of_type("channel")
    offices = of_type("office")
    out = []
    seen = {}
    tpl_order = list(range(len(DISTRACTOR_TEMPLATES)))
    RNG.shuffle(tpl_order)
    i = 0
    guard = 0
    while len(out) < n_wanted:
        guard += 1
        assert guard < 20 * n_wanted, "could not make enough distinct distractors"
        ti = (
            tpl_order[i % len(tpl_order)]
            if i < len(tpl_order)
            else RNG.randrange(len(DISTRACTOR_TEMPLATES))
        )
        i += 1
        tpl = DISTRACTOR_TEMPLATES[ti]
        slots = {}
        p = RNG.choice(people)
        s = RNG.choice(services)
        d = RNG.choice(stores)
        h = RNG.choice(hosts)
        slots["p"] = p
        slots["p2"] = RNG.choice([x for x in people if x != p])
        slots["s"] = s
        slots["d"] = d
        slots["h"] = h
        slots["l"] = RNG.choice(locs)
        slots["t"] = RNG.choice(teams)
        slots["c"] = RNG.choice(chans)
        slots["o"] = RNG.choice(offices)
        slots["h_alt"] = RNG.choice([x for x in hosts if x != truth["host_of"][d]])
        slots["l_alt"] = RNG.choice([x for x in locs if x != truth["loc_of"][h]])
        slots["d_alt"] = RNG.choice([x for x in stores if x != truth["store_of"][s]])
        slots["o_alt"] = RNG.choice([x for x in offices if x != truth["office_of"][p]])
        slots["t_other"] = RNG.choice([x for x in teams if x != truth["team_of"][p]])
        slots["p_alt"] = RNG.choice([x for x in people if x != truth["owner_of"][s]])
        slots["n"] = "=" + str(RNG.randint(3, 95))
        slots["k"] = "=" + str(RNG.randint(8, 140))
        slots["pct"] = "=" + str(RNG.randint(2, 14))
        slots["disk"] = "=" + str(RNG.randint(86, 97))
        slots["ms"] = "=" + str(RNG.randrange(40, 900, 10))
        slots["date"] = "=" + f"{RNG.randint(1, 28)} {RNG.choice(MONTHS)}"
        slots["month"] = "=" + RNG.choice(MONTHS)
        slots["ver"] = "=" + f"{RNG.randint(2, 9)}.{RNG.randint(0, 14)}.{RNG.randint(0, 9)}"
        text = render(tpl, slots)
        if text.lower() in seen:
            continue
        seen[text.lower()] = True
        used = [
            slots[k] for k in re.findall(r"\{([a-z0-9_]+)\}", tpl) if not slots[k].startswith("=")
        ]
        out.append(
            {
                "content": text,
                "kind": "distractor",
                "a": None,
                "b": None,
                "tpl": ti,
                "about": used,
            }
        )
    return out


# --------------------------------------------------------------------------
# Walking chains over the facts
# --------------------------------------------------------------------------

HOP_KIND = {
    "owner": ("owns", "service", "person"),
    "dep": ("depends_on", "service", "service"),
    "store": ("stores_in", "service", "store"),
    "host": ("hosted_on", "store", "host"),
    "loc": ("located_in", "host", "location"),
    "team": ("member_of", "person", "team"),  # or leads, read backwards
    "lead": ("leads", "team", "person"),
    "chan": ("channel", "team", "channel"),
    "office": ("works_from", "person", "office"),
}


def hop_facts(facts, hop, x):
    """All facts that state hop-relation for subject x, as (index, object)."""
    kind = HOP_KIND[hop][0]
    res = [(i, f["b"]) for i, f in enumerate(facts) if f["kind"] == kind and f["a"] == x]
    if hop == "team":
        res += [(i, f["a"]) for i, f in enumerate(facts) if f["kind"] == "leads" and f["b"] == x]
    return res


def walk(facts, start, hops):
    """Return (fact indices, entities) or None if any hop is not unique."""
    idx = []
    ents = [start]
    cur = start
    for hop in hops:
        res = hop_facts(facts, hop, cur)
        if len(res) != 1:
            return None
        i, nxt = res[0]
        idx.append(i)
        ents.append(nxt)
        cur = nxt
    return idx, ents


def chain_ok(facts, ment, idx, ents):
    """Distinct facts/entities; consecutive facts share a surface form of the
    bridge entity; returns the usable start forms (or [])."""
    if len(dict.fromkeys(idx)) != len(idx) or len(dict.fromkeys(ents)) != len(ents):
        return []
    for k in range(len(idx) - 1):
        bridge = ents[k + 1]
        fa = ment[idx[k]].get(bridge, [])
        fb = ment[idx[k + 1]].get(bridge, [])
        if not [f for f in fa if f in fb]:
            return []
    return list(ment[idx[0]].get(ents[0], []))


def build_questions(facts, ment):
    questions = []
    for chain, (stype, hops, n) in CHAINS.items():
        cands = []
        for start in of_type(stype):
            w = walk(facts, start, hops)
            if w is None:
                continue
            forms = chain_ok(facts, ment, w[0], w[1])
            if forms:
                cands.append((start, w[0], w[1], forms))
        assert len(cands) >= n, f"chain {chain}: only {len(cands)} candidates for {n}"
        picked = RNG.sample(cands, n)
        tpls = list(QUESTION_TEMPLATES[chain])
        RNG.shuffle(tpls)
        for qi, (start, idx, ents, forms) in enumerate(picked):
            tpl = tpls[qi % len(tpls)]
            form = RNG.choice(forms)
            text = fix_possessive(tpl.format(x=form))
            if tpl[0].islower():
                text = text.lower()
            questions.append(
                {
                    "question": text,
                    "hops": len(hops),
                    "gold_idx": idx,
                    "chain": chain,
                    "ents": ents,
                    "tpl": tpl,
                    "form": form,
                }
            )
    RNG.shuffle(questions)
    return questions


# --------------------------------------------------------------------------
# Checks
# --------------------------------------------------------------------------


def check(world, facts, questions):
    ids = [f["id"] for f in world["facts"]]
    id_to_i = {fid: i for i, fid in enumerate(ids)}
    assert list(world.keys()) == ["facts", "questions"]
    assert len(id_to_i) == len(ids), "duplicate fact ids"
    for fid in ids:
        assert re.fullmatch(ID_PREFIX + r"\d{4}", fid), fid
    for f in world["facts"]:
        assert list(f.keys()) == ["id", "content"]
    for q in world["questions"]:
        assert list(q.keys()) == ["question", "hops", "gold"]

    # -- fact counts, duplicates
    rel = [f for f in facts if f["kind"] != "distractor"]
    assert len(world["facts"]) >= MIN_FACTS, "too few facts"
    assert len(rel) >= MIN_FACTS, "too few relation facts"
    norm = Counter(" ".join(f["content"].lower().split()) for f in facts)
    dups = [t for t, c in norm.items() if c > 1]
    assert not dups, f"duplicate fact text: {dups[:3]}"

    # -- names: unique forms, no form of one entity inside another's name
    seen_forms = {}
    for e in ENT_ORDER:
        for form in ENT[e]["forms"]:
            key = form.lower()
            assert key not in seen_forms or seen_forms[key] == e, f"form clash {form}"
            seen_forms[key] = e
    for e, form, rx in FORM_RE:
        for e2 in ENT_ORDER:
            if e2 == e:
                continue
            for form2 in ENT[e2]["forms"]:
                assert not rx.search(form2), f"{form!r} ({e}) occurs inside {form2!r}"

    # -- static template text must not contain any entity name
    statics = []
    for k in KINDS:
        statics += TEMPLATES[k]
    statics += DISTRACTOR_TEMPLATES
    for tpls in QUESTION_TEMPLATES.values():
        statics += tpls
    statics += COMBO_PATTERNS
    for tpl in statics:
        bare = re.sub(r"\{[a-z0-9_]+\}", " | ", tpl)
        assert not mentions(bare), f"template names an entity: {tpl!r}"

    # -- phrasings per relation kind
    for k in KINDS:
        used = sorted(Counter(f["tpl"] for f in rel if f["kind"] == k))
        assert len(used) >= MIN_PHRASINGS, f"{k}: only {len(used)} phrasings"

    # -- every relation fact names exactly its two entities
    ment = [mentions(f["content"]) for f in facts]
    for f, m in zip(facts, ment):
        if f["kind"] == "distractor":
            assert m, f"distractor names nobody: {f['content']}"
            for e in f["about"]:
                assert e in m, f"distractor lost {e}: {f['content']}"
        else:
            assert sorted(m) == sorted([f["a"], f["b"]]), f"bad mentions: {f['content']}"
        assert world["facts"][facts.index(f)]["content"] == f["content"]

    # -- functional relations are single-valued (gold uniqueness)
    for k in [
        "owns",
        "stores_in",
        "hosted_on",
        "located_in",
        "works_from",
        "channel",
        "leads",
    ]:
        c = Counter(f["a"] for f in rel if f["kind"] == k)
        assert max(c.values()) == 1, f"{k} not unique"
    team_count = Counter(
        [f["a"] for f in rel if f["kind"] == "member_of"]
        + [f["b"] for f in rel if f["kind"] == "leads"]
    )
    for p in of_type("person"):
        assert team_count[p] == 1, f"{p} is in {team_count[p]} teams"
    # every entity takes part in some relation fact
    involved = {}
    for f in rel:
        involved[f["a"]] = True
        involved[f["b"]] = True
    for e in ENT_ORDER:
        assert e in involved, f"{e} is in no relation fact"

    # -- each second name appears right next to its primary name somewhere
    for e in ENT_ORDER:
        name = ENT[e]["name"]
        for alias in ENT[e]["aliases"]:
            ok = False
            for f in facts:
                t = f["content"]
                pn = [(m.start(), m.end()) for m in form_regex(name).finditer(t)]
                pa = [(m.start(), m.end()) for m in form_regex(alias).finditer(t)]
                for s1, e1 in pn:
                    for s2, e2 in pa:
                        gap = s2 - e1 if s2 >= e1 else s1 - e2
                        if 0 <= gap <= ALIAS_GAP:
                            ok = True
            assert ok, f"second name {alias!r} never appears next to {name!r}"

    # -- questions
    hops_count = Counter(q["hops"] for q in world["questions"])
    assert dict(sorted(hops_count.items())) == QUESTION_PLAN, hops_count
    tcount = Counter(q["tpl"] for q in questions)
    assert max(tcount.values()) <= MAX_TEMPLATE_USES, tcount.most_common(3)
    qtexts = Counter(q["question"].lower() for q in world["questions"])
    assert max(qtexts.values()) == 1, "duplicate question"
    pairs = Counter((q["chain"], q["ents"][0]) for q in questions)
    assert max(pairs.values()) == 1, "same chain asked twice about one entity"

    for q, wq in zip(questions, world["questions"]):
        gold = wq["gold"]
        assert len(gold) == wq["hops"] == len(CHAINS[q["chain"]][1])
        for g in gold:
            assert g in id_to_i, f"gold id {g} missing"
        gi = [id_to_i[g] for g in gold]
        assert [facts[i]["content"] for i in gi] == [world["facts"][i]["content"] for i in gi]
        # re-walk the chain from the start entity over ALL facts: each hop must
        # be stated by exactly one fact, and it must be the gold one
        stype, hops, _ = CHAINS[q["chain"]]
        assert ENT[q["ents"][0]]["type"] == stype
        w = walk(facts, q["ents"][0], hops)
        assert w is not None, f"chain not unique: {wq}"
        assert w[0] == gi, f"gold differs from chain: {wq}"
        for k, hop in enumerate(hops):
            kind, t_in, t_out = HOP_KIND[hop]
            f = facts[gi[k]]
            allowed = [kind] + (["leads"] if hop == "team" else [])
            assert f["kind"] in allowed
            assert ENT[w[1][k]]["type"] == t_in and ENT[w[1][k + 1]]["type"] == t_out
        assert chain_ok(facts, ment, gi, w[1]), f"chain not connected: {wq}"
        # question names the start entity by a form found in the first gold fact
        qm = mentions(wq["question"])
        assert q["ents"][0] in qm, f"question lost its entity: {wq}"
        assert q["form"] in ment[gi[0]][q["ents"][0]]
        assert q["form"].lower() in wq["question"].lower()
        for e in w[1][1:]:
            assert e not in qm, f"question leaks {e}: {wq}"
        assert w[1][-1] in ment[gi[-1]], "answer not in last gold fact"


# --------------------------------------------------------------------------


def main():
    rels, truth = build_relations()
    for e in ENT_ORDER:
        if ENT[e]["aliases"]:
            PENDING[e] = list(ENT[e]["aliases"])
    facts = build_relation_facts(rels)
    facts += build_distractors(truth, N_DISTRACTORS)
    RNG.shuffle(facts)
    nums = RNG.sample(range(1, 10000), len(facts))
    for f, n in zip(facts, nums):
        f["id"] = f"{ID_PREFIX}{n:04d}"
    ment = [mentions(f["content"]) for f in facts]
    questions = build_questions(facts, ment)
    world = {
        "facts": [{"id": f["id"], "content": f["content"]} for f in facts],
        "questions": [
            {
                "question": q["question"],
                "hops": q["hops"],
                "gold": [facts[i]["id"] for i in q["gold_idx"]],
            }
            for q in questions
        ],
    }
    check(world, facts, questions)  # raises AssertionError; nothing written yet

    data = (json.dumps(world, ensure_ascii=False, indent=2) + "\n").encode("utf-8")
    with open(OUT_PATH, "wb") as fh:
        fh.write(data)

    print(f"world: {len(world['facts'])} facts, {len(world['questions'])} questions")
    print("entities:")
    for t in [
        "person",
        "team",
        "channel",
        "office",
        "service",
        "store",
        "host",
        "location",
    ]:
        n_alias = sum(len(ENT[e]["aliases"]) for e in of_type(t))
        print(f"  {t:9s} {len(of_type(t)):3d}  (second names: {n_alias})")
    print("facts per kind:")
    kc = Counter(f["kind"] for f in facts)
    for k in KINDS + ["distractor"]:
        print(f"  {k:11s} {kc[k]:3d}")
    print(f"  {'relations':11s} {sum(kc[k] for k in KINDS):3d}")
    print("questions per hop count:")
    hc = Counter(q["hops"] for q in world["questions"])
    for h in sorted(hc):
        print(f"  {h}-hop {hc[h]:3d}")
    print(f"md5(world.json) = {hashlib.md5(data).hexdigest()}")


if __name__ == "__main__":
    main()
