//! The error of every importer: the file, the 1-based line and the problem.

use crate::level::LevelError;

/// Why a file could not be imported.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// The file could not be read.
    #[error("{file}: cannot read the file: {source}")]
    Io {
        /// The file.
        file: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The file is not of the format, or says something impossible, at a line.
    #[error("{file}:{line}: {problem}")]
    Syntax {
        /// The file.
        file: String,
        /// 1-based line of the offending text (for a file that ends early, its last line).
        line: usize,
        /// What is wrong.
        problem: String,
    },
    /// The file parsed, but the level made from it does not validate (see `docs/FORMAT.md`).
    #[error("{file}: the level made from it does not validate: {source}")]
    Level {
        /// The file.
        file: String,
        /// The level error.
        #[source]
        source: Box<LevelError>,
    },
    /// An import option is out of its documented range.
    #[error("import option `{option}`: {problem}")]
    InvalidOptions {
        /// The option's field name.
        option: &'static str,
        /// What is wrong.
        problem: String,
    },
}

impl ImportError {
    /// The file the error is about (`None` for an option error).
    pub fn file(&self) -> Option<&str> {
        match self {
            ImportError::Io { file, .. }
            | ImportError::Syntax { file, .. }
            | ImportError::Level { file, .. } => Some(file),
            ImportError::InvalidOptions { .. } => None,
        }
    }

    /// The 1-based line of a [`ImportError::Syntax`] error.
    pub fn line(&self) -> Option<usize> {
        match self {
            ImportError::Syntax { line, .. } => Some(*line),
            _ => None,
        }
    }
}

/// A syntax error at a line of a file.
pub(crate) fn syntax(file: &str, line: usize, problem: impl Into<String>) -> ImportError {
    ImportError::Syntax {
        file: file.to_owned(),
        line,
        problem: problem.into(),
    }
}
