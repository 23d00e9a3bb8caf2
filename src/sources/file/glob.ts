import { OptionError } from "../../errors/errors.js";

/**
 * File-name globs for `pathGlobFilter`, with the syntax Spark inherits from Hadoop's GlobFilter:
 * `*` any run of characters, `?` one character, `[abc]` / `[a-z]` / `[!a-z]` (or `[^a-z]`) one
 * character from (or not from) a set, `{jsonl,json}` one of several alternatives, and `\` to take
 * the next character literally. The whole name must match.
 */

function escapeRegExp(ch: string): string {
  return /[\\^$.*+?()[\]{}|/]/.test(ch) ? `\\${ch}` : ch;
}

/** Index of the `]` closing the class opened at `open`, or -1. */
function classEnd(glob: string, open: number): number {
  let i = open + 1;
  if (glob[i] === "!" || glob[i] === "^") i++;
  if (glob[i] === "]") i++; // a leading ']' is a member, not the end
  while (i < glob.length && glob[i] !== "]") i++;
  return i < glob.length ? i : -1;
}

function characterClass(body: string): string {
  const negated = body.startsWith("!") || body.startsWith("^");
  const members = (negated ? body.slice(1) : body).replace(/[\\\]^]/g, (c) => `\\${c}`);
  return `[${negated ? "^" : ""}${members}]`;
}

export function globToRegExp(glob: string): RegExp {
  let source = "";
  let braceDepth = 0;
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i]!;
    if (ch === "\\" && i + 1 < glob.length) {
      source += escapeRegExp(glob[++i]!);
    } else if (ch === "*") {
      source += ".*";
    } else if (ch === "?") {
      source += ".";
    } else if (ch === "[" && classEnd(glob, i) > 0) {
      const end = classEnd(glob, i);
      source += characterClass(glob.slice(i + 1, end));
      i = end;
    } else if (ch === "{") {
      braceDepth++;
      source += "(?:";
    } else if (ch === "}" && braceDepth > 0) {
      braceDepth--;
      source += ")";
    } else if (ch === "," && braceDepth > 0) {
      source += "|";
    } else {
      source += escapeRegExp(ch);
    }
  }
  if (braceDepth > 0) throw new OptionError(`pathGlobFilter "${glob}" has an unclosed '{'; close it with '}' or escape it as '\\{'`);
  return new RegExp(`^${source}$`, "s");
}
