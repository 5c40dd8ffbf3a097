//! The recipes `ldp schedule install --print cron|launchd|systemd DIR` prints: text that calls
//! `ldp schedule tick DIR` every [`INTERVAL_MINUTES`] minutes. Nothing here writes to a system
//! location; the person who runs the command decides where the text goes.
//!
//! * **cron** ([`cron_recipe`], Linux): a `# ldp schedule tick for DIR, every 5 minutes`
//!   comment and the crontab line `*/5 * * * * mkdir -p DIR/.ldp && LDP schedule tick DIR >>
//!   DIR/.ldp/schedule.log 2>&1`. Paths are quoted as Python's `shlex.quote` quotes them, then
//!   every `%` becomes `\%`, because cron reads an unescaped `%` as a newline. The line makes
//!   `.ldp` first, because the shell opens the log before the tick can make it.
//! * **launchd** ([`launchd_recipe`], macOS): a plist with the label
//!   `local-data-platform.schedule.<slug>.<sha8>` ([`launchd_label`]), `StartInterval` 300,
//!   `RunAtLoad`, the folder as `WorkingDirectory`, and stdout and stderr in
//!   `~/Library/Logs/<label>.log` (which exists; launchd does not make the folder of a log),
//!   after an XML comment on how to bootstrap and boot it out. The XML is the text Python's
//!   `plistlib.dumps(fmt=FMT_XML, sort_keys=False)` writes. launchd runs an interval that went by
//!   while the Mac slept once when it wakes, where cron does not run while a Mac sleeps.
//! * **systemd** ([`systemd_recipe`], Linux; not in the Python tool): a user service
//!   (`Type=oneshot`, `WorkingDirectory=DIR`, `ExecStart=LDP schedule tick DIR`) and a timer
//!   (`OnCalendar=*:0/5`, `Persistent=true`, `AccuracySec=1s`) named
//!   `ldp-schedule-<slug>-<sha8>` ([`systemd_unit_name`]), each after a comment naming where to
//!   save it under `~/.config/systemd/user/`, and a final comment with the `systemctl --user`
//!   command that enables the timer. What a tick prints goes to the journal.
//!
//! The slug is the folder's name with every run of characters other than ASCII letters, digits
//! and `_` made one `-`, stripped of `-` at both ends and lower-cased (`project` when nothing is
//! left); `sha8` is the first 8 hex digits of the sha256 of the folder's path, so two folders
//! never clash.
//!
//! Both paths are absolute because cron, launchd and systemd start a command with almost no
//! environment. The caller resolves them as the Python tool does: the folder as `Path.resolve()`
//! (symlinks followed), the executable as `os.path.abspath` of `--ldp` or of the `ldp` that is
//! running. Here they are only normalised lexically (`.`, repeated and trailing `/` dropped), as
//! Python's `str(Path(…))` writes them.
//!
//! ```
//! use std::path::Path;
//! use ldp_orchestrate::scheduling::{RecipeKind, recipe};
//! let kind: RecipeKind = "cron".parse().unwrap();
//! let text = recipe(kind, Path::new("/srv/50% off"), Path::new("/usr/bin/ldp"), Path::new("/root")).unwrap();
//! assert_eq!(text, "# ldp schedule tick for /srv/50% off, every 5 minutes\n\
//!     */5 * * * * mkdir -p '/srv/50\\% off/.ldp' && /usr/bin/ldp schedule tick '/srv/50\\% off' \
//!     >> '/srv/50\\% off/.ldp/schedule.log' 2>&1\n");
//! ```

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use ldp_config::ConfigError;
use ldp_config::repr_str;
use ldp_config::sha256_hex;

/// How often the recipes call `ldp schedule tick`, in minutes.
pub const INTERVAL_MINUTES: u32 = 5;

/// The longest slug a systemd unit name takes: a unit name may be 255 characters at most.
const SYSTEMD_SLUG_MAX: usize = 64;

/// A recipe `ldp schedule install --print` knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RecipeKind {
    /// A comment and a crontab line (Linux).
    Cron,
    /// A launchd plist (macOS).
    Launchd,
    /// A systemd user service and timer (Linux).
    Systemd,
}

impl RecipeKind {
    /// Every recipe, in the order the help lists them.
    pub const ALL: [RecipeKind; 3] = [RecipeKind::Cron, RecipeKind::Launchd, RecipeKind::Systemd];

    /// The name on the command line: `cron`, `launchd` or `systemd`.
    pub fn as_str(self) -> &'static str {
        match self {
            RecipeKind::Cron => "cron",
            RecipeKind::Launchd => "launchd",
            RecipeKind::Systemd => "systemd",
        }
    }
}

impl fmt::Display for RecipeKind {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.as_str())
    }
}

impl FromStr for RecipeKind {
    type Err = ConfigError;

    /// Reads a recipe's name.
    ///
    /// # Errors
    ///
    /// [`ConfigError::Recipe`]: `unknown recipe 'x'; the recipes are cron, launchd, systemd`.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        RecipeKind::ALL
            .into_iter()
            .find(|kind| kind.as_str() == text)
            .ok_or_else(|| {
                let names: Vec<&str> = RecipeKind::ALL.iter().map(|kind| kind.as_str()).collect();
                error(format!(
                    "unknown recipe {}; the recipes are {}",
                    repr_str(text),
                    names.join(", ")
                ))
            })
    }
}

/// The text of a recipe, ending with a newline (the Python tool's CLI strips it and prints one).
///
/// `dir` is the folder to tick and `ldp` the executable, both absolute and resolved by the
/// caller; `home` is the home folder, where the launchd log goes (the other recipes write `~`).
///
/// # Errors
///
/// [`ConfigError::Recipe`] when a path is relative or not UTF-8, when a launchd path holds a
/// control character other than tab, newline or carriage return (Python's `plistlib` refuses
/// it), or when a systemd path holds a control character or the folder ends in a space or a
/// backslash (which a unit file cannot spell).
pub fn recipe(
    kind: RecipeKind,
    dir: &Path,
    ldp: &Path,
    home: &Path,
) -> Result<String, ConfigError> {
    match kind {
        RecipeKind::Cron => cron_recipe(dir, ldp),
        RecipeKind::Launchd => launchd_recipe(dir, ldp, home),
        RecipeKind::Systemd => systemd_recipe(dir, ldp),
    }
}

/// A comment and the crontab line that ticks `dir` every 5 minutes and logs to
/// `DIR/.ldp/schedule.log`, as the Python tool's `cron_recipe` writes them.
///
/// # Errors
///
/// [`ConfigError::Recipe`] when a path is relative or not UTF-8.
pub fn cron_recipe(dir: &Path, ldp: &Path) -> Result<String, ConfigError> {
    let folder = absolute_text(dir, "the folder to tick")?;
    let ldp = absolute_text(ldp, "the ldp executable")?;
    let state = join(&folder, ".ldp");
    let log = join(&state, "schedule.log");
    let command = format!(
        "mkdir -p {} && {} schedule tick {} >> {} 2>&1",
        sh_quote(&state),
        sh_quote(&ldp),
        sh_quote(&folder),
        sh_quote(&log)
    )
    .replace('%', "\\%");
    Ok(format!(
        "# ldp schedule tick for {folder}, every {INTERVAL_MINUTES} minutes\n\
         */{INTERVAL_MINUTES} * * * * {command}\n"
    ))
}

/// The launchd plist that ticks `dir` every 5 minutes and when it loads, logging to
/// `HOME/Library/Logs/<label>.log`, after a comment on how to install it: the Python tool's
/// `launchd_recipe`, byte for byte.
///
/// The comment names the folder with every `--` made `- -` (Python's `str.replace`, left to
/// right, so `---` becomes `- --`, as in the Python tool).
///
/// # Errors
///
/// [`ConfigError::Recipe`] when a path is relative or not UTF-8, or holds a control character
/// other than tab, newline and carriage return.
pub fn launchd_recipe(dir: &Path, ldp: &Path, home: &Path) -> Result<String, ConfigError> {
    let folder = absolute_text(dir, "the folder to tick")?;
    let ldp = absolute_text(ldp, "the ldp executable")?;
    let home = absolute_text(home, "the home folder")?;
    let label = label_of(&folder);
    let log = join(
        &join(&join(&home, "Library"), "Logs"),
        &format!("{label}.log"),
    );
    let folder_xml = plist_escape(&folder, "the folder to tick")?;
    let ldp_xml = plist_escape(&ldp, "the ldp executable")?;
    let log_xml = plist_escape(&log, "the home folder")?;
    let seconds = INTERVAL_MINUTES * 60;
    let about = format!(
        "  ldp schedule tick for {folder}, every {INTERVAL_MINUTES} minutes and when it loads."
    )
    .replace("--", "- -");
    let agent = format!("~/Library/LaunchAgents/{label}.plist");
    let lines = [
        r#"<?xml version="1.0" encoding="UTF-8"?>"#.to_owned(),
        r#"<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">"#.to_owned(),
        "<!--".to_owned(),
        about,
        "  launchd runs an interval that went by while the Mac slept once, when it wakes.".to_owned(),
        format!("  Save this as {agent} and run"),
        format!("    launchctl bootstrap gui/$(id -u) {agent}"),
        "  To stop it, run".to_owned(),
        format!("    launchctl bootout gui/$(id -u) {agent}"),
        "-->".to_owned(),
        r#"<plist version="1.0">"#.to_owned(),
        "<dict>".to_owned(),
        "\t<key>Label</key>".to_owned(),
        format!("\t<string>{label}</string>"),
        "\t<key>ProgramArguments</key>".to_owned(),
        "\t<array>".to_owned(),
        format!("\t\t<string>{ldp_xml}</string>"),
        "\t\t<string>schedule</string>".to_owned(),
        "\t\t<string>tick</string>".to_owned(),
        format!("\t\t<string>{folder_xml}</string>"),
        "\t</array>".to_owned(),
        "\t<key>StartInterval</key>".to_owned(),
        format!("\t<integer>{seconds}</integer>"),
        "\t<key>RunAtLoad</key>".to_owned(),
        "\t<true/>".to_owned(),
        "\t<key>WorkingDirectory</key>".to_owned(),
        format!("\t<string>{folder_xml}</string>"),
        "\t<key>StandardOutPath</key>".to_owned(),
        format!("\t<string>{log_xml}</string>"),
        "\t<key>StandardErrorPath</key>".to_owned(),
        format!("\t<string>{log_xml}</string>"),
        "</dict>".to_owned(),
        "</plist>".to_owned(),
    ];
    let mut text = lines.join("\n");
    text.push('\n');
    Ok(text)
}

/// A systemd user service and the timer that starts it every 5 minutes, as one text: each
/// file after a comment naming where to save it, then the `systemctl --user` command that
/// enables the timer.
///
/// The executable and the folder in `ExecStart=` are double-quoted when they hold anything but
/// ASCII letters, digits and `_@%+=:,./-` (with `\` and `"` escaped); `%` is written `%%` in
/// every setting (systemd's specifiers) and `$` is written `$$` in `ExecStart=`.
///
/// # Errors
///
/// [`ConfigError::Recipe`] when a path is relative, not UTF-8 or holds a control character, or
/// the folder ends in a space or a backslash (`WorkingDirectory=` cannot spell either).
pub fn systemd_recipe(dir: &Path, ldp: &Path) -> Result<String, ConfigError> {
    let folder = absolute_text(dir, "the folder to tick")?;
    let ldp = absolute_text(ldp, "the ldp executable")?;
    no_control_characters(&folder, "the folder to tick", "a systemd unit")?;
    no_control_characters(&ldp, "the ldp executable", "a systemd unit")?;
    if folder.ends_with(' ') || folder.ends_with('\\') {
        return Err(error(format!(
            "the folder to tick {} ends in a space or a backslash, which a systemd unit cannot \
             hold in WorkingDirectory=",
            repr_str(&folder)
        )));
    }
    let unit = unit_name_of(&folder);
    let specifiers = folder.replace('%', "%%");
    let exec = format!(
        "{} schedule tick {}",
        systemd_word(&ldp),
        systemd_word(&folder)
    );
    let every = format!("every {INTERVAL_MINUTES} minutes");
    let place = "~/.config/systemd/user";
    let lines = [
        format!("# ldp schedule tick for {folder}, {every}: a systemd user service and its timer."),
        format!("# What a tick prints goes to the journal: journalctl --user -u {unit}.service"),
        "# Persistent=true runs a tick that was missed while the machine was off when it is back."
            .to_owned(),
        "# A user timer runs while you are logged in; loginctl enable-linger runs it at other times."
            .to_owned(),
        format!("# To stop it, run systemctl --user disable --now {unit}.timer"),
        String::new(),
        format!("# Save this as {place}/{unit}.service"),
        "[Unit]".to_owned(),
        format!("Description=ldp schedule tick for {specifiers}"),
        String::new(),
        "[Service]".to_owned(),
        "Type=oneshot".to_owned(),
        format!("WorkingDirectory={specifiers}"),
        format!("ExecStart={exec}"),
        String::new(),
        format!("# Save this as {place}/{unit}.timer"),
        "[Unit]".to_owned(),
        format!("Description=ldp schedule tick for {specifiers}, {every}"),
        String::new(),
        "[Timer]".to_owned(),
        format!("OnCalendar=*:0/{INTERVAL_MINUTES}"),
        "Persistent=true".to_owned(),
        "AccuracySec=1s".to_owned(),
        String::new(),
        "[Install]".to_owned(),
        "WantedBy=timers.target".to_owned(),
        String::new(),
        "# Then run".to_owned(),
        format!("#   systemctl --user daemon-reload && systemctl --user enable --now {unit}.timer"),
    ];
    let mut text = lines.join("\n");
    text.push('\n');
    Ok(text)
}

/// The launchd label of a folder: `local-data-platform.schedule.<slug>.<sha8>`, as the
/// Python tool's `label_of` makes it (see the [module](self) for the slug).
///
/// # Errors
///
/// [`ConfigError::Recipe`] when `dir` is relative or not UTF-8.
pub fn launchd_label(dir: &Path) -> Result<String, ConfigError> {
    Ok(label_of(&absolute_text(dir, "the folder to tick")?))
}

/// The systemd unit name of a folder, without `.service` or `.timer`:
/// `ldp-schedule-<slug>-<sha8>`, the slug and hash of [`launchd_label`], the slug cut to its
/// first 64 characters so the name stays under systemd's 255.
///
/// # Errors
///
/// [`ConfigError::Recipe`] when `dir` is relative or not UTF-8.
pub fn systemd_unit_name(dir: &Path) -> Result<String, ConfigError> {
    Ok(unit_name_of(&absolute_text(dir, "the folder to tick")?))
}

fn error(message: String) -> ConfigError {
    ConfigError::Recipe { message }
}

/// The text of an absolute path as Python's `str(Path(…))` writes it: `.` and repeated or
/// trailing separators dropped.
fn absolute_text(path: &Path, what: &str) -> Result<String, ConfigError> {
    if !path.is_absolute() {
        return Err(error(format!(
            "{what} must be an absolute path, got {}",
            repr_str(&path.to_string_lossy())
        )));
    }
    let normal: PathBuf = path.components().collect();
    normal.into_os_string().into_string().map_err(|_| {
        error(format!(
            "{what} {} is not UTF-8, so a recipe cannot name it",
            repr_str(&path.to_string_lossy())
        ))
    })
}

/// `base / name` as Python's `Path` joins them (`/` and `.ldp` give `/.ldp`).
fn join(base: &str, name: &str) -> String {
    if base.ends_with('/') {
        format!("{base}{name}")
    } else {
        format!("{base}/{name}")
    }
}

/// The last component of a normalised absolute path; empty for `/`.
fn folder_name(folder: &str) -> &str {
    folder.rsplit('/').next().unwrap_or_default()
}

/// The slug of a folder: runs of characters other than `[A-Za-z0-9_]` made one `-`, stripped
/// of `-`, lower-cased, `project` when empty.
fn slug_of(folder: &str) -> String {
    let mut slug = String::new();
    let mut in_run = false;
    for character in folder_name(folder).chars() {
        if character.is_ascii_alphanumeric() || character == '_' {
            slug.push(character.to_ascii_lowercase());
            in_run = false;
        } else if !in_run {
            slug.push('-');
            in_run = true;
        }
    }
    let slug = slug.trim_matches('-');
    if slug.is_empty() {
        "project".to_owned()
    } else {
        slug.to_owned()
    }
}

/// The first 8 hex digits of the sha256 of the folder's path.
fn short_hash(folder: &str) -> String {
    let mut digest = sha256_hex(folder.as_bytes());
    digest.truncate(8);
    digest
}

fn label_of(folder: &str) -> String {
    format!(
        "local-data-platform.schedule.{}.{}",
        slug_of(folder),
        short_hash(folder)
    )
}

fn unit_name_of(folder: &str) -> String {
    let slug = slug_of(folder);
    let cut: String = slug.chars().take(SYSTEMD_SLUG_MAX).collect();
    format!(
        "ldp-schedule-{}-{}",
        cut.trim_end_matches('-'),
        short_hash(folder)
    )
}

/// Whether `text` needs no quoting in a shell or a systemd command line: Python's `shlex`
/// safe set, `[A-Za-z0-9_@%+=:,./-]`.
fn is_shell_safe(text: &str) -> bool {
    text.chars()
        .all(|character| character.is_ascii_alphanumeric() || "_@%+=:,./-".contains(character))
}

/// Python's `shlex.quote`.
fn sh_quote(text: &str) -> String {
    if text.is_empty() {
        "''".to_owned()
    } else if is_shell_safe(text) {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', "'\"'\"'"))
    }
}

/// One word of a systemd `ExecStart=`: `%` as `%%`, `$` as `$$`, in double quotes (with `\`
/// and `"` escaped) unless it is shell-safe.
fn systemd_word(text: &str) -> String {
    let plain = text.replace('%', "%%").replace('$', "$$");
    if is_shell_safe(text) {
        plain
    } else {
        format!("\"{}\"", plain.replace('\\', "\\\\").replace('"', "\\\""))
    }
}

/// A control character, as Python's `plistlib` and systemd units refuse them.
fn control_character(text: &str, allowed: &[char]) -> Option<char> {
    text.chars()
        .find(|character| character.is_ascii_control() && !allowed.contains(character))
}

fn no_control_characters(text: &str, what: &str, holder: &str) -> Result<(), ConfigError> {
    match control_character(text, &[]) {
        None => Ok(()),
        Some(_) => Err(error(format!(
            "{what} {} holds a control character, which {holder} cannot hold",
            repr_str(text)
        ))),
    }
}

/// Python `plistlib`'s `_escape`: control characters other than tab, newline and carriage
/// return refused, `\r\n` and `\r` made `\n`, then `&`, `<` and `>` escaped.
fn plist_escape(text: &str, what: &str) -> Result<String, ConfigError> {
    if control_character(text, &['\t', '\n', '\r', '\u{7f}']).is_some() {
        return Err(error(format!(
            "{what} {} holds a control character, which a launchd plist cannot hold",
            repr_str(text)
        )));
    }
    Ok(text
        .replace("\r\n", "\n")
        .replace('\r', "\n")
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLAIN: &str = "/home/ada/ldp_demo/restaurant";
    const PLAIN_LDP: &str = "/home/ada/.venv/bin/ldp";
    const SPACED: &str = "/home/ada/My Data/50% off";
    const SPACED_LDP: &str = "/opt/my tools/ldp";
    const HOME: &str = "/home/ada";

    fn text(lines: &[&str]) -> String {
        lines.join("\n")
    }

    fn make(kind: RecipeKind, dir: &str, ldp: &str) -> String {
        recipe(kind, Path::new(dir), Path::new(ldp), Path::new(HOME)).unwrap()
    }

    fn message(result: Result<String, ConfigError>) -> String {
        result.unwrap_err().to_string()
    }

    #[test]
    fn kinds_read_and_write_their_names() {
        for kind in RecipeKind::ALL {
            assert_eq!(kind.as_str().parse::<RecipeKind>().unwrap(), kind);
            assert_eq!(kind.to_string(), kind.as_str());
        }
        assert_eq!(
            "Cron".parse::<RecipeKind>().unwrap_err().to_string(),
            "unknown recipe 'Cron'; the recipes are cron, launchd, systemd"
        );
    }

    // The expected texts below are what the Python tool's cron_recipe and launchd_recipe print.

    #[test]
    fn cron_plain_path_matches_the_reference() {
        let expected = text(&[
            "# ldp schedule tick for /home/ada/ldp_demo/restaurant, every 5 minutes",
            "*/5 * * * * mkdir -p /home/ada/ldp_demo/restaurant/.ldp && /home/ada/.venv/bin/ldp schedule tick /home/ada/ldp_demo/restaurant >> /home/ada/ldp_demo/restaurant/.ldp/schedule.log 2>&1",
            "",
        ]);
        assert_eq!(make(RecipeKind::Cron, PLAIN, PLAIN_LDP), expected);
    }

    #[test]
    fn cron_quotes_spaces_and_escapes_percent_as_the_reference() {
        let expected = text(&[
            "# ldp schedule tick for /home/ada/My Data/50% off, every 5 minutes",
            "*/5 * * * * mkdir -p '/home/ada/My Data/50\\% off/.ldp' && '/opt/my tools/ldp' schedule tick '/home/ada/My Data/50\\% off' >> '/home/ada/My Data/50\\% off/.ldp/schedule.log' 2>&1",
            "",
        ]);
        assert_eq!(make(RecipeKind::Cron, SPACED, SPACED_LDP), expected);
    }

    #[test]
    fn cron_quotes_single_quotes_non_ascii_and_the_root_as_the_reference() {
        assert_eq!(
            make(RecipeKind::Cron, "/srv/it's a---b", "/usr/bin/ldp"),
            text(&[
                "# ldp schedule tick for /srv/it's a---b, every 5 minutes",
                "*/5 * * * * mkdir -p '/srv/it'\"'\"'s a---b/.ldp' && /usr/bin/ldp schedule tick '/srv/it'\"'\"'s a---b' >> '/srv/it'\"'\"'s a---b/.ldp/schedule.log' 2>&1",
                "",
            ])
        );
        assert_eq!(
            make(RecipeKind::Cron, "/srv/Café--Prix & <Co>", "/usr/bin/ldp"),
            text(&[
                "# ldp schedule tick for /srv/Café--Prix & <Co>, every 5 minutes",
                "*/5 * * * * mkdir -p '/srv/Café--Prix & <Co>/.ldp' && /usr/bin/ldp schedule tick '/srv/Café--Prix & <Co>' >> '/srv/Café--Prix & <Co>/.ldp/schedule.log' 2>&1",
                "",
            ])
        );
        assert_eq!(
            make(RecipeKind::Cron, "/", "/usr/bin/ldp"),
            text(&[
                "# ldp schedule tick for /, every 5 minutes",
                "*/5 * * * * mkdir -p /.ldp && /usr/bin/ldp schedule tick / >> /.ldp/schedule.log 2>&1",
                "",
            ])
        );
    }

    #[test]
    fn launchd_plain_path_matches_the_reference() {
        let expected = text(&[
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
            "<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">",
            "<!--",
            "  ldp schedule tick for /home/ada/ldp_demo/restaurant, every 5 minutes and when it loads.",
            "  launchd runs an interval that went by while the Mac slept once, when it wakes.",
            "  Save this as ~/Library/LaunchAgents/local-data-platform.schedule.restaurant.50e92a9d.plist and run",
            "    launchctl bootstrap gui/$(id -u) ~/Library/LaunchAgents/local-data-platform.schedule.restaurant.50e92a9d.plist",
            "  To stop it, run",
            "    launchctl bootout gui/$(id -u) ~/Library/LaunchAgents/local-data-platform.schedule.restaurant.50e92a9d.plist",
            "-->",
            "<plist version=\"1.0\">",
            "<dict>",
            "\t<key>Label</key>",
            "\t<string>local-data-platform.schedule.restaurant.50e92a9d</string>",
            "\t<key>ProgramArguments</key>",
            "\t<array>",
            "\t\t<string>/home/ada/.venv/bin/ldp</string>",
            "\t\t<string>schedule</string>",
            "\t\t<string>tick</string>",
            "\t\t<string>/home/ada/ldp_demo/restaurant</string>",
            "\t</array>",
            "\t<key>StartInterval</key>",
            "\t<integer>300</integer>",
            "\t<key>RunAtLoad</key>",
            "\t<true/>",
            "\t<key>WorkingDirectory</key>",
            "\t<string>/home/ada/ldp_demo/restaurant</string>",
            "\t<key>StandardOutPath</key>",
            "\t<string>/home/ada/Library/Logs/local-data-platform.schedule.restaurant.50e92a9d.log</string>",
            "\t<key>StandardErrorPath</key>",
            "\t<string>/home/ada/Library/Logs/local-data-platform.schedule.restaurant.50e92a9d.log</string>",
            "</dict>",
            "</plist>",
            "",
        ]);
        assert_eq!(make(RecipeKind::Launchd, PLAIN, PLAIN_LDP), expected);
    }

    #[test]
    fn launchd_space_and_percent_match_the_reference() {
        let expected = text(&[
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
            "<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">",
            "<!--",
            "  ldp schedule tick for /home/ada/My Data/50% off, every 5 minutes and when it loads.",
            "  launchd runs an interval that went by while the Mac slept once, when it wakes.",
            "  Save this as ~/Library/LaunchAgents/local-data-platform.schedule.50-off.d6de73d0.plist and run",
            "    launchctl bootstrap gui/$(id -u) ~/Library/LaunchAgents/local-data-platform.schedule.50-off.d6de73d0.plist",
            "  To stop it, run",
            "    launchctl bootout gui/$(id -u) ~/Library/LaunchAgents/local-data-platform.schedule.50-off.d6de73d0.plist",
            "-->",
            "<plist version=\"1.0\">",
            "<dict>",
            "\t<key>Label</key>",
            "\t<string>local-data-platform.schedule.50-off.d6de73d0</string>",
            "\t<key>ProgramArguments</key>",
            "\t<array>",
            "\t\t<string>/opt/my tools/ldp</string>",
            "\t\t<string>schedule</string>",
            "\t\t<string>tick</string>",
            "\t\t<string>/home/ada/My Data/50% off</string>",
            "\t</array>",
            "\t<key>StartInterval</key>",
            "\t<integer>300</integer>",
            "\t<key>RunAtLoad</key>",
            "\t<true/>",
            "\t<key>WorkingDirectory</key>",
            "\t<string>/home/ada/My Data/50% off</string>",
            "\t<key>StandardOutPath</key>",
            "\t<string>/home/ada/Library/Logs/local-data-platform.schedule.50-off.d6de73d0.log</string>",
            "\t<key>StandardErrorPath</key>",
            "\t<string>/home/ada/Library/Logs/local-data-platform.schedule.50-off.d6de73d0.log</string>",
            "</dict>",
            "</plist>",
            "",
        ]);
        assert_eq!(make(RecipeKind::Launchd, SPACED, SPACED_LDP), expected);
    }

    #[test]
    fn launchd_escapes_xml_and_comment_dashes_as_the_reference() {
        let plist = make(
            RecipeKind::Launchd,
            "/srv/Café--Prix & <Co>",
            "/usr/bin/ldp",
        );
        assert!(plist.contains(
            "\n  ldp schedule tick for /srv/Café- -Prix & <Co>, every 5 minutes and when it loads.\n"
        ));
        assert!(plist.contains("\n\t\t<string>/srv/Café--Prix &amp; &lt;Co&gt;</string>\n"));
        assert!(
            plist.contains(
                "\n\t<string>local-data-platform.schedule.caf-prix-co.3a9fa263</string>\n"
            )
        );
        // str.replace goes left to right, so `---` keeps a `--`, as in the Python tool.
        let plist = make(RecipeKind::Launchd, "/srv/it's a---b", "/usr/bin/ldp");
        assert!(plist.contains("\n  ldp schedule tick for /srv/it's a- --b, every 5 minutes"));
        assert!(plist.contains("\t<string>/srv/it's a---b</string>"));
        // plistlib makes a carriage return a newline in a string, and leaves the comment alone.
        let plist = make(RecipeKind::Launchd, "/srv/a\rb", "/usr/bin/ldp");
        assert!(plist.contains("\t<string>/srv/a\nb</string>"));
        assert!(plist.contains("for /srv/a\rb, every"));
    }

    #[test]
    fn launchd_log_is_under_the_home_folder() {
        let plist = recipe(
            RecipeKind::Launchd,
            Path::new(PLAIN),
            Path::new(PLAIN_LDP),
            Path::new("/Users/ada/"),
        )
        .unwrap();
        assert!(plist.contains(
            "\t<string>/Users/ada/Library/Logs/local-data-platform.schedule.restaurant.50e92a9d.log</string>"
        ));
        let plist = recipe(
            RecipeKind::Launchd,
            Path::new(PLAIN),
            Path::new(PLAIN_LDP),
            Path::new("/"),
        )
        .unwrap();
        assert!(plist.contains("\t<string>/Library/Logs/local-data-platform.schedule.restaurant"));
    }

    #[test]
    fn labels_follow_the_reference_slug_rules() {
        let label = |dir: &str| launchd_label(Path::new(dir)).unwrap();
        assert_eq!(
            label(PLAIN),
            "local-data-platform.schedule.restaurant.50e92a9d"
        );
        assert_eq!(
            label(SPACED),
            "local-data-platform.schedule.50-off.d6de73d0"
        );
        assert_eq!(
            label("/srv/Café--Prix & <Co>"),
            "local-data-platform.schedule.caf-prix-co.3a9fa263"
        );
        assert_eq!(
            label("/srv/it's a---b"),
            "local-data-platform.schedule.it-s-a-b.7bb0d60c"
        );
        assert_eq!(label("/"), "local-data-platform.schedule.project.8a5edab2");
        assert_eq!(slug_of("/srv/--Big_Data--"), "big_data");
        assert_eq!(slug_of("/srv/日本"), "project");
    }

    #[test]
    fn paths_are_normalised_as_python_writes_them() {
        assert_eq!(
            make(
                RecipeKind::Cron,
                "/home/ada//ldp_demo/./restaurant/",
                "/home/ada/.venv/bin/ldp"
            ),
            make(RecipeKind::Cron, PLAIN, PLAIN_LDP)
        );
        assert_eq!(
            launchd_label(Path::new("/home/ada/ldp_demo/restaurant/")).unwrap(),
            "local-data-platform.schedule.restaurant.50e92a9d"
        );
    }

    #[test]
    fn systemd_plain_path() {
        let expected = text(&[
            "# ldp schedule tick for /home/ada/ldp_demo/restaurant, every 5 minutes: a systemd user service and its timer.",
            "# What a tick prints goes to the journal: journalctl --user -u ldp-schedule-restaurant-50e92a9d.service",
            "# Persistent=true runs a tick that was missed while the machine was off when it is back.",
            "# A user timer runs while you are logged in; loginctl enable-linger runs it at other times.",
            "# To stop it, run systemctl --user disable --now ldp-schedule-restaurant-50e92a9d.timer",
            "",
            "# Save this as ~/.config/systemd/user/ldp-schedule-restaurant-50e92a9d.service",
            "[Unit]",
            "Description=ldp schedule tick for /home/ada/ldp_demo/restaurant",
            "",
            "[Service]",
            "Type=oneshot",
            "WorkingDirectory=/home/ada/ldp_demo/restaurant",
            "ExecStart=/home/ada/.venv/bin/ldp schedule tick /home/ada/ldp_demo/restaurant",
            "",
            "# Save this as ~/.config/systemd/user/ldp-schedule-restaurant-50e92a9d.timer",
            "[Unit]",
            "Description=ldp schedule tick for /home/ada/ldp_demo/restaurant, every 5 minutes",
            "",
            "[Timer]",
            "OnCalendar=*:0/5",
            "Persistent=true",
            "AccuracySec=1s",
            "",
            "[Install]",
            "WantedBy=timers.target",
            "",
            "# Then run",
            "#   systemctl --user daemon-reload && systemctl --user enable --now ldp-schedule-restaurant-50e92a9d.timer",
            "",
        ]);
        assert_eq!(make(RecipeKind::Systemd, PLAIN, PLAIN_LDP), expected);
    }

    #[test]
    fn systemd_quotes_spaces_and_doubles_percent() {
        let units = make(RecipeKind::Systemd, SPACED, SPACED_LDP);
        let lines: Vec<&str> = units.lines().collect();
        assert_eq!(
            lines[0],
            "# ldp schedule tick for /home/ada/My Data/50% off, every 5 minutes: a systemd user service and its timer."
        );
        assert_eq!(
            lines[6],
            "# Save this as ~/.config/systemd/user/ldp-schedule-50-off-d6de73d0.service"
        );
        assert_eq!(
            lines[8],
            "Description=ldp schedule tick for /home/ada/My Data/50%% off"
        );
        assert_eq!(lines[12], "WorkingDirectory=/home/ada/My Data/50%% off");
        assert_eq!(
            lines[13],
            "ExecStart=\"/opt/my tools/ldp\" schedule tick \"/home/ada/My Data/50%% off\""
        );
        assert_eq!(
            lines[15],
            "# Save this as ~/.config/systemd/user/ldp-schedule-50-off-d6de73d0.timer"
        );
        assert_eq!(
            lines[17],
            "Description=ldp schedule tick for /home/ada/My Data/50%% off, every 5 minutes"
        );
        assert_eq!(
            lines[28],
            "#   systemctl --user daemon-reload && systemctl --user enable --now ldp-schedule-50-off-d6de73d0.timer"
        );
        assert_eq!(lines.len(), 29);
    }

    #[test]
    fn systemd_escapes_quotes_backslashes_and_dollars() {
        assert_eq!(systemd_word("/usr/bin/ldp"), "/usr/bin/ldp");
        assert_eq!(systemd_word("/srv/50%"), "/srv/50%%");
        assert_eq!(systemd_word("/srv/$HOME"), "\"/srv/$$HOME\"");
        assert_eq!(systemd_word(r#"/srv/a "b" \c"#), r#""/srv/a \"b\" \\c""#);
        assert_eq!(systemd_word("/srv/it's"), "\"/srv/it's\"");
    }

    #[test]
    fn systemd_unit_names_share_the_launchd_slug_and_hash() {
        let name = |dir: &str| systemd_unit_name(Path::new(dir)).unwrap();
        assert_eq!(name(PLAIN), "ldp-schedule-restaurant-50e92a9d");
        assert_eq!(
            name("/srv/Café--Prix & <Co>"),
            "ldp-schedule-caf-prix-co-3a9fa263"
        );
        assert_eq!(name("/"), "ldp-schedule-project-8a5edab2");
        let long = format!("/srv/{}-{}", "a".repeat(63), "b".repeat(100));
        let unit = name(&long);
        assert!(unit.starts_with(&format!("ldp-schedule-{}-", "a".repeat(63))));
        assert_eq!(unit.len(), "ldp-schedule-".len() + 63 + 1 + 8);
    }

    #[test]
    fn paths_a_recipe_cannot_hold_are_refused() {
        assert_eq!(
            message(recipe(
                RecipeKind::Cron,
                Path::new("demo"),
                Path::new("/usr/bin/ldp"),
                Path::new(HOME)
            )),
            "the folder to tick must be an absolute path, got 'demo'"
        );
        assert_eq!(
            message(recipe(
                RecipeKind::Systemd,
                Path::new(PLAIN),
                Path::new("ldp"),
                Path::new(HOME)
            )),
            "the ldp executable must be an absolute path, got 'ldp'"
        );
        assert_eq!(
            message(recipe(
                RecipeKind::Launchd,
                Path::new(PLAIN),
                Path::new(PLAIN_LDP),
                Path::new("~")
            )),
            "the home folder must be an absolute path, got '~'"
        );
        assert_eq!(
            message(launchd_recipe(
                Path::new("/srv/a\u{1}b"),
                Path::new(PLAIN_LDP),
                Path::new(HOME)
            )),
            "the folder to tick '/srv/a\\x01b' holds a control character, which a launchd plist cannot hold"
        );
        assert_eq!(
            message(systemd_recipe(Path::new("/srv/a\nb"), Path::new(PLAIN_LDP))),
            "the folder to tick '/srv/a\\nb' holds a control character, which a systemd unit cannot hold"
        );
        assert_eq!(
            message(systemd_recipe(Path::new("/srv/a "), Path::new(PLAIN_LDP))),
            "the folder to tick '/srv/a ' ends in a space or a backslash, which a systemd unit cannot hold in WorkingDirectory="
        );
        // cron holds what the Python tool lets through.
        assert!(cron_recipe(Path::new("/srv/a\u{1}b"), Path::new(PLAIN_LDP)).is_ok());
    }

    #[cfg(unix)]
    #[test]
    fn non_utf8_paths_are_refused() {
        use std::ffi::OsStr;
        use std::os::unix::ffi::OsStrExt;
        let dir = Path::new(OsStr::from_bytes(b"/srv/\xff"));
        assert_eq!(
            message(cron_recipe(dir, Path::new(PLAIN_LDP))),
            "the folder to tick '/srv/\u{fffd}' is not UTF-8, so a recipe cannot name it"
        );
    }
}
