//! `lorebook sillytavern …`: books, settings and chats of a running
//! SillyTavern, through its server API (`lorebook_connect`).
//!
//! - `books URL [--json]`: the server's books.
//! - `pull URL BOOK -o FILE [--to FORMAT]`: a book, as the server keeps it
//!   (or converted); `pull URL --settings -o settings.json`; `pull URL
//!   --chat CHARACTER/CHAT -o chat.jsonl`.
//! - `push URL FILE [--as NAME] [--force]`: a book file of any format sent
//!   as the book NAME (default: the file's name without extension); exit
//!   status 3 when the server's copy changed since this machine last pulled
//!   or pushed it, unless `--force`.
//!
//! The user is `--user`; the password only ever comes from the environment
//! (`LOREBOOK_ST_PASSWORD`), never from an option (which other users of the
//! machine could read in the process list).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Subcommand;
use lorebook_connect::{Address, Error, Ledger, Login, Secret, Server};
use lorebook_engine::formats::{self, ExportFormat, Format};
use serde_json::Value;

use crate::{books, emit};

/// The environment variable holding the password.
pub const PASSWORD_ENV: &str = "LOREBOOK_ST_PASSWORD";

/// Exit status of a push refused because the server's copy changed.
const EXIT_CHANGED: u8 = 3;

#[derive(clap::Args)]
pub struct Connection {
    /// The server's address [SillyTavern's default: http://127.0.0.1:8000].
    url: String,
    /// The user to log in as (basic auth or a user account, whichever the
    /// server asks for); the password is read from LOREBOOK_ST_PASSWORD.
    #[arg(long)]
    user: Option<String>,
}

#[derive(Subcommand)]
pub enum StCommand {
    /// Lists the server's books (by the name every other command takes).
    Books {
        #[command(flatten)]
        connection: Connection,
        #[arg(long)]
        json: bool,
    },
    /// Pulls a book, the settings (--settings) or a chat (--chat) into a file.
    Pull {
        #[command(flatten)]
        connection: Connection,
        /// The book's name on the server.
        #[arg(required_unless_present_any = ["settings", "chat"], conflicts_with_all = ["settings", "chat"])]
        book: Option<String>,
        /// Pulls settings.json (SillyTavern's world-info settings, macro
        /// engine and global variables, for --st-settings).
        #[arg(long, conflicts_with = "chat")]
        settings: bool,
        /// Pulls a chat: CHARACTER/CHAT, the character by its card file
        /// (Seraphina.png or Seraphina) or name, the chat by its file name
        /// without .jsonl.
        #[arg(long, value_name = "CHARACTER/CHAT")]
        chat: Option<String>,
        /// Writes the book in this format instead of as the server keeps it
        /// (native, sillytavern, ccv2, ccv3, risu, novelai or agnai).
        #[arg(long, conflicts_with_all = ["settings", "chat"])]
        to: Option<String>,
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Pushes a book file (any format the app reads) to the server.
    Push {
        #[command(flatten)]
        connection: Connection,
        /// The book to send (any importable format, or a book's folder).
        file: PathBuf,
        /// The book's name on the server (default: the file's name without
        /// its extension).
        #[arg(long = "as", value_name = "NAME")]
        name: Option<String>,
        /// Replaces the server's copy even when it changed since this
        /// machine last pulled or pushed it.
        #[arg(long)]
        force: bool,
    },
}

pub fn run(command: &StCommand) -> ExitCode {
    let result = match command {
        StCommand::Books { connection, json } => list(connection, *json),
        StCommand::Pull {
            connection,
            book,
            settings,
            chat,
            to,
            output,
        } => pull(
            connection,
            book.as_deref(),
            *settings,
            chat.as_deref(),
            to.as_deref(),
            output,
        ),
        StCommand::Push {
            connection,
            file,
            name,
            force,
        } => push(connection, file, name.as_deref(), *force),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Changed(message)) => {
            eprintln!("error: {message}");
            ExitCode::from(EXIT_CHANGED)
        }
        Err(Failure::Other(message)) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

enum Failure {
    Changed(String),
    Other(String),
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        match e {
            Error::Changed(_) => Failure::Changed(e.to_string()),
            e => Failure::Other(e.to_string()),
        }
    }
}

impl From<String> for Failure {
    fn from(e: String) -> Self {
        Failure::Other(e)
    }
}

fn connect(c: &Connection) -> Result<Server, Failure> {
    let address = Address::parse(&c.url)?;
    // An account may have no password: an unset variable is tried as an
    // empty one, and named when the server refuses it.
    let password = std::env::var(PASSWORD_ENV).ok();
    let login = c.user.as_ref().map(|user| Login {
        user: user.clone(),
        password: Secret::new(password.clone().unwrap_or_default()),
    });
    match Server::connect(&address, login) {
        Err(e @ Error::WrongPassword { .. }) if password.is_none() => Err(Failure::Other(format!(
            "{e} ({PASSWORD_ENV} is not set: the password is read from it only)"
        ))),
        other => Ok(other?),
    }
}

fn list(c: &Connection, json: bool) -> Result<(), Failure> {
    let server = connect(c)?;
    let books = server.books()?;
    if json {
        emit(&format!(
            "{}\n",
            serde_json::to_string(&books).expect("JSON")
        ));
    } else if books.is_empty() {
        eprintln!("{} has no books", server.address());
    } else {
        for b in &books {
            if b.name == b.file_id {
                emit(&format!("{}\n", b.file_id));
            } else {
                emit(&format!("{}\t(named {:?} inside)\n", b.file_id, b.name));
            }
        }
    }
    Ok(())
}

/// JSON as SillyTavern writes its files: four spaces of indent.
fn st_json(value: &Value) -> Vec<u8> {
    use serde::Serialize;
    let mut out = Vec::new();
    let fmt = serde_json::ser::PrettyFormatter::with_indent(b"    ");
    let mut ser = serde_json::Serializer::with_formatter(&mut out, fmt);
    value.serialize(&mut ser).expect("a JSON value serialises");
    out
}

fn write(out: &Path, bytes: &[u8]) -> Result<(), Failure> {
    formats::write_atomic(out, bytes)
        .map_err(|e| Failure::Other(format!("cannot write {}: {e}", out.display())))
}

fn pull(
    c: &Connection,
    book: Option<&str>,
    settings: bool,
    chat: Option<&str>,
    to: Option<&str>,
    out: &Path,
) -> Result<(), Failure> {
    let server = connect(c)?;
    if settings {
        let value = server.settings()?;
        write(out, &st_json(&value))?;
        eprintln!(
            "wrote {}'s settings.json to {}",
            server.address(),
            out.display()
        );
        return Ok(());
    }
    if let Some(which) = chat {
        let Some((character, file)) = which.rsplit_once('/') else {
            return Err(Failure::Other(format!(
                "--chat {which:?}: give CHARACTER/CHAT (the chat's file name without .jsonl)"
            )));
        };
        let character = server.character(character)?;
        let text = server.chat(&character, file)?;
        write(out, text.as_bytes())?;
        eprintln!(
            "wrote the chat {file:?} of {:?} ({} lines) to {}",
            character.name,
            text.lines().count(),
            out.display()
        );
        return Ok(());
    }
    let name = book.expect("clap requires BOOK without --settings or --chat");
    let ledger_path = Ledger::default_path();
    let mut ledger = Ledger::open(&ledger_path)?;
    // Recorded as pulled only once the file is written: a failed write
    // leaves the record (and so the next push's check) as it was.
    let (value, _) = lorebook_connect::fetch(&server, name)?;
    let bytes = match to {
        None => st_json(&value),
        Some(to) => {
            let to: ExportFormat = to
                .parse()
                .map_err(|e: formats::UnknownExportFormat| e.to_string())?;
            let imported = formats::import_value(value.clone())
                .map_err(|e| format!("the server's {name:?}: {e}"))?;
            eprint!("{}", imported.report);
            let (bytes, report) = formats::export(&imported.book, to).map_err(|e| e.to_string())?;
            eprint!("{report}");
            bytes
        }
    };
    write(out, &bytes)?;
    ledger.record(&server, name, &value)?;
    eprintln!(
        "pulled {name:?} from {} to {}",
        server.address(),
        out.display()
    );
    Ok(())
}

/// The book's name on the server when `--as` is not given: the file's (or
/// folder's) name without its extension.
fn default_name(file: &Path) -> Result<String, Failure> {
    let stem = if file.is_dir() {
        file.file_name()
    } else {
        file.file_stem()
    };
    // The app's own files are `NAME.lorebook.json`: the book is NAME.
    stem.and_then(|s| s.to_str())
        .map(|s| s.strip_suffix(".lorebook").unwrap_or(s).to_string())
        .filter(|s| !s.is_empty())
        .ok_or_else(|| {
            Failure::Other(format!(
                "{}: give the book's name with --as",
                file.display()
            ))
        })
}

fn push(c: &Connection, file: &Path, name: Option<&str>, force: bool) -> Result<(), Failure> {
    let name = match name {
        Some(n) => n.to_string(),
        None => default_name(file)?,
    };
    lorebook_connect::check_book_name(&name)?;
    let imported = books::load(file)?;
    eprint!("{}", imported.report);
    // A SillyTavern book goes as it is, every field it holds; any other
    // format goes as the app exports it for SillyTavern.
    let data: Value = if imported.format == Format::SillyTavern && !file.is_dir() {
        let bytes = formats::read_limited(file)?;
        serde_json::from_slice(&bytes).map_err(|e| format!("{}: {e}", file.display()))?
    } else {
        let (bytes, report) = formats::export(&imported.book, ExportFormat::SillyTavern)
            .map_err(|e| e.to_string())?;
        eprint!("{report}");
        serde_json::from_slice(&bytes).map_err(|e| format!("the exported book is not JSON: {e}"))?
    };
    let server = connect(c)?;
    let mut ledger = Ledger::open(&Ledger::default_path())?;
    let pushed = lorebook_connect::push(&server, &mut ledger, &name, &data, force)?;
    if let Some(e) = &pushed.record_error {
        eprintln!("warning: the book is on the server, but {e}");
    }
    let name = &pushed.name;
    eprintln!(
        "{} {name:?} on {} ({} entries)",
        if pushed.created {
            "created"
        } else {
            "replaced"
        },
        server.address(),
        data.get("entries")
            .and_then(Value::as_object)
            .map_or(0, |e| e.len())
    );
    Ok(())
}
