"""A deterministic synthetic corpus of agent memories, shared by the speed and ingest benchmarks.

Facts, preferences, procedures, episodes, corrections and negatives, written from templates
over a few hundred entities (services, people, projects, tools, file paths, environments) with
random versions, ports and numbers. Items carry tags (project, service, person, topic), some
belong to a project or a session, and negatives carry triggers, so a store built from them has
realistic tag hubs, sequence links within sessions, related-memory links and a few conflicts.

    from corpus import memories, queries
    items = memories(10_000, seed=7)      # dicts for GraphMemory.remember_many
    qs = queries(200, seed=11)            # questions an agent would ask of that store

    python bench/corpus.py --n 20          # print a sample
"""

from __future__ import annotations

import argparse
import json
import random
from dataclasses import dataclass

# ---------------------------------------------------------------------------------- vocabulary

_SERVICE_HEADS = (
    "auth", "billing", "search", "payments", "inventory", "notifications", "checkout", "catalog",
    "profile", "ledger", "reporting", "gateway", "scheduler", "ingest", "export", "media",
    "pricing", "shipping", "feature-flags", "audit",
)  # fmt: skip
_SERVICE_TAILS = ("service", "api", "worker", "indexer")
_FIRST = (
    "Alice", "Bruno", "Chen", "Dana", "Emeka", "Farah", "Greta", "Hiro", "Ines", "Jonas",
    "Kavya", "Liam", "Mei", "Nadia", "Omar", "Priya", "Quentin", "Rosa", "Sven", "Tariq",
    "Uma", "Viktor", "Wen", "Ximena", "Yusuf", "Zoe", "Aaron", "Bea", "Carlos", "Dmitri",
)  # fmt: skip
_LAST = (
    "Okafor", "Lindqvist", "Moreau", "Tanaka", "Novak", "Haddad", "Silva", "Kowalski",
    "Ferreira", "Nguyen", "Schmidt", "Rossi", "Patel", "Costa", "Berg", "Ivanova",
)  # fmt: skip
_PROJECTS = (
    "Atlas", "Borealis", "Cobalt", "Driftwood", "Ember", "Falcon", "Granite", "Harbor", "Iris",
    "Juniper", "Kestrel", "Lumen", "Meridian", "Nimbus", "Orchid", "Polaris", "Quartz",
    "Redwood", "Sierra", "Tundra", "Umbra", "Vortex", "Willow", "Zephyr",
)  # fmt: skip
_TOOLS = (
    "PostgreSQL", "Redis", "Kafka", "RabbitMQ", "Elasticsearch", "ClickHouse", "MongoDB",
    "Nginx", "Envoy", "Terraform", "Ansible", "Kubernetes", "Helm", "ArgoCD", "Prometheus",
    "Grafana", "Sentry", "Datadog", "Vault", "Consul", "Airflow", "Celery", "gRPC", "GraphQL",
    "FastAPI", "Django", "Flask", "React", "Vite", "Webpack", "pytest", "Ruff", "mypy", "Poetry",
    "uv", "Docker", "Bazel", "GitHub Actions", "Jenkins", "S3", "MinIO", "SQLite", "DuckDB",
    "Snowflake", "dbt", "Spark",
)  # fmt: skip
_DATASTORES = (
    "PostgreSQL",
    "Redis",
    "MongoDB",
    "Elasticsearch",
    "ClickHouse",
    "SQLite",
    "DuckDB",
    "S3",
    "MinIO",
    "Snowflake",
    "Kafka",
)
_RESTARTABLE = (
    "PostgreSQL",
    "Redis",
    "Kafka",
    "RabbitMQ",
    "Elasticsearch",
    "Nginx",
    "Envoy",
    "Vault",
    "Consul",
    "Airflow",
    "Celery",
    "Prometheus",
    "Grafana",
)
_TEAMS = ("platform", "payments", "growth", "data", "infra", "mobile", "security", "search")
_ENVS = ("production", "staging", "dev", "eu-west", "us-east", "canary")
_DIRS = ("src", "services", "deploy", "config", "scripts", "infra/terraform", "docs", "tests")
_FILES = (
    "settings.yaml", "values.yaml", "docker-compose.yml", "Makefile", "main.py", "config.toml",
    "alerts.yaml", "schema.sql", "migrate.py", "README.md", "pipeline.yml", "limits.json",
)  # fmt: skip
_STYLES = (
    "small pull requests", "squash merges", "rebase workflows", "type hints everywhere",
    "tabs", "four-space indentation", "snake_case file names", "explicit error types",
    "integration tests", "feature flags", "trunk-based development", "written design docs",
    "async code", "dataclasses", "plain SQL", "an ORM", "monorepos", "short commit messages",
)  # fmt: skip
_CAUSES = (
    "a full disk on the primary", "an expired TLS certificate", "a bad config push",
    "connection pool exhaustion", "a memory leak in the worker", "a DNS misconfiguration",
    "a slow migration locking the table", "a noisy neighbour on the node", "a retry storm",
    "a missing index", "clock skew between nodes", "a dependency upgrade",
)  # fmt: skip
_TOPICS = ("deploy", "oncall", "incident", "config", "testing", "review", "database", "perf",
           "security", "release", "monitoring", "cost")  # fmt: skip
_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December")  # fmt: skip


@dataclass(frozen=True)
class Vocabulary:
    """The entities one corpus is written over."""

    services: tuple[str, ...]
    people: tuple[str, ...]
    projects: tuple[str, ...]
    tools: tuple[str, ...]
    paths: tuple[str, ...]

    def size(self) -> int:
        return sum(len(x) for x in (self.services, self.people, self.projects, self.tools,
                                    self.paths))  # fmt: skip


def vocabulary(seed: int = 7) -> Vocabulary:
    """~400 entities: 80 services, 120 people, 24 projects, 46 tools, 130 file paths."""
    rng = random.Random(seed)
    services = tuple(f"{h}-{t}" for h in _SERVICE_HEADS for t in _SERVICE_TAILS)
    people = sorted({f"{rng.choice(_FIRST)} {rng.choice(_LAST)}" for _ in range(400)})
    rng.shuffle(people)
    paths = sorted({f"{rng.choice(_DIRS)}/{rng.choice(services).split('-')[0]}/{rng.choice(_FILES)}"
                    for _ in range(400)})  # fmt: skip
    rng.shuffle(paths)
    return Vocabulary(
        services=services,
        people=tuple(people[:120]),
        projects=_PROJECTS,
        tools=_TOOLS,
        paths=tuple(paths[:130]),
    )


# ---------------------------------------------------------------------------------- templates


class _Draw:
    """Random values for one memory; entity choice is skewed (a few are mentioned a lot)."""

    def __init__(self, rng: random.Random, vocab: Vocabulary) -> None:
        self.rng, self.v = rng, vocab

    def _skewed(self, options: tuple[str, ...]) -> str:
        # Zipf-like: index ~ n * u^2 favours the head of the list.
        return options[int(len(options) * self.rng.random() ** 2)]

    def service(self) -> str:
        return self._skewed(self.v.services)

    def person(self) -> str:
        return self._skewed(self.v.people)

    def project(self) -> str:
        return self._skewed(self.v.projects)

    def tool(self) -> str:
        return self._skewed(self.v.tools)

    def path(self) -> str:
        return self._skewed(self.v.paths)

    def pick(self, options: tuple[str, ...]) -> str:
        return self.rng.choice(options)

    def version(self) -> str:
        r = self.rng
        return f"{r.randint(0, 16)}.{r.randint(0, 24)}.{r.randint(0, 12)}"

    def port(self) -> int:
        return self.rng.choice((80, 443, 3000, 5000, 5432, 6379, 8000, 8080, 8443, 9000, 9090,
                                9092, 9200, 27017)) + self.rng.choice((0, 0, 0, 1, 10, 100))  # fmt: skip

    def number(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)

    def date(self) -> str:
        return f"{self.rng.randint(1, 28)} {self.rng.choice(_MONTHS)} 2024"


def _fact(d: _Draw) -> tuple[str, list[str]]:
    s, p, pr, t, path = d.service(), d.person(), d.project(), d.tool(), d.path()
    env = d.pick(_ENVS)
    options = (
        (f"{s} listens on port {d.port()} in {env}.", [s, "config"]),
        (f"{s} is owned by {p} from the {d.pick(_TEAMS)} team.", [s, p]),
        (f"{pr} depends on {t} {d.version()}.", [pr, t]),
        (f"The configuration for {s} lives in {path}.", [s, "config"]),
        (f"{s} stores its data in {(ds := d.pick(_DATASTORES))}.", [s, ds, "database"]),
        (f"{p} is the on-call lead for {pr} this quarter.", [pr, p, "oncall"]),
        (f"The {env} cluster for {pr} runs {d.number(3, 64)} nodes.", [pr, "infra"]),
        (f"{s} times out after {d.number(2, 120)} seconds when {t} is slow.", [s, t, "perf"]),
        (f"The rate limit of {s} is {d.number(1, 50) * 100} requests per minute per key.",
         [s, "config"]),
        (f"{pr} ships its releases from the release/{d.version()} branch.", [pr, "release"]),
        (f"{s} publishes events to the {d.pick(_SERVICE_HEADS)}.events topic in Kafka.",
         [s, "Kafka"]),
        (f"Alerts for {s} go to the #{d.pick(_TEAMS)}-alerts channel.", [s, "monitoring"]),
        (f"{p} wrote the original {t} integration for {s}.", [s, p, t]),
        (f"The p99 latency budget for {s} is {d.number(50, 900)} ms.", [s, "perf"]),
        (f"{pr} is written mostly in {d.pick(('Python', 'Go', 'TypeScript', 'Rust', 'Java'))}.",
         [pr]),
        (f"{s} reads feature flags from {path} at startup.", [s, "config"]),
        (f"The monthly cloud bill for {pr} is about {d.number(2, 90)} thousand dollars.",
         [pr, "cost"]),
    )  # fmt: skip
    return d.rng.choice(options)


def _preference(d: _Draw) -> tuple[str, list[str]]:
    p, pr, t, t2 = d.person(), d.project(), d.tool(), d.tool()
    a, b = d.rng.sample(_STYLES, 2)
    options = (
        (f"{p} prefers {a} over {b} in code reviews.", [p, "review"]),
        (f"For {pr}, use {t} rather than {t2} for new work.", [pr, t]),
        (f"{p} likes short written status updates before the {d.pick(_DAYS)} standup.", [p]),
        (f"The user prefers {a} in {pr}.", [pr, "review"]),
        (f"{p} wants to be tagged on any change that touches {d.path()}.", [p, "review"]),
        (f"In {pr}, the team prefers {t} for {d.pick(('queues', 'caching', 'metrics', 'CI', 'tests', 'storage'))}.",
         [pr, t]),
        (f"{p} prefers meetings after {d.number(9, 15)}:00 and no meetings on {d.pick(_DAYS)}.",
         [p]),
    )  # fmt: skip
    return d.rng.choice(options)


def _procedure(d: _Draw) -> tuple[str, list[str]]:
    s, env, path, t = d.service(), d.pick(_ENVS), d.path(), d.tool()
    options = (
        (f"To deploy {s} to {env}, run `make deploy SERVICE={s} ENV={env}` and watch the "
         f"rollout in Grafana.", [s, "deploy"]),
        (f"To run the {s} tests locally, start {t} with docker compose, then run pytest -x "
         f"tests/{s.split('-')[0]}.", [s, "testing", t]),
        (f"To rotate the {t} credentials for {s}, update them in Vault, then restart the pods "
         f"in {env}.", [s, t, "security"]),
        (f"To roll back {s}, redeploy the previous image tag with helm rollback {s} in {env}.",
         [s, "deploy"]),
        (f"Before merging a schema change to {s}, run scripts/migrate.py --dry-run against "
         f"{env}.", [s, "database"]),
        (f"To change the {s} settings, edit {path} and open a pull request; CI validates it.",
         [s, "config"]),
        (f"To debug slow queries in {s}, enable the {t} slow log and check the dashboard for "
         f"{env}.", [s, t, "perf"]),
        (f"To cut a release of {d.project()}, bump the version to {d.version()}, tag it and let "
         f"GitHub Actions publish.", [d.project(), "release"]),
    )  # fmt: skip
    return d.rng.choice(options)


def _episode(d: _Draw) -> tuple[str, list[str]]:
    s, p, pr, env = d.service(), d.person(), d.project(), d.pick(_ENVS)
    options = (
        (f"On {d.date()}, {s} went down in {env} because of {d.pick(_CAUSES)}; {p} rolled back "
         f"to {d.version()}.", [s, p, "incident"]),
        (f"During the {pr} planning meeting, {p} agreed to move {s} to {d.tool()}.",
         [pr, s, p]),
        (f"{p} reported that {s} was returning 502 errors in {env} after the last deploy.",
         [s, p, "incident"]),
        (f"We paired with {p} on {d.date()} to speed up the {s} build from "
         f"{d.number(10, 40)} to {d.number(2, 9)} minutes.", [s, p, "perf"]),
        (f"The {pr} demo on {d.date()} went well; {p} asked for a {s} dashboard.", [pr, p]),
        (f"Load testing {s} in {env} showed it saturates at {d.number(2, 40) * 500} requests "
         f"per second.", [s, "perf"]),
        (f"{p} found that {d.path()} had a stale value for {s} and fixed it.", [s, p, "config"]),
    )  # fmt: skip
    return d.rng.choice(options)


def _correction(d: _Draw) -> tuple[str, list[str]]:
    s, t = d.service(), d.tool()
    options = (
        (f"Correction: {s} actually listens on port {d.port()}, not {d.port()}.", [s, "config"]),
        (f"{s} no longer uses {t}; it was migrated to {d.tool()}.", [s, t]),
        (f"Update: the owner of {s} is now {d.person()}.", [s]),
    )  # fmt: skip
    return d.rng.choice(options)


def _negative(d: _Draw) -> tuple[str, list[str], list[str]]:
    s, t, env = d.service(), d.pick(_RESTARTABLE), d.pick(_ENVS)
    options = (
        (f"Never restart {t} in {env} during business hours.", [t, env], [t]),
        (f"Do not run database migrations for {s} on a {d.pick(_DAYS)}.", [s, "database"],
         [s]),
        (f"Do not deploy {s} without the {d.pick(_TEAMS)} team's approval.", [s, "deploy"], [s]),
    )  # fmt: skip
    return d.rng.choice(options)


_KIND_WEIGHTS = (
    ("fact", 0.42), ("preference", 0.12), ("procedure", 0.14), ("episode", 0.26),
    ("correction", 0.03), ("negative", 0.03),
)  # fmt: skip


# Above this many items a corpus is this one followed by more (``_more``): the first 100k
# stay those of ``memories(100_000)`` (so one file of their embeddings serves every size
# past it) and the rest are drawn over a wider vocabulary, since the ~400 entities repeat
# too much at 1M (``memories(1_000_000)`` drawn like the first 100k held 505k distinct texts).
BASE = 100_000


def wide_vocabulary(seed: int = 7) -> Vocabulary:
    """~2,500 entities for the items past ``BASE``: every service head × a dozen tails, every
    first × last name, projects with a suffix, and more file paths."""
    rng = random.Random(seed + 1)
    base = vocabulary(seed)
    tails = (*_SERVICE_TAILS, "gateway", "cron", "proxy", "store", "sync", "ui", "cache",
             "consumer")  # fmt: skip
    services = [f"{h}-{t}" for h in _SERVICE_HEADS for t in tails]
    people = [f"{f} {last}" for f in _FIRST for last in _LAST]
    projects = [f"{p} {s}" for p in _PROJECTS for s in ("", "Core", "Edge", "Labs", "Next")]
    paths = sorted({f"{rng.choice(_DIRS)}/{rng.choice(services).split('-')[0]}/{rng.choice(_FILES)}"
                    for _ in range(3000)})  # fmt: skip
    for xs in (services, people, paths):
        rng.shuffle(xs)
    # The entities of the first 100k keep their place at the head of the skewed draw.
    return Vocabulary(
        services=tuple(dict.fromkeys(base.services + tuple(services))),
        people=tuple(dict.fromkeys(base.people + tuple(people))),
        projects=tuple(x.strip() for x in dict.fromkeys(base.projects + tuple(projects))),
        tools=base.tools,
        paths=tuple(dict.fromkeys(base.paths + tuple(paths))),
    )


def memories(n: int, seed: int = 7, *, with_ids: bool = True) -> list[dict]:
    """``n`` memories for ``remember_many``, the same for the same ``seed``.

    About a third carry a ``project``; episodes come in sessions of 3-12 consecutive items with
    a ``session_id``; every item has 1-4 tags (entity names and a topic). Past ``BASE`` items
    the corpus is ``memories(BASE)`` followed by items over ``wide_vocabulary``.
    """
    if n > BASE:
        head = memories(BASE, seed, with_ids=with_ids)
        return head + _draw_items(
            n - BASE, seed, with_ids=with_ids, vocab=wide_vocabulary(seed),
            rng=random.Random(seed * 1_000_003 + n + 1), start=BASE,
            first_session=1 + sum(1 for _ in {it.get("session_id") for it in head} - {None}),
            seen={it["content"] for it in head},
        )  # fmt: skip
    return _draw_items(
        n, seed, with_ids=with_ids, vocab=vocabulary(seed),
        rng=random.Random(seed * 1_000_003 + n), start=0, first_session=1, seen=None,
    )  # fmt: skip


# A text already drawn is drawn again up to this many times past BASE, so the big corpus keeps
# some exact repeats (as an agent's memories do) without being dominated by them.
_REDRAWS = 10


def _draw_items(
    n: int,
    seed: int,
    *,
    with_ids: bool,
    vocab: Vocabulary,
    rng: random.Random,
    start: int,
    first_session: int,
    seen: set[str] | None,
) -> list[dict]:
    d = _Draw(rng, vocab)
    projects = {p.lower(): p for p in vocab.projects}
    kinds = [k for k, _ in _KIND_WEIGHTS]
    weights = [w for _, w in _KIND_WEIGHTS]
    out: list[dict] = []
    session, session_left, session_no = None, 0, first_session - 1
    while len(out) < n:
        kind = rng.choices(kinds, weights)[0]
        item: dict = {"kind": kind}
        for _ in range(1 + (_REDRAWS if seen is not None else 0)):
            if kind == "negative":
                content, tags, triggers = _negative(d)
                item["triggers"] = triggers
            else:
                content, tags = {
                    "fact": _fact, "preference": _preference, "procedure": _procedure,
                    "episode": _episode, "correction": _correction,
                }[kind](d)  # fmt: skip
            if seen is None or content not in seen:
                break
        if seen is not None:
            seen.add(content)
        if kind == "episode":
            if session_left <= 0:
                session_no += 1
                session, session_left = f"sess-{seed}-{session_no:05d}", rng.randint(3, 12)
            item["session_id"] = session
            session_left -= 1
        project = next((t for t in tags if t.lower() in projects), None)
        if project and rng.random() < 0.8:
            item["project"] = project.lower().replace(" ", "-")
        item["content"] = content
        item["tags"] = list(dict.fromkeys(tags))
        if kind == "preference":
            item["confidence"] = round(rng.uniform(0.6, 1.0), 2)
        if with_ids:
            item["id"] = f"syn-{seed}-{start + len(out):06d}"
        out.append(item)
    return out


def queries(q: int, seed: int = 11, *, vocab_seed: int = 7) -> list[str]:
    """``q`` questions an agent would ask of a store built from ``memories(..., vocab_seed)``."""
    vocab = vocabulary(vocab_seed)
    rng = random.Random(seed)
    d = _Draw(rng, vocab)

    def one() -> str:
        s, p, pr, t = d.service(), d.person(), d.project(), d.tool()
        env = d.pick(_ENVS)
        return rng.choice((
            f"Which port does {s} listen on in {env}?",
            f"Who owns {s}?",
            f"How do I deploy {s} to {env}?",
            f"What does {pr} depend on?",
            f"Where is the configuration for {s}?",
            f"What went wrong with {s} last time it was down?",
            f"What does {p} prefer in code reviews?",
            f"How do I roll back {s}?",
            f"Who is on call for {pr}?",
            f"What database does {s} use?",
            f"Is it safe to restart {d.pick(_RESTARTABLE)} in {env} now?",
            f"Why is {s} slow and how do I debug it?",
            f"What did {p} say about {s}?",
            f"How do I run the tests for {s} locally?",
            f"What is the rate limit of {s}?",
            f"How many nodes does the {pr} cluster have in {env}?",
            f"When does {p} like to have meetings?",
            f"Which tool should I use for queues in {pr}?",
            f"How do I rotate the {t} credentials for {s}?",
            f"What is the latency budget for {s}?",
        ))  # fmt: skip

    return [one() for _ in range(q)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    parser.add_argument("--n", type=int, default=20)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--queries", type=int, default=5)
    args = parser.parse_args()
    for item in memories(args.n, args.seed):
        print(json.dumps(item))
    for q in queries(args.queries):
        print(q)
    v = vocabulary(args.seed)
    print(f"# vocabulary: {v.size()} entities")


if __name__ == "__main__":
    main()
