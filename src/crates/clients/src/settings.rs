//! A client's own JSON settings, read where a hook needs one value from them (where the client
//! compacts). Through the read gate: a committed settings file that is a link out of the tree or
//! not a regular file (`→ /dev/zero`) is never read, nor one larger than [`MAX_BYTES`]. An
//! unreadable file or an odd value counts as unset: a hook never fails over a settings file.

use crate::SettingsLayers;
use serde_json::Value;
use std::path::Path;

/// Settings files are small; a huge one is not read.
const MAX_BYTES: u64 = 1 << 20;

/// The settings file at `file`, parsed; None when it is missing, unreadable or not JSON.
pub(crate) fn read(file: &Path) -> Option<Value> {
    use handover_base::read_gate::{self, Links};
    let text = read_gate::read_to_string(file, Links::Follow, MAX_BYTES).ok()??;
    serde_json::from_str(&text).ok()
}

/// The fraction in (0, 1] at the JSON `pointer` of the project's settings
/// (`<project>/<project_dir>/settings.json`), else of the user's (`<user_dir>/settings.json`);
/// None when neither sets one.
pub(crate) fn fraction(at: SettingsLayers, project_dir: &str, pointer: &str) -> Option<f64> {
    let files = [
        at.project
            .map(|p| p.join(project_dir).join("settings.json")),
        at.user_dir.map(|d| d.join("settings.json")),
    ];
    files.into_iter().flatten().find_map(|file| {
        read(&file)?
            .pointer(pointer)
            .and_then(Value::as_f64)
            .filter(|t| *t > 0.0 && *t <= 1.0)
    })
}
