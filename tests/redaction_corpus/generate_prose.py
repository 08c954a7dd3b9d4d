import random, string, base64, uuid
rng = random.Random(7)
hx = "0123456789abcdef"
def h(n): return "".join(rng.choice(hx) for _ in range(n))
def u(): return str(uuid.UUID(int=rng.getrandbits(128), version=4))
def b64(n): return base64.b64encode(bytes(rng.randrange(256) for _ in range(n))).decode()
def b64url(n): return base64.urlsafe_b64encode(bytes(rng.randrange(256) for _ in range(n))).decode().rstrip("=")
files = ["src/store.rs","src/auth/token.rs","crates/web/src/session.rs","tests/login.rs","src/redact.rs","docs/security.md","hooks/src/context_watch.rs","src/cli/write.rs","app/models/api_key.rb","lib/secrets.ex","pkg/auth/jwt.go","web/src/hooks/useToken.ts","migrations/0042_add_api_keys.sql","config/credentials.yml.enc","scripts/rotate_keys.sh"]
words = ["token refresh","password reset","session expiry","API key listing","secret rotation","login throttling","key derivation","auth middleware","credential cache","OAuth callback"]
T = [
 lambda: f"Commit {h(40)} fixed the {rng.choice(words)} bug.",
 lambda: f"The {rng.choice(words)} change landed in {h(7)}; {h(7)} reverts the first attempt.",
 lambda: f"HEAD is {h(40)} on branch feature/{rng.choice(['token-refresh','auth-rework','key-rotation','secrets-ui'])}.",
 lambda: f"Rebased onto origin/main at {h(12)}; no conflicts in {rng.choice(files)}.",
 lambda: f"git bisect points at {h(10)} (\"{rng.choice(words)}: handle empty input\").",
 lambda: f"Request id {u()} shows the 401 in the auth service logs.",
 lambda: f"The failing session id was {u()}; it expired at 14:02 UTC.",
 lambda: f"Trace {h(32)} span {h(16)} covers the slow token exchange.",
 lambda: f"The user id in the bug report is {u()}.",
 lambda: f"Tenant {u()} has the old API key format and needs the migration.",
 lambda: f"The image digest is sha256:{h(64)}.",
 lambda: f"Checksum of the release tarball: sha256 {h(64)}.",
 lambda: f"The lockfile hash changed from {h(64)} to {h(64)} after the update.",
 lambda: f"md5 of the fixture is {h(32)}; the test compares it.",
 lambda: f"The ETag for /api/keys is W/\"{h(16)}\" and changes on every rotation.",
 lambda: f"Subresource integrity for the widget: sha384-{b64(48)}.",
 lambda: f"The YouTube id in the docs is {b64url(8)[:11]}.",
 lambda: f"The blob id {b64url(15)} in the storage logs points at the old avatar.",
 lambda: f"Object key uploads/{u()}/avatar.png is what the client requests.",
 lambda: f"Edit {rng.choice(files)} around line {rng.randint(10,900)}: the {rng.choice(words)} branch is wrong.",
 lambda: f"Ran cargo test -p handover --test {rng.choice(['redact','store','cli','verify'])}: {rng.randint(5,90)} passed.",
 lambda: f"The {rng.choice(words)} test takes {rng.randint(2,900)} ms on CI and {rng.randint(1,90)} ms locally.",
 lambda: f"Version {rng.randint(0,3)}.{rng.randint(0,20)}.{rng.randint(0,9)} of the auth library changed the token type.",
 lambda: f"Build {rng.randint(2025,2026)}{rng.randint(1,12):02d}{rng.randint(1,28):02d}.{rng.randint(1,9)} is the last green one.",
 lambda: f"The nonce for the replay test is fixed to {h(24)} so the snapshot is stable.",
 lambda: f"Key id {h(16)} in the JWKS is the current signing key; the previous one is {h(16)}.",
 lambda: f"The public key fingerprint is SHA256:{b64(32).rstrip('=')}.",
 lambda: f"Stored the password hash as $argon2id$v=19$m=19456,t=2,p=1${b64(16).rstrip('=')}${b64(32).rstrip('=')} in the fixture.",
 lambda: f"The migration renames column api_key to api_key_hash in table {rng.choice(['accounts','tenants','users'])}.",
 lambda: f"Issue #{rng.randint(100,999)}: the {rng.choice(words)} page shows a blank screen.",
 lambda: f"Pinned actions/checkout to {h(40)} as the security policy requires.",
 lambda: f"The CI run https://github.com/acme/app/actions/runs/{rng.randint(10**9,10**10)} failed on the token test.",
 lambda: f"Correlation id {h(8)}-{h(4)} appears twice in the gateway log.",
 lambda: f"The cache key for the {rng.choice(['cargo','npm','pip'])} step is {rng.choice(['linux','macos'])}-{h(16)}.",
 lambda: f"Device code {''.join(rng.choice(string.ascii_uppercase) for _ in range(4))}-{''.join(rng.choice(string.ascii_uppercase) for _ in range(4))} is shown to the user during login.",
 lambda: f"The feature flag rollout id is {rng.choice(['ff','exp'])}_{h(12)}.",
 lambda: f"Customer {rng.choice(['cus','acct','sub'])}_{''.join(rng.choice(string.ascii_letters+string.digits) for _ in range(14))} reported the {rng.choice(words)} issue.",
 lambda: f"Backup stored at /var/backups/app/{rng.randint(2025,2026)}-{rng.randint(1,12):02d}-{rng.randint(1,28):02d}/db.sql.gz ({rng.randint(10,900)} MB).",
 lambda: f"The path ~/.config/app/{rng.choice(['token','credentials','keys'])}/ is created with mode 0700.",
 lambda: f"The Docker layer {h(12)} is rebuilt whenever {rng.choice(files)} changes.",
]
out=[]
for i in range(300):
    out.append(T[i % len(T)]())
print("\n".join(out))
