// A name is shown whole: never cut, never broken inside a word. It wraps at its spaces
// and hyphens (a name kept on one line, white-space: nowrap, does not); a word wider than
// the name's box makes the name smaller, down to SMALLEST of its size; smaller than
// that it may wrap at its spaces after all (class "wrap"), still never inside a word.
//
// Every page fits its names whenever the page changes (a MutationObserver: whatever
// drew it), when the window changes size and when a late font (CJK, emoji) arrives.
// A name's box is a block, a flex or grid item or an inline-block (box.css): an inline
// span has no width of its own to fit into.

/** What holds a name, or a line that may hold one: the innermost of these around a
 * name's text is fitted. */
export const NAMES = [
  "main h1",
  ".name",
  ".fit",
  ".url",
  ".photo-name",
  ".seat-name",
  ".buzzer-who",
  ".tv-head h1",
  ".tv-name",
  ".tv-reveal-box p",
  ".tv-finale-title",
  ".tv-finale-name",
].join(", ");
const SMALLEST = 0.5;

const EMOJI = /\p{Extended_Pictographic}/u;

/** A line may break between two emoji (as between CJK letters, which `word-break:
 * keep-all` keeps together, box.css): a word of `el` holding emoji is kept whole in a
 * nowrap span of its own (its text unchanged). */
function keepWords(el) {
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  const nodes = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (EMOJI.test(node.data) && !node.parentElement.closest(".nowrap")) nodes.push(node);
  }
  for (const node of nodes) {
    const parts = node.data.split(/(\s+)/).map((part) => {
      if (!EMOJI.test(part)) return document.createTextNode(part);
      const word = document.createElement("span");
      word.className = "nowrap";
      word.textContent = part;
      return word;
    });
    node.replaceWith(...parts);
  }
}

const over = (el) => el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 0.5;

/** Every name in `root` whole in its box. */
export function fitNames(root = document) {
  const names = [...root.querySelectorAll(NAMES)].filter((el) => !el.querySelector(NAMES));
  // all reset, then all measured: one layout, not one per name
  for (const el of names) {
    el.style.fontSize = "";
    el.classList.remove("wrap");
    keepWords(el);
  }
  let wide = names.filter(over);
  const share = new Map(wide.map((el) => [el, Math.max(SMALLEST, Math.floor((el.clientWidth / el.scrollWidth) * 100) / 100)]));
  for (let pass = 0; pass < 4 && wide.length; pass++) {
    for (const el of wide) el.style.fontSize = `${share.get(el) * 100}%`;
    wide = wide.filter(over);
    for (const el of wide) {
      if (share.get(el) <= SMALLEST) el.classList.add("wrap");
      share.set(el, Math.max(SMALLEST, share.get(el) - 0.05));
    }
  }
}

const WATCH = { childList: true, characterData: true, subtree: true, attributes: true, attributeFilter: ["class", "hidden"] };
const watcher = typeof MutationObserver !== "undefined" ? new MutationObserver(() => refit()) : null;
let pending = false;

/** Fit every name once the page's script has drawn (a microtask: before the browser
 * paints, and without animation frames, which a paused test clock holds back). */
function refit() {
  if (pending) return;
  pending = true;
  queueMicrotask(() => {
    pending = false;
    watcher?.disconnect(); // the fit's own changes are no change to fit again
    try {
      fitNames();
    } finally {
      if (document.body) watcher?.observe(document.body, WATCH);
    }
  });
}

addEventListener("resize", refit);
document.fonts?.addEventListener("loadingdone", refit);
refit();
