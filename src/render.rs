//! Pictures of levels, paths and rails, for people: SVG now, richer views later.

mod svg;

pub use svg::{SvgOptions, SvgPicture};
