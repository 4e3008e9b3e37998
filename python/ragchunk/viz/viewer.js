// The ragchunk chunk inspector: draws the chunks of every column over the document text.
//
// Text goes into the DOM only through textContent and text nodes, never as markup. Each
// column is laid out as items in document order (the chunks, and the gaps no chunk covers);
// text shared by overlapping chunks is shown once, striped, in the first chunk that holds it,
// and the later chunk keeps its copy in a hidden "lead" so that its element's text is still
// its whole source slice. Items are grouped in blocks of about BLOCK characters, rendered when
// they come near the viewport, so a long document costs a few elements per chunk on screen.
(function () {
  "use strict";
  var DATA = JSON.parse(document.getElementById("ragchunk-data").textContent);
  var TEXT = DATA.text;
  var PAL = DATA.palette;
  var OVERLAY = DATA.overlay;
  var BLOCK = 65536;
  var EAGER = 262144;
  var cols = [];
  var question = -1;
  var pinned = null;
  var flashTimer = 0;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // -- layout ------------------------------------------------------------------------------

  function layout(ci) {
    var col = DATA.columns[ci];
    var ch = col.chunks;
    var order = ch.map(function (_, k) { return k; });
    order.sort(function (a, b) { return ch[a][0] - ch[b][0] || ch[b][1] - ch[a][1] || a - b; });
    var colour = new Array(ch.length);
    var items = [];
    var frontier = 0;
    order.forEach(function (k, rank) {
      var s = ch[k][0], e = ch[k][1];
      colour[k] = rank % PAL.length;
      if (s > frontier) items.push({ k: -1, s: frontier, e: s, vs: frontier, ve: s });
      var vs = Math.max(s, frontier);
      items.push({ k: k, s: s, e: e, vs: vs, ve: Math.max(e, vs) });
      frontier = Math.max(frontier, e);
    });
    if (frontier < TEXT.length || !items.length) {
      items.push({ k: -1, s: frontier, e: TEXT.length, vs: frontier, ve: TEXT.length });
    }
    var itemOf = new Array(ch.length);
    items.forEach(function (it, i) { if (it.k >= 0) itemOf[it.k] = i; });
    var blocks = [];
    var first = 0, chars = 0;
    for (var i = 0; i < items.length; i++) {
      chars += items[i].ve - items[i].vs;
      if (chars >= BLOCK || i === items.length - 1) {
        blocks.push({ first: first, last: i, from: items[first].vs, to: items[i].ve, node: null, done: false });
        first = i + 1;
        chars = 0;
      }
    }
    var over = {};
    if (col.budget !== null) ch.forEach(function (c, k) { if (c[4] > col.budget) over[k] = true; });
    return {
      ci: ci, col: col, ch: ch, items: items, itemOf: itemOf, blocks: blocks, colour: colour,
      over: over, els: new Array(items.length), rank: {}, doc: null, ignore: null,
    };
  }

  function stripes(ks, st) {
    var parts = [], w = 5;
    ks.forEach(function (k, i) {
      var c = PAL[st.colour[k]];
      parts.push(c + " " + i * w + "px " + (i + 1) * w + "px");
    });
    return "repeating-linear-gradient(135deg, " + parts.join(", ") + ")";
  }

  function refsIn(a, b) {
    if (question < 0) return [];
    return OVERLAY.questions[question].refs.filter(function (r) { return r[0] < b && r[1] > a; });
  }

  function inRef(a, b) {
    return refsIn(a, b).some(function (r) { return r[0] <= a && r[1] >= b; });
  }

  // The visible range of item i cut where the set of covering chunks or references changes.
  function segments(st, i) {
    var it = st.items[i];
    var a = it.vs, b = it.ve;
    var others = [];
    for (var j = i + 1; j < st.items.length && st.items[j].s < b; j++) {
      if (st.items[j].k >= 0 && st.items[j].e > a) others.push(st.items[j]);
    }
    var cuts = [a, b];
    others.forEach(function (o) { cuts.push(o.s, o.e); });
    refsIn(a, b).forEach(function (r) { cuts.push(r[0], r[1]); });
    cuts = cuts.filter(function (x) { return x >= a && x <= b; });
    cuts.sort(function (x, y) { return x - y; });
    var out = [];
    for (var n = 0; n + 1 < cuts.length; n++) {
      var s = cuts[n], e = cuts[n + 1];
      if (s === e) continue;
      var ks = it.k >= 0 ? [it.k] : [];
      others.forEach(function (o) { if (o.s <= s && o.e >= e) ks.push(o.k); });
      var opens = others.some(function (o) { return o.s === s && o.vs > s; });
      out.push({ s: s, e: e, ks: ks, ref: inRef(s, e), opens: opens });
    }
    return out;
  }

  function itemEl(st, i) {
    var it = st.items[i];
    var node;
    if (it.k < 0) {
      node = el("span", "gap");
      node.title = "not in any chunk";
    } else {
      node = el("span", "chunk");
      node.dataset.k = it.k;
      node.style.setProperty("--c", PAL[st.colour[it.k]]);
      if (st.over[it.k]) node.classList.add("over");
      if (st.rank[it.k] !== undefined) {
        node.classList.add("hit");
        node.dataset.rank = st.rank[it.k] + 1;
      }
      var leadEnd = Math.min(it.e, it.vs);
      if (it.s < leadEnd) {
        var lead = el("span", "lead", TEXT.slice(it.s, leadEnd));
        lead.hidden = true;
        node.appendChild(lead);
      }
    }
    node.dataset.s = it.vs;
    node.dataset.e = it.ve;
    node.dataset.item = i;
    segments(st, i).forEach(function (seg) {
      var text = TEXT.slice(seg.s, seg.e);
      if (seg.ks.length <= 1 && !seg.ref && !seg.opens) {
        node.appendChild(document.createTextNode(text));
        return;
      }
      var span = el("span", "seg", text);
      if (seg.ks.length > 1) {
        span.classList.add("shared");
        span.style.background = stripes(seg.ks, st);
        span.dataset.also = seg.ks.slice(1).join(" ");
      }
      if (seg.opens) span.classList.add("opens");
      if (seg.ref) {
        span.classList.add("ref");
        var found = seg.ks.some(function (k) { return st.rank[k] !== undefined; });
        if (!found) span.classList.add("miss");
      }
      node.appendChild(span);
    });
    st.els[i] = node;
    return node;
  }

  // -- blocks ------------------------------------------------------------------------------

  function estimate(st, b) {
    var blk = st.blocks[b];
    var lines = 0, run = 0, cpl = st.cpl;
    for (var p = blk.from; p < blk.to; p++) {
      if (TEXT.charCodeAt(p) === 10) { lines += 1 + Math.floor(run / cpl); run = 0; } else run++;
    }
    lines += 1 + Math.floor(run / cpl);
    return Math.ceil(lines * st.lineHeight);
  }

  function renderBlock(st, b) {
    var blk = st.blocks[b];
    if (blk.done) return;
    blk.done = true;
    if (st.observer) st.observer.unobserve(blk.node);
    blk.node.classList.remove("pending");
    blk.node.style.height = "";
    var frag = document.createDocumentFragment();
    for (var i = blk.first; i <= blk.last; i++) frag.appendChild(itemEl(st, i));
    blk.node.textContent = "";
    blk.node.appendChild(frag);
  }

  function rerender(st) {
    st.blocks.forEach(function (blk, b) {
      if (!blk.done) return;
      blk.done = false;
      renderBlock(st, b);
    });
  }

  function blockOf(st, i) {
    var lo = 0, hi = st.blocks.length - 1;
    while (lo < hi) {
      var mid = (lo + hi) >> 1;
      if (st.blocks[mid].last < i) lo = mid + 1; else hi = mid;
    }
    return lo;
  }

  function itemAt(st, off) {
    var lo = 0, hi = st.items.length - 1;
    while (lo < hi) {
      var mid = (lo + hi + 1) >> 1;
      if (st.items[mid].vs <= off) lo = mid; else hi = mid - 1;
    }
    return lo;
  }

  function measure(st) {
    var probe = el("span", "", "0000000000");
    probe.style.visibility = "hidden";
    st.doc.appendChild(probe);
    var r = probe.getBoundingClientRect();
    st.doc.removeChild(probe);
    var style = getComputedStyle(st.doc);
    var inner = st.doc.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    st.lineHeight = r.height || 18;
    st.cpl = Math.max(10, Math.floor(inner / ((r.width || 80) / 10)));
  }

  function mount(st, section) {
    st.doc = section.querySelector(".doc");
    st.doc.dataset.col = st.ci;
    measure(st);
    var eager = TEXT.length <= EAGER;
    if (!eager && "IntersectionObserver" in window) {
      st.observer = new IntersectionObserver(function (entries) {
        entries.forEach(function (en) {
          if (en.isIntersecting) renderBlock(st, Number(en.target.dataset.block));
        });
      }, { root: st.doc, rootMargin: "1500px 0px" });
    }
    st.blocks.forEach(function (blk, b) {
      blk.node = el("div", "block pending");
      blk.node.dataset.block = b;
      st.doc.appendChild(blk.node);
      if (st.observer) {
        blk.node.style.height = estimate(st, b) + "px";
        st.observer.observe(blk.node);
      } else renderBlock(st, b);
    });
    if (st.observer && st.blocks.length) renderBlock(st, 0);
    st.doc.addEventListener("scroll", function () { onScroll(st); }, { passive: true });
  }

  // -- scrolling together ------------------------------------------------------------------

  function elementTop(st, node) {
    return node.getBoundingClientRect().top - st.doc.getBoundingClientRect().top + st.doc.scrollTop;
  }

  // The source offset shown at the top of a column.
  function topOffset(st) {
    var y = st.doc.scrollTop;
    var lo = 0, hi = st.blocks.length - 1;
    while (lo < hi) {
      var mid = (lo + hi + 1) >> 1;
      if (st.blocks[mid].node.offsetTop <= y) lo = mid; else hi = mid - 1;
    }
    var blk = st.blocks[lo];
    if (!blk.done) {
      var f = Math.min(1, Math.max(0, (y - blk.node.offsetTop) / (blk.node.offsetHeight || 1)));
      return blk.from + f * (blk.to - blk.from);
    }
    var best = blk.first;
    for (var i = blk.first; i <= blk.last; i++) {
      if (elementTop(st, st.els[i]) <= y + 1) best = i; else break;
    }
    var node = st.els[best], it = st.items[best];
    var top = elementTop(st, node), h = node.getBoundingClientRect().height || 1;
    var frac = Math.min(1, Math.max(0, (y - top) / h));
    return it.vs + frac * (it.ve - it.vs);
  }

  function scrollToOffset(st, off, exact) {
    var i = itemAt(st, Math.floor(off));
    renderBlock(st, blockOf(st, i));
    var node = st.els[i], it = st.items[i];
    var frac = exact || it.ve === it.vs ? 0 : (off - it.vs) / (it.ve - it.vs);
    var target = elementTop(st, node) + frac * node.getBoundingClientRect().height;
    st.ignore = Math.round(target);
    st.doc.scrollTop = target;
    st.ignore = st.doc.scrollTop;
    return node;
  }

  var syncing = false;
  function onScroll(st) {
    if (st.ignore !== null && Math.abs(st.doc.scrollTop - st.ignore) < 2) {
      st.ignore = null;
      return;
    }
    st.ignore = null;
    if (syncing || cols.length < 2) return;
    syncing = true;
    requestAnimationFrame(function () {
      var off = topOffset(st);
      cols.forEach(function (other) { if (other !== st) scrollToOffset(other, off); });
      syncing = false;
    });
  }

  // -- details -----------------------------------------------------------------------------

  function row(dl, term, value) {
    dl.appendChild(el("dt", "", term));
    dl.appendChild(el("dd", "", value));
  }

  function metaValue(v, key) {
    if (key === "bboxes" && Array.isArray(v)) {
      return v.map(function (b) {
        var r = (b.bbox || []).map(function (x) { return Math.round(x); });
        return "page " + b.page + " (" + r[0] + ", " + r[1] + ")\u2013(" + r[2] + ", " + r[3] + ")";
      }).join("; ") || "none";
    }
    if (Array.isArray(v) && v.every(function (x) { return typeof x === "string"; })) {
      return v.join(" \u203a ");
    }
    return typeof v === "string" ? v : JSON.stringify(v);
  }

  var LABELS = {
    headers: "heading path", pages: "pages", cut: "semantic cut", bboxes: "boxes (points)",
    headings: "heading path", sections: "sections",
  };

  function showDetails(st, node) {
    var box = document.getElementById("details");
    box.textContent = "";
    var col = st.col;
    var dl = el("dl");
    if (node.classList.contains("gap")) {
      box.appendChild(el("h3", "", col.name + ": text in no chunk"));
      row(dl, "offsets", node.dataset.s + "\u2013" + node.dataset.e + " (UTF-16)");
      box.appendChild(dl);
      return;
    }
    var k = Number(node.dataset.k), c = st.ch[k];
    box.appendChild(el("h3", "", col.name + ": chunk " + k + " of " + st.ch.length));
    row(dl, "index", String(k));
    row(dl, "offsets", c[2] + "\u2013" + c[3] + " (" + (c[3] - c[2]) + " characters)");
    var size = c[4] + " " + (col.unit || "units");
    if (col.budget !== null) size += " (budget " + col.budget + (st.over[k] ? ", OVER)" : ")");
    row(dl, "size", size);
    var meta = col.meta[k] || {};
    Object.keys(meta).forEach(function (key) { row(dl, LABELS[key] || key, metaValue(meta[key], key)); });
    var it = st.items[st.itemOf[k]];
    var shared = [];
    for (var j = 0; j < st.ch.length; j++) {
      if (j !== k && st.ch[j][0] < c[1] && st.ch[j][1] > c[0]) shared.push(j);
    }
    if (shared.length) row(dl, "shares text with", "chunk " + shared.join(", "));
    if (it.vs > c[0]) row(dl, "shown from", "offset " + it.vs + " (before it: shared text)");
    if (st.rank[k] !== undefined) row(dl, "retrieved", "rank " + (st.rank[k] + 1));
    box.appendChild(dl);
    if (col.own[k] !== undefined) {
      box.appendChild(el("p", "differs", "Its text differs from the source slice; the chunk's own text:"));
      box.appendChild(el("pre", "own", col.own[k]));
    }
  }

  function select(st, node, pin) {
    document.querySelectorAll(".selected").forEach(function (n) { n.classList.remove("selected"); });
    if (pin) node.classList.add("selected");
    showDetails(st, node);
    if (pin) showBoxes(st.ci, node.classList.contains("chunk") ? Number(node.dataset.k) : -1);
  }

  // Pin chunk k of column ci: its element scrolled into view, the other columns brought there.
  function selectChunk(ci, k) {
    var st = cols[ci];
    var i = st.itemOf[k];
    renderBlock(st, blockOf(st, i));
    var node = st.els[i];
    var top = elementTop(st, node);
    st.ignore = Math.round(top);
    st.doc.scrollTop = top;
    st.ignore = st.doc.scrollTop;
    cols.forEach(function (other) { if (other !== st) scrollToOffset(other, st.items[i].vs); });
    pinned = node;
    select(st, node, true);
    flash(node);
    return node;
  }

  function target(ev) {
    var n = ev.target;
    return n && n.closest ? n.closest(".chunk, .gap") : null;
  }

  function flash(node) {
    node.classList.add("flash");
    clearTimeout(flashTimer);
    flashTimer = setTimeout(function () { node.classList.remove("flash"); }, 1200);
  }

  // -- the semantic curve ------------------------------------------------------------------

  function jump(ci, off) {
    var st = cols[ci];
    var node = scrollToOffset(st, off, true);
    cols.forEach(function (other) { if (other !== st) scrollToOffset(other, off); });
    if (node.classList.contains("chunk")) {
      pinned = node;
      select(st, node, true);
    }
    flash(node);
    return node;
  }

  function wireCurve(st, section) {
    var svg = section.querySelector("svg.curve");
    var sem = st.col.semantic;
    if (!svg || !sem) return;
    svg.addEventListener("click", function (ev) {
      var i;
      if (ev.target.classList && ev.target.classList.contains("peak")) i = Number(ev.target.dataset.i);
      else {
        var r = svg.getBoundingClientRect();
        i = Math.floor(((ev.clientX - r.left) / r.width) * sem.n);
      }
      i = Math.max(0, Math.min(sem.n - 1, i));
      jump(st.ci, sem.cuts[i]);
    });
  }

  // -- the evaluation overlay --------------------------------------------------------------

  function chooseQuestion(qi) {
    question = qi;
    cols.forEach(function (st, ci) {
      st.rank = {};
      var stat = st.doc.parentNode.querySelector(".qstat");
      stat.textContent = "";
      stat.className = "qstat";
      if (qi >= 0) {
        var q = OVERLAY.questions[qi];
        q.retrieved[ci].forEach(function (k, r) { st.rank[k] = r; });
        var pct = Math.round(q.recall[ci] * 100);
        stat.textContent = "top " + OVERLAY.k + " (" + OVERLAY.retriever + "): chunks " +
          (q.retrieved[ci].join(", ") || "none") + "; " + pct + "% of the reference found";
        stat.classList.add(q.recall[ci] > 0 ? "found" : "missed");
      }
      rerender(st);
    });
    if (qi >= 0 && OVERLAY.questions[qi].refs.length) {
      var off = OVERLAY.questions[qi].refs[0][0];
      cols.forEach(function (st) { scrollToOffset(st, off); });
    }
  }

  function wireQuestions() {
    var sel = document.getElementById("question");
    if (!sel || !OVERLAY) return;
    OVERLAY.questions.forEach(function (q, i) {
      var opt = el("option", "", q.id + ": " + q.text);
      opt.value = String(i);
      sel.appendChild(opt);
    });
    sel.addEventListener("change", function () {
      chooseQuestion(sel.value === "" ? -1 : Number(sel.value));
    });
  }

  // -- the pages of a parsed document -----------------------------------------------------
  //
  // One sheet per page, sized to the page; its image (a data: URI) and its boxes are added
  // when the sheet comes near the panel's viewport. Boxes are in PDF points from the page's
  // top-left corner, placed as percentages of the sheet. Section boxes are outlined; the
  // boxes of one column's chunks (picked in the panel's header) are filled in the chunk's
  // colour on top of them.

  var PAGES = DATA.pages;
  var pg = null;

  function place(node, b, p) {
    node.style.left = (100 * b[1] / p[1]) + "%";
    node.style.top = (100 * b[2] / p[2]) + "%";
    node.style.width = (100 * (b[3] - b[1]) / p[1]) + "%";
    node.style.height = (100 * (b[4] - b[2]) / p[2]) + "%";
  }

  function boxLabel(b) {
    var text = b[7] === null ? "(not in the text: " + b[6] + ")" : TEXT.slice(b[7], b[8]);
    if (text.length > 200) text = text.slice(0, 200) + "\u2026";
    return b[6] + " on page " + b[0] + ": " + text;
  }

  // The part of a section box that chunk c holds, when several chunks share the box: its
  // band of the box's height, in proportion to the box's text (lines are not known here).
  function slice(b, c, sharers) {
    if (sharers < 2 || b[7] === null || b[8] <= b[7]) return b;
    var len = b[8] - b[7];
    var f0 = Math.max(0, (c[0] - b[7]) / len), f1 = Math.min(1, (c[1] - b[7]) / len);
    if (f1 - f0 < 0.1) f1 = Math.min(1, f0 + 0.1);
    if (f1 - f0 < 0.1) f0 = f1 - 0.1;
    var h = b[4] - b[2];
    return [b[0], b[1], b[2] + f0 * h, b[3], b[2] + f1 * h];
  }

  function drawChunkBoxes(i) {
    var sheet = pg.sheets[i];
    sheet.querySelectorAll(".cbox").forEach(function (n) { sheet.removeChild(n); });
    var st = cols[pg.col], ofBox = pg.boxChunks[pg.col];
    pg.onPage[i].forEach(function (b) {
      var box = PAGES.boxes[b];
      (ofBox[b] || []).forEach(function (k) {
        var n = el("div", "cbox");
        n.dataset.k = k;
        n.dataset.b = b;
        n.style.backgroundColor = PAL[st.colour[k]];
        n.title = "chunk " + k + ": " + boxLabel(box);
        if (k === pg.selected) n.classList.add("selected");
        place(n, slice(box, st.ch[k], ofBox[b].length), PAGES.pages[i]);
        sheet.appendChild(n);
      });
    });
  }

  function drawSheet(i) {
    if (pg.drawn[i]) return;
    pg.drawn[i] = true;
    var sheet = pg.sheets[i], p = PAGES.pages[i];
    if (pg.observer) pg.observer.unobserve(sheet);
    if (p[3]) {
      var img = el("img", "pageimg");
      img.alt = "page " + p[0];
      img.draggable = false;
      img.src = p[3];
      sheet.appendChild(img);
    } else {
      sheet.classList.add("blank");
      sheet.appendChild(el("div", "unrendered",
        "page " + p[0] + " is not rendered (only the first " + PAGES.max_pages + " are)"));
    }
    pg.onPage[i].forEach(function (b) {
      var box = PAGES.boxes[b];
      var n = el("div", "sbox kind-" + box[6]);
      n.dataset.b = b;
      n.dataset.section = box[5];
      n.title = boxLabel(box);
      place(n, box, p);
      sheet.appendChild(n);
    });
    drawChunkBoxes(i);
  }

  function setBoxColumn(ci) {
    pg.col = ci;
    pg.select.value = String(ci);
    pg.drawn.forEach(function (done, i) { if (done) drawChunkBoxes(i); });
  }

  // Highlight the boxes of chunk k of column ci (k < 0: none) and bring the first into view.
  function showBoxes(ci, k) {
    if (!pg) return;
    pg.selected = k;
    if (ci !== pg.col) setBoxColumn(ci);
    var boxes = k >= 0 ? pg.chunkBoxes[ci][k] || [] : [];
    boxes.forEach(function (b) { drawSheet(pg.pageIndex[PAGES.boxes[b][0]]); });
    pg.panel.querySelectorAll(".cbox").forEach(function (n) {
      n.classList.toggle("selected", Number(n.dataset.k) === k);
    });
    if (!boxes.length) return;
    var first = pg.panel.querySelector('.cbox[data-k="' + k + '"]');
    var view = pg.view.getBoundingClientRect(), r = first.getBoundingClientRect();
    if (r.top < view.top || r.bottom > view.bottom) {
      pg.view.scrollTop += r.top - view.top - 40;
    }
  }

  function clickBox(ev) {
    var n = ev.target && ev.target.closest ? ev.target.closest(".cbox, .sbox") : null;
    if (!n) return;
    var ci = pg.col, ch = cols[ci].ch;
    var k = -1;
    if (n.classList.contains("cbox")) k = Number(n.dataset.k);
    else {
      var b = PAGES.boxes[Number(n.dataset.b)];
      var own = pg.boxChunks[ci][Number(n.dataset.b)];
      if (own && own.length) k = own[0];
      else if (b[7] !== null) {
        var best = 0;
        ch.forEach(function (c, j) {
          var hit = Math.min(c[1], b[8]) - Math.max(c[0], b[7]);
          if (hit > best) { best = hit; k = j; }
        });
      }
    }
    if (k >= 0) {
      selectChunk(ci, k);
      return;
    }
    var box = document.getElementById("details");
    box.textContent = "";
    var sec = PAGES.boxes[Number(n.dataset.b)];
    box.appendChild(el("h3", "", "section " + sec[5] + " (" + sec[6] + "), page " + sec[0]));
    box.appendChild(el("p", "empty", "In no chunk of " + cols[ci].col.name + "."));
  }

  function wirePages() {
    var panel = document.getElementById("pages");
    if (!PAGES || !panel) return;
    pg = {
      panel: panel, view: panel.querySelector(".sheets"), select: document.getElementById("boxcol"),
      col: 0, selected: -1, sheets: [], drawn: [], onPage: [], pageIndex: {},
      boxChunks: [], chunkBoxes: [], observer: null,
    };
    var shown = PAGES.pages.filter(function (p) { return p[3]; }).length;
    var count = PAGES.pages.length + (PAGES.pages.length === 1 ? " page" : " pages");
    if (shown < PAGES.pages.length) count += ", the first " + shown + " as images";
    panel.querySelector(".pagecount").textContent = count;
    DATA.columns.forEach(function (c, ci) {
      var opt = el("option", "", c.name);
      opt.value = String(ci);
      pg.select.appendChild(opt);
      var ofBox = {}, ofChunk = {};
      PAGES.columns[ci].forEach(function (pair) {
        (ofBox[pair[1]] = ofBox[pair[1]] || []).push(pair[0]);
        (ofChunk[pair[0]] = ofChunk[pair[0]] || []).push(pair[1]);
      });
      pg.boxChunks.push(ofBox);
      pg.chunkBoxes.push(ofChunk);
    });
    if (DATA.columns.length < 2) pg.select.parentNode.hidden = true;
    pg.select.addEventListener("change", function () { setBoxColumn(Number(pg.select.value)); });
    PAGES.pages.forEach(function (p, i) {
      pg.pageIndex[p[0]] = i;
      pg.onPage.push([]);
      pg.drawn.push(false);
      var sheet = el("div", "sheet");
      sheet.dataset.page = p[0];
      sheet.dataset.index = i;
      sheet.style.aspectRatio = p[1] + " / " + p[2];
      sheet.appendChild(el("span", "pageno", String(p[0])));
      pg.sheets.push(sheet);
      pg.view.appendChild(sheet);
    });
    PAGES.boxes.forEach(function (b, j) {
      var i = pg.pageIndex[b[0]];
      if (i !== undefined) pg.onPage[i].push(j);
    });
    if ("IntersectionObserver" in window) {
      pg.observer = new IntersectionObserver(function (entries) {
        entries.forEach(function (en) {
          if (en.isIntersecting) drawSheet(Number(en.target.dataset.index));
        });
      }, { root: pg.view, rootMargin: "1200px 0px" });
      pg.sheets.forEach(function (s) { pg.observer.observe(s); });
    } else pg.sheets.forEach(function (_, i) { drawSheet(i); });
    pg.view.addEventListener("click", clickBox);
  }

  // -- start -------------------------------------------------------------------------------

  var sections = document.querySelectorAll("section.col");
  document.querySelector("main.cols").style.setProperty("--n", String(sections.length));
  DATA.columns.forEach(function (_, ci) {
    var st = layout(ci);
    cols.push(st);
    mount(st, sections[ci]);
    wireCurve(st, sections[ci]);
    st.doc.addEventListener("mouseover", function (ev) {
      var n = target(ev);
      if (n && !pinned) showDetails(st, n);
    });
    st.doc.addEventListener("click", function (ev) {
      var n = target(ev);
      if (!n) return;
      if (pinned === n) {
        pinned = null;
        n.classList.remove("selected");
        if (pg) showBoxes(pg.col, -1);
        return;
      }
      pinned = n;
      select(st, n, true);
    });
  });
  document.addEventListener("keydown", function (ev) {
    if (ev.key === "Escape" && pinned) {
      pinned.classList.remove("selected");
      pinned = null;
      if (pg) showBoxes(pg.col, -1);
    }
  });
  wireQuestions();
  wirePages();
  window.ragchunkView = {
    jump: jump,
    selectChunk: selectChunk,
    drawPages: function () { if (pg) pg.sheets.forEach(function (_, i) { drawSheet(i); }); },
    chooseQuestion: chooseQuestion,
    topOffset: function (ci) { return topOffset(cols[ci]); },
    renderAll: function () {
      cols.forEach(function (st) { st.blocks.forEach(function (_, b) { renderBlock(st, b); }); });
    },
  };
  document.body.dataset.ready = "1";
})();
