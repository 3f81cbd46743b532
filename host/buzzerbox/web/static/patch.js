// The live stream's deltas: JSON Patch (RFC 6902) with the operations the box sends,
// add, remove and replace (live/delta.py). `applyPatch(doc, ops)` returns a new
// document and leaves `doc` as it was (what changed is copied, the rest shared), so a
// page that kept the last state can still compare. Any patch that is not valid for
// `doc` throws (a member or item that is not there, an index that is not RFC 6901's,
// a missing value, another operation): the page then asks for the whole state again.
// Members are own properties only: "__proto__" and "constructor" are names like any.

const has = (obj, key) => Object.prototype.hasOwnProperty.call(obj, key);
const INDEX = /^(0|[1-9][0-9]*)$/;

function tokens(path) {
  if (typeof path !== "string") throw new Error("an operation without a path");
  if (path === "") return [];
  if (path[0] !== "/") throw new Error(`the path ${path} does not start with /`);
  return path
    .slice(1)
    .split("/")
    .map((token) => {
      if (/~[^01]|~$/.test(token)) throw new Error(`the path ${path} has a bad ~ escape`);
      return token.replace(/~1/g, "/").replace(/~0/g, "~");
    });
}

function index(list, token, path, adding) {
  if (adding && token === "-") return list.length;
  const i = INDEX.test(token) ? Number(token) : -1;
  if (i < 0 || i > list.length - (adding ? 0 : 1)) throw new Error(`no item ${token} at ${path}`);
  return i;
}

function set(obj, key, value) {
  Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
}

export function applyPatch(doc, ops) {
  if (!Array.isArray(ops)) throw new Error("a patch is a list of operations");
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
    if (op === null || typeof op !== "object") throw new Error("an operation is an object");
    const kind = op.op;
    if (kind !== "add" && kind !== "remove" && kind !== "replace") {
      throw new Error(`the operation ${kind} is not one the box sends`);
    }
    if (kind !== "remove" && !has(op, "value")) throw new Error(`${kind} without a value`);
    const keys = tokens(op.path);
    if (!keys.length) {
      if (kind === "remove") throw new Error("remove of the whole document");
      root = op.value;
      continue;
    }
    root = own(root);
    let parent = root;
    for (const key of keys.slice(0, -1)) {
      const at = Array.isArray(parent) ? index(parent, key, op.path, false) : key;
      if (!Array.isArray(parent) && !has(parent, at)) throw new Error(`no member ${key} at ${op.path}`);
      const child = own(parent[at]);
      set(parent, at, child);
      parent = child;
    }
    const last = keys[keys.length - 1];
    if (Array.isArray(parent)) {
      const i = index(parent, last, op.path, kind === "add");
      if (kind === "add") parent.splice(i, 0, op.value);
      else if (kind === "remove") parent.splice(i, 1);
      else parent[i] = op.value;
    } else if (kind !== "add" && !has(parent, last)) {
      throw new Error(`no member ${last} at ${op.path}`);
    } else if (kind === "remove") {
      delete parent[last];
    } else {
      set(parent, last, op.value);
    }
  }
  return root;
}
