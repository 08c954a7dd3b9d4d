//! Secrets inside URLs: `scheme://user:PASSWORD@host` (only the password goes), a key used as
//! the user (`https://<key>@o1.ingest.sentry.io`), and webhook URLs whose path is the secret
//! (Slack, Discord, Microsoft Teams).

use crate::gate::looks_like_secret;
use crate::needle::Needle;
use crate::span::Span;

static SCHEME_END: Needle = Needle::new("://");

pub fn find(text: &str, out: &mut Vec<Span>) {
    credentials(text, out);
    webhooks(text, out);
}

fn ends_url(c: char) -> bool {
    c.is_whitespace() || matches!(c, '/' | '?' | '#' | '"' | '\'' | '<' | '>' | '`' | '\\')
}

fn is_placeholder(s: &str) -> bool {
    s.starts_with(['$', '{', '<', '[', '%', '*']) || s.bytes().all(|b| b == b'*' || b == b'x')
}

fn credentials(text: &str, out: &mut Vec<Span>) {
    let mut from = 0;
    while let Some(i) = SCHEME_END.find_from(text, from) {
        let auth_start = i + 3;
        let auth_len = text[auth_start..]
            .find(ends_url)
            .unwrap_or(text.len() - auth_start);
        from = auth_start + auth_len;
        let scheme_ok = text[..i]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_ascii_alphanumeric());
        let authority = &text[auth_start..auth_start + auth_len];
        let Some(at) = authority.rfind('@') else {
            continue;
        };
        if !scheme_ok {
            continue;
        }
        let userinfo = &authority[..at];
        let (start, end) = match userinfo.find(':') {
            Some(colon) => (colon + 1, at),
            // No password: the user itself is the key when it looks like one (`git@` stays).
            None if looks_like_secret(userinfo) => (0, at),
            None => continue,
        };
        let secret = &authority[start..end];
        // `admin:password@`, `user:changeme@`: documentation's placeholders.
        let placeholder = is_placeholder(secret)
            || secret.len() >= 3
                && crate::gate::value_is_placeholder(secret)
                && !secret.starts_with(crate::span::MARK);
        if !secret.is_empty() && !placeholder {
            out.push(Span::new(
                auth_start + start,
                auth_start + end,
                "url_password",
            ));
        }
    }
}

/// The host and path a webhook URL starts with; everything after it is the secret.
static WEBHOOKS: [Needle; 6] = [
    Needle::new("hooks.slack.com/services/"),
    Needle::new("hooks.slack.com/workflows/"),
    Needle::new("hooks.slack.com/triggers/"),
    Needle::new("discord.com/api/webhooks/"),
    Needle::new("discordapp.com/api/webhooks/"),
    Needle::new(".webhook.office.com/webhookb2/"),
];

fn webhooks(text: &str, out: &mut Vec<Span>) {
    for prefix in &WEBHOOKS {
        let mut from = 0;
        while let Some(i) = prefix.find_from(text, from) {
            let start = i + prefix.text().len();
            let len = text[start..]
                .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '<' | '>' | '`'))
                .unwrap_or(text.len() - start);
            let path = text[start..start + len].trim_end_matches(['.', ',', ')', ';']);
            if path.len() >= 16 && !is_placeholder(path) {
                out.push(Span::new(start, start + path.len(), "webhook_url"));
            }
            from = start + len;
        }
    }
}
