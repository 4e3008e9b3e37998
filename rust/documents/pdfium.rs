//! What the PDF layout reads of a page, through PDFium: the twin of
//! `python/ragchunk/_pure/documents/pdfium.py`.
//!
//! PDFium is not linked: the caller passes the addresses of the PDFium functions listed in
//! [`FUNCTIONS`], taken from the library `pypdfium2` already loaded (`function_table` in the
//! Python module), and [`page_content`] calls them in place, the same functions in the same
//! order as the Python module, with the same arithmetic, so both give the same values bit for
//! bit:
//!
//! * characters in PDFium's text order ([`Char`]): the character, its box in points from the
//!   page's top-left corner (zeros for a character PDFium generated), the font size, and the
//!   [`GENERATED`], [`BREAK`], [`BOLD`], [`MONO`] bits;
//! * graphic objects ([`Graphic`]), forms read through: [`PATH`], [`IMAGE`] or [`SHADING`], the
//!   bounds on the page, and the [`FILL`], [`STROKE`], [`STRAIGHT`] bits.
//!
//! Both are in the page's own frame (its user space, before `/Rotate`). Text drawn turned on
//! the page is laid out where it reads upright: [`text_quarter`] gives the turn of most of the
//! page's characters, [`turn`] the content in the frame that undoes it, and [`turn_box`] maps a
//! box between frames (the layout's boxes into the page as displayed).
//!
//! PDFium is not thread-safe: the caller runs [`page_content`] where nothing else calls PDFium.
//! The bindings keep the GIL held throughout, so no other Python thread can start a
//! `pypdfium2` call meanwhile; `pypdfium2` releases the GIL while each of its own calls runs
//! (it loads PDFium with `ctypes.CDLL`), so a program that uses PDFium from several threads
//! needs its own lock around every use, this one included, as it does for `pypdfium2` alone.

use std::ffi::{c_char, c_int, c_uint, c_ulong, c_void};
use std::ptr;

use rustc_hash::FxHashMap;

/// A character PDFium inferred (a space between words, a line break): its box is zeros.
pub const GENERATED: u8 = 1;
/// A line break (`\r` or `\n`, always also [`GENERATED`]).
pub const BREAK: u8 = 2;
/// A bold font (by name, the PDF ForceBold flag, or a weight of 600 or more).
pub const BOLD: u8 = 4;
/// A fixed-pitch font (by the PDF FixedPitch flag or by name).
pub const MONO: u8 = 8;

/// A path object (PDFium's `FPDF_PAGEOBJ_PATH`).
pub const PATH: u8 = 2;
/// An image object (`FPDF_PAGEOBJ_IMAGE`).
pub const IMAGE: u8 = 3;
/// A shading object (`FPDF_PAGEOBJ_SHADING`).
pub const SHADING: u8 = 4;

/// A filled path.
pub const FILL: u8 = 1;
/// A stroked path.
pub const STROKE: u8 = 2;
/// A path of axis-aligned straight segments only: a rule or a rectangle.
pub const STRAIGHT: u8 = 4;

/// Nested forms deeper than this are not read (a form may draw itself through another).
pub const MAX_DEPTH: usize = 8;

const FORM: c_int = 5;
const LINETO: c_int = 0;
const MOVETO: c_int = 2;

/// One character of a page, in PDFium's text order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Char {
    /// The character (ligatures and presentation forms as PDFium reports them; U+FFFE, PDFium's
    /// report of a hyphen ending a line, as is; U+0000 as a space; a code point that is not a
    /// Unicode scalar value as U+FFFD).
    pub ch: char,
    /// Left edge, in points from the page's left edge.
    pub x0: f64,
    /// Top edge, in points from the page's top edge.
    pub top: f64,
    /// Right edge.
    pub x1: f64,
    /// Bottom edge, in points from the page's top edge.
    pub bottom: f64,
    /// The font size (0.0 for a generated character).
    pub size: f64,
    /// [`GENERATED`], [`BREAK`], [`BOLD`], [`MONO`] bits.
    pub flags: u8,
}

/// One graphic object of a page (a path, an image or a shading, forms read through).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Graphic {
    /// [`PATH`], [`IMAGE`] or [`SHADING`].
    pub kind: u8,
    /// Left edge of the bounds, in points from the page's left edge.
    pub x0: f64,
    /// Top edge, in points from the page's top edge.
    pub top: f64,
    /// Right edge.
    pub x1: f64,
    /// Bottom edge, in points from the page's top edge.
    pub bottom: f64,
    /// [`FILL`], [`STROKE`], [`STRAIGHT`] bits (paths only).
    pub flags: u8,
}

/// A PDFium handle (`FPDF_TEXTPAGE`, `FPDF_PAGE`, `FPDF_PAGEOBJECT`, `FPDF_FONT`, ...).
type Handle = *mut c_void;
/// PDFium's `FPDF_BOOL`.
type Bool = c_int;

/// Declares the function table once: the fields of [`Api`], their C signatures, and the
/// PDFium names in [`FUNCTIONS`], all in the order of the address table.
macro_rules! functions {
    ($($field:ident: $name:literal => fn($($arg:ty),*) -> $ret:ty;)*) => {
        /// The PDFium functions [`page_content`] calls, in the order of the address table
        /// [`Api::new`] takes (`FUNCTIONS` in `_pure/documents/pdfium.py`, the same list).
        pub const FUNCTIONS: &[&str] = &[$($name),*];

        /// PDFium's functions, called through their addresses in a library loaded elsewhere.
        #[derive(Clone, Copy)]
        pub struct Api {
            $($field: unsafe extern "C" fn($($arg),*) -> $ret,)*
        }

        impl Api {
            /// The table from the addresses of [`FUNCTIONS`], in that order. An error (naming
            /// what is wrong) when the count differs or an address is zero.
            ///
            /// The addresses are only stored here; [`page_content`]'s caller vouches that they
            /// are the PDFium functions they stand for.
            pub fn new(addrs: &[usize]) -> Result<Api, String> {
                if addrs.len() != FUNCTIONS.len() {
                    return Err(format!(
                        "expected {} function addresses, got {}",
                        FUNCTIONS.len(),
                        addrs.len()
                    ));
                }
                if let Some(i) = addrs.iter().position(|&a| a == 0) {
                    return Err(format!("the address of {} is 0", FUNCTIONS[i]));
                }
                let mut next = addrs.iter();
                Ok(Api {
                    $($field: {
                        let addr = *next.next().expect("count checked above");
                        // SAFETY: a non-zero address of the same size as a function pointer;
                        // holding it is sound, calling it is `page_content`'s contract.
                        unsafe {
                            std::mem::transmute::<usize, unsafe extern "C" fn($($arg),*) -> $ret>(
                                addr,
                            )
                        }
                    },)*
                })
            }
        }
    };
}

functions! {
    count_chars: "FPDFText_CountChars" => fn(Handle) -> c_int;
    get_unicode: "FPDFText_GetUnicode" => fn(Handle, c_int) -> c_uint;
    is_generated: "FPDFText_IsGenerated" => fn(Handle, c_int) -> c_int;
    // left, right, bottom, top
    get_char_box: "FPDFText_GetCharBox"
        => fn(Handle, c_int, *mut f64, *mut f64, *mut f64, *mut f64) -> Bool;
    get_text_object: "FPDFText_GetTextObject" => fn(Handle, c_int) -> Handle;
    get_font_size: "FPDFText_GetFontSize" => fn(Handle, c_int) -> f64;
    text_obj_get_font: "FPDFTextObj_GetFont" => fn(Handle) -> Handle;
    font_base_name: "FPDFFont_GetBaseFontName" => fn(Handle, *mut c_char, usize) -> usize;
    font_get_flags: "FPDFFont_GetFlags" => fn(Handle) -> c_int;
    font_get_weight: "FPDFFont_GetWeight" => fn(Handle) -> c_int;
    page_count_objects: "FPDFPage_CountObjects" => fn(Handle) -> c_int;
    page_get_object: "FPDFPage_GetObject" => fn(Handle, c_int) -> Handle;
    obj_get_type: "FPDFPageObj_GetType" => fn(Handle) -> c_int;
    // left, bottom, right, top
    obj_get_bounds: "FPDFPageObj_GetBounds"
        => fn(Handle, *mut f32, *mut f32, *mut f32, *mut f32) -> Bool;
    // FS_MATRIX: six floats a, b, c, d, e, f
    obj_get_matrix: "FPDFPageObj_GetMatrix" => fn(Handle, *mut [f32; 6]) -> Bool;
    form_count_objects: "FPDFFormObj_CountObjects" => fn(Handle) -> c_int;
    form_get_object: "FPDFFormObj_GetObject" => fn(Handle, c_ulong) -> Handle;
    // fill mode, stroke
    path_get_draw_mode: "FPDFPath_GetDrawMode" => fn(Handle, *mut c_int, *mut Bool) -> Bool;
    path_count_segments: "FPDFPath_CountSegments" => fn(Handle) -> c_int;
    path_get_segment: "FPDFPath_GetPathSegment" => fn(Handle, c_int) -> Handle;
    segment_get_type: "FPDFPathSegment_GetType" => fn(Handle) -> c_int;
    segment_get_point: "FPDFPathSegment_GetPoint" => fn(Handle, *mut f32, *mut f32) -> Bool;
    get_char_angle: "FPDFText_GetCharAngle" => fn(Handle, c_int) -> f32;
}

/// A 2-D affine matrix `(a, b, c, d, e, f)`, as PDF writes them: `x' = a x + c y + e`,
/// `y' = b x + d y + f`.
pub type Matrix = [f64; 6];

/// The characters and graphic objects of one page (see the module), from a PDFium page and
/// its text page; `height` is the page's height in points.
///
/// # Safety
///
/// `api` holds the addresses of the PDFium functions its names say, in a library that is
/// initialised and stays loaded; `page` and `textpage` are live handles of that library (the
/// text page loaded from that page); nothing else calls PDFium meanwhile.
pub unsafe fn page_content(
    api: &Api,
    page: *mut c_void,
    textpage: *mut c_void,
    height: f64,
) -> (Vec<Char>, Vec<Graphic>) {
    // SAFETY (every call in this module): the functions and handles are as the caller
    // vouches, and every pointer passed points to a live local of the type PDFium writes.
    let chars = unsafe { chars(api, textpage, height) };
    let n = unsafe { (api.page_count_objects)(page) };
    let objs: Vec<Handle> = (0..n)
        .map(|i| unsafe { (api.page_get_object)(page, i) })
        .collect();
    let mut graphics = Vec::new();
    unsafe { read_graphics(api, &objs, height, None, 0, &mut graphics) };
    (chars, graphics)
}

/// `text_quarter` of the Python module: the quarter turns (counterclockwise, 0 to 3) by which
/// most of the page's characters are drawn turned (`FPDFText_GetCharAngle`, which is
/// clockwise, each rounded to the nearest quarter; generated characters and failures aside; on
/// a tie the least turn).
///
/// # Safety
///
/// As for [`page_content`], for `textpage`.
pub unsafe fn text_quarter(api: &Api, textpage: *mut c_void) -> u8 {
    let mut votes = [0usize; 4];
    let n = unsafe { (api.count_chars)(textpage) };
    for i in 0..n {
        if unsafe { (api.is_generated)(textpage, i) } != 0 {
            continue;
        }
        let angle = f64::from(unsafe { (api.get_char_angle)(textpage, i) });
        if angle >= 0.0 {
            let q = (angle / (std::f64::consts::PI / 2.0) + 0.5).floor();
            // Python's `int(...) % 4`; an angle too large to be a turn (or NaN) is not counted.
            if q.is_finite() && q.abs() < 1e15 {
                // PDFium measures the angle clockwise (as the page is seen, y down).
                votes[(-(q as i64)).rem_euclid(4) as usize] += 1;
            }
        }
    }
    let mut best = 0;
    for k in 1..4 {
        if votes[k] > votes[best] {
            best = k;
        }
    }
    best as u8
}

/// `turn_box` of the Python module: a box `[x0, top, x1, bottom]` of a `width` x `height`
/// frame, in the frame turned clockwise by `quarter` quarter turns.
pub fn turn_box(b: [f64; 4], quarter: u8, width: f64, height: f64) -> [f64; 4] {
    let [x0, top, x1, bottom] = b;
    match quarter % 4 {
        1 => [height - bottom, x0, height - top, x1],
        2 => [width - x1, height - bottom, width - x0, height - top],
        3 => [top, width - x1, bottom, width - x0],
        _ => b,
    }
}

/// `turn` of the Python module: a `width` x `height` page's content turned clockwise by
/// `quarter` quarter turns, so text drawn turned counterclockwise by as many reads upright.
/// A generated character keeps its zero box.
pub fn turn(chars: &mut [Char], graphics: &mut [Graphic], quarter: u8, width: f64, height: f64) {
    if quarter % 4 == 0 {
        return;
    }
    for c in chars.iter_mut().filter(|c| c.flags & GENERATED == 0) {
        [c.x0, c.top, c.x1, c.bottom] =
            turn_box([c.x0, c.top, c.x1, c.bottom], quarter, width, height);
    }
    for g in graphics.iter_mut() {
        [g.x0, g.top, g.x1, g.bottom] =
            turn_box([g.x0, g.top, g.x1, g.bottom], quarter, width, height);
    }
}

/// The character PDFium's code point stands for: U+0000 is a space, a code point that is not
/// a Unicode scalar value (a surrogate, or above U+10FFFF) is U+FFFD.
pub fn code_point_char(code: u32) -> char {
    if code == 0 {
        ' '
    } else {
        char::from_u32(code).unwrap_or('\u{FFFD}')
    }
}

/// [`BOLD`] and [`MONO`] bits from a font's base name, PDF flags (`FPDFFont_GetFlags`: -1 when
/// unknown, which sets both bits, as in the Python module) and weight (-1 when unknown).
pub fn font_flags(name: &str, flags: c_int, weight: c_int) -> u8 {
    let low = name.to_lowercase();
    let mut out = 0;
    if low.contains("bold")
        || low.contains("black")
        || low.contains("heavy")
        || flags & 0x40000 != 0
        || weight >= 600
    {
        out |= BOLD;
    }
    if flags & 1 != 0 || low.contains("courier") || low.contains("mono") || low.contains("consol") {
        out |= MONO;
    }
    out
}

/// `m` applied to the point `(x, y)`.
pub fn apply(m: &Matrix, x: f64, y: f64) -> (f64, f64) {
    let [a, b, c, d, e, f] = *m;
    (a * x + c * y + e, b * x + d * y + f)
}

/// `inner` then `outer`: the matrix that maps a form's content straight to `outer`'s space.
pub fn compose(inner: &Matrix, outer: &Matrix) -> Matrix {
    let [a, b, c, d, e, f] = *inner;
    let (x, y) = apply(outer, e, f);
    [
        a * outer[0] + b * outer[2],
        a * outer[1] + b * outer[3],
        c * outer[0] + d * outer[2],
        c * outer[1] + d * outer[3],
        x,
        y,
    ]
}

/// Whether a path's segments `(type, x, y)` are axis-aligned straight segments only (rules
/// and rectangles): move-tos and line-tos, none of which moves more than 0.01 pt along both
/// axes at once. An empty path is not straight. The segments are taken one at a time, and none
/// after the first that decides.
pub fn straight(segments: impl IntoIterator<Item = (c_int, f32, f32)>) -> bool {
    let mut any = false;
    let (mut px, mut py) = (0.0f64, 0.0f64);
    for (kind, x, y) in segments {
        any = true;
        if kind != LINETO && kind != MOVETO {
            return false; // a Bezier curve, or an unknown segment
        }
        let (x, y) = (f64::from(x), f64::from(y));
        if kind == LINETO && (x - px).abs() > 0.01 && (y - py).abs() > 0.01 {
            return false;
        }
        (px, py) = (x, y);
    }
    any
}

/// The smallest of `values` as Python's `min` picks it (the first, replaced by any later
/// value that compares less), so that NaN and signed zeros come out the same.
fn py_min(values: [f64; 4]) -> f64 {
    values[1..]
        .iter()
        .fold(values[0], |m, &v| if v < m { v } else { m })
}

/// The largest of `values` as Python's `max` picks it.
fn py_max(values: [f64; 4]) -> f64 {
    values[1..]
        .iter()
        .fold(values[0], |m, &v| if v > m { v } else { m })
}

/// [`BOLD`] and [`MONO`] bits of a text object's font (0 when it has none).
unsafe fn font_bits(api: &Api, obj: Handle) -> u8 {
    let font = unsafe { (api.text_obj_get_font)(obj) };
    if font.is_null() {
        return 0;
    }
    let n = unsafe { (api.font_base_name)(font, ptr::null_mut(), 0) };
    let mut name = String::new();
    if n > 0 {
        let mut buf = vec![0u8; n];
        unsafe { (api.font_base_name)(font, buf.as_mut_ptr().cast::<c_char>(), n) };
        let end = memchr::memchr(0, &buf).unwrap_or(n);
        name = String::from_utf8_lossy(&buf[..end]).into_owned();
    }
    let flags = unsafe { (api.font_get_flags)(font) };
    let weight = unsafe { (api.font_get_weight)(font) };
    font_flags(&name, flags, weight)
}

unsafe fn chars(api: &Api, tp: Handle, height: f64) -> Vec<Char> {
    let n = unsafe { (api.count_chars)(tp) };
    let mut out = Vec::with_capacity(usize::try_from(n).unwrap_or(0));
    let mut fonts: FxHashMap<usize, u8> = FxHashMap::default();
    // One box for the whole page, as in the Python module: a call that fails leaves the
    // previous character's values.
    let (mut left, mut right, mut bottom, mut top) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    let zero = |ch, flags| Char {
        ch,
        x0: 0.0,
        top: 0.0,
        x1: 0.0,
        bottom: 0.0,
        size: 0.0,
        flags,
    };
    for i in 0..n {
        let ch = code_point_char(unsafe { (api.get_unicode)(tp, i) });
        if ch == '\r' || ch == '\n' {
            out.push(zero(ch, BREAK | GENERATED));
            continue;
        }
        if unsafe { (api.is_generated)(tp, i) } != 0 {
            out.push(zero(ch, GENERATED));
            continue;
        }
        unsafe { (api.get_char_box)(tp, i, &mut left, &mut right, &mut bottom, &mut top) };
        let obj = unsafe { (api.get_text_object)(tp, i) };
        let key = obj as usize;
        let flags = match fonts.get(&key) {
            Some(&flags) => flags,
            None => {
                let flags = if key != 0 {
                    unsafe { font_bits(api, obj) }
                } else {
                    0
                };
                fonts.insert(key, flags);
                flags
            }
        };
        let size = unsafe { (api.get_font_size)(tp, i) };
        out.push(Char {
            ch,
            x0: left,
            top: height - top,
            x1: right,
            bottom: height - bottom,
            size,
            flags,
        });
    }
    out
}

/// Whether a path object is straight ([`straight`] over its segments, read lazily; a point
/// that cannot be read leaves the previous one, as in the Python module).
unsafe fn path_is_straight(api: &Api, obj: Handle) -> bool {
    let n = unsafe { (api.path_count_segments)(obj) };
    let (mut x, mut y) = (0.0f32, 0.0f32);
    straight((0..n).map(|i| {
        let seg = unsafe { (api.path_get_segment)(obj, i) };
        let kind = unsafe { (api.segment_get_type)(seg) };
        if kind == LINETO || kind == MOVETO {
            unsafe { (api.segment_get_point)(seg, &mut x, &mut y) };
        }
        (kind, x, y)
    }))
}

/// Appends the graphic objects among `objs` to `out`, forms read through; `outer` maps the
/// objects' space to the page (None on the page itself).
unsafe fn read_graphics(
    api: &Api,
    objs: &[Handle],
    height: f64,
    outer: Option<&Matrix>,
    depth: usize,
    out: &mut Vec<Graphic>,
) {
    let mut m = [0.0f32; 6];
    let (mut l, mut b, mut r, mut t) = (0.0f32, 0.0f32, 0.0f32, 0.0f32);
    for &obj in objs {
        let kind = unsafe { (api.obj_get_type)(obj) };
        if kind == FORM {
            if depth < MAX_DEPTH && unsafe { (api.obj_get_matrix)(obj, &mut m) } != 0 {
                // A form's objects report their bounds in the form's space: map them through
                // the form's matrix, then through the forms around it.
                let own = m.map(f64::from);
                let inner = match outer {
                    None => own,
                    Some(outer) => compose(&own, outer),
                };
                let n = unsafe { (api.form_count_objects)(obj) };
                let kids: Vec<Handle> = (0..n)
                    .map(|i| unsafe { (api.form_get_object)(obj, i as c_ulong) })
                    .collect();
                unsafe { read_graphics(api, &kids, height, Some(&inner), depth + 1, out) };
            }
            continue;
        }
        let kind = match u8::try_from(kind) {
            Ok(k @ (PATH | IMAGE | SHADING)) => k,
            _ => continue,
        };
        if unsafe { (api.obj_get_bounds)(obj, &mut l, &mut b, &mut r, &mut t) } == 0 {
            continue;
        }
        let (mut x0, mut y0, mut x1, mut y1) =
            (f64::from(l), f64::from(b), f64::from(r), f64::from(t));
        if let Some(outer) = outer {
            let corners = [
                apply(outer, x0, y0),
                apply(outer, x0, y1),
                apply(outer, x1, y0),
                apply(outer, x1, y1),
            ];
            let xs = corners.map(|c| c.0);
            let ys = corners.map(|c| c.1);
            (x0, x1) = (py_min(xs), py_max(xs));
            (y0, y1) = (py_min(ys), py_max(ys));
        }
        let mut flags = 0;
        if kind == PATH {
            let (mut fill, mut stroke): (c_int, Bool) = (0, 0);
            if unsafe { (api.path_get_draw_mode)(obj, &mut fill, &mut stroke) } != 0 {
                if fill != 0 {
                    flags |= FILL;
                }
                if stroke != 0 {
                    flags |= STROKE;
                }
            }
            if unsafe { path_is_straight(api, obj) } {
                flags |= STRAIGHT;
            }
        }
        out.push(Graphic {
            kind,
            x0,
            top: height - y1,
            x1,
            bottom: height - y0,
            flags,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn font_flags_follow_name_flags_and_weight() {
        assert_eq!(font_flags("Helvetica-Bold", 0, -1), BOLD);
        assert_eq!(font_flags("ABCDEF+DejaVuSansMono", 0, 400), MONO);
        assert_eq!(font_flags("Arial-BLACK", 0, 400), BOLD);
        assert_eq!(font_flags("Heavy", 0, 400), BOLD);
        assert_eq!(font_flags("Times-Roman", 0x40000, 400), BOLD);
        assert_eq!(font_flags("Times-Roman", 0, 600), BOLD);
        assert_eq!(font_flags("Times-Roman", 0, 599), 0);
        assert_eq!(font_flags("Times-Roman", 1, 400), MONO);
        assert_eq!(font_flags("Courier-Bold", 0, 700), BOLD | MONO);
        assert_eq!(font_flags("Consolas", 0, 400), MONO);
        // Unknown flags (-1) set every bit, as `-1 & mask` does in Python.
        assert_eq!(font_flags("", -1, -1), BOLD | MONO);
        // Full Unicode lowercasing, as `str.lower`: the Kelvin sign is a `k`.
        assert_eq!(font_flags("BLAC\u{212A}", 0, 400), BOLD);
    }

    #[test]
    fn turns() {
        let b = [10.0, 20.0, 30.0, 40.0];
        assert_eq!(turn_box(b, 0, 100.0, 200.0), b);
        assert_eq!(turn_box(b, 1, 100.0, 200.0), [160.0, 10.0, 180.0, 30.0]);
        assert_eq!(turn_box(b, 2, 100.0, 200.0), [70.0, 160.0, 90.0, 180.0]);
        assert_eq!(turn_box(b, 3, 100.0, 200.0), [20.0, 70.0, 40.0, 90.0]);
        // Four quarter turns (the frame's sides swapping each time) come back.
        let mut x = b;
        let (mut w, mut h) = (100.0, 200.0);
        for _ in 0..4 {
            x = turn_box(x, 1, w, h);
            (w, h) = (h, w);
        }
        assert_eq!(x, b);
        // A drawn character turns; a generated one keeps its box.
        let at = |flags| Char {
            ch: 'a',
            x0: 10.0,
            top: 20.0,
            x1: 30.0,
            bottom: 40.0,
            size: 9.0,
            flags,
        };
        let mut chars = [at(0), at(GENERATED)];
        turn(&mut chars, &mut [], 1, 100.0, 200.0);
        let boxes = chars.map(|c| [c.x0, c.top, c.x1, c.bottom]);
        assert_eq!(boxes, [[160.0, 10.0, 180.0, 30.0], b]);
    }

    #[test]
    fn code_points() {
        assert_eq!(code_point_char(0), ' ');
        assert_eq!(code_point_char(0x41), 'A');
        assert_eq!(code_point_char(0xFFFE), '\u{FFFE}');
        assert_eq!(code_point_char(0xD800), '\u{FFFD}');
        assert_eq!(code_point_char(0xDFFF), '\u{FFFD}');
        assert_eq!(code_point_char(0x11_0000), '\u{FFFD}');
        assert_eq!(code_point_char(u32::MAX), '\u{FFFD}');
        assert_eq!(code_point_char(0x10_FFFF), '\u{10FFFF}');
    }

    #[test]
    fn matrices_compose_inner_then_outer() {
        let scale: Matrix = [2.0, 0.0, 0.0, 3.0, 0.0, 0.0];
        let shift: Matrix = [1.0, 0.0, 0.0, 1.0, 100.0, 200.0];
        assert_eq!(apply(&scale, 10.0, 20.0), (20.0, 60.0));
        // Scale, then shift.
        let m = compose(&scale, &shift);
        assert_eq!(m, [2.0, 0.0, 0.0, 3.0, 100.0, 200.0]);
        assert_eq!(apply(&m, 10.0, 20.0), (120.0, 260.0));
        // Shift, then scale: the shift is scaled.
        let m = compose(&shift, &scale);
        assert_eq!(m, [2.0, 0.0, 0.0, 3.0, 200.0, 600.0]);
        // A rotation by 90 degrees then a shift, against the point mapped twice.
        let rot: Matrix = [0.0, 1.0, -1.0, 0.0, 5.0, 7.0];
        let m = compose(&rot, &shift);
        let (x, y) = apply(&rot, 3.0, 4.0);
        assert_eq!(apply(&m, 3.0, 4.0), apply(&shift, x, y));
    }

    #[test]
    fn straightness() {
        // A rectangle: move, then four axis-aligned lines.
        let rect = [
            (MOVETO, 10.0, 20.0),
            (LINETO, 40.0, 20.0),
            (LINETO, 40.0, 60.0),
            (LINETO, 10.0, 60.0),
            (LINETO, 10.0, 20.0),
        ];
        assert!(straight(rect));
        // A diagonal line.
        assert!(!straight([(MOVETO, 0.0, 0.0), (LINETO, 10.0, 10.0)]));
        // Within 0.01 pt along one axis is still straight.
        assert!(straight([(MOVETO, 0.0, 0.0), (LINETO, 10.0, 0.005)]));
        // A Bezier segment, and an unknown one.
        assert!(!straight([(MOVETO, 0.0, 0.0), (1, 5.0, 0.0)]));
        assert!(!straight([(MOVETO, 0.0, 0.0), (-1, 5.0, 0.0)]));
        // The first line-to is measured from the origin, as the Python module does.
        assert!(!straight([(LINETO, 5.0, 5.0)]));
        assert!(straight([(LINETO, 5.0, 0.0)]));
        // An empty path.
        assert!(!straight([]));
        // Nothing is read past the segment that decides.
        let mut read = 0;
        let segs = [(MOVETO, 0.0, 0.0), (1, 0.0, 0.0), (LINETO, 1.0, 0.0)];
        assert!(!straight(segs.iter().map(|&s| {
            read += 1;
            s
        })));
        assert_eq!(read, 2);
    }

    #[test]
    fn min_max_pick_like_python() {
        assert_eq!(py_min([3.0, 1.0, 2.0, 1.0]), 1.0);
        assert_eq!(py_max([3.0, 1.0, 4.0, 4.0]), 4.0);
        // The first of equal values is kept: 0.0 before -0.0 stays 0.0.
        assert!(py_min([0.0, -0.0, 1.0, 1.0]).is_sign_positive());
        assert!(py_max([-0.0, 0.0, -1.0, -1.0]).is_sign_negative());
        // NaN first is never replaced (nothing compares less or greater than it).
        assert!(py_min([f64::NAN, 1.0, 2.0, 3.0]).is_nan());
        assert_eq!(py_min([1.0, f64::NAN, 0.5, 3.0]), 0.5);
    }

    #[test]
    fn table_checks() {
        let addrs = vec![1usize; FUNCTIONS.len()];
        assert!(Api::new(&addrs).is_ok());
        let err = Api::new(&addrs[1..]).err().expect("short table");
        assert!(err.contains(&FUNCTIONS.len().to_string()), "{err}");
        let mut zero = addrs.clone();
        zero[3] = 0;
        let err = Api::new(&zero).err().expect("zero address");
        assert!(err.contains("FPDFText_GetCharBox"), "{err}");
    }

    #[test]
    fn functions_match_the_python_module() {
        // The address table is built in Python from its own list: the two must not drift.
        let source = include_str!("../../python/ragchunk/_pure/documents/pdfium.py");
        let start = source
            .find("\nFUNCTIONS = (")
            .expect("FUNCTIONS in _pure/documents/pdfium.py");
        let body = &source[start..];
        let body = &body[..body.find("\n)").expect("end of FUNCTIONS")];
        let names: Vec<&str> = body.split('"').skip(1).step_by(2).collect();
        assert_eq!(names, FUNCTIONS);
    }
}
