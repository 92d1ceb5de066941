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
    from graphmem.text.question import RESOLVE_CHARS, relation_text, resolved

    osprey = ["osprey"]
    # The demonstrative points back to the one name of the sentence before: read there.
    assert resolved("I'm reviewing headcount for Osprey. Who's in charge of that team?",
                    osprey) == "Who's in charge of osprey?"  # fmt: skip
    assert relation_text(resolved("I'm reviewing headcount for Osprey. Who leads that team?",
                                  osprey), osprey) == "who leads"  # fmt: skip
    # Earlier sentences stay; the noun that typed the name there is read with it.
    assert resolved("Hi. I'm writing the report for the Osprey team. Who leads that team?",
                    osprey) == "Hi. Who leads osprey team?"  # fmt: skip
    # The last demonstrative, not a relative "that" before a verb.
    assert resolved("Osprey got noisy. Who leads the team that uses that channel?", osprey) == (
        "Who leads the team that uses osprey?"
    )
    assert resolved("Osprey got noisy. Who owns the service that relies on it?", osprey) == (
        "Osprey got noisy. Who owns the service that relies on it?"
    )
    unchanged = [
        "Who leads Osprey?",  # one sentence
        "Osprey is noisy. Who leads Osprey now?",  # the question names it itself
        "Osprey is noisy. Who leads it?",  # a pronoun: no noun to point back with
        "Osprey calls a service. Who owns that service?",  # something else to point to
        "Trace Osprey two dependencies down: who maintains that service?",
        "Take Osprey's lead. Where does that person sit?",  # the lead, not Osprey
        "Osprey is failing because its upstream is flaky. Who owns that upstream?",
        "Context: the team Osprey is on. Who should I escalate to about that team?",
        "Nothing is named here. Who leads that team?",
        "Osprey and ledger are noisy. Who leads that team?",  # which of the two
    ]
    for context in unchanged:
        assert resolved(context, ["osprey", "ledger"]) == context, context
    assert resolved("Who leads that team?", []) == "Who leads that team?"
    # A long context is read at its end; a sentence cut there is not read as a whole.
    long = "x " * RESOLVE_CHARS + "I am reviewing Osprey. Who leads that team?"
    assert resolved(long, osprey) == long
    assert resolved("x. " * RESOLVE_CHARS + "I am reviewing Osprey. Who leads that team?",
                    osprey).endswith("x. Who leads osprey?")  # fmt: skip
