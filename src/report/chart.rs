//! Line charts as SVG, drawn here (no chart library): axes with round
//! ticks and units, a log2 axis for users, a shaded warm-up, series in 12
//! colours × 3 line styles, and series in a normalised 0–1000 box under one
//! transform, so that the page script can zoom the time axis, line up the
//! crosshair of charts that share it and read values under the pointer
//! without redrawing (`assets/ui.js`). On pages the legend is HTML beside
//! the SVG (names never cut, wrapped, hover highlights, click hides); in
//! SVG and PNG files it is drawn under the plot, whole. The same charts go
//! into the web UI, the HTML report and `qpslab chart`. Written with maud
//! (see `ui::page`): titles, labels and series names are escaped by it.

use maud::{html, Markup};
use std::fmt::Write;

/// One named line of a chart: its points in data units, with optional error bars.
pub struct Series {
    /// Shown in the legend and under the pointer.
    pub name: String,
    /// (x, y) in data units; only finite values (see `Chart::add`).
    pub points: Vec<(f64, f64)>,
    /// Error bars: (x, low, high), drawn as vertical lines (a point's
    /// spread over repeats).
    pub errors: Vec<(f64, f64, f64)>,
    /// Set for a guide: a model's curve or a reference line drawn beside
    /// a data series, in its colour, dashed and without dots.
    pub guide: Option<Guide>,
}

/// How a guide series is tied to its data series and drawn.
#[derive(Debug, Clone, Copy)]
pub struct Guide {
    /// Index in `Chart::series` of the data series it belongs to.
    pub of: usize,
    /// SVG stroke-dasharray.
    pub dash: &'static str,
}

/// A line chart before drawing: the series and how the axes are laid out.
pub struct Chart {
    /// Drawn above the plot.
    pub title: String,
    /// The x axis's label, with its unit.
    pub x_label: String,
    /// The y axis's label, with its unit.
    pub y_label: String,
    /// Data series and guides, in legend order.
    pub series: Vec<Series>,
    /// Users on a log2 axis (scalability charts).
    pub log2_x: bool,
    /// The x range to draw, whatever the data covers (a run page's panels
    /// share one, so that their time axes line up).
    pub x_range: Option<(f64, f64)>,
    /// Charts of one group on a page share their crosshair and zoom.
    pub group: Option<&'static str>,
    /// Labelled x ticks in plotted units, in place of round ones (the
    /// latency spectrum's percentile axis).
    pub x_ticks: Option<Vec<(f64, String)>>,
    /// Labelled y ticks in plotted units, in place of round ones; the y
    /// range is theirs (a log axis drawn as log10 values).
    pub y_ticks: Option<Vec<(f64, String)>>,
    /// Every data series its own line style as well as its colour, so
    /// that series that coincide stay visible.
    pub dash_each: bool,
    /// How the page script reads plotted values back: "spectrum" for
    /// the latency spectrum (x is log10(1/(1 - p)), y is log10 of ms).
    pub scale: Option<&'static str>,
}

const W: f64 = 1000.0;
const H: f64 = 250.0;
const L: f64 = 64.0;
/// Right margin: the legend is outside the SVG on pages.
const R: f64 = 20.0;
const T: f64 = 30.0;
const B: f64 = 40.0;

/// Twelve colours told apart on screen and in print.
pub(crate) const PALETTE: [&str; 12] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
    "#7f7f7f", "#bcbd22", "#0b3d91", "#a05d00",
];

/// Line styles, after the colours: solid, dashed, dotted (series 12–23
/// repeat the colours dashed, 24–35 dotted).
const DASHES: [&str; 3] = ["", "7 3", "2 2"];

/// The x label of charts over a run's time.
pub(crate) const TIME_AXIS: &str = "seconds since measuring began (negative: warm-up)";

/// About `n` round tick values covering [lo, hi].
pub fn ticks(lo: f64, hi: f64, n: usize) -> Vec<f64> {
    if !lo.is_finite() || !hi.is_finite() || hi <= lo {
        return vec![lo];
    }
    let raw = (hi - lo) / n.max(1) as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * mag);
    let mut v = Vec::new();
    let mut x = (lo / step).ceil() * step;
    // (bounded: a range too narrow for its magnitude gives a step that
    // adding no longer moves, and the loop must not grow without end)
    for _ in 0..4 * n.max(1) + 2 {
        if x > hi + step * 1e-9 {
            break;
        }
        v.push(if x.abs() < step * 1e-9 { 0.0 } else { x });
        let next = x + step;
        if next <= x {
            break;
        }
        x = next;
    }
    if v.is_empty() {
        v.push(lo);
    }
    v
}

/// A tick label: short, with k/M/G for large values.
pub(crate) fn fmt_num(v: f64) -> String {
    let a = v.abs();
    let (d, s) = if a >= 1e9 {
        (v / 1e9, "G")
    } else if a >= 1e6 {
        (v / 1e6, "M")
    } else if a >= 1e4 {
        (v / 1e3, "k")
    } else {
        (v, "")
    };
    let t = if d.fract() == 0.0 {
        format!("{d:.0}")
    } else if d.abs() >= 10.0 {
        format!("{d:.1}")
    } else {
        format!("{d:.2}")
    };
    let t = if t.contains('.') {
        t.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        t
    };
    format!("{t}{s}")
}

impl Chart {
    /// An empty chart with its title and axis labels (units belong in the label).
    pub fn new(title: &str, x_label: &str, y_label: &str) -> Chart {
        Chart {
            title: title.into(),
            x_label: x_label.into(),
            y_label: y_label.into(),
            series: Vec::new(),
            log2_x: false,
            x_range: None,
            group: None,
            x_ticks: None,
            y_ticks: None,
            dash_each: false,
            scale: None,
        }
    }

    /// A chart over a run's time: the time axis, the warm-up shaded, in
    /// the page's "time" group.
    pub fn timeline(title: &str, y_label: &str) -> Chart {
        let mut c = Chart::new(title, TIME_AXIS, y_label);
        c.group = Some("time");
        c
    }

    /// Whether every point of every data series is zero (a chart of
    /// nothing: the page says so in a line instead).
    pub(crate) fn all_zero(&self) -> bool {
        self.series
            .iter()
            .all(|s| s.points.iter().all(|p| p.1 == 0.0))
    }

    /// The chart for a page: the SVG and its HTML legend; a one-line note
    /// when it has no data or only zeros.
    pub fn html(&self) -> Markup {
        if self.is_empty() {
            return html! { p.chart-note { (self.title) ": no data." } };
        }
        if self.all_zero() {
            let names: Vec<&str> = self.series.iter().map(|s| s.name.as_str()).collect();
            return html! {
                p.chart-note { (self.title) ": zero throughout (" (names.join(", ")) ")." }
            };
        }
        let styles = self.styles();
        html! {
            figure.chart-box {
                (self.render(true))
                ul.legend {
                    @for (i, s) in self.series.iter().enumerate() {
                        li data-i=(i) title="hover: highlight; click: hide or show" {
                            svg width="26" height="10" {
                                line x1="1" x2="25" y1="5" y2="5" stroke=(styles[i].0)
                                    stroke-width="3" stroke-dasharray=(styles[i].1) {}
                            }
                            (s.name)
                        }
                    }
                }
            }
        }
    }

    /// Adds a data series; points with a non-finite coordinate are dropped, and
    /// a series left empty is not added.
    pub fn add(&mut self, name: &str, points: Vec<(f64, f64)>) {
        let points: Vec<(f64, f64)> = points
            .into_iter()
            .filter(|(x, y)| x.is_finite() && y.is_finite())
            .collect();
        if !points.is_empty() {
            self.series.push(Series {
                name: name.into(),
                points,
                errors: Vec::new(),
                guide: None,
            });
        }
    }

    /// A series with error bars (x, low, high) at its points.
    pub fn add_with_errors(
        &mut self,
        name: &str,
        points: Vec<(f64, f64)>,
        errors: Vec<(f64, f64, f64)>,
    ) {
        self.add(name, points);
        if let Some(s) = self.series.last_mut().filter(|s| s.name == name) {
            s.errors = errors
                .into_iter()
                .filter(|(x, lo, hi)| x.is_finite() && lo.is_finite() && hi.is_finite())
                .collect();
        }
    }

    /// A guide for the data series at index `of` (its colour, `dash`).
    pub fn add_guide(
        &mut self,
        name: &str,
        points: Vec<(f64, f64)>,
        of: usize,
        dash: &'static str,
    ) {
        let n = self.series.len();
        self.add(name, points);
        if self.series.len() > n {
            if let Some(s) = self.series.last_mut() {
                s.guide = Some(Guide { of, dash });
            }
        }
    }

    /// Per series, whether a series drawn after it coincides with it: the
    /// same x values, and y within half a percent of the y span (`span`) at
    /// nine in ten of them. Drawn as is, the later line would hide the
    /// earlier one entirely (tps on qps for single-statement events, a
    /// variant that changed nothing); the earlier is drawn as a wide, pale
    /// band under it instead, so both stay visible.
    fn covered(&self, span: f64) -> Vec<bool> {
        let tol = 0.005 * span.abs().max(f64::MIN_POSITIVE);
        let same = |a: &Series, b: &Series| {
            if a.points.len() != b.points.len() || a.points.is_empty() {
                return false;
            }
            let close = a
                .points
                .iter()
                .zip(&b.points)
                .filter(|(p, q)| p.0 == q.0 && (p.1 - q.1).abs() <= tol)
                .count();
            close * 10 >= a.points.len() * 9
        };
        (0..self.series.len())
            .map(|i| {
                self.series[i].guide.is_none()
                    && self.series[i + 1..]
                        .iter()
                        .any(|later| later.guide.is_none() && same(&self.series[i], later))
            })
            .collect()
    }

    /// Each series' colour and dash: data series take the palette in turn
    /// (then the line styles), a guide its data series' colour and its own
    /// dash.
    fn styles(&self) -> Vec<(&'static str, &'static str)> {
        let mut data = 0;
        let own: Vec<usize> = self
            .series
            .iter()
            .map(|s| {
                if s.guide.is_some() {
                    0
                } else {
                    data += 1;
                    data - 1
                }
            })
            .collect();
        self.series
            .iter()
            .enumerate()
            .map(|(i, s)| match s.guide {
                Some(g) => {
                    let k = own.get(g.of).copied().unwrap_or(0);
                    (PALETTE[k % PALETTE.len()], g.dash)
                }
                None => {
                    let k = own[i];
                    let dash = if self.dash_each { k } else { k / PALETTE.len() };
                    (PALETTE[k % PALETTE.len()], DASHES[dash % DASHES.len()])
                }
            })
            .collect()
    }

    /// True when no series was added (nothing to draw).
    pub fn is_empty(&self) -> bool {
        self.series.is_empty()
    }

    fn x_of(&self, x: f64) -> f64 {
        if self.log2_x {
            x.max(1e-9).log2()
        } else {
            x
        }
    }

    /// The chart as a plain SVG file (pixel coordinates, no script needed).
    pub fn svg_file(&self) -> String {
        self.render(false).into_string()
    }

    /// The SVG: for a page (`interactive`: series in a box the page script
    /// transforms, legend beside it in HTML) or for a file (pixels, legend
    /// under the plot). SVG elements are written with explicit end tags
    /// (`{}`): inline in HTML, a bare `<line>` would hold what follows.
    fn render(&self, interactive: bool) -> Markup {
        let f = Frame::of(self, interactive);
        let clip = format!(
            "c{:x}",
            crate::stats::fnv1a64(self.title.as_bytes()) ^ (self.series.len() as u64)
        );
        let h = f.height();
        html! {
            svg.chart xmlns="http://www.w3.org/2000/svg" viewBox={ "0 0 " (W) " " (h) }
                width=[(!interactive).then_some(W)] height=[(!interactive).then_some(h)]
                data-group=[self.group] data-x0=(f.x0) data-x1=(f.x1) data-y0=(f.y0)
                data-y1=(f.y1) data-log2=(self.log2_x) data-scale=[self.scale] data-xlabel=(self.x_label)
                role="img" aria-label=(self.title) {
                defs { clipPath id=(clip) { rect x=(L) y=(T) width=(f.pw) height=(f.ph) {} } }
                rect x="0" y="0" width=(W) height=(h) fill="#fff" {}
                text x=(L) y="18" font-size="14" font-weight="bold" font-family="sans-serif" {
                    (self.title)
                }
                (self.warmup(&f))
                (self.y_axis(&f))
                (self.x_axis(&f))
                g clip-path={ "url(#" (clip) ")" } {
                    @if interactive {
                        g.plot transform=(format!("translate({L} {}) scale({} {})", T + f.ph, f.pw / 1000.0, -f.ph / 1000.0)) {
                            (self.plot(&f))
                        }
                    } @else {
                        g { (self.plot(&f)) }
                    }
                }
                (self.file_legend(&f))
                @if self.series.is_empty() {
                    text x=(L + f.pw / 2.0) y=(T + f.ph / 2.0) font-size="13" fill="#888"
                        text-anchor="middle" font-family="sans-serif" { "no data" }
                }
            }
        }
    }

    /// The warm-up (t < 0 on a time axis), shaded and named.
    fn warmup(&self, f: &Frame) -> Markup {
        if self.log2_x || f.x0 >= 0.0 {
            return html! {};
        }
        let end = L + ((0.0f64.min(f.x1) - f.x0) / (f.x1 - f.x0) * f.pw).max(0.0);
        html! {
            rect.warmup x=(L) y=(T) width=(d1(end - L)) height=(f.ph) fill="#efefef" {}
            text x=(d1((L + end) / 2.0)) y=(T + 13.0) font-size="11" fill="#777"
                text-anchor="middle" font-family="sans-serif" { "warm-up" }
        }
    }

    /// The y grid, its labels and the axis' name.
    fn y_axis(&self, f: &Frame) -> Markup {
        let mid = T + f.ph / 2.0;
        html! {
            @for (t, label) in &f.yt {
                @let py = T + f.ph - (t - f.y0) / (f.y1 - f.y0) * f.ph;
                line x1=(L) x2=(L + f.pw) y1=(d1(py)) y2=(d1(py)) stroke="#e4e4e4" {}
                text x=(L - 6.0) y=(d1(py + 4.0))
                    font-size="11" text-anchor="end" font-family="sans-serif" { (label) }
            }
            text x="14" y=(mid) font-size="11" font-family="sans-serif"
                transform={ "rotate(-90 14 " (mid) ")" } text-anchor="middle" { (self.y_label) }
        }
    }

    /// The x ticks (redrawn by the page script on zoom), the axis' name
    /// and the plot's border.
    fn x_axis(&self, f: &Frame) -> Markup {
        let xt: Vec<(f64, String)> = if let Some(given) = &self.x_ticks {
            given.clone()
        } else if self.log2_x {
            (f.x0.floor() as i64..=f.x1.ceil() as i64)
                .map(|e| e as f64)
                .filter(|e| *e >= f.x0 && *e <= f.x1)
                .map(|e| (e, fmt_num(2f64.powf(e).round())))
                .collect()
        } else {
            ticks(f.x0, f.x1, 8)
                .into_iter()
                .map(|t| (t, fmt_num(t)))
                .collect()
        };
        html! {
            g.xticks {
                @for (t, label) in xt {
                    @let px = d1(L + (t - f.x0) / (f.x1 - f.x0) * f.pw);
                    line x1=(px) x2=(px) y1=(T) y2=(T + f.ph) stroke="#f0f0f0" {}
                    text.xtick x=(px) y=(T + f.ph + 15.0) font-size="11" text-anchor="middle"
                        font-family="sans-serif" { (label) }
                }
            }
            text x=(L + f.pw / 2.0) y=(H - 8.0) font-size="11" text-anchor="middle"
                font-family="sans-serif" { (self.x_label) }
            rect x=(L) y=(T) width=(f.pw) height=(f.ph) fill="none" stroke="#999" {}
        }
    }

    /// Where a data point goes: in the 0–1000 box (interactive) or in
    /// pixels (files).
    fn place(&self, f: &Frame, x: f64, y: f64) -> (f64, f64) {
        let (nx, ny) = (
            (self.x_of(x) - f.x0) / (f.x1 - f.x0) * 1000.0,
            (y - f.y0) / (f.y1 - f.y0) * 1000.0,
        );
        if f.interactive {
            (nx, ny)
        } else {
            (L + nx / 1000.0 * f.pw, T + f.ph - ny / 1000.0 * f.ph)
        }
    }

    /// Each series: its line, error bars, and dots where it has few points.
    fn plot(&self, f: &Frame) -> Markup {
        html! {
            @for (i, s) in self.series.iter().enumerate() {
                @let (color, dash) = f.styles[i];
                @let (width, opacity) = if f.under[i] { ("5", Some("0.45")) } else { ("1.6", None) };
                polyline fill="none" stroke=(color) stroke-width=(width) stroke-opacity=[opacity]
                    stroke-dasharray=[(!dash.is_empty()).then_some(dash)]
                    vector-effect="non-scaling-stroke" data-i=(i) data-name=(s.name)
                    points=(self.points_attr(f, &s.points)) {}
                @for (x, lo, hi) in &s.errors {
                    @let ((px, plo), (_, phi)) = (self.place(f, *x, *lo), self.place(f, *x, *hi));
                    line.err data-i=(i) x1=(d2(px)) y1=(d2(plo)) x2=(d2(px)) y2=(d2(phi))
                        stroke=(color) stroke-width="1.2" vector-effect="non-scaling-stroke" {}
                }
                @if s.points.len() <= 40 && s.guide.is_none() {
                    @for (x, y) in &s.points {
                        (self.dot(f, i, color, *x, *y))
                    }
                }
            }
        }
    }

    /// A polyline's points, "x,y " each.
    fn points_attr(&self, f: &Frame, points: &[(f64, f64)]) -> String {
        let mut o = String::with_capacity(points.len() * 16);
        for (x, y) in points {
            let (px, py) = self.place(f, *x, *y);
            let _ = write!(o, "{px:.2},{py:.2} ");
        }
        o
    }

    fn dot(&self, f: &Frame, i: usize, color: &str, x: f64, y: f64) -> Markup {
        let (px, py) = self.place(f, x, y);
        let (cx, cy) = (d2(px), d2(py));
        if f.interactive {
            // Round dots despite the box's uneven scale.
            let t = format!(
                "translate({cx} {cy}) scale({} {}) translate({:.2} {:.2})",
                1000.0 / f.pw,
                -1000.0 / f.ph,
                -px,
                -py
            );
            html! { circle data-i=(i) cx=(cx) cy=(cy) r="3" fill=(color) transform=(t) {} }
        } else {
            html! { circle cx=(cx) cy=(cy) r="3" fill=(color) {} }
        }
    }

    /// Files: the legend under the plot, every name whole.
    fn file_legend(&self, f: &Frame) -> Markup {
        html! {
            @for (row, entries) in f.legend.iter().enumerate() {
                @let y = H + 4.0 + row as f64 * 16.0;
                @for (i, x) in entries {
                    @let (color, dash) = f.styles[*i];
                    line x1=(d1(*x)) x2=(d1(x + 18.0)) y1=(d1(y - 4.0)) y2=(d1(y - 4.0))
                        stroke=(color) stroke-width="3" stroke-dasharray=(dash) {}
                    text x=(d1(x + 22.0)) y=(d1(y)) font-size="11" font-family="sans-serif" {
                        (self.series[*i].name)
                    }
                }
            }
        }
    }
}

/// A chart's drawing frame: the data ranges it shows, its y ticks, its
/// series' styles and, for a file, the legend's rows.
struct Frame {
    x0: f64,
    x1: f64,
    y0: f64,
    y1: f64,
    yt: Vec<(f64, String)>,
    pw: f64,
    ph: f64,
    interactive: bool,
    styles: Vec<(&'static str, &'static str)>,
    /// Per series: a later series lies on it (see `Chart::covered`), so it
    /// is drawn wide and pale under that one.
    under: Vec<bool>,
    legend: Vec<Vec<(usize, f64)>>,
}

impl Frame {
    fn of(c: &Chart, interactive: bool) -> Frame {
        let xs = c
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| c.x_of(p.0)));
        let (mut x0, mut x1) = xs.fold((f64::MAX, f64::MIN), |(a, b), x| (a.min(x), b.max(x)));
        let ys = c.series.iter().flat_map(|s| {
            s.points
                .iter()
                .map(|p| p.1)
                .chain(s.errors.iter().flat_map(|e| [e.1, e.2]))
        });
        let (mut y0, mut y1) = ys.fold((f64::MAX, f64::MIN), |(a, b), y| (a.min(y), b.max(y)));
        if c.series.is_empty() {
            (x0, x1, y0, y1) = (0.0, 1.0, 0.0, 1.0);
        }
        if let Some((a, b)) = c.x_range {
            (x0, x1) = (c.x_of(a), c.x_of(b));
        }
        if x1 <= x0 {
            x1 = x0 + 1.0;
        }
        let yt = match &c.y_ticks {
            Some(given) if !given.is_empty() => {
                let lo = given.iter().map(|t| t.0).fold(f64::MAX, f64::min);
                let hi = given.iter().map(|t| t.0).fold(f64::MIN, f64::max);
                (y0, y1) = (lo.min(y0), hi.max(y1).max(lo + 1e-12));
                given.clone()
            }
            _ => {
                if y0 > 0.0 {
                    y0 = 0.0;
                }
                let yt = round_y_ticks(y0, y1);
                y1 = yt
                    .last()
                    .copied()
                    .filter(|t| *t >= y1)
                    .unwrap_or(y1)
                    .max(y0 + 1e-12);
                yt.into_iter().map(|t| (t, fmt_num(t))).collect()
            }
        };
        // Files carry their legend under the plot, whole: rows of entries.
        let legend = if interactive {
            Vec::new()
        } else {
            legend_rows(&c.series, W - L - 8.0)
        };
        Frame {
            x0,
            x1,
            y0,
            y1,
            yt,
            pw: W - L - R,
            ph: H - T - B,
            interactive,
            styles: c.styles(),
            under: c.covered(y1 - y0),
            legend,
        }
    }

    /// The SVG's height: the plot's, and the file legend's rows.
    fn height(&self) -> f64 {
        let rows = self.legend.len() as f64;
        H + rows * 16.0 + if self.legend.is_empty() { 0.0 } else { 8.0 }
    }
}

/// A coordinate with one decimal.
/// Round y ticks from `y0` up to past `y1`.
fn round_y_ticks(y0: f64, y1: f64) -> Vec<f64> {
    let mut yt = ticks(y0, if y1 > y0 { y1 } else { y0 + 1.0 }, 5);
    if let (Some(&last), true) = (yt.last(), yt.len() >= 2) {
        if last < y1 {
            yt.push(last + (yt[1] - yt[0]));
        }
    }
    yt
}

fn d1(v: f64) -> String {
    format!("{v:.1}")
}

/// A coordinate with two decimals.
fn d2(v: f64) -> String {
    format!("{v:.2}")
}

/// The legend of a file laid out in rows within `width`: each entry (its
/// series index and x) as wide as its name needs (about 6.5 px a
/// character at 11 px), never cut.
fn legend_rows(series: &[Series], width: f64) -> Vec<Vec<(usize, f64)>> {
    let mut rows: Vec<Vec<(usize, f64)>> = Vec::new();
    let mut x = L;
    for (i, s) in series.iter().enumerate() {
        let w = 22.0 + 6.5 * s.name.chars().count() as f64 + 16.0;
        if rows.is_empty() || (x + w > L + width && x > L) {
            rows.push(Vec::new());
            x = L;
        }
        if let Some(r) = rows.last_mut() {
            r.push((i, x));
        }
        x += w;
    }
    rows
}

/// Renders an SVG chart to PNG (twice its size, for sharp text), with the
/// system's fonts.
pub fn to_png(svg: &str) -> anyhow::Result<Vec<u8>> {
    use resvg::{tiny_skia, usvg};
    let mut opt = usvg::Options::default();
    opt.fontdb_mut().load_system_fonts();
    opt.fontdb_mut().set_sans_serif_family("DejaVu Sans");
    if opt.fontdb.is_empty() {
        anyhow::bail!("no fonts found for the chart's text: install one (apt-get install fonts-dejavu-core) or write .svg");
    }
    opt.font_family = "DejaVu Sans".into();
    let tree = usvg::Tree::from_str(svg, &opt)
        .map_err(|e| anyhow::anyhow!("cannot read the chart's SVG: {e}"))?;
    let size = tree
        .size()
        .to_int_size()
        .scale_by(2.0)
        .ok_or_else(|| anyhow::anyhow!("empty chart"))?;
    let mut pixmap = tiny_skia::Pixmap::new(size.width(), size.height())
        .ok_or_else(|| anyhow::anyhow!("empty chart"))?;
    resvg::render(
        &tree,
        tiny_skia::Transform::from_scale(2.0, 2.0),
        &mut pixmap.as_mut(),
    );
    pixmap
        .encode_png()
        .map_err(|e| anyhow::anyhow!("cannot encode the PNG: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_ticks() {
        assert_eq!(
            ticks(0.0, 100.0, 5),
            vec![0.0, 20.0, 40.0, 60.0, 80.0, 100.0]
        );
        assert_eq!(fmt_num(52000.0), "52k");
        assert_eq!(fmt_num(0.25), "0.25");
        assert_eq!(fmt_num(1_500_000.0), "1.5M");
        // a range too narrow for its magnitude: a few ticks, not a loop
        // that never ends (it filled memory once)
        let t = ticks(1e6, 1e6 + 1e-10, 5);
        assert!(!t.is_empty() && t.len() <= 22, "{t:?}");
    }

    /// Two series with the same values stay both visible: the first is
    /// drawn as a wide pale band under the second; series apart are not.
    #[test]
    fn coinciding_series_are_drawn_under_each_other() {
        let mut c = Chart::new("t", "s", "qps");
        let pts: Vec<(f64, f64)> = (0..10).map(|i| (i as f64, 100.0 + i as f64)).collect();
        c.add("qps", pts.clone());
        c.add("tps", pts.iter().map(|(x, y)| (*x, y + 0.1)).collect());
        c.add("apart", pts.iter().map(|(x, y)| (*x, y * 0.5)).collect());
        assert_eq!(c.covered(110.0), [true, false, false]);
        let svg = c.svg_file();
        assert_eq!(svg.matches("stroke-opacity=\"0.45\"").count(), 1, "{svg}");
    }

    #[test]
    fn error_bars_are_drawn_and_widen_the_axis() {
        let mut c = Chart::new("QPS", "users", "qps");
        c.log2_x = true;
        c.add_with_errors(
            "a",
            vec![(1.0, 10.0), (2.0, 20.0)],
            vec![(1.0, 8.0, 12.0), (2.0, 15.0, 90.0)],
        );
        let s = c.svg_file();
        assert_eq!(s.matches("class=\"err\"").count(), 2, "{s}");
        assert!(
            s.contains(">80<") || s.contains(">90<") || s.contains(">100<"),
            "the axis reaches the bar: {s}"
        );
    }

    #[test]
    fn svg_has_every_series_and_point() {
        let mut c = Chart::new("QPS", "users", "qps");
        c.log2_x = true;
        c.add("a", vec![(1.0, 10.0), (2.0, 20.0), (4.0, 30.0)]);
        c.add("b <x>", vec![(1.0, 5.0), (4.0, 15.0)]);
        let s = c.render(true).into_string();
        assert_eq!(s.matches("<polyline").count(), 2);
        assert_eq!(s.matches("<circle").count(), 5);
        assert!(s.contains("b &lt;x&gt;") && s.contains(">4</text>"));
    }

    #[test]
    fn legends_keep_whole_names_and_twelve_series_look_different() {
        let mut c = Chart::timeline("Buffer pool", "pages per second");
        let long = "Innodb_buffer_pool_read_requests of a very long series name";
        for i in 0..12 {
            c.add(
                &format!("{long} {i}"),
                vec![(-2.0, 1.0 + i as f64), (5.0, 2.0)],
            );
        }
        let html = c.html().into_string();
        let file = c.svg_file();
        for i in 0..12 {
            let name = format!("{long} {i}");
            assert!(
                html.contains(&format!(">{name}</li>")),
                "page legend cuts {name}"
            );
            assert!(
                file.contains(&format!(">{name}</text>")),
                "file legend cuts {name}"
            );
        }
        let styles = c.styles();
        let mut distinct = styles.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), 12, "{styles:?}");
        // Series 13 on: the colours again, dashed.
        c.add("thirteenth", vec![(0.0, 1.0)]);
        assert_eq!(c.styles()[12], (PALETTE[0], DASHES[1]));
        // The warm-up (t < 0) is shaded and named; the axis has units.
        assert!(html.contains("class=\"warmup\"") && html.contains(">warm-up</text>"));
        assert!(html.contains(TIME_AXIS) && html.contains("pages per second"));
    }

    #[test]
    fn an_all_zero_chart_is_a_line_of_text_and_a_shared_range_is_kept() {
        let mut c = Chart::timeline("Errors and reconnects", "per second");
        c.add("errors/s", vec![(0.0, 0.0), (1.0, 0.0)]);
        c.add("reconnects/s", vec![(0.0, 0.0), (1.0, 0.0)]);
        let h = c.html().into_string();
        assert!(!h.contains("<svg class=\"chart\""), "{h}");
        assert!(
            h.contains("Errors and reconnects: zero throughout (errors/s, reconnects/s)"),
            "{h}"
        );
        let mut d = Chart::timeline("Throughput", "qps");
        d.add("qps", vec![(0.0, 1.0), (2.0, 3.0)]);
        d.x_range = Some((-5.0, 10.0));
        let h = d.html().into_string();
        assert!(
            h.contains("data-x0=\"-5\" data-x1=\"10\"") && h.contains("data-group=\"time\""),
            "{h}"
        );
    }
}
