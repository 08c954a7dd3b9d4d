//! A small unified line diff for `--dry-run` (an LCS over lines; config files are small, so
//! the quadratic table is fine, and above a size bound we show the whole file replaced).

const CONTEXT: usize = 3;
const MAX_CELLS: usize = 4_000_000;

#[derive(Clone, Copy, PartialEq, Debug)]
enum Op {
    Same,
    Del,
    Add,
}

fn script(a: &[&str], b: &[&str]) -> Vec<(Op, usize, usize)> {
    let (n, m) = (a.len(), b.len());
    let mut ops = Vec::new();
    if n.saturating_mul(m) > MAX_CELLS {
        ops.extend((0..n).map(|i| (Op::Del, i, 0)));
        ops.extend((0..m).map(|j| (Op::Add, n, j)));
        return ops;
    }
    // lcs[i][j] = LCS length of a[i..] and b[j..].
    let mut lcs = vec![0u32; (n + 1) * (m + 1)];
    let at = |i: usize, j: usize| i * (m + 1) + j;
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[at(i, j)] = if a[i] == b[j] {
                lcs[at(i + 1, j + 1)] + 1
            } else {
                lcs[at(i + 1, j)].max(lcs[at(i, j + 1)])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            ops.push((Op::Same, i, j));
            i += 1;
            j += 1;
        } else if i < n && (j == m || lcs[at(i + 1, j)] >= lcs[at(i, j + 1)]) {
            ops.push((Op::Del, i, j));
            i += 1;
        } else {
            ops.push((Op::Add, i, j));
            j += 1;
        }
    }
    ops
}

fn split(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

fn show(line: &str, prefix: char, out: &mut String) {
    out.push(prefix);
    let body = line.strip_suffix('\n').unwrap_or(line);
    out.push_str(body);
    out.push('\n');
    if !line.ends_with('\n') {
        out.push_str("\\ No newline at end of file\n");
    }
}

/// Unified diff of `old` → `new` (either may be absent: a created or deleted file).
/// Empty string when they are equal.
pub fn unified(path: &str, old: Option<&str>, new: Option<&str>) -> String {
    if old == new {
        return String::new();
    }
    let a = split(old.unwrap_or(""));
    let b = split(new.unwrap_or(""));
    let ops = script(&a, &b);
    let mut out = format!(
        "--- {}\n+++ {}\n",
        if old.is_some() {
            format!("a/{path}")
        } else {
            "/dev/null".into()
        },
        if new.is_some() {
            format!("b/{path}")
        } else {
            "/dev/null".into()
        },
    );
    let changed: Vec<usize> = ops
        .iter()
        .enumerate()
        .filter(|(_, o)| o.0 != Op::Same)
        .map(|(k, _)| k)
        .collect();
    let mut k = 0;
    while k < changed.len() {
        let start = changed[k].saturating_sub(CONTEXT);
        let mut end = changed[k];
        while k < changed.len() && changed[k] <= end + 2 * CONTEXT {
            end = changed[k];
            k += 1;
        }
        let end = (end + CONTEXT + 1).min(ops.len());
        let hunk = &ops[start..end];
        let (a0, b0) = (hunk[0].1, hunk[0].2);
        let a_len = hunk.iter().filter(|o| o.0 != Op::Add).count();
        let b_len = hunk.iter().filter(|o| o.0 != Op::Del).count();
        let a_start = if a_len == 0 { a0 } else { a0 + 1 };
        let b_start = if b_len == 0 { b0 } else { b0 + 1 };
        out.push_str(&format!("@@ -{a_start},{a_len} +{b_start},{b_len} @@\n"));
        for (op, i, j) in hunk {
            match op {
                Op::Same => show(a[*i], ' ', &mut out),
                Op::Del => show(a[*i], '-', &mut out),
                Op::Add => show(b[*j], '+', &mut out),
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hunk_with_context() {
        let old = "1\n2\n3\n4\n5\n6\n7\n8\n9\n";
        let new = "1\n2\n3\n4\nfive\n6\n7\n8\n9\n";
        assert_eq!(
            unified("f", Some(old), Some(new)),
            "--- a/f\n+++ b/f\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n"
        );
        assert_eq!(unified("f", Some(old), Some(old)), "");
    }

    #[test]
    fn created_deleted_and_missing_newline() {
        assert_eq!(
            unified("f", None, Some("a\n")),
            "--- /dev/null\n+++ b/f\n@@ -0,0 +1,1 @@\n+a\n"
        );
        assert_eq!(
            unified("f", Some("a"), None),
            "--- a/f\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-a\n\\ No newline at end of file\n"
        );
    }

    #[test]
    fn diff_applies_with_patch() {
        // The output is a real unified diff: GNU patch reproduces the new text from it.
        if std::process::Command::new("patch")
            .arg("--version")
            .output()
            .is_err()
        {
            eprintln!("SKIPPED: patch(1) not installed");
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let old: String = (0..40).map(|i| format!("line {i}\n")).collect();
        let new = old
            .replace("line 3\n", "")
            .replace("line 20\n", "line twenty\nextra\n")
            + "tail\n";
        std::fs::write(dir.path().join("f"), &old).unwrap();
        std::fs::write(dir.path().join("p"), unified("f", Some(&old), Some(&new))).unwrap();
        let st = std::process::Command::new("patch")
            .current_dir(dir.path())
            .args(["-s", "-p1", "-i", "p"])
            .status()
            .unwrap();
        assert!(st.success());
        assert_eq!(std::fs::read_to_string(dir.path().join("f")).unwrap(), new);
    }
}
