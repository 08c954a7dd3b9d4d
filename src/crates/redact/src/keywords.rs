//! Words that say "a secret is here": in key names (`DB_PASSWORD`, `stripeKey`) and in prose
//! ("the Mailgun key is …").

/// A key whose value is a secret whatever it looks like, compared on the key lowercased with
/// non-alphanumerics removed, at its end: `DB_PASSWORD`, `apiKey`, `--auth-token` match;
/// `max_tokens`, `TOKEN_BUDGET`, `password_reset_url`, `API_KEY_FILE` do not.
const STRONG_ENDINGS: &[&str] = &[
    "password",
    "passwd",
    "pwd",
    "passphrase",
    "secret",
    "token",
    "apikey",
    "accesskey",
    "privatekey",
    "secretkey",
    "signingkey",
    "encryptionkey",
    "masterkey",
    "credential",
    "credentials",
    "creds",
    "auth",
    "authorization",
];

/// A key whose value is a secret only when it also looks random (`…_KEY`, `sig`, `…_DSN`):
/// `sortKey: createdAt` and `sequenceKey = "18"` stay.
const WEAK_ENDINGS: &[&str] = &[
    "key",
    "pat",
    "sig",
    "signature",
    "dsn",
    "webhook",
    "webhookurl",
    "cookie",
    "sessionid",
    "licensekey",
];

/// Providers whose keys have no recognisable shape of their own, named as gitleaks' rules name
/// them: a key or a sentence naming one marks a random-looking value as a secret. Ordinary
/// English words (`square`, `linear`, `age`) are left out; their tokens have a shape.
pub const PROVIDERS: &[&str] = &[
    "1password",
    "adafruit",
    "adobe",
    "airtable",
    "algolia",
    "alibaba",
    "anthropic",
    "artifactory",
    "asana",
    "atlassian",
    "authress",
    "aws",
    "azure",
    "beamer",
    "bintray",
    "bitbucket",
    "bittrex",
    "clickhouse",
    "clojars",
    "cloudflare",
    "codecov",
    "cohere",
    "coinbase",
    "confluence",
    "confluent",
    "contentful",
    "contribsys",
    "databricks",
    "datadog",
    "digitalocean",
    "discord",
    "dnkey",
    "docker",
    "doppler",
    "droneci",
    "dropbox",
    "duffel",
    "dynatrace",
    "easypost",
    "etsy",
    "facebook",
    "fastly",
    "finicity",
    "finnhub",
    "flickr",
    "flutterwave",
    "flyio",
    "frameio",
    "freshbooks",
    "gcp",
    "github",
    "gitlab",
    "gitter",
    "gocardless",
    "google",
    "grafana",
    "heroku",
    "hubspot",
    "huggingface",
    "infracost",
    "intercom",
    "jfrog",
    "jira",
    "jwt",
    "kraken",
    "kucoin",
    "launchdarkly",
    "linkedin",
    "looker",
    "mailchimp",
    "mailgun",
    "mapbox",
    "mattermost",
    "maxmind",
    "meraki",
    "messagebird",
    "netlify",
    "newrelic",
    "notion",
    "npm",
    "nytimes",
    "octopus",
    "okta",
    "openai",
    "openshift",
    "perplexity",
    "plaid",
    "planetscale",
    "postman",
    "privateai",
    "pulumi",
    "pypi",
    "rapidapi",
    "rubygems",
    "scalingo",
    "sendbird",
    "sendgrid",
    "sendinblue",
    "sentry",
    "settlemint",
    "shippo",
    "shopify",
    "sidekiq",
    "slack",
    "snyk",
    "sonar",
    "sourcegraph",
    "squarespace",
    "stripe",
    "sumologic",
    "telegram",
    "terraform",
    "travisci",
    "twilio",
    "twitch",
    "twitter",
    "typeform",
    "vault",
    "yandex",
    "zendesk",
];

/// Secret words in prose: "the key", "my token", "their password".
const PROSE_WORDS: &[&str] = &[
    "key",
    "keys",
    "apikey",
    "token",
    "tokens",
    "secret",
    "secrets",
    "password",
    "passwords",
    "passwd",
    "passphrase",
    "credential",
    "credentials",
    "creds",
    "pat",
    "bearer",
    "dsn",
];

/// Words that, between a secret word and a value, say the value is something else:
/// "key id 8da6…", "token hash …", "secret name …".
const NOT_A_SECRET: &[&str] = &[
    "id",
    "ids",
    "fingerprint",
    "hash",
    "hashes",
    "digest",
    "checksum",
    "sha",
    "commit",
    "version",
    "nonce",
    "name",
    "names",
    "file",
    "path",
    "length",
    "size",
    "format",
    "type",
    "prefix",
    "count",
    "budget",
    "limit",
    "url",
    "endpoint",
    "header",
    "field",
    "column",
];

/// Alphanumeric pieces of a key or word, lowercased: `DB_PASSWORD` → `db`, `password`;
/// `stripeKey` → `stripekey`.
fn pieces(word: &str) -> impl Iterator<Item = String> + '_ {
    word.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|p| !p.is_empty())
        .map(str::to_ascii_lowercase)
}

fn normalized(key: &str) -> String {
    key.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// How strongly a key name says its value is a secret.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyStrength {
    /// Not a secret's name.
    None,
    /// Redact a value that looks random.
    Weak,
    /// Redact any value that is not a placeholder.
    Strong,
}

/// Words in a key that say its value is public or not a credential, whatever the ending:
/// `public_key`, `publicToken`, `STRIPE_PUBLISHABLE_KEY`, `csrf-token` and
/// `authenticity_token` (per-form nonces, not credentials).
const PUBLIC_WORDS: &[&str] = &[
    "public",
    "publishable",
    "pubkey",
    "csrf",
    "xsrf",
    "authenticity", // Rails' name for its CSRF token
];

/// Endings of a key that names a provider but not its secret: `GOOGLE_CLIENT_ID`,
/// `MAILGUN_DOMAIN`, `AWS_REGION`.
const NOT_SECRET_ENDINGS: &[&str] = &[
    "id", "ids", "name", "domain", "region", "email", "user", "username", "host", "port",
    "version", "type", "url", "zone", "project", "org", "account",
];

/// The key says its value is public (`publicKey`, `PUBLISHABLE_KEY`) or not a credential.
pub fn names_public(key: &str) -> bool {
    let norm = normalized(key);
    PUBLIC_WORDS.iter().any(|w| norm.contains(w))
}

pub fn key_strength(key: &str) -> KeyStrength {
    let norm = normalized(key);
    // PWD/OLDPWD are the shell's working directory, not a password.
    if norm.is_empty() || norm == "pwd" || norm == "oldpwd" {
        return KeyStrength::None;
    }
    if names_public(key) {
        return KeyStrength::None;
    }
    if STRONG_ENDINGS.iter().any(|e| norm.ends_with(e)) {
        return KeyStrength::Strong;
    }
    if WEAK_ENDINGS.iter().any(|e| norm.ends_with(e)) {
        return KeyStrength::Weak;
    }
    let last = pieces(key).last().unwrap_or_default();
    if names_provider(key) && !NOT_SECRET_ENDINGS.contains(&last.as_str()) {
        return KeyStrength::Weak;
    }
    KeyStrength::None
}

/// The key or word names a provider: one of its parts (split at `_`, `-`, `.` and camelCase)
/// is the name, or it starts with it: `MAILGUN_DOMAIN`, `stripeKey`, `New-Relic`, `newrelic_x`.
/// `setSystemInfo` does not name Etsy.
pub fn names_provider(word: &str) -> bool {
    let norm = normalized(word);
    if norm.len() < 3 {
        return false;
    }
    let mut parts = Vec::new();
    for piece in word.split(|c: char| !c.is_ascii_alphanumeric()) {
        let mut start = 0;
        for (i, c) in piece.char_indices().skip(1) {
            let prev = piece.as_bytes()[i - 1];
            if c.is_ascii_uppercase() && prev.is_ascii_lowercase() {
                parts.push(piece[start..i].to_ascii_lowercase());
                start = i;
            }
        }
        parts.push(piece[start..].to_ascii_lowercase());
    }
    PROVIDERS
        .iter()
        .any(|p| norm.starts_with(p) || parts.iter().any(|part| part == p))
}

/// A word of prose that marks a nearby random value as a secret. A compound identifier
/// (`key_vault_name`, `token_type`, `publicKey`) is judged by what it names, as a key is.
pub fn is_prose_keyword(word: &str) -> bool {
    let compound = word.contains(['_', '-', '.'])
        || word
            .as_bytes()
            .windows(2)
            .any(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase());
    if compound {
        return key_strength(word) != KeyStrength::None;
    }
    pieces(word).any(|p| PROSE_WORDS.contains(&p.as_str()))
        || key_strength(word) != KeyStrength::None && word.len() > 3
        || names_provider(word)
}

/// A word that says the nearby value is an id, a hash, a name (see [`NOT_A_SECRET`]).
pub fn is_not_a_secret_word(word: &str) -> bool {
    pieces(word).any(|p| NOT_A_SECRET.contains(&p.as_str()))
}
