#!/usr/bin/env python3
"""Build bench/tenth/world.json: the long-term memory of an assistant at a water utility.

The organisation is Marrowdale Water, a (fictional) regional water and wastewater company.
The assistant serves its operations, asset and laboratory staff and has remembered notes,
table rows, chat snippets and meeting summaries about assets, people, teams and systems.

Standard library only and deterministic: one seeded random.Random drives every choice and
nothing iterates over a set, so the bytes written are the same under any PYTHONHASHSEED.
Every run rewrites world.json next to this file, runs the self-checks (an AssertionError
aborts the run) and prints the counts and the md5 of the file.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from pathlib import Path

SEED = 20_250_610
OUT = Path(__file__).resolve().parent / "world.json"
N_DISTRACTORS = 153

# ---------------------------------------------------------------------------------------
# The organisation
# ---------------------------------------------------------------------------------------

TOWNS = ["Kettlewick", "Brannock", "Sallowby", "Fenmouth", "Oakhurst", "Greyling", "Pellow Cross"]

# key, name, alias
HOSTS = [
    ("h_fendc", "Fenmouth data centre", "Fenmouth DC"),
    ("h_comms", "Oakhurst HQ comms room", "HQ comms room"),
    ("h_azure", "Azure UK South", None),
    ("h_aws", "AWS eu-west-2", "AWS London"),
    ("h_cabin", "Brannock server cabin", None),
    ("h_vault", "Sallowby records vault", None),
]

# key, name, alias, host
STORES = [
    ("s_piw", "PI Historian West", "PI-West", "h_fendc"),
    ("s_pie", "PI Historian East", "PI-East", "h_comms"),
    ("s_maximo", "Maximo WMS", "Maximo", "h_azure"),
    ("s_gis", "AssetGIS", None, "h_azure"),
    ("s_lims", "SampleTrack LIMS", "SampleTrack", "h_comms"),
    ("s_ta2", "Telemetry Archive TA2", "TA2", "h_cabin"),
    ("s_pw", "ProjectWise vault", "ProjectWise", "h_aws"),
    ("s_qdl", "Quality Data Lake", "QDL", "h_aws"),
    ("s_scfg", "scada-config repo", "scada-config", "h_cabin"),
    ("s_docu", "DocuStore", None, "h_vault"),
    ("s_flow", "FlowLog store", "FlowLog", "h_fendc"),
    ("s_iw", "InfoWorks library", "IW library", "h_azure"),
]

# key, name, alias, channel (chat channel or mailing list), lead
TEAMS = [
    ("t_raw", "Raw Water & Reservoirs", "Raw Water", "#raw-water", "priya"),
    ("t_tww", "Treatment West", "TW West", "#tw-west", "tamsin"),
    ("t_twe", "Treatment East", "TW East", "treatment-east@marrowdalewater.co.uk", "gwen"),
    ("t_net", "Networks & Pumping", "Networks", "#net-pumping", "kwame"),
    ("t_ww", "Wastewater Operations", "Wastewater Ops", "ww-ops@marrowdalewater.co.uk", "margaret"),
    ("t_ot", "OT & Telemetry", "OT team", "#ot-telemetry", "dmitri"),
    ("t_ai", "Asset Information", "Asset Info", "#asset-info", "rosalind"),
    ("t_wq", "Water Quality Lab", "WQ Lab", "wq-lab@marrowdalewater.co.uk", "sunita"),
    ("t_hm", "Hydraulic Modelling", "Modelling team", "#hydmod", "rafael"),
    ("t_lk", "Leakage & Metering", "Leakage team", "#leak-squad", "freya"),
]

# key, full name, first name, surname, chat handle, nickname, team, base town
PEOPLE = [
    ("priya", "Priya Raman", "Priya", "Raman", "@priya.r", None, "t_raw", "Sallowby"),
    ("fergus", "Fergus Tarrant", "Fergus", "Tarrant", "@ftarrant", "Gus", "t_raw", "Kettlewick"),
    ("anouk", "Anouk de Vries", "Anouk", "de Vries", "@anouk_dv", None, "t_raw", "Sallowby"),
    ("kofi", "Kofi Mensah", "Kofi", "Mensah", "@kmensah", None, "t_raw", "Greyling"),
    ("tamsin", "Tamsin Okafor", "Tamsin", "Okafor", "@tam.okafor", "Tam", "t_tww", "Oakhurst"),
    ("declan", "Declan Mulvey", "Declan", "Mulvey", "@dmulvey", None, "t_tww", "Fenmouth"),
    ("ines", "Ines Ferreira", "Ines", "Ferreira", "@ines", None, "t_tww", "Oakhurst"),
    ("rhys", "Rhys Llewellyn", "Rhys", "Llewellyn", "@rhys-ll", None, "t_tww", "Brannock"),
    ("gwen", "Gwen Pritchard", "Gwen", "Pritchard", "@gpritchard", None, "t_twe", "Kettlewick"),
    ("yusuf", "Yusuf Demir", "Yusuf", "Demir", "@yusuf.demir", None, "t_twe", "Kettlewick"),
    (
        "lottie",
        "Charlotte Fairbairn",
        "Charlotte",
        "Fairbairn",
        "@lfairbairn",
        "Lottie",
        "t_twe",
        "Pellow Cross",
    ),
    ("emeka", "Emeka Nwosu", "Emeka", "Nwosu", "@emeka_n", None, "t_twe", "Greyling"),
    ("kwame", "Kwame Boateng", "Kwame", "Boateng", "@kwame", None, "t_net", "Brannock"),
    ("hannah", "Hannah Szabo", "Hannah", "Szabo", "@hszabo", None, "t_net", "Oakhurst"),
    ("gareth", "Gareth Penhallow", "Gareth", "Penhallow", "@gaz", "Gaz", "t_net", "Fenmouth"),
    ("saoirse", "Saoirse Dunne", "Saoirse", "Dunne", "@saoirse.d", None, "t_net", "Pellow Cross"),
    (
        "margaret",
        "Margaret Lindqvist",
        "Margaret",
        "Lindqvist",
        "@mlindqvist",
        "Mags",
        "t_ww",
        "Fenmouth",
    ),
    (
        "callum",
        "Callum Birtwistle",
        "Callum",
        "Birtwistle",
        "@callumb",
        None,
        "t_ww",
        "Pellow Cross",
    ),
    ("joaquim", "Joaquim Barros", "Joaquim", "Barros", "@jbarros", "Quim", "t_ww", "Brannock"),
    ("pavel", "Pavel Novak", "Pavel", "Novak", "@pnovak", None, "t_ww", "Fenmouth"),
    ("dmitri", "Dmitri Sokolov", "Dmitri", "Sokolov", "@dsok", None, "t_ot", "Brannock"),
    ("seun", "Oluwaseun Adeyemi", "Oluwaseun", "Adeyemi", "@seun.a", "Seun", "t_ot", "Oakhurst"),
    (
        "wilfred",
        "Wilfred Oyelaran",
        "Wilfred",
        "Oyelaran",
        "@woyelaran",
        "Wilf",
        "t_ot",
        "Kettlewick",
    ),
    ("agnieszka", "Agnieszka Wrobel", "Agnieszka", "Wrobel", "@aga_w", "Aga", "t_ot", "Sallowby"),
    (
        "rosalind",
        "Rosalind Achterberg",
        "Rosalind",
        "Achterberg",
        "@rachterberg",
        "Roz",
        "t_ai",
        "Oakhurst",
    ),
    ("siobhan", "Siobhan Gallagher", "Siobhan", "Gallagher", "@shiv", "Shiv", "t_ai", "Greyling"),
    ("ibrahim", "Ibrahim Haddad", "Ibrahim", "Haddad", "@ihaddad", None, "t_ai", "Oakhurst"),
    ("ottilie", "Ottilie Grange", "Ottilie", "Grange", "@tilly.g", "Tilly", "t_ai", "Sallowby"),
    ("sunita", "Sunita Kulkarni", "Sunita", "Kulkarni", "@sunita.k", None, "t_wq", "Fenmouth"),
    ("eleanor", "Eleanor Voss", "Eleanor", "Voss", "@evoss", "Nell", "t_wq", "Greyling"),
    ("catriona", "Catriona Baird", "Catriona", "Baird", "@cat.baird", "Cat", "t_wq", "Fenmouth"),
    (
        "harriet",
        "Harriet Strand",
        "Harriet",
        "Strand",
        "@hstrand",
        "Hattie",
        "t_wq",
        "Pellow Cross",
    ),
    ("rafael", "Rafael Quintero", "Rafael", "Quintero", "@rq", "Rafa", "t_hm", "Oakhurst"),
    ("xiaomei", "Xiaomei Zhou", "Xiaomei", "Zhou", "@zhoux", "Mei", "t_hm", "Brannock"),
    ("ashok", "Ashok Menon", "Ashok", "Menon", "@amenon", None, "t_hm", "Kettlewick"),
    ("freya", "Freya Halloran", "Freya", "Halloran", "@freya_h", None, "t_lk", "Greyling"),
    ("barty", "Bartholomew Ince", "Bartholomew", "Ince", "@b.ince", "Barty", "t_lk", "Sallowby"),
    ("niamh", "Niamh Corrigan", "Niamh", "Corrigan", "@niamhc", None, "t_lk", "Oakhurst"),
    (
        "beatrix",
        "Beatrix Moorcroft",
        "Beatrix",
        "Moorcroft",
        "@bmoorcroft",
        "Trix",
        "t_lk",
        "Kettlewick",
    ),
    (
        "tomasz",
        "Tomasz Wielgosz",
        "Tomasz",
        "Wielgosz",
        "@twielgosz",
        "Tomek",
        "t_lk",
        "Pellow Cross",
    ),
]

# key, name, alias, feeds (the asset it sends water, sludge or data to), owner, record store
ASSETS = [
    ("a_scarrow", "Scarrow Reservoir", "Scarrow", "a_cragside", "fergus", "s_piw"),
    ("a_cragside", "Cragside Reservoir", "Cragside", "a_hollin", "anouk", "s_piw"),
    ("a_blackres", "Blackmere Reservoir", None, "a_blackwtw", "kofi", "s_pie"),
    ("a_thistle", "Thistleford Boreholes", "Thistleford BH", "a_kwtw", "fergus", "s_ta2"),
    ("a_wend", "Wend Intake", None, "a_wendwtw", "kofi", "s_flow"),
    ("a_hollin", "Hollin WTW", "Hollin works", "a_lowgate", "declan", "s_piw"),
    ("a_blackwtw", "Blackmere WTW", "Blackmere works", "a_pike", "ines", "s_pie"),
    ("a_kwtw", "Kettlewick WTW", "KWTW", "a_beacon", "yusuf", "s_ta2"),
    ("a_wendwtw", "Wend Valley WTW", "Wend Valley works", "a_marrow", "rhys", "s_flow"),
    ("a_lowgate", "Lowgate PS", "Lowgate", "a_crook", "hannah", "s_piw"),
    ("a_pike", "Pikestone Booster", "Pikestone", "a_harl", "emeka", "s_pie"),
    ("a_beacon", "Beacon Hill SR", "Beacon Hill", "a_kndma", "gareth", "s_ta2"),
    ("a_frps", "Fenmouth Road PS", "FRPS", "a_beacon", "saoirse", "s_ta2"),
    ("a_crook", "Crook Top SR", "Crook Top", "a_ocdma", "hannah", "s_piw"),
    ("a_harl", "Harl Edge SR", "Harl Edge", "a_grdma", "gareth", "s_pie"),
    ("a_kndma", "Kettlewick North DMA", "KN-04", None, "kwame", "s_gis"),
    ("a_marrow", "Marrow Lane PS", "Marrow Lane", "a_tower", "saoirse", "s_flow"),
    ("a_ocdma", "Oakhurst Central DMA", "OC-11", None, "niamh", "s_iw"),
    ("a_grdma", "Greyling DMA", "GR-02", None, "beatrix", "s_pie"),
    ("a_tower", "Sallowby Tower", "Sallowby WT", "a_sedma", "lottie", "s_flow"),
    ("a_sedma", "Sallowby East DMA", "SE-07", None, "tomasz", "s_flow"),
    ("a_quay", "Quayside Sewage PS", "Quayside SPS", "a_fenstw", "callum", "s_ta2"),
    ("a_fenstw", "Fenmouth STW", "Fenmouth WwTW", "a_sludge", "joaquim", "s_pie"),
    ("a_branstw", "Brannock STW", None, "a_sludge", "pavel", "s_maximo"),
    ("a_sludge", "Pellow Sludge Centre", "Pellow STC", "a_digester", "margaret", "s_maximo"),
    ("a_digester", "Pellow Digester", "Pellow AD", "a_chp", "callum", "s_piw"),
    ("a_chp", "Pellow CHP Plant", "Pellow CHP", None, "joaquim", "s_pw"),
    ("a_grstw", "Greyling STW", None, "a_sludge", "pavel", "s_maximo"),
    ("a_millbeck", "Mill Beck Storm Tank", "Mill Beck tank", "a_branstw", "margaret", "s_docu"),
    ("a_westout", "West Telemetry Outstations", "West outstations", "a_scw", "seun", "s_scfg"),
    ("a_eastout", "East Telemetry Outstations", "East outstations", "a_sce", "wilfred", "s_scfg"),
    ("a_scw", "SCADA West", None, "a_rcr", "agnieszka", "s_piw"),
    ("a_sce", "SCADA East", None, "a_rcr", "wilfred", "s_pie"),
    ("a_rcr", "Regional Control Room", "RCR", None, "dmitri", "s_scfg"),
    ("a_acoustic", "Acoustic Logger Fleet", "acoustic loggers", "a_leakspot", "barty", "s_flow"),
    ("a_leakspot", "LeakSpotter", None, "a_repair", "freya", "s_qdl"),
    ("a_repair", "Repair Scheduler", None, None, "siobhan", "s_maximo"),
    ("a_fploggers", "Flow & Pressure Loggers", "F&P loggers", "a_wnm", "ashok", "s_flow"),
    ("a_wnm", "West Network Model", "WNM", "a_capplan", "xiaomei", "s_iw"),
    ("a_capplan", "Capital Planning Tool", "CapPlan", None, "ibrahim", "s_gis"),
    ("a_smart", "Smart Meter Pilot", "smart meter trial", "a_portal", "tomasz", "s_qdl"),
    ("a_portal", "Customer Usage Portal", "usage portal", None, "ottilie", "s_qdl"),
    ("a_vans", "Sampling Van Fleet", "sampling vans", "a_lab", "eleanor", "s_lims"),
    ("a_lab", "Fenmouth Lab", None, "a_crb", "catriona", "s_lims"),
    ("a_crb", "Compliance Return Builder", "CRB", None, "harriet", "s_docu"),
]

# Assets a person can stand in, walk round or photograph (not systems, fleets or DMAs).
SITES = [
    "a_scarrow",
    "a_cragside",
    "a_blackres",
    "a_thistle",
    "a_wend",
    "a_hollin",
    "a_blackwtw",
    "a_kwtw",
    "a_wendwtw",
    "a_lowgate",
    "a_pike",
    "a_beacon",
    "a_frps",
    "a_crook",
    "a_harl",
    "a_marrow",
    "a_tower",
    "a_quay",
    "a_fenstw",
    "a_branstw",
    "a_sludge",
    "a_digester",
    "a_chp",
    "a_grstw",
    "a_millbeck",
    "a_rcr",
    "a_lab",
]

RELATIONS = ["owner", "feeds", "store", "team", "base", "lead", "channel", "host"]

# ---------------------------------------------------------------------------------------
# How each relation is written down (slots: a, b asset; p person; t team; c channel;
# w town; s store; h host).  Every relation has at least eleven phrasings.
# ---------------------------------------------------------------------------------------

PHRASINGS = {
    "owner": [
        "{p} owns {a}.",
        "{a} is owned by {p}.",
        "If {a} breaks, call {p}; they are the asset owner.",
        "asset: {a}\nowner: {p}",
        "{a} → owner {p}",
        "| {a} | {p} | asset owner |",
        "Note to self: {p} is accountable for {a} (responsible-person field in the register).",
        "I confirmed with {p} today that {a} stays with them as owner.",
        "Asset review minutes: ownership of {a} confirmed as {p}, no change proposed.",
        "Responsible engineer for {a}: {p}.",
        "{p} looks after {a}, so every permit to work there needs their signature.",
        "Email from {p}: 'Yes, {a} is mine. Send the condition survey to me.'",
    ],
    "feeds": [
        "{a} feeds {b}.",
        "{b} is fed by {a}.",
        "{a} → {b}",
        "Directly downstream of {a} sits {b}.",
        "{a} supplies {b}.",
        "upstream: {a}\ndownstream: {b}",
        "| {a} | feeds | {b} |",
        "Everything that leaves {a} goes on to {b}.",
        "If {a} stops, {b} loses its input.",
        "{b} takes its input from {a}.",
        "Schematic walk-through: {a} outputs straight into {b}.",
        "I traced the line on the drawings: {a} sends to {b}.",
    ],
    "store": [
        "{a} logs to {s}.",
        "{a}'s records live in {s}.",
        "Data for {a} is kept in {s}.",
        "{a} → {s}",
        "record store for {a}: {s}",
        "| {a} | {s} | records |",
        "{s} holds the history for {a}.",
        "If you need old readings for {a}, pull them from {s}.",
        "Everything {a} produces ends up in {s}.",
        "asset: {a}; archive: {s}",
        "I checked with IT: all of {a}'s logs go into {s}.",
        "{s} is the system of record for {a}.",
    ],
    "team": [
        "{p} is in {t}.",
        "{p} works in {t}.",
        "{t} includes {p}.",
        "{p} — {t}",
        "name: {p}; team: {t}",
        "{p} joined {t} last spring and is still there.",
        "| {p} | {t} |",
        "{p} → {t}",
        "According to the staff directory, {p} sits in {t}.",
        "Met {p} today; they are one of the {t} people.",
        "{t} member: {p}.",
        "Roster update: {p} is listed under {t}.",
    ],
    "base": [
        "{p} is based in {w}.",
        "{p} works out of the {w} office.",
        "{p}: {w}",
        "{w} is where {p} works from.",
        "{p} → {w}",
        "| {p} | {w} | base |",
        "person: {p}; base: {w}",
        "{p} is at the {w} site most days, so meet them there.",
        "Heads-up: {p}'s desk is in {w}.",
        "{p} is a {w}-based engineer.",
        "Seeing {p} in person means driving to {w}; that's their office.",
        "{p} moved to the {w} office last year and still works there.",
    ],
    "lead": [
        "{p} leads {t}.",
        "{t} is led by {p}.",
        "{t} lead: {p}",
        "Head of {t}: {p}.",
        "{t} → manager {p}",
        "| {t} | {p} | team lead |",
        "Escalations for {t} go to {p}, who runs the team.",
        "I send anything about {t}'s priorities to {p}; they manage that team.",
        "Meeting summary: {p} confirmed they will keep running {t} next year.",
        "{p} has been {t}'s team manager since the restructure.",
        "team: {t}\nlead: {p}",
    ],
    "channel": [
        "{t} uses {c}.",
        "{t}'s contact point is {c}.",
        "To reach {t}, write to {c}.",
        "{c} belongs to {t}.",
        "{t} → {c}",
        "| {t} | {c} | team channel |",
        "team: {t}; contact: {c}",
        "If you need {t}, the quickest route is {c}.",
        "Note: {t} moved all their team chatter to {c}.",
        "{t} can be reached via {c}.",
        "I was told to send {t} requests to {c} rather than emailing people one by one.",
    ],
    "host": [
        "{s} is hosted in {h}.",
        "{s} runs in {h}.",
        "{h} hosts {s}.",
        "{s} → {h}",
        "| {s} | {h} | hosting |",
        "hosting for {s}: {h}",
        "{s} lives on servers in {h}.",
        "If {h} goes down, {s} is offline too.",
        "Infra note: {s} sits in {h}.",
        "store: {s}; host: {h}",
        "We moved {s} into {h} two years ago and it is still there.",
    ],
}

# Notes that name the same people, assets, teams and systems without stating any relation
# of the graph.  Slots: P person, A asset, X asset that is a physical site, S store, T team,
# C channel, W town, H host; D date, N number, E local event.  A digit makes a second or
# third one.
DISTRACTORS = [
    "{P} walked the regulator's inspector round {X} on {D}.",
    "{X} lost power for six hours during Storm Edna; no customers went without water.",
    "{P} and {P2} are presenting the drought plan update together on {D}.",
    "{P} feeds the ducks on the pond by {X} most lunchtimes.",
    "{P} owns a narrowboat moored about a mile from {X}.",
    "{W} hosts the {E} this year, so expect traffic on {D}.",
    "{P} leads the Wednesday lunchtime run; {P2} usually brings up the rear.",
    "{T} Christmas lunch is booked at the Fleece in {W}.",
    "{C} was flooded with alarm chatter after the {X} power cut.",
    "Audit finding {N}: {S} retention policy is undocumented. Owner TBC.",
    "{S} licence renewal is due in October; procurement asked {P} for usage figures.",
    "{P} asked me to remind them about the {X} open day on {D}.",
    "{P} grew up near {W} and still plays for the cricket club there.",
    "Reminder: {P} is on leave for a fortnight from {D}.",
    "{P}'s birthday is {D}; {P2} is collecting for a card.",
    "{A} is on the 2026 capital plan shortlist for refurbishment.",
    "{P} says the road into {W} floods every winter.",
    "Procurement wants {S} and {S2} licence costs compared by Friday.",
    "{T} and {T2} are sharing a stand at the {E}.",
    "{P} is training for the Great North Run and wants sponsors.",
    "Drafted a thank-you email for {P} to the painters who did the railings at {X}.",
    "The site induction video for {X} stars {P} in a very large hard hat.",
    "{P} prefers tea to coffee and will not take meetings before nine.",
    "{P2} borrowed {P}'s gas monitor and still hasn't returned it.",
    "The {W} office fire drill is on {D} at 10:30.",
    "{A} and {A2} were both named in the regulator's annual performance letter.",
    "{P} posted the canteen menu in {C} by mistake.",
    "{T} and {T2} hold a joint safety stand-down on {D}.",
    "Lost property: {P}'s hi-vis jacket turned up at {X}.",
    "{S} was slow all morning; I mentioned it to {P} in passing.",
    "{P} thinks the export screen in {S} is clunkier than the one in {S2}.",
    "The {W} depot is down to two pool vans until {D}.",
    "Pothole outside {X} reported to the council by {P}.",
    "{P}, {P2} and {P3} passed their confined-space refresher on {D}.",
    "{H} costs rose 8% this quarter, according to finance.",
    "Photos from the {X} open day went to the shared drive, not into {S}.",
    "{P} asked whether {T} could lend a drone pilot for a survey of {X}.",
    "{A} was renamed in 2019; the old name still turns up in some reports.",
    "Sent {P} the HR link about pension paperwork.",
    "Fire alarm test at {X} on {D}, 10:00 sharp.",
    "{P} reckons {A} will be decommissioned before 2030.",
    "The weather bot in {C} posts flood warnings at 07:00.",
    "{P} joked about running their allotment society's accounts on {S}.",
    "{H} network change on {D} went through without incident.",
    "Meeting notes {D}: {P} and {P2} discussed the {X} noise complaint; no actions.",
    "{P} recommended a curry house in {W} for a night out.",
    "Note to self: ask {P} how the visit to {X} went.",
    "{P} is doing a charity swim at the {W} leisure centre on {D}.",
    "Email from {P}: 'Is {S} the one with the blue login page?'",
    "{X} had a visit from the local primary school; {P} handed out the stickers.",
    "{P} and {P2} swapped desks for a week while the carpets were replaced.",
    "{T} is trialling a four-day week over the summer, per an all-staff email.",
    "Intern project idea from {P}: one dashboard comparing {A}, {A2} and {A3}.",
    "IT suggested merging {C} and {C2} if traffic stays low; nothing decided.",
    "{P} took the photograph of {X} that went on the annual report cover.",
]

EVENTS = [
    "county show",
    "food festival",
    "agricultural show",
    "brass band contest",
    "steam rally",
    "summer fair",
]

DATES = [
    "3 March",
    "14 February",
    "22 April",
    "9 May",
    "17 June",
    "1 July",
    "28 July",
    "12 August",
    "4 September",
    "19 September",
    "7 October",
    "30 October",
    "11 November",
    "2 December",
]

# ---------------------------------------------------------------------------------------
# Questions: (hops, path, how many, phrasings).  A path step is a relation followed forward
# (subject to object) or, with "~", backward.  "lc:" marks a question asked in lower case.
# ---------------------------------------------------------------------------------------

QUESTION_SPECS = [
    # one hop
    (
        1,
        ["owner"],
        8,
        [
            "Who owns {x}?",
            "{x}: who's the owner?",
            "There's a low-pressure alarm at {x}. Who do I ring?",
            "lc:whose asset is {x}",
            "owner of {x}",
            "Find me the person accountable for {x}.",
            "Who is the responsible engineer for {x}?",
            "I need a permit signed for work at {x}; whose call is that?",
        ],
    ),
    (
        1,
        ["~owner"],
        3,
        [
            "Which asset does {x} own?",
            "What is {x} the asset owner of?",
            "lc:{x} is responsible for which asset",
        ],
    ),
    (
        1,
        ["feeds"],
        6,
        [
            "What does {x} feed?",
            "Where does the output of {x} go next?",
            "lc:what's directly downstream of {x}",
            "{x} feeds what?",
            "Which asset is supplied by {x}?",
            "If {x} trips, which asset loses its input first?",
        ],
    ),
    (
        1,
        ["~feeds"],
        3,
        [
            "What feeds {x}?",
            "Which asset sits directly upstream of {x}?",
            "{x} gets its input from where?",
        ],
    ),
    (
        1,
        ["store"],
        6,
        [
            "Where are {x}'s records kept?",
            "Which data store does {x} log to?",
            "lc:i need last year's readings for {x}, which system has them",
            "{x} archive?",
            "Pull up the history for {x}: where does it live?",
            "What is the system of record for {x}?",
        ],
    ),
    (
        1,
        ["team"],
        6,
        [
            "Which team is {x} in?",
            "What team does {x} belong to?",
            "{x}'s team?",
            "Remind me which team {x} works for.",
            "lc:team for {x}",
            "{x} just messaged me. Which team are they on?",
        ],
    ),
    (
        1,
        ["base"],
        6,
        [
            "Where is {x} based?",
            "Which office does {x} work from?",
            "{x} location",
            "I want to meet {x} in person. Which town should I drive to?",
            "lc:where does {x} sit",
            "What's {x}'s home site?",
        ],
    ),
    (
        1,
        ["lead"],
        4,
        [
            "Who leads {x}?",
            "Who is the head of {x}?",
            "{x} team lead?",
            "Who manages {x}?",
        ],
    ),
    (1, ["~lead"], 2, ["Which team does {x} lead?", "lc:{x} runs which team"]),
    (
        1,
        ["channel"],
        3,
        [
            "How do I reach {x}?",
            "What channel or mailing list does {x} use?",
            "lc:contact for {x}",
        ],
    ),
    (1, ["~channel"], 1, ["Which team is behind {x}?"]),
    (1, ["host"], 2, ["Where is {x} hosted?", "lc:which platform hosts {x}"]),
    # two hops
    (
        2,
        ["feeds", "owner"],
        7,
        [
            "Who owns the asset that {x} feeds?",
            "Who is responsible for whatever sits directly downstream of {x}?",
            "{x} supplies something. Whose is it?",
            "owner of the asset fed by {x}",
            "The site that {x} feeds has a fault. Who do I call?",
            "lc:who looks after the next asset after {x}",
            "Name the owner of {x}'s downstream asset.",
        ],
    ),
    (
        2,
        ["feeds", "store"],
        5,
        [
            "Where are the records for the asset downstream of {x} kept?",
            "Which data store does the asset fed by {x} log to?",
            "{x} feeds another asset; where does that one's data go?",
            "lc:history for whatever {x} supplies, which system",
            "I need readings from the asset {x} feeds. Where do I look?",
        ],
    ),
    (
        2,
        ["feeds", "feeds"],
        4,
        [
            "What does the asset that {x} feeds feed in turn?",
            "Two steps downstream of {x}: which asset is that?",
            "{x} → ? → ?: what's the second asset?",
            "lc:where does the flow from {x} go after the next asset",
        ],
    ),
    (
        2,
        ["owner", "team"],
        7,
        [
            "Which team is the owner of {x} in?",
            "What team does {x}'s owner belong to?",
            "{x} owner's team?",
            "I have a question about {x}. Going by its owner, which team should I raise it with?",
            "team of the person who owns {x}",
            "The person accountable for {x}: what team are they on?",
            "lc:which team does whoever owns {x} work for",
        ],
    ),
    (
        2,
        ["owner", "base"],
        7,
        [
            "Where is the owner of {x} based?",
            "Which town does {x}'s owner work from?",
            "{x} owner location",
            "I want to see whoever owns {x} face to face. Where should I go?",
            "lc:where does the person responsible for {x} sit",
            "In which office is {x}'s responsible engineer?",
            "Base of the asset owner for {x}?",
        ],
    ),
    (
        2,
        ["store", "host"],
        6,
        [
            "Where is the data store for {x} hosted?",
            "{x} logs somewhere. Where is that system hosted?",
            "hosting location of {x}'s record store",
            "Which platform hosts the archive that holds {x}'s history?",
            "If I need the servers behind {x}'s records, where are they?",
            "lc:where do {x}'s logs physically live",
        ],
    ),
    (
        2,
        ["team", "lead"],
        6,
        [
            "Who leads {x}'s team?",
            "Who is {x}'s team lead?",
            "{x}'s manager?",
            "Who runs the team that {x} is in?",
            "I need to escalate something about {x}'s work. Who heads their team?",
            "lc:lead of the team {x} belongs to",
        ],
    ),
    (
        2,
        ["team", "channel"],
        5,
        [
            "Where does {x}'s team talk?",
            "What's the channel or mailing list for {x}'s team?",
            "{x} is out today; how do I reach the rest of their team?",
            "lc:contact point for the team {x} is on",
            "Which channel does {x}'s team use?",
        ],
    ),
    (
        2,
        ["lead", "base"],
        4,
        [
            "Where is the lead of {x} based?",
            "Which town does the head of {x} work from?",
            "{x} lead: location?",
            "lc:where does whoever runs {x} sit",
        ],
    ),
    (
        2,
        ["~channel", "lead"],
        3,
        [
            "Who leads the team that uses {x}?",
            "Who runs the team behind {x}?",
            "lc:lead of the team on {x}",
        ],
    ),
    (
        2,
        ["~lead", "channel"],
        3,
        [
            "What channel does the team {x} leads use?",
            "How do I reach the team that {x} runs?",
            "{x} heads a team; what's its list or channel?",
        ],
    ),
    (
        2,
        ["~owner", "feeds"],
        3,
        [
            "What does the asset {x} owns feed?",
            "{x} owns one asset. Where does its output go?",
            "lc:downstream of the asset {x} is responsible for",
        ],
    ),
    # three hops
    (
        3,
        ["owner", "team", "lead"],
        8,
        [
            "Who leads the team of the person who owns {x}?",
            "Who is the team lead above {x}'s owner?",
            "I need to escalate a problem at {x} past its owner to their team lead. Who is that?",
            "{x} owner's team lead?",
            "lc:manager of the team whose member owns {x}",
            "Who heads the team that {x}'s responsible engineer sits in?",
            "Which person runs the team that the owner of {x} belongs to?",
            "escalation for {x}: owner's lead",
        ],
    ),
    (
        3,
        ["owner", "team", "channel"],
        7,
        [
            "Which channel does the team of {x}'s owner use?",
            "How do I reach the team that {x}'s owner is on?",
            "{x} is alarming and its owner is on leave. Where do I post to reach their team?",
            "lc:contact channel for the team of whoever owns {x}",
            "What list or channel belongs to the team of the person who owns {x}?",
            "{x} → owner → team → channel?",
            "Where should I raise something about {x} with its owner's whole team?",
        ],
    ),
    (
        3,
        ["feeds", "owner", "team"],
        6,
        [
            "Which team is the owner of the asset {x} feeds in?",
            "{x} supplies another asset. Which team is that asset's owner on?",
            "lc:team of whoever owns the asset downstream of {x}",
            "What team does the person responsible for {x}'s downstream asset belong to?",
            "Downstream of {x}, the next asset's owner works for which team?",
            "{x} downstream asset owner team",
        ],
    ),
    (
        3,
        ["feeds", "owner", "base"],
        6,
        [
            "Where is the owner of the asset that {x} feeds based?",
            "Which town does the person responsible for {x}'s downstream asset work from?",
            "I need to visit whoever owns the next asset after {x}. Where are they based?",
            "lc:base of the owner of the asset fed by {x}",
            "{x} feeds something; where does that asset's owner sit?",
            "location of downstream owner for {x}",
        ],
    ),
    (
        3,
        ["feeds", "store", "host"],
        6,
        [
            "Where is the data store of the asset {x} feeds hosted?",
            "{x} supplies another asset. Where is that asset's record store hosted?",
            "lc:hosting for the archive of whatever {x} feeds",
            "The asset downstream of {x} logs to a store. Where does that store run?",
            "Which platform hosts the records of the asset fed by {x}?",
            "{x} → downstream → store → host?",
        ],
    ),
    (
        3,
        ["feeds", "feeds", "owner"],
        5,
        [
            "Who owns the asset two steps downstream of {x}?",
            "{x} feeds an asset which feeds another. Who owns that last one?",
            "lc:owner of the asset after next downstream of {x}",
            "Follow the flow from {x} two hops down. Whose asset is it?",
            "Who is responsible for the asset fed by the one {x} feeds?",
        ],
    ),
    (
        3,
        ["team", "lead", "base"],
        6,
        [
            "Where is {x}'s team lead based?",
            "Which town does the head of {x}'s team work from?",
            "I'm driving over to see {x}'s manager. Which town?",
            "lc:where does the lead of {x}'s team sit",
            "{x} → team → lead → base?",
            "Location of the person who runs {x}'s team?",
        ],
    ),
    (
        3,
        ["~channel", "lead", "base"],
        3,
        [
            "Where is the lead of the team that uses {x} based?",
            "The team on {x} has a lead; which town are they in?",
            "lc:base of whoever runs the team on {x}",
        ],
    ),
    (
        3,
        ["feeds", "feeds", "store"],
        3,
        [
            "Where are the records of the asset two steps downstream of {x} kept?",
            "{x} feeds an asset that feeds another; which data store does the last one log to?",
            "lc:archive for the asset after next downstream of {x}",
        ],
    ),
]

# The kind of each relation's subject and object.
KINDS = {
    "owner": ("asset", "person"),
    "feeds": ("asset", "asset"),
    "store": ("asset", "store"),
    "team": ("person", "team"),
    "base": ("person", "town"),
    "lead": ("team", "person"),
    "channel": ("team", "channel"),
    "host": ("store", "host"),
}
SLOT = {"asset": "a", "person": "p", "team": "t", "channel": "c", "town": "w", "store": "s"}
SLOT["host"] = "h"
DSLOT = {"P": "person", "A": "asset", "X": "asset", "S": "store", "T": "team", "C": "channel"}
DSLOT["W"] = "town"
DSLOT["H"] = "host"
PERSON_FORMS = ["full", "first", "surname", "handle", "nick"]
PERSON_WEIGHTS = {"full": 3.0, "first": 3.0, "surname": 1.5, "handle": 2.0, "nick": 1.2}


# ---------------------------------------------------------------------------------------
# Building the world
# ---------------------------------------------------------------------------------------


def town_key(name):
    return "w_" + name.lower().replace(" ", "_")


def build_entities():
    """key -> {"kind", "forms": {form: surface text}}; the first form is the canonical one."""
    ent = {}
    for key, full, first, surname, handle, nick, _team, _base in PEOPLE:
        forms = {"full": full, "first": first, "surname": surname, "handle": handle}
        if nick:
            forms["nick"] = nick
        ent[key] = {"kind": "person", "forms": forms}
    for key, name, alias, channel, _lead in TEAMS:
        ent[key] = {"kind": "team", "forms": {"name": name, "alias": alias}}
        ent["c_" + key] = {"kind": "channel", "forms": {"name": channel}}
    for key, name, alias, _feeds, _owner, _store in ASSETS:
        ent[key] = {"kind": "asset", "forms": named(name, alias)}
    for key, name, alias, _host in STORES:
        ent[key] = {"kind": "store", "forms": named(name, alias)}
    for key, name, alias in HOSTS:
        ent[key] = {"kind": "host", "forms": named(name, alias)}
    for name in TOWNS:
        ent[town_key(name)] = {"kind": "town", "forms": {"name": name}}
    return ent


def named(name, alias):
    forms = {"name": name}
    if alias:
        forms["alias"] = alias
    return forms


def build_edges():
    """Every edge of the graph as (relation, subject, object), in a fixed order."""
    lead_of = {key: lead for key, _name, _alias, _channel, lead in TEAMS}
    edges = []
    for key, _name, _alias, feeds, owner, store in ASSETS:
        edges.append(("owner", key, owner))
        edges.append(("store", key, store))
        if feeds:
            edges.append(("feeds", key, feeds))
    for key, _full, _first, _surname, _handle, _nick, team, base in PEOPLE:
        if lead_of[team] != key:
            edges.append(("team", key, team))
        edges.append(("base", key, town_key(base)))
    for key, _name, _alias, _channel, lead in TEAMS:
        edges.append(("lead", key, lead))
        edges.append(("channel", key, "c_" + key))
    for key, _name, _alias, host in STORES:
        edges.append(("host", key, host))
    return edges


def pick_form(rng, ent, key, avoid=None):
    forms = list(ent[key]["forms"])
    if ent[key]["kind"] == "person":
        options = [f for f in PERSON_FORMS if f in forms and f != avoid]
        weights = [PERSON_WEIGHTS[f] for f in options]
        return rng.choices(options, weights=weights)[0]
    if len(forms) > 1 and rng.random() < 0.3:
        return forms[1]
    return forms[0]


def possessive(text):
    """Real notes write "Boreholes'" and "Rhys'" rather than "Boreholes's"."""
    return re.sub(r"(?<=s)'s(?!\w)", "'", text)


def relation_facts(rng, ent, edges):
    facts = []
    for rel in RELATIONS:
        mine = [e for e in edges if e[0] == rel]
        rng.shuffle(mine)
        templates = list(PHRASINGS[rel])
        rng.shuffle(templates)
        subj_kind, obj_kind = KINDS[rel]
        for i, (_rel, subj, obj) in enumerate(mine):
            template = templates[i % len(templates)]
            s_form = pick_form(rng, ent, subj)
            o_form = pick_form(rng, ent, obj)
            s_slot = SLOT[subj_kind]
            o_slot = "b" if rel == "feeds" else SLOT[obj_kind]
            values = {
                s_slot: ent[subj]["forms"][s_form],
                o_slot: ent[obj]["forms"][o_form],
            }
            facts.append(
                {
                    "content": possessive(template.format(**values)),
                    "edge": (rel, subj, obj),
                    "template": template,
                    "forms": {subj: s_form, obj: o_form},
                }
            )
    return facts


def forbidden_pairs(edges):
    """Pairs a distractor may not name together: every edge, plus the pairs whose being named
    together would hint at an edge (a person and their own team's channel; an asset and its
    owner's team or that team's channel)."""
    pairs = set()
    team_of = {}
    for rel, subj, obj in edges:
        pairs.add((subj, obj))
        pairs.add((obj, subj))
        if rel == "team":
            team_of[subj] = obj
        if rel == "lead":
            team_of[obj] = subj
    owner_of = {subj: obj for rel, subj, obj in edges if rel == "owner"}
    extra = []
    for person, team in team_of.items():
        extra.append((person, "c_" + team))
    for asset, owner in owner_of.items():
        extra.append((asset, team_of[owner]))
        extra.append((asset, "c_" + team_of[owner]))
    for a, b in extra:
        pairs.add((a, b))
        pairs.add((b, a))
    return pairs


def distractor_facts(rng, ent, edges):
    """Fill the distractor templates in turn.  Entities are taken round-robin from a shuffled
    queue per slot letter, so every person, asset, team and system turns up somewhere."""
    banned = forbidden_pairs(edges)
    queues = {}
    for letter, kind in DSLOT.items():
        keys = SITES if letter == "X" else [k for k, v in ent.items() if v["kind"] == kind]
        keys = list(keys)
        rng.shuffle(keys)
        queues[letter] = {"keys": keys, "at": 0}
    plain = {"D": DATES, "N": [str(n) for n in range(3, 48)], "E": EVENTS}
    for letter, values in plain.items():
        values = list(values)
        rng.shuffle(values)
        queues[letter] = {"keys": values, "at": 0}
    templates = list(DISTRACTORS)
    rng.shuffle(templates)
    facts = []
    seen = []
    for i in range(N_DISTRACTORS):
        template = templates[i % len(templates)]
        for attempt in range(50):
            if attempt:
                for queue in queues.values():
                    queue["at"] = rng.randrange(len(queue["keys"]))
            fact = fill_distractor(rng, ent, template, queues, banned)
            if fact["content"] not in seen:
                break
        else:
            raise AssertionError(f"cannot fill {template!r} with new names")
        seen.append(fact["content"])
        facts.append(fact)
    return facts


def fill_distractor(rng, ent, template, queues, banned):
    values = {}
    chosen = []
    forms = {}
    for letter, digit in re.findall(r"\{([A-Z])(\d?)\}", template):
        name = letter + digit
        if name in values:
            continue
        queue = queues[letter]
        keys = queue["keys"]
        if letter not in DSLOT:
            values[name] = keys[queue["at"]]
            queue["at"] = (queue["at"] + 1) % len(keys)
            continue
        for step in range(len(keys)):
            key = keys[(queue["at"] + step) % len(keys)]
            if key in chosen or any((key, other) in banned for other in chosen):
                continue
            queue["at"] = (queue["at"] + step + 1) % len(keys)
            break
        else:
            raise AssertionError(f"no filler for {template!r}")
        chosen.append(key)
        form = pick_form(rng, ent, key)
        forms[key] = form
        values[name] = ent[key]["forms"][form]
    return {
        "content": possessive(template.format(**values)),
        "edge": None,
        "template": template,
        "forms": forms,
        "named": chosen,
    }


def graph_maps(edges):
    """Forward maps (functional) and backward lists; a team lead's team comes from the lead edge."""
    fwd = {rel: {} for rel in RELATIONS}
    back = {rel: {} for rel in RELATIONS}
    for rel, subj, obj in edges:
        fwd[rel][subj] = obj
        back[rel].setdefault(obj, []).append(subj)
        if rel == "lead":
            fwd["team"][obj] = subj
            back["team"].setdefault(subj, []).append(obj)
    return fwd, back


def edge_fact_index(facts):
    index = {}
    for i, fact in enumerate(facts):
        if fact["edge"] is None:
            continue
        rel, subj, obj = fact["edge"]
        assert (rel, subj, obj) not in index, f"edge stated twice: {fact['edge']}"
        index[(rel, subj, obj)] = i
        if rel == "lead":
            index[("team", obj, subj)] = i
    return index


def walk(start, path, fwd, back, edge_index):
    """Follow a path from start; None unless every backward step has exactly one source, no
    entity or fact repeats and the end differs from the start."""
    nodes = [start]
    gold = []
    for step in path:
        rel = step.lstrip("~")
        node = nodes[-1]
        if step.startswith("~"):
            sources = back[rel].get(node, [])
            if len(sources) != 1:
                return None
            nxt = sources[0]
            fact = edge_index[(rel, nxt, node)]
        else:
            nxt = fwd[rel].get(node)
            if nxt is None:
                return None
            fact = edge_index[(rel, node, nxt)]
        if nxt in nodes or fact in gold:
            return None
        nodes.append(nxt)
        gold.append(fact)
    return nodes, gold


def start_kind(path):
    rel = path[0].lstrip("~")
    subj_kind, obj_kind = KINDS[rel]
    return obj_kind if path[0].startswith("~") else subj_kind


def build_questions(rng, ent, facts, fwd, back, edge_index):
    questions = []
    seen = set()
    for hops, path, count, templates in QUESTION_SPECS:
        kind = start_kind(path)
        candidates = []
        for key, value in ent.items():
            if value["kind"] != kind:
                continue
            found = walk(key, path, fwd, back, edge_index)
            if found:
                candidates.append((key, found))
        rng.shuffle(candidates)
        assert len(candidates) >= count, f"only {len(candidates)} starts for {path}"
        for i, (key, (nodes, gold)) in enumerate(candidates[:count]):
            template = templates[i % len(templates)]
            gold_form = facts[gold[0]]["forms"][key]
            if kind == "person" and rng.random() < 0.8:
                form = pick_form(rng, ent, key, avoid=gold_form)
            else:
                form = pick_form(rng, ent, key)
            text = template.removeprefix("lc:").format(x=ent[key]["forms"][form])
            text = possessive(text)
            if template.startswith("lc:"):
                text = text.lower()
            assert text not in seen, f"duplicate question {text!r}"
            seen.add(text)
            questions.append(
                {
                    "question": text,
                    "hops": hops,
                    "gold": gold,
                    "path": path,
                    "nodes": nodes,
                    "form": form,
                    "gold_form": gold_form,
                }
            )
    return questions


# ---------------------------------------------------------------------------------------
# Self-checks
# ---------------------------------------------------------------------------------------


def alias_patterns(ent):
    """(surface, key, compiled pattern), longest surface first."""
    rows = []
    for key, value in ent.items():
        for surface in value["forms"].values():
            rows.append((surface, key))
    rows.sort(key=lambda row: (-len(row[0]), row[0]))
    lowered = [surface.lower() for surface, _key in rows]
    assert len(lowered) == len(dict.fromkeys(lowered)), "a name or alias is used twice"
    out = []
    for surface, key in rows:
        pattern = r"(?<![\w@#.-])" + re.escape(surface) + r"(?![\w@])"
        out.append((surface, key, pattern))
    return out


def mentions(text, patterns, ignore_case=False):
    """Entities named in text, taking longer names first so that 'Fenmouth STW' is an asset
    and not the town Fenmouth."""
    flags = re.IGNORECASE if ignore_case else 0
    taken = []
    found = []
    for _surface, key, pattern in patterns:
        for match in re.finditer(pattern, text, flags):
            span = match.span()
            if any(span[0] < end and start < span[1] for start, end in taken):
                continue
            taken.append(span)
            if key not in found:
                found.append(key)
    return found


def ends(start, path, edges):
    """Brute force over the edge list: every entity the path can reach from start."""
    full = list(edges)
    for rel, subj, obj in edges:
        if rel == "lead":
            full.append(("team", obj, subj))
    frontier = [start]
    for step in path:
        rel = step.lstrip("~")
        nxt = []
        for r, subj, obj in full:
            if r != rel:
                continue
            if step.startswith("~"):
                src, dst = obj, subj
            else:
                src, dst = subj, obj
            if src in frontier and dst not in nxt:
                nxt.append(dst)
        frontier = nxt
    return frontier


def self_check(ent, edges, facts, questions, world):
    patterns = alias_patterns(ent)

    # Forward relations are functions: one object per subject.
    subjects = [(rel, subj) for rel, subj, _obj in edges]
    assert len(subjects) == len(dict.fromkeys(subjects)), "a relation has two objects"

    # Person names: first names, surnames, handles and nicknames are unique per person.
    for form in PERSON_FORMS:
        values = [v["forms"][form] for v in ent.values() if form in v["forms"]]
        assert len(values) == len(dict.fromkeys(values)), f"person {form} repeated"

    # Relation facts name exactly their two entities; distractors name no forbidden pair.
    banned = forbidden_pairs(edges)
    for fact in facts:
        named_here = mentions(fact["content"], patterns)
        if fact["edge"]:
            _rel, subj, obj = fact["edge"]
            assert sorted(named_here) == sorted([subj, obj]), (fact["content"], named_here)
        else:
            assert sorted(named_here) == sorted(fact["named"]), (fact["content"], named_here)
            for a in named_here:
                for b in named_here:
                    assert (a, b) not in banned, f"distractor hints at an edge: {fact['content']}"
    stated = [f["edge"] for f in facts if f["edge"]]
    assert sorted(stated) == sorted(edges), "every edge is stated exactly once"

    # Each relation is written in at least ten different phrasings.
    for rel in RELATIONS:
        used = [f["template"] for f in facts if f["edge"] and f["edge"][0] == rel]
        assert len(dict.fromkeys(used)) >= 10, f"{rel}: too few phrasings"

    # About 40 % distractors, some of them naming two or three entities.
    n_distract = sum(1 for f in facts if f["edge"] is None)
    assert 0.37 <= n_distract / len(facts) <= 0.43, n_distract
    multi = sum(1 for f in facts if f["edge"] is None and len(f["named"]) >= 2)
    assert multi >= 40, multi

    # No note is stored twice.
    contents = [f["content"] for f in facts]
    assert len(contents) == len(dict.fromkeys(contents)), "duplicate fact text"

    # Ids and counts.
    ids = [f["id"] for f in world["facts"]]
    assert len(ids) == len(set(ids)) >= 350
    hops = [q["hops"] for q in world["questions"]]
    assert {h: hops.count(h) for h in (1, 2, 3)} == {1: 50, 2: 60, 3: 50}
    texts = [q["question"] for q in world["questions"]]
    assert len(texts) == len(dict.fromkeys(texts)), "duplicate question"

    by_id = {f["id"]: f for f in world["facts"]}
    index_of = {f["id"]: i for i, f in enumerate(world["facts"])}
    for q, meta in zip(world["questions"], questions, strict=True):
        assert len(q["gold"]) == q["hops"] == len(meta["path"])
        assert len(set(q["gold"])) == len(q["gold"])
        nodes = meta["nodes"]
        # The chain is connected: fact i links node i to node i+1, and says so in its text.
        for i, fid in enumerate(q["gold"]):
            fact = facts[index_of[fid]]
            assert fact["edge"] is not None
            _rel, subj, obj = fact["edge"]
            assert sorted([subj, obj]) == sorted([nodes[i], nodes[i + 1]]), q
            named_here = mentions(by_id[fid]["content"], patterns)
            assert nodes[i] in named_here and nodes[i + 1] in named_here, q
        # The answer is unique, found again by brute force over all edges.
        reach = ends(nodes[0], meta["path"], edges)
        assert reach == [nodes[-1]], (q["question"], reach)
        # The question names its start entity and nothing on the chain after it.
        named_q = mentions(q["question"], patterns, ignore_case=True)
        assert nodes[0] in named_q, q["question"]
        for later in nodes[1:]:
            assert later not in named_q, f"question gives away the chain: {q['question']}"

    # Questions often name a person differently from the first gold fact.
    people_q = [m for m in questions if ent[m["nodes"][0]]["kind"] == "person"]
    differ = sum(1 for m in people_q if m["form"] != m["gold_form"])
    assert differ >= 0.6 * len(people_q), (differ, len(people_q))
    used_forms = [m["form"] for m in people_q]
    for form in PERSON_FORMS:
        assert form in used_forms, f"no question names a person by {form}"


# ---------------------------------------------------------------------------------------


def main():
    rng = random.Random(SEED)
    ent = build_entities()
    edges = build_edges()
    facts = relation_facts(rng, ent, edges) + distractor_facts(rng, ent, edges)
    rng.shuffle(facts)
    for i, fact in enumerate(facts):
        fact["id"] = f"mw{i + 1:04d}"
    fwd, back = graph_maps(edges)
    edge_index = edge_fact_index(facts)
    questions = build_questions(rng, ent, facts, fwd, back, edge_index)
    rng.shuffle(questions)
    world = {
        "facts": [{"id": f["id"], "content": f["content"]} for f in facts],
        "questions": [
            {
                "question": q["question"],
                "hops": q["hops"],
                "gold": [facts[i]["id"] for i in q["gold"]],
            }
            for q in questions
        ],
    }
    self_check(ent, edges, facts, questions, world)
    data = json.dumps(world, indent=1, ensure_ascii=False) + "\n"
    OUT.write_text(data, encoding="utf-8")
    n_rel = sum(1 for f in facts if f["edge"])
    hops = [q["hops"] for q in world["questions"]]
    print(f"facts: {len(facts)} ({n_rel} relation, {len(facts) - n_rel} distractor)")
    print(
        f"questions: {len(hops)} (1-hop {hops.count(1)}, 2-hop {hops.count(2)}, 3-hop {hops.count(3)})"
    )
    print(f"md5 {hashlib.md5(data.encode('utf-8')).hexdigest()}  {OUT.name}")


if __name__ == "__main__":
    main()
