//! Charts as inline SVG: stacked bars, horizontal and vertical, each an
//! image titled and described by the numbers it draws.

use std::fmt::Write as _;

use super::{esc, esc_cut};

/// One bar of a chart: a label and its stacked segments.
pub(super) struct Bar {
    pub(super) label: String,
    pub(super) segments: Vec<Segment>,
}

pub(super) struct Segment {
    /// The CSS class that colours it (`flag`, `hidden`, `c0`…, `rest`).
    pub(super) class: String,
    pub(super) name: String,
    pub(super) n: u64,
}

fn legend(h: &mut String, items: &[(&str, &str)]) {
    h.push_str("<ul class=\"legend\" aria-hidden=\"true\">");
    for (class, name) in items {
        let _ = write!(
            h,
            "<li><svg width=\"12\" height=\"12\"><rect class=\"{class}\" width=\"12\" height=\"12\"/></svg> {}</li>",
            esc_cut(name, 80)
        );
    }
    h.push_str("</ul>\n");
}

/// The opening of a chart: an image for assistive technology, titled and
/// described by the numbers it draws.
fn svg_start(h: &mut String, id: &str, width: u32, height: u32, title: &str, desc: &str) {
    let _ = writeln!(
        h,
        "<figure class=\"chart\"><svg id=\"{id}\" viewBox=\"0 0 {width} {height}\" width=\"{width}\" height=\"{height}\" role=\"img\" aria-labelledby=\"{id}-t {id}-d\"><title id=\"{id}-t\">{}</title><desc id=\"{id}-d\">{}</desc>",
        esc(title),
        esc_cut(desc, 2000)
    );
}

/// Horizontal stacked bars, one per row, scaled to the longest.
pub(super) fn hbar_chart(h: &mut String, id: &str, title: &str, desc: &str, bars: &[Bar], items: &[(&str, &str)]) {
    const LABEL: f64 = 200.0;
    const AREA: f64 = 500.0;
    const ROW: f64 = 22.0;
    let max = bars.iter().map(|b| b.segments.iter().map(|s| s.n).sum::<u64>()).max().unwrap_or(0).max(1);
    let height = (bars.len() as f64 * ROW + 8.0) as u32;
    svg_start(h, id, 780, height, title, desc);
    for (i, b) in bars.iter().enumerate() {
        let y = 4.0 + i as f64 * ROW;
        let _ = write!(
            h,
            "<text class=\"lbl\" x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            LABEL - 6.0,
            y + 14.0,
            esc_cut(&b.label, 28)
        );
        let mut x = LABEL;
        for s in b.segments.iter().filter(|s| s.n > 0) {
            let w = s.n as f64 / max as f64 * AREA;
            let _ = write!(
                h,
                "<rect class=\"bar {}\" x=\"{x:.1}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"{}\"><title>{}: {} {}</title></rect>",
                s.class,
                w.max(1.0),
                ROW - 6.0,
                esc_cut(&b.label, 64),
                esc_cut(&s.name, 64),
                s.n
            );
            x += w;
        }
        let total: u64 = b.segments.iter().map(|s| s.n).sum();
        let _ = write!(h, "<text class=\"val\" x=\"{:.1}\" y=\"{:.1}\">{total}</text>", x + 4.0, y + 14.0);
    }
    h.push_str("</svg>");
    legend(h, items);
    h.push_str("</figure>\n");
}

/// Vertical stacked bars (a time line, a histogram), labels under some.
pub(super) fn vbar_chart(h: &mut String, id: &str, title: &str, desc: &str, bars: &[Bar], items: &[(&str, &str)]) {
    const WIDTH: f64 = 780.0;
    const TOP: f64 = 16.0;
    const AREA: f64 = 160.0;
    let max = bars.iter().map(|b| b.segments.iter().map(|s| s.n).sum::<u64>()).max().unwrap_or(0).max(1);
    let slot = (WIDTH - 60.0) / bars.len().max(1) as f64;
    let bar = (slot * 0.8).clamp(1.0, 48.0);
    let height = (TOP + AREA + 36.0) as u32;
    svg_start(h, id, WIDTH as u32, height, title, desc);
    let base = TOP + AREA;
    let _ = write!(h, "<text class=\"val\" x=\"4\" y=\"{}\">{max}</text>", TOP + 4.0);
    let _ = write!(h, "<line class=\"axis\" x1=\"50\" y1=\"{base}\" x2=\"{}\" y2=\"{base}\"/>", WIDTH - 6.0);
    // Labels where they fit: about 7 px a character, one in `every` bars.
    let widest = bars.iter().map(|b| b.label.chars().count().min(16)).max().unwrap_or(1) as f64 * 7.0 + 6.0;
    let every = (widest / slot).ceil().max(1.0) as usize;
    for (i, b) in bars.iter().enumerate() {
        let x = 54.0 + i as f64 * slot;
        let mut y = base;
        for s in b.segments.iter().filter(|s| s.n > 0) {
            let hgt = s.n as f64 / max as f64 * AREA;
            y -= hgt;
            let _ = write!(
                h,
                "<rect class=\"bar {}\" x=\"{x:.1}\" y=\"{y:.1}\" width=\"{bar:.1}\" height=\"{:.1}\"><title>{}: {} {}</title></rect>",
                s.class,
                hgt.max(0.5),
                esc_cut(&b.label, 64),
                esc_cut(&s.name, 64),
                s.n
            );
        }
        if i % every == 0 {
            let _ = write!(
                h,
                "<text class=\"lbl\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
                x + bar / 2.0,
                base + 16.0,
                esc_cut(&b.label, 16)
            );
        }
    }
    h.push_str("</svg>");
    legend(h, items);
    h.push_str("</figure>\n");
}
