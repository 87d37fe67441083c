//! MovingAI grid maps (`.map`) and their scenario files (`.scen`): the blocked cells become the
//! holes of an outline level (the map rectangle), the queries become start/goal pairs in metres.
//!
//! The map's rows run top to bottom (y down); ours run up. Cell `(column, row)` of a
//! `width × height` map covers `[column, column + 1] × [height − row − 1, height − row]` cells,
//! times the cell size in metres: the map's top-left corner is at `(0, height × cell)`, its
//! bottom-left at the origin.

use std::path::Path;

use glam::DVec2;

use super::error::{syntax, ImportError};
use super::trace::blocked_polygons;
use super::{build_level, default_name, read_text};
use crate::level::{Level, LevelFile};

/// How a MovingAI map is imported.
#[derive(Clone, Debug, PartialEq)]
pub struct MovingAiOptions {
    /// Side of one grid cell, metres; finite and > 0. Default 1.
    pub cell: f64,
    /// The level's name. Default (`None`): the map file's name before its first dot.
    pub name: Option<String>,
}

impl Default for MovingAiOptions {
    fn default() -> Self {
        MovingAiOptions {
            cell: 1.0,
            name: None,
        }
    }
}

/// A parsed MovingAI map: which cells can be walked on.
#[derive(Clone, Debug, PartialEq)]
pub struct MovingAiMap {
    /// Columns.
    pub width: usize,
    /// Rows.
    pub height: usize,
    /// Row-major, row 0 first (the top row of the file).
    passable: Vec<bool>,
}

/// One query of a `.scen` file, in cells as written and in metres on the imported level.
#[derive(Clone, Debug, PartialEq)]
pub struct MovingAiQuery {
    /// 1-based line of the query in the `.scen` file.
    pub line: usize,
    /// The file's bucket number (queries of similar length share a bucket).
    pub bucket: u32,
    /// Start cell as written: `[column, row]`, row 0 at the top.
    pub start_cell: [usize; 2],
    /// Goal cell as written.
    pub goal_cell: [usize; 2],
    /// Centre of the start cell on the level, metres (y up).
    pub start: DVec2,
    /// Centre of the goal cell on the level, metres (y up).
    pub goal: DVec2,
    /// The file's optimal 8-connected length (diagonal steps √2, no corner cutting) times the
    /// cell size, metres.
    pub optimal_length: f64,
}

/// What [`import_movingai`] makes of a map and an optional scenario file.
#[derive(Clone, Debug)]
pub struct MovingAiImport {
    /// The level: the map rectangle with the blocked cells as holes.
    pub level: Level,
    /// The parsed map.
    pub map: MovingAiMap,
    /// The cell size used, metres.
    pub cell: f64,
    /// The scenario file's queries in file order (empty without one).
    pub queries: Vec<MovingAiQuery>,
}

/// Passable terrain of the MovingAI format: `.` and `G` (ground), `S` (swamp).
const PASSABLE: &[char] = &['.', 'G', 'S'];
/// Impassable terrain: `@` and `O` (out of bounds), `T` (trees), `W` (water, passable only from
/// water, never by a walking agent).
const BLOCKED: &[char] = &['@', 'O', 'T', 'W'];

impl MovingAiMap {
    /// Parse a map's text; `file` names it in errors.
    pub fn parse(text: &str, file: &str) -> Result<MovingAiMap, ImportError> {
        let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
        let mut width = None;
        let mut height = None;
        let mut kind = None;
        let mut map_line = 0;
        for (line, content) in lines.by_ref() {
            let mut words = content.split_whitespace();
            let Some(key) = words.next() else { continue };
            let value = words.next();
            let number = |what: &str| -> Result<usize, ImportError> {
                value
                    .and_then(|v| v.parse::<usize>().ok())
                    .filter(|&v| v > 0)
                    .ok_or_else(|| {
                        syntax(
                            file,
                            line,
                            format!("`{content}`: the {what} must be a whole number > 0"),
                        )
                    })
            };
            match key {
                "type" => kind = Some((value.unwrap_or("").to_owned(), line)),
                "height" => height = Some(number("height")?),
                "width" => width = Some(number("width")?),
                "map" => {
                    map_line = line;
                    break;
                }
                _ => {
                    return Err(syntax(
                        file,
                        line,
                        format!(
                            "`{content}` is not a map header line (`type octile`, `height H`, `width W`, `map`)"
                        ),
                    ))
                }
            }
        }
        if map_line == 0 {
            return Err(syntax(
                file,
                text.lines().count().max(1),
                "no `map` line: the header (`type octile`, `height H`, `width W`, `map`) is incomplete",
            ));
        }
        match kind {
            Some((k, _)) if k == "octile" => {}
            Some((k, line)) => {
                return Err(syntax(
                    file,
                    line,
                    format!("map type `{k}` is not supported, only `octile`"),
                ))
            }
            None => return Err(syntax(file, map_line, "the header has no `type` line")),
        }
        let (Some(width), Some(height)) = (width, height) else {
            return Err(syntax(
                file,
                map_line,
                "the header must give both `height` and `width` before `map`",
            ));
        };
        if width.saturating_mul(height) > 100_000_000 {
            return Err(syntax(
                file,
                map_line,
                format!("a {width} × {height} map is too large (over 10^8 cells)"),
            ));
        }
        let mut passable = Vec::with_capacity(width * height);
        let mut rows = 0;
        let mut last = map_line;
        for (line, content) in lines {
            last = line;
            if rows == height {
                if content.trim().is_empty() {
                    continue;
                }
                return Err(syntax(
                    file,
                    line,
                    format!("more rows than the header's height {height}"),
                ));
            }
            let cells = content.chars().count();
            if cells != width {
                return Err(syntax(
                    file,
                    line,
                    format!("row {rows} has {cells} cells, the header's width is {width}"),
                ));
            }
            for (column, ch) in content.chars().enumerate() {
                if PASSABLE.contains(&ch) {
                    passable.push(true);
                } else if BLOCKED.contains(&ch) {
                    passable.push(false);
                } else {
                    return Err(syntax(
                        file,
                        line,
                        format!(
                            "unknown terrain `{ch}` at column {column} (passable: . G S; blocked: @ O T W)"
                        ),
                    ));
                }
            }
            rows += 1;
        }
        if rows < height {
            return Err(syntax(
                file,
                last,
                format!("the map has {rows} rows, the header's height is {height}"),
            ));
        }
        Ok(MovingAiMap {
            width,
            height,
            passable,
        })
    }

    /// Whether cell `(column, row)` (row 0 at the top) can be walked on; `false` outside.
    pub fn is_passable(&self, column: usize, row: usize) -> bool {
        column < self.width && row < self.height && self.passable[row * self.width + column]
    }

    /// Number of passable cells.
    pub fn passable_count(&self) -> usize {
        self.passable.iter().filter(|&&p| p).count()
    }

    /// Centre of cell `(column, row)` on the level, metres (y up).
    pub fn cell_centre(&self, column: usize, row: usize, cell: f64) -> DVec2 {
        DVec2::new(
            (column as f64 + 0.5) * cell,
            (self.height as f64 - row as f64 - 0.5) * cell,
        )
    }

    /// The outline-form level: the map rectangle, with the blocked cells traced into holes.
    pub fn level_file(&self, name: &str, cell: f64) -> LevelFile {
        let (w, h) = (self.width, self.height);
        let blocked: Vec<bool> = (0..h)
            .flat_map(|j| (0..w).map(move |i| (i, j)))
            .map(|(i, j)| !self.passable[(h - 1 - j) * w + i])
            .collect();
        let holes = blocked_polygons(w, h, &blocked)
            .into_iter()
            .map(|ring| {
                ring.into_iter()
                    .map(|c| [c[0] as f64 * cell, c[1] as f64 * cell])
                    .collect()
            })
            .collect();
        let (x, y) = (w as f64 * cell, h as f64 * cell);
        LevelFile {
            name: name.to_owned(),
            boundary: Some(vec![[0.0, 0.0], [x, 0.0], [x, y], [0.0, y]]),
            holes,
            ..LevelFile::default()
        }
    }

    /// Parse the queries of a `.scen` file for this map; `file` names it in errors.
    pub fn queries(
        &self,
        text: &str,
        file: &str,
        cell: f64,
    ) -> Result<Vec<MovingAiQuery>, ImportError> {
        let mut out = Vec::new();
        for (i, content) in text.lines().enumerate() {
            let line = i + 1;
            let trimmed = content.trim();
            if trimmed.is_empty() || (out.is_empty() && trimmed.starts_with("version")) {
                continue;
            }
            let fields: Vec<&str> = if trimmed.contains('\t') {
                trimmed.split('\t').map(str::trim).collect()
            } else {
                trimmed.split_whitespace().collect()
            };
            if fields.len() != 9 {
                return Err(syntax(
                    file,
                    line,
                    format!(
                        "has {} fields; a query has 9: bucket, map, width, height, start x, start y, goal x, goal y, optimal length",
                        fields.len()
                    ),
                ));
            }
            let int = |k: usize, what: &str| -> Result<usize, ImportError> {
                fields[k].parse::<usize>().map_err(|_| {
                    syntax(
                        file,
                        line,
                        format!("the {what} `{}` is not a whole number >= 0", fields[k]),
                    )
                })
            };
            let bucket = int(0, "bucket")? as u32;
            let (w, h) = (int(2, "map width")?, int(3, "map height")?);
            if (w, h) != (self.width, self.height) {
                return Err(syntax(
                    file,
                    line,
                    format!(
                        "the query is for a {w} × {h} map, but the map is {} × {}",
                        self.width, self.height
                    ),
                ));
            }
            let start_cell = [int(4, "start x")?, int(5, "start y")?];
            let goal_cell = [int(6, "goal x")?, int(7, "goal y")?];
            for (what, [c, r]) in [("start", start_cell), ("goal", goal_cell)] {
                if c >= self.width || r >= self.height {
                    return Err(syntax(
                        file,
                        line,
                        format!("the {what} cell ({c}, {r}) is outside the {w} × {h} map"),
                    ));
                }
                if !self.is_passable(c, r) {
                    return Err(syntax(
                        file,
                        line,
                        format!("the {what} cell ({c}, {r}) is blocked on the map"),
                    ));
                }
            }
            let optimal = fields[8]
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && *v >= 0.0)
                .ok_or_else(|| {
                    syntax(
                        file,
                        line,
                        format!(
                            "the optimal length `{}` is not a finite number >= 0",
                            fields[8]
                        ),
                    )
                })?;
            out.push(MovingAiQuery {
                line,
                bucket,
                start_cell,
                goal_cell,
                start: self.cell_centre(start_cell[0], start_cell[1], cell),
                goal: self.cell_centre(goal_cell[0], goal_cell[1], cell),
                optimal_length: optimal * cell,
            });
        }
        Ok(out)
    }
}

/// Import a MovingAI map (and, when given, its `.scen` queries) as a level.
///
/// Errors name the file and line: a bad header, a row of the wrong length, an unknown terrain
/// character, a query for another map size or on a blocked cell.
pub fn import_movingai(
    map: &Path,
    scen: Option<&Path>,
    options: &MovingAiOptions,
) -> Result<MovingAiImport, ImportError> {
    let map_text = read_text(map)?;
    let scen_text = scen.map(read_text).transpose()?;
    let name = options.name.clone().unwrap_or_else(|| default_name(map));
    let options = MovingAiOptions {
        name: Some(name),
        ..options.clone()
    };
    let scen_file = scen.map(|p| p.display().to_string());
    movingai_from_str(
        &map_text,
        &map.display().to_string(),
        scen_text.as_deref().zip(scen_file.as_deref()),
        &options,
    )
}

/// [`import_movingai`] on texts: `map_file` (and the scenario's file name) name them in errors;
/// `scen` is the scenario text and its file name. The level is named `options.name`, or `map`.
pub fn movingai_from_str(
    map_text: &str,
    map_file: &str,
    scen: Option<(&str, &str)>,
    options: &MovingAiOptions,
) -> Result<MovingAiImport, ImportError> {
    let cell = options.cell;
    if !(cell.is_finite() && cell > 0.0) {
        return Err(ImportError::InvalidOptions {
            option: "cell",
            problem: format!("{cell} must be a finite number of metres > 0"),
        });
    }
    let map = MovingAiMap::parse(map_text, map_file)?;
    let queries = match scen {
        Some((text, file)) => map.queries(text, file, cell)?,
        None => Vec::new(),
    };
    let name = options.name.as_deref().unwrap_or("map");
    let level = build_level(map.level_file(name, cell), map_file)?;
    Ok(MovingAiImport {
        level,
        map,
        cell,
        queries,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROOM: &str = "type octile\nheight 4\nwidth 5\nmap\n@@@@@\n@..T@\n@.S.@\n@@@@@\n";

    #[test]
    fn a_small_map_imports_with_y_flipped() {
        let import = movingai_from_str(
            ROOM,
            "room.map",
            Some((
                "version 1\n0\troom.map\t5\t4\t1\t1\t3\t2\t2.41421\n",
                "room.scen",
            )),
            &MovingAiOptions::default(),
        )
        .unwrap();
        assert_eq!(import.map.passable_count(), 5);
        assert!((import.level.navmesh().area() - 5.0).abs() < 1e-9);
        let q = &import.queries[0];
        assert_eq!(q.start, DVec2::new(1.5, 2.5));
        assert_eq!(q.goal, DVec2::new(3.5, 1.5));
        assert!(import.level.navmesh().contains(q.start));
        assert!(!import.level.navmesh().contains(DVec2::new(3.5, 2.5)));
    }

    #[test]
    fn cell_size_scales_the_level() {
        let options = MovingAiOptions {
            cell: 0.5,
            ..MovingAiOptions::default()
        };
        let import = movingai_from_str(ROOM, "room.map", None, &options).unwrap();
        assert!((import.level.navmesh().area() - 1.25).abs() < 1e-9);
    }

    #[test]
    fn bad_rows_name_the_line() {
        let err = MovingAiMap::parse("type octile\nheight 2\nwidth 3\nmap\n...\n..\n", "m.map")
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "m.map:6: row 1 has 2 cells, the header's width is 3"
        );
        let err =
            MovingAiMap::parse("type octile\nheight 1\nwidth 3\nmap\n.x.\n", "m.map").unwrap_err();
        assert_eq!(err.line(), Some(5));
        assert!(err.to_string().contains("unknown terrain `x` at column 1"));
    }
}
