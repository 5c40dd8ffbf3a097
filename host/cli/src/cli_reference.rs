//! `docs/cli.md`, the CLI reference, generated from the clap definitions in [`crate::args`]: one
//! section per command and subcommand with its full `--help` text. A test compares the file with
//! what the definitions give, so the reference cannot go stale; regenerate it with
//!
//! ```sh
//! LDP_BLESS=1 cargo test -p ldp-cli --bin ldp cli_reference
//! ```

use clap::CommandFactory;

/// The width the help texts are wrapped at in the Python tool.
const WIDTH: usize = 100;

/// The whole reference, Markdown.
pub fn markdown() -> String {
    let mut root = crate::args::Cli::command().term_width(WIDTH);
    root.build();
    let mut out = String::from(
        "# CLI reference\n\n\
         Generated from the clap definitions (`host/cli/src/args.rs`) by \
         `host/cli/src/cli_reference.rs`: every command's `--help`, as `ldp` prints it. Do not \
         edit by hand; regenerate with `LDP_BLESS=1 cargo test -p ldp-cli --bin ldp \
         cli_reference`.\n\n",
    );
    let mut sections = Vec::new();
    walk(&mut root, "ldp", &mut sections);
    out.push_str("## Commands\n\n");
    for (path, about) in &sections {
        let anchor = path.replace(' ', "-");
        out.push_str(&format!("- [`{path}`](#{anchor}): {about}\n"));
    }
    out.push('\n');
    let mut root = crate::args::Cli::command().term_width(WIDTH);
    root.build();
    render(&mut root, "ldp", &mut out);
    out
}

/// The commands under `cmd` (itself included), with their one-line about.
fn walk(cmd: &mut clap::Command, path: &str, out: &mut Vec<(String, String)>) {
    let about = cmd
        .get_about()
        .map(|a| a.to_string())
        .unwrap_or_default()
        .lines()
        .next()
        .unwrap_or_default()
        .to_string();
    out.push((path.to_string(), about));
    for sub in cmd.get_subcommands_mut() {
        if sub.get_name() == "help" || sub.is_hide_set() {
            continue;
        }
        let child = format!("{path} {}", sub.get_name());
        walk(sub, &child, out);
    }
}

/// One section per command, depth first.
fn render(cmd: &mut clap::Command, path: &str, out: &mut String) {
    let help = cmd.render_long_help().to_string();
    out.push_str(&format!("## {path}\n\n```text\n"));
    for line in help.trim_end().lines() {
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out.push_str("```\n\n");
    let names: Vec<String> = cmd
        .get_subcommands()
        .filter(|s| s.get_name() != "help" && !s.is_hide_set())
        .map(|s| s.get_name().to_string())
        .collect();
    for name in names {
        if let Some(sub) = cmd.find_subcommand_mut(&name) {
            render(sub, &format!("{path} {name}"), out);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    #[test]
    fn cli_reference_is_up_to_date() {
        let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/cli.md");
        let want = super::markdown();
        if std::env::var_os("LDP_BLESS").is_some() {
            std::fs::write(&file, &want).unwrap();
            return;
        }
        let have = std::fs::read_to_string(&file).unwrap_or_default();
        assert!(
            have == want,
            "docs/cli.md is not what the clap definitions give; regenerate it with \
             LDP_BLESS=1 cargo test -p ldp-cli --bin ldp cli_reference"
        );
    }
}
