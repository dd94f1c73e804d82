//! The one error type of the library. Every variant names what it is about,
//! so `main` can print a single line and exit with code 2.

use std::fmt;
use std::path::PathBuf;

/// What went wrong, and what it is about.
#[derive(Debug)]
pub enum Error {
    /// A problem with an input file: missing, unreadable, not a trace.
    Input {
        /// The file concerned.
        path: PathBuf,
        /// What is wrong with it, in one line.
        problem: String,
    },
    /// A problem with the command line.
    Usage(String),
    /// Writing the report failed.
    Output(std::io::Error),
    /// A bug: an invariant of falseok itself broke (a worker thread stopped).
    Internal(String),
}

impl Error {
    /// An `Error::Input` about the file at `path`.
    pub fn input(path: impl Into<PathBuf>, problem: impl Into<String>) -> Error {
        Error::Input { path: path.into(), problem: problem.into() }
    }

    /// True when the reader of our output went away (`| head`): not an error.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, Error::Output(e) if e.kind() == std::io::ErrorKind::BrokenPipe)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Input { path, problem } => {
                write!(f, "{}: {}", crate::sanitize::one_line(&path.display().to_string()), problem)
            }
            Error::Usage(msg) => f.write_str(msg),
            Error::Output(e) => write!(f, "cannot write output: {e}"),
            Error::Internal(msg) => write!(f, "internal error: {msg}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Output(e) => Some(e),
            _ => None,
        }
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Error {
        Error::Output(e)
    }
}

/// A result whose error is falseok's own `Error`.
pub type Result<T, E = Error> = std::result::Result<T, E>;
