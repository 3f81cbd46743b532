// Counts typed at the table stay on this phone until the round moves on: a phone that
// locks or reloads, or an undo of the entry, finds them again. Kept per game, round
// and entry in localStorage, as [name, value] pairs (a player may be called
// "__proto__"); the drafts of other rounds are dropped.
const KEY = "buzzerbox.drafts";

function read() {
  try {
    const all = JSON.parse(localStorage.getItem(KEY) || "[]");
    return Array.isArray(all) ? all : [];
  } catch {
    return [];
  }
}

function write(all) {
  try {
    localStorage.setItem(KEY, JSON.stringify(all));
  } catch {
    // private mode or a full storage: the form still works, it is only not kept
  }
}

/** The draft's key: game, round and entry ("stacks", "middle", "left"). */
export const draftKey = (state, type) => `${state.box?.game_id ?? ""}|${state.round}|${type}`;

/** The counts typed for `key`: a Map name -> text (empty if none). */
export function loadDraft(key) {
  const hit = read().find(([k]) => k === key);
  return new Map(hit ? hit[1] : []);
}

/** Keep the counts typed for `key` (a Map or [name, text] pairs); drop other rounds'. */
export function saveDraft(key, values) {
  const round = key.split("|").slice(0, 2).join("|");
  const others = read().filter(([k]) => k !== key && k.startsWith(`${round}|`));
  write([...others, [key, [...values]]]);
}

/** Forget the counts typed for `key` (the phone chose what another phone saved). */
export function dropDraft(key) {
  write(read().filter(([k]) => k !== key));
}
