import { parse } from "smol-toml";

/**
 * Maps key paths of a TOML document to the lines they are written on, so that errors found after
 * parsing can still point at `file:line`. smol-toml gives values, not positions; table headers
 * and `key = value` lines are enough to place every key sqlload validates.
 */
export class KeyLocator {
  private readonly lines = new Map<string, number>();

  constructor(text: string) {
    let table: string[] = [];
    text.split(/\r?\n/).forEach((raw, index) => {
      const line = index + 1;
      const header = /^\s*\[\[?(.+?)\]\]?\s*(#.*)?$/.exec(raw);
      if (header?.[1]) {
        const path = headerPath(header[1]);
        if (path) {
          table = path;
          this.remember(path, line);
        }
        return;
      }
      const key =
        /^\s*((?:"(?:[^"\\]|\\.)*"|'[^']*'|[A-Za-z0-9_-]+)(?:\s*\.\s*(?:"(?:[^"\\]|\\.)*"|'[^']*'|[A-Za-z0-9_-]+))*)\s*=/.exec(
          raw,
        );
      if (key?.[1]) {
        const path = headerPath(key[1]);
        if (path) this.remember([...table, ...path], line);
      }
    });
  }

  private remember(path: readonly string[], line: number): void {
    const id = JSON.stringify(path);
    if (!this.lines.has(id)) this.lines.set(id, line);
  }

  /** The line of a key path, or of its nearest written ancestor. */
  line(path: readonly string[]): number | undefined {
    for (let n = path.length; n > 0; n--) {
      const line = this.lines.get(JSON.stringify(path.slice(0, n)));
      if (line !== undefined) return line;
    }
    return undefined;
  }
}

/** The key path of a header or dotted key, parsed by the TOML library itself so quoting rules match. */
function headerPath(header: string): string[] | undefined {
  try {
    let node: unknown = parse(`[${header}]\n`);
    const path: string[] = [];
    while (node && typeof node === "object") {
      const keys = Object.keys(node);
      if (keys.length !== 1) break;
      path.push(keys[0] as string);
      node = (node as Record<string, unknown>)[keys[0] as string];
    }
    return path;
  } catch {
    return undefined;
  }
}

/** `sources.app.tables."public.orders".lookback`: a key path as a user would write it. */
export function formatKeyPath(path: readonly string[]): string {
  return path.map((p) => (/^[A-Za-z0-9_-]+$/.test(p) ? p : JSON.stringify(p))).join(".");
}
