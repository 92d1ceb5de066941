"""A synthetic multi-hop set of the memories a coding or operations agent keeps.

Short facts about a fictional software organisation: services and what they depend on, who owns
them, which datastore they write to, people's teams and cities, team leads, datastore regions,
team chat channels. Service names are written as an agent writes them (``billing-api``,
``Billing API``, ``billing_api``, "the ledger service"), and distractor facts talk about the same
entities (languages, latencies, incidents, preferences).

Phrasing is held out: every relation has two disjoint pools of phrasings (``DEV`` and ``TEST``,
six or more each: active, passive, a clause, another verb, an indirect statement, a terse note),
and so do the questions (``QUESTIONS``: plain, possessive, relative clause, "which ... does ...
use"; dev and test each have all four). The dev world (seed 1, dev pools) is what recall may be
tuned on; the test world (seed 2, test pools, written before any result was seen) is only
measured, and so is a third world (seed 3, ``THIRD`` pools, written after both) that checks a
change carries over to wording neither was tuned on.

Questions ask for one, two or three relations chained; the gold of each is the chain of facts.
Each service has exactly one upstream dependency, one owner and one datastore, so every chain
has one answer. ``agentmem_v1.py`` is the previous generator (one pool of phrasings).

    from agentmem import world
    facts, questions = world(seed=1, split="dev")   # facts: dicts for remember_many
    python bench/agentmem.py --seed 2 --split test  # print a sample
"""

from __future__ import annotations

import argparse
import json
import random
from dataclasses import dataclass, field

_HEADS = (
    "billing", "ledger", "checkout", "catalog", "invoice", "payout", "refund", "fraud",
    "shipment", "warehouse", "pricing", "coupon", "loyalty", "session", "identity", "consent",
    "mailer", "sms", "push", "webhook", "scheduler", "reporting", "forecast", "quota", "audit",
    "search", "recommend", "media", "thumbnail", "geocode", "tax", "currency", "subscription",
    "cart", "wishlist", "review", "inventory", "settlement", "kyc", "ratelimit", "feature",
    "export", "importer", "metering", "tenant", "avatar", "profile", "onboarding", "partner",
)  # fmt: skip
_TAILS = ("", "", "api", "worker", "svc", "gateway")
_FIRST = (
    "Carla", "Bruno", "Chen", "Dana", "Emeka", "Farah", "Greta", "Hiro", "Ines", "Jonas",
    "Kavya", "Liam", "Mei", "Nadia", "Omar", "Priya", "Quentin", "Rosa", "Sven", "Tariq",
    "Uma", "Viktor", "Wen", "Ximena", "Yusuf", "Zoe", "Aaron", "Bea", "Dmitri", "Elif",
    "Felix", "Gita", "Hana", "Ivo", "Jade", "Kofi", "Lena", "Marek", "Noor", "Otto",
)  # fmt: skip
_LAST = (
    "Mendes", "Okafor", "Lindqvist", "Moreau", "Tanaka", "Novak", "Haddad", "Silva", "Kowalski",
    "Ferreira", "Nguyen", "Schmidt", "Rossi", "Patel", "Costa", "Berg", "Ivanova", "Adeyemi",
    "Brandt", "Castillo", "Dubois", "Eriksen", "Fischer", "Gomez", "Horvat", "Jensen",
)  # fmt: skip
_TEAMS = (
    "Payments", "Platform", "Growth", "Storefront", "Risk", "Logistics", "Messaging",
    "Data Infra", "Identity", "Insights", "Fulfilment", "Developer Experience",
)  # fmt: skip
_CITIES = (
    "Lisbon", "Toronto", "Nairobi", "Osaka", "Krakow", "Austin", "Dublin", "Porto", "Seoul",
    "Tallinn", "Bogota", "Leeds", "Utrecht", "Adelaide",
)  # fmt: skip
_DS_KINDS = ("pg", "redis", "kafka", "mongo", "es", "mysql")
_REGIONS = ("eu-west-1", "eu-central-1", "us-east-1", "us-west-2", "ap-south-1", "sa-east-1")
_CHANNEL_TAILS = ("help", "oncall", "eng", "support")
_LANGS = ("Go", "Rust", "Kotlin", "Python", "TypeScript", "Java", "Elixir")

# Each relation phrased in two disjoint pools of at least six: DEV, the phrasings recall may be
# tuned on, and TEST, written before any result was seen and never tuned on. Each pool covers
# the active and the passive voice, a clause, another verb, an indirect statement and a terse
# note. {s} a service, {u} its upstream, {p} a person, {t} a team, {d} a datastore, {c} a
# city, {r} a region, {ch} a chat channel.
DEV = {
    "depends": (
        "{s} depends on {u}.",
        "{u} is called by {s} on every request.",
        "{s} cannot start without {u} being reachable.",
        "The upstream of {s} is {u}.",
        "if {u} is down, {s} fails its health checks",
        "{s} talks to {u} over gRPC.",
        "{s} -> {u}: synchronous dependency",
    ),
    "owner": (
        "{p} owns {s}.",
        "{s} is owned by {p}.",
        "{p} is the owner of {s}.",
        "{p} maintains {s} and approves its releases.",
        "Ask {p} about anything in {s}, they own it.",
        "owner of {s}: {p}",
    ),
    "ds": (
        "{s} writes to {d}.",
        "{d} holds the records of {s}.",
        "{s} persists state in the {d} datastore.",
        "{s} keeps its data in {d}.",
        "{s} reads and writes {d}.",
        "datastore for {s} is {d}",
    ),
    "team": (
        "{p} is on the {t} team.",
        "The {t} team includes {p}.",
        "{p} joined the {t} team last year.",
        "{p} works in team {t}.",
        "{p} is a member of {t}.",
        "team of {p}: {t}",
    ),
    "city": (
        "{p} is based in {c}.",
        "{c} is home to {p}.",
        "{p} works from the {c} office.",
        "{p} moved to {c} two years ago.",
        "{p} lives in {c}.",
        "location of {p}: {c}",
    ),
    "lead": (
        "{p} leads {t}.",
        "The {t} team is led by {p}.",
        "{p} is the lead of the {t} team.",
        "{p} runs the {t} team.",
        "{t} reports to {p}.",
        "{t} team lead: {p}",
    ),
    "region": (
        "{d} is hosted in {r}.",
        "{r} hosts {d}.",
        "the {d} cluster lives in region {r}",
        "{d} was moved to {r}.",
        "{d} runs in {r}.",
        "region of {d}: {r}",
    ),
    "channel": (
        "{t} answers in {ch}.",
        "{ch} belongs to the {t} team.",
        "Post in {ch} to reach the {t} team.",
        "{t} uses {ch} for questions.",
        "The {t} team's channel is {ch}.",
        "channel for {t}: {ch}",
    ),
}  # fmt: skip
TEST = {
    "depends": (
        "{s} calls {u} synchronously.",
        "{u} is a hard dependency of {s}.",
        "When {u} has an outage, {s} goes down with it.",
        "Requests to {s} fan out to {u}.",
        "{s} needs {u} to serve traffic.",
        "{s} is built on top of {u}.",
        "upstream for {s}: {u}",
    ),
    "owner": (
        "{p} is responsible for {s}.",
        "{s} is maintained by {p}.",
        "Questions about {s} go to {p}.",
        "{p} looks after {s}.",
        "If {s} breaks, page {p}.",
        "{s} belongs to {p}.",
        "{s} - point of contact: {p}",
    ),
    "ds": (
        "{s} stores everything in {d}.",
        "{d} is written to by {s}.",
        "{d} is where {s} saves its state.",
        "All of {s}'s tables live in {d}.",
        "{s} is backed by the {d} database.",
        "database of {s}: {d}",
    ),
    "team": (
        "{p} reports into {t}.",
        "{t} hired {p} in the spring.",
        "{p} belongs to the {t} group.",
        "{p} sits with the {t} folks.",
        "{p}'s team is {t}.",
        "{p} - {t} team",
    ),
    "city": (
        "{p} works remotely from {c}.",
        "You'll find {p} in {c}.",
        "{p}'s desk is in the {c} office.",
        "{p} relocated to {c}.",
        "{p} is located in {c}.",
        "{p} ({c})",
    ),
    "lead": (
        "{p} manages the {t} team.",
        "The {t} team is managed by {p}.",
        "Escalations for the {t} team go to {p}, its manager.",
        "{p} heads {t}.",
        "{p} is in charge of {t}.",
        "manager of {t}: {p}",
    ),
    "region": (
        "{d} is deployed in {r}.",
        "{r} is where {d} runs.",
        "{d} sits in the {r} region.",
        "{d} was provisioned in {r}.",
        "{d} lives in {r} now.",
        "{d} ({r})",
    ),
    "channel": (
        "{t} hangs out in {ch}.",
        "{ch} is monitored by {t}.",
        "Questions for {t} go to {ch}.",
        "Reach the {t} team in {ch}.",
        "{ch} is the {t} team's Slack channel.",
        "{t} can be found on {ch}.",
    ),
}  # fmt: skip
# A third pool of phrasings (with QUESTIONS["third"]), written after the other two and not
# tuned on: a check that recall generalises to wording neither dev nor test has.
THIRD = {
    "depends": (
        "{s} relies on {u}.",
        "{u} sits upstream of {s}.",
        "Without {u}, {s} cannot serve requests.",
        "{s} sends its requests to {u}.",
        "{s} is a client of {u}.",
        "{s} breaks whenever {u} is unavailable.",
    ),
    "owner": (
        "{p} takes care of {s}.",
        "{s} is looked after by {p}.",
        "Contact {p} for anything about {s}.",
        "{p} is the maintainer of {s}.",
        "{p} is in charge of {s}.",
        "{s} is the responsibility of {p}.",
    ),
    "ds": (
        "{s} keeps its records in {d}.",
        "{d} stores the data of {s}.",
        "{s} saves everything to {d}.",
        "{s} uses {d} as its storage backend.",
        "The data of {s} lives in {d}.",
        "{s} puts its rows in {d}.",
    ),
    "team": (
        "{p} is part of {t}.",
        "{t} counts {p} among its engineers.",
        "{p} works for the {t} group.",
        "{p} was transferred to {t}.",
        "{p} is in {t}.",
        "{p} is one of the {t} engineers.",
    ),
    "city": (
        "{p} has an apartment in {c}.",
        "{p} is stationed in {c}.",
        "{p} commutes to the {c} office.",
        "{p} settled in {c}.",
        "{p} calls {c} home.",
        "{c} is where {p} works.",
    ),
    "lead": (
        "{p} is the boss of {t}.",
        "{t} is headed by {p}.",
        "{p} directs the {t} group.",
        "{p} is the head of {t}.",
        "{t} answers to {p}.",
        "{p} became head of {t} this year.",
    ),
    "region": (
        "{d} resides in {r}.",
        "{d} is located in {r}.",
        "{r} is home to {d}.",
        "{d} was set up in {r}.",
        "{d} is in the {r} region.",
        "{d} operates out of {r}.",
    ),
    "channel": (
        "{t} chats in {ch}.",
        "{ch} is where {t} talks.",
        "To contact {t}, write in {ch}.",
        "{t} reads {ch} every day.",
        "{t} keeps an eye on {ch}.",
        "{ch} is the chat room of {t}.",
    ),
}  # fmt: skip
PHRASINGS = {"dev": DEV, "test": TEST, "third": THIRD}
_DISTRACT_SERVICE = (
    "{s} is written in {lang}.",
    "{s} p99 latency is {n} ms.",
    "{s} had an outage on a Tuesday after a bad config push.",
    "{s} exposes metrics on port {port}.",
    "deploys of {s} go out on Thursdays",
    "{s} logs are noisy at debug level; keep it at info.",
    "The {s} docs live in docs/{slug}/README.md.",
    "{s} has {n} open bugs in the tracker.",
    "{s} runs {k} replicas in production.",
)
_DISTRACT_PERSON = (
    "{p} prefers code reviews in the morning.",
    "{p} is on holiday next week.",
    "{p} wrote the onboarding guide.",
    "{p} likes dark mode in every tool.",
)
_DISTRACT_TEAM = (
    "The {t} team has standup at 9:30.",
    "{t} team retro is every other Friday.",
    "{t} uses a kanban board.",
)
_DISTRACT_DS = (
    "{d} backups run nightly at 02:00 UTC.",
    "{d} disk usage is at {n}%.",
    "{d} was upgraded last month.",
)


@dataclass
class World:
    services: list[str]
    depends: dict[str, str] = field(default_factory=dict)
    owner: dict[str, str] = field(default_factory=dict)
    datastore: dict[str, str] = field(default_factory=dict)
    team: dict[str, str] = field(default_factory=dict)
    city: dict[str, str] = field(default_factory=dict)
    lead: dict[str, str] = field(default_factory=dict)
    region: dict[str, str] = field(default_factory=dict)
    channel: dict[str, str] = field(default_factory=dict)


def _written(service: str, rng: random.Random) -> str:
    """A service name as an agent might write it this time."""
    parts = service.split("-")
    title = " ".join(p.upper() if p in ("api", "sms", "kyc") else p.capitalize() for p in parts)
    form = rng.random()
    if form < 0.45:
        return service
    if form < 0.6:
        return "_".join(parts)
    if form < 0.8:
        return title if len(parts) > 1 else f"the {title} service"
    return f"the {service} service"


def _sentence(template: str, rng: random.Random, **names: str) -> str:
    text = template.format(**names)
    return text[0].upper() + text[1:] if rng.random() < 0.5 else text


def world(
    seed: int, split: str = "dev", services: int = 40, people: int = 36
) -> tuple[list[dict], list[dict]]:
    """Facts (dicts for ``remember_many``) and questions (question, hops, gold fact ids), all
    phrased from the ``split`` pool ("dev" or "test")."""
    phrasing, asking = PHRASINGS[split], QUESTIONS[split]
    rng = random.Random(seed)
    heads = rng.sample(_HEADS, services)
    names = [h if (t := rng.choice(_TAILS)) == "" else f"{h}-{t}" for h in heads]
    persons = [f"{f} {last}" for f, last in zip(rng.sample(_FIRST, people),
                                                  rng.choices(_LAST, k=people), strict=True)]  # fmt: skip
    teams = rng.sample(_TEAMS, 8)
    stores = [f"{rng.choice(_DS_KINDS)}-{h}" for h in rng.sample(_HEADS, 14)]
    w = World(names)
    for i, s in enumerate(names):
        w.depends[s] = rng.choice(names[:i] + names[i + 1 :])
        w.owner[s] = rng.choice(persons)
        w.datastore[s] = rng.choice(stores)
    for p in persons:
        w.team[p] = rng.choice(teams)
        w.city[p] = rng.choice(_CITIES)
    for t in teams:
        w.lead[t] = rng.choice([p for p in persons if w.team[p] == t] or persons)
        w.channel[t] = f"#{t.lower().replace(' ', '-')}-{rng.choice(_CHANNEL_TAILS)}"
    for d in stores:
        w.region[d] = rng.choice(_REGIONS)

    facts: list[dict] = []
    key: dict[tuple[str, str], str] = {}

    def add(text: str, relation: str | None = None, subject: str | None = None) -> None:
        fid = f"f{len(facts)}"
        facts.append({"id": fid, "content": text, "kind": "fact"})
        if relation:
            key[(relation, subject)] = fid  # type: ignore[index]

    def say(relation: str, subject: str, **names: str) -> None:
        add(_sentence(rng.choice(phrasing[relation]), rng, **names), relation, subject)

    for s in names:
        say("depends", s, s=_written(s, rng), u=_written(w.depends[s], rng))
        say("owner", s, s=_written(s, rng), p=w.owner[s])
        say("ds", s, s=_written(s, rng), d=w.datastore[s])
        for template in rng.sample(_DISTRACT_SERVICE, 3):
            add(_sentence(template, rng, s=_written(s, rng), lang=rng.choice(_LANGS),
                          n=str(rng.randint(3, 90)), port=str(rng.randint(8000, 9900)),
                          slug=s, k=str(rng.randint(2, 12))))  # fmt: skip
    for p in persons:
        say("team", p, p=p, t=w.team[p])
        say("city", p, p=p, c=w.city[p])
        add(_sentence(rng.choice(_DISTRACT_PERSON), rng, p=p))
    for t in teams:
        say("lead", t, t=t, p=w.lead[t])
        say("channel", t, t=t, ch=w.channel[t])
        for template in rng.sample(_DISTRACT_TEAM, 2):
            add(_sentence(template, rng, t=t))
    for d in stores:
        say("region", d, d=d, r=w.region[d])
        add(_sentence(rng.choice(_DISTRACT_DS), rng, d=d, n=str(rng.randint(20, 95))))
    order = list(range(len(facts)))
    rng.shuffle(order)  # memories arrive in no particular order
    facts = [facts[i] for i in order]
    return facts, _questions(w, key, rng, asking)


# Questions, per chain of relations from a service, in two disjoint pools like the facts: the
# plain question, the possessive ("X's owner's team"), the relative clause ("the team of the
# person who owns X") and "which ... does ... use". TEST was written before any result was seen.
_CHAINS = (
    ("owner",), ("depends",), ("ds",),
    ("depends", "owner"), ("owner", "team"), ("ds", "region"), ("owner", "city"),
    ("depends", "owner", "team"), ("depends", "ds", "region"), ("owner", "team", "lead"),
    ("owner", "team", "channel"),
)  # fmt: skip
QUESTIONS: dict[str, dict[tuple[str, ...], tuple[str, ...]]] = {
    "dev": {
        ("owner",): ("Who owns {s}?", "who is the owner of {s}", "Name {s}'s owner."),
        ("depends",): ("What does {s} depend on?", "which service does {s} call?",
                       "Tell me {s}'s dependency."),
        ("ds",): ("Where does {s} store its data?", "which datastore does {s} write to",
                  "which store does {s} use to keep its data"),
        ("depends", "owner"): ("Who owns the service that {s} depends on?",
                               "who is responsible for the upstream of {s}?",
                               "Who owns {s}'s dependency?"),
        ("owner", "team"): ("Which team is the owner of {s} on?",
                            "what team does whoever owns {s} work in",
                            "Which team is {s}'s owner in?"),
        ("ds", "region"): ("In which region is the datastore of {s} hosted?",
                           "where does the database {s} writes to run",
                           "Which region is {s}'s datastore hosted in?"),
        ("owner", "city"): ("Which city is the owner of {s} based in?",
                            "What city is {s}'s owner based in?"),
        ("depends", "owner", "team"): (
            "Which team is the owner of the service {s} depends on part of?",
            "what team owns, through its owner, the upstream of {s}",
            "Which team is the owner of {s}'s dependency on?"),
        ("depends", "ds", "region"): (
            "Which region hosts the datastore of the service that {s} calls?",
            "Where is the datastore of {s}'s dependency hosted?"),
        ("owner", "team", "lead"): ("Who leads the team of the person who owns {s}?",
                                    "Who leads {s}'s owner's team?"),
        ("owner", "team", "channel"): (
            "Which channel does the team of the owner of {s} use?",
            "Where does {s}'s owner's team answer questions?"),
    },
    "test": {
        ("owner",): ("Who is responsible for {s}?", "Who is {s}'s owner?",
                     "which person should I ask about {s}"),
        ("depends",): ("Which service does {s} use upstream?",
                       "What is {s}'s upstream dependency?"),
        ("ds",): ("Which datastore does {s} use?", "what is {s}'s database"),
        ("depends", "owner"): ("Who is the owner of {s}'s upstream service?",
                               "who maintains the service {s} calls"),
        ("owner", "team"): ("What is the team of {s}'s owner?",
                            "Which team does the person who owns {s} belong to?"),
        ("ds", "region"): ("Which region does {s}'s datastore run in?",
                           "what region hosts the database that {s} uses"),
        ("owner", "city"): ("Where is {s}'s owner located?",
                            "In which city does the person responsible for {s} work?"),
        ("depends", "owner", "team"): (
            "Which team does the owner of {s}'s upstream belong to?",
            "what team is the person who maintains the service {s} calls on"),
        ("depends", "ds", "region"): (
            "In which region does the database of {s}'s upstream run?",),
        ("owner", "team", "lead"): ("Who manages the team of {s}'s owner?",
                                    "who is the lead of the team that {s}'s owner is on"),
        ("owner", "team", "channel"): (
            "Which channel should I post in to reach the team of {s}'s owner?",),
    },
    # A third pool, written after dev and test, to check that what was built on dev carries
    # over to wording neither was tuned on (agent-third in quality.py).
    "third": {
        ("owner",): ("Whom do I contact about {s}?", "{s} is whose responsibility?",
                     "who takes care of {s}"),
        ("depends",): ("What does {s} rely on?", "Which upstream does {s} need?",
                       "what is {s} downstream of"),
        ("ds",): ("Where does {s} keep its records?", "{s}'s storage backend?",
                  "which database holds {s}'s data"),
        ("depends", "owner"): ("Who takes care of what {s} relies on?",
                               "whom do I contact about {s}'s upstream"),
        ("owner", "team"): ("Which group is {s}'s maintainer part of?",
                            "what team is the person in charge of {s} in"),
        ("ds", "region"): ("Where is the database that holds {s}'s data hosted?",
                           "which region is {s}'s storage in"),
        ("owner", "city"): ("Which office is the person looking after {s} in?",
                            "what city does {s}'s maintainer live in"),
        ("depends", "owner", "team"): (
            "What group does the maintainer of {s}'s upstream work for?",),
        ("depends", "ds", "region"): (
            "Which region holds the database behind the service {s} relies on?",),
        ("owner", "team", "lead"): ("Who is the boss of the team {s}'s maintainer is in?",),
        ("owner", "team", "channel"): (
            "Where can I reach the team of the person who looks after {s}?",),
    },
}  # fmt: skip


def _questions(
    w: World,
    key: dict[tuple[str, str], str],
    rng: random.Random,
    asking: dict[tuple[str, ...], tuple[str, ...]],
) -> list[dict]:
    follow = {"depends": w.depends, "owner": w.owner, "ds": w.datastore, "team": w.team,
              "city": w.city, "lead": w.lead, "region": w.region, "channel": w.channel}  # fmt: skip
    out = []
    for s in w.services:
        for chain in rng.sample(_CHAINS, 4):
            node, gold = s, []
            for relation in chain:
                gold.append(key[(relation, node)])
                node = follow[relation][node]
            q = rng.choice(asking[chain]).format(s=_written(s, rng).removeprefix("the "))
            out.append({"question": q[0].upper() + q[1:], "hops": len(chain), "gold": gold})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--split", choices=sorted(PHRASINGS), default="dev")
    parser.add_argument("--n", type=int, default=15)
    args = parser.parse_args()
    facts, questions = world(args.seed, args.split)
    print(f"{len(facts)} facts, {len(questions)} questions")
    for f in facts[: args.n]:
        print(json.dumps(f))
    for q in questions[: args.n]:
        print(json.dumps(q))


if __name__ == "__main__":
    main()
