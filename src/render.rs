//! Pictures of levels and rails (SVG).
