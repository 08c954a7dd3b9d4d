#!/usr/bin/env python3
"""Regenerates handwritten.jsonl: secrets as people paste them into notes, commands and configs,
one line each, in forms the generated contexts do not cover (XML and .NET config pairs, command
line password flags, connection strings, Bundler and Sidekiq credentials, JWTs wrapped in
base64 or after `Bearer` in a sentence, provider keys without a prefix named in a sentence).
Random bodies, never real credentials; the secret is stored split by `%%`.

Usage: generate_handwritten.py > handwritten.jsonl
"""
import base64
import json
import random
import string

rng = random.Random(25)
A = string.ascii_letters + string.digits
HEX = "0123456789abcdef"


def r(n, al=A):
    return "".join(rng.choice(al) for _ in range(n))


def pw(n=14):
    """A password: letters and digits with a symbol or two."""
    s = list(r(n - 2) + rng.choice("!@#%^*") + rng.choice(string.digits))
    rng.shuffle(s)
    return "".join(s)


def b64url(raw):
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def jwt():
    head = b64url(b'{"alg":"HS256","typ":"JWT"}')
    body = b64url(json.dumps({"sub": r(10, string.digits), "iat": 1732300000}).encode())
    return f"{head}.{body}.{b64url(bytes(rng.randrange(256) for _ in range(32)))}"


def split(s):
    return s[: len(s) // 2] + "%%" + s[len(s) // 2:]


rows = []


def add(rule, template, secret, core=None):
    core = core or secret
    rows.append({"rule": rule, "text": template.replace("{s}", split(secret)),
                 "secret": split(secret), "core": split(core)})


# XML and .NET configuration.
for key in ["Password", "ClearTextPassword", "ApiKey", "ClientSecret", "AccessToken"]:
    add("xml-add-key", f'<add key="{key}" value="{{s}}" />', pw())
add("xml-entry", '<entry key="smtp.password" value="{s}"/>', pw())
add("xml-element", "<password>{s}</password>", pw())
add("dotnet-connection-string",
    '"DefaultConnection": "Server=db;Database=app;User Id=sa;Password={s};"', pw())
add("jdbc-property", "spring.datasource.password={s}", pw())
add("java-system-property", "java -Djavax.net.ssl.keyStorePassword={s} -jar app.jar", pw())
# Command lines.
p = pw(); add("curl-user", f"curl -u deploy:{{s}} https://ci.example.com/api", p)
p = pw(); add("curl-user", f'curl --user "admin:{{s}}" https://registry.example.com/v2/', p)
p = pw(); add("curl-user", f"curl --user=ops:{{s}} -X POST https://x.example.com", p)
add("mysql-p", "mysql -u root -p{s} shop < dump.sql", pw())
add("mysqldump-p", "mysqldump -uadmin -p{s} --all-databases > all.sql", pw())
add("password-flag", "mysql --password {s} -h db.internal", pw())
add("password-flag", "docker login -u ci --password {s} registry.example.com", pw())
add("password-flag", "psql --host db --password={s}", pw())
add("pgpassword", "PGPASSWORD={s} psql -h db.internal -U app", pw())
add("pgpassword", "MYSQL_PWD={s} mysql -h db", pw())
add("sshpass", "sshpass -p {s} ssh deploy@10.0.0.5", pw())
add("redis-cli", "redis-cli -h cache -a {s} ping", pw())
add("openssl-pass", "openssl pkcs12 -export -out cert.p12 -passout pass:{s}", pw())
add("htpasswd", "htpasswd -b -c .htpasswd admin {s}", pw())
add("kubectl-literal", "kubectl create secret generic db --from-literal=password={s}", pw())
add("netrc", "machine api.example.com login deploy password {s}", pw())
add("git-credentials", "https://deploy:{s}@github.com", r(40))
add("npmrc", "//registry.npmjs.org/:_authToken={s}", r(36))
add("mongo-p", "mongosh -u admin -p {s} --authenticationDatabase admin", pw())
add("ldap-w", "ldapsearch -x -D cn=admin,dc=example,dc=org -w {s} -b dc=example,dc=org", pw())
add("keytool", "keytool -importkeystore -srckeystore a.p12 -storepass {s} -noprompt", pw())
add("zip-P", "zip -r -P {s} backup.zip data/", pw())
add("sqlcmd-P", "sqlcmd -S db -U sa -P {s} -Q 'select 1'", pw())
add("smbclient-U", "smbclient //fs/share -U deploy%{s}", pw())
add("wget-password", "wget --user=deploy --password={s} https://files.example.com/a.tar", pw())
add("helm-set", "helm install app ./chart --set auth.password={s}", pw())
add("terraform-var", 'terraform apply -var "db_password={s}"', pw())
add("aws-configure", "aws configure set aws_secret_access_key {s}", r(40, A + "/+"))
add("heroku-config", "heroku config:set STRIPE_SECRET={s} -a shop", r(32))
add("git-remote", "git remote set-url origin https://x-access-token:{s}@github.com/org/repo.git", r(40))
add("psql-conninfo", 'psql "host=db.internal user=app password={s} dbname=app"', pw())
add("pypirc", "password = {s}", "pypi-" + r(60, A + "-_"))
add("vault-login", "vault login {s}", "hvs." + r(90, A + "-_"))
# Bundler / Sidekiq.
u, p = r(8, HEX), r(8, HEX)
add("bundler", f"BUNDLE_ENTERPRISE__CONTRIBSYS__COM={u}:{{s}}", p)
u, p = r(8, HEX), r(8, HEX)
add("bundler", f'bundle config set --global gems.contribsys.com {u}:{{s}}', p)
u, p = r(8, HEX), r(8, HEX)
add("sidekiq-url", f"source \"https://{u}:{{s}}@enterprise.contribsys.com/\"", p)
u, p = r(8, HEX), r(8, HEX)
add("bundler", f"export BUNDLE_GEMS__CONTRIBSYS__COM=\"{u}:{{s}}\"", p)
# JWTs.
t = jwt(); add("jwt-bearer-sentence", "I called the API with Bearer {s} and it returned 403.", t)
t = jwt(); add("jwt-bearer-sentence", "the session cookie was {s}, expired now", t)
for pad in ["", "x", "xy"]:
    t = jwt()
    blob = base64.b64encode(f'{pad}{{"access_token":"{t}"}}'.encode()).decode()
    add("jwt-in-base64", "the config map holds {s} under data.auth", blob)
# Provider keys without a prefix of their own, named in a sentence.
for provider, body in [("Mailgun", r(32, HEX)), ("Algolia", r(32, HEX)), ("Datadog", r(40, HEX)),
                       ("Twilio", r(32, HEX)), ("Okta", "00" + r(40, A + "-_")),
                       ("Heroku", "-".join([r(8, HEX), r(4, HEX), r(4, HEX), r(4, HEX), r(12, HEX)])),
                       ("Dropbox", r(15, string.ascii_lowercase + string.digits)),
                       ("Finnhub", r(20, string.ascii_lowercase + string.digits)),
                       ("Sendbird", r(40, HEX)), ("Contentful", r(43, A + "-_"))]:
    add("provider-in-sentence", f"The {provider} key is {{s}} for now.", body)
    add("provider-in-sentence", f"I pasted {{s}} into the {provider} dashboard by mistake.", body)
# Config files.
add("dotenv", "DB_PASSWORD={s}", pw())
add("yaml", "    password: {s}", pw())
add("yaml", '  api_key: "{s}"', r(32))
add("toml", 'token = "{s}"', r(40))
add("ini", "secret_key = {s}", r(50, A + "!@#%^&*-_=+"))
add("authorization", "Authorization: token {s}", "ghp_" + r(36))
add("authorization", '-H "X-Api-Key: {s}"', r(32))

for row in rows:
    print(json.dumps(row, ensure_ascii=False))
