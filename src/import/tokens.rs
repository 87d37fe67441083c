//! Whitespace-separated tokens with the line each came from, for the whitespace-insensitive
//! formats (Menge `.nav`, Polyanya `.mesh`), so errors can name the line.

use std::str::FromStr;

use super::error::{syntax, ImportError};

/// A cursor over the tokens of a text.
pub(crate) struct Tokens<'a> {
    file: &'a str,
    items: Vec<(usize, &'a str)>,
    next: usize,
    last_line: usize,
}

impl<'a> Tokens<'a> {
    /// Split `text` into tokens; `file` names it in errors.
    pub fn new(text: &'a str, file: &'a str) -> Tokens<'a> {
        let mut items = Vec::new();
        let mut last_line = 1;
        for (i, line) in text.lines().enumerate() {
            last_line = i + 1;
            items.extend(line.split_whitespace().map(|t| (i + 1, t)));
        }
        Tokens {
            file,
            items,
            next: 0,
            last_line,
        }
    }

    /// The file name used in errors.
    pub fn file(&self) -> &'a str {
        self.file
    }

    /// Whether every token has been read.
    pub fn is_done(&self) -> bool {
        self.next >= self.items.len()
    }

    /// The line of the next token (or the last line at the end).
    pub fn line(&self) -> usize {
        self.items
            .get(self.next)
            .map_or(self.last_line, |&(line, _)| line)
    }

    /// The next token and its line; `what` says what was expected, for the error at the end.
    pub fn word(&mut self, what: &str) -> Result<(&'a str, usize), ImportError> {
        match self.items.get(self.next) {
            Some(&(line, token)) => {
                self.next += 1;
                Ok((token, line))
            }
            None => Err(syntax(
                self.file,
                self.last_line,
                format!("the file ends early: expected {what}"),
            )),
        }
    }

    /// The next token parsed as `T`, and its line; `what` names it in errors ("the vertex
    /// count", "the x of vertex 3").
    pub fn parse<T: FromStr>(&mut self, what: &str) -> Result<(T, usize), ImportError> {
        let (token, line) = self.word(what)?;
        token
            .parse::<T>()
            .map(|v| (v, line))
            .map_err(|_| syntax(self.file, line, format!("`{token}` is not {what}")))
    }

    /// A finite number.
    pub fn number(&mut self, what: &str) -> Result<(f64, usize), ImportError> {
        let (v, line) = self.parse::<f64>(what)?;
        if v.is_finite() {
            Ok((v, line))
        } else {
            Err(syntax(
                self.file,
                line,
                format!("{what} is {v}, not a finite number"),
            ))
        }
    }

    /// A count or index: a non-negative integer.
    pub fn index(&mut self, what: &str) -> Result<(usize, usize), ImportError> {
        self.parse::<usize>(what)
    }

    /// An index that may be -1 (meaning none).
    pub fn optional_index(&mut self, what: &str) -> Result<(Option<usize>, usize), ImportError> {
        let (v, line) = self.parse::<i64>(what)?;
        match v {
            -1 => Ok((None, line)),
            v if v >= 0 => Ok((Some(v as usize), line)),
            _ => Err(syntax(
                self.file,
                line,
                format!("{what} is {v}; an index is >= 0, or -1 for none"),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_carry_their_lines() {
        let mut t = Tokens::new("3\n\n 1.5  2\nx", "f");
        assert_eq!(t.index("a count").unwrap(), (3, 1));
        assert_eq!(t.number("x").unwrap(), (1.5, 3));
        assert_eq!(t.number("y").unwrap(), (2.0, 3));
        let err = t.number("the z").unwrap_err();
        assert_eq!(err.to_string(), "f:4: `x` is not the z");
        let err = t.number("more").unwrap_err();
        assert_eq!(err.line(), Some(4));
    }

    #[test]
    fn minus_one_is_none() {
        let mut t = Tokens::new("-1 4 -2", "f");
        assert_eq!(t.optional_index("n").unwrap().0, None);
        assert_eq!(t.optional_index("n").unwrap().0, Some(4));
        assert!(t.optional_index("n").is_err());
    }
}
