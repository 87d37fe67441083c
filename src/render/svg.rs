//! An SVG picture of a level (polygons and walls) with paths, rails and markers drawn on top.
//!
//! Coordinates are flipped so that y points up as in the level. Output is deterministic: the same
//! drawing calls give the same bytes (numbers are printed with 3 decimals).

use std::fmt::Write as _;

use glam::DVec2;

use crate::level::{Level, Path};
use crate::rail::{Rail, RailSegment};

/// How a picture is laid out.
#[derive(Clone, Debug, PartialEq)]
pub struct SvgOptions {
    /// Pixels per metre; default 20.
    pub scale: f64,
    /// Empty border around the level, metres; default 1.
    pub margin: f64,
    /// Draw the navmesh polygons' outlines (thin lines); default true.
    pub show_polygons: bool,
}

impl Default for SvgOptions {
    fn default() -> Self {
        SvgOptions {
            scale: 20.0,
            margin: 1.0,
            show_polygons: true,
        }
    }
}

/// A picture being drawn. Create it from a level, add layers, then [`SvgPicture::finish`].
#[derive(Clone, Debug)]
pub struct SvgPicture {
    min: DVec2,
    max: DVec2,
    scale: f64,
    body: String,
}

impl SvgPicture {
    /// Start a picture of `level`: walkable polygons filled, walls drawn thick.
    pub fn new(level: &Level, options: &SvgOptions) -> SvgPicture {
        let mesh = level.navmesh();
        let (lo, hi) = mesh.bounds();
        let margin = DVec2::splat(options.margin.max(0.0));
        let scale = if options.scale.is_finite() && options.scale > 0.0 {
            options.scale
        } else {
            20.0
        };
        let mut picture = SvgPicture {
            min: lo - margin,
            max: hi + margin,
            scale,
            body: String::new(),
        };
        let _ = writeln!(picture.body, "<title>{}</title>", escape(level.name()));
        let stroke = if options.show_polygons {
            "#c9d3dc"
        } else {
            "none"
        };
        let _ = writeln!(
            picture.body,
            r##"<g fill="#eef2f5" stroke="{stroke}" stroke-width="0.5">"##
        );
        for id in mesh.polygon_ids() {
            let points: Vec<String> = mesh.polygon_points(id).map(|p| picture.xy(p)).collect();
            let _ = writeln!(picture.body, r#"<polygon points="{}"/>"#, points.join(" "));
        }
        picture.body.push_str("</g>\n");
        picture
            .body
            .push_str(r##"<g stroke="#2b3a47" stroke-width="2" stroke-linecap="round">"##);
        picture.body.push('\n');
        for wall in mesh.boundary_edges() {
            let (a, b) = (picture.point(wall.start), picture.point(wall.end));
            let _ = writeln!(
                picture.body,
                r#"<line x1="{:.3}" y1="{:.3}" x2="{:.3}" y2="{:.3}"/>"#,
                a.x, a.y, b.x, b.y
            );
        }
        picture.body.push_str("</g>\n");
        picture
    }

    /// Draw a corner path as a dashed polyline with dots at its corners.
    pub fn add_path(&mut self, path: &Path, colour: &str) {
        let points: Vec<String> = path.corners.iter().map(|c| self.xy(c.position)).collect();
        let _ = writeln!(
            self.body,
            r#"<polyline points="{}" fill="none" stroke="{}" stroke-width="1.5" stroke-dasharray="4 3"/>"#,
            points.join(" "),
            escape(colour)
        );
        for c in &path.corners {
            let p = self.point(c.position);
            let _ = writeln!(
                self.body,
                r#"<circle cx="{:.3}" cy="{:.3}" r="2.5" fill="{}"/>"#,
                p.x,
                p.y,
                escape(colour)
            );
        }
    }

    /// Draw a rail with its exact curves, and a band as wide as the agent (`radius` metres, 0 for
    /// none) underneath it.
    pub fn add_rail(&mut self, rail: &Rail, colour: &str, radius: f64) {
        let d = self.rail_path(rail);
        if radius > 0.0 && radius.is_finite() {
            let _ = writeln!(
                self.body,
                r#"<path d="{d}" fill="none" stroke="{}" stroke-opacity="0.18" stroke-width="{:.3}" stroke-linecap="round" stroke-linejoin="round"/>"#,
                escape(colour),
                2.0 * radius * self.scale
            );
        }
        let _ = writeln!(
            self.body,
            r#"<path d="{d}" fill="none" stroke="{}" stroke-width="2"/>"#,
            escape(colour)
        );
    }

    /// Draw a rail dashed (an original rail that was rewritten), without a band.
    pub fn add_rail_dashed(&mut self, rail: &Rail, colour: &str) {
        let d = self.rail_path(rail);
        let _ = writeln!(
            self.body,
            r#"<path d="{d}" fill="none" stroke="{}" stroke-width="2" stroke-dasharray="6 4"/>"#,
            escape(colour)
        );
    }

    /// The SVG path data of a rail, with its exact curves.
    fn rail_path(&self, rail: &Rail) -> String {
        let mut d = String::new();
        let start = self.point(rail.start());
        let _ = write!(d, "M{:.3} {:.3}", start.x, start.y);
        for segment in rail.segments() {
            match *segment {
                RailSegment::Line(_) => {
                    let e = self.point(segment.end());
                    let _ = write!(d, " L{:.3} {:.3}", e.x, e.y);
                }
                RailSegment::Quad(_) => {
                    let c = segment.control_points();
                    let (p1, p2) = (self.point(c[1]), self.point(c[2]));
                    let _ = write!(d, " Q{:.3} {:.3} {:.3} {:.3}", p1.x, p1.y, p2.x, p2.y);
                }
                RailSegment::Cubic(_) => {
                    let c = segment.control_points();
                    let (p1, p2, p3) = (self.point(c[1]), self.point(c[2]), self.point(c[3]));
                    let _ = write!(
                        d,
                        " C{:.3} {:.3} {:.3} {:.3} {:.3} {:.3}",
                        p1.x, p1.y, p2.x, p2.y, p3.x, p3.y
                    );
                }
            }
        }
        d
    }

    /// Draw a labelled dot.
    pub fn add_marker(&mut self, at: DVec2, colour: &str, label: &str) {
        let p = self.point(at);
        let _ = writeln!(
            self.body,
            r#"<circle cx="{:.3}" cy="{:.3}" r="4" fill="{}"/>"#,
            p.x,
            p.y,
            escape(colour)
        );
        if !label.is_empty() {
            let _ = writeln!(
                self.body,
                r#"<text x="{:.3}" y="{:.3}" font-family="sans-serif" font-size="12" fill="{}">{}</text>"#,
                p.x + 6.0,
                p.y - 6.0,
                escape(colour),
                escape(label)
            );
        }
    }

    /// Draw an open polyline (a trace), `width` pixels wide.
    pub fn add_polyline(&mut self, points: &[DVec2], colour: &str, width: f64) {
        if points.len() < 2 {
            return;
        }
        let points: Vec<String> = points.iter().map(|&p| self.xy(p)).collect();
        let _ = writeln!(
            self.body,
            r#"<polyline points="{}" fill="none" stroke="{}" stroke-width="{:.1}" stroke-linecap="round" stroke-linejoin="round"/>"#,
            points.join(" "),
            escape(colour),
            width
        );
    }

    /// Draw a disc of `radius` metres: outlined, lightly filled.
    pub fn add_disc(&mut self, centre: DVec2, radius: f64, colour: &str) {
        let p = self.point(centre);
        let _ = writeln!(
            self.body,
            r#"<circle cx="{:.3}" cy="{:.3}" r="{:.3}" fill="{c}" fill-opacity="0.25" stroke="{c}" stroke-width="1"/>"#,
            p.x,
            p.y,
            radius.max(0.0) * self.scale,
            c = escape(colour)
        );
    }

    /// Draw a cross (a collision point), `size` pixels across.
    pub fn add_cross(&mut self, at: DVec2, colour: &str, size: f64) {
        let p = self.point(at);
        let h = size * 0.5;
        let _ = writeln!(
            self.body,
            r#"<path d="M{:.3} {:.3} L{:.3} {:.3} M{:.3} {:.3} L{:.3} {:.3}" stroke="{}" stroke-width="2.5"/>"#,
            p.x - h,
            p.y - h,
            p.x + h,
            p.y + h,
            p.x - h,
            p.y + h,
            p.x + h,
            p.y - h,
            escape(colour)
        );
    }

    /// The finished SVG document.
    pub fn finish(self) -> String {
        let size = (self.max - self.min) * self.scale;
        format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0}\" height=\"{:.0}\" viewBox=\"0 0 {:.3} {:.3}\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n{}</svg>\n",
            size.x.ceil(),
            size.y.ceil(),
            size.x,
            size.y,
            self.body
        )
    }

    fn point(&self, p: DVec2) -> DVec2 {
        DVec2::new(
            (p.x - self.min.x) * self.scale,
            (self.max.y - p.y) * self.scale,
        )
    }

    fn xy(&self, p: DVec2) -> String {
        let q = self.point(p);
        format!("{:.3},{:.3}", q.x, q.y)
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
