"""Writes tests/data/secrets_labelled.jsonl: texts with a known secret (label "secret") or none
("clean"). Run from the repository root; seeded, so the file is the same each time."""

import base64
import json
import random
import string

rng = random.Random(18)


def rnd(n, alphabet=string.ascii_letters + string.digits):
    while True:
        s = "".join(rng.choice(alphabet) for _ in range(n))
        if any(c.isdigit() for c in s) and any(c.isalpha() for c in s):
            return s


def hexs(n):
    return rnd(n, "0123456789abcdef")


ZW = "\u200b"
pos = []  # (text, secret, category)


def P(text, secret, cat):
    pos.append({"label": "secret", "category": cat, "text": text, "secret": secret})


# --- provider tokens
for prefix, n, _provider in [
    ("ghp_", 36, "github"),
    ("gho_", 36, "github"),
    ("github_pat_11A", 70, "github"),
    ("glpat-", 20, "gitlab"),
    ("xoxb-1234567890-", 24, "slack"),
    ("sk-proj-", 40, "openai"),
    ("sk-ant-api03-", 60, "anthropic"),
    ("sk_live_", 24, "stripe"),
    ("AIza", 35, "google"),
    ("hf_", 34, "huggingface"),
    ("npm_", 36, "npm"),
    ("dckr_pat_", 27, "docker"),
    ("SG.", 22, "sendgrid"),
]:
    tok = prefix + rnd(n)
    if prefix == "SG.":
        tok = tok + "." + rnd(43)
    P(f"use {tok} for the deploy", tok, "provider_token")
    P(
        f"token: {tok[: len(tok) // 2]}{ZW}{tok[len(tok) // 2 :]}",
        f"{tok[: len(tok) // 2]}{ZW}{tok[len(tok) // 2 :]}",
        "zero_width",
    )
aws = "AKIA" + rnd(16, string.ascii_uppercase + string.digits)
P(f"access key {aws}", aws, "provider_token")
P(
    f"AWS_SECRET_ACCESS_KEY={rnd(40, string.ascii_letters + string.digits + '/+')}",
    None,
    "assignment",
)
P("123456789:AA" + rnd(33), None, "provider_token")
# --- assignments of many shapes
for key, sep in [
    ("DB_PASS", "="),
    ("DB_PASSWORD", "="),
    ("db_pass", ": "),
    ("pw", ": "),
    ("PW", "="),
    ("pwd", "="),
    ("passwd", ": "),
    ("password", " = "),
    ("secret", ": "),
    ("SECRET_KEY", "="),
    ("client_secret", ": "),
    ("api_key", " = "),
    ("apiKey", ": "),
    ("API_TOKEN", "="),
    ("access_token", "="),
    ("auth_token", ": "),
    ("MYSQL_ROOT_PASSWORD", "="),
    ("PGPASSWORD", "="),
    ("redis_pass", "="),
    ("smtp_password", ": "),
]:
    v = rnd(rng.randint(8, 24), string.ascii_letters + string.digits + "!@#%^&*")
    P(f"{key}{sep}{v}", v, "assignment")
    q = rnd(14)
    P(f'{key}{sep}"{q}"', q, "assignment_quoted")
P('{"password": "' + (v := rnd(12)) + '"}', v, "json")
P("password:\t" + (v := rnd(10)), v, "assignment")
P("  pw: " + (v := "hunter2" + rnd(3)), v, "assignment")
P("export DB_PASS=" + (v := rnd(16)), v, "assignment")
P("ENV PASSWORD=" + (v := rnd(16)), v, "assignment")
# --- passphrases
for words in [
    "correct horse battery staple",
    "purple monkey dishwasher elephant",
    "orbit velvet cactus lantern meadow",
    "tango cobalt river spoon",
    "Gravel Tundra Pickle Harbor",
]:
    P(f"password: {words}", words, "passphrase")
    P(f"my wifi passphrase is {words}", words, "passphrase")
    P(f"pw = {words}", words, "passphrase")
P("passphrase: correct-horse-battery-staple", "correct-horse-battery-staple", "passphrase")
# --- hex keys
for n in (32, 40, 64):
    h = hexs(n)
    P(h, h, "hex_alone")
    P(f"here is the api key {hexs(n) if False else h}", h, "hex_context")
    P(f"signing secret:\n{h}\n", h, "hex_alone")
    P(f"WEBHOOK_SECRET {h}", h, "hex_context")
P(f"my token {hexs(64).upper()}", None, "hex_context")
# --- URLs that grant access
P(
    f"https://maps.googleapis.com/maps/api/staticmap?center=Paris&key={(v := rnd(30))}",
    v,
    "url_query",
)
P(
    f"https://bucket.s3.amazonaws.com/report.pdf?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIA{rnd(16, string.ascii_uppercase + string.digits)}%2F20240101%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20240101T000000Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host&X-Amz-Signature={(v := hexs(64))}",
    v,
    "url_query",
)
P(
    f"https://acct.blob.core.windows.net/c/f.txt?sv=2022-11-02&ss=b&srt=o&sp=r&se=2025-01-01&sig={(v := rnd(43) + '%3D')}",
    v,
    "url_query",
)
P(f"https://api.example.com/v1/data?access_token={(v := rnd(32))}", v, "url_query")
P(f"https://example.com/callback#access_token={(v := rnd(40))}&token_type=bearer", v, "url_query")
P(f"https://example.com/oauth/cb?code={(v := rnd(24))}&state=xyz", v, "url_query")
P(f"https://api.example.com/v2/key/{(v := rnd(32))}/status", v, "url_path")
P(
    f"https://hooks.slack.com/services/T{rnd(8, string.ascii_uppercase + string.digits)}/B{rnd(8, string.ascii_uppercase + string.digits)}/{rnd(24)}",
    None,
    "webhook",
)
P(f"https://discord.com/api/webhooks/123456789012345678/{rnd(60)}", None, "webhook")
P(f"https://deploy:{(v := rnd(12))}@git.example.com/repo.git", v, "url_credentials")
P(f"https://user:{(v := rnd(10))}@{ZW}db.example.com", v, "url_credentials")
# --- prose and CLI
P(f"the wifi password is {(v := rnd(10))}", v, "stated")
P(f"curl -u admin:{(v := rnd(12))} https://x", v, "cli")
P(f"mysql -u root -p{(v := rnd(12))} db", v, "cli")
P(f"Authorization: Bearer {(v := rnd(40))}", v, "header")
# --- homoglyphs and format characters
tok = "ghp_" + rnd(36)
P(tok.replace("p", "\u0440", 1), tok.replace("p", "\u0440", 1), "homoglyph")  # Cyrillic er
P("".join(chr(ord(c) + 0xFEE0) if c.isalnum() or c == "_" else c for c in tok), None, "fullwidth")
P(tok[:10] + "\u00ad" + tok[10:], tok[:10] + "\u00ad" + tok[10:], "soft_hyphen")
P(tok[:10] + "\u2060" + tok[10:20] + "\ufeff" + tok[20:], None, "format_chars")
P("sk\u2010proj\u2010" + rnd(40), None, "homoglyph")
P("ghp\\_" + rnd(36), None, "markdown_escape")
# --- generic random
P(f"blob {(v := rnd(40))} here", v, "high_entropy")
P(
    f"-----BEGIN OPENSSH PRIVATE KEY-----\n{rnd(64)}\n-----END OPENSSH PRIVATE KEY-----",
    None,
    "private_key",
)
pem = base64.b64encode(
    b"-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n"
    * 3
).decode()
P(f"tls.key: {pem}", pem, "encoded")
P(f"data {pem}", pem, "encoded")


# Known misses, kept to measure them: a lone dictionary word or a short number stated in prose
# reads like any sentence ("the password is 12 characters"), and a key split by a space.
def K(text, secret, cat):
    pos.append(
        {"label": "secret", "category": cat, "text": text, "secret": secret, "known_miss": True}
    )


K("the password is swordfish", "swordfish", "stated_word")
K("my PIN is 4821", "4821", "pin")
K("the door code is 7731#", "7731#", "stated_other_key")
K("ghp_" + "aB3d" + " " + rnd(32), None, "split_by_space")
K(
    "here is my key: " + "".join(rng.choice(string.ascii_lowercase) for _ in range(12)),
    None,
    "short_lowercase_key",
)
neg = []


def N(text, cat):
    neg.append({"label": "clean", "category": cat, "text": text})


N("https://docs.google.com/document/d/1AbC" + rnd(40) + "/edit?usp=sharing", "url_id")
N("https://docs.google.com/spreadsheets/d/1" + rnd(43) + "/copy", "url_id")
N("https://drive.google.com/file/d/1" + rnd(32) + "/view?usp=share_link", "url_id")
N(
    "https://www.semanticscholar.org/paper/Attention-is-All-you-Need-Vaswani-Shazeer/" + hexs(40),
    "url_id",
)
N("https://www.semanticscholar.org/paper/" + hexs(40), "url_id")
N("https://github.com/pallets/flask/commit/" + hexs(40), "url_id")
N("https://github.com/pallets/flask/blob/" + hexs(40) + "/src/flask/app.py#L10", "url_id")
N("https://www.youtube.com/watch?v=dQw4w9WgXcQ&list=PL" + rnd(32), "url_id")
N("https://www.youtube.com/playlist?list=PLKI1h_nAkaQoDzGe4_pk-NCk8KsbQdiyc", "url_id")
N("https://app.box.com/s/" + rnd(32, string.ascii_lowercase + string.digits), "url_id")
N("https://www.cambridge.org/core/journals/x/article/some-title/" + hexs(32).upper(), "url_id")
N(
    "https://example.com/?gclid=Cj0KCQiA2af-BRDzARIsAIVQUOdNiV5qT_0YS1w4gKgpaTrSKxbqsipzwnWWzk",
    "url_tracking",
)
N("https://example.com/a?utm_source=x&fbclid=IwAR" + rnd(40), "url_tracking")
N("https://arxiv.org/abs/2106.09685", "url_id")
N("https://pubmed.ncbi.nlm.nih.gov/" + "34567890/", "url_id")
N("https://www.notion.so/My-Page-" + hexs(32), "url_id")
N("https://figma.com/file/" + rnd(22) + "/Design", "url_id")
N("https://example.com/reset?hotkey=ctrl&sortkey=name", "url_param")
N("https://api.example.com/items?key={api_key}", "url_placeholder")
N("commit " + hexs(40) + " fixed the bug", "hex_digest")
N("sha256: " + hexs(64), "hex_digest")
N("The file's md5 is " + hexs(32), "hex_digest")
N("git checkout " + hexs(40), "hex_digest")
N("request id " + hexs(32), "hex_digest")
N("uuid " + hexs(32), "hex_digest")
N("see " + hexs(40) + " and the files it changed", "hex_inline")
N("password: stored in the team vault", "prose")
N("password: must be at least twelve characters long", "prose")
N("The password is stored in 1Password.", "prose")
N("Day pass: $20 at the gate", "prose")
N("Boarding pass: gate 12", "prose")
N("I'll share a secret: **dry brining**. A dry brine is salt", "prose")
N("secret: the key lives in vault", "prose")
N("My password manager is the best thing I use every day", "prose")
N("Her passphrase is something only she would know", "prose")
N("password: <your-password>", "placeholder")
N("api_secret={$api_secret}", "placeholder")
N("redirect(f'{url}?uid={uid}&token={token}')", "placeholder")
N("$publicKeyCredential = $server->createAndCheckAttestation($_POST, $opts);", "code")
N("credentials:\n  credential1:\n    api_key: <API_KEY_1>", "placeholder")
N("GOOGLE_APPLICATION_CREDENTIALS=/app/credentials/google.json", "path")
N("- ./credentials:/app/credentials", "path")
N("Ski pass: Epic Pass", "prose")
N("data:image/png;base64," + base64.b64encode(bytes(range(256)) * 4).decode(), "data")
N("Пароль от вайфая знает только мама", "non_latin")
N("Мой любимый фильм — «Брат», 1997 год.", "non_latin")
N("café naïve résumé — “quoted” text…", "non_latin")
N("AbstractSingletonProxyFactoryBean", "identifier")
N("UUID 0f8fad5b-d9cb-469f-a165-70867728950e", "identifier")
# A second round, written after the first passed: credentials in config files, code and
# prose of other shapes and languages (13 of these 30 were missed when first tried).
for text, secret in [
    ("//registry.npmjs.org/:_authToken=npm_Zx8Lq2Mn5Vb7Kc9Xw3RtQp4Ab6Cd8Ef0Gh2J", None),
    ('{"auths": {"ghcr.io": {"auth": "dXNlcjpTM2NyM3RQYXNzIQ=="}}}', "dXNlcjpTM2NyM3RQYXNzIQ=="),
    ("data:\n  password: UzNjcjN0UGFzcyE=", "UzNjcjN0UGFzcyE="),
    ("Server=tcp:db.example.com;Database=app;User Id=sa;Password=Zx8q2Lm9vR;", "Zx8q2Lm9vR"),
    ("jdbc:mysql://db:3306/app?user=root&password=Zx8q2Lm9vR", "Zx8q2Lm9vR"),
    ("mongodb+srv://app:Zx8q2Lm9vR@cluster0.abcde.mongodb.net/db", "Zx8q2Lm9vR"),
    ("AccountName=acct;AccountKey=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdoaWprbG1ub3A=;", None),
    ("git clone https://ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789@github.com/o/r.git", None),
    ("git clone https://x-access-token:Zx8q2Lm9vRabc@github.com/o/r.git", "Zx8q2Lm9vRabc"),
    ("machine api.example.com login alice password Zx8q2Lm9vR", "Zx8q2Lm9vR"),
    ("PGPASSWORD=Zx8q2Lm9vR psql -h db -U app", "Zx8q2Lm9vR"),
    ('requests.get(url, auth=("alice", "Zx8q2Lm9vR"))', "Zx8q2Lm9vR"),
    ("-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQdGBF\n-----END PGP PRIVATE KEY BLOCK-----", None),
    (
        "[pypi]\nusername = __token__\npassword = pypi-AgEIcHlwaS5vcmcCJDEyMzQ1Njc4LTEyMzQtMTIzNC0x",
        None,
    ),
    ("The root password for the NAS: Zx8q2Lm9vR", "Zx8q2Lm9vR"),
    ("my bank PIN is 4821 and the password is blue42sky", "blue42sky"),
    ("wifi: network HomeNet, password Zx8q2Lm9vR", "Zx8q2Lm9vR"),
    ("Login: alice / Zx8q2Lm9vR!", "Zx8q2Lm9vR!"),
    ("creds alice:Zx8q2Lm9vR!", "Zx8q2Lm9vR!"),
    ("OPENAI_API_KEY=sk-Zx8q2Lm9vRZx8q2Lm9vRZx8q2Lm9vRT3BlbkFJZx8q2Lm9vRZx8q2Lm9vR", None),
    ("export STRIPE_SECRET=rk_live_51Hx8q2Lm9vRZx8q2Lm9vRZx8q2", None),
    ("x-api-key: Zx8q2Lm9vRZx8q2Lm9vRab", "Zx8q2Lm9vRZx8q2Lm9vRab"),
    ("X-API-KEY: 9f86d081884c7d659a2feaa0c55ad015", "9f86d081884c7d659a2feaa0c55ad015"),
    ("heroku api key 01234567-89ab-cdef-0123-456789abcdef", None),
    ("sudo password is Zx8q2Lm9vR", "Zx8q2Lm9vR"),
    ("the password for alice is Zx8q2Lm9vR", "Zx8q2Lm9vR"),
    ("password for the router: Zx8q2Lm9vR", "Zx8q2Lm9vR"),
    ("Passwort: Zx8q2Lm9vR", "Zx8q2Lm9vR"),
    ("mot de passe: Zx8q2Lm9vR", "Zx8q2Lm9vR"),
    ("contraseña: Zx8q2Lm9vR", "Zx8q2Lm9vR"),
]:
    P(text, secret, "second_round")
for text in [
    "The password for the account is stored in the vault",
    "Password Manager is great",
    "the password reset link expired",
    "Login: alice / home",
    "creds are in the vault",
    "password policy for all users: 12 chars",
    "my password for everything is the same",
    "Login with Google / Apple",
    "the api key for maps is in settings",
    "request id 01234567-89ab-cdef-0123-456789abcdef",
    "the password of my dreams",
    "He said the password 3 times",
    '{"auth": "bearer"}',
    "auth=(user, password)",
]:
    N(text, "second_round")
with open("tests/data/secrets_labelled.jsonl", "w", encoding="utf-8") as fh:
    for row in pos + neg:
        fh.write(json.dumps(row, ensure_ascii=False) + "\n")
print(len(pos), "positives", len(neg), "negatives")
