//! Git access through gix on real repositories, and the awkward ones: worktrees, shallow clones,
//! submodules, tags of trees, missing objects.
#![allow(clippy::unwrap_used, reason = "a failed unwrap is a failed test, with its value shown")]

use drsg_indexer::{IndexOptions, PathChange, Repo, Silent, index_tree};
use drsg_planes::Store;
use drsg_testdata::Fixture;

fn run_at(dir: &std::path::Path) -> (drsg_indexer::RunReport, Store) {
    let mut store = Store::in_memory().unwrap();
    let report = index_tree(dir, &drsg_plugins::builtin(), &mut store, &IndexOptions::default(), &Silent).unwrap();
    (report, store)
}

#[test]
fn changed_paths_between_commits_with_renames() {
    let body = "def long_enough_to_be_recognised_as_the_same_file():\n    return 'same content on both sides'\n";
    let fx = Fixture::inline(&format!("//- /keep.py\nx = 1\n//- /gone.py\ny = 2\n//- /old_name.py\n{body}"));
    let a = fx.git(&["rev-parse", "HEAD"]).trim().to_owned();
    fx.write("keep.py", "x = 2\n");
    fx.remove("gone.py");
    fx.git(&["mv", "old_name.py", "new_name.py"]);
    fx.write("added.py", "z = 3\n");
    let b = fx.commit_all("change");
    let repo = Repo::discover(fx.path()).unwrap();
    let mut changes = repo.changed_paths(&a, &b).unwrap();
    changes.sort_by_key(|c| format!("{c:?}"));
    assert_eq!(
        changes,
        [
            PathChange::Added("added.py".into()),
            PathChange::Deleted("gone.py".into()),
            PathChange::Modified("keep.py".into()),
            PathChange::Renamed { from: "old_name.py".into(), to: "new_name.py".into() },
        ]
    );
    assert!(repo.changed_paths(&a, &a).unwrap().is_empty());
}

#[test]
fn a_tree_read_after_another_equals_one_read_whole() {
    let fx = Fixture::inline(
        "//- /app/a/deep/x.py\nx = 1\n//- /app/a/deep/y.py\ny = 1\n//- /app/b/z.py\nz = 1\n//- /app/b-c/w.py\nw = 1\n//- /top.py\nt = 1\n\
         //- /app/keep/k.py\nk = 1\n//- /app/keep/sub/s.py\ns = 1\n//- /app/keep-x/q.py\nq = 1\n",
    );
    let a = fx.git(&["rev-parse", "HEAD"]).trim().to_owned();
    fx.write("app/a/deep/x.py", "x = 2\n");
    fx.remove("app/b/z.py");
    fx.write("app/new/n.py", "n = 1\n");
    fx.git(&["mv", "app/b-c", "app/c"]);
    let b = fx.commit_all("change");
    let repo = Repo::discover(fx.path()).unwrap();
    for prefix in ["", "app"] {
        let before = repo.tree_listing(&a, prefix, None).unwrap();
        let whole = repo.tree_listing(&b, prefix, None).unwrap();
        let after = repo.tree_listing(&b, prefix, Some(&before)).unwrap();
        assert_eq!(after, whole, "below `{prefix}`");
        assert!(whole.files.contains_key(if prefix.is_empty() { "app/new/n.py" } else { "new/n.py" }));
        assert!(!whole.dirs.contains_key(if prefix.is_empty() { "app/b" } else { "b" }));
        // Unchanged directories (`keep`, `keep/sub`, `keep-x`) were copied, not read.
        assert!(whole.files.contains_key(if prefix.is_empty() { "app/keep/sub/s.py" } else { "keep/sub/s.py" }));
        // And back: the old tree read after the new one.
        assert_eq!(repo.tree_listing(&a, prefix, Some(&whole)).unwrap(), before, "below `{prefix}`, back");
    }
}

#[test]
fn a_linked_worktree_is_indexed_from_its_own_head() {
    let fx = Fixture::inline("//- /a.py\ndef a():\n    pass\n");
    let wt = fx.outside().join("wt");
    fx.git(&["worktree", "add", "-q", "-b", "side", wt.to_str().unwrap()]);
    std::fs::write(wt.join("b.py"), "def b():\n    pass\n").unwrap();
    let status = fx.command(&["-C", wt.to_str().unwrap(), "add", "-A"]).status().unwrap();
    assert!(status.success());
    let status = fx.command(&["-C", wt.to_str().unwrap(), "commit", "-q", "-m", "side work"]).status().unwrap();
    assert!(status.success());
    assert!(wt.join(".git").is_file(), "a linked worktree has a .git file");
    let (report, _) = run_at(&wt);
    assert_eq!(report.files, 2);
    let repo = Repo::discover(&wt).unwrap();
    assert_eq!(repo.head().branch.as_deref(), Some("refs/heads/side"));
    assert_eq!(repo.git_dirs().len(), 2, "its own git directory and the common one");
}

#[test]
fn a_shallow_clone_has_a_short_history() {
    let fx = Fixture::inline("//- commit: one\n//- /a.py\nx = 1\n//- commit: two\n//- /b.py\ny = 2\n");
    let clone = fx.outside().join("shallow");
    let url = format!("file://{}", fx.path().display());
    let status = fx.command(&["clone", "-q", "--depth", "1", &url, clone.to_str().unwrap()]).status().unwrap();
    assert!(status.success());
    let (report, _) = run_at(&clone);
    assert_eq!(report.files, 2);
    let history = report.history.unwrap();
    assert_eq!(history.commits, 1, "only the commit the clone holds");
}

#[test]
fn tags_of_trees_submodules_and_missing_blobs_do_not_stop_a_run() {
    let inner = Fixture::inline("//- /lib.py\ndef lib():\n    pass\n");
    let fx = Fixture::inline("//- /a.py\ndef a():\n    pass\n//- /b.py\ndef b():\n    pass\n");
    // A tag of a tree, and a submodule.
    let tree = fx.git(&["rev-parse", "HEAD^{tree}"]);
    fx.git(&["tag", "tree-tag", tree.trim()]);
    let url = format!("file://{}", inner.path().display());
    let status = fx
        .command(&["-c", "protocol.file.allow=always", "submodule", "add", "-q", &url, "vendor/inner"])
        .status()
        .unwrap();
    assert!(status.success());
    fx.commit_all("add a submodule");
    let (report, _) = run_at(fx.path());
    assert_eq!(report.files, 2, "the submodule's files belong to another repository");
    assert_eq!(report.history.as_ref().unwrap().tags, 1);
    // A missing blob (a damaged object database): that file is skipped as unreadable.
    let blob = fx.git(&["rev-parse", "HEAD:b.py"]).trim().to_owned();
    let object = fx.path().join(".git/objects").join(&blob[..2]).join(&blob[2..]);
    std::fs::remove_file(&object).unwrap();
    let (report, _) = run_at(fx.path());
    assert_eq!(report.files, 1);
    assert_eq!(report.skipped.get("unreadable"), Some(&1));
}

/// The `_git` plane written by difference equals the one written whole through what grows a history
/// (commits, a new branch, a new tag, a merge) and what rewrites it (a moved tag, a deleted branch, a
/// reset, an amend, a checkout elsewhere); only the growth is written by difference.
#[test]
fn history_appended_equals_history_rewritten() {
    use drsg_indexer::history::{index_history, rewrite_history};
    let fx = Fixture::inline("//- /src/a.py\ndef a():\n    pass\n");
    let mut appended = Store::in_memory().unwrap();
    let mut rewritten = Store::in_memory().unwrap();
    let mut step = |what: &str| -> bool {
        let repo = Repo::discover(fx.path()).unwrap();
        let summary = index_history(&repo, &mut appended, "repo", None).unwrap();
        rewrite_history(&repo, &mut rewritten, "repo", None).unwrap();
        let (a, b) = (crate::plane_lines(&appended, "repo_git"), crate::plane_lines(&rewritten, "repo_git"));
        assert!(a == b, "after {what}: the appended history differs from the rewritten one:\n{a:#?}\n{b:#?}");
        summary.appended
    };
    assert!(!step("the first index"), "there is nothing to append to");
    let edit = |n: u32| {
        fx.write("src/a.py", &format!("def a():\n    return {n}\n"));
        fx.commit_all(&format!("edit {n}"));
    };
    edit(1);
    assert!(step("a commit"));
    fx.git(&["tag", "v1"]);
    assert!(step("a tag"));
    fx.git(&["checkout", "-q", "-b", "feature"]);
    assert!(step("a branch at HEAD"));
    edit(2);
    edit(3);
    assert!(step("two commits on the branch"));
    fx.git(&["checkout", "-q", "main"]);
    assert!(!step("a checkout of an older branch"));
    fx.git(&["merge", "-q", "--no-ff", "-m", "merge feature", "feature"]);
    assert!(step("a merge"));
    fx.git(&["tag", "-f", "v1", "HEAD~1"]);
    let moved_back_on_the_line = step("a tag moved");
    fx.git(&["branch", "-q", "-D", "feature"]);
    assert!(step("a deleted branch whose commits main reaches"));
    edit(4);
    step("a commit");
    fx.git(&["reset", "-q", "--hard", "HEAD~1"]);
    assert!(!step("a reset"));
    edit(5);
    assert!(step("a commit on the reset branch"));
    fx.git(&["commit", "-q", "--amend", "-m", "amended"]);
    assert!(!step("an amend"));
    // The tag moved to a commit the plane holds, still reached: by difference.
    assert!(moved_back_on_the_line);
}
