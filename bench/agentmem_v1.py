"""The previous agent-memory generator (issue 10), kept to check recall loses nothing on it.

One pool of phrasings for facts and questions, which recall was tuned on: not held out
(``agentmem.py`` is). quality.py measures its seed 1 as ``agent-v1``.

A synthetic multi-hop set of the memories a coding or operations agent keeps.

Short facts about a fictional software organisation: services and what they depend on, who owns
them, which datastore they write to, people's teams and cities, team leads, datastore regions,
runbooks and decisions. Every relation is phrased several ways, service names are written as an
agent writes them (``billing-api``, ``Billing API``, ``billing_api``, "the ledger service"), and
distractor facts talk about the same entities (languages, latencies, incidents, preferences).

Questions ask for one, two or three relations chained; the gold of each is the chain of facts.
Each service has exactly one upstream dependency, one owner and one datastore, so every chain
has one answer. Two seeds give two independent worlds: tune on one, check on the other.

    from agentmem import world
    facts, questions = world(seed=1)        # facts: dicts for remember_many
    python bench/agentmem.py --seed 1       # print a sample
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
_LANGS = ("Go", "Rust", "Kotlin", "Python", "TypeScript", "Java", "Elixir")

# Each relation phrased several ways; {s} a service, {p} a person, {t} a team, {d} a datastore.
_DEPENDS = (
    "{s} depends on {u}.",
    "{s} calls {u} for every request.",
    "{s} cannot start without {u} being reachable.",
    "The upstream of {s} is {u}.",
    "{s} talks to {u} over gRPC.",
    "if {u} is down, {s} fails its health checks",
    "{s} -> {u}: synchronous dependency",
)
_OWNS = (
    "{s} is owned by {p}.",
    "{p} owns {s}.",
    "{p} is the owner of {s}.",
    "{p} maintains {s} and approves its releases.",
    "owner of {s}: {p}",
    "Ask {p} about anything in {s}, they own it.",
)
_STORES = (
    "{s} writes to {d}.",
    "{s} keeps its data in {d}.",
    "{s} persists state in the {d} datastore.",
    "datastore for {s} is {d}",
    "{s} reads and writes {d}.",
)
_MEMBER = (
    "{p} is on the {t} team.",
    "{p} works in team {t}.",
    "{p} joined the {t} team last year.",
    "{p} is a member of {t}.",
    "team of {p}: {t}",
)
_LEADS = (
    "The {t} team is led by {p}.",
    "{p} leads {t}.",
    "{p} is the lead of the {t} team.",
    "{t} team lead: {p}",
)
_PERSON_CITY = (
    "{p} is based in {c}.",
    "{p} works from the {c} office.",
    "{p} lives in {c}.",
)
_REGION = (
    "{d} is hosted in {r}.",
    "{d} runs in {r}.",
    "the {d} cluster lives in region {r}",
    "{d} was moved to {r}.",
)
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


def world(seed: int, services: int = 40, people: int = 36) -> tuple[list[dict], list[dict]]:
    """Facts (dicts for ``remember_many``) and questions (question, hops, gold fact ids)."""
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
    for d in stores:
        w.region[d] = rng.choice(_REGIONS)

    facts: list[dict] = []
    key: dict[tuple[str, str], str] = {}

    def add(text: str, relation: str | None = None, subject: str | None = None) -> None:
        fid = f"f{len(facts)}"
        facts.append({"id": fid, "content": text, "kind": "fact"})
        if relation:
            key[(relation, subject)] = fid  # type: ignore[index]

    for s in names:
        add(_sentence(rng.choice(_DEPENDS), rng, s=_written(s, rng), u=_written(w.depends[s], rng)),
            "depends", s)  # fmt: skip
        add(_sentence(rng.choice(_OWNS), rng, s=_written(s, rng), p=w.owner[s]), "owner", s)
        add(_sentence(rng.choice(_STORES), rng, s=_written(s, rng), d=w.datastore[s]), "ds", s)
        for template in rng.sample(_DISTRACT_SERVICE, 3):
            add(_sentence(template, rng, s=_written(s, rng), lang=rng.choice(_LANGS),
                          n=str(rng.randint(3, 90)), port=str(rng.randint(8000, 9900)),
                          slug=s, k=str(rng.randint(2, 12))))  # fmt: skip
    for p in persons:
        add(_sentence(rng.choice(_MEMBER), rng, p=p, t=w.team[p]), "team", p)
        add(_sentence(rng.choice(_PERSON_CITY), rng, p=p, c=w.city[p]), "city", p)
        add(_sentence(rng.choice(_DISTRACT_PERSON), rng, p=p))
    for t in teams:
        add(_sentence(rng.choice(_LEADS), rng, t=t, p=w.lead[t]), "lead", t)
        for template in rng.sample(_DISTRACT_TEAM, 2):
            add(_sentence(template, rng, t=t))
    for d in stores:
        add(_sentence(rng.choice(_REGION), rng, d=d, r=w.region[d]), "region", d)
        add(_sentence(rng.choice(_DISTRACT_DS), rng, d=d, n=str(rng.randint(20, 95))))
    order = list(range(len(facts)))
    rng.shuffle(order)  # memories arrive in no particular order
    facts = [facts[i] for i in order]
    return facts, _questions(w, key, rng)


# (hops, templates, chain of relations from the service)
_CHAINS: tuple[tuple[int, tuple[str, ...], tuple[str, ...]], ...] = (
    (1, ("Who owns {s}?", "who is the owner of {s}"), ("owner",)),
    (1, ("What does {s} depend on?", "which service does {s} call?"), ("depends",)),
    (1, ("Where does {s} store its data?", "which datastore does {s} write to"), ("ds",)),
    (2, ("Who owns the service that {s} depends on?",
         "who is responsible for the upstream of {s}?"), ("depends", "owner")),
    (2, ("Which team is the owner of {s} on?", "what team does whoever owns {s} work in"),
     ("owner", "team")),
    (2, ("In which region is the datastore of {s} hosted?",
         "where does the database {s} writes to run"), ("ds", "region")),
    (2, ("Which city is the owner of {s} based in?",), ("owner", "city")),
    (3, ("Which team is the owner of the service {s} depends on part of?",
         "what team owns, through its owner, the upstream of {s}"), ("depends", "owner", "team")),
    (3, ("Which region hosts the datastore of the service that {s} calls?",),
     ("depends", "ds", "region")),
    (3, ("Who leads the team of the person who owns {s}?",), ("owner", "team", "lead")),
)  # fmt: skip


def _questions(w: World, key: dict[tuple[str, str], str], rng: random.Random) -> list[dict]:
    follow = {"depends": w.depends, "owner": w.owner, "ds": w.datastore, "team": w.team,
              "city": w.city, "lead": w.lead, "region": w.region}  # fmt: skip
    out = []
    for s in w.services:
        for hops, templates, chain in rng.sample(_CHAINS, 4):
            node, gold = s, []
            for relation in chain:
                gold.append(key[(relation, node)])
                node = follow[relation][node]
            q = rng.choice(templates).format(s=_written(s, rng).removeprefix("the "))
            out.append({"question": q[0].upper() + q[1:], "hops": hops, "gold": gold})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--n", type=int, default=15)
    args = parser.parse_args()
    facts, questions = world(args.seed)
    print(f"{len(facts)} facts, {len(questions)} questions")
    for f in facts[: args.n]:
        print(json.dumps(f))
    for q in questions[: args.n]:
        print(json.dumps(q))


if __name__ == "__main__":
    main()
