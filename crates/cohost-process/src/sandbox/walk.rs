//! Granting a subtree minus some of its parts, for an allow-list sandbox.
//!
//! Landlock only allows: a rule on a directory covers everything beneath
//! it, and nothing can take a part back. So "read everything but `~/.ssh`"
//! becomes rules on every sibling of each directory on the way down to
//! `~/.ssh`: `/`'s entries except `/home`, `/home`'s except `/home/u`,
//! `/home/u`'s except `.ssh`. The walk only descends into directories that
//! lead to a denied path, so it lists a handful of directories, not a tree.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Lists a directory's entry names (the file system, or a test's map).
pub(crate) trait Lister {
    /// The names in `dir`; an error leaves nothing beneath it granted.
    fn list(&self, dir: &Path) -> std::io::Result<Vec<OsString>>;
}

/// The real file system.
pub(super) struct Disk;

impl Lister for Disk {
    fn list(&self, dir: &Path) -> std::io::Result<Vec<OsString>> {
        std::fs::read_dir(dir)?
            .map(|e| e.map(|e| e.file_name()))
            .collect()
    }
}

/// The paths to grant so that everything beneath `root` is covered except
/// the `denied` paths (absolute and normalized, as `root` is). A denied
/// path outside `root` changes nothing, and neither does one that holds
/// `root`: the narrower rule wins, so a worktree inside cohost's (denied)
/// state directory is still the agent's to write.
pub(super) fn grant_except(root: &Path, denied: &[PathBuf], fs: &dyn Lister) -> Vec<PathBuf> {
    let beneath: Vec<PathBuf> = denied
        .iter()
        .filter(|d| d.starts_with(root) && d.as_path() != root)
        .cloned()
        .collect();
    let mut out = Vec::new();
    walk(root, &beneath, fs, &mut out);
    out
}

fn walk(dir: &Path, denied: &[PathBuf], fs: &dyn Lister, out: &mut Vec<PathBuf>) {
    if denied.iter().any(|d| dir.starts_with(d)) {
        return;
    }
    if !denied.iter().any(|d| d.starts_with(dir)) {
        out.push(dir.to_path_buf());
        return;
    }
    // A denied path lies beneath: grant the entries one by one. When the
    // directory cannot be listed, fail closed (nothing beneath is granted).
    let Ok(mut names) = fs.list(dir) else {
        return;
    };
    names.sort();
    for name in names {
        walk(&dir.join(name), denied, fs, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// A file system as a map of directory to entry names.
    struct Map(BTreeMap<PathBuf, Vec<&'static str>>);

    impl Lister for Map {
        fn list(&self, dir: &Path) -> std::io::Result<Vec<OsString>> {
            self.0
                .get(dir)
                .map(|v| v.iter().map(OsString::from).collect())
                .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::PermissionDenied))
        }
    }

    fn fs() -> Map {
        Map(BTreeMap::from([
            ("/".into(), vec!["usr", "etc", "home", "tmp"]),
            ("/home".into(), vec!["u", "other"]),
            (
                "/home/u".into(),
                vec![".ssh", ".aws", ".bashrc", ".codex", "proj"],
            ),
            (
                "/home/u/.codex".into(),
                vec!["auth.json", "config.toml", "sessions"],
            ),
        ]))
    }

    fn paths(v: &[&str]) -> Vec<PathBuf> {
        v.iter().map(PathBuf::from).collect()
    }

    #[test]
    fn siblings_on_the_way_down_are_granted_and_denied_ones_are_not() {
        let denied = paths(&["/home/u/.ssh", "/home/u/.aws", "/home/u/.codex/auth.json"]);
        let got = grant_except(Path::new("/"), &denied, &fs());
        assert_eq!(
            got,
            paths(&[
                "/etc",
                "/home/other",
                "/home/u/.bashrc",
                "/home/u/.codex/config.toml",
                "/home/u/.codex/sessions",
                "/home/u/proj",
                "/tmp",
                "/usr",
            ])
        );
    }

    #[test]
    fn nothing_denied_is_one_rule_and_a_root_inside_a_denied_path_is_granted() {
        assert_eq!(grant_except(Path::new("/"), &[], &fs()), paths(&["/"]));
        let outside = paths(&["/srv/secret"]);
        assert_eq!(
            grant_except(Path::new("/home/u/proj"), &outside, &fs()),
            paths(&["/home/u/proj"])
        );
        let all = paths(&["/home"]);
        assert_eq!(
            grant_except(Path::new("/home/u/proj"), &all, &fs()),
            paths(&["/home/u/proj"])
        );
    }

    #[test]
    fn a_directory_that_cannot_be_listed_fails_closed() {
        // `/home/u/.ssh` denied, and `/home/u` unlistable: nothing of it.
        let mut map = fs();
        map.0.remove(Path::new("/home/u"));
        let got = grant_except(Path::new("/"), &paths(&["/home/u/.ssh"]), &map);
        assert!(got.iter().all(|p| !p.starts_with("/home/u")), "{got:?}");
        assert!(got.contains(&PathBuf::from("/home/other")));
    }

    #[test]
    fn a_working_tree_holding_a_denied_path_is_granted_around_it() {
        // The agent started in $HOME: its tree is everything but the secrets.
        let denied = paths(&["/home/u/.ssh", "/home/u/.aws"]);
        let got = grant_except(Path::new("/home/u"), &denied, &fs());
        assert_eq!(
            got,
            paths(&["/home/u/.bashrc", "/home/u/.codex", "/home/u/proj"])
        );
    }
}
