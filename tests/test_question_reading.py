"""How recall reads a question's words: the distance of each relation word from a name, and
what kind of thing a name is written as. Pure text, no model."""

from __future__ import annotations

from bisect import bisect_left

from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.text.entities import words
from graphmem.text.lexical import STOPWORDS
from graphmem.text.phrasing import distances, layout, name_positions, typed_as, variants


def _distances_by_scan(text: str, name: str, terms: list[frozenset[str]]) -> list[int]:
    """The definition, read word by word for each term (what ``distances`` computed before
    it read each stem's places once)."""
    lay = layout(text)
    content = [i for i, w in enumerate(lay.words) if w not in STOPWORDS]
    n = len(words(name))
    spans = []
    for start in name_positions(lay, name):
        first, last = bisect_left(content, start), bisect_left(content, start + n) - 1
        if first <= last:
            spans.append((first, last))
    out = []
    for forms in terms:
        best = len(text)
        for r, i in enumerate(content):
            if lay.stems[i] in forms:
                for first, last in spans:
                    if first <= r <= last:
                        best = min(best, 0)
                    elif r > last:
                        best = min(best, r - last - 1)
                    else:
                        best = min(best, first - r - 1)
        out.append(best)
    return out


VOCAB = ["ledger", "billing", "api", "owns", "owner", "depends", "on", "the", "of", "who",
         "team", "service", "calls", "is", "a", "uses", "store", "data"]  # fmt: skip


@settings(max_examples=200, deadline=None, database=None)
@given(
    st.lists(st.sampled_from(VOCAB), min_size=0, max_size=40),
    st.sampled_from(["ledger", "billing api", "api", "the", "team"]),
)
def test_distances_match_their_definition(text_words: list[str], name: str) -> None:
    text = " ".join(text_words)
    terms = [variants(t) for t in ("own", "depend", "call", "team", "ledger", "missing")]
    assert distances(text, name, terms) == _distances_by_scan(text, name, terms)


def test_a_kind_word_types_a_name_only_in_its_own_phrase() -> None:
    service, team = variants("servic"), variants("team")
    # "(Henrik runs it)": the word before the bracket types image_resizer, not Henrik.
    text = "The image_resizer service (Henrik runs it)"
    assert typed_as(text, "image resizer", service)
    assert not typed_as(text, "henrik", service)
    assert typed_as("Ana - Payments team", "payments", team)
    assert not typed_as("Payments, team of Ana", "payments", team)
    assert typed_as("team Growth meets at 9", "growth", team)
    # A name that holds a break itself is read in the whole text.
    assert typed_as("the Acme Inc. team meets at 9", "acme inc", team)
    assert typed_as("the svc:payments service is slow", "svc:payments", service)
    from graphmem.text.phrasing import adverb

    assert [w for w in ("directly", "supply", "assembly", "family", "usually") if adverb(w)] == [
        "directly",
        "usually",
    ]


def test_the_kind_asked_for_is_a_noun_not_the_verb_after_what() -> None:
    from graphmem.text.phrasing import asked_kind

    assert asked_kind("Which team does Ana belong to?") == "team"
    assert asked_kind("What region does pg-main run in?") == "region"
    assert asked_kind("What service does image_resizer call into") == "servic"
    # A preposition or an adverb after it: the word is the verb ("what depends on X").
    assert asked_kind("what depends on ledger") == ""
    assert asked_kind("What sits directly upstream of Fraud Scorer?") == ""
    assert asked_kind("Who owns ledger?") == ""
    # After "which", and a noun's form, a preposition or adverb does not make a verb.
    assert asked_kind("which team in Berlin owns ledger") == "team"
    assert asked_kind("which team currently owns ledger") == "team"
    assert asked_kind("what region of AWS hosts pg-main") == "region"
    # The type word after it is the kind: the word before says which, or is a name.
    assert asked_kind("Which storage service does billing-api write to?") == "servic"
    assert asked_kind("Who takes care of what export service relies on?") == "servic"
    assert asked_kind("Who takes care of what geocode-svc relies on?") == "servic"
    # Read folded, after the first which/what a content word follows, however long the text.
    assert asked_kind("\uff57\uff48\uff49\uff43\uff48 team owns ledger?") == "team"
    assert asked_kind("What is going on here? " + "x " * 100 + "which team owns ledger?") == "team"
    # An asking verb's object, or what "what is" asks, after "the": as after "which".
    assert asked_kind("Tell me the team that includes Ana.") == "team"
    assert asked_kind("Show us the region pg-main runs in") == "region"
    assert asked_kind("What is the team of ledger's owner?") == "team"
    assert asked_kind("What\u2019s the channel of the Payments team?") == "channel"
    assert asked_kind("Tell me who owns ledger") == ""
    assert asked_kind("What is ledger's team?") == ""
    assert asked_kind("It cost us the weekend. Which team owns ledger?") == "team"


def test_an_adverb_names_no_relation(mem, monkeypatch) -> None:
    import graphmem.recall.cascade as cascade

    mem.remember_many(
        [{"content": "deps(Fraud Scorer) = [ratelimiter]"},
         {"content": "The geo-lookup service (upstream: Fraud Scorer)"},
         {"content": "Fraud Scorer is owned by Lucía Fernández."}]
    )  # fmt: skip
    seen = {}
    real = cascade.relation_for

    def spy(*args, **kwargs):  # type: ignore[no-untyped-def]
        seen["relation"] = real(*args, **kwargs)
        return seen["relation"]

    monkeypatch.setattr(cascade, "relation_for", spy)
    counts = []
    for q in ("Which service sits upstream of Fraud Scorer?",
              "Which service sits directly upstream of Fraud Scorer?",
              "Which service currently sits directly upstream of Fraud Scorer?"):  # fmt: skip
        mem.recall(q)
        counts.append(seen["relation"].relations)
    # "directly", "currently": how, not which relation; as many facts as without them.
    assert counts[0] == counts[1] == counts[2]


def test_a_scene_setting_sentence_is_read_into_the_question_after_it() -> None:
    from graphmem.text.question import RESOLVE_CHARS, relation_text, scene_read_in

    # The words this store writes beside names as their kind ("team Osprey", "the ledger
    # service"); like any store, it also writes words after a name that are no kind ("Osprey
    # is", "ledger relies on", "the same ledger", "Osprey owned").
    kinds = {"team", "service", "is", "relies", "owned", "same"}

    def read_in(context: str, names: list[str] | None = None) -> str:
        return scene_read_in(context, names or ["osprey", "ledger"], kinds.__contains__)

    # The demonstrative points back to the one name of the sentence before: read there.
    assert read_in("I'm reviewing headcount for Osprey. Who's in charge of that team?") == (
        "Who's in charge of osprey?"
    )
    assert relation_text(read_in("I'm reviewing headcount for Osprey. Who leads that team?"),
                         ["osprey"]) == "who leads"  # fmt: skip
    # Earlier sentences stay; the noun that typed the name there is read with it; every
    # "that team" is the same team.
    assert read_in("Hi. I'm writing the report for the Osprey team. Who leads that team?") == (
        "Hi. Who leads osprey team?"
    )
    assert read_in("Ledger is slow; who owns that service and where is that service hosted?") == (
        "who owns ledger and where is ledger hosted?"
    )
    # The demonstrative with the name's kind, not a relative "that" or a time phrase.
    assert read_in("Osprey got noisy. Who leads the team that uses that team channel?") == (
        "Who leads the team that uses osprey channel?"
    )
    assert read_in("Ledger paged us. Who owns that service this week?") == (
        "Who owns ledger this week?"
    )
    unchanged = [
        "Who leads Osprey?",  # one sentence
        "Osprey is noisy. Who leads Osprey now?",  # the question names it itself
        "Osprey is noisy. Who leads that team, Osprey?",
        "Osprey is noisy. Who leads it?",  # a pronoun: no noun to point back with
        "Ledger is down. Is that normal?",  # no kind the store writes ledger with
        "The owner of Ledger is out. Who covers for that person?",
        "Osprey got noisy. Who owns the service that relies on it?",  # a relative "that"
        "Osprey got noisy. Who leads the team that owned it?",
        "Osprey: who leads that is?",
        "Osprey calls a service. Who owns that service?",  # something else to point to
        "Trace Osprey two dependencies down: who leads that team?",
        "Trace Osprey 5 hops down: who leads that team?",
        "Osprey has several teams. Who leads that team?",
        "Take Osprey's lead. Where does that team sit?",  # Osprey's, not Osprey
        "Osprey is failing because its team is away. Who leads that team?",
        "Osprey is failing because its teams are away. Who leads that team?",
        "Context: the team Osprey is on. Who should I escalate to about that team?",
        "Nothing is named here. Who leads that team?",
        "Osprey and ledger are noisy. Who leads that team?",  # which of the two
        "Osprey: who leads that same team?",  # the noun is a grammar word
        "Who owns Ledger? Who leads that team?",  # the answer's team
        "Osprey has dozens of owners. Who leads that team?",
        "Osprey talks to every team. Who leads that team?",
    ]
    for context in unchanged:
        assert read_in(context) == context, context
    # Any sentence end: ";" and ":" too.
    assert read_in("Osprey is noisy; who leads that team?") == "who leads osprey?"
    assert read_in("Who leads that team?", []) == "Who leads that team?"
    assert read_in("Osprey. Who leads that team?", ["osprey", "osprey"]) == "Who leads osprey?"
    # A long context is read at its end; a sentence cut there is not read as a whole.
    long = "x " * RESOLVE_CHARS + "I am reviewing Osprey. Who leads that team?"
    assert read_in(long) == long
    assert read_in("x. " * RESOLVE_CHARS + "I am reviewing Osprey. Who leads that team?").endswith(
        "x. Who leads osprey?"
    )
