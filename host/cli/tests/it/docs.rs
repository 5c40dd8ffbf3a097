//! Runnable documentation: the shell blocks that `README.md` and `docs/**/*.md` mark as
//! runnable are run here, against the `ldp` binary under test, so the commands the docs show
//! keep working.
//!
//! The convention (`docs/README.md` says the same for writers):
//!
//! * A fenced code block whose info string is `sh runnable` is run; every other block (`sh`,
//!   `console`, `text`, `json`…) is prose. `runnable` on a block of another language fails the
//!   test, since it would silently never run.
//! * Each page runs in a fresh temporary directory, its runnable blocks in order, each one as
//!   its own `bash -euo pipefail -c BLOCK` in that directory: the files a block writes are there
//!   for the next block of the page; shell variables and `cd` are not. A block whose page's
//!   earlier block failed is not run.
//! * Environment: the `ldp` binary under test comes first on `PATH`; `LDP_REPO` is the root of
//!   this repository, for copying committed files (`cp "$LDP_REPO/examples/data/rides.csv"
//!   data/`), never for writing into it; `LDP_CACHE_DIR` is the compiled-plugin cache the other
//!   tests use; `LDP_LOG` is removed. Anything else a page needs, it creates (a heredoc writing a
//!   CSV).
//! * A block runs in seconds, needs no network, and must finish within [`BLOCK_TIMEOUT`] (then
//!   its process group is killed).
//! * A failure names the page, the line of the block's opening fence, the exit status, the
//!   block's stderr and the end of its stdout. Every page runs; the failures are reported
//!   together.
//!
//! `cargo test -p ldp-cli --test it docs::` runs only these tests.

use std::fmt::Write as _;
use std::fs::File;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// The longest a block may run. The first blocks that run plugins after a build also compile
/// them into the cache: about 40 s in a debug build on two idle cores.
const BLOCK_TIMEOUT: Duration = Duration::from_secs(300);

/// How many lines of a failed block's stdout the report shows.
const STDOUT_TAIL_LINES: usize = 20;

/// A runnable block of a page.
#[derive(Debug, PartialEq)]
struct Block {
    /// The line of its opening fence, from 1.
    line: usize,
    /// The commands, one line per line of the block, fence indentation removed.
    code: String,
}

/// The root of the repository.
fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the repository root exists")
}

/// `README.md`, then every `*.md` under `docs/`, sorted.
fn pages(root: &Path) -> Vec<PathBuf> {
    let mut docs = Vec::new();
    markdown_files(&root.join("docs"), &mut docs);
    docs.sort();
    let mut pages = vec![root.join("README.md")];
    pages.extend(docs);
    pages
}

fn markdown_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            markdown_files(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "md") {
            out.push(path);
        }
    }
}

/// An opening fence: `(indent, fence, info)` for a line of optional spaces, then three or more
/// backticks or tildes, then the info string.
fn opening_fence(line: &str) -> Option<(usize, &str, &str)> {
    let text = line.trim_start_matches(' ');
    let fence_char = text.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let length = text.len() - text.trim_start_matches(fence_char).len();
    if length < 3 {
        return None;
    }
    let (fence, info) = text.split_at(length);
    if fence_char == '`' && info.contains('`') {
        return None; // inline code such as ```a``` on one line
    }
    Some((line.len() - text.len(), fence, info.trim()))
}

/// Whether `line` closes a block opened by `fence`: the same character, at least as many, and
/// nothing after them.
fn closes(line: &str, fence: &str) -> bool {
    let text = line.trim_start_matches(' ');
    let fence_char = fence.chars().next().expect("a fence is not empty");
    let rest = text.trim_start_matches(fence_char);
    text.len() - rest.len() >= fence.len() && rest.trim().is_empty()
}

/// The ```` ```sh runnable ```` blocks of a Markdown text, in order.
///
/// # Errors
///
/// A block marked `runnable` that is not `sh`, or that is never closed.
fn runnable_blocks(text: &str) -> Result<Vec<Block>, String> {
    let mut blocks = Vec::new();
    let mut lines = text.lines().enumerate();
    while let Some((index, line)) = lines.next() {
        let Some((indent, fence, info)) = opening_fence(line) else {
            continue;
        };
        let mut code = String::new();
        let mut closed = false;
        for (_, line) in lines.by_ref() {
            if closes(line, fence) {
                closed = true;
                break;
            }
            let unindented = line.len() - line.trim_start_matches(' ').len();
            code.push_str(&line[unindented.min(indent)..]);
            code.push('\n');
        }
        let words: Vec<&str> = info.split_whitespace().collect();
        if !words.contains(&"runnable") {
            continue;
        }
        let line = index + 1;
        if words.first() != Some(&"sh") {
            return Err(format!(
                "line {line}: a runnable block must be marked ```sh runnable, not ```{info}"
            ));
        }
        if !closed {
            return Err(format!("line {line}: the runnable block is never closed"));
        }
        blocks.push(Block { line, code });
    }
    Ok(blocks)
}

/// What the blocks of every page run with.
struct Environment {
    path: std::ffi::OsString,
    repo: PathBuf,
    cache: PathBuf,
}

impl Environment {
    fn new(repo: PathBuf) -> Environment {
        let binary = Path::new(env!("CARGO_BIN_EXE_ldp"));
        let bin_dir = binary
            .parent()
            .expect("the binary is in a folder")
            .to_path_buf();
        let inherited = std::env::var_os("PATH").unwrap_or_default();
        let path =
            std::env::join_paths(std::iter::once(bin_dir).chain(std::env::split_paths(&inherited)))
                .expect("PATH entries join");
        Environment {
            path,
            repo,
            cache: PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("component-cache"),
        }
    }
}

/// How a block ended.
enum Outcome {
    Exited(ExitStatus),
    TimedOut,
}

/// Runs one block in `dir`; its stdout and stderr go to files in `logs`, so a block that writes
/// a lot never blocks on a pipe while it is being timed.
fn run_block(
    env: &Environment,
    dir: &Path,
    logs: &Path,
    block: &Block,
) -> (Outcome, String, String) {
    let stdout_file = logs.join("stdout");
    let stderr_file = logs.join("stderr");
    let mut child = Command::new("bash")
        .args(["-euo", "pipefail", "-c", block.code.as_str()])
        .current_dir(dir)
        .env("PATH", &env.path)
        .env("LDP_REPO", &env.repo)
        .env("LDP_CACHE_DIR", &env.cache)
        .env_remove("LDP_LOG")
        .stdin(Stdio::null())
        .stdout(File::create(&stdout_file).expect("a log file"))
        .stderr(File::create(&stderr_file).expect("a log file"))
        .process_group(0)
        .spawn()
        .expect("bash runs");
    let started = Instant::now();
    let outcome = loop {
        if let Some(status) = child.try_wait().expect("the block's status") {
            break Outcome::Exited(status);
        }
        if started.elapsed() > BLOCK_TIMEOUT {
            // The whole process group: bash and whatever it started.
            let _ = Command::new("kill")
                .arg("-KILL")
                .arg(format!("-{}", child.id()))
                .status();
            let _ = child.kill();
            let _ = child.wait();
            break Outcome::TimedOut;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let read = |path: &Path| {
        String::from_utf8_lossy(&std::fs::read(path).unwrap_or_default()).into_owned()
    };
    (outcome, read(&stdout_file), read(&stderr_file))
}

/// Runs the runnable blocks of one page in a fresh folder; the failure report, if any.
fn run_page(env: &Environment, page: &Path, name: &str, blocks: &[Block]) -> Option<String> {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let logs = tempfile::tempdir().expect("a temporary folder");
    for block in blocks {
        let (outcome, stdout, stderr) = run_block(env, dir.path(), logs.path(), block);
        let status = match outcome {
            Outcome::Exited(status) if status.success() => continue,
            Outcome::Exited(status) => match status.code() {
                Some(code) => format!("exited with {code}"),
                None => format!("was ended by a signal ({status})"),
            },
            Outcome::TimedOut => format!(
                "ran longer than {} s and was killed",
                BLOCK_TIMEOUT.as_secs()
            ),
        };
        let mut report = format!(
            "{name}:{}: the runnable block {status} (page {}, run in {})\n",
            block.line,
            page.display(),
            dir.path().display()
        );
        let _ = writeln!(report, "--- block ---\n{}", block.code.trim_end());
        let _ = writeln!(report, "--- stderr ---\n{}", stderr.trim_end());
        let lines: Vec<&str> = stdout.lines().collect();
        let tail = &lines[lines.len().saturating_sub(STDOUT_TAIL_LINES)..];
        let _ = writeln!(
            report,
            "--- stdout (last {} of {} lines) ---\n{}",
            tail.len(),
            lines.len(),
            tail.join("\n")
        );
        // The page's later blocks build on this one, so they do not run; the folder is kept
        // for a look at what the block left.
        let _ = dir.keep();
        return Some(report);
    }
    None
}

#[test]
fn the_runnable_blocks_of_the_docs_run() {
    let root = repo_root();
    let env = Environment::new(root.clone());
    let mut failures = Vec::new();
    let mut ran = 0;
    for page in pages(&root) {
        let name = page
            .strip_prefix(&root)
            .unwrap_or(&page)
            .display()
            .to_string();
        let text = std::fs::read_to_string(&page).unwrap_or_else(|e| panic!("{name}: {e}"));
        let blocks = match runnable_blocks(&text) {
            Ok(blocks) => blocks,
            Err(problem) => {
                failures.push(format!("{name}: {problem}"));
                continue;
            }
        };
        if blocks.is_empty() {
            continue;
        }
        ran += blocks.len();
        if let Some(report) = run_page(&env, &page, &name, &blocks) {
            failures.push(report);
        }
    }
    assert!(
        ran > 0,
        "no ```sh runnable block found under {}",
        root.display()
    );
    assert!(
        failures.is_empty(),
        "{} page(s) with a failing runnable block:\n\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn runnable_blocks_are_found_with_their_lines() {
    let text = [
        "# Page",
        "```sh",
        "not run",
        "```",
        "```sh runnable",
        "echo one",
        "cat <<'EOF'",
        "```text",
        "EOF",
        "```",
        "```console",
        "$ ldp run",
        "```",
        "  ```sh runnable",
        "  cat <<'EOF'",
        "  indented",
        "  EOF",
        "  ```",
        "````sh runnable",
        "echo ```",
        "````",
    ]
    .join("\n");
    let blocks = runnable_blocks(&text).unwrap();
    let block = |line, code: &str| Block {
        line,
        code: code.to_string(),
    };
    assert_eq!(
        blocks,
        [
            block(5, "echo one\ncat <<'EOF'\n```text\nEOF\n"),
            block(14, "cat <<'EOF'\nindented\nEOF\n"),
            block(19, "echo ```\n"),
        ]
    );
}

#[test]
fn a_runnable_block_of_another_language_is_an_error() {
    assert_eq!(
        runnable_blocks("text\n```bash runnable\necho hi\n```\n").unwrap_err(),
        "line 2: a runnable block must be marked ```sh runnable, not ```bash runnable"
    );
    assert_eq!(
        runnable_blocks("```sh runnable\necho hi\n").unwrap_err(),
        "line 1: the runnable block is never closed"
    );
}

/// The first cells of the Markdown table rows of `text` that start with `|`, each split into
/// the backticked names it holds (`plugins/csv-sink`, `plugins/json-sink`).
fn first_cell_names(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.strip_prefix('|'))
        .filter_map(|l| l.split('|').next())
        .flat_map(|cell| {
            cell.split('`')
                .skip(1)
                .step_by(2)
                .map(|s| s.trim_end_matches('/').to_string())
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The `members` of a workspace manifest, as written.
fn members(manifest: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(manifest).unwrap();
    let start = text.find("members = [").expect("a members list");
    let list = &text[start..text[start..].find(']').unwrap() + start];
    list.split('"')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// The README's layout table names every crate of the workspace and every plugin crate, and
/// docs/plugins.md's table every built-in plugin of the binary. (They once listed 2 built-in
/// plugins where there were 12, and left out seven crates.)
#[test]
fn the_layout_and_plugin_tables_name_everything_there_is() {
    let root = repo_root();
    let readme = first_cell_names(&std::fs::read_to_string(root.join("README.md")).unwrap());
    let mut missing: Vec<String> = members(&root.join("Cargo.toml"))
        .into_iter()
        .chain(
            members(&root.join("plugins/Cargo.toml"))
                .into_iter()
                .map(|m| format!("plugins/{}", m.trim_end_matches("/*"))),
        )
        .filter(|m| !readme.contains(m))
        .collect();
    let out = super::ldp(&["plugins", "--json"]);
    let builtins: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let table = first_cell_names(&std::fs::read_to_string(root.join("docs/plugins.md")).unwrap());
    for plugin in builtins.as_array().unwrap() {
        let name = plugin["name"].as_str().unwrap().to_string();
        if !table.contains(&name) {
            missing.push(format!("docs/plugins.md: {name}"));
        }
    }
    assert!(missing.is_empty(), "not in the tables: {missing:?}");
}
