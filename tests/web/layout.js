// What a page's layout gets wrong, as a person sees it once it has drawn and its
// animations have ended (tests/web/layout.py runs it):
// a function of {width, height, screen, names, ignore, frames}, answering a list of faults in words
// (empty: none). `width` and `height` are the window's as set (a phone's browser zooms
// out of a page wider than itself: its own innerWidth then grows with the page).
//
// - the page scrolls sideways; on a screen (`screen`: a TV, which nobody scrolls) it
//   scrolls down, or a box sticks out of the window;
// - two of the page's own boxes overlap: a text's line against another text's line,
//   a replaced element (an image, an SVG, a field, a button) or a painted leaf (a dot, a
//   badge) against any of them, where neither holds the other: on the page, in one fixed
//   layer (the countdown, the TV's moments), or one layer over another; only the page
//   itself may lie under a layer that dims the whole window (the countdown, on purpose);
//   a drawing's own parts (inside one element that is aria-hidden or an image: role
//   img) may meet; `ignore` lists
//   selectors of what is left out (a note of the link's state);
// - a text is cut: a line of it outside an ancestor that clips (overflow hidden or
//   clip, or an ellipsis);
// - a word is broken across two lines ("Wolfeschlegelsteinhause / n"): words are what
//   lies between spaces, hyphens, slashes and dots;
// - a name is shortened ("Wolfeschlegelsteinhau…").
async (opts) => {
  // the page has handled its new size and drawn again (unless its clock is held: `frames`
  // false), and its animations have ended (not the live dot's endless pulse)
  if (opts.frames !== false) await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  else {
    // no frame comes to deliver the new size's resize event: the page is told now, and
    // its handlers (and the microtasks they queue) run before the check
    dispatchEvent(new Event("resize"));
    await new Promise((r) => queueMicrotask(r));
    await new Promise((r) => queueMicrotask(r));
  }
  await Promise.all(
    document
      .getAnimations()
      .filter((a) => Number.isFinite(a.effect?.getComputedTiming().endTime))
      .map((a) => a.finished.catch(() => null)),
  );
  const W = opts.width ?? innerWidth;
  const H = opts.height ?? innerHeight;
  const faults = [];
  const say = (text) => faults.length < 40 && faults.push(text);
  const label = (el) => {
    const id = el.dataset?.testid || el.id || (typeof el.className === "string" && el.className.trim()) || el.tagName;
    const text = (el.textContent || "").trim().replace(/\s+/g, " ").slice(0, 24);
    return text ? `${id} "${text}"` : id;
  };

  // each element's computed style and box, asked once (the page does not change while
  // it is checked)
  const styles = new Map();
  const style = (el) => {
    if (!styles.has(el)) styles.set(el, getComputedStyle(el));
    return styles.get(el);
  };
  const rects = new Map();
  const rect = (el) => {
    if (!rects.has(el)) rects.set(el, el.getBoundingClientRect());
    return rects.get(el);
  };
  // visible itself and in all its ancestors (each element's answer kept)
  const visibles = new Map([[null, true]]);
  const visible = (el) => {
    if (!visibles.has(el)) {
      const cs = style(el);
      const own = cs.visibility !== "hidden" && cs.display !== "none" && Number(cs.opacity) >= 0.05;
      visibles.set(el, own && visible(el.parentElement));
    }
    return visibles.get(el);
  };
  const shown = (el) => el.getClientRects().length > 0 && visible(el);
  const layers = new Map([[null, null]]);
  const layer = (el) => {
    if (!layers.has(el)) layers.set(el, style(el).position === "fixed" ? el : layer(el.parentElement));
    return layers.get(el);
  };
  // a layer's place in the stack: its z-index, then its place in the page
  const order = [...document.querySelectorAll("*")];
  const heights = new Map([[null, [-Infinity, -1]]]);
  const height = (l) => {
    if (!heights.has(l)) heights.set(l, [Number(style(l).zIndex) || 0, order.indexOf(l)]);
    return heights.get(l);
  };
  const above = (l1, l2) => {
    const [z1, i1] = height(l1);
    const [z2, i2] = height(l2);
    return z1 > z2 || (z1 === z2 && i1 > i2);
  };
  // a layer that dims the whole window: it covers it and has a background
  const dims = (l) => {
    if (!l) return false;
    const r = rect(l);
    return r.width * r.height >= 0.99 * W * H && painted(style(l));
  };
  const drawing = (el) => el.closest("[aria-hidden=true], [role=img]");
  const ignore = (opts.ignore || []).join(", ");
  const ignored = (el) => Boolean(ignore) && Boolean(el.closest(ignore));
  const painted = (cs) =>
    cs.backgroundImage !== "none" ||
    !/rgba\(\d+, \d+, \d+, 0\)|transparent/.test(cs.backgroundColor) ||
    ["Top", "Right", "Bottom", "Left"].some((s) => parseFloat(cs[`border${s}Width`]) > 0 && cs[`border${s}Style`] !== "none");

  const root = document.documentElement;
  if (root.scrollWidth > W + 0.5) say(`the page scrolls sideways by ${root.scrollWidth - W} px`);
  if (opts.screen && root.scrollHeight > H + 0.5) say(`the screen scrolls down by ${root.scrollHeight - H} px`);

  // a line's box is the font's ascent and descent, taller than its letters: the top and
  // bottom tenth of it are room the letters rarely reach (lines set tight meet there)
  const letters = (r) => DOMRect.fromRect({ x: r.x, y: r.y + r.height / 10, width: r.width, height: (r.height * 8) / 10 });

  // every box: [element, rect, kind]
  const boxes = [];
  const texts = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const range = document.createRange();
  const shownCache = new Map();
  const isShown = (el) => {
    if (!shownCache.has(el)) shownCache.set(el, shown(el));
    return shownCache.get(el);
  };
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!node.data.trim() || !el || el.closest("script, style, noscript, title, option") || !isShown(el)) continue;
    if (ignored(el)) continue;
    texts.push(node);
    range.selectNodeContents(node);
    for (const r of range.getClientRects()) if (r.width > 0.5 && r.height > 0.5) boxes.push([el, letters(r), "text"]);
  }
  for (const el of document.body.querySelectorAll("*")) {
    if (el.closest("svg") && el.tagName.toLowerCase() !== "svg") continue;
    const replaced = el.matches("img, svg, canvas, input:not([type=hidden]), select, textarea, button, video");
    if (!replaced && el.children.length) continue;
    if (!isShown(el) || ignored(el)) continue;
    if (!replaced && !painted(style(el))) continue;
    const r = rect(el);
    if (r.width > 0.5 && r.height > 0.5) boxes.push([el, r, "box"]);
  }

  // off the screen (a TV)
  if (opts.screen) {
    for (const [el, r] of boxes) {
      if (r.left < -0.5 || r.top < -0.5 || r.right > W + 0.5 || r.bottom > H + 0.5) {
        say(`off the screen: ${label(el)} at ${Math.round(r.left)},${Math.round(r.top)}-${Math.round(r.right)},${Math.round(r.bottom)}`);
      }
    }
  } else {
    for (const [el, r] of boxes) {
      if ((r.right > W + 0.5 || r.left < -0.5) && !el.closest(".scroll-x")) say(`sticks out sideways: ${label(el)} (${Math.round(r.left)}-${Math.round(r.right)} of ${W})`);
    }
  }

  // overlaps
  const contains = (a, b) => a === b || a.contains(b) || b.contains(a);
  const drawings = new Map();
  for (const [el] of boxes) if (!drawings.has(el)) drawings.set(el, drawing(el));
  const seen = new Set();
  for (let i = 0; i < boxes.length; i++) {
    const [a, ra] = boxes[i];
    for (let j = i + 1; j < boxes.length; j++) {
      const [b, rb] = boxes[j];
      const w = Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left);
      const h = Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top);
      if (w <= 1 || h <= 1 || contains(a, b)) continue;
      const [la, lb] = [layer(a), layer(b)];
      if (la !== lb) {
        const [upper, lower] = above(la, lb) ? [la, lb] : [lb, la];
        if (lower === null && dims(upper)) continue; // the page, dimmed on purpose
      }
      if (drawings.get(a) && drawings.get(a) === drawings.get(b)) continue;
      const key = `${label(a)} | ${label(b)}`;
      if (!seen.has(key)) {
        seen.add(key);
        say(`overlap: ${key} (${Math.round(w)}×${Math.round(h)} px)`);
      }
    }
  }

  // cut by a clipping ancestor, or by an ellipsis
  for (const [el, r, kind] of boxes) {
    if (kind !== "text") continue;
    for (let e = el; e && e !== document.body; e = e.parentElement) {
      const cs = style(e);
      if (cs.textOverflow === "ellipsis" && e.scrollWidth > e.clientWidth + 0.5) {
        say(`cut with an ellipsis: ${label(e)}`);
        break;
      }
      // a TV's screen is not scrolled: what a scrolling box hides is cut there too
      const clipping = opts.screen ? ["hidden", "clip", "auto", "scroll"] : ["hidden", "clip"];
      const clipsX = clipping.includes(cs.overflowX);
      const clipsY = clipping.includes(cs.overflowY);
      if (!clipsX && !clipsY) continue;
      const c = rect(e);
      const outX = r.left < c.left + e.clientLeft - 1 || r.right > c.left + e.clientLeft + e.clientWidth + 1;
      // a line's box is taller than its letters (the font's ascent and descent): a
      // third of it outside is letters cut
      const slack = r.height / 3;
      const outY = r.top < c.top + e.clientTop - slack || r.bottom > c.top + e.clientTop + e.clientHeight + slack;
      if ((clipsX && outX) || (clipsY && outY)) {
        say(`cut: ${label(el)} by ${label(e)}`);
        break;
      }
    }
  }

  // words broken across lines
  const word = /[^\s\-‐‑–—/·.,:;()]{2,}/gu;
  for (const node of texts) {
    for (const m of node.data.matchAll(word)) {
      range.setStart(node, m.index);
      range.setEnd(node, m.index + m[0].length);
      const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0.5).map((r) => Math.round(r.bottom)));
      if (tops.size > 1) say(`a word broken across lines: "${m[0]}" in ${label(node.parentElement)}`);
    }
  }

  // names shortened
  const all = texts.map((n) => n.data).join("\n");
  for (const name of opts.names || []) {
    const graphemes = [...new Intl.Segmenter().segment(name)].map((s) => s.segment);
    for (let k = 1; k < graphemes.length; k++) {
      const stub = graphemes.slice(0, k).join("");
      if (all.includes(`${stub}…`) || all.includes(`${stub}...`)) {
        say(`a name shortened: "${stub}…" for "${name}"`);
        break;
      }
    }
  }
  return faults;
}
