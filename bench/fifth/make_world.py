#!/usr/bin/env python3
"""Generate a held-out memory-retrieval world (facts + multi-hop questions).

Deterministic (seed 5555), standard library only.  Writes world.json next to
this file.  Run:  python3 make_world.py
"""

import json
import os
import random
import re

SEED = 5555
rng = random.Random(SEED)
HERE = os.path.dirname(os.path.abspath(__file__))

# --------------------------------------------------------------------------
# Entities
# --------------------------------------------------------------------------
SERVICES = [
    # kebab-case
    "ledger-sync",
    "checkout-api",
    "cart-merge",
    "price-oracle",
    "notif-dispatch",
    "session-broker",
    "geo-resolve",
    "media-transcode",
    "pdf-stamper",
    "recs-ranker",
    "audit-trail",
    # snake_case
    "invoice_renderer",
    "refund_worker",
    "search_indexer",
    "tax_calc",
    "email_digest",
    "shipping_quotes",
    # CamelCase
    "QuotaKeeper",
    "FeatureGate",
    "PartnerHub",
    "AuthBridge",
    "LinkShortener",
    "ReviewModeration",
    # spaced Title Case
    "Partner Gateway",
    "Order History",
    "Catalog Importer",
    "Loyalty Engine",
    "Push Relay",
    # "the X job"
    "the nightly reconcile job",
    "the ledger rollup job",
    "the sitemap rebuild job",
    "the churn export job",
    # "X svc"
    "geo svc",
    "avatar svc",
    "billing svc",
    "consent svc",
    # abbreviations
    "CRS",
    "TAPS",
    "OMS",
    "KYCD",
]

PEOPLE = [  # (full name, handle)
    ("Priya Raman", "@praman"),
    ("Tomasz Kowalski", "@tkowalski"),
    ("Amara Okafor", "@aokafor"),
    ("Diego Fernández", "@dfernandez"),
    ("Mei Chen", "@mchen"),
    ("Lars Nilsson", "@lnilsson"),
    ("Fatima Benali", "@fbenali"),
    ("Kenji Watanabe", "@kwatanabe"),
    ("Olusegun Adeyemi", "@oadeyemi"),
    ("Sofia Rossi", "@srossi"),
    ("Hamid Karimi", "@hkarimi"),
    ("Ingrid Halvorsen", "@ihalvorsen"),
    ("Rahul Deshpande", "@rdeshpande"),
    ("Chloé Martin", "@cmartin"),
    ("Kwame Mensah", "@kmensah"),
    ("Yuki Tanaka", "@ytanaka"),
    ("Marta Nowak", "@mnowak"),
    ("Jonah Feldman", "@jfeldman"),
    ("Aisha Mohammed", "@amohammed"),
    ("Bruno Costa", "@bcosta"),
    ("Lucía Romero", "@lromero"),
    ("Arjun Mehta", "@amehta"),
    ("Hana Novak", "@hnovak"),
    ("Emeka Obi", "@eobi"),
    ("Siobhan Walsh", "@swalsh"),
    ("Dmitri Volkov", "@dvolkov"),
    ("Zeynep Arslan", "@zarslan"),
    ("Mateo Silva", "@msilva"),
    ("Nadia Haddad", "@nhaddad"),
    ("Oskar Berg", "@oberg"),
    ("Thandiwe Ndlovu", "@tndlovu"),
    ("Ravi Iyer", "@riyer"),
    ("Camille Dubois", "@cdubois"),
    ("Tariq Aziz", "@taziz"),
    ("Wen Zhao", "@wzhao"),
    ("Esther Cohen", "@ecohen"),
]

TEAMS = [  # (team, channel)
    ("Payments squad", "#pay-squad"),
    ("Platform Infra", "#plat-infra"),
    ("Growth team", "#growth-eng"),
    ("Data Platform", "#data-plat"),
    ("Identity & Access", "#iam-team"),
    ("Search and Discovery", "#search-disco"),
    ("Mobile Core", "#mobile-core"),
    ("Trust & Safety", "#trust-safety"),
]

STORAGE = [  # (name, kind)
    ("orders-pg", "Postgres database"),
    ("sess-cache", "Redis cache"),
    ("kafka-main", "Kafka cluster"),
    ("acme-exports", "S3 bucket"),
    ("chx-analytics", "ClickHouse cluster"),
    ("mongo-profiles", "MongoDB cluster"),
    ("raw-uploads", "GCS bucket"),
    ("es-search-02", "Elasticsearch cluster"),
    ("notif-queue", "SQS queue"),
    ("ddb-flags", "DynamoDB table"),
    ("cass-timeline", "Cassandra ring"),
    ("rmq-jobs", "RabbitMQ broker"),
    ("ledger-db", "CockroachDB cluster"),
    ("mc-edge", "Memcached pool"),
]

REGIONS = ["eu-west-1", "us-east-2", "ap-southeast-1", "fra1", "us-west-2", "sgp-dc2"]
CITIES = ["Lisbon", "Toronto", "Bangalore", "Austin", "Berlin", "Nairobi", "Melbourne"]

# --------------------------------------------------------------------------
# Relation tables (ground truth)
# --------------------------------------------------------------------------
team_names = [t for t, _ in TEAMS]
channel_of = {t: c for t, c in TEAMS}
team_of_channel = {c: t for t, c in TEAMS}
person_names = [p for p, _ in PEOPLE]
handle_of = {p: h for p, h in PEOPLE}
first_of = {p: p.split()[0] for p in person_names}
kind_of = {s: k for s, k in STORAGE}
storage_names = [s for s, _ in STORAGE]

people = person_names[:]
rng.shuffle(people)
# person -> team: round-robin over a shuffled list => 4-5 per team
team_of = {p: team_names[i % len(team_names)] for i, p in enumerate(people)}
# team -> lead: one member of each team
lead_of = {}
for t in team_names:
    members = [p for p in people if team_of[p] == t]
    lead_of[t] = rng.choice(members)
team_led_by = {v: k for k, v in lead_of.items()}
city_of = {p: rng.choice(CITIES) for p in people}

# storage -> region
region_of = {}
regs = REGIONS[:] * 3
rng.shuffle(regs)
for i, st in enumerate(storage_names):
    region_of[st] = regs[i]

# services: dependency DAG, owner, storage
svc_order = SERVICES[:]
rng.shuffle(svc_order)
dep_of = {}
for i, s in enumerate(svc_order):
    if i < 4:
        continue  # roots
    # bias toward recent services to get deeper chains
    lo = max(0, i - 12)
    dep_of[s] = svc_order[rng.randrange(lo, i)]

non_leads = [p for p in people if p not in team_led_by]
owner_pool = non_leads * 2 + list(team_led_by)
rng.shuffle(owner_pool)
owner_of = {}
for i, s in enumerate(svc_order):
    owner_of[s] = owner_pool[i]
stor_pool = storage_names * 3
rng.shuffle(stor_pool)
storage_of = {s: stor_pool[i] for i, s in enumerate(svc_order)}


# --------------------------------------------------------------------------
# Mentions / aliases
# --------------------------------------------------------------------------
def aliases(ent):
    typ, name = ent
    if typ == "person":
        return [name, first_of[name], handle_of[name]]
    if typ == "service" and name.startswith("the "):
        return [name[4:]]
    return [name]


def _pat(a):
    return re.compile(r"(?<![\w@#-])" + re.escape(a) + r"(?![\w-])", re.IGNORECASE)


ALL_ENTS = (
    [("service", s) for s in SERVICES]
    + [("person", p) for p in person_names]
    + [("team", t) for t in team_names]
    + [("channel", c) for _, c in TEAMS]
    + [("storage", s) for s in storage_names]
    + [("region", r) for r in REGIONS]
    + [("city", c) for c in CITIES]
)
PATS = {e: [_pat(a) for a in aliases(e)] for e in ALL_ENTS}


def mentions(text, ent):
    return any(p.search(text) for p in PATS[ent])


def mentioned_entities(text):
    return {e for e in ALL_ENTS if mentions(text, e)}


def pm(p, full_w=0.55, first_w=0.25):
    """Render a person mention: full name, first name or handle."""
    x = rng.random()
    if x < full_w:
        return p
    if x < full_w + first_w:
        return first_of[p]
    return handle_of[p]


def cap(text):
    return text[0].upper() + text[1:] if text.startswith("the ") else text


# --------------------------------------------------------------------------
# Phrasings for relation facts
# --------------------------------------------------------------------------
PHR = {
    "dep": [  # {a} depends on {b}
        "{a} → {b} (sync HTTP on every request)",
        "{a} calls {b} to get what it needs.",
        "{b} gets called by {a} on the hot path.",
        "depends_on: {a} -> {b}",
        "Note to self: {a} has exactly one upstream, and it's {b}.",
        "Incident recap: {a} degraded for twenty minutes because {b}, which it consumes from, was mid-redeploy.",
        "The only upstream dependency of {a} is {b}.",
        "If {b} goes down, {a} goes down with it, since it reads everything from {b}.",
        "{a} consumes the events that {b} publishes.",
        "Arch review notes: we walked through the call graph and confirmed that {a} reads from {b}.",
        "{a}: upstream = {b}",
        "Onboarding tip: to debug {a}, start by checking {b}, because that is the service it depends on.",
        "remember that {b} sits directly upstream of {a}",
        "service: {a} | depends_on: [{b}]",
        "After a long afternoon of tracing timeouts across three dashboards with the on-call, we finally agreed the slow calls from {a} were all going to {b}.",
    ],
    "owner": [  # {s} owned by {p}
        "{s}: owned by {p}",
        "{p} owns {s}.",
        "{s} is {p}'s baby — ask them anything about it.",
        "service={s} owner={p}",
        "Who's on call for {s}? Always {p}, as the owner.",
        "Deploys of {s} need sign-off from {p}, who owns it.",
        "{s} is maintained by {p}.",
        "Note to self: escalate anything about {s} to {p}; it's their service.",
        "1:1 with {p} today; among other things they confirmed they are the owner of {s} and want to be tagged on every change to it.",
        "The pager for {s} goes to {p}.",
        "{p} → owns → {s}",
        "Ownership of {s} was handed over last quarter, and it now sits with {p}.",
        "Anything touching {s} needs a thumbs-up from {p}, the service owner.",
        "If you're looking for the person who wrote most of {s} and still owns it, that's {p}.",
    ],
    "storage": [  # {s} stores in {st}
        "{s} stores its data in {st}.",
        "{s} writes to {st}.",
        "{s}.storage = {st}",
        "{st} is the backing store for {s}.",
        "Note to self: {s} persists everything to {st}, so any maintenance on that {kind} affects it.",
        "The data behind {s} lives in {st}.",
        "During last week's incident {s} started erroring because {st}, where it keeps its state, hit its connection limit.",
        "{s} ⇒ {st} ({kind})",
        "If you need {s}'s records, query {st} directly; that's where they live.",
        "Remember: {st} is read and written by {s}.",
        "Config snippet for {s}: `datastore: {st}`",
        "Onboarding doc says {s} keeps its state in the {st} {kind}.",
        "When we sketched the data flow on the whiteboard, the last box on the right, where {s} finally lands its writes, was {st}.",
    ],
    "pteam": [  # {p} in team {t}
        "{p} is on {t}.",
        "{p} — {t}",
        "{t} includes {p}.",
        "team({p}) = {t}",
        "{p} moved into {t} earlier this year and has stayed there.",
        "Note to self: {p} sits in {t}, so route their requests through that team's board.",
        "At the all-hands, {p} was introduced as a member of {t}.",
        "{p} works in {t}.",
        "member_of: {p} -> {t}",
        "{t} counts {p} among its engineers.",
        "{p}'s team is {t}.",
        "Heads up: {p} belongs to {t}.",
        "The roster I was shown for {t} had {p} on it.",
    ],
    "pcity": [  # {p} based in {c}
        "{p} is based in {c}.",
        "{p} works out of the {c} office.",
        "{p} — {c}",
        "location: {p} @ {c}",
        "The {c} office is home base for {p}.",
        "Note to self: {p} is in {c}, so mind the timezone when scheduling.",
        "{p} commutes to our {c} office most days.",
        "Badge records list {p} at the {c} site.",
        "{p}'s desk is in {c}.",
        "Anyone in {c} can grab {p} for coffee — that's where they work.",
        "{p} (office: {c})",
        "Per the HR directory, {p}'s home office is {c}.",
    ],
    "lead": [  # {t} led by {p}
        "{t} is led by {p}.",
        "{p} leads {t}.",
        "{t} lead: {p}",
        "Escalation path for {t}: go to {p}, the team lead.",
        "{p} manages {t}.",
        "Note to self: headcount and priority questions for {t} go to {p}, who runs the team.",
        "{p} is the engineering manager of {t}.",
        "Reorg memo: {t} now reports to {p}.",
        "team: {t} | manager: {p}",
        "The person running {t} is {p}.",
        "{p} heads up {t}.",
        "If {t} needs a decision made, {p} makes it as team lead.",
    ],
    "chan": [  # {t} uses channel {c}
        "{t} hangs out in {c}.",
        "{t}'s channel is {c}.",
        "{c} is the home channel of {t}.",
        "To reach {t}, post in {c}.",
        "slack: {t} -> {c}",
        "Note to self: {t} announcements and questions go in {c}.",
        "{c} belongs to {t}.",
        "team={t} channel={c}",
        "If you need {t}, ping them in {c}.",
        "{t} coordinates everything in {c}.",
        "The Slack channel for {t} is {c}.",
    ],
    "region": [  # {st} in region {r}
        "{st} lives in {r}.",
        "{st} is deployed to {r}.",
        "{st}: region {r}",
        "{r} hosts {st}.",
        "Note to self: {st} is in {r}, so cross-region reads to it are expensive.",
        "The primary for {st} ({kind}) runs in {r}.",
        "{st} @ {r}",
        'terraform: module "{st}" {{ region = "{r}" }}',
        "We provisioned {st} in {r}.",
        "During the {r} brownout, {st} was affected because that's where it runs.",
        "location of {st}: {r}",
        "{st} is physically located in {r}.",
    ],
}


class Deck:
    """Deal templates in shuffled rounds so every phrasing gets used."""

    def __init__(self, items):
        self.items = list(items)
        self.pool = []

    def draw(self):
        if not self.pool:
            self.pool = self.items[:]
            rng.shuffle(self.pool)
        return self.pool.pop()


DECKS = {k: Deck(v) for k, v in PHR.items()}

facts = []  # dicts: content, kind, edge (ent, ent) or None
edge_fact = {}  # (relname, x) -> fact index


def add_rel(rel, x_ent, y_ent, **kw):
    text = cap(DECKS[rel].draw().format(**kw))
    facts.append({"content": text, "rel": rel, "edge": (x_ent, y_ent)})
    edge_fact[(rel, x_ent[1])] = len(facts) - 1


def S(n):
    return ("service", n)


def P(n):
    return ("person", n)


def T(n):
    return ("team", n)


def C(n):
    return ("channel", n)


def ST(n):
    return ("storage", n)


def R(n):
    return ("region", n)


def CI(n):
    return ("city", n)


for s in svc_order:
    if s in dep_of:
        add_rel("dep", S(s), S(dep_of[s]), a=s, b=dep_of[s])
    add_rel("owner", S(s), P(owner_of[s]), s=s, p=pm(owner_of[s]))
    st = storage_of[s]
    add_rel("storage", S(s), ST(st), s=s, st=st, kind=kind_of[st])
for p in people:
    add_rel("pteam", P(p), T(team_of[p]), p=pm(p), t=team_of[p])
    add_rel("pcity", P(p), CI(city_of[p]), p=pm(p), c=city_of[p])
for t in team_names:
    add_rel("lead", T(t), P(lead_of[t]), t=t, p=pm(lead_of[t]))
    add_rel("chan", T(t), C(channel_of[t]), t=t, c=channel_of[t])
for st in storage_names:
    add_rel("region", ST(st), R(region_of[st]), st=st, r=region_of[st], kind=kind_of[st])

n_rel = len(facts)

# --------------------------------------------------------------------------
# Distractors (same entities, no relation stated)
# --------------------------------------------------------------------------
LANGS = ["Go", "Rust", "Kotlin", "Python 3.11", "TypeScript", "Java 21", "Elixir"]
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


def other_person(*exclude):
    return rng.choice([p for p in person_names if p not in exclude])


def d_svc_single():
    s = rng.choice(SERVICES)
    n = rng.randint(2, 9)
    opts = [
        f"{s} is written in {rng.choice(LANGS)}.",
        f"{s} p99 latency sits around {rng.randint(40, 900)}ms on a normal weekday.",
        f"{s} costs roughly ${rng.randint(3, 60) * 100}/month in compute.",
        f"INC-{rng.randint(1000, 9999)}: {s} returned 502s for {rng.randint(4, 40)} minutes after a bad config push; rolled back.",
        f"Deploys of {s} are frozen on Fridays after 3pm.",
        f"{s} runs {n} replicas in production and autoscales to {n * 3}.",
        f"{s} has a flaky integration test (test_retry_backoff) that fails about 1 run in {rng.randint(10, 40)}.",
        f"{s} was last load-tested in {rng.choice(MONTHS)}; it held {rng.randint(2, 30)}k rps.",
        f"The error budget for {s} is {rng.choice(['99.9', '99.5', '99.95'])}% monthly.",
        f"{s} emits its metrics under the prefix {s.replace(' ', '_').lower().replace('the_', '')}.*",
        f"Reminder: {s} still depends on an unmaintained YAML library; upgrade ticket is open.",
        f"{s} moved to the new CI runners in {rng.choice(MONTHS)} and builds are ~{rng.randint(20, 60)}% faster.",
    ]
    t = rng.choice(opts)
    return t, [S(s)]


def d_svc_pair():
    a, b = rng.sample(SERVICES, 2)
    opts = [
        f"{a} and {b} were migrated to the new base image in the same sprint.",
        f"{a}'s error rate is roughly twice {b}'s, according to last month's SLO report.",
        f"Don't deploy {a} and {b} in the same change window — their canaries share a dashboard and it gets confusing.",
        f"{a} and {b} both still log in plain text instead of JSON.",
        f"We considered merging {a} into {b} at the offsite but decided against it.",
        f"Code freeze for {a} and {b} starts on the 14th.",
        f"{a} has more open Dependabot PRs than {b}, which is saying something.",
    ]
    return rng.choice(opts), [S(a), S(b)]


def d_person_single():
    p = rng.choice(person_names)
    m = pm(p)
    opts = [
        f"{m} prefers async updates over meetings.",
        f"{m} is out on leave from {rng.choice(MONTHS)} to {rng.choice(MONTHS)}.",
        f"{m} gave the brown-bag talk on flame graphs.",
        f"{m} joined the company in {rng.randint(2015, 2024)}.",
        f"{m} is vegetarian (note for the team lunch order).",
        f"{m} likes PR descriptions with screenshots.",
        f"{m} is running the internal chess tournament this quarter.",
        f"{m} asked me to stop summarising their messages in bullet points.",
        f"{m} is the go-to person for questions about our Terraform style guide.",
    ]
    return rng.choice(opts), [P(p)]


def d_person_svc():
    s = rng.choice(SERVICES)
    p = other_person(owner_of[s])
    m = pm(p)
    opts = [
        f"{m} reviewed the retry-policy PR for {s}.",
        f"{m} wrote the postmortem for the {s} outage in {rng.choice(MONTHS)}.",
        f"{m} once suggested rewriting {s} in Rust; nobody took it up.",
        f"{m} complained that {s}'s README is out of date.",
        f"{m} used {s} as the example in their onboarding talk.",
        f"{m} found the memory leak in {s} while profiling something else.",
    ]
    return rng.choice(opts), [P(p), S(s)]


def d_person_pair():
    a, b = rng.sample(person_names, 2)
    ma, mb = pm(a), pm(b)
    opts = [
        f"{ma} and {mb} pair-program on Tuesdays.",
        f"{ma} is mentoring {mb} on Kubernetes networking.",
        f"{ma} and {mb} both spoke at KubeCon this year.",
        f"{ma} owes {mb} a coffee after the last on-call swap.",
        f"{ma} and {mb} co-wrote the RFC on structured logging.",
        f"{ma} interviewed {mb} back when they joined.",
    ]
    return rng.choice(opts), [P(a), P(b)]


def d_person_city():
    p = rng.choice(person_names)
    c = rng.choice([x for x in CITIES if x != city_of[p]])
    m = pm(p)
    opts = [
        f"{m} is visiting the {c} office next week for the planning offsite.",
        f"{m} is giving a meetup talk in {c} in {rng.choice(MONTHS)}.",
        f"{m} recommended a ramen place near the {c} office.",
    ]
    return rng.choice(opts), [P(p), CI(c)]


def d_person_team():
    p = rng.choice(person_names)
    t = rng.choice([x for x in team_names if x != team_of[p]])
    m = pm(p)
    opts = [
        f"{m} is sitting in on {t}'s interview loop as a bar-raiser.",
        f"{m} gave {t} a demo of the new tracing setup.",
        f"{m} has an open question for {t} about their release cadence.",
    ]
    return rng.choice(opts), [P(p), T(t)]


def d_team_single():
    t = rng.choice(team_names)
    opts = [
        f"{t} holds its retro every other Thursday.",
        f"{t} has a quarterly OKR to cut toil by 20%.",
        f"{t} is hiring two backend engineers.",
        f"{t} won the internal hackathon with a Slack bot that summarises incidents.",
        f"{t} does demos on the last Friday of each month.",
    ]
    return rng.choice(opts), [T(t)]


def d_team_svc():
    s = rng.choice(SERVICES)
    t = rng.choice([x for x in team_names if x != team_of[owner_of[s]]])
    opts = [
        f"{t} is planning to adopt {s}'s client library next quarter.",
        f"{t} asked for a read-only dashboard of {s}'s metrics.",
        f"{t} filed three bugs against {s} this sprint.",
    ]
    return rng.choice(opts), [T(t), S(s)]


def d_channel():
    c = rng.choice([c for _, c in TEAMS])
    opts = [
        f"{c} is muted on weekends by convention.",
        f"{c} has a bot that posts the daily error-budget burn.",
        f"{c} pins the current on-call rotation spreadsheet.",
        f"{c} was renamed twice last year.",
    ]
    return rng.choice(opts), [C(c)]


def d_storage_single():
    st = rng.choice(storage_names)
    k = kind_of[st]
    opts = [
        f"{st} is at {rng.randint(55, 92)}% disk usage; a resize ticket is open.",
        f"Backups of {st} are taken every {rng.choice([1, 4, 6, 12])}h and kept for 30 days.",
        f"{st} ({k}) is due for a minor-version upgrade in {rng.choice(MONTHS)}.",
        f"{st} had a {rng.randint(2, 25)}-minute failover drill that went fine.",
        f"{st} costs about ${rng.randint(5, 90) * 100}/month.",
    ]
    return rng.choice(opts), [ST(st)]


def d_storage_svc():
    s = rng.choice(SERVICES)
    st = rng.choice([x for x in storage_names if x != storage_of[s]])
    opts = [
        f"{st} and {s} are both on the Q3 cost-review list.",
        f"The {st} maintenance window overlaps with {s}'s release train, which is annoying but harmless.",
        f"{s}'s dashboards were built by copying the {st} dashboard template.",
    ]
    return rng.choice(opts), [ST(st), S(s)]


def d_storage_region():
    st = rng.choice(storage_names)
    r = rng.choice([x for x in REGIONS if x != region_of[st]])
    opts = [
        f"Cross-region replication of {st} into {r} was evaluated and rejected as too expensive.",
        f"Someone proposed moving {st} to {r}; the proposal is parked.",
    ]
    return rng.choice(opts), [ST(st), R(r)]


def d_region():
    r = rng.choice(REGIONS)
    opts = [
        f"{r} had a partial AZ outage on 2024-0{rng.randint(1, 9)}-{rng.randint(10, 28)}.",
        f"Spot instance prices in {r} spiked last week.",
        f"{r} is the default region in the sandbox accounts.",
    ]
    return rng.choice(opts), [R(r)]


def d_city():
    c = rng.choice(CITIES)
    opts = [
        f"The {c} office is closed for renovation in {rng.choice(MONTHS)}.",
        f"The {c} office has free lunch on Wednesdays.",
        f"The {c} office Wi-Fi password rotates monthly; ask facilities.",
    ]
    return rng.choice(opts), [CI(c)]


DISTRACTORS = [  # (generator, weight)
    (d_svc_single, 16),
    (d_svc_pair, 12),
    (d_person_single, 12),
    (d_person_svc, 14),
    (d_person_pair, 9),
    (d_person_city, 5),
    (d_person_team, 5),
    (d_team_single, 5),
    (d_team_svc, 5),
    (d_channel, 3),
    (d_storage_single, 7),
    (d_storage_svc, 5),
    (d_storage_region, 3),
    (d_region, 3),
    (d_city, 3),
]
n_dis = round(n_rel * 0.4 / 0.6)
seen = {f["content"] for f in facts}
gens = [g for g, _ in DISTRACTORS]
weights = [w for _, w in DISTRACTORS]
while len(facts) < n_rel + n_dis:
    g = rng.choices(gens, weights)[0]
    text, ents = g()
    text = cap(text)
    if text in seen:
        continue
    seen.add(text)
    facts.append({"content": text, "rel": None, "edge": None, "ents": ents})

# shuffle & assign ids
order = list(range(len(facts)))
rng.shuffle(order)
fid = {}
out_facts = []
for new_i, old_i in enumerate(order):
    fid[old_i] = f"k{new_i}"
    out_facts.append({"id": f"k{new_i}", "content": facts[old_i]["content"]})
by_id = {fid[i]: facts[i] for i in range(len(facts))}

# --------------------------------------------------------------------------
# Questions
# --------------------------------------------------------------------------
# A chain is a list of (relation, direction) steps.  'f' = forward table lookup,
# 'r' = reverse lookup (only where the reverse is unique).
STEP = {
    "dep": lambda x: dep_of.get(x),
    "owner": lambda x: owner_of.get(x),
    "storage": lambda x: storage_of.get(x),
    "pteam": lambda x: team_of.get(x),
    "pcity": lambda x: city_of.get(x),
    "lead": lambda x: lead_of.get(x),
    "chan": lambda x: channel_of.get(x),
    "region": lambda x: region_of.get(x),
    "chan_r": lambda x: team_of_channel.get(x),
    "lead_r": lambda x: team_led_by.get(x),
}
ETYPE = {
    "dep": "service",
    "owner": "person",
    "storage": "storage",
    "pteam": "team",
    "pcity": "city",
    "lead": "person",
    "chan": "channel",
    "region": "region",
    "chan_r": "team",
    "lead_r": "team",
}


def walk(start, steps):
    chain = [start]
    for st in steps:
        nxt = STEP[st](chain[-1])
        if nxt is None:
            return None
        chain.append(nxt)
    return chain


def gold_for(chain, steps):
    g = []
    for i, st in enumerate(steps):
        if st == "chan_r":
            g.append(fid[edge_fact[("chan", chain[i + 1])]])
        elif st == "lead_r":
            g.append(fid[edge_fact[("lead", chain[i + 1])]])
        else:
            g.append(fid[edge_fact[(st, chain[i])]])
    return g


Q = {}  # name -> (start type, steps, count, filter, templates)


def qdef(name, start, steps, count, templates, filt=None):
    Q[name] = (start, steps, count, filt or (lambda c: True), templates)


# ---- 1 hop ----
qdef(
    "dep",
    "service",
    ["dep"],
    7,
    [
        "What does {x} call upstream?",
        "which service does {x} depend on",
        "{x} upstream",
        "Before I touch {x}'s client config: what service is it talking to?",
        "What's the upstream dependency of {x}?",
        "If I trace a request through {x}, which service does it hit next?",
        "{x} depends on what?",
        "Which service feeds {x}?",
    ],
)
qdef(
    "owner",
    "service",
    ["owner"],
    8,
    [
        "Who owns {x}?",
        "who is the owner of {x}",
        "{x} owner",
        "I'm about to change {x}'s retry settings. Whose approval do I need?",
        "Who gets paged when {x} breaks?",
        "Whose service is {x}?",
        "Who should I ask about {x}?",
        "who maintains {x}",
        "Before I restart {x}, who do I need to tell?",
    ],
)
qdef(
    "storage",
    "service",
    ["storage"],
    7,
    [
        "Where does {x} keep its data?",
        "{x} datastore",
        "What storage system backs {x}?",
        "which db, queue or bucket does {x} write to",
        "I need to look at {x}'s persisted records. Which store do I query?",
        "what does {x} persist to",
    ],
)
qdef(
    "pteam",
    "person",
    ["pteam"],
    7,
    [
        "What team is {x} on?",
        "{x} team",
        "Which squad does {x} belong to?",
        "which team does {x} work in",
        "{x} pinged me about a bug. Which team are they with?",
    ],
)
qdef(
    "pcity",
    "person",
    ["pcity"],
    6,
    [
        "Where is {x} based?",
        "{x} office location",
        "Which office does {x} work from?",
        "what city is {x} in",
        "I want to grab lunch with {x} in person. Which office should I go to?",
    ],
)
qdef(
    "lead",
    "team",
    ["lead"],
    4,
    ["Who leads {x}?", "{x} manager", "Who runs {x}?", "who is the lead of {x}"],
)
qdef(
    "chan",
    "team",
    ["chan"],
    3,
    ["Which Slack channel does {x} use?", "{x} channel", "Where do I ping {x}?"],
)
qdef(
    "region",
    "storage",
    ["region"],
    4,
    [
        "Which region is {x} in?",
        "{x} region",
        "Where is {x} hosted?",
        "what data centre does {x} run in",
    ],
)
qdef("chan_r", "channel", ["chan_r"], 2, ["Which team uses {x}?", "whose channel is {x}"])
qdef(
    "lead_r", "person", ["lead_r"], 2, ["Which team does {x} lead?", "what team is managed by {x}"]
)

# ---- 2 hops ----
qdef(
    "owner_team",
    "service",
    ["owner", "pteam"],
    8,
    [
        "Which team owns {x}?",
        "What team is {x}'s owner on?",
        "{x} owner team",
        "The person who owns {x}: which squad are they in?",
        "which team would I file a ticket with for {x}",
        "Which team does the owner of {x} belong to?",
    ],
)
qdef(
    "owner_city",
    "service",
    ["owner", "pcity"],
    7,
    [
        "Where is the owner of {x} based?",
        "{x} owner location",
        "In which office does {x}'s owner sit?",
        "If I wanted to talk to {x}'s owner face to face, which city would I need to be in?",
        "what city is the person who owns {x} in",
    ],
)
qdef(
    "storage_region",
    "service",
    ["storage", "region"],
    8,
    [
        "Which region does {x}'s data live in?",
        "{x} data region",
        "In what region is the datastore that {x} writes to?",
        "For a data-residency review: which region holds the store behind {x}?",
        "where is the storage for {x} hosted",
    ],
)
qdef(
    "dep_owner",
    "service",
    ["dep", "owner"],
    8,
    [
        "Who owns the service that {x} depends on?",
        "{x} upstream owner",
        "{x} is failing because its upstream is flaky. Who owns that upstream?",
        "whose service does {x} call",
        "Who should I page if the thing {x} calls goes down?",
    ],
    lambda c: owner_of[c[1]] != owner_of[c[0]],
)
qdef(
    "dep_storage",
    "service",
    ["dep", "storage"],
    7,
    [
        "Which datastore does {x}'s upstream use?",
        "where does the service {x} depends on keep its data",
        "{x} upstream storage",
        "Which store does the service that {x} reads from write to?",
    ],
    lambda c: storage_of[c[1]] != storage_of[c[0]],
)
qdef(
    "dep_dep",
    "service",
    ["dep", "dep"],
    5,
    [
        "What does {x}'s upstream depend on?",
        "two hops upstream of {x}",
        "Which service is called by the service that {x} calls?",
        "what's the dependency of {x}'s dependency",
    ],
)
qdef(
    "team_lead",
    "person",
    ["pteam", "lead"],
    6,
    [
        "Who is {x}'s manager?",
        "who leads {x}'s team",
        "{x} team lead",
        "I need to escalate something {x} is blocked on. Who runs their team?",
        "Who is the lead of the team that {x} is on?",
    ],
    lambda c: c[2] != c[0],
)
qdef(
    "team_chan",
    "person",
    ["pteam", "chan"],
    5,
    [
        "Which channel does {x}'s team use?",
        "{x} team channel",
        "Where should I post to reach {x}'s whole team?",
        "what slack channel does the team {x} works in hang out in",
    ],
)
qdef(
    "lead_city",
    "team",
    ["lead", "pcity"],
    3,
    [
        "Where is the lead of {x} based?",
        "{x} lead office",
        "Which city does the person who runs {x} work from?",
    ],
)
qdef(
    "chanr_lead",
    "channel",
    ["chan_r", "lead"],
    3,
    [
        "Who leads the team that uses {x}?",
        "{x} team manager",
        "Who is in charge of the team that hangs out in {x}?",
    ],
)

# ---- 3 hops ----
qdef(
    "owner_team_lead",
    "service",
    ["owner", "pteam", "lead"],
    9,
    [
        "Who manages the owner of {x}?",
        "If {x}'s owner is unreachable, who is their team lead?",
        "{x} owner team lead",
        "Who leads the team of the person who owns {x}?",
        "{x} is on fire and its owner isn't answering. Who do I escalate to?",
        "escalation for {x} above the owner",
    ],
    lambda c: c[3] != c[1],
)
qdef(
    "owner_team_chan",
    "service",
    ["owner", "pteam", "chan"],
    8,
    [
        "Before I restart {x}, I want to warn its owner's team. Which channel do I post in?",
        "{x} owner team channel",
        "Which Slack channel belongs to the team of {x}'s owner?",
        "where do I ping the team whose member owns {x}",
        "What channel does the team that owns {x} use?",
    ],
)
qdef(
    "dep_owner_team",
    "service",
    ["dep", "owner", "pteam"],
    7,
    [
        "Which team owns the upstream of {x}?",
        "{x} upstream owner team",
        "What team is the owner of {x}'s dependency on?",
        "The service {x} depends on is misbehaving. Which team does its owner belong to?",
    ],
    lambda c: team_of[owner_of[c[0]]] != c[3],
)
qdef(
    "dep_storage_region",
    "service",
    ["dep", "storage", "region"],
    8,
    [
        "Which region hosts the datastore of the service {x} depends on?",
        "{x} upstream storage region",
        "which region does the thing {x} calls store its data in",
        "For latency reasons: in which region does {x}'s upstream keep its data?",
    ],
    lambda c: region_of[storage_of[c[0]]] != c[3],
)
qdef(
    "dep_owner_city",
    "service",
    ["dep", "owner", "pcity"],
    6,
    [
        "Where is the owner of {x}'s upstream based?",
        "{x} upstream owner city",
        "Which office does the person who owns the service {x} calls work from?",
    ],
    lambda c: city_of[owner_of[c[0]]] != c[3],
)
qdef(
    "dep_dep_owner",
    "service",
    ["dep", "dep", "owner"],
    5,
    [
        "Who owns the service two hops upstream of {x}?",
        "whose service does {x}'s upstream depend on",
        "Who owns whatever {x}'s dependency calls?",
    ],
    lambda c: c[3] not in (owner_of[c[0]], owner_of[c[1]]),
)
qdef(
    "team_lead_city",
    "person",
    ["pteam", "lead", "pcity"],
    4,
    [
        "Where is {x}'s manager based?",
        "{x} team lead location",
        "Which city does the lead of {x}'s team work in?",
    ],
    lambda c: c[2] != c[0] and c[3] != city_of[c[0]],
)
qdef(
    "dep_dep_storage",
    "service",
    ["dep", "dep", "storage"],
    3,
    [
        "Where does the upstream of {x}'s upstream store its data?",
        "{x} second-order upstream datastore",
        "Which store does the service behind {x}'s dependency write to?",
    ],
    lambda c: c[3] not in (storage_of[c[0]], storage_of[c[1]]),
)

STARTS = {
    "service": SERVICES,
    "person": person_names,
    "team": team_names,
    "channel": [c for _, c in TEAMS],
    "storage": storage_names,
}

questions = []
qtexts = set()
for name, (stype, steps, count, filt, templates) in Q.items():
    cands = []
    for x in STARTS[stype]:
        ch = walk(x, steps)
        if ch is None or len(set(ch)) != len(ch) or not filt(ch):
            continue
        cands.append(ch)
    rng.shuffle(cands)
    deck = Deck(templates)
    made = 0
    for ch in cands:
        if made >= count:
            break
        x = ch[0]
        xm = pm(x, 0.6, 0.2) if stype == "person" else x
        q = deck.draw().format(x=xm)
        if rng.random() < 0.08:  # occasional lower-case, no punctuation
            q = q.lower().rstrip("?").replace("?", "").replace(":", "")
        q = cap(q)
        if q in qtexts:
            continue
        qtexts.add(q)
        questions.append(
            {
                "question": q,
                "hops": len(steps),
                "gold": gold_for(ch, steps),
                "answer": ch[-1],
                "_chain": ch,
                "_steps": steps,
                "_stype": stype,
            }
        )
        made += 1
    if made < count:
        print(f"WARNING: only {made}/{count} questions for {name}")

rng.shuffle(questions)

# --------------------------------------------------------------------------
# Self-checks
# --------------------------------------------------------------------------
ETYPE_OF_START = {
    "service": "service",
    "person": "person",
    "team": "team",
    "channel": "channel",
    "storage": "storage",
}
# one fact per relation edge
n_edges = (
    len(dep_of)
    + len(owner_of)
    + len(storage_of)
    + len(team_of)
    + len(city_of)
    + len(lead_of)
    + len(channel_of)
    + len(region_of)
)
assert n_edges == n_rel == len(edge_fact), (n_edges, n_rel, len(edge_fact))
# each relation fact mentions exactly its two entities (no stray mentions)
for f in facts:
    if f["rel"]:
        got = mentioned_entities(f["content"])
        want = set(f["edge"])
        assert got == want, (f["content"], got, want)
    else:
        got = mentioned_entities(f["content"])
        assert got == set(f["ents"]), (f["content"], got, f["ents"])
# questions: walk the gold facts from start to answer
for q in questions:
    ch, steps = q["_chain"], q["_steps"]
    assert q["hops"] == len(q["gold"]) == len(steps)
    types = [q["_stype"]] + [ETYPE[s] for s in steps]
    ents = list(zip(types, ch, strict=False))
    assert mentions(q["question"], ents[0]), q["question"]
    for i, g in enumerate(q["gold"]):
        f = by_id[g]
        assert f["rel"] is not None
        assert mentions(f["content"], ents[i]) and mentions(f["content"], ents[i + 1]), (
            q["question"],
            f["content"],
            ents[i],
            ents[i + 1],
        )
        assert set(f["edge"]) == {ents[i], ents[i + 1]}
    assert ch[-1] == q["answer"]
assert 350 <= len(out_facts) <= 450, len(out_facts)
assert len({q["question"] for q in questions}) == len(questions)

world = {
    "facts": out_facts,
    "questions": [{k: v for k, v in q.items() if not k.startswith("_")} for q in questions],
}
with open(os.path.join(HERE, "world.json"), "w", encoding="utf-8") as fh:
    json.dump(world, fh, ensure_ascii=False, indent=1)

hop_counts = {h: sum(1 for q in questions if q["hops"] == h) for h in (1, 2, 3)}
print(f"facts: {len(out_facts)} (relation {n_rel}, distractor {len(out_facts) - n_rel})")
print(f"questions: {len(questions)} by hops {hop_counts}")
print(
    f"entities: {len(SERVICES)} services, {len(person_names)} people, {len(team_names)} teams, "
    f"{len(storage_names)} stores, {len(REGIONS)} regions, {len(CITIES)} cities"
)
print("self-check OK")
