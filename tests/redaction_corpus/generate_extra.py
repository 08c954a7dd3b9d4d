#!/usr/bin/env python3
"""Regenerates extra.tsv: hand-made shapes gitleaks has no generated sample for (private-key
blocks, URLs with credentials, webhooks, cloud keys). Random bodies, never real credentials.
Usage: generate_extra.py > extra.tsv"""
import random, base64, string
rng = random.Random(2026)
A = string.ascii_letters + string.digits
def r(n, al=A): return "".join(rng.choice(al) for _ in range(n))
def split(s):
    a,b=len(s)//3, 2*len(s)//3
    return f"{s[:a]}%%{s[a:b]}%%{s[b:]}"
def b64lines(n):
    body = base64.b64encode(bytes(rng.randrange(256) for _ in range(n))).decode()
    return "\\n".join(body[i:i+64] for i in range(0,len(body),64))
rows=[]
for kind in ["RSA PRIVATE KEY","EC PRIVATE KEY","OPENSSH PRIVATE KEY","DSA PRIVATE KEY","PRIVATE KEY","ENCRYPTED PRIVATE KEY"]:
    body=b64lines(180); rows.append(("private-key", "ssh", f"-----BEGIN {kind}-----\\n{body}\\n-----END {kind}-----", body.split("\\n")[1]))
body=b64lines(200); rows.append(("pgp-private-key-block","pgp", f"-----BEGIN PGP PRIVATE KEY BLOCK-----\\n\\n{body}\\n={r(4)}\\n-----END PGP PRIVATE KEY BLOCK-----", body.split("\\n")[1]))
pk=r(44); rows.append(("putty-private-key","putty", f"PuTTY-User-Key-File-3: ssh-ed25519\\nEncryption: none\\nPrivate-Lines: 1\\n{pk}\\nPrivate-MAC: {r(64,'0123456789abcdef')}", pk))
for scheme,user,host in [("postgres","app","db.internal:5432/app"),("mysql","root","127.0.0.1:3306/shop"),("mongodb+srv","svc","cluster0.ab1cd.mongodb.net/prod"),("amqp","guest","mq.local:5672/"),("https","deploy","git.example.com/org/repo.git")]:
    pw=r(16); rows.append((f"url-credentials-{scheme.split('+')[0]}", scheme.split('+')[0], f"{scheme}://{user}:{pw}@{host}", pw))
pw=r(20); rows.append(("url-credentials-redis","redis", f"redis://:{pw}@cache.internal:6379/0", pw))
k=r(24); rows.append(("slack-webhook-url","slack", f"https://hooks.slack.com/services/T{r(8,string.ascii_uppercase+string.digits)}/B{r(10,string.ascii_uppercase+string.digits)}/{k}", k))
k=r(68,A+'_-'); rows.append(("discord-webhook-url","discord", f"https://discord.com/api/webhooks/{r(18,string.digits)}/{k}", k))
hx="0123456789abcdef"
g=lambda: f"{r(8,hx)}-{r(4,hx)}-{r(4,hx)}-{r(4,hx)}-{r(12,hx)}"
k=r(32,hx); rows.append(("microsoft-teams-webhook","teams", f"https://contoso.webhook.office.com/webhookb2/{g()}@{g()}/IncomingWebhook/{k}/{g()}", k))
rows.append(("stripe-live-secret","stripe", "sk_live_"+r(24)))
rows.append(("stripe-restricted","stripe", "rk_live_"+r(24)))
rows.append(("stripe-webhook-secret","stripe", "whsec_"+r(32)))
rows.append(("aws-secret-access-key","aws", r(40, A+"/+")))
rows.append(("aws-secret-access-key-2","aws", r(18)+"/"+r(21)))
rows.append(("azure-storage-account-key","azure", r(86, A+"+/")+"=="))
sig=f"{r(40)}%2B{r(8)}%3D"; rows.append(("azure-sas-token","azure", f"sv=2022-11-02&ss=bfqt&srt=sco&sp=rwdlacupiytfx&se=2026-12-01T00:00:00Z&st=2026-11-01T00:00:00Z&spr=https&sig={sig}", sig))
rows.append(("docker-pat","docker", "dckr_pat_"+r(27, A+"_-")))
rows.append(("google-oauth-access","google", "ya29."+r(140, A+"_-")))
rows.append(("google-oauth-client-secret","google", "GOCSPX-"+r(28, A+"_-")))
hdr=base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=")
pl=base64.urlsafe_b64encode(('{"sub":"%s","iat":1732300000}'%r(10,string.digits)).encode()).decode().rstrip("=")
jwt=f"{hdr}.{pl}.{r(43,A+'_-')}"
rows.append(("jwt-hs256","jwt", jwt))
rows.append(("jwt-base64","jwt", base64.b64encode(jwt.encode()).decode()))
rows.append(("openai-project-key","openai", "sk-proj-"+r(48, A+"_-")))
rows.append(("anthropic-short","anthropic", "sk-ant-api03-"+r(40, A+"_-")))
rows.append(("npm-token","npm","npm_"+r(36)))
rows.append(("pypi-token","pypi","pypi-AgEIcHlwaS5vcmc"+r(60,A+"_-")))
rows.append(("vault-hvs","vault","hvs."+r(95,A+"_-")))
rows.append(("hf-token","huggingface","hf_"+r(34,string.ascii_letters)))
rows.append(("gitlab-pat-plain","gitlab","glpat-"+r(20,A+"_-")))
k=r(32,hx); rows.append(("sentry-dsn","sentry", f"https://{k}@o{r(6,string.digits)}.ingest.sentry.io/{r(7,string.digits)}", k))
rows.append(("generic-password-hunter","db", "hunter2hunter2"))
rows.append(("generic-password-random","db", r(14, A+"!#$%^*")))
rows.append(("generic-secret-hex","app", r(64,hx)))
rows.append(("generic-secret-b64","app", base64.b64encode(bytes(rng.randrange(256) for _ in range(32))).decode()))
rows.append(("basic-auth-b64","http", base64.b64encode(f"deploy:{r(16)}".encode()).decode()))
print("# rule\tprovider\tsecret\tthe part that must not survive (hand-made shapes; both split by %%, \\n is a newline; see README.md)")
for row in rows:
    a, b, c = row[:3]
    core = row[3] if len(row) > 3 else c
    print(f"{a}\t{b}\t{split(c)}\t{split(core)}")
