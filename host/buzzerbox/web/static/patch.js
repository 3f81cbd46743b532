// The live stream's deltas: JSON Patch (RFC 6902; the box sends add, remove and
// replace, see live/delta.py). `applyPatch(doc, ops)` returns a new document and
// leaves `doc` as it was (what changed is copied, the rest shared), so a page that
// kept the last state can still compare. Throws on an operation that does not fit.

const unescape = (token) => token.replace(/~1/g, "/").replace(/~0/g, "~");

export function applyPatch(doc, ops) {
  const copied = new Set();
  const own = (value) => {
    if (value === null || typeof value !== "object") throw new Error("the path leads nowhere");
    if (copied.has(value)) return value;
    const copy = Array.isArray(value) ? value.slice() : { ...value };
    copied.add(copy);
    return copy;
  };
  let root = doc;
  for (const op of ops) {
    const keys = String(op.path).split("/").slice(1).map(unescape);
    if (!keys.length) {
      if (op.op !== "replace") throw new Error(`${op.op} of the whole document`);
      root = op.value;
      continue;
    }
    root = own(root);
    let parent = root;
    for (const key of keys.slice(0, -1)) {
      const child = own(parent[key]);
      parent[key] = child;
      parent = child;
    }
    const last = keys[keys.length - 1];
    if (Array.isArray(parent)) {
      const i = last === "-" ? parent.length : Number(last);
      const top = op.op === "add" ? parent.length : parent.length - 1;
      if (!Number.isInteger(i) || i < 0 || i > top) throw new Error(`no item ${last} at ${op.path}`);
      if (op.op === "add") parent.splice(i, 0, op.value);
      else if (op.op === "remove") parent.splice(i, 1);
      else if (op.op === "replace") parent[i] = op.value;
      else throw new Error(`unknown op ${op.op}`);
    } else if (op.op === "remove") {
      delete parent[last];
    } else if (op.op === "add" || op.op === "replace") {
      parent[last] = op.value;
    } else {
      throw new Error(`unknown op ${op.op}`);
    }
  }
  return root;
}
