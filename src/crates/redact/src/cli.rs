//! Passwords that command lines take by position or by a short flag: `curl -u user:v`,
//! `mysql -pv`, `redis-cli -a v`, `sshpass -p v`, `mongosh -p v`, `ldapsearch -w v`,
//! `keytool -storepass v`, `zip -P v`, `sqlcmd -P v`, `smbclient -U user%v`,
//! `openssl … -passout pass:v`, `bundle config set <host> user:v`. Long flags (`--password v`)
//! and `NAME=v` prefixes are assignments (`assign.rs`).

use crate::assign::{looks_random, spaces, value_at, KIND};
use crate::gate::value_is_placeholder;
use crate::needle::Needle;
use crate::span::Span;

static OPENSSL: Needle = Needle::new("openssl");
static BUNDLE_CONFIG: Needle = Needle::new("bundle config ");
static CURL_USER_FLAGS: [Needle; 3] = [
    Needle::new(" -u "),
    Needle::new(" --user "),
    Needle::new(" --user="),
];

pub fn find(text: &str, out: &mut Vec<Span>) {
    curl_users(text, out);
    // Each rule starts from its command's name, found in the whole text (a few fast substring
    // searches), and looks only at the lines that hold it.
    for (command, flag, glued) in &SHORT_FLAGS {
        for (line, cmd) in lines_with(text, command) {
            short_flag(text, line, cmd, (command.text(), flag, *glued), out);
        }
    }
    for (line, _) in lines_with(text, &OPENSSL) {
        openssl_passwords(text, line, out);
    }
    for (line, _) in lines_with(text, &BUNDLE_CONFIG) {
        bundle_config(text, line, out);
    }
}

/// The lines of `text` that hold `needle` (each once), as byte ranges, with where in the line
/// the first occurrence is.
fn lines_with<'a>(
    text: &'a str,
    needle: &'static Needle,
) -> impl Iterator<Item = ((usize, usize), usize)> + 'a {
    let mut done = 0;
    needle.occurrences(text).filter_map(move |at| {
        if at < done {
            return None;
        }
        let start = text[..at].rfind('\n').map_or(0, |n| n + 1);
        let end = text[at..].find('\n').map_or(text.len(), |n| at + n);
        done = end;
        Some(((start, end), at - start))
    })
}

/// A password after a short flag, on a line that runs the command that reads it so: `-p`
/// (glued) is MySQL's password but elsewhere a port, `-a` is redis-cli's.
static SHORT_FLAGS: [(Needle, &str, bool); 15] = [
    // (command, flag, value glued to the flag)
    (Needle::new("mysql"), " -p", true),
    (Needle::new("mariadb"), " -p", true),
    (Needle::new("redis-cli"), " -a ", false),
    (Needle::new("sshpass"), " -p ", false),
    (Needle::new("mongo"), " -p ", false), // mongo, mongosh, mongodump, mongorestore
    (Needle::new("ldap"), " -w ", false),  // ldapsearch, ldapadd, ldapmodify, ldapdelete
    (Needle::new("keytool"), " -storepass ", false),
    (Needle::new("keytool"), " -keypass ", false),
    (Needle::new("keytool"), " -srcstorepass ", false),
    (Needle::new("keytool"), " -deststorepass ", false),
    (Needle::new("zip"), " -P ", false),
    (Needle::new("7z"), " -p", true),
    (Needle::new("sqlcmd"), " -P ", false),
    (Needle::new("bcp"), " -P ", false),
    (Needle::new("smbclient"), " -U ", false), // user%password: see below
];

fn short_flag(
    text: &str,
    (start, end): (usize, usize),
    cmd: usize,
    (command, flag, glued): (&str, &str, bool),
    out: &mut Vec<Span>,
) {
    let line = &text[start..end];
    let mut from = cmd;
    while let Some(i) = line[from..].find(flag).map(|i| from + i) {
        let at = i + flag.len();
        if glued && line[at..].starts_with(char::is_whitespace) {
            from = at;
            continue;
        }
        let (mut vs, ve, _) = value_at(line, at);
        from = ve.max(at);
        if command == "smbclient" {
            // `-U user%password`: only the part after `%` is secret.
            let Some(p) = line[vs..ve].find('%') else {
                continue;
            };
            vs += p + 1;
        }
        push_password(line, start, vs, ve, out);
    }
}

fn push_password(line: &str, offset: usize, vs: usize, ve: usize, out: &mut Vec<Span>) {
    let value = &line[vs..ve];
    if value.len() >= 4 && looks_random(value) && !value_is_placeholder(value) {
        out.push(Span::new(offset + vs, offset + ve, KIND));
    }
}

/// OpenSSL's `-passin pass:v`, `-passout pass:v`, `-pass pass:v` (`env:`, `file:` and `fd:`
/// name where the password is, not the password).
fn openssl_passwords(text: &str, (start, end): (usize, usize), out: &mut Vec<Span>) {
    let line = &text[start..end];
    let mut from = 0;
    while let Some(i) = line[from..].find(" pass:").map(|i| from + i) {
        let (vs, ve, _) = value_at(line, i + 6);
        from = ve.max(i + 6);
        push_password(line, start, vs, ve, out);
    }
}

/// `bundle config [set] [--global|--local] <host> user:password`: Bundler's credentials for a
/// gem host, the password part.
fn bundle_config(text: &str, (start, end): (usize, usize), out: &mut Vec<Span>) {
    let line = &text[start..end];
    let Some(i) = line.find("bundle config ") else {
        return;
    };
    let args: Vec<&str> = line[i + 14..]
        .split_whitespace()
        .filter(|a| !a.starts_with("--") && *a != "set")
        .collect();
    let [host, credentials, ..] = args[..] else {
        return;
    };
    let credentials = credentials.trim_matches(['"', '\'']);
    let Some((_, password)) = credentials.split_once(':') else {
        return;
    };
    if !host.contains('.') || password.len() < 3 || value_is_placeholder(password) {
        return;
    }
    if let Some(at) = line.rfind(password) {
        out.push(Span::new(start + at, start + at + password.len(), KIND));
    }
}

/// `curl -u user:password`, `--user "user:password"`, `--user=user:password`,
/// `-u kevin:'password'`, `-u "{user}":"{password}"`: the password; `-u "key:"` (no password,
/// as API keys are passed): the user.
fn curl_users(text: &str, out: &mut Vec<Span>) {
    let bytes = text.as_bytes();
    for flag in &CURL_USER_FLAGS {
        let mut from = 0;
        while let Some(i) = flag.find_from(text, from) {
            let at = i + flag.text().len();
            let at = at + spaces(bytes, at);
            let end = argument_end(bytes, at);
            from = end.max(at + 1).min(text.len());
            let Some(colon) = separator(&bytes[at..end]).map(|c| at + c) else {
                continue;
            };
            let unwrap = |s: usize, e: usize| {
                let (mut s, mut e) = (s, e);
                while s < e && matches!(bytes[s], b'"' | b'\'' | b'{') {
                    s += 1;
                }
                while e > s && matches!(bytes[e - 1], b'"' | b'\'' | b'}') {
                    e -= 1;
                }
                (s, e)
            };
            let (ps, pe) = unwrap(colon + 1, end);
            let (us, ue) = unwrap(at, colon);
            let (s, e) = if pe > ps { (ps, pe) } else { (us, ue) };
            let secret = &text[s..e];
            // `user:pass`, `username:token`: names of the parts, as documentation writes them.
            let variable = |s: &str| s.contains("$(") || s.contains("${") || s.starts_with('$');
            // `<user:password>`, `{{ .Values.password }}`: templates, not credentials.
            let template = text[at..end].contains(['<', '>']) || text[at..end].contains("{{");
            if !template
                && secret.len() >= 3
                && looks_random(secret)
                && !value_is_placeholder(secret)
                && !variable(&text[ps..pe])
                && !variable(&text[us..ue])
            {
                out.push(Span::new(s, e, "url_password"));
            }
        }
    }
}

/// Where a shell argument starting at `at` ends: the first whitespace outside quotes.
fn argument_end(bytes: &[u8], at: usize) -> usize {
    let mut quote = None;
    let mut k = at;
    while k < bytes.len() {
        let b = bytes[k];
        match quote {
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None if b == b'"' || b == b'\'' => quote = Some(b),
            None if b.is_ascii_whitespace() => break,
            None => {}
        }
        k += 1;
    }
    k
}

/// The `:` between user and password, outside `{…}` (a GUID user may be braced).
fn separator(arg: &[u8]) -> Option<usize> {
    let mut depth = 0usize;
    for (k, &b) in arg.iter().enumerate() {
        match b {
            b'{' => depth += 1,
            b'}' => depth = depth.saturating_sub(1),
            b':' if depth == 0 => return Some(k),
            _ => {}
        }
    }
    None
}
