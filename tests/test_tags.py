"""Tests for graphmem.text.tags: tag normalisation and LLM-free tag inference."""

from __future__ import annotations

import pytest

from graphmem.text.tags import InferredTag, infer_tags, normalize_tag

# What is tested is the tagger, not what the model makes of the words.
pytestmark = pytest.mark.embedder("fake")


def names(text: str, **kwargs: object) -> list[str]:
    return [t.name for t in infer_tags(text, **kwargs)]  # type: ignore[arg-type]


def kinds(text: str) -> dict[str, str]:
    return {t.name: t.kind for t in infer_tags(text)}


# --------------------------------------------------------------------------- normalize_tag


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("  #Python ", "python"),
        ("Alice's", "alice"),
        ("Alice’s", "alice"),
        ("New   York\tCity", "new york city"),
        ("ＡＰＩ", "api"),
        ('"Ed Wood"', "ed wood"),
        ("Straße", "strasse"),
        ("src/auth/login.py", "src/auth/login.py"),
        ("src/auth/login.py.", "src/auth/login.py"),
        ("./config.yaml", "config.yaml"),
        ("infra/", "infra"),
        ("/etc/nginx/nginx.conf", "/etc/nginx/nginx.conf"),
        ("os.path.join", "os.path.join"),
        ("snake_case_name", "snake case name"),
        ("jean-luc picard", "jean luc picard"),
        (".env", ".env"),
        ("println!", "println"),
        ("(film)", "film"),
    ],
)
def test_normalize_tag(raw: str, expected: str) -> None:
    assert normalize_tag(raw) == expected


@pytest.mark.parametrize("raw", ["", "   ", "#", "...", "##  ", "()"])
def test_normalize_tag_rejects_empty(raw: str) -> None:
    with pytest.raises(ValueError):
        normalize_tag(raw)


def test_normalize_tag_is_idempotent() -> None:
    for raw in ["Ed Wood's", "#Logging", "src/a.py", "Bank of America"]:
        once = normalize_tag(raw)
        assert normalize_tag(once) == once


def test_normalize_does_not_stem() -> None:
    assert normalize_tag("Services") == "services"
    assert normalize_tag("running") == "running"


# --------------------------------------------------------------------------- agent memories


def test_deploy_memory() -> None:
    tags = kinds("Deploy with `make deploy` from the infra/ directory")
    assert tags == {"make deploy": "identifier", "infra": "path"}


def test_person_preference() -> None:
    assert names("Alice prefers green tea") == ["alice"]


def test_auth_service_memory() -> None:
    tags = kinds("The auth service in src/auth/jwt_utils.py uses PyJWT")
    # "the auth service" names a service (a lower-case name followed by its kind)
    assert tags == {"auth": "entity", "src/auth/jwt_utils.py": "path", "pyjwt": "identifier"}


def test_rust_logging_memory() -> None:
    tags = kinds("Never use println! in production Rust code #logging")
    assert tags == {"println": "identifier", "rust": "entity", "logging": "hashtag"}


def test_product_versions_stay_out_of_tag_names() -> None:
    tags = names("We deploy on Python 3.11 and Node.js 20.")
    assert "python" in tags
    assert "node.js" in tags
    assert not any(any(c.isdigit() for c in t) for t in tags)


def test_acronyms_are_entities() -> None:
    tags = kinds("The API uses HDBSCAN and runs on AWS.")
    # a bare "API" names no particular one
    assert tags == {"hdbscan": "entity", "aws": "entity"}


def test_shouting_and_boilerplate_are_not_entities() -> None:
    assert names("IMPORTANT: NEVER push to main. TODO: fix it. OK?") == []


def test_multiword_proper_nouns_with_connectors() -> None:
    tags = names("The Bank of America tower in New York City was sold to Ludwig van Beethoven.")
    assert tags == ["bank of america", "new york city", "ludwig van beethoven"]


def test_honorifics_and_initials() -> None:
    tags = names("Yesterday Dr. Jane Smith met George W. Bush in St. Louis.")
    assert "jane smith" in tags
    assert "george w bush" in tags
    assert "st louis" in tags


def test_possessive_is_stripped() -> None:
    assert names("I met Bob's manager.") == ["bob"]


def test_sentence_initial_common_words_are_not_entities() -> None:
    for text in [
        "Use tabs.",
        "Always run tests before pushing.",
        "Actually, it works.",
        "However, that is fine.",
        "When in doubt, ask.",
        "Meeting moved to noon.",
        "Apparently it broke.",
        "Remember to rotate keys.",
    ]:
        assert names(text) == [], text


def test_sentence_initial_name_is_entity() -> None:
    assert names("Alice moved to Berlin.") == ["alice", "berlin"]


def test_sentence_initial_word_used_lowercase_elsewhere_is_not_entity() -> None:
    assert names("Caching is on. We rely on caching heavily.") == []


def test_common_word_kept_when_capitalised_mid_sentence() -> None:
    assert names("Go is fast. I like Go.") == ["go"]


@pytest.mark.parametrize(
    "text",
    [
        "He said she was an American filmmaker.",
        "The release is on Monday, January 5.",
        "She is French and he is German.",
        "They met in December. However, nothing happened.",
        "I think so.",
        "the config is loaded lazily and cached for 5 minutes",
        "Set it to True or None.",
    ],
)
def test_generic_capitalised_words_are_not_tags(text: str) -> None:
    assert names(text) == []


def test_demonym_inside_a_name_is_kept() -> None:
    assert names("She flew with American Airlines.") == ["american airlines"]


# --------------------------------------------------------------------------- passages


def test_title_line_becomes_entity() -> None:
    passage = (
        "Ed Wood\nEdward Davis Wood Jr. (October 10, 1924 – December 10, 1978) was an American "
        "filmmaker, actor, writer, producer, and director."
    )
    tags = names(passage)
    assert tags[0] == "ed wood"
    assert "edward davis wood jr" in tags
    assert "american" not in tags and "october" not in tags


def test_passages_share_entity_tag() -> None:
    a = "Ed Wood\nEdward Davis Wood Jr. was an American filmmaker."
    b = (
        "Ed Wood (film)\nEd Wood is a 1994 American biographical period comedy-drama film directed "
        "and produced by Tim Burton, and starring Johnny Depp as cult filmmaker Ed Wood."
    )
    c = "Glen or Glenda\nGlen or Glenda is a 1953 film written and directed by Ed Wood."
    assert "ed wood" in names(a)
    assert names(b) == ["ed wood", "tim burton", "johnny depp"]
    assert "ed wood" in names(c)


def test_wikipedia_passage() -> None:
    passage = (
        "Scott Derrickson\nScott Derrickson (born July 16, 1966) is an American director, "
        "screenwriter and producer. He lives in Los Angeles, California. He is best known for "
        'directing horror films such as "Sinister", "The Exorcism of Emily Rose", and '
        '"Deliver Us From Evil".'
    )
    tags = names(passage)
    assert tags[:3] == ["scott derrickson", "los angeles", "california"]
    assert "exorcism of emily rose" in tags
    assert "he" not in tags and "july" not in tags


def test_title_with_leading_determiner_is_consistent_with_body() -> None:
    assert names("The Beatles\nThe Beatles were an English rock band.") == ["beatles"]
    assert names("Liverpool is home to The Beatles.") == ["liverpool", "beatles"]


def test_sentence_first_line_is_not_a_title() -> None:
    assert names("Alice prefers green tea and biscuits.\nShe likes coffee too.") == ["alice"]
    assert names("the deploy failed twice today\nretry later") == []


def test_long_first_line_is_not_a_title() -> None:
    text = "One Two Three Four Five Six Seven Eight Nine Ten\nbody"
    assert "one two three four five six seven eight nine ten" not in names(text)


# --------------------------------------------------------------------------- paths


def test_paths() -> None:
    text = (
        "Config lives in ./config.yaml and /etc/nginx/nginx.conf; on Windows use "
        "C:\\Users\\x\\file.txt. See README.md and the .env file."
    )
    tags = kinds(text)
    assert tags["config.yaml"] == "path"
    assert tags["/etc/nginx/nginx.conf"] == "path"
    assert tags["c:\\users\\x\\file.txt"] == "path"
    assert tags["readme.md"] == "path"
    assert tags[".env"] == "path"
    assert "see" not in tags


@pytest.mark.parametrize(
    "text",
    [
        "The limit is 100 requests/min and/or 24/7 support.",
        "Dates like 2024/05/01 are not paths.",
        "We use client/server architecture.",
        "Visit https://github.com/org/repo/blob/main/x.py for details.",
        "Mail alice.smith@example.com today.",
    ],
)
def test_not_paths(text: str) -> None:
    assert not [t for t in infer_tags(text) if t.kind == "path"]


def test_file_paths_argument_added_first() -> None:
    tags = infer_tags("Fixed the bug in src/a.py", file_paths=["./src/a.py", "docs/index.md"])
    assert tags == [InferredTag("src/a.py", "path"), InferredTag("docs/index.md", "path")]


# --------------------------------------------------------------------------- identifiers


def test_identifiers() -> None:
    text = (
        "Call os.path.join() and numpy.linalg.norm, then function_call() with "
        "snake_case_name, camelCase and HTTPServer."
    )
    assert kinds(text) == {
        "os.path.join": "identifier",
        "numpy.linalg.norm": "identifier",
        "function call": "identifier",
        "snake case name": "identifier",
        "camelcase": "identifier",
        "httpserver": "identifier",
    }


@pytest.mark.parametrize(
    "text",
    [
        "Version 3.11 is out and costs 4.5 dollars.",
        "See e.g. the docs, i.e. the manual.",
        "It ended. Then it restarted.",
        "The films(s) list.",
        "Plain words only here.",
    ],
)
def test_not_identifiers(text: str) -> None:
    assert not [t for t in infer_tags(text) if t.kind == "identifier"]


def test_domains_are_entities() -> None:
    assert kinds("Docs are on example.com now") == {"example.com": "entity"}


def test_settings_memory() -> None:
    text = "Set max_retries=3 in settings.py; the logic in utils/retry.py calls time.sleep()."
    assert kinds(text) == {
        "max retries": "identifier",
        "settings.py": "path",
        "utils/retry.py": "path",
        "time.sleep": "identifier",
    }


# --------------------------------------------------------------------------- hashtags & users


def test_hashtags() -> None:
    text = "#1 priority is the #backend-api refactor; colours #fff and #a1b2c3; page.html#intro"
    tags = kinds(text)
    assert tags.get("backend api") == "hashtag"
    assert not any(k in tags for k in ("1", "fff", "a1b2c3", "intro"))


def test_markdown_heading_is_not_hashtag() -> None:
    tags = infer_tags("# Deployment\nUse #python for scripts, not C# or F#.")
    assert InferredTag("python", "hashtag") in tags
    assert all(t.kind != "hashtag" or t.name == "python" for t in tags)


def test_mentions_and_decorators() -> None:
    tags = kinds("Ask @bob to review; use @dataclass(frozen=True) and @property.")
    assert tags.get("bob") == "user"
    assert tags.get("dataclass") == "identifier"
    assert "property" not in tags and "true" not in tags


@pytest.mark.parametrize(
    ("text", "user"),
    [
        ("Ping @siobhan.kealy about the archive.", "siobhan kealy"),  # the name's own tag
        ("Thanks @Siobhan.Kealy.", "siobhan kealy"),
        ("@b.ince leads Treatment West", "b ince"),
        ("owner: @hannah_l", "hannah l"),
        ("ask @wrobel.", "wrobel"),  # a full stop ends the sentence, not the handle
    ],
)
def test_handles_with_dots_and_at_the_end_of_a_sentence(text: str, user: str) -> None:
    assert kinds(text).get(user) == "user"


@pytest.mark.parametrize(
    "text",
    [
        "@app.route('/')",
        "@pytest.mark.slow",
        "@mock.patch\ndef test(): pass",
        "@app.get\n@mock.patch\ndef test(): pass",
        "```\n@jax.jit  # compile\ndef f(): pass\n```",
        "the @jax.jit decorator",
        "@celery.task is fine",
        "@st.cache_data is used",
        "use `@jax.jit` here",
        "use @torch.compile",
        "mail @example.com or @gmail.com",
    ],
)
def test_dotted_decorators_are_no_mentions(text: str) -> None:
    assert "user" not in kinds(text).values()


def test_a_dotted_file_is_a_path_and_handles_alone_on_their_lines_are_mentions() -> None:
    assert kinds("see @README.md and @package.json") == {
        "readme.md": "path",
        "package.json": "path",
    }
    got = kinds("Reviewers:\n@siobhan.kealy\n@b.ince")
    assert got["siobhan kealy"] == got["b ince"] == "user"
    assert kinds("ask @wrobel.Then go") == {"wrobel": "user"}  # a full stop without its space
    assert kinds("@b.Ince leads") == {"b ince": "user"}
    assert kinds("@jo.smith\nclass starts at 9") == {"jo smith": "user"}  # no definition


# --------------------------------------------------------------------------- dedupe & limits


def test_dedupe_priority_and_order() -> None:
    tags = infer_tags("Python is great. #python rocks. I use Python daily.")
    assert tags == [InferredTag("python", "hashtag")]


def test_max_tags() -> None:
    text = "Alice, Bob, Carol, Dave, Erin, Frank, Grace, Heidi, Ivan, Judy, Mallory, Oscar, Peggy."
    assert len(infer_tags(text)) == 12
    assert names(text, max_tags=3) == ["alice", "bob", "carol"]
    assert infer_tags(text, max_tags=0) == []


def test_empty_text() -> None:
    assert infer_tags("") == []
    assert infer_tags("   \n ") == []


# --------------------------------------------------------------------------- agent-memory shapes


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("billing-api cannot start without ledger being reachable.", {"billing api"}),
        ("billing_api writes to pg-orders in eu-west-1", {"billing api", "pg orders", "eu west 1"}),
        ("See OPS-142 before the upgrade", {"ops 142"}),
        ("Upgraded the client to v2.3.1 and the server to 1.4.0", {"v2.3.1", "1.4.0"}),
        ("Then restart db-01.prod.example.com first", {"db-01.prod.example.com"}),
        ("the ledger service is slow today", {"ledger"}),
        ("paymentsClient and os.path.join", {"paymentsclient", "os.path.join"}),
        ("a long-term, read-only, built-in fix", set()),
        # a stopword part ("us") does not make a numbered name prose
        ("es-ledger runs in us-west-2", {"es ledger", "us west 2"}),
        ("an up-to-date, out-of-band fix", set()),
        ("session-svc is owned by Sven Nguyen", {"session", "sven nguyen"}),
        # an ordinary word names a service after "the"; its type word stays in the name
        (
            "The upstream of catalog-worker is the review service.",
            {"catalog worker", "review service"},
        ),
        ("a code review service would help", set()),
        ("we moved the new service to the web service", set()),
        # a capitalised type word is part of the name
        ("Essential Air Service flies to Alaska", {"essential air service", "alaska"}),
    ],
)
def test_technical_shapes(text: str, expected: set[str]) -> None:
    assert set(names(text)) == expected


def test_tag_variants_are_one_tag() -> None:
    variants = ["Billing API", "billing-api", "billing_api", "billing api", "#billing-api"]
    assert {normalize_tag(v) for v in variants} == {"billing api"}
    assert normalize_tag("the Ledger service") != normalize_tag("ledger")  # determiner kept
    assert normalize_tag("Ledger service") == normalize_tag("ledger-svc") == "ledger"
    assert normalize_tag("ledger_svc") == normalize_tag("ledger service") == "ledger"
    # "service" stays where the rest is an ordinary word, or where it is part of the name
    assert normalize_tag("review service") == normalize_tag("review-svc") == "review service"
    assert normalize_tag("Essential Air Service") == "essential air service"
    # paths, dotted names and files keep their separators
    assert normalize_tag("src/billing_api/main.py") == "src/billing_api/main.py"
    assert normalize_tag("billing_api.client") == "billing_api.client"


def test_a_store_tagged_by_an_older_tagger_is_retagged_once_on_open(store_path, model_path):
    from graphmem import GraphMemory
    from graphmem.owner.feedback import upgrade_tags
    from graphmem.text.tags import TAGGER_VERSION

    with GraphMemory(store_path, model_path=model_path) as mem:
        mem.remember("The Ledger service is owned by Carla Mendes.")
        memory_id = mem.remember("billing-api cannot start without ledger", tags=["Deploy-Ops"]).id
        # What an older tagger left: its own spellings, no entity tags, an older version.
        store = mem._store
        store.delete_edges("HasTag", memory_id, "billing api", edge_source=None)
        store.delete_edges("HasTag", memory_id, "ledger", edge_source=None)
        store.delete_edges("HasTag", memory_id, "deploy ops", edge_source=None)
        store.ensure_tags([("billing-api", "identifier"), ("Deploy-Ops", "user")])
        store.insert_edges(
            "HasTag",
            [
                {"src": memory_id, "dst": "billing-api", "source": "identifier"},
                {"src": memory_id, "dst": "Deploy-Ops", "source": "user"},
            ],
        )
        with store.transaction():
            store._set_meta({"tagger_version": "1"})
    # An older release left no mirror snapshot (and this one would not know the edits above).
    (store_path / "mirror.snapshot").unlink(missing_ok=True)
    with GraphMemory(store_path, model_path=model_path) as mem:
        tags = set(mem.get(memory_id).tags)
        assert {"billing api", "ledger", "deploy ops"} <= tags
        assert not {"billing-api", "Deploy-Ops"} & tags
        assert mem._store.meta()["tagger_version"] == TAGGER_VERSION
        # once: an up-to-date store is left alone
        assert upgrade_tags(mem._store, mem._mirror, mem.config) == 0


@pytest.mark.parametrize("per_batch", [20_000, 7])
def test_retagging_a_store_of_many_memories_matches_a_fresh_store(
    tmp_path, make_fake_mem, monkeypatch, per_batch
):
    """Re-tagging removes and recreates many edges at once (the bulk statements), in batches
    of ``RETAG_BATCH`` memories: the result is what today's tagger gives a fresh store, counts
    agree and old-only tags are gone."""
    from graphmem.owner import feedback as maintenance

    monkeypatch.setattr(maintenance, "RETAG_BATCH", per_batch)

    items = [
        {"content": f"report-{i} reads from ledger-svc and is owned by Team Falcon {i % 3}"}
        for i in range(40)
    ] + [{"content": f"Note {i}: the gateway service restarts nightly", "tags": ["ops"]}
         for i in range(10)]  # fmt: skip
    # The tagger, not the model: both stores on the fake embedder.
    old = tmp_path / "old"
    with make_fake_mem("fresh") as mem:
        expected = {r.memory.content: set(r.memory.tags) for r in mem.remember_many(items)}
    with make_fake_mem("old") as mem:
        ids = [r.id for r in mem.remember_many(items)]
        store = mem._store
        # What an older tagger left: an extra tag of its own on every memory.
        store.ensure_tags([(f"legacy-{i}", "identifier") for i in range(len(ids))])
        store.insert_edges(
            "HasTag",
            [{"src": m, "dst": f"legacy-{i}", "source": "identifier"} for i, m in enumerate(ids)],
        )
        with store.transaction():
            store._set_meta({"tagger_version": "1"})
    (old / "mirror.snapshot").unlink(missing_ok=True)
    with make_fake_mem("old") as mem:
        got = {mem.get(m).content: set(mem.get(m).tags) for m in ids}
        assert got == expected
        rows = mem._store.engine.rows("MATCH (t:Tag) RETURN t.name AS name, t.count AS n")
        assert not [r for r in rows if r["name"].startswith("legacy")]
        members = {
            r["name"]: r["n"]
            for r in mem._store.engine.rows(
                "MATCH (t:Tag)<-[:HasTag]-(m:Memory) RETURN t.name AS name, count(*) AS n"
            )
        }
        assert {r["name"]: r["n"] for r in rows} == members


# --------------------------------------------------------------------------- entity mentions


def _index(*names: str, frequency=None):
    from graphmem.text.entities import EntityIndex

    index = EntityIndex(frequency)
    index.update(names)
    return index


def test_mentions_with_a_type_word_or_its_abbreviation() -> None:
    index = _index("ledger", "review service", "billing api")
    assert index.find("ledger-svc is down") == {"ledger"}
    assert index.find("restart ledger_svc first") == {"ledger"}
    assert index.find("ask about the review service") == {"review service"}
    assert index.find("restart billing-api-svc") == {"billing api"}
    assert index.find("pg-ledger is full") == set()  # part of another name


def test_a_question_names_a_frequent_lower_case_entity() -> None:
    # Forty memories of a hundred hold "fraud": too many to link it in a new memory's text,
    # where a wrong link joins unrelated memories, but a question that names it asks about it.
    index = _index("fraud", frequency=lambda word: (40, 100))
    assert index.find("who owns fraud?") == set()
    assert index.find("who owns fraud?", lenient=True) == {"fraud"}
    assert index.find("fraud is on call", lenient=True) == {"fraud"}
    assert index.find("the pg-fraud disk", lenient=True) == set()


def test_a_capitalised_hyphenated_name_is_mentioned_whole() -> None:
    index = _index(normalize_tag("Kim Jong-il"), normalize_tag("Saxony-Anhalt"))
    assert index.find("a speech by Kim Jong-il in 1994") == {"kim jong il"}
    assert index.find("the state of Saxony-Anhalt") == {"saxony anhalt"}
    assert index.find("kim jong il") == set()  # lower case prose is not a name


def test_tag_counts_stay_right_when_an_update_keeps_a_tag(mem):
    """An update deletes the memory's tag edges and creates them again in one transaction
    (where Kùzu 0.11.3 reads such edges back wrong): the counts still match the members."""
    ids = [
        mem.remember(f"ledger-svc {what}").id
        for what in ("stores invoices in PostgreSQL", "is owned by Carla", "pages on-call")
    ]
    mem.update(ids[0], content="ledger-svc stores invoices in ClickHouse now")
    rows = mem._store.engine.rows("MATCH (t:Tag) RETURN t.name AS name, t.count AS n")
    members = {
        r["name"]: r["n"]
        for r in mem._store.engine.rows(
            "MATCH (m:Memory)-[:HasTag]->(t:Tag) RETURN t.name AS name, count(*) AS n"
        )
    }
    assert {r["name"]: r["n"] for r in rows} == members
    assert members["ledger"] == 3


def test_an_update_counts_no_tag_in_the_database(mem):
    """An update keeps the memory's user tags, also one its new text would infer (no edge of
    theirs is added or removed): their counts come from the mirror like the others, not from
    a count of every member in the database (a cost that grows with the store, at every
    update)."""
    ids = [
        r.id
        for r in mem.remember_many(
            [{"content": f"ledger-svc job {i} runs nightly", "tags": ["ledger"]} for i in range(5)]
        )
    ]
    store = mem._store
    counted: list[str] = []
    refresh = store.refresh_tag_counts

    def spy(names, **kwargs):  # type: ignore[no-untyped-def]
        counted.extend(names)
        return refresh(names, **kwargs)

    store.refresh_tag_counts = spy  # type: ignore[method-assign]
    mem.update(ids[0], content="ledger-svc job 0 runs hourly now")
    assert counted == []
    assert "ledger" in mem.get(ids[0]).tags
    rows = store.engine.rows("MATCH (t:Tag) RETURN t.name AS name, t.count AS n")
    members = {
        r["name"]: r["n"]
        for r in store.engine.rows(
            "MATCH (m:Memory)-[:HasTag]->(t:Tag) RETURN t.name AS name, count(*) AS n"
        )
    }
    assert {r["name"]: r["n"] for r in rows} == members
    assert members["ledger"] == 5


def test_repeats_in_one_call_giving_a_tag_tag_the_memory_once(mem):
    """Each repeat reinforces the memory and adds the tags it lacks: the tags an earlier
    repeat of the same call gave count as had (one edge, as one call per repeat leaves)."""
    stored = mem.remember("Alice prefers green tea").id
    repeats = [{"content": "Alice prefers green tea", "tags": ["drinks"]}] * 3
    repeats += [{"content": "Bob prefers black coffee"}]
    repeats += [{"content": "Bob prefers black coffee", "tags": ["drinks"]}] * 2
    results = mem.remember_many(repeats)
    assert [r.action for r in results] == ["reinforced"] * 3 + ["created"] + ["reinforced"] * 2
    for memory_id in (stored, results[3].id):
        tags = mem.get(memory_id).tags
        assert sorted(tags) == sorted(set(tags)) and "drinks" in tags
    edges = mem._store.engine.rows(
        "MATCH (m:Memory)-[:HasTag]->(:Tag {name: 'drinks'}) RETURN m.id AS id"
    )
    assert sorted(r["id"] for r in edges) == sorted([stored, results[3].id])


def test_a_bare_lower_case_name_is_linked_in_a_short_note_not_in_a_passage() -> None:
    from graphmem.text.entities import SHORT_TEXT_WORDS, mentions

    def rare(word: str) -> tuple[int, int]:
        return 1, 1000  # the store holds the word once: rare enough to be a name

    assert mentions("billing-api cannot start without ledger being reachable", "ledger", rare)
    passage = "The company kept its ledger in a safe. " + "It grew every year. " * 10
    assert len(passage.split()) > SHORT_TEXT_WORDS
    assert not mentions(passage, "ledger", rare)
    assert mentions(passage.replace("its ledger", "its Ledger"), "ledger", rare)


def test_a_bare_lower_case_name_is_not_linked_in_a_titled_passage() -> None:
    from graphmem.text.entities import EntityIndex, mentions

    def rare(word: str) -> tuple[int, int]:
        return 1, 1000

    note = "Cappy is a fruit juice brand sold in 25 countries."
    passage = "Cappy (juice)\n" + note
    assert mentions(note, "brand", rare)  # a short note: a rare bare word may be a name
    assert not mentions(passage, "brand", rare)  # a passage under a title: prose
    assert mentions(passage.replace("juice brand", "juice Brand"), "brand", rare)
    index = EntityIndex(rare)
    index.add("brand")
    assert index.find(note) == {"brand"} and index.find(passage) == set()


def test_a_name_with_an_abbreviation_is_linked_by_mention(mem) -> None:
    from graphmem.text.entities import indexed

    assert indexed("mr. smith goes to washington", "entity")
    assert not indexed("os.path", "identifier") and not indexed("example.com", "entity")
    film = mem.remember("Mr. Smith Goes to Washington\nA 1939 film directed by Frank Capra.")
    later = mem.remember("The documentary's title recalls Mr. Smith Goes to Washington.")
    assert "mr. smith goes to washington" in film.memory.tags
    assert "mr. smith goes to washington" in later.memory.tags
