// Applies JSON Patches with the pages' own web/static/patch.js, for the Python tests:
// reads [[doc, patch], ...] as JSON on stdin, writes one answer for each on stdout,
// {"doc": the patched document} or {"error": the message applyPatch threw}, and
// {"same": false} too if applyPatch changed the document it was given.
import { readFileSync } from "node:fs";

const source = readFileSync(process.argv[2], "utf8");
const { applyPatch } = await import(`data:text/javascript,${encodeURIComponent(source)}`);
const cases = JSON.parse(readFileSync(0, "utf8"));
const answers = cases.map(([doc, patch]) => {
  const before = JSON.stringify(doc);
  try {
    const after = applyPatch(doc, patch);
    return { doc: after, same: JSON.stringify(doc) === before };
  } catch (error) {
    return { error: String(error.message), same: JSON.stringify(doc) === before };
  }
});
process.stdout.write(JSON.stringify(answers));
